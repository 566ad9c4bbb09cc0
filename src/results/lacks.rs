//! What a results file lacks for Karenina's numbers, said with the file and
//! the JSON path.
//!
//! Why: Karenina's Python writers always write every field of a row (null
//! when empty), but other writers keep only some. The GUI's custom export
//! keeps the fields the user ticked (at karenina-gui `main` its JSON rows
//! keep only the ticked keys that are top-level keys of a row, which leaves
//! most rows empty); its plain export writes format 2.0 rows
//! (`completed_without_errors`, possibly `"abstained"`; flat model strings).
//! kld reads such rows for what they hold and says, per field a number
//! needs, where the file first lacks it and in how many rows, instead of
//! refusing the file at its first row or counting silently wrong.
//!
//! A field is lacking when a key on its path is absent; a `null` on the way
//! (`"template": null`, a rubric-only row) is Karenina saying "none", not a
//! lack.

use serde_json::Value;
use std::path::Path;

/// A field one of Karenina's numbers needs.
#[derive(Clone, Copy, Debug)]
pub struct Need {
    /// The field as people name it (`metadata.question_id`).
    pub field: &'static str,
    /// Where a row may hold it (any of these paths; format 2.0 rows hold
    /// models as flat strings).
    pub paths: &'static [&'static [&'static str]],
    /// What needs it.
    pub needed_by: &'static str,
    /// The column of the GUI's CSV that holds it.
    pub column: &'static str,
}

/// The fields Karenina's numbers need, in the order notes name them.
pub const NEEDS: &[Need] = &[
    Need {
        field: "metadata.question_id",
        column: "question_id",
        paths: &[&["metadata", "question_id"]],
        needed_by: "binding a result to its question (every per-question and per-benchmark number)",
    },
    Need {
        field: "metadata.answering",
        column: "answering_model",
        paths: &[&["metadata", "answering"], &["metadata", "answering_model"]],
        needed_by: "the answering model every rate is keyed by (answering x parsing model)",
    },
    Need {
        field: "metadata.parsing",
        column: "parsing_model",
        paths: &[&["metadata", "parsing"], &["metadata", "parsing_model"]],
        needed_by: "the parsing model (judge) every rate is keyed by",
    },
    Need {
        field: "template.template_verification_performed",
        column: "template_verification_performed",
        paths: &[&["template", "template_verification_performed"]],
        needed_by: "the template pass rate's n (template_pass_by_combo)",
    },
    Need {
        field: "template.verify_result",
        column: "verify_result",
        paths: &[&["template", "verify_result"]],
        needed_by: "the template pass rate's passed count (template_pass_by_combo)",
    },
];

/// Whether `row` lacks `path`: `Some(depth)` of the first absent key.
fn lacking_at(row: &Value, path: &[&str]) -> Option<usize> {
    let mut v = row;
    for (i, key) in path.iter().enumerate() {
        match v {
            Value::Null => return None,
            Value::Object(o) => match o.get(*key) {
                Some(x) => v = x,
                None => return Some(i),
            },
            // A wrong type is the reader's error, not a lack.
            _ => return None,
        }
    }
    None
}

/// The lacks of one file, counted row by row.
#[derive(Clone, Debug, Default)]
pub struct Lacks {
    /// Rows read from a CSV (`super::gui_csv`): messages name the row and
    /// the column, not a path inside the row kld made of it.
    pub columns: bool,
    rows: usize,
    /// Per [`NEEDS`] entry: the first row's JSON path to the absent key, and
    /// the number of rows lacking it.
    found: Vec<Option<(String, usize)>>,
}

impl Lacks {
    /// Counts what the row at JSON path `at` lacks.
    pub fn check(&mut self, at: &str, row: &Value) {
        self.rows += 1;
        self.found.resize(NEEDS.len(), None);
        for (i, need) in NEEDS.iter().enumerate() {
            let depths: Vec<Option<usize>> =
                need.paths.iter().map(|p| lacking_at(row, p)).collect();
            if depths.iter().any(Option::is_none) {
                continue;
            }
            let depth = depths[0].unwrap_or(0);
            let slot = &mut self.found[i];
            match slot {
                Some((_, n)) => *n += 1,
                None if self.columns => *slot = Some((at.to_string(), 1)),
                None => {
                    let keys = &need.paths[0][..=depth];
                    *slot = Some((format!("{at}/{}", keys.join("/")), 1));
                }
            }
        }
    }

    /// True when no row lacked anything (the tests' question).
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.found.iter().all(Option::is_none)
    }

    /// One message per lacking field: `FILE at /results/0/metadata: lacks
    /// `metadata.question_id` in 2 of 2 rows, which … needs`.
    pub fn notes(&self, file: &Path) -> Vec<String> {
        self.messages()
            .into_iter()
            .map(|m| format!("{} {m}", file.display()))
            .collect()
    }

    /// [`Lacks::notes`] without the file (for messages that name it first).
    pub fn messages(&self) -> Vec<String> {
        NEEDS
            .iter()
            .zip(&self.found)
            .filter_map(|(need, f)| {
                let (at, n) = f.as_ref()?;
                let column = match self.columns {
                    true => format!(" (no `{}` column, or no value in it)", need.column),
                    false => String::new(),
                };
                Some(format!(
                    "at {at}: lacks `{}`{column} in {n} of {} rows, which {} needs",
                    need.field, self.rows, need.needed_by
                ))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn absent_keys_are_lacks_and_nulls_are_not() {
        let mut l = Lacks::default();
        l.check("/results/0", &json!({"raw_answer": "42"}));
        l.check(
            "/results/1",
            &json!({"metadata": {"question_id": "q", "answering_model": "a/b",
                "parsing_model": "a/b"}, "template": null}),
        );
        let notes = l.notes(Path::new("f.json"));
        assert_eq!(notes.len(), 5, "{notes:?}");
        assert_eq!(
            notes[0],
            "f.json at /results/0/metadata: lacks `metadata.question_id` in 1 of 2 rows, which binding a result to its question (every per-question and per-benchmark number) needs"
        );
        assert!(notes[3].starts_with("f.json at /results/0/template: lacks `template.template_verification_performed` in 1 of 2"));
        let mut full = Lacks::default();
        full.check(
            "/0",
            &json!({"metadata": {"question_id": "q", "answering": {}, "parsing": {}},
                "template": {"template_verification_performed": true, "verify_result": null}}),
        );
        assert!(full.is_empty() && full.notes(Path::new("f")).is_empty());
        let mut gui = Lacks::default();
        gui.check(
            "/results/3",
            &json!({"metadata": {"question_id": "q"}, "template": {}}),
        );
        assert!(gui.notes(Path::new("g.json"))[0].starts_with(
            "g.json at /results/3/metadata/answering: lacks `metadata.answering` in 1 of 1 rows"
        ));
    }
}
