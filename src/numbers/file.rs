//! Karenina's numbers of one input (an export, a run folder's export, a
//! database run): over all its rows, as Karenina's
//! `load_result_set_from_json(file).get_summary()` gives them, and run by
//! run when it holds several (by `metadata.run_name`), so that a summary
//! over several runs says which it covers.

use super::facts::RowFacts;
use super::{Numbers, Ordered, CSV_CANNOT_TELL};
use serde_json::{json, Map, Value};

/// The numbers of all rows of an input and of each of its runs.
#[derive(Clone, Debug, Default)]
pub struct FileNumbers {
    csv: bool,
    /// Every row, once a second run is seen (until then, the first run's
    /// numbers are every row's: each row is counted once, not twice).
    all: Option<Numbers>,
    runs: Ordered<Option<String>, Numbers>,
}

impl FileNumbers {
    /// Counts the rows of a JSON input (`csv` false) or a CSV export.
    pub fn new(csv: bool) -> Self {
        FileNumbers {
            csv,
            all: None,
            runs: Ordered::default(),
        }
    }

    /// The numbers of every row.
    pub fn all(&self) -> std::borrow::Cow<'_, Numbers> {
        match (&self.all, self.runs.iter().next()) {
            (Some(all), _) => std::borrow::Cow::Borrowed(all),
            (None, Some((_, first))) => std::borrow::Cow::Borrowed(first),
            (None, None) => std::borrow::Cow::Owned(Numbers::new(self.csv)),
        }
    }

    /// Adds one row.
    pub fn add(&mut self, row: &Value) {
        let facts = RowFacts::of_value(row, self.csv);
        self.add_facts(row["metadata"]["run_name"].as_str(), &facts);
    }

    /// Adds one row's facts, of run `name` (`metadata.run_name`).
    pub(crate) fn add_facts(&mut self, name: Option<&str>, facts: &RowFacts) {
        if self.all.is_none() && self.runs.len() == 1 {
            let first = &self.runs.iter().next().expect("one run").0;
            if first.as_deref() != name {
                // A second run: every row so far was the first run's.
                self.all = Some(self.runs.iter().next().expect("one run").1.clone());
            }
        }
        if let Some(all) = &mut self.all {
            all.add_facts(facts);
        }
        let n = self.runs.entry(&name.map(str::to_string));
        n.csv = self.csv;
        n.add_facts(facts);
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
        let all = self.all();
        m.insert("summary".into(), all.summary());
        m.insert(
            "summary_covers".into(),
            json!({"runs": names, "results": all.results()}),
        );
        let cannot = all.cannot_tell();
        if !cannot.contains(&"aggregate_pass_rate") {
            m.insert("aggregate_pass_rate".into(), all.pass_rates().to_json());
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
        m.insert("rate_names".into(), rate_names_of_info());
        m
    }
}

/// Which keys of `kld info --format json` hold which named rate
/// ([`super::names`]).
pub(crate) fn rate_names_of_info() -> Value {
    use super::names::{rate_names, TEMPLATE_PASS_RATE, VERDICT_PASS_RATE};
    rate_names(&[
        ("summary.template_pass_by_combo", &TEMPLATE_PASS_RATE),
        ("summary.template_pass_overall", &TEMPLATE_PASS_RATE),
        (
            "summary.replicate_stats.replicate_pass_rates",
            &TEMPLATE_PASS_RATE,
        ),
        ("aggregate_pass_rate", &VERDICT_PASS_RATE),
    ])
}

/// Karenina's numbers of one run of Karenina's results database (its rows
/// as `crate::sqlite::read_run` hands them on, the read loading
/// makes), with the values Karenina refuses, left out of them.
pub fn of_database_run(
    file: &std::path::Path,
    c: &rusqlite::Connection,
    run: &crate::sqlite::Run,
) -> crate::error::Result<(FileNumbers, Vec<crate::sqlite::BadValue>)> {
    let mut n = FileNumbers::new(false);
    let bad = crate::sqlite::read_run(file, c, run, &mut |row| {
        n.add(&row);
        Ok(())
    })?;
    Ok((n, bad))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(run: Option<&str>, q: &str, verdict: bool) -> Value {
        json!({
            "metadata": {"question_id": q, "run_name": run, "failure": null, "execution_time": 1.5,
                "answering": {"interface": "langchain", "model_name": "a", "tools": [], "config_id": null},
                "parsing": {"interface": "langchain", "model_name": "p", "tools": [], "config_id": null}},
            "template": {"template_verification_performed": true, "verify_result": verdict},
        })
    }

    #[test]
    fn a_second_run_splits_the_summary_and_all_rows_are_counted_once() {
        let mut f = FileNumbers::new(false);
        f.add(&row(Some("a"), "q1", true));
        f.add(&row(Some("a"), "q2", false));
        assert!(!f.to_json().contains_key("summary_by_run"));
        assert_eq!(f.to_json()["summary"]["num_results"], 2);
        f.add(&row(None, "q1", true));
        f.add(&row(Some("a"), "q3", true));
        let j = f.to_json();
        assert_eq!(j["summary"]["num_results"], 4);
        assert_eq!(j["summary"]["template_pass_overall"]["passed"], 3);
        assert_eq!(j["summary_covers"]["runs"], json!(["a", null]));
        let by = j["summary_by_run"].as_array().unwrap();
        assert_eq!(by[0]["summary"]["num_results"], 3);
        assert_eq!(by[1]["summary"]["num_results"], 1);
        assert_eq!(j["aggregate_pass_rate"]["question_id"]["q1"], 1.0);
    }
}
