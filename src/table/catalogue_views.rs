//! The catalogue's number queries as views of the table: the same rows
//! `pass-rate-by-benchmark`, `outcome-classes`, `replicate-pass-rates` and
//! `tokens-by-combo` (its `total` stage: Karenina's `tokens_by_combo`) give
//! over the quads, computed from the columns. A differential test keeps
//! each equal to its SPARQL query.

use super::{Sym, Table};
use crate::numbers::arith as stats;
use std::collections::BTreeMap;

/// The outcome classes in the catalogue's column order (those of
/// `crate::results::outcome::CLASSES`).
pub const OUTCOMES: [&str; 8] = crate::results::outcome::CLASSES;

/// `pass-rate-by-benchmark`'s column for outcome class `class` (one of
/// [`OUTCOMES`]): the class's name, but `outcome_passed` for `passed`, apart
/// from the pass rate's `passed`.
pub fn outcome_column(class: &str) -> &str {
    if class == "passed" {
        "outcome_passed"
    } else {
        class
    }
}

/// A row of `pass-rate-by-benchmark`.
#[derive(Clone, Debug, PartialEq)]
pub struct PassRate {
    /// The benchmark's name.
    pub benchmark: String,
    /// The checkpoint graph.
    pub graph: String,
    /// The results graph.
    pub results_graph: String,
    /// Karenina's combo string.
    pub combo: String,
    /// Results of the combo whose question is in the benchmark.
    pub results: usize,
    /// Those whose template verification was performed.
    pub n: usize,
    /// Of those, `verify_result` true.
    pub passed: usize,
    /// `passed / n`; `None` when `n` is 0.
    pub pass_rate: Option<f64>,
    /// Results per outcome class, in [`OUTCOMES`]' order.
    pub outcomes: [usize; 8],
}

fn outcome_index(t: &Table, i: usize) -> usize {
    let o = t.opt_text(t.outcome[i]).unwrap_or("unclassified");
    OUTCOMES.iter().position(|x| *x == o).unwrap_or(7)
}

/// `pass-rate-by-benchmark`: per bound run and combo, over the results of
/// the benchmark's own questions.
pub fn pass_rate_by_benchmark(t: &Table) -> Vec<PassRate> {
    let mut out = Vec::new();
    for (r, p) in t.runs.iter().enumerate() {
        let (Some(graph), Some(name)) = (&p.benchmark, &p.benchmark_name) else {
            continue;
        };
        let mut by: BTreeMap<Sym, PassRate> = BTreeMap::new();
        for i in t.rows_of(r).filter(|i| t.in_benchmark[*i]) {
            let e = by.entry(t.combo[i]).or_insert_with(|| PassRate {
                benchmark: name.clone(),
                graph: graph.clone(),
                results_graph: p.graph.clone(),
                combo: t.text(t.combo[i]).to_string(),
                results: 0,
                n: 0,
                passed: 0,
                pass_rate: None,
                outcomes: [0; 8],
            });
            e.results += 1;
            if t.template_performed[i] {
                e.n += 1;
                e.passed += usize::from(t.verify[i] == Some(true));
            }
            e.outcomes[outcome_index(t, i)] += 1;
        }
        for mut e in by.into_values() {
            e.pass_rate = (e.n > 0).then(|| e.passed as f64 / e.n as f64);
            out.push(e);
        }
    }
    out
}

/// A row of `outcome-classes`.
#[derive(Clone, Debug, PartialEq)]
pub struct OutcomeClass {
    /// The results graph.
    pub results_graph: String,
    /// Karenina's combo string.
    pub combo: String,
    /// The outcome class.
    pub outcome: &'static str,
    /// Results of the class.
    pub results: usize,
    /// Their share of the run's and combo's results.
    pub share: f64,
}

/// `outcome-classes`: results per run, combo and outcome class.
pub fn outcome_classes(t: &Table) -> Vec<OutcomeClass> {
    let mut out = Vec::new();
    for (r, p) in t.runs.iter().enumerate() {
        let mut by: BTreeMap<Sym, [usize; 8]> = BTreeMap::new();
        for i in t.rows_of(r) {
            by.entry(t.combo[i]).or_default()[outcome_index(t, i)] += 1;
        }
        for (combo, counts) in by {
            let all: usize = counts.iter().sum();
            for (k, n) in counts.iter().enumerate().filter(|(_, n)| **n > 0) {
                out.push(OutcomeClass {
                    results_graph: p.graph.clone(),
                    combo: t.text(combo).to_string(),
                    outcome: OUTCOMES[k],
                    results: *n,
                    share: *n as f64 / all as f64,
                });
            }
        }
    }
    out
}

/// A row of `replicate-pass-rates`.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplicateRate {
    /// The results graph.
    pub results_graph: String,
    /// The replicate.
    pub replicate: i64,
    /// Results of the replicate whose template verification was performed.
    pub n: usize,
    /// Of those, `verify_result` true.
    pub passed: usize,
    /// `passed / n`.
    pub pass_rate: f64,
    /// The run's replicates.
    pub replicates: usize,
    /// `statistics.mean` of the replicates' rates.
    pub mean: f64,
    /// `statistics.stdev` of them (0 for one).
    pub std: f64,
}

/// `replicate-pass-rates`: Karenina's `replicate_stats` per run.
pub fn replicate_pass_rates(t: &Table) -> Vec<ReplicateRate> {
    let mut out = Vec::new();
    for (r, p) in t.runs.iter().enumerate() {
        let mut by: BTreeMap<i64, (usize, usize)> = BTreeMap::new();
        for i in t.rows_of(r).filter(|i| t.template_performed[*i]) {
            if let Some(rep) = t.replicate[i] {
                let e = by.entry(rep).or_default();
                e.0 += 1;
                e.1 += usize::from(t.verify[i] == Some(true));
            }
        }
        let rates: Vec<f64> = by.values().map(|(n, k)| *k as f64 / *n as f64).collect();
        let (mean, std) = (stats::py_mean(&rates), stats::py_stdev(&rates));
        for (rep, (n, passed)) in &by {
            out.push(ReplicateRate {
                results_graph: p.graph.clone(),
                replicate: *rep,
                n: *n,
                passed: *passed,
                pass_rate: *passed as f64 / *n as f64,
                replicates: by.len(),
                mean,
                std,
            });
        }
    }
    out
}

/// A row of `tokens-by-combo` for its `total` stage (Karenina's
/// `tokens_by_combo`).
#[derive(Clone, Debug, PartialEq)]
pub struct Tokens {
    /// The results graph.
    pub results_graph: String,
    /// Karenina's combo string.
    pub combo: String,
    /// Sum of the `total` stage's input tokens.
    pub input: i64,
    /// Sum of its output tokens.
    pub output: i64,
}

/// `tokens-by-combo`, stage `total`: per run and combo, the sums of
/// `usage_metadata.total`'s input and output tokens (rows with a count).
pub fn tokens_by_combo(t: &Table) -> Vec<Tokens> {
    let mut out = Vec::new();
    for (r, p) in t.runs.iter().enumerate() {
        let mut by: BTreeMap<Sym, (i64, i64)> = BTreeMap::new();
        for i in t.rows_of(r) {
            let (a, b) = (t.tokens[0][0][i], t.tokens[0][1][i]);
            if a.is_some() || b.is_some() {
                let e = by.entry(t.combo[i]).or_default();
                e.0 += a.unwrap_or(0);
                e.1 += b.unwrap_or(0);
            }
        }
        for (combo, (input, output)) in by {
            out.push(Tokens {
                results_graph: p.graph.clone(),
                combo: t.text(combo).to_string(),
                input,
                output,
            });
        }
    }
    out
}
