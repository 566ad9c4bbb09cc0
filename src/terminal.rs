//! Checkpoint text made safe to print on a terminal.
//!
//! Why: a checkpoint's strings are anyone's text, and a terminal obeys the
//! control characters in what it prints: `kld diff` printed a question
//! holding ESC sequences raw (clearing the screen, writing the clipboard
//! with OSC 52, hiding links behind OSC 8, overwriting lines with CR and
//! BS), with colours or without. Every piece of checkpoint text the text
//! outputs show goes through [`escape_controls`] first; kld's own colours
//! are added after.

use std::borrow::Cow;

/// True for a character a terminal may act on instead of showing: C0
/// controls but newline and tab, DEL, C1 controls, and the bidirectional
/// overrides and isolates that reorder what is shown.
pub fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every [`is_unsafe`] character written visibly: `\x1b` for a
/// C0 control or DEL (`\r` and `\x08` as `\r` and `\b`), `\u{9b}` for the
/// others. Newlines and tabs are kept. Borrowed when nothing changes.
pub fn escape_controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            c if is_unsafe(c) && (c as u32) < 0x80 => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if is_unsafe(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A name or value shown within one line of kld's own text (a run name, a
/// label, a path): [`escape_controls`], and a line break (`\n`, U+0085,
/// U+2028, U+2029) written `\n` or `\u{…}`, so that the value cannot start a
/// line that looks like one of kld's.
pub fn escape_field(s: &str) -> Cow<'_, str> {
    let breaks = |c: char| matches!(c, '\n' | '\u{85}' | '\u{2028}' | '\u{2029}');
    if !s.chars().any(breaks) {
        return escape_controls(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            c if breaks(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(escape_controls(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_csi_osc_cr_bs_c1_and_bidi_and_keeps_newlines_and_text() {
        let hostile =
            "a\x1b[2J\x1b]52;c;aGk=\x07\x1b]8;;http://x\x1b\\b\rc\u{8}d\u{9b}e\u{202e}f\x7f\n\tg é";
        let shown = escape_controls(hostile);
        assert_eq!(
            shown,
            "a\\x1b[2J\\x1b]52;c;aGk=\\x07\\x1b]8;;http://x\\x1b\\b\\rc\\bd\\u{9b}e\\u{202e}f\\x7f\n\tg é"
        );
        assert!(!shown.chars().any(is_unsafe));
        assert!(matches!(escape_controls("plain\ttext\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_field_never_breaks_its_line() {
        let name = "run\nkld: error: all results lost\u{2028}x\u{85}y\r\x1b[2J";
        let shown = escape_field(name);
        assert_eq!(
            shown,
            "run\\nkld: error: all results lost\\u{2028}x\\u{85}y\\r\\x1b[2J"
        );
        assert!(!shown.contains('\n') && !shown.chars().any(is_unsafe));
        assert!(matches!(escape_field("plain name"), Cow::Borrowed(_)));
    }
}
