//! Which interval a grid prints, and filling it from the statistics layer
//! ([`crate::stats::interval`]), by the rule of docs/numbers.md ("Which
//! interval where"), so a grid's interval is the one `kld compare` gives
//! for the same rows:
//! - a cell (one answering model under one judge) whose rows are one per
//!   question gets the **Wilson** interval (`kld info`'s and `kld
//!   compare`'s `wilson_low`/`wilson_high`);
//! - when a question repeats in a cell (replicates), every cell of that
//!   grid gets the **question-clustered t interval** (`kld compare`'s
//!   `t_low`/`t_high` of the combo);
//! - the judges' mean gets the question-clustered t interval over the
//!   model's rows under every judge (`kld compare`'s per-model row), where
//!   that rate is the mean of the judges' rates (every judge has the same
//!   n); otherwise no interval (one judge: the cell's).

use super::judge_grid::{Grid, Interval};
use crate::board::{BoardData, Filter, Model, ResultRow};
use crate::stats::{interval, Count};
use std::collections::{BTreeMap, HashMap};

/// The Wilson score interval's name.
pub const WILSON: &str = "Wilson";

/// The question-clustered standard error's t interval's name.
pub const CLUSTERED: &str = "question-clustered t";

/// Scores (1 passed, 0 not) with their question, of one cell.
type Scores = Vec<(f64, u32)>;

/// A column's key as the grid names it: (checkpoint, run; `None` latest).
type ColumnKey = (String, Option<String>);

fn scores_by_cell<'a>(
    rows: &[&'a ResultRow],
    latest: bool,
) -> HashMap<(ColumnKey, Model, &'a str), Scores> {
    let mut ids: HashMap<&str, u32> = HashMap::new();
    let mut out: HashMap<(ColumnKey, Model, &str), Scores> = HashMap::new();
    for r in rows.iter().filter(|r| r.performed == Some(true)) {
        let n = ids.len() as u32;
        let q = *ids.entry(r.question.as_str()).or_insert(n);
        let col = (r.checkpoint.clone(), (!latest).then(|| r.run.clone()));
        let model = Model {
            answering: r.answering.clone(),
            mcp: r.mcp.clone(),
        };
        out.entry((col, model, r.parsing.as_str()))
            .or_default()
            .push((f64::from(u8::from(r.verify == Some(true))), q));
    }
    out
}

fn percent(i: interval::Interval, level: f64, method: &'static str) -> Interval {
    Interval {
        lower: i.low * 100.0,
        upper: i.high * 100.0,
        level,
        method,
    }
}

fn repeats(s: &Scores) -> bool {
    let mut seen = std::collections::HashSet::new();
    s.iter().any(|(_, q)| !seen.insert(*q))
}

/// Fills every cell's and mean's interval of `grids` (made of `data` under
/// `filter`) at `confidence`.
pub(super) fn fill(grids: &mut [Grid], data: &BoardData, filter: &Filter, confidence: f64) {
    let rows = filter.apply(data);
    let cells = scores_by_cell(&rows, filter.latest);
    for g in grids.iter_mut() {
        let col: ColumnKey = (g.column.checkpoint.clone(), g.column.run.clone());
        let here: BTreeMap<(usize, usize), &Scores> = g
            .rows
            .iter()
            .enumerate()
            .flat_map(|(ri, r)| {
                let cells = &cells;
                let col = &col;
                g.judges.iter().enumerate().filter_map(move |(ji, j)| {
                    cells
                        .get(&(col.clone(), r.model.clone(), j.as_str()))
                        .map(|s| ((ri, ji), s))
                })
            })
            .collect();
        let clustered = here.values().any(|s| repeats(s));
        let method = if clustered { CLUSTERED } else { WILSON };
        for ((ri, ji), s) in &here {
            let Some(cell) = g.rows[*ri].cells[*ji].as_mut() else {
                continue;
            };
            if cell.rate.is_none() {
                continue;
            }
            cell.interval = if clustered {
                interval::clustered(s, confidence)
                    .ok()
                    .map(|c| percent(c.interval, confidence, CLUSTERED))
            } else {
                let mut c = Count::default();
                for (x, _) in s.iter() {
                    c.add(*x > 0.5);
                }
                interval::wilson(c, confidence)
                    .ok()
                    .map(|i| percent(i, confidence, WILSON))
            };
            if cell.interval.is_some() {
                g.cell_interval = Some(method);
            }
        }
        for (ri, r) in g.rows.iter_mut().enumerate() {
            let Some(m) = r.mean.as_mut() else { continue };
            let mine: Vec<&Scores> = here
                .iter()
                .filter(|((i, _), _)| *i == ri)
                .map(|(_, s)| *s)
                .collect();
            if m.judges == 1 {
                m.interval = r
                    .cells
                    .iter()
                    .flatten()
                    .find_map(|c| c.rate.and(c.interval.clone()));
                continue;
            }
            let all: Scores = mine.iter().flat_map(|s| s.iter().copied()).collect();
            let pooled = all.iter().map(|x| x.0).sum::<f64>() / all.len().max(1) as f64 * 100.0;
            let rated = r
                .cells
                .iter()
                .flatten()
                .filter(|c| c.rate.is_some())
                .count();
            // Only where the judges' mean is the rate of their rows together
            // (every judge the same n): otherwise no interval is its own.
            if rated != mine.len() || (pooled - m.mean).abs() > 1e-9 {
                continue;
            }
            m.interval = interval::clustered(&all, confidence)
                .ok()
                .map(|c| percent(c.interval, confidence, CLUSTERED));
            if m.interval.is_some() {
                g.mean_interval = Some(CLUSTERED);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::grids;
    use super::super::judge_grid::tests::data;
    use crate::board::Filter;
    use crate::stats::{interval, Count};

    #[test]
    fn cells_get_wilson_and_means_the_clustered_interval_of_stats() {
        let g = &grids(&data(), &Filter::default(), 0.95)[0];
        assert_eq!(g.cell_interval, Some(super::WILSON));
        assert_eq!(g.mean_interval, Some(super::CLUSTERED));
        // lc:a under lc:j1: 2 of 3.
        let a = g.rows.iter().find(|r| r.label == "lc:a").unwrap();
        let c = a.cells[0].as_ref().unwrap();
        let want = interval::wilson(Count { passed: 2, n: 3 }, 0.95).unwrap();
        let got = c.interval.as_ref().unwrap();
        assert!((got.lower - want.low * 100.0).abs() < 1e-9);
        assert!((got.upper - want.high * 100.0).abs() < 1e-9);
        // lc:a's mean: j1 (1, 1, 0) and j2 (0, 0, 1) clustered by question.
        let scores = [(1.0, 0), (1.0, 1), (0.0, 2), (0.0, 0), (0.0, 1), (1.0, 2)];
        let want = interval::clustered(&scores, 0.95).unwrap().interval;
        let got = a.mean.as_ref().unwrap().interval.as_ref().unwrap();
        assert!((got.lower - want.low * 100.0).abs() < 1e-9, "{got:?}");
        // lc:b_% has one judge: its mean's interval is its cell's.
        let b = g.rows.iter().find(|r| r.label == "lc:b_%").unwrap();
        assert_eq!(
            b.mean.as_ref().unwrap().interval,
            b.cells[0].as_ref().unwrap().interval
        );
    }
}
