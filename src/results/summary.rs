//! `kld info RESULTS`: what a verification run holds, counted, read straight
//! from the export (no store), like `kld info` of a checkpoint.

use super::{read_path, Visit};
use crate::error::Result;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Counts for one answering model.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ModelSummary {
    /// Results.
    pub results: usize,
    /// `verify_result` true.
    pub verified_true: usize,
    /// `verify_result` false.
    pub verified_false: usize,
    /// `verify_result` null (no verdict).
    pub verified_null: usize,
    /// A CSV's empty `verify_result` cell: false or null, which a CSV
    /// writes alike.
    pub verified_false_or_null: usize,
    /// Failure categories (`none` for rows without a failure).
    pub failures: BTreeMap<String, usize>,
}

impl ModelSummary {
    /// As `pass-rate-by-benchmark`: verified true over all results; `None`
    /// when no result has a verdict (a scenario run).
    pub fn pass_rate(&self) -> Option<f64> {
        (self.verified_true + self.verified_false + self.verified_false_or_null > 0)
            .then(|| self.verified_true as f64 / self.results as f64)
    }
}

/// A verification run, counted.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RunSummary {
    /// `format_version` (absent in old exports).
    pub format_version: Option<String>,
    /// `metadata.job_id`.
    pub job_id: Option<String>,
    /// `metadata.export_timestamp`.
    pub export_timestamp: Option<String>,
    /// `metadata.karenina_version`.
    pub karenina_version: Option<String>,
    /// Run names found in the rows.
    pub run_names: BTreeSet<String>,
    /// Rows.
    pub results: usize,
    /// Distinct question IDs.
    pub questions: usize,
    /// Per answering model (`interface:model_name`).
    pub models: BTreeMap<String, ModelSummary>,
    /// Score keys by trait family → number of scores.
    pub traits: BTreeMap<String, BTreeMap<String, usize>>,
}

#[derive(Default)]
struct Counting {
    s: RunSummary,
    questions: BTreeSet<String>,
}

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

impl Visit for Counting {
    fn header(&mut self, h: &Value) {
        self.s.format_version = text(&h["format_version"])
            .or_else(|| (h["source_format"] == "csv").then(|| "csv".to_string()));
        let m = &h["metadata"];
        self.s.job_id = text(&m["job_id"]);
        self.s.export_timestamp = text(&m["export_timestamp"]);
        self.s.karenina_version = text(&m["karenina_version"]);
    }

    fn row(&mut self, row: Value) -> std::result::Result<(), String> {
        let meta = &row["metadata"];
        let qid = meta["question_id"]
            .as_str()
            .ok_or("`metadata.question_id` must be a string")?;
        self.questions.insert(qid.to_string());
        self.s.results += 1;
        if let Some(r) = meta["run_name"].as_str() {
            self.s.run_names.insert(r.to_string());
        }
        let (interface, name) = super::map::model_of(&row, "answering");
        let model = format!("{interface}:{name}");
        let m = self.s.models.entry(model).or_default();
        m.results += 1;
        let csv = self.s.format_version.as_deref() == Some("csv");
        match row["template"]["verify_result"].as_bool() {
            Some(true) => m.verified_true += 1,
            Some(false) => m.verified_false += 1,
            None if csv => m.verified_false_or_null += 1,
            None => m.verified_null += 1,
        }
        // A CSV failure has a reason but no category.
        let cat = match (&meta["failure"], meta["failure"]["category"].as_str()) {
            (_, Some(c)) => c,
            (Value::Null, None) => "none",
            _ => "unknown",
        };
        *m.failures.entry(cat.to_string()).or_default() += 1;
        for &(dict, family) in super::map::SCORE_DICTS {
            let family = family.unwrap_or("unknown");
            for key in row["rubric"][dict]
                .as_object()
                .into_iter()
                .flat_map(|o| o.keys())
            {
                *self
                    .s
                    .traits
                    .entry(family.to_string())
                    .or_default()
                    .entry(key.clone())
                    .or_default() += 1;
            }
        }
        Ok(())
    }
}

/// Counts a results export (rows streamed as when loading).
pub fn summarize(file: &Path) -> Result<RunSummary> {
    let mut c = Counting::default();
    read_path(file, &mut c)?;
    c.s.questions = c.questions.len();
    Ok(c.s)
}

impl RunSummary {
    /// The summary as text for people.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "-".into());
        out.push_str(&format!(
            "results export (format {})\n",
            opt(&self.format_version)
        ));
        out.push_str(&format!("job:        {}\n", opt(&self.job_id)));
        out.push_str(&format!("exported:   {}\n", opt(&self.export_timestamp)));
        let runs: Vec<&str> = self.run_names.iter().map(String::as_str).collect();
        out.push_str(&format!(
            "runs:       {}\n",
            if runs.is_empty() {
                "- (no run name recorded)".to_string()
            } else {
                runs.join(", ")
            }
        ));
        out.push_str(&format!(
            "results:    {} over {} questions\n",
            self.results, self.questions
        ));
        out.push_str("models:\n");
        for (name, m) in &self.models {
            let rate = match m.pass_rate() {
                Some(r) => format!("pass rate {:.1}%", 100.0 * r),
                None => "no verdict".into(),
            };
            let verdicts = if self.format_version.as_deref() == Some("csv") {
                // A CSV writes false and null alike.
                format!(
                    "{} true, {} false or null (a CSV cannot tell them apart)",
                    m.verified_true, m.verified_false_or_null
                )
            } else {
                format!(
                    "{} true, {} false, {} null",
                    m.verified_true, m.verified_false, m.verified_null
                )
            };
            out.push_str(&format!(
                "  {name}: {} results, {rate} ({verdicts})\n",
                m.results
            ));
            let failures: Vec<String> = m
                .failures
                .iter()
                .filter(|(k, _)| *k != "none")
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            if !failures.is_empty() {
                out.push_str(&format!("    failures: {}\n", failures.join(", ")));
            }
        }
        let total: usize = self.traits.values().map(BTreeMap::len).sum();
        out.push_str(&format!("traits:     {total} score keys\n"));
        for (family, keys) in &self.traits {
            let names: Vec<&str> = keys.keys().map(String::as_str).collect();
            out.push_str(&format!("  {family:<9} {}\n", names.join(", ")));
        }
        out
    }
}
