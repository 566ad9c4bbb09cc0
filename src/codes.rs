//! The registry of diagnostic codes: every `KLD-…` code the library reports,
//! with its severity, the kind of input it concerns and a one-line summary.
//!
//! The codes themselves stay as literals where they are raised (the readers,
//! the lints, the preset checks, the results readers); [`CODES`] is the one
//! list of them. A test (`tests/library/docs.rs`) fails when a code is used in
//! `src/` but missing here, when a code here is used nowhere, and when the
//! table in `docs/diagnostics.md` differs from [`markdown_table`].
//!
//! ```
//! use karenina_ld::codes::{lookup, Input};
//! use karenina_ld::Severity;
//! let c = lookup("KLD-E005").unwrap();
//! assert_eq!((c.severity, c.input), (Severity::Error, Input::Json));
//! assert!(lookup("E005").is_none()); // the full code, with its prefix
//! ```

use crate::error::Severity;

/// The kind of input a code concerns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Input {
    /// Any JSON file, before it is read as anything (checkpoints, presets).
    Json,
    /// A benchmark checkpoint (`validate`, `canon` and every reader).
    Checkpoint,
    /// A verification preset (`kld preset`).
    Preset,
    /// A verification-results export, run folder or results database.
    Results,
}

impl Input {
    /// The name used in the docs table.
    pub fn name(self) -> &'static str {
        match self {
            Input::Json => "JSON",
            Input::Checkpoint => "checkpoint",
            Input::Preset => "preset",
            Input::Results => "results",
        }
    }
}

/// One registered diagnostic code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Code {
    /// The stable code, `KLD-E…` (an error) or `KLD-W…` (a warning).
    pub code: &'static str,
    /// Error (the input does not load) or warning (it loads; Karenina
    /// mishandles something, or kld changed something).
    pub severity: Severity,
    /// What kind of input it concerns.
    pub input: Input,
    /// What it means, in one line of Markdown.
    pub summary: &'static str,
}

const fn e(code: &'static str, input: Input, summary: &'static str) -> Code {
    Code {
        code,
        severity: Severity::Error,
        input,
        summary,
    }
}

const fn w(code: &'static str, input: Input, summary: &'static str) -> Code {
    Code {
        code,
        severity: Severity::Warning,
        input,
        summary,
    }
}

use Input::{Checkpoint as C, Json as J, Preset as P, Results as R};

/// Every diagnostic code, errors then warnings, in code order.
pub const CODES: &[Code] = &[
    e("KLD-E001", J, "empty file"),
    e("KLD-E002", J, "UTF-8 byte order mark"),
    e("KLD-E003", J, "invalid UTF-8"),
    e("KLD-E004", J, "invalid or truncated JSON"),
    e("KLD-E005", J, "nesting deeper than 128 levels (refused, no stack overflow)"),
    e("KLD-E006", J, "duplicate key"),
    e("KLD-E007", J, "number overflows a double"),
    e("KLD-E008", J, "`NaN` or `Infinity`"),
    e(
        "KLD-E009",
        C,
        "unresolved merge conflict: git conflict markers (`<<<<<<<`), named by line and question",
    ),
    e("KLD-E010", C, "top level is not an object (a checkpoint or a preset)"),
    e("KLD-E011", C, "missing required member"),
    e("KLD-E012", C, "wrong type"),
    e(
        "KLD-E013",
        C,
        "invalid value (empty name or text, wrong `@type`, `programmingLanguage` not Python)",
    ),
    e("KLD-E014", C, "string `@context`"),
    e(
        "KLD-E015",
        C,
        "the 2025-08 `Dataset` format (`canon --upgrade` converts it)",
    ),
    e("KLD-E016", C, "unknown trait type"),
    e("KLD-E017", C, "Manual trait (removed from Karenina)"),
    e("KLD-E018", C, "question-specific trait at dataset level"),
    e("KLD-E019", C, "questions and scenarios together"),
    e("KLD-E021", C, "`creator` that is not a Person"),
    e(
        "KLD-E022",
        C,
        "question-specific trait or question property that Karenina's models refuse (`Benchmark.load` fails)",
    ),
    e("KLD-E101", P, "unknown field"),
    e("KLD-E102", P, "wrong type (after Pydantic's lax coercion)"),
    e("KLD-E103", P, "invalid value (enum, bound)"),
    e("KLD-E104", P, "missing required field"),
    e("KLD-E105", P, "model or config rule"),
    e("KLD-E106", P, "no `config`"),
    e("KLD-E107", P, "name or description rule (on save)"),
    e(
        "KLD-E201",
        R,
        "bad results export or run folder: a bad row or cell, an unknown `format_version`, a truncated file, a short CSV record, the frontend CSV flavour, a bad `run_manifest.json`",
    ),
    e("KLD-E202", R, "not a readable Karenina results database"),
    e(
        "KLD-E203",
        R,
        "a value in a results database that Karenina refuses (malformed JSON, text in a number column): left out, located by table, row and column",
    ),
    e(
        "KLD-E204",
        R,
        "results database locked by another process past the wait (`KLD_SQLITE_BUSY`)",
    ),
    e(
        "KLD-E205",
        R,
        "a benchmark of a results database that cannot be rebuilt as Karenina's `load_from_db` rebuilds it (a question row missing, a value Karenina's models refuse)",
    ),
    w("KLD-W001", C, "unknown member (kept; `canon --drop-unknown` drops it)"),
    w("KLD-W002", C, "legacy `@context`"),
    w("KLD-W003", C, "unprefixed trait type"),
    w("KLD-W004", C, "keywords on the DataFeedItem"),
    w("KLD-W005", C, "keywords on both item and question"),
    w("KLD-W006", C, "non-aliased root key (`context`, `type`, `id`)"),
    w("KLD-W007", C, "number given as a string or a boolean"),
    w("KLD-W010", C, "global trait inside a question"),
    w("KLD-W011", C, "dynamic trait inside a question"),
    w("KLD-W012", C, "0..1 score trait that reloads as boolean"),
    w("KLD-W013", C, "score range only in best/worstRating"),
    w("KLD-W014", C, "template kind with custom min/max"),
    w(
        "KLD-W015",
        C,
        "dynamic trait without (or with an unknown) `dynamic_trait_type`",
    ),
    w("KLD-W016", C, "invalid base64 `callable_code` (global trait)"),
    w("KLD-W017", C, "metric trait rules (global trait)"),
    w("KLD-W018", C, "kind, classes or agentic rules (global trait)"),
    w("KLD-W019", C, "regex that Python's `re` does not compile (global trait)"),
    w("KLD-W020", C, "duplicate question ID"),
    w("KLD-W021", C, "question ID that no longer matches its text"),
    w("KLD-W022", C, "item without `@id`"),
    w("KLD-W023", C, "`custom_` stripped more than once"),
    w("KLD-W024", C, "GUI `global_rubric_traits` (not read)"),
    w("KLD-W025", C, "JSON-string arrays (older format)"),
    w("KLD-W026", C, "repeated trait property"),
    w("KLD-W027", C, "non-boolean `finished` that pydantic coerces"),
    w("KLD-W028", C, "legacy GUI global trait property"),
    w("KLD-W029", C, "context referencing a remote document (never fetched)"),
    w("KLD-W030", C, "upgraded from the `Dataset` format"),
    w(
        "KLD-W031",
        C,
        "global or dynamic trait (or a rubric) that Karenina refuses when verification reads it",
    ),
    w("KLD-W032", C, "LLM trait kind that Karenina reads as score"),
    w(
        "KLD-W033",
        C,
        "placeholder benchmark Karenina auto-created for a verification run (every answer \"[Placeholder - see template]\")",
    ),
    w("KLD-W101", P, "masked key (`\"**********\"`) in the file"),
    w("KLD-W102", P, "plain-text key in the file"),
    w("KLD-W103", P, "key not written (`--include-secrets` keeps it)"),
    w("KLD-W104", P, "`*_instructions` folded into `prompt_config`"),
    w(
        "KLD-W106",
        P,
        "name or description rule (Karenina checks it on save only)",
    ),
    w(
        "KLD-W201",
        R,
        "run folder workspace manifest: an entry or file not read, an entry that matches no result of the run, a copy folder not in the run folder (the run loads; the rest of the manifest is mapped)",
    ),
    w(
        "KLD-W202",
        R,
        "repair sidecar: not read, a source SHA-256 that differs from the file on disk (or that file missing), a selected key that names no result (the run loads)",
    ),
];

/// The registered code `code` (`"KLD-E004"`), if any.
pub fn lookup(code: &str) -> Option<&'static Code> {
    CODES.iter().find(|c| c.code == code)
}

/// The Markdown table of [`CODES`] that `docs/diagnostics.md` holds: one row
/// per code, in registry order, ending in a newline.
pub fn markdown_table() -> String {
    let mut s = String::from("| code | severity | input | meaning |\n|---|---|---|---|\n");
    for c in CODES {
        let severity = match c.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        s.push_str(&format!(
            "| `{}` | {severity} | {} | {} |\n",
            c.code,
            c.input.name(),
            c.summary
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_sorted_and_match_their_severity() {
        for pair in CODES.windows(2) {
            assert!(
                pair[0].code < pair[1].code,
                "{} then {}",
                pair[0].code,
                pair[1].code
            );
        }
        for c in CODES {
            let letter = c.code.as_bytes()[4];
            let expected = if c.severity == Severity::Error {
                b'E'
            } else {
                b'W'
            };
            assert_eq!(letter, expected, "{}", c.code);
            assert!(
                !c.summary.contains('|') && !c.summary.contains('\n'),
                "{}",
                c.code
            );
        }
    }
}
