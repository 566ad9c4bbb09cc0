//! Questions and replicates: each question's template pass rate overall
//! and per answering model (with n), how well it separates the models, and
//! how often replicates of the same cell disagree.

use super::{correlation, nd, variance, Count, Observations, Stat};
use std::collections::{BTreeMap, HashMap};

/// One question's rates.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    /// Question index.
    pub question: u32,
    /// Over every row of the question (all models, judges, replicates).
    pub overall: Count,
    /// Per answering model (model index → count), models that answered it.
    pub by_model: BTreeMap<u32, Count>,
    /// Discrimination: Pearson's correlation, across answering models, of
    /// the model's rate on this question with its rate on every other
    /// question (item-rest correlation).
    pub discrimination: Stat<f64>,
}

/// Per question, hardest first (lowest rate; ties by question ID).
pub(crate) fn questions(obs: &Observations) -> Vec<Question> {
    let nm = obs.models.len();
    let mut by_q: HashMap<u32, (Count, BTreeMap<u32, Count>)> = HashMap::new();
    let mut by_model = vec![Count::default(); nm];
    for o in &obs.rows {
        let e = by_q.entry(o.question).or_default();
        e.0.add(o.passed());
        e.1.entry(o.model).or_default().add(o.passed());
        by_model[o.model as usize].add(o.passed());
    }
    let mut out: Vec<Question> = by_q
        .into_iter()
        .map(|(q, (overall, per))| {
            let (mut x, mut y) = (Vec::new(), Vec::new());
            for (&m, c) in &per {
                let total = by_model[m as usize];
                let rest = Count {
                    passed: total.passed - c.passed,
                    n: total.n - c.n,
                };
                if let (Ok(a), Ok(b)) = (c.rate(), rest.rate()) {
                    x.push(a);
                    y.push(b);
                }
            }
            let discrimination = if x.len() < 3 {
                nd("fewer than three models answered it and other questions")
            } else {
                correlation(&x, &y).map_err(|_| {
                    super::NotDefined(
                        "every model scored the same on it, or the models' other rates are equal"
                            .into(),
                    )
                })
            };
            Question {
                question: q,
                overall,
                by_model: per,
                discrimination,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        let (ra, rb) = (
            a.overall.rate().unwrap_or(0.0),
            b.overall.rate().unwrap_or(0.0),
        );
        ra.total_cmp(&rb).then_with(|| {
            obs.questions[a.question as usize].cmp(&obs.questions[b.question as usize])
        })
    });
    out
}

/// How often replicates disagree.
#[derive(Clone, Debug, PartialEq)]
pub struct Replicates {
    /// Per (answering model, judge): (cells with two replicates or more,
    /// of which the replicates disagree).
    pub by_combo: BTreeMap<(u32, u32), (usize, usize)>,
    /// Per question: the same over its cells.
    pub by_question: BTreeMap<u32, (usize, usize)>,
    /// Per answering model: sample SD (n − 1) of its per-replicate template
    /// pass rates (every judge), with the replicates counted.
    pub sd_by_model: BTreeMap<u32, (usize, Stat<f64>)>,
}

/// Replicate disagreement: a cell is (question, answering model, judge,
/// run); it counts when it holds two replicates or more (unequal
/// replicate counts allowed), and disagrees when its scores are not all
/// equal.
pub(crate) fn replicates(obs: &Observations) -> Replicates {
    let mut cells: HashMap<(u32, u32, u32, u32), (usize, usize)> = HashMap::new();
    let mut per_rep: BTreeMap<u32, BTreeMap<i64, Count>> = BTreeMap::new();
    for o in &obs.rows {
        let e = cells
            .entry((o.question, o.model, o.judge, o.run))
            .or_default();
        e.0 += 1;
        e.1 += usize::from(o.passed());
        if let Some(r) = o.replicate {
            per_rep
                .entry(o.model)
                .or_default()
                .entry(r)
                .or_default()
                .add(o.passed());
        }
    }
    let mut out = Replicates {
        by_combo: BTreeMap::new(),
        by_question: BTreeMap::new(),
        sd_by_model: BTreeMap::new(),
    };
    for (&(q, m, j, _), &(n, p)) in &cells {
        if n < 2 {
            continue;
        }
        let dis = usize::from(p != 0 && p != n);
        for e in [
            out.by_combo.entry((m, j)).or_default(),
            out.by_question.entry(q).or_default(),
        ] {
            e.0 += 1;
            e.1 += dis;
        }
    }
    for m in 0..obs.models.len() as u32 {
        let rates: Vec<f64> = per_rep
            .get(&m)
            .into_iter()
            .flat_map(|r| r.values())
            .filter_map(|c| c.rate().ok())
            .collect();
        let sd = variance(&rates)
            .map(f64::sqrt)
            .ok_or_else(|| super::NotDefined("fewer than two replicates".into()));
        out.sd_by_model.insert(m, (rates.len(), sd));
    }
    out
}
