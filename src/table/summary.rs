//! Karenina's numbers of a set of the table's rows: `get_summary()` and
//! `aggregate_pass_rate(by=…)`, computed from the columns by the rules of
//! `crate::numbers` (`docs/numbers.md`), so that a run's numbers
//! from the table equal `kld info`'s of its export.

use super::{Sym, Table};
use crate::numbers::arith as stats;
use crate::numbers::{PassRates, ReplicateStats, Tally, CSV_CANNOT_TELL, FAMILIES};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

/// A first-seen-order map keyed by a small copyable key (a Python dict).
#[derive(Clone, Debug)]
struct Ordered<K, V> {
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

impl<K: std::hash::Hash + Eq + Copy, V: Default> Ordered<K, V> {
    fn entry(&mut self, k: K) -> &mut V {
        let n = self.entries.len();
        let i = *self.index.entry(k).or_insert(n);
        if i == n {
            self.entries.push((k, V::default()));
        }
        &mut self.entries[i].1
    }
}

/// Karenina's numbers of some rows of a table.
#[derive(Clone, Debug)]
pub struct Numbers<'t> {
    table: &'t Table,
    csv: bool,
    rows: usize,
    completed: usize,
    with_template: usize,
    with_rubric: usize,
    with_judgment: usize,
    questions: HashSet<Sym>,
    models: HashSet<Sym>,
    parsing_models: HashSet<Sym>,
    replicates: HashSet<i64>,
    execution_time: Option<f64>,
    tokens: [[Vec<i64>; 2]; 4],
    tokens_by_combo: Ordered<Sym, (i64, i64)>,
    completion_by_combo: Ordered<Sym, Tally>,
    pass_by_combo: Ordered<Sym, Tally>,
    replicate_pass: Ordered<i64, Tally>,
    /// Per trait column: the questions that scored it, its evaluations.
    traits: Vec<(HashSet<Sym>, usize)>,
    tool_calls: BTreeMap<String, i64>,
    tool_traces: BTreeMap<String, usize>,
    traces_with_tools: usize,
    iterations: Vec<f64>,
    pass_rates: PassRates,
}

impl<'t> Numbers<'t> {
    /// Counts `rows` of `table` (indices, in the order Karenina would meet
    /// them: the file's).
    pub fn of(table: &'t Table, rows: impl IntoIterator<Item = usize>) -> Self {
        let mut n = Numbers {
            table,
            csv: false,
            rows: 0,
            completed: 0,
            with_template: 0,
            with_rubric: 0,
            with_judgment: 0,
            questions: HashSet::new(),
            models: HashSet::new(),
            parsing_models: HashSet::new(),
            replicates: HashSet::new(),
            execution_time: None,
            tokens: Default::default(),
            tokens_by_combo: Ordered::default(),
            completion_by_combo: Ordered::default(),
            pass_by_combo: Ordered::default(),
            replicate_pass: Ordered::default(),
            traits: vec![(HashSet::new(), 0); table.traits.len()],
            tool_calls: BTreeMap::new(),
            tool_traces: BTreeMap::new(),
            traces_with_tools: 0,
            iterations: Vec::new(),
            pass_rates: PassRates::default(),
        };
        // aggregate_pass_rate's tallies, by symbol first.
        let mut by_q: HashMap<Sym, Tally> = HashMap::new();
        let mut by_a: HashMap<Sym, Tally> = HashMap::new();
        let mut by_p: HashMap<Sym, Tally> = HashMap::new();
        for i in rows {
            n.add(i, &mut by_q, &mut by_a, &mut by_p);
        }
        let named = |m: HashMap<Sym, Tally>| -> BTreeMap<String, Tally> {
            m.into_iter()
                .map(|(k, v)| (table.text(k).to_string(), v))
                .collect()
        };
        n.pass_rates.question_id = named(by_q);
        n.pass_rates.answering_model = named(by_a);
        n.pass_rates.parsing_model = named(by_p);
        n
    }

    fn add(
        &mut self,
        i: usize,
        by_q: &mut HashMap<Sym, Tally>,
        by_a: &mut HashMap<Sym, Tally>,
        by_p: &mut HashMap<Sym, Tally>,
    ) {
        let t = self.table;
        self.csv |= t.run_of(i).csv;
        self.rows += 1;
        let completed = t.completed[i];
        self.completed += usize::from(completed);
        let template = t.template_performed[i];
        self.with_template += usize::from(template);
        let rubric = t.rubric_performed[i];
        self.with_rubric += usize::from(rubric);
        self.with_judgment += usize::from(t.judgment_performed[i]);
        let q = t.question[i];
        self.questions.insert(q);
        self.models.insert(t.answering[i]);
        self.parsing_models.insert(t.parsing[i]);
        let replicate = t.replicate[i];
        if let Some(r) = replicate {
            self.replicates.insert(r);
        }
        if let Some(x) = t.execution_time[i] {
            // Python's sum(): left to right.
            self.execution_time = Some(self.execution_time.unwrap_or(0.0) + x);
        }
        let combo = t.combo[i];
        self.add_tokens(i, combo);
        let c = self.completion_by_combo.entry(combo);
        c.total += 1;
        c.passed += usize::from(completed);
        if rubric {
            for (k, col) in t.traits.iter().enumerate() {
                if col.present[i] {
                    self.traits[k].0.insert(q);
                    self.traits[k].1 += 1;
                }
            }
        }
        let verdict = t.verify[i];
        if template {
            let passed = usize::from(verdict == Some(true));
            let c = self.pass_by_combo.entry(combo);
            c.total += 1;
            c.passed += passed;
            if let Some(r) = replicate {
                let c = self.replicate_pass.entry(r);
                c.total += 1;
                c.passed += passed;
            }
        }
        if let Some(counts) = t.tool_calls[i] {
            if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(t.text(counts)) {
                self.traces_with_tools += 1;
                for (tool, v) in m {
                    let calls = crate::numbers::row::int(&v).unwrap_or(0);
                    *self.tool_calls.entry(tool.clone()).or_default() += calls;
                    *self.tool_traces.entry(tool).or_default() += 1;
                }
            }
        }
        if let Some(x) = t.iterations[i] {
            self.iterations.push(x);
        }
        if let Some(passed) = verdict {
            let bump = |m: &mut HashMap<Sym, Tally>, k: Sym| {
                let e = m.entry(k).or_default();
                e.total += 1;
                e.passed += usize::from(passed);
            };
            bump(by_q, q);
            bump(by_a, t.answering[i]);
            bump(by_p, t.parsing[i]);
            if let Some(r) = replicate {
                let e = self.pass_rates.replicate.entry(r).or_default();
                e.total += 1;
                e.passed += usize::from(passed);
            }
        }
    }

    fn add_tokens(&mut self, i: usize, combo: Sym) {
        let tok = &self.table.tokens;
        let (ti, to) = (tok[0][0][i], tok[0][1][i]);
        if let Some(v) = ti {
            self.tokens[0][0].push(v);
        }
        if let Some(v) = to {
            self.tokens[0][1].push(v);
        }
        let sum = |d: usize| tok[1][d][i].unwrap_or(0) + tok[2][d][i].unwrap_or(0);
        let (si, so) = (sum(0), sum(1));
        if si > 0 || so > 0 {
            self.tokens[1][0].push(si);
            self.tokens[1][1].push(so);
        }
        for (d, stage) in tok[3].iter().enumerate() {
            if let Some(v) = stage[i].filter(|v| *v > 0) {
                self.tokens[2][d].push(v);
            }
        }
        if ti.is_some() || to.is_some() {
            let e = self.tokens_by_combo.entry(combo);
            e.0 += ti.unwrap_or(0);
            e.1 += to.unwrap_or(0);
        }
    }

    /// Rows counted.
    pub fn results(&self) -> usize {
        self.rows
    }

    /// Karenina's `template_pass_by_combo`, in Karenina's order.
    pub fn template_pass_by_combo(&self) -> Vec<(&'t str, Tally)> {
        let t = self.table;
        self.pass_by_combo
            .entries
            .iter()
            .map(|(c, v)| (t.text(*c), *v))
            .collect()
    }

    /// Karenina's `template_pass_overall`; `None` without template
    /// verification.
    pub fn template_pass_overall(&self) -> Option<Tally> {
        (self.with_template > 0).then(|| {
            self.pass_by_combo
                .entries
                .iter()
                .fold(Tally::default(), |a, (_, t)| Tally {
                    total: a.total + t.total,
                    passed: a.passed + t.passed,
                })
        })
    }

    /// Karenina's `replicate_stats`; `None` for fewer than two replicates.
    pub fn replicate_stats(&self) -> Option<ReplicateStats> {
        if self.replicates.len() <= 1
            || self.with_template == 0
            || self.replicate_pass.entries.is_empty()
        {
            return None;
        }
        let reps = self.replicate_pass.entries.clone();
        let rates: Vec<f64> = reps
            .iter()
            .map(|(_, t)| t.passed as f64 / t.total as f64)
            .collect();
        Some(ReplicateStats {
            replicates: reps,
            mean: stats::py_mean(&rates),
            std: stats::py_stdev(&rates),
        })
    }

    /// `aggregate_pass_rate(by=…)` for the four keys.
    pub fn pass_rates(&self) -> &PassRates {
        &self.pass_rates
    }

    /// Keys a CSV cannot tell (`docs/numbers.md`).
    pub fn cannot_tell(&self) -> Vec<&'static str> {
        if !self.csv {
            return Vec::new();
        }
        let mut out = vec!["aggregate_pass_rate"];
        if self.with_rubric > 0 {
            out.push("rubric_traits");
        }
        out
    }

    /// `VerificationResultSet.get_summary()` of the rows, Karenina's keys
    /// in Karenina's order (as `kld info --format json`'s `summary`).
    pub fn summary(&self) -> Value {
        let t = self.table;
        let mut s = Map::new();
        for (k, v) in [
            ("num_results", self.rows),
            ("num_completed", self.completed),
            ("num_with_template", self.with_template),
            ("num_with_rubric", self.with_rubric),
            ("num_with_judgment", self.with_judgment),
            ("num_questions", self.questions.len()),
            ("num_models", self.models.len()),
            ("num_parsing_models", self.parsing_models.len()),
            ("num_replicates", self.replicates.len()),
        ] {
            s.insert(k.into(), json!(v));
        }
        s.insert(
            "total_execution_time".into(),
            self.execution_time.map_or(json!(0), |x| json!(x)),
        );
        s.insert("tokens".into(), self.tokens_json());
        let by: Map<String, Value> = self
            .tokens_by_combo
            .entries
            .iter()
            .map(|(c, (i, o))| {
                (
                    t.text(*c).to_string(),
                    json!({"input": i, "output": o, "total": i + o}),
                )
            })
            .collect();
        s.insert("tokens_by_combo".into(), Value::Object(by));
        let by: Map<String, Value> = self
            .completion_by_combo
            .entries
            .iter()
            .map(|(c, x)| {
                (
                    t.text(*c).to_string(),
                    json!({"total": x.total, "completed": x.passed, "completion_pct": x.pct()}),
                )
            })
            .collect();
        s.insert("completion_by_combo".into(), Value::Object(by));
        if !self.cannot_tell().contains(&"rubric_traits") {
            s.insert("rubric_traits".into(), self.rubric_traits_json());
        }
        let tally = |x: &Tally| json!({"total": x.total, "passed": x.passed, "pass_pct": x.pct()});
        match self.template_pass_overall() {
            Some(overall) => {
                let by: Map<String, Value> = self
                    .template_pass_by_combo()
                    .into_iter()
                    .map(|(c, x)| (c.to_string(), tally(&x)))
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
            let rates: Map<String, Value> = r
                .replicates
                .iter()
                .map(|(k, x)| {
                    let mut v = tally(x);
                    v["pass_rate"] = json!(x.passed as f64 / x.total as f64);
                    (k.to_string(), v)
                })
                .collect();
            json!({"replicate_pass_rates": rates, "replicate_summary": {"mean": r.mean, "std": r.std}})
        });
        s.insert("replicate_stats".into(), reps.unwrap_or(Value::Null));
        s.insert("tool_usage_stats".into(), self.tool_usage_json());
        s.insert("trace_length_stats".into(), self.trace_length_json());
        Value::Object(s)
    }

    fn tokens_json(&self) -> Value {
        let mut m = Map::new();
        let judged = self.with_judgment > 0;
        for (k, name) in ["total", "template", "rubric", "deep_judgment"]
            .iter()
            .enumerate()
        {
            for (d, dir) in ["input", "output"].iter().enumerate() {
                let v = &self.tokens[k][d];
                let (_, std) = stats::median_std(v);
                let (sum, std) = if k == 3 && !judged {
                    (Value::Null, Value::Null)
                } else {
                    (json!(v.iter().sum::<i64>()), json!(std))
                };
                m.insert(format!("{name}_{dir}"), sum);
                m.insert(format!("{name}_{dir}_std"), std);
            }
        }
        for (d, dir) in ["input", "output"].iter().enumerate() {
            let (median, std) = stats::median_std(&self.tokens[0][d]);
            m.insert(format!("median_per_question_{dir}"), json!(median));
            m.insert(format!("median_per_question_{dir}_std"), json!(std));
        }
        Value::Object(m)
    }

    fn rubric_traits_json(&self) -> Value {
        if self.with_rubric == 0 {
            return Value::Null;
        }
        let n = self.questions.len();
        let (mut global, mut specific) = ([0usize; 5], [0usize; 5]);
        // Karenina keys the questions of a trait by its name alone.
        let mut by_name: HashMap<&str, HashSet<Sym>> = HashMap::new();
        for (k, col) in self.table.traits.iter().enumerate() {
            by_name
                .entry(col.name.as_str())
                .or_default()
                .extend(self.traits[k].0.iter().copied());
        }
        for (k, col) in self.table.traits.iter().enumerate() {
            let Some(f) = FAMILIES.iter().position(|(_, fam)| *fam == col.family) else {
                continue;
            };
            let count = self.traits[k].1;
            if count == 0 {
                continue;
            }
            if by_name[col.name.as_str()].len() == n {
                global[f] += count;
            } else {
                specific[f] += count;
            }
        }
        let side = |c: [usize; 5]| {
            let m: Map<String, Value> = FAMILIES
                .iter()
                .enumerate()
                .map(|(i, (_, fam))| ((*fam).to_string(), json!({"count": c[i]})))
                .collect();
            Value::Object(m)
        };
        json!({"global_traits": side(global), "question_specific_traits": side(specific)})
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
        let as_json = |x: f64| {
            if x.fract() == 0.0 && x.abs() < 9e15 {
                json!(x as i64)
            } else {
                json!(x)
            }
        };
        let mut sorted = self.iterations.clone();
        sorted.sort_by(f64::total_cmp);
        let median = if n % 2 == 1 {
            as_json(sorted[n / 2])
        } else {
            json!((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0)
        };
        let mean = stats::py_sum(&self.iterations) / n as f64;
        let sq: Vec<f64> = self.iterations.iter().map(|x| (x - mean).powi(2)).collect();
        let std = (stats::py_sum(&sq) / n as f64).powf(0.5);
        json!({
            "median_iterations": median,
            "mean_iterations": mean,
            "std_iterations": std,
            "min_iterations": as_json(sorted[0]),
            "max_iterations": as_json(sorted[n - 1]),
            "num_traces": n,
        })
    }
}

impl Table {
    /// Karenina's numbers of `rows`.
    pub fn numbers(&self, rows: impl IntoIterator<Item = usize>) -> Numbers<'_> {
        Numbers::of(self, rows)
    }

    /// What `kld info --format json` gives for Karenina's numbers of one
    /// input, from run `r`'s rows: `summary`, `summary_covers`,
    /// `aggregate_pass_rate`, a CSV's `cannot_tell`, and `summary_by_run`
    /// when the rows hold more than one run name.
    pub fn karenina_json(&self, r: usize) -> Map<String, Value> {
        let rows = self.rows_of(r);
        let mut names: Vec<Option<Sym>> = Vec::new();
        let mut by_name: HashMap<Option<Sym>, Vec<usize>> = HashMap::new();
        for i in rows.clone() {
            let k = self.run_name[i];
            let e = by_name.entry(k).or_default();
            if e.is_empty() {
                names.push(k);
            }
            e.push(i);
        }
        let mut all = self.numbers(rows);
        // (A CSV without rows still cannot tell what a CSV cannot.)
        all.csv |= self.runs[r].csv;
        let mut m = Map::new();
        m.insert("summary".into(), all.summary());
        let covers: Vec<Value> = names.iter().map(|k| json!(self.opt_text(*k))).collect();
        m.insert(
            "summary_covers".into(),
            json!({"runs": covers, "results": all.results()}),
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
        if names.len() > 1 {
            let csv = self.runs[r].csv;
            let by: Vec<Value> = names
                .iter()
                .map(|k| {
                    let n = self.numbers(by_name[k].iter().copied());
                    let mut v = json!({"run_name": self.opt_text(*k), "summary": n.summary()});
                    if !csv {
                        v["aggregate_pass_rate"] = n.pass_rates().to_json();
                    }
                    v
                })
                .collect();
            m.insert("summary_by_run".into(), Value::Array(by));
        }
        // The same names as `kld info` gives its keys (one table of names).
        m.insert(
            "rate_names".into(),
            crate::numbers::file::rate_names_of_info(),
        );
        m
    }
}
