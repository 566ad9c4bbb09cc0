//! Every statistic of a run at once: what `kld compare` prints.
//! Computation only; [`super::formats`] writes it as JSON or CSV and
//! `prose` as text.

use super::agreement::{self, Bias, Cohen, Percent, Unit};
use super::interval::{self, Clustered, Interval};
use super::paired::{self, McNemar, Paired};
use super::questions::{self, Question, Replicates};
use super::{Count, Observations, Stat};
use std::collections::HashMap;

/// What [`compare`] computes with.
#[derive(Clone, Debug)]
pub struct Options {
    /// Confidence of every interval (0.95).
    pub confidence: f64,
    /// A judge (parsing model display string) the others are compared
    /// with.
    pub reference_judge: Option<String>,
    /// Seed of the bias bootstrap.
    pub seed: u64,
    /// Bootstrap resamples.
    pub resamples: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            confidence: 0.95,
            reference_judge: None,
            seed: 0,
            resamples: 2000,
        }
    }
}

/// Why a comparison could not be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CompareError {
    /// `--reference-judge` names no parsing model of the run.
    #[error("no parsing model is named {name:?}; the run's are: {known}")]
    UnknownJudge {
        /// The name given.
        name: String,
        /// The run's parsing models, comma-separated.
        known: String,
    },
    /// The confidence is not between 0 and 1.
    #[error("confidence {0} is not between 0 and 1")]
    Confidence(f64),
}

/// A template pass rate with its intervals.
#[derive(Clone, Debug, PartialEq)]
pub struct RateRow {
    /// Answering model.
    pub model: u32,
    /// Judge, or `None` for every judge together.
    pub judge: Option<u32>,
    /// Passed of n.
    pub count: Count,
    /// Wilson interval (rows taken as independent).
    pub wilson: Stat<Interval>,
    /// Clopper-Pearson interval (rows taken as independent).
    pub exact: Stat<Interval>,
    /// Question-clustered SE and t interval (replicates and judges repeat
    /// a question).
    pub clustered: Stat<Clustered>,
}

/// Two answering models compared.
#[derive(Clone, Debug, PartialEq)]
pub struct PairRow {
    /// First model (ranked higher).
    pub a: u32,
    /// Second model.
    pub b: u32,
    /// Under one judge, or `None`: judges and replicates averaged per
    /// question.
    pub judge: Option<u32>,
    /// The paired comparison.
    pub paired: Stat<Paired>,
    /// Where every question has one row per model (one judge, one
    /// replicate): the questions only the first passed and only the second
    /// passed; `None` elsewhere.
    pub discordant: Option<(u64, u64)>,
    /// Exact McNemar on those, when `discordant` is given.
    pub mcnemar: Option<Stat<McNemar>>,
    /// Holm-adjusted p across the pairs of this view; `None` when the test
    /// is not defined.
    pub holm: Option<f64>,
    /// Benjamini-Hochberg-adjusted p, likewise.
    pub bh: Option<f64>,
}

/// A model's place.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranked {
    /// Answering model.
    pub model: u32,
    /// Its template pass rate, every judge together.
    pub count: Count,
    /// 1 + the models significantly better (Holm, judges averaged).
    pub rank: usize,
    /// Models it cannot be told apart from (Holm p ≥ α, or no test).
    pub same_as: Vec<u32>,
}

/// Agreement over a set of answers.
#[derive(Clone, Debug, PartialEq)]
pub struct AgreementRow {
    /// The answering model, or `None` for every answer.
    pub model: Option<u32>,
    /// Answers (with at least one rating).
    pub answers: usize,
    /// Percent agreement.
    pub percent: Stat<Percent>,
    /// Fleiss' κ and the answers every judge rated.
    pub fleiss: Stat<(f64, usize)>,
    /// Krippendorff's α (nominal) and the pairable ratings.
    pub alpha: Stat<(f64, usize)>,
}

/// Agreement with a reference judge.
#[derive(Clone, Debug, PartialEq)]
pub struct ReferenceRow {
    /// The other judge.
    pub judge: u32,
    /// Agreement and Cohen's κ with the reference.
    pub cohen: Stat<Cohen>,
    /// This judge's pass rate minus the reference's on the answers both
    /// rated.
    pub rate_diff: Stat<f64>,
}

/// Everything `kld compare` reports.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The observations' names (questions, models, judges).
    pub obs: Observations,
    /// The options used.
    pub options: Options,
    /// Per answering model, every judge together.
    pub rates: Vec<RateRow>,
    /// Per answering model × judge (Karenina's template pass rate by
    /// combo).
    pub combos: Vec<RateRow>,
    /// Judges averaged, then per judge.
    pub pairs: Vec<PairRow>,
    /// Ranked models.
    pub ranking: Vec<Ranked>,
    /// Every answer, then per answering model.
    pub agreement: Vec<AgreementRow>,
    /// Judge × judge Cohen's κ (i < j).
    pub cohen: Vec<(u32, u32, Stat<Cohen>)>,
    /// Per judge.
    pub bias: Vec<(u32, Stat<Bias>)>,
    /// Against the reference judge, when one is named.
    pub reference: Option<(u32, Vec<ReferenceRow>)>,
    /// Hardest first.
    pub questions: Vec<Question>,
    /// Replicate disagreement.
    pub replicates: Replicates,
}

fn rate_row(obs: &Observations, model: u32, judge: Option<u32>, confidence: f64) -> RateRow {
    let mut count = Count::default();
    let mut scores = Vec::new();
    for o in obs
        .rows
        .iter()
        .filter(|o| o.model == model && judge.is_none_or(|j| o.judge == j))
    {
        count.add(o.passed());
        scores.push((o.score(), o.question));
    }
    RateRow {
        model,
        judge,
        count,
        wilson: interval::wilson(count, confidence),
        exact: interval::clopper_pearson(count, confidence),
        clustered: interval::clustered(&scores, confidence),
    }
}

/// (sum, rows) per (model, question) under one judge or all.
type Cells = HashMap<(u32, u32), (f64, usize)>;

fn cells(obs: &Observations, judge: Option<u32>) -> Cells {
    let mut c: Cells = HashMap::new();
    for o in obs
        .rows
        .iter()
        .filter(|o| judge.is_none_or(|j| o.judge == j))
    {
        let e = c.entry((o.model, o.question)).or_default();
        e.0 += o.score();
        e.1 += 1;
    }
    c
}

fn pair_row(c: &Cells, nq: u32, a: u32, b: u32, judge: Option<u32>, conf: f64) -> PairRow {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    let mut single = true;
    let (mut only_a, mut only_b) = (0u64, 0u64);
    for q in 0..nq {
        if let (Some(&(sa, na)), Some(&(sb, nb))) = (c.get(&(a, q)), c.get(&(b, q))) {
            x.push(sa / na as f64);
            y.push(sb / nb as f64);
            single &= na == 1 && nb == 1;
            only_a += u64::from(sa > sb);
            only_b += u64::from(sb > sa);
        }
    }
    PairRow {
        a,
        b,
        judge,
        paired: paired::paired(&x, &y, conf),
        discordant: (single && !x.is_empty()).then_some((only_a, only_b)),
        mcnemar: (single && !x.is_empty()).then(|| paired::mcnemar(only_a, only_b)),
        holm: None,
        bh: None,
    }
}

fn adjust(rows: &mut [PairRow]) {
    let idx: Vec<usize> = (0..rows.len())
        .filter(|&i| matches!(&rows[i].paired, Ok(p) if p.test.is_ok()))
        .collect();
    let p: Vec<f64> = idx
        .iter()
        .map(|&i| match &rows[i].paired {
            Ok(Paired { test: Ok(t), .. }) => t.p,
            _ => unreachable!("filtered above"),
        })
        .collect();
    let (h, b) = (paired::holm(&p), paired::benjamini_hochberg(&p));
    for (k, &i) in idx.iter().enumerate() {
        rows[i].holm = Some(h[k]);
        rows[i].bh = Some(b[k]);
    }
}

/// The answers and their ratings.
pub(crate) fn units(obs: &Observations) -> Vec<Unit> {
    let nj = obs.judges.len();
    let mut index: HashMap<(u32, u32, Option<i64>, u32), usize> = HashMap::new();
    let mut out: Vec<Unit> = Vec::new();
    for o in &obs.rows {
        let i = *index
            .entry((o.question, o.model, o.replicate, o.run))
            .or_insert_with(|| {
                out.push(Unit {
                    question: o.question,
                    model: o.model,
                    ratings: vec![None; nj],
                });
                out.len() - 1
            });
        // A judge rating the same answer twice keeps its first verdict.
        let slot = &mut out[i].ratings[o.judge as usize];
        if slot.is_none() {
            *slot = o.verdict.map(u32::from);
        }
    }
    out
}

fn agreement_row(units: &[Unit], model: Option<u32>) -> AgreementRow {
    let these: Vec<Unit> = units
        .iter()
        .filter(|u| model.is_none_or(|m| u.model == m))
        .cloned()
        .collect();
    AgreementRow {
        model,
        answers: these
            .iter()
            .filter(|u| u.ratings.iter().any(Option::is_some))
            .count(),
        percent: agreement::percent(&these),
        fleiss: agreement::fleiss(&these),
        alpha: agreement::krippendorff(&these),
    }
}

/// Every statistic of the observations.
pub fn compare(obs: Observations, options: Options) -> Result<Comparison, CompareError> {
    let conf = options.confidence;
    if !(conf > 0.0 && conf < 1.0) {
        return Err(CompareError::Confidence(conf));
    }
    let reference = match &options.reference_judge {
        None => None,
        Some(name) => Some(obs.judges.iter().position(|j| j == name).ok_or_else(|| {
            CompareError::UnknownJudge {
                name: name.clone(),
                known: obs.judges.join(", "),
            }
        })? as u32),
    };
    let (nm, nj, nq) = (
        obs.models.len() as u32,
        obs.judges.len() as u32,
        obs.questions.len() as u32,
    );
    let rates: Vec<RateRow> = (0..nm).map(|m| rate_row(&obs, m, None, conf)).collect();
    let mut combos = Vec::new();
    for m in 0..nm {
        for j in 0..nj {
            let r = rate_row(&obs, m, Some(j), conf);
            if r.count.n > 0 {
                combos.push(r);
            }
        }
    }
    // Models by their template pass rate (every judge), best first.
    let mut order: Vec<u32> = (0..nm).collect();
    order.sort_by(|&x, &y| {
        let r = |m: u32| rates[m as usize].count.rate().unwrap_or(-1.0);
        r(y).total_cmp(&r(x))
            .then_with(|| obs.models[x as usize].cmp(&obs.models[y as usize]))
    });
    let mut pairs = Vec::new();
    for judge in std::iter::once(None).chain((0..nj).map(Some)) {
        let c = cells(&obs, judge);
        let mut view: Vec<PairRow> = Vec::new();
        for (i, &a) in order.iter().enumerate() {
            for &b in &order[i + 1..] {
                view.push(pair_row(&c, nq, a, b, judge, conf));
            }
        }
        adjust(&mut view);
        pairs.extend(view);
    }
    let alpha = 1.0 - conf;
    let ranking = order
        .iter()
        .map(|&m| {
            let mut better = 0;
            let mut same_as = Vec::new();
            for p in pairs.iter().filter(|p| p.judge.is_none()) {
                let other = if p.a == m {
                    p.b
                } else if p.b == m {
                    p.a
                } else {
                    continue;
                };
                let diff = p.paired.as_ref().map_or(0.0, |x| x.diff);
                match p.holm {
                    Some(h) if h < alpha => {
                        let other_better = if p.a == other { diff > 0.0 } else { diff < 0.0 };
                        better += usize::from(other_better);
                    }
                    _ => same_as.push(other),
                }
            }
            Ranked {
                model: m,
                count: rates[m as usize].count,
                rank: 1 + better,
                same_as,
            }
        })
        .collect();
    let units = units(&obs);
    let mut agreement = vec![agreement_row(&units, None)];
    agreement.extend(order.iter().map(|&m| agreement_row(&units, Some(m))));
    let mut cohen = Vec::new();
    for i in 0..nj {
        for j in i + 1..nj {
            let pairs = agreement::pairs_of(&units, i as usize, j as usize);
            cohen.push((i, j, agreement::cohen(&pairs)));
        }
    }
    let bias = (0..nj)
        .map(|j| {
            let b = agreement::bias(&units, j as usize, conf, options.resamples, options.seed);
            (j, b)
        })
        .collect();
    let reference = reference.map(|r| {
        let rows = (0..nj)
            .filter(|&j| j != r)
            .map(|j| {
                let pairs = agreement::pairs_of(&units, j as usize, r as usize);
                let n = pairs.len() as f64;
                let rate_diff = if pairs.is_empty() {
                    super::nd("no answer both judges rated")
                } else {
                    Ok(pairs
                        .iter()
                        .map(|p| f64::from(p.0) - f64::from(p.1))
                        .sum::<f64>()
                        / n)
                };
                ReferenceRow {
                    judge: j,
                    cohen: agreement::cohen(&pairs),
                    rate_diff,
                }
            })
            .collect();
        (r, rows)
    });
    let questions = questions::questions(&obs);
    let replicates = questions::replicates(&obs);
    Ok(Comparison {
        obs,
        options,
        rates,
        combos,
        pairs,
        ranking,
        agreement,
        cohen,
        bias,
        reference,
        questions,
        replicates,
    })
}
