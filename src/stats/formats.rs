//! A [`Comparison`] as JSON and CSV tables. A statistic that is not
//! defined is `null` (JSON) or an empty cell (CSV) with its reason under
//! `not_defined`: never NaN.

use super::report::{Comparison, PairRow, RateRow};
use super::{Count, Stat};
use serde_json::{json, Map, Value};

use crate::numbers::names::{self, QUESTION_MEAN, TEMPLATE_PASS_RATE};

/// The one name of the rate every statistic here is about
/// ([`names::TEMPLATE_PASS_RATE`]).
pub(crate) const RATE_NAME: &str = TEMPLATE_PASS_RATE.name;

/// Its definition, as every face gives it.
pub(crate) const RATE_DEFINITION: &str = TEMPLATE_PASS_RATE.definition;

/// Which keys of `kld compare --format json` hold which named rate.
pub(crate) fn rate_names() -> Value {
    names::rate_names(&[
        ("rates[].rate", &TEMPLATE_PASS_RATE),
        ("combos[].rate", &TEMPLATE_PASS_RATE),
        ("ranking[].rate", &TEMPLATE_PASS_RATE),
        ("questions[].rate", &TEMPLATE_PASS_RATE),
        ("pairs[].mean_a", &QUESTION_MEAN),
        ("pairs[].mean_b", &QUESTION_MEAN),
        ("pairs[].diff", &QUESTION_MEAN),
    ])
}

/// The CSV tables `kld compare --format csv --table` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// Pairwise comparisons (judges averaged, then per judge).
    Pairs,
    /// Template pass rates with intervals (per model, then per combo).
    Rates,
    /// Judge agreement (overall, per model).
    Agreement,
    /// Cohen's κ of each pair of judges.
    Kappa,
    /// Per-question rates, hardest first.
    Questions,
}

/// Collects values and the reasons of those not defined.
#[derive(Default)]
struct Fields {
    m: Map<String, Value>,
    why: Map<String, Value>,
}

impl Fields {
    fn put(&mut self, k: &str, v: impl Into<Value>) {
        self.m.insert(k.into(), v.into());
    }
    fn num<T>(&mut self, k: &str, s: &Stat<T>, f: impl Fn(&T) -> f64) {
        match s {
            Ok(v) => self.put(k, f(v)),
            Err(e) => {
                self.m.insert(k.into(), Value::Null);
                self.why.insert(k.into(), e.0.clone().into());
            }
        }
    }
    fn done(mut self) -> Map<String, Value> {
        if !self.why.is_empty() {
            self.m.insert("not_defined".into(), Value::Object(self.why));
        }
        self.m
    }
}

impl Comparison {
    fn model(&self, m: u32) -> &str {
        &self.obs.models[m as usize]
    }
    fn judge(&self, j: u32) -> &str {
        &self.obs.judges[j as usize]
    }

    fn count_fields(f: &mut Fields, c: Count) {
        f.put("passed", c.passed);
        f.put("n", c.n);
        f.num("rate", &c.rate(), |r| *r);
    }

    fn rate_json(&self, r: &RateRow) -> Map<String, Value> {
        let mut f = Fields::default();
        f.put("model", self.model(r.model));
        f.put("judge", r.judge.map(|j| self.judge(j)));
        Self::count_fields(&mut f, r.count);
        f.num("wilson_low", &r.wilson, |i| i.low);
        f.num("wilson_high", &r.wilson, |i| i.high);
        f.num("exact_low", &r.exact, |i| i.low);
        f.num("exact_high", &r.exact, |i| i.high);
        f.num("clustered_se", &r.clustered, |c| c.se);
        f.num("clusters", &r.clustered, |c| c.clusters as f64);
        f.num("t_low", &r.clustered, |c| c.interval.low);
        f.num("t_high", &r.clustered, |c| c.interval.high);
        f.done()
    }

    fn pair_json(&self, p: &PairRow) -> Map<String, Value> {
        let mut f = Fields::default();
        f.put("a", self.model(p.a));
        f.put("b", self.model(p.b));
        f.put("judge", p.judge.map(|j| self.judge(j)));
        f.num("questions", &p.paired, |x| x.n as f64);
        f.num("mean_a", &p.paired, |x| x.mean_a);
        f.num("mean_b", &p.paired, |x| x.mean_b);
        f.num("diff", &p.paired, |x| x.diff);
        let test = p
            .paired
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|x| x.test.clone());
        f.num("se", &test, |t| t.se);
        f.num("low", &test, |t| t.interval.low);
        f.num("high", &test, |t| t.interval.high);
        f.num("t", &test, |t| t.t);
        f.num("df", &test, |t| t.df);
        f.num("p", &test, |t| t.p);
        f.put("p_holm", p.holm);
        f.put("p_bh", p.bh);
        let corr = p
            .paired
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|x| x.correlation.clone());
        f.num("correlation", &corr, |c| *c);
        let mdd = p
            .paired
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|x| x.detectable.clone());
        f.num("detectable", &mdd, |c| *c);
        if let Some((only_a, only_b)) = p.discordant {
            f.put("mcnemar_only_a", only_a);
            f.put("mcnemar_only_b", only_b);
        }
        if let Some(m) = &p.mcnemar {
            f.num("mcnemar_p", m, |m| m.p);
            f.num("mcnemar_mid_p", m, |m| m.mid_p);
        }
        f.done()
    }

    fn agreement_json(&self) -> Vec<Value> {
        self.agreement
            .iter()
            .map(|a| {
                let mut f = Fields::default();
                f.put("model", a.model.map(|m| self.model(m)));
                f.put("answers", a.answers);
                f.num("rated_by_two", &a.percent, |p| p.units as f64);
                f.num("pairwise_agreement", &a.percent, |p| p.pairwise);
                f.num("unanimous", &a.percent, |p| p.unanimous);
                f.num("fleiss_kappa", &a.fleiss, |k| k.0);
                f.num("fleiss_answers", &a.fleiss, |k| k.1 as f64);
                f.num("krippendorff_alpha", &a.alpha, |k| k.0);
                f.num("krippendorff_values", &a.alpha, |k| k.1 as f64);
                Value::Object(f.done())
            })
            .collect()
    }

    fn questions_json(&self) -> Vec<Value> {
        self.questions
            .iter()
            .map(|q| {
                let mut f = Fields::default();
                f.put("question", self.obs.questions[q.question as usize].as_str());
                Self::count_fields(&mut f, q.overall);
                f.num("discrimination", &q.discrimination, |d| *d);
                let by: Map<String, Value> = q
                    .by_model
                    .iter()
                    .map(|(&m, c)| {
                        let mut g = Fields::default();
                        Self::count_fields(&mut g, *c);
                        (self.model(m).to_string(), Value::Object(g.done()))
                    })
                    .collect();
                f.put("by_model", Value::Object(by));
                Value::Object(f.done())
            })
            .collect()
    }

    /// Cohen's κ of each pair of judges (`cohen_kappa`, `--table kappa`).
    fn cohen_json(&self) -> Vec<Value> {
        self.cohen
            .iter()
            .map(|(i, j, c)| {
                let mut f = Fields::default();
                f.put("judge_a", self.judge(*i));
                f.put("judge_b", self.judge(*j));
                f.num("n", c, |c| c.n as f64);
                f.num("agreement", c, |c| c.agreement);
                let k = c
                    .as_ref()
                    .map_err(Clone::clone)
                    .and_then(|c| c.kappa.clone());
                f.num("kappa", &k, |k| *k);
                Value::Object(f.done())
            })
            .collect()
    }

    /// Everything, as one JSON document.
    pub fn to_json(&self) -> Value {
        let o = &self.options;
        let cohen = self.cohen_json();
        let bias: Vec<Value> = self
            .bias
            .iter()
            .map(|(j, b)| {
                let mut f = Fields::default();
                f.put("judge", self.judge(*j));
                f.num("answers", b, |b| b.n as f64);
                f.num("questions", b, |b| b.questions as f64);
                f.num("bias", b, |b| b.bias);
                let i = b
                    .as_ref()
                    .map_err(Clone::clone)
                    .and_then(|b| b.interval.clone());
                f.num("low", &i, |i| i.low);
                f.num("high", &i, |i| i.high);
                Value::Object(f.done())
            })
            .collect();
        let reference = self.reference.as_ref().map(|(r, rows)| {
            let rows: Vec<Value> = rows
                .iter()
                .map(|x| {
                    let mut f = Fields::default();
                    f.put("judge", self.judge(x.judge));
                    f.num("n", &x.cohen, |c| c.n as f64);
                    f.num("agreement", &x.cohen, |c| c.agreement);
                    let k = x
                        .cohen
                        .as_ref()
                        .map_err(Clone::clone)
                        .and_then(|c| c.kappa.clone());
                    f.num("kappa", &k, |k| *k);
                    f.num("rate_diff", &x.rate_diff, |d| *d);
                    Value::Object(f.done())
                })
                .collect();
            json!({"judge": self.judge(*r), "judges": rows})
        });
        let rep = &self.replicates;
        let by_combo: Vec<Value> = rep
            .by_combo
            .iter()
            .map(|(&(m, j), &(cells, dis))| {
                json!({"model": self.model(m), "judge": self.judge(j), "cells": cells, "disagree": dis,
                       "share": dis as f64 / cells as f64})
            })
            .collect();
        let by_question: Vec<Value> = rep
            .by_question
            .iter()
            .map(|(&q, &(cells, dis))| {
                json!({"question": self.obs.questions[q as usize], "cells": cells, "disagree": dis,
                       "share": dis as f64 / cells as f64})
            })
            .collect();
        let sd: Vec<Value> = rep
            .sd_by_model
            .iter()
            .map(|(&m, (n, sd))| {
                let mut f = Fields::default();
                f.put("model", self.model(m));
                f.put("replicates", *n);
                f.num("sd", sd, |s| *s);
                Value::Object(f.done())
            })
            .collect();
        json!({
            "rate": TEMPLATE_PASS_RATE.to_json(),
            "rate_names": rate_names(),
            "confidence": o.confidence,
            "rows": self.obs.rows.len(),
            "rows_left_out": self.obs.left_out,
            "questions_n": self.obs.questions.len(),
            "rates": self.rates.iter().map(|r| Value::Object(self.rate_json(r))).collect::<Vec<_>>(),
            "combos": self.combos.iter().map(|r| Value::Object(self.rate_json(r))).collect::<Vec<_>>(),
            "pairs": self.pairs.iter().map(|p| Value::Object(self.pair_json(p))).collect::<Vec<_>>(),
            "ranking": self.ranking.iter().map(|r| json!({
                "model": self.model(r.model), "rank": r.rank, "passed": r.count.passed, "n": r.count.n,
                "rate": r.count.rate().ok(),
                "not_distinguishable_from": r.same_as.iter().map(|&m| self.model(m)).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "agreement": self.agreement_json(),
            "cohen_kappa": cohen,
            "judge_bias": {"resamples": o.resamples, "seed": o.seed, "judges": bias},
            "reference_judge": reference,
            "questions": self.questions_json(),
            "replicates": {"by_combo": by_combo, "by_question": by_question, "sd_by_model": sd},
        })
    }

    /// One table's columns and rows, as the CSV and Python's DataFrames
    /// give it: the JSON rows' keys, then `rate_name` (the rate its rates
    /// are, [`crate::numbers::names`]) where the table has rates, then
    /// `not_defined` (why a cell is empty).
    pub fn table(&self, table: Table) -> (Vec<String>, Vec<Map<String, Value>>) {
        let mut rows: Vec<Map<String, Value>> = match table {
            Table::Pairs => self.pairs.iter().map(|p| self.pair_json(p)).collect(),
            Table::Rates => self
                .rates
                .iter()
                .chain(&self.combos)
                .map(|r| self.rate_json(r))
                .collect(),
            Table::Agreement => self
                .agreement_json()
                .into_iter()
                .filter_map(|v| v.as_object().cloned())
                .collect(),
            Table::Kappa => self
                .cohen_json()
                .into_iter()
                .filter_map(|v| v.as_object().cloned())
                .collect(),
            Table::Questions => self
                .questions_json()
                .into_iter()
                .filter_map(|v| {
                    let mut m = v.as_object()?.clone();
                    m.remove("by_model");
                    Some(m)
                })
                .collect(),
        };
        let rate = match table {
            Table::Pairs => Some(QUESTION_MEAN.name),
            Table::Rates | Table::Questions => Some(TEMPLATE_PASS_RATE.name),
            Table::Agreement | Table::Kappa => None,
        };
        if let Some(rate) = rate {
            for r in &mut rows {
                r.insert("rate_name".into(), rate.into());
            }
        }
        let mut cols: Vec<String> = Vec::new();
        for r in &rows {
            for k in r.keys().filter(|k| *k != "not_defined") {
                if !cols.contains(k) {
                    cols.push(k.clone());
                }
            }
        }
        cols.push("not_defined".into());
        (cols, rows)
    }

    /// One table as CSV (columns: [`Comparison::table`]'s; not-defined
    /// cells empty, their reasons in `not_defined`).
    pub fn to_csv(&self, table: Table) -> String {
        let (cols, rows) = self.table(table);
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record(&cols);
        for r in &rows {
            let rec: Vec<String> = cols
                .iter()
                .map(|c| match r.get(c) {
                    None | Some(Value::Null) => String::new(),
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Object(why)) => why
                        .iter()
                        .map(|(k, v)| format!("{k}: {}", v.as_str().unwrap_or("")))
                        .collect::<Vec<_>>()
                        .join("; "),
                    Some(v) => v.to_string(),
                })
                .collect();
            let _ = w.write_record(&rec);
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }
}
