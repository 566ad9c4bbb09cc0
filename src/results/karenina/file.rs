//! Karenina's numbers of one input (an export, a run folder's export, a
//! database run): over all its rows, as Karenina's
//! `load_result_set_from_json(file).get_summary()` gives them, and run by
//! run when it holds several (by `metadata.run_name`), so that a summary
//! over several runs says which it covers.

use super::{Numbers, Ordered, CSV_CANNOT_TELL};
use serde_json::{json, Map, Value};

/// The numbers of all rows of an input and of each of its runs.
#[derive(Clone, Debug, Default)]
pub struct FileNumbers {
    csv: bool,
    /// Every row.
    pub all: Numbers,
    runs: Ordered<Option<String>, Numbers>,
}

impl FileNumbers {
    /// Counts the rows of a JSON input (`csv` false) or a CSV export.
    pub fn new(csv: bool) -> Self {
        FileNumbers {
            csv,
            all: Numbers::new(csv),
            runs: Ordered::default(),
        }
    }

    /// Adds one row.
    pub fn add(&mut self, row: &Value) {
        self.all.add(row);
        let name = row["metadata"]["run_name"].as_str().map(str::to_string);
        let n = self.runs.entry(&name);
        n.csv = self.csv;
        n.add(row);
    }

    /// The runs (by run name; `None` for rows without one), in first-seen
    /// order, each with its numbers.
    pub fn runs(&self) -> impl Iterator<Item = (&Option<String>, &Numbers)> {
        self.runs.iter().map(|(k, v)| (k, v))
    }

    /// What `kld info --format json` adds for Karenina's numbers:
    /// `summary` (`get_summary()` over every row), `summary_covers` (the
    /// runs and rows it counts), `aggregate_pass_rate` (by question,
    /// answering model, parsing model, replicate), for a CSV
    /// `cannot_tell` (key → why), and `summary_by_run` when the input holds
    /// more than one run.
    pub fn to_json(&self) -> Map<String, Value> {
        let mut m = Map::new();
        let names: Vec<Value> = self.runs.iter().map(|(k, _)| json!(k)).collect();
        m.insert("summary".into(), self.all.summary());
        m.insert(
            "summary_covers".into(),
            json!({"runs": names, "results": self.all.results()}),
        );
        let cannot = self.all.cannot_tell();
        if !cannot.contains(&"aggregate_pass_rate") {
            m.insert(
                "aggregate_pass_rate".into(),
                self.all.pass_rates().to_json(),
            );
        }
        if !cannot.is_empty() {
            let why: Map<String, Value> = CSV_CANNOT_TELL
                .iter()
                .filter(|(k, _)| cannot.contains(k))
                .map(|(k, w)| ((*k).to_string(), json!(w)))
                .collect();
            m.insert("cannot_tell".into(), Value::Object(why));
        }
        if self.runs.len() > 1 {
            let by: Vec<Value> = self
                .runs
                .iter()
                .map(|(name, n)| {
                    let mut r = json!({"run_name": name, "summary": n.summary()});
                    if !self.csv {
                        r["aggregate_pass_rate"] = n.pass_rates().to_json();
                    }
                    r
                })
                .collect();
            m.insert("summary_by_run".into(), Value::Array(by));
        }
        m
    }
}

/// Karenina's numbers of one run of Karenina's results database (its rows
/// as [`crate::results::database::read_run`] hands them on).
pub fn of_database_run(
    file: &std::path::Path,
    c: &rusqlite::Connection,
    run: &crate::results::database::Run,
) -> crate::error::Result<FileNumbers> {
    let mut n = FileNumbers::new(false);
    crate::results::database::read_run(file, c, run, &mut |row| {
        n.add(&row);
        Ok(())
    })?;
    Ok(n)
}
