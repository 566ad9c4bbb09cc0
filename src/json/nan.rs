//! Karenina's bare `NaN`, `Infinity` and `-Infinity` tokens (Python's
//! `json.dump` writes them; strict JSON readers refuse them): a scanner that
//! swaps each token outside strings for a sentinel string serde_json
//! accepts, so a row with them parses and the mapping can turn them back
//! into doubles. It lives with the other JSON readers so there is one JSON
//! scanner per job in one room.

/// Sentinel strings standing for Karenina's bare `NaN` / `Infinity` tokens.
pub const NAN: &str = "\u{0}kld:NaN";
/// See [`NAN`].
pub const POS_INF: &str = "\u{0}kld:Infinity";
/// See [`NAN`].
pub const NEG_INF: &str = "\u{0}kld:-Infinity";

/// Replaces bare `NaN`, `Infinity`, `-Infinity` tokens outside strings by
/// sentinel strings serde_json accepts; the results mapping
/// (`crate::rdf::verification`) turns them back into doubles.
pub(crate) fn replace_tokens(text: &str) -> std::borrow::Cow<'_, str> {
    if !(text.contains("NaN") || text.contains("Infinity")) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let (mut in_str, mut esc) = (false, false);
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let ch = rest.chars().next().unwrap_or(' ');
        if !in_str {
            let token = [("-Infinity", NEG_INF), ("Infinity", POS_INF), ("NaN", NAN)]
                .into_iter()
                .find(|(tok, _)| rest.starts_with(tok));
            if let Some((tok, sentinel)) = token {
                // The sentinel starts with U+0000, escaped inside JSON text.
                out.push_str("\"\\u0000");
                out.push_str(&sentinel['\u{0}'.len_utf8()..]);
                out.push('"');
                i += tok.len();
                continue;
            }
            in_str = ch == '"';
        } else if esc {
            esc = false;
        } else if ch == '\\' {
            esc = true;
        } else if ch == '"' {
            in_str = false;
        }
        out.push(ch);
        i += ch.len_utf8();
    }
    std::borrow::Cow::Owned(out)
}
