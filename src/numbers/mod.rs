//! Karenina's own numbers of a verification run, computed as Karenina
//! computes them, so that what kld prints is what a Karenina user gets.
//!
//! [`Numbers`] is `VerificationResultSet.get_summary()`
//! (`schemas/results/verification_result_set.py`) key for key, in
//! Karenina's key order, with its combo strings (`_combo_key_to_string`,
//! `ModelIdentity.display_string`), and `TemplateResults.aggregate_pass_rate(by=…)`
//! (`schemas/results/template.py`) by question, answering model, parsing
//! model and replicate. Rows are added one at a time as a reader streams
//! them: the state is counts, sets of keys and one integer per row and
//! token kind (the medians need them), never the rows.
//!
//! The definitions, denominators and the CSV's limits are in
//! `docs/numbers.md`. Where the float arithmetic's order matters it is
//! Karenina's ([`crate::stats`]).

pub(crate) mod arith;
mod exact;
pub(crate) mod facts;
pub(crate) mod file;
pub mod names;
mod pass_rate;
pub mod printed;
pub(crate) mod row;
pub mod tally;

pub use file::{of_database_run, FileNumbers};
pub use pass_rate::PassRates;

pub use facts::TOKEN_STAGES;

use exact::{Count, ExactSum};
use facts::RowFacts;
use serde_json::{json, Map, Value};
use std::borrow::Borrow;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A map that keeps first-insertion order (a Python dict).
#[derive(Clone, Debug)]
pub(crate) struct Ordered<K, V> {
    entries: Vec<(K, V)>,
    index: HashMap<K, usize>,
}

impl<K, V> Default for Ordered<K, V> {
    fn default() -> Self {
        Ordered {
            entries: Vec::new(),
            index: HashMap::new(),
        }
    }
}

impl<K: std::hash::Hash + Eq + Clone, V: Default> Ordered<K, V> {
    /// `defaultdict[key]` (the key borrowed: a `&str` for a `String`).
    pub(crate) fn entry<Q>(&mut self, key: &Q) -> &mut V
    where
        K: Borrow<Q>,
        Q: std::hash::Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        let i = match self.index.get(key) {
            Some(&i) => i,
            None => {
                self.entries.push((key.to_owned(), V::default()));
                self.index.insert(key.to_owned(), self.entries.len() - 1);
                self.entries.len() - 1
            }
        };
        &mut self.entries[i].1
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &(K, V)> {
        self.entries.iter()
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

/// Rubric score dictionaries, in the order Karenina reads them.
pub(crate) const FAMILIES: [(&str, &str); 5] = [
    ("llm_trait_scores", "llm"),
    ("regex_trait_scores", "regex"),
    ("callable_trait_scores", "callable"),
    ("metric_trait_scores", "metric"),
    ("agentic_trait_scores", "agentic"),
];

/// Passed of total.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    /// Rows in the denominator.
    pub total: usize,
    /// Of which passed.
    pub passed: usize,
}

impl Tally {
    /// Karenina's `pass_pct`: passed / total × 100 (0 for no rows).
    pub(crate) fn pct(&self) -> f64 {
        if self.total > 0 {
            self.passed as f64 / self.total as f64 * 100.0
        } else {
            0.0
        }
    }
}

/// Karenina's `replicate_stats`: each replicate's tally (first-seen
/// order), and the mean and sample standard deviation of their pass rates.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ReplicateStats {
    /// Replicate number → passed of total.
    pub replicates: Vec<(i64, Tally)>,
    /// `statistics.mean` of the pass rates (0 to 1).
    pub mean: f64,
    /// `statistics.stdev` of the pass rates (0 for one replicate).
    pub std: f64,
}

/// One run's rows (or any set of rows), counted for Karenina's summary.
#[derive(Clone, Debug, Default)]
pub struct Numbers {
    csv: bool,
    num_results: usize,
    num_completed: usize,
    num_with_template: usize,
    num_with_rubric: usize,
    num_with_judgment: usize,
    questions: HashSet<String>,
    models: HashSet<String>,
    parsing_models: HashSet<String>,
    replicates: HashSet<i64>,
    execution_time: Option<f64>,
    /// total, template, rubric, deep judgment × (input, output); deep
    /// judgment's stay empty, as in Karenina (see `add_tokens`).
    /// (Clamped to 64 bits, as numpy's arrays hold them: the medians and
    /// deviations.)
    tokens: [[Vec<i64>; 2]; 4],
    /// The same, summed exactly (Python's integers).
    token_sums: [[ExactSum; 2]; 4],
    tokens_by_combo: Ordered<String, (ExactSum, ExactSum)>,
    completion_by_combo: Ordered<String, Tally>,
    trait_questions: HashMap<String, HashSet<String>>,
    /// Per family: trait → evaluations.
    trait_evaluations: [HashMap<String, usize>; 5],
    pass_by_combo: Ordered<String, Tally>,
    replicate_pass: Ordered<i64, Tally>,
    tool_calls: BTreeMap<String, i64>,
    tool_traces: BTreeMap<String, usize>,
    traces_with_tools: usize,
    iterations: Vec<Value>,
    pass_rates: PassRates,
}

/// What a CSV export cannot tell (`docs/numbers.md`): the summary leaves
/// these keys out, and says so.
pub(crate) const CSV_CANNOT_TELL: &[(&str, &str)] = &[
    (
        "aggregate_pass_rate",
        "a CSV writes verify_result false and null alike (an empty cell)",
    ),
    (
        "rubric_traits",
        "a CSV does not say which kind of trait a score is",
    ),
];

impl Numbers {
    /// Counts rows of a JSON export, a run folder or a database (`csv`
    /// false) or of a CSV export (`csv` true).
    pub fn new(csv: bool) -> Self {
        Numbers {
            csv,
            ..Numbers::default()
        }
    }

    /// Rows added.
    pub fn results(&self) -> usize {
        self.num_results
    }

    /// Counts the rows as a CSV export's (`CSV_CANNOT_TELL`).
    pub(crate) fn set_csv(&mut self) {
        self.csv = true;
    }

    /// Adds one row's facts: the one place Karenina's numbers are counted,
    /// whether the row came from a result's JSON or from the results table.
    pub(crate) fn add_facts(&mut self, f: &RowFacts) {
        self.num_results += 1;
        self.num_completed += usize::from(f.completed);
        self.num_with_template += usize::from(f.template);
        self.num_with_rubric += usize::from(f.rubric);
        self.num_with_judgment += usize::from(f.judgment);
        let qid = f.question;
        if !self.questions.contains(qid) {
            self.questions.insert(qid.to_string());
        }
        if let Some(rep) = f.replicate {
            self.replicates.insert(rep);
        }
        if let Some(t) = f.execution_time {
            // Python's sum(): left to right.
            self.execution_time = Some(self.execution_time.unwrap_or(0.0) + t);
        }
        let combo: &str = &f.combo;
        self.add_tokens(f, combo);
        let c = self.completion_by_combo.entry(combo);
        c.total += 1;
        c.passed += usize::from(f.completed);
        if f.rubric {
            for &(family, name) in &f.traits {
                let qs = match self.trait_questions.get_mut(name) {
                    Some(qs) => qs,
                    None => self.trait_questions.entry(name.to_string()).or_default(),
                };
                if !qs.contains(qid) {
                    qs.insert(qid.to_string());
                }
                let evals = &mut self.trait_evaluations[family];
                match evals.get_mut(name) {
                    Some(n) => *n += 1,
                    None => {
                        evals.insert(name.to_string(), 1);
                    }
                }
            }
        }
        if f.template {
            let passed = usize::from(f.verdict == Some(true));
            let t = self.pass_by_combo.entry(combo);
            t.total += 1;
            t.passed += passed;
            if let Some(rep) = f.replicate {
                let t = self.replicate_pass.entry(&rep);
                t.total += 1;
                t.passed += passed;
            }
        }
        if let Some(counts) = &f.tool_calls {
            self.traces_with_tools += 1;
            for (tool, n) in counts {
                *self.tool_calls.entry(tool.clone()).or_default() += n;
                *self.tool_traces.entry(tool.clone()).or_default() += 1;
            }
        }
        if let Some(n) = &f.iterations {
            self.iterations.push(n.clone());
        }
        let (answering, parsing): (&str, &str) = (&f.answering, &f.parsing);
        self.pass_rates
            .add(f.verdict, qid, answering, parsing, f.replicate);
        if !self.models.contains(answering) {
            self.models.insert(answering.to_string());
        }
        if !self.parsing_models.contains(parsing) {
            self.parsing_models.insert(parsing.to_string());
        }
    }

    /// Appends one count of kind `k` (total, template, rubric, deep
    /// judgment), direction `d` (input, output).
    fn push_tokens(&mut self, k: usize, d: usize, c: &Count) {
        self.tokens[k][d].push(c.clamped());
        self.token_sums[k][d].add(c);
    }

    fn add_tokens(&mut self, f: &RowFacts, combo: &str) {
        let t = &f.tokens;
        // `total`: every valid count, and the combo's sums.
        for (d, v) in t[0].iter().enumerate() {
            if let Some(v) = v {
                self.push_tokens(0, d, &v.count);
            }
        }
        // The template's: answer generation and parsing summed, kept when
        // either direction is above 0.
        let [ti, to] = [0, 1].map(|d| {
            let mut s = ExactSum::default();
            for stage in &t[1..3] {
                if let Some(v) = &stage[d] {
                    s.add(&v.count);
                }
            }
            s.count()
        });
        if ti.positive() || to.positive() {
            self.push_tokens(1, 0, &ti);
            self.push_tokens(1, 1, &to);
        }
        // The rubric's: values above 0.
        for (d, v) in t[3].iter().enumerate() {
            if let Some(v) = v.as_ref().filter(|v| v.above_zero) {
                self.push_tokens(2, d, &v.count);
            }
        }
        // Deep judgment's tokens: Karenina reads `deep_judgment.usage_metadata`,
        // a field its result schema does not have (pydantic drops it on
        // load), so they are never counted; `tokens[3]` stays empty.
        let [ci, co] = &t[0];
        if ci.is_some() || co.is_some() {
            let zero = Count::Small(0);
            let e = self.tokens_by_combo.entry(combo);
            e.0.add(ci.as_ref().map_or(&zero, |v| &v.count));
            e.1.add(co.as_ref().map_or(&zero, |v| &v.count));
        }
    }

    /// Keys of [`Numbers::summary`] left out because the rows came from a
    /// CSV that cannot tell them (`CSV_CANNOT_TELL`).
    pub(crate) fn cannot_tell(&self) -> Vec<&'static str> {
        if !self.csv {
            return Vec::new();
        }
        let mut out = vec!["aggregate_pass_rate"];
        if self.num_with_rubric > 0 {
            out.push("rubric_traits");
        }
        out
    }

    fn tokens_json(&self) -> Value {
        let mut t = Map::new();
        let judged = self.num_with_judgment > 0;
        let names = ["total", "template", "rubric", "deep_judgment"];
        for (k, name) in names.iter().enumerate() {
            for (d, dir) in ["input", "output"].iter().enumerate() {
                let v = &self.tokens[k][d];
                let (_, std) = arith::median_std(v);
                let (sum, std) = if k == 3 && !judged {
                    (Value::Null, Value::Null)
                } else {
                    (self.token_sums[k][d].to_json(), json!(std))
                };
                t.insert(format!("{name}_{dir}"), sum);
                t.insert(format!("{name}_{dir}_std"), std);
            }
        }
        // Per question: the `total` values again.
        for (d, dir) in ["input", "output"].iter().enumerate() {
            let (median, std) = arith::median_std(&self.tokens[0][d]);
            t.insert(format!("median_per_question_{dir}"), json!(median));
            t.insert(format!("median_per_question_{dir}_std"), json!(std));
        }
        Value::Object(t)
    }

    fn rubric_traits_json(&self) -> Value {
        if self.num_with_rubric == 0 {
            return Value::Null;
        }
        let n = self.questions.len();
        let mut global = [0usize; 5];
        let mut specific = [0usize; 5];
        for (i, evals) in self.trait_evaluations.iter().enumerate() {
            for (name, count) in evals {
                if self.trait_questions.get(name).map_or(0, HashSet::len) == n {
                    global[i] += count;
                } else {
                    specific[i] += count;
                }
            }
        }
        let side = |counts: [usize; 5]| {
            let mut m = Map::new();
            for (i, (_, family)) in FAMILIES.iter().enumerate() {
                m.insert((*family).into(), json!({"count": counts[i]}));
            }
            Value::Object(m)
        };
        json!({"global_traits": side(global), "question_specific_traits": side(specific)})
    }

    /// Karenina's `template_pass_by_combo`, in Karenina's order; empty when
    /// no row had template verification.
    pub fn template_pass_by_combo(&self) -> Vec<(String, Tally)> {
        self.pass_by_combo.iter().cloned().collect()
    }

    /// Karenina's `template_pass_overall`; `None` when no row had template
    /// verification.
    pub(crate) fn template_pass_overall(&self) -> Option<Tally> {
        (self.num_with_template > 0).then(|| {
            self.pass_by_combo
                .iter()
                .fold(Tally::default(), |a, (_, t)| Tally {
                    total: a.total + t.total,
                    passed: a.passed + t.passed,
                })
        })
    }

    /// Karenina's `replicate_stats`; `None` for fewer than two replicates
    /// or no template verification.
    pub(crate) fn replicate_stats(&self) -> Option<ReplicateStats> {
        if self.replicates.len() <= 1
            || self.num_with_template == 0
            || self.replicate_pass.len() == 0
        {
            return None;
        }
        let reps: Vec<(i64, Tally)> = self.replicate_pass.iter().cloned().collect();
        let rates: Vec<f64> = reps
            .iter()
            .map(|(_, t)| t.passed as f64 / t.total as f64)
            .collect();
        Some(ReplicateStats {
            replicates: reps,
            mean: arith::py_mean(&rates),
            std: arith::py_stdev(&rates),
        })
    }

    /// `TemplateResults.aggregate_pass_rate(by=…)` for the four keys.
    pub(crate) fn pass_rates(&self) -> &PassRates {
        &self.pass_rates
    }

    /// `VerificationResultSet.get_summary()` of the rows added: Karenina's
    /// keys in Karenina's order; from a CSV, without the keys
    /// `Numbers::cannot_tell` names.
    pub fn summary(&self) -> Value {
        let mut s = Map::new();
        for (k, v) in [
            ("num_results", self.num_results),
            ("num_completed", self.num_completed),
            ("num_with_template", self.num_with_template),
            ("num_with_rubric", self.num_with_rubric),
            ("num_with_judgment", self.num_with_judgment),
            ("num_questions", self.questions.len()),
            ("num_models", self.models.len()),
            ("num_parsing_models", self.parsing_models.len()),
            ("num_replicates", self.replicates.len()),
        ] {
            s.insert(k.into(), json!(v));
        }
        s.insert(
            "total_execution_time".into(),
            // (A sum that is not finite as Python's json writes it, as text:
            // JSON has no number for it.)
            self.execution_time.map_or(json!(0), |t| match t {
                t if t.is_nan() => json!("NaN"),
                t if t.is_infinite() => json!(if t > 0.0 { "Infinity" } else { "-Infinity" }),
                t => json!(t),
            }),
        );
        s.insert("tokens".into(), self.tokens_json());
        let cannot = self.cannot_tell();
        let by: Map<String, Value> = self
            .tokens_by_combo
            .iter()
            .map(|(c, (i, o))| {
                let mut total = i.clone();
                total.add_sum(o);
                (
                    c.clone(),
                    json!({"input": i.to_json(), "output": o.to_json(), "total": total.to_json()}),
                )
            })
            .collect();
        s.insert("tokens_by_combo".into(), Value::Object(by));
        let by: Map<String, Value> = self
            .completion_by_combo
            .iter()
            .map(|(c, t)| {
                (
                    c.clone(),
                    json!({"total": t.total, "completed": t.passed, "completion_pct": t.pct()}),
                )
            })
            .collect();
        s.insert("completion_by_combo".into(), Value::Object(by));
        if !cannot.contains(&"rubric_traits") {
            s.insert("rubric_traits".into(), self.rubric_traits_json());
        }
        let tally = |t: &Tally| json!({"total": t.total, "passed": t.passed, "pass_pct": t.pct()});
        match self.template_pass_overall() {
            Some(overall) => {
                let by: Map<String, Value> = self
                    .pass_by_combo
                    .iter()
                    .map(|(c, t)| (c.clone(), tally(t)))
                    .collect();
                s.insert("template_pass_by_combo".into(), Value::Object(by));
                s.insert("template_pass_overall".into(), tally(&overall));
            }
            None => {
                s.insert("template_pass_by_combo".into(), Value::Null);
                s.insert("template_pass_overall".into(), Value::Null);
            }
        }
        let reps = self.replicate_stats().map(|r| {
            let (mean, std) = (r.mean, r.std);
            let rates: Map<String, Value> = r
                .replicates
                .iter()
                .map(|(r, t)| {
                    let mut v = tally(t);
                    v["pass_rate"] = json!(t.passed as f64 / t.total as f64);
                    (r.to_string(), v)
                })
                .collect();
            json!({"replicate_pass_rates": rates, "replicate_summary": {"mean": mean, "std": std}})
        });
        s.insert("replicate_stats".into(), reps.unwrap_or(Value::Null));
        s.insert("tool_usage_stats".into(), self.tool_usage_json());
        s.insert("trace_length_stats".into(), self.trace_length_json());
        Value::Object(s)
    }

    fn tool_usage_json(&self) -> Value {
        if self.traces_with_tools == 0 {
            return Value::Null;
        }
        let tools: Map<String, Value> = self
            .tool_calls
            .iter()
            .map(|(name, &calls)| {
                (
                    name.clone(),
                    json!({
                        "total_calls": calls,
                        "traces_using": self.tool_traces.get(name).copied().unwrap_or(0),
                        "avg_calls_per_trace": calls as f64 / self.traces_with_tools as f64,
                    }),
                )
            })
            .collect();
        json!({
            "tools": tools,
            "total_traces_with_tools": self.traces_with_tools,
            "total_tool_calls": self.tool_calls.values().sum::<i64>(),
        })
    }

    fn trace_length_json(&self) -> Value {
        let n = self.iterations.len();
        if n == 0 {
            return Value::Null;
        }
        let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
        let mut sorted = self.iterations.clone();
        sorted.sort_by(|a, b| f(a).total_cmp(&f(b)));
        let median = if n % 2 == 1 {
            sorted[n / 2].clone()
        } else {
            json!((f(&sorted[n / 2 - 1]) + f(&sorted[n / 2])) / 2.0)
        };
        let values: Vec<f64> = self.iterations.iter().map(f).collect();
        let mean = arith::py_sum(&values) / n as f64;
        let sq: Vec<f64> = values.iter().map(|x| (x - mean).powi(2)).collect();
        let std = (arith::py_sum(&sq) / n as f64).powf(0.5);
        json!({
            "median_iterations": median,
            "mean_iterations": mean,
            "std_iterations": std,
            "min_iterations": sorted[0],
            "max_iterations": sorted[n - 1],
            "num_traces": n,
        })
    }
}
