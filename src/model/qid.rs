//! Question IDs exactly as Karenina computes them (Karenina `src/karenina/utils/checkpoint.py`).
//!
//! `urn:uuid:question-<prefix>-<md5[:8]>` where the prefix is Python's
//! `text.lower()` with spaces → `-`, `?`/`.`/`,` deleted, cut to 50 code points;
//! collisions get `-1`, `-2`… after the hash. `Question` objects use the bare
//! 32-hex MD5 instead. Rust's `str::to_lowercase` implements the same full
//! Unicode lowercasing as Python's `str.lower()` (final sigma, `İ` → `i̇`).

use md5::{Digest, Md5};
use std::collections::HashSet;

/// Lowercase hex MD5 of the UTF-8 bytes of `text` (Karenina's `Question.id`).
pub fn md5_hex(text: &str) -> String {
    format!("{:x}", Md5::digest(text.as_bytes()))
}

/// The readable prefix: `lower()`, `' '` → `-`, drop `?` `.` `,`, first 50 code points.
pub(crate) fn id_prefix(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .filter(|c| !matches!(c, '?' | '.' | ','))
        .map(|c| if c == ' ' { '-' } else { c })
        .take(50)
        .collect()
}

/// `generate_question_id(text)`: the ID without collision suffix.
pub fn question_id(text: &str) -> String {
    let h = md5_hex(text);
    format!("urn:uuid:question-{}-{}", id_prefix(text), &h[..8])
}

/// IDs for questions added in order, with Karenina's `-1`, `-2` collision suffixes.
pub fn question_ids<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut used = HashSet::new();
    let mut out = Vec::new();
    for t in texts {
        let base = question_id(t);
        let mut id = base.clone();
        let mut n = 1;
        while used.contains(&id) {
            id = format!("{base}-{n}");
            n += 1;
        }
        used.insert(id.clone());
        out.push(id);
    }
    out
}

/// The ID Karenina would give `text` now, in the form of `old`: the bare
/// 32-hex MD5 (Karenina's `Question.id`, written when a `Question` object is
/// added) when `old` is one, else the readable `urn:uuid:question-…` URN
/// (written by `add_question` with a text).
pub(crate) fn current_id(old: &str, text: &str) -> String {
    if old.len() == 32 && old.bytes().all(|b| b.is_ascii_hexdigit()) {
        md5_hex(text)
    } else {
        question_id(text)
    }
}

/// How an item ID relates to its question text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IdCheck {
    /// The readable URN of this text (possibly with a collision suffix).
    Readable,
    /// The bare 32-hex MD5 of this text (or the GUI's `urn:uuid:<md5>`).
    Md5,
    /// Looks like a Karenina-generated ID but does not match the text.
    Stale,
    /// Some other scheme (hand-written fixtures, custom IDs): nothing to check.
    Other,
}

/// Classifies `id` against `text`.
pub(crate) fn check_id(id: &str, text: &str) -> IdCheck {
    if let Some(rest) = id.strip_prefix("urn:uuid:question-") {
        let base = question_id(text);
        if id == base {
            return IdCheck::Readable;
        }
        if let Some(suffix) = id.strip_prefix(&base).and_then(|s| s.strip_prefix('-')) {
            if !suffix.is_empty() && suffix.bytes().all(|b| b.is_ascii_digit()) {
                return IdCheck::Readable;
            }
        }
        let _ = rest;
        return IdCheck::Stale;
    }
    let hex = id.strip_prefix("urn:uuid:").unwrap_or(id);
    if hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return if hex.eq_ignore_ascii_case(&md5_hex(text)) {
            IdCheck::Md5
        } else if id.len() == 32 {
            IdCheck::Stale
        } else {
            // `urn:uuid:<32 hex>` may be a real UUID without dashes: not ours to judge.
            IdCheck::Other
        };
    }
    IdCheck::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples() {
        let cases = [
            (
                "What is the capital of France?",
                "urn:uuid:question-what-is-the-capital-of-france-cb0b4aaf",
                "cb0b4aaf80c43c9973aefeda1bd72890",
            ),
            (
                "What is 6 multiplied by 7?",
                "urn:uuid:question-what-is-6-multiplied-by-7-aba99ec8",
                "aba99ec8f175dc0e9db154ccb0bf9b54",
            ),
            (
                "What element has the atomic number 8? Provide both the name and symbol.",
                "urn:uuid:question-what-element-has-the-atomic-number-8-provide-both--5050de4c",
                "5050de4cd96eade8cb3f8fb68b255afb",
            ),
            (
                "Is BRCA1 a tumour-suppressor gene? Answer yes/no: (see Smith et al., 2020)",
                "urn:uuid:question-is-brca1-a-tumour-suppressor-gene-answer-yes/no:-(-da5398f5",
                "da5398f5fc5d746966cecd2a93603730",
            ),
            (
                "Which drug targets EGFR, HER2, and VEGFR in non-small-cell lung cancer (NSCLC)?",
                "urn:uuid:question-which-drug-targets-egfr-her2-and-vegfr-in-non-smal-22c9f3a3",
                "22c9f3a36fdfdeeec76afb14d27aba9e",
            ),
            (
                "  Ünïcödé   question… with tabs\tand\nnewlines, dots... and émojis 🧬?",
                "urn:uuid:question---ünïcödé---question…-with-tabs\tand\nnewlines-dots--70ff2edc",
                "70ff2edcab36866fa7cfc16c8c108368",
            ),
        ];
        for (text, id, md5) in cases {
            assert_eq!(question_id(text), id, "{text:?}");
            assert_eq!(md5_hex(text), md5);
            assert_eq!(check_id(id, text), IdCheck::Readable);
        }
        assert_eq!(md5_hex("Is 17 prime?"), "20c3dace73540ab37a66637ea4b8518c");
    }

    #[test]
    fn collisions_get_suffixes() {
        let ids = question_ids(["What is the capital of France?"; 3]);
        assert_eq!(
            ids[0],
            "urn:uuid:question-what-is-the-capital-of-france-cb0b4aaf"
        );
        assert_eq!(
            ids[1],
            "urn:uuid:question-what-is-the-capital-of-france-cb0b4aaf-1"
        );
        assert_eq!(
            ids[2],
            "urn:uuid:question-what-is-the-capital-of-france-cb0b4aaf-2"
        );
        assert_eq!(
            check_id(&ids[2], "What is the capital of France?"),
            IdCheck::Readable
        );
    }

    #[test]
    fn python_lowercasing() {
        // Greek final sigma: Σ at the end of a word lowers to ς, elsewhere to σ.
        assert_eq!(id_prefix("ΟΔΟΣ ΣΟΦΙΑΣ"), "οδος-σοφιας");
        // Turkish dotted capital I lowers to i + U+0307 (two code points).
        assert_eq!(id_prefix("İstanbul"), "i\u{307}stanbul");
        assert_eq!(id_prefix("ISTANBUL ıi"), "istanbul-ıi");
        // CJK has no case; full-width punctuation is kept, ASCII ?., removed.
        assert_eq!(
            id_prefix("日本の首都は？ 東京. Yes,"),
            "日本の首都は？-東京-yes"
        );
        // Emoji count as one code point each toward the 50 limit.
        let emoji = "🧬".repeat(60);
        assert_eq!(id_prefix(&emoji).chars().count(), 50);
        // Tabs and newlines are kept verbatim, only U+0020 becomes '-'.
        assert_eq!(id_prefix("A\tB\nC D"), "a\tb\nc-d");
        // German sharp s stays ß (lower), capital ẞ lowers to ß.
        assert_eq!(id_prefix("STRAẞE"), "straße");
    }

    #[test]
    fn md5_and_stale_ids() {
        let t = "Is 17 prime?";
        assert_eq!(
            check_id("20c3dace73540ab37a66637ea4b8518c", t),
            IdCheck::Md5
        );
        assert_eq!(
            check_id("urn:uuid:20c3dace73540ab37a66637ea4b8518c", t),
            IdCheck::Md5
        );
        assert_eq!(
            check_id("00000000000000000000000000000000", t),
            IdCheck::Stale
        );
        assert_eq!(
            check_id("urn:uuid:question-is-17-prime-deadbeef", t),
            IdCheck::Stale
        );
        assert_eq!(check_id("q001", t), IdCheck::Other);
        // A stale ID is answered in its own form.
        assert_eq!(
            current_id("00000000000000000000000000000000", t),
            "20c3dace73540ab37a66637ea4b8518c"
        );
        assert_eq!(
            current_id("urn:uuid:question-is-17-prime-deadbeef", t),
            question_id(t)
        );
    }
}
