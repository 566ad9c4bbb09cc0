//! `kld info RESULTS`: what a verification run holds, counted, read straight
//! from the export (no store), like `kld info` of a checkpoint.

use crate::error::Result;
use crate::results::Visit;
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
    /// Karenina's `TemplateResults.aggregate_pass_rate(by="answering_model")`:
    /// verified true over the results with a verdict (true or false; null
    /// rows are not in the denominator), every judge of the model together;
    /// `None` when no result has a verdict, or from a CSV, which writes
    /// false and null alike (`docs/numbers.md`).
    pub fn pass_rate(&self) -> Option<f64> {
        let judged = self.verified_true + self.verified_false;
        (judged > 0 && self.verified_false_or_null == 0)
            .then(|| self.verified_true as f64 / judged as f64)
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
    /// A TaskEval export's `task_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// A TaskEval export's evaluations (global first, then the steps in
    /// file order), each with Karenina's `StepEval.get_summary_stats()`
    /// counts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepSummary>,
    /// What the rows lack for Karenina's numbers (`results::lacks`), one
    /// located message per field.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lacks: Vec<String>,
    /// Karenina's own numbers ([`super::FileNumbers::to_json`]):
    /// `summary` (`get_summary()`), `summary_covers`,
    /// `aggregate_pass_rate`, a CSV's `cannot_tell`, `summary_by_run`.
    #[serde(flatten)]
    pub karenina: serde_json::Map<String, Value>,
}

/// One evaluation of a TaskEval export, counted as Karenina's
/// `StepEval.get_summary_stats()` counts it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StepSummary {
    /// The step ID; `None` for the global evaluation.
    pub step: Option<String>,
    /// `results_total`: results.
    pub results_total: usize,
    /// `traces_total`: question IDs (the keys of `verification_results`).
    pub traces_total: usize,
    /// `template_verification_total`: results with template verification
    /// performed.
    pub template_verification_total: usize,
    /// `template_verification_passed`: those whose `verify_result` is true.
    pub template_verification_passed: usize,
}

#[derive(Default)]
struct Counting {
    s: RunSummary,
    questions: BTreeSet<String>,
    numbers: Option<super::FileNumbers>,
    lacks: crate::results::lacks::Lacks,
    /// The current TaskEval evaluation's question IDs.
    step_questions: BTreeSet<String>,
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
        self.s.task_id = text(&h["task_eval"]["task_id"]);
        for f in ["taskeval", "gui-csv"] {
            if h["source_format"] == f {
                self.s.format_version = Some(f.into());
            }
        }
        self.lacks.columns = h["source_format"] == "gui-csv";
        let csv = h["source_format"] == "csv";
        self.numbers = Some(super::FileNumbers::new(csv));
    }

    fn row(&mut self, row: Value) -> std::result::Result<(), crate::results::RowError> {
        self.numbers
            .get_or_insert_with(|| super::FileNumbers::new(false))
            .add(&row);
        let meta = &row["metadata"];
        // A row lacking its question ID (a GUI custom export) is counted;
        // `lacks` says what it lacks.
        if let Some(qid) = meta.get("question_id") {
            let qid = qid
                .as_str()
                .ok_or("`metadata.question_id` must be a string")?;
            self.questions.insert(qid.to_string());
            self.step_questions.insert(qid.to_string());
        }
        self.s.results += 1;
        if let Some(st) = self.s.steps.last_mut() {
            st.results_total += 1;
            st.traces_total = self.step_questions.len();
            let t = &row["template"];
            if t["template_verification_performed"] == Value::Bool(true) {
                st.template_verification_total += 1;
                if t["verify_result"] == Value::Bool(true) {
                    st.template_verification_passed += 1;
                }
            }
        }
        if let Some(r) = meta["run_name"].as_str() {
            self.s.run_names.insert(r.to_string());
        }
        let (interface, name) = crate::results::outcome::model_of(&row, "answering");
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
        for &(dict, family) in crate::results::SCORE_DICTS {
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

    fn row_at(
        &mut self,
        path: &str,
        row: Value,
    ) -> std::result::Result<(), crate::results::RowError> {
        self.lacks.check(path, &row);
        self.row(row)
    }

    fn step(&mut self, step: Option<&str>) {
        self.step_questions.clear();
        self.s.steps.push(StepSummary {
            step: step.map(str::to_string),
            ..StepSummary::default()
        });
    }
}

/// Counts a results export (rows streamed as when loading), with
/// Karenina's own numbers of it.
pub fn summarize(file: &Path) -> Result<RunSummary> {
    let mut c = Counting::default();
    crate::results::read_path_unhashed(file, &mut c)?;
    c.s.questions = c.questions.len();
    c.s.lacks = c.lacks.notes(file);
    let numbers = c.numbers.unwrap_or_else(|| super::FileNumbers::new(false));
    c.s.karenina = numbers.to_json();
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
        if let Some(t) = &self.task_id {
            out.push_str(&format!("task:       {t} (TaskEval)\n"));
        }
        if !self.steps.is_empty() {
            out.push_str("steps (Karenina StepEval.get_summary_stats: template verifications passed / performed):\n");
            for st in &self.steps {
                out.push_str(&format!(
                    "  {}: {} results over {} questions, {} of {} template verifications passed\n",
                    st.step.as_deref().unwrap_or("(global evaluation)"),
                    st.results_total,
                    st.traces_total,
                    st.template_verification_passed,
                    st.template_verification_total
                ));
            }
        }
        for l in &self.lacks {
            out.push_str(&format!("lacks: {l}\n"));
        }
        out.push_str("models:\n");
        let csv = self.format_version.as_deref() == Some("csv");
        for (name, m) in &self.models {
            let verdicts = if csv {
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
            let none = if !csv && m.verified_true + m.verified_false == 0 {
                ", no verdict"
            } else {
                ""
            };
            out.push_str(&format!(
                "  {name}: {} results ({verdicts}){none}\n",
                m.results
            ));
            if let Some(r) = m.pass_rate() {
                let c = crate::stats::Count {
                    passed: m.verified_true,
                    n: m.verified_true + m.verified_false,
                };
                let wilson = crate::stats::interval::wilson(c, 0.95)
                    .map(|i| {
                        format!(
                            ", 95% Wilson [{:.1}%, {:.1}%]",
                            i.low * 100.0,
                            i.high * 100.0
                        )
                    })
                    .unwrap_or_default();
                out.push_str(&format!(
                    "    {} {:.1}% ({} of {} with a verdict{wilson}, every judge together: Karenina aggregate_pass_rate(by=\"answering_model\"))\n",
                    super::names::VERDICT_PASS_RATE.name,
                    100.0 * r,
                    m.verified_true,
                    m.verified_true + m.verified_false
                ));
            }
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
        if let Some(summary) = self.karenina.get("summary") {
            if let Some(runs) = self.karenina["summary_covers"]["runs"].as_array() {
                if runs.len() > 1 {
                    out.push_str(&format!(
                        "Karenina's numbers below cover all {} runs of the file together (kld info --format json: summary_by_run has each)\n",
                        runs.len()
                    ));
                }
            }
            out.push_str(&super::printed::lines(summary, ""));
            if let Some(Value::Object(why)) = self.karenina.get("cannot_tell") {
                for (k, w) in why {
                    out.push_str(&format!(
                        "not from a CSV: {k} ({})\n",
                        w.as_str().unwrap_or("")
                    ));
                }
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
