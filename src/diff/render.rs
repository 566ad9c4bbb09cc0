//! The text of a [`Diff`] for people, and word diffs of changed values.
//!
//! Every piece of checkpoint text is escaped for the terminal
//! ([`crate::terminal::escape_controls`]) before kld's colours are added, so
//! a value holding ESC sequences shows them as text, colours or not.

use super::{Diff, FieldChange, TraitChanges};
use crate::terminal::escape_controls as esc;

/// Colours for [`Diff::render`] (ANSI escapes on a terminal, none otherwise).
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Use ANSI colours.
    pub color: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
}

/// A label: a value cut at 100 characters (question texts in headings; a
/// changed value is shown by [`render_change`] instead, never cut).
fn short(v: &serde_json::Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 100 {
        format!("{}…", s.chars().take(99).collect::<String>())
    } else {
        s
    }
}

/// Values at most this long (in characters, on one line) are shown whole as
/// `old → new`; longer ones as a word diff.
const SHORT_VALUE: usize = 80;
/// Unchanged words kept on each side of a change in a word diff.
const CONTEXT_WORDS: usize = 6;
/// At most this many characters of unchanged context on each side (a text
/// without spaces is one long word).
const CONTEXT_CHARS: usize = 60;
/// A replaced run longer than this on both sides is refined character by
/// character (a long word or a text without spaces).
const REFINE_CHARS: usize = 24;

/// The text a value is compared as: a string's content, else its JSON.
fn text_of(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One changed value: `old → new` when both are short, else a word diff.
fn render_change(old: &serde_json::Value, new: &serde_json::Value, st: Style) -> String {
    let (a, b) = (text_of(old), text_of(new));
    let one_line = |s: &str| s.chars().count() <= SHORT_VALUE && !s.contains('\n');
    if one_line(&a) && one_line(&b) {
        esc(&format!("{} → {}", old, new)).into_owned()
    } else {
        word_diff(&a, &b, st)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Seg {
    Same,
    Old,
    New,
}

/// Consecutive changes of one kind, merged.
fn segments(ops: impl Iterator<Item = (similar::ChangeTag, String)>) -> Vec<(Seg, String)> {
    let mut out: Vec<(Seg, String)> = Vec::new();
    for (tag, text) in ops {
        let seg = match tag {
            similar::ChangeTag::Equal => Seg::Same,
            similar::ChangeTag::Delete => Seg::Old,
            similar::ChangeTag::Insert => Seg::New,
        };
        match out.last_mut() {
            Some((s, t)) if *s == seg => t.push_str(&text),
            _ => out.push((seg, text)),
        }
    }
    out
}

fn diff_segments(a: &str, b: &str, chars: bool) -> Vec<(Seg, String)> {
    let mut config = similar::TextDiff::configure();
    config.timeout(super::DIFF_DEADLINE);
    let d = if chars {
        config.diff_chars(a, b)
    } else {
        config.diff_words(a, b)
    };
    segments(
        d.iter_all_changes()
            .map(|c| (c.tag(), c.value().to_string())),
    )
}

/// Word diff with long replaced runs refined character by character, and
/// the old part of each change before the new part.
fn changes(a: &str, b: &str) -> Vec<(Seg, String)> {
    let words = diff_segments(a, b, false);
    let mut out: Vec<(Seg, String)> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let (seg, text) = &words[i];
        if *seg == Seg::Old && words.get(i + 1).is_some_and(|(s, _)| *s == Seg::New) {
            let new = &words[i + 1].1;
            if text.chars().count() > REFINE_CHARS && new.chars().count() > REFINE_CHARS {
                out.extend(diff_segments(text, new, true));
                i += 2;
                continue;
            }
        }
        out.push((*seg, text.clone()));
        i += 1;
    }
    // Merge what refining split, so each run is shown once.
    segments(out.into_iter().map(|(s, t)| {
        let tag = match s {
            Seg::Same => similar::ChangeTag::Equal,
            Seg::Old => similar::ChangeTag::Delete,
            Seg::New => similar::ChangeTag::Insert,
        };
        (tag, t)
    }))
}

/// Byte spans of the words (runs of non-whitespace) of `s`.
fn word_spans(s: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(st)) => {
                spans.push((st, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(st) = start {
        spans.push((st, s.len()));
    }
    spans
}

/// The first words of unchanged text after a change (`…` when cut).
fn head(s: &str) -> String {
    let spans = word_spans(s);
    let mut end = spans
        .get(CONTEXT_WORDS.saturating_sub(1))
        .filter(|_| spans.len() > CONTEXT_WORDS)
        .map_or(s.len(), |w| w.1);
    if s[..end].chars().count() > CONTEXT_CHARS {
        end = s.char_indices().nth(CONTEXT_CHARS).map_or(end, |(i, _)| i);
    }
    if end < s.len() {
        format!("{}…", &s[..end])
    } else {
        s.to_string()
    }
}

/// The last words of unchanged text before a change (`…` when cut).
fn tail(s: &str) -> String {
    let spans = word_spans(s);
    let mut start = if spans.len() > CONTEXT_WORDS {
        spans[spans.len() - CONTEXT_WORDS].0
    } else {
        0
    };
    let n = s[start..].chars().count();
    if n > CONTEXT_CHARS {
        start = s[start..]
            .char_indices()
            .nth(n - CONTEXT_CHARS)
            .map_or(start, |(i, _)| start + i);
    }
    if start > 0 {
        format!("…{}", &s[start..])
    } else {
        s.to_string()
    }
}

/// A word diff of two texts, as `git diff --word-diff` shows one: removed
/// text as `[-…-]`, added text as `{+…+}` (red and green with colours), with
/// a few unchanged words of context on each side of every change and `…`
/// where unchanged text is left out. Every changed region is shown whole,
/// whatever the texts' length.
pub(crate) fn word_diff(a: &str, b: &str, st: Style) -> String {
    let segs = changes(a, b);
    let last = segs.len().saturating_sub(1);
    let mut out = String::new();
    for (i, (seg, text)) in segs.iter().enumerate() {
        let text = &esc(text);
        match seg {
            Seg::Old => out.push_str(&st.paint("31", &format!("[-{text}-]"))),
            Seg::New => out.push_str(&st.paint("32", &format!("{{+{text}+}}"))),
            Seg::Same if i == 0 => out.push_str(&tail(text)),
            Seg::Same if i == last => out.push_str(&head(text)),
            Seg::Same => {
                let (h, t) = (head(text), tail(text));
                if h.ends_with('…') && t.starts_with('…') {
                    out.push_str(h.trim_end_matches('…'));
                    out.push_str(" … ");
                    out.push_str(t.trim_start_matches('…'));
                } else {
                    out.push_str(text);
                }
            }
        }
    }
    out
}

fn render_fields(out: &mut String, indent: &str, fields: &[FieldChange], st: Style) {
    for f in fields {
        let shown = render_change(&f.old, &f.new, st);
        // A multi-line value stays under its field.
        let shown = shown.replace('\n', &format!("\n{indent}  "));
        out.push_str(&format!("{indent}{}: {shown}\n", esc(&f.field)));
    }
}

fn render_traits(out: &mut String, st: Style, indent: &str, what: &str, t: &TraitChanges) {
    for n in &t.added {
        out.push_str(&st.paint("32", &format!("{indent}+ {what} {n:?}\n")));
    }
    for n in &t.removed {
        out.push_str(&st.paint("31", &format!("{indent}- {what} {n:?}\n")));
    }
    for c in &t.changed {
        out.push_str(&st.paint("33", &format!("{indent}~ {what} {:?}\n", c.name)));
        render_fields(out, &format!("{indent}    "), &c.fields, st);
    }
}

impl Diff {
    /// The diff as text for people: `+` added, `-` removed, `~` changed,
    /// `↕` moved, each question named by its ID.
    pub fn render(&self, st: Style) -> String {
        let mut out = String::new();
        if !self.metadata.is_empty() {
            out.push_str(&st.paint("33", "~ benchmark\n"));
            render_fields(&mut out, "    ", &self.metadata, st);
        }
        render_traits(&mut out, st, "", "global trait", &self.global_traits);
        for q in &self.removed {
            out.push_str(&st.paint(
                "31",
                &format!(
                    "- question {}: {}\n",
                    esc(&q.id),
                    esc(&short(&q.text.clone().into()))
                ),
            ));
        }
        for q in &self.added {
            out.push_str(&st.paint(
                "32",
                &format!(
                    "+ question {}: {}\n",
                    esc(&q.id),
                    esc(&short(&q.text.clone().into()))
                ),
            ));
        }
        for c in &self.changed {
            out.push_str(&st.paint(
                "33",
                &format!(
                    "~ question {}: {}\n",
                    esc(&c.id),
                    esc(&short(&c.text.clone().into()))
                ),
            ));
            render_fields(&mut out, "    ", &c.fields, st);
            if let Some(t) = &c.template {
                out.push_str("    template:\n");
                for line in t.lines() {
                    let line = &esc(line);
                    let colored = match line.as_bytes().first() {
                        Some(b'+') if !line.starts_with("+++") => st.paint("32", line),
                        Some(b'-') if !line.starts_with("---") => st.paint("31", line),
                        _ => line.to_string(),
                    };
                    out.push_str(&format!("      {colored}\n"));
                }
            }
            render_traits(&mut out, st, "    ", "trait", &c.traits);
        }
        for m in &self.moved {
            out.push_str(&format!(
                "↕ question {} moved: {} → {}\n",
                esc(&m.id),
                m.from,
                m.to
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: Style = Style { color: false };

    fn long_text(words: usize) -> String {
        (0..words)
            .map(|i| format!("word{i}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn the_last_word_of_a_long_text_shows_with_context_before_it() {
        let a = format!("{} final.", long_text(80));
        let b = a.replace("final.", "changed.");
        let d = word_diff(&a, &b, PLAIN);
        assert!(d.contains("[-final.-]{+changed.+}"), "{d}");
        assert!(d.starts_with('…'), "{d}");
        assert!(d.contains("word79 "), "the word before the change: {d}");
        assert!(d.chars().count() < 100, "{d}");
    }

    #[test]
    fn a_change_in_the_middle_keeps_context_on_both_sides() {
        let a = format!("{} middle {}", long_text(40), long_text(40));
        let b = a.replacen(" middle ", " centre ", 1);
        let d = word_diff(&a, &b, PLAIN);
        assert!(d.contains("word39 [-middle-]{+centre+} word0"), "{d}");
        assert!(d.starts_with('…') && d.ends_with('…'), "{d}");
        // Two changes far apart: both shown, the text between them elided.
        let b2 = b.replace("word5 ", "WORD5 ");
        let d = word_diff(&a, &b2, PLAIN);
        assert!(d.contains("{+WORD5+}") && d.contains("{+centre+}"), "{d}");
        assert!(d.contains(" … "), "{d}");
    }

    #[test]
    fn a_text_without_spaces_is_refined_by_character() {
        let a = "x".repeat(300) + "abc" + &"y".repeat(300);
        let b = "x".repeat(300) + "abd" + &"y".repeat(300);
        let d = word_diff(&a, &b, PLAIN);
        assert!(d.contains("[-c-]{+d+}"), "{d}");
        assert!(d.chars().count() < 200, "{d}");
    }

    #[test]
    fn short_values_show_whole_and_long_ones_as_a_word_diff() {
        let v = |s: &str| serde_json::Value::String(s.into());
        assert_eq!(render_change(&v("a"), &v("b"), PLAIN), "\"a\" → \"b\"");
        let a = long_text(100);
        let b = a.replace("word99", "last");
        assert!(render_change(&v(&a), &v(&b), PLAIN).contains("{+last+}"));
        let colored = word_diff("one two", "one three", Style { color: true });
        assert!(colored.contains("\x1b[31m[-two-]\x1b[0m"), "{colored:?}");
    }
}
