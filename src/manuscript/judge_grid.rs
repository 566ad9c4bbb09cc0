//! The leaderboard as grids: one per column of the board (a benchmark over
//! one run, or over the latest result per question), answering models as
//! rows, judges as columns, then the judges' mean.

use crate::board::{leaderboard, BoardData, Column, Filter, Model};
use serde::Serialize;
use std::collections::BTreeMap;

/// A confidence interval on a rate, in percent, as [`crate::stats`]
/// computes it (the manuscript module's `intervals` says which one); `None`
/// where the statistic is not defined, and nothing prints one then.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Interval {
    /// Lower bound (percent).
    pub lower: f64,
    /// Upper bound (percent).
    pub upper: f64,
    /// The confidence level (0.95).
    pub level: f64,
    /// Its name: `Wilson` or `question-clustered t` (the manuscript
    /// module's `intervals`).
    pub method: &'static str,
}

/// One judge's rate for one model: the board's cell, unchanged.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GridCell {
    /// Karenina's combo string.
    pub combo: String,
    /// Results with `verify_result` true among the n.
    pub passed: usize,
    /// n: the results whose template verification was performed.
    pub n: usize,
    /// `passed / n × 100`; `None` when there is no rate (n = 0, or a CSV
    /// that cannot tell).
    pub rate: Option<f64>,
    /// The interval on the rate, once the statistics layer gives one.
    pub interval: Option<Interval>,
    /// Every result of the combo here (any outcome).
    pub results: usize,
    /// The distinct questions among them.
    pub questions: usize,
    /// The most times one (question, replicate) is counted: 1.
    pub most_per_question: usize,
    /// Results per outcome (the board's [`crate::board::OUTCOMES`]).
    pub outcomes: BTreeMap<String, usize>,
}

/// The judges' mean for one model: the board's spread, unchanged.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JudgeMean {
    /// The judges with a rate (the mean's n).
    pub judges: usize,
    /// The unweighted mean of their rates (percent).
    pub mean: f64,
    /// Their sample standard deviation (points; `None` for one judge).
    pub sd: Option<f64>,
    /// The lowest judge's rate.
    pub min: f64,
    /// The highest judge's rate.
    pub max: f64,
    /// The interval on the mean, once the statistics layer gives one.
    pub interval: Option<Interval>,
}

/// One answering model's row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GridRow {
    /// The answering model and its MCP servers.
    pub model: Model,
    /// Its label (`super::model_label`).
    pub label: String,
    /// One per [`Grid::judges`], `None` where that judge has no results.
    pub cells: Vec<Option<GridCell>>,
    /// The judges' mean, `None` when no judge has a rate.
    pub mean: Option<JudgeMean>,
}

/// One column of the leaderboard as a model × judge grid.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Grid {
    /// The rate's name (`super::RATE_NAME`).
    pub rate: &'static str,
    /// Its definition (`super::RATE_DEFINITION`).
    pub definition: &'static str,
    /// What the mean is (`super::MEAN_DEFINITION`).
    pub mean_definition: &'static str,
    /// The benchmark and run the grid covers.
    pub column: Column,
    /// The judges (parsing models) with results here, in the board's order.
    pub judges: Vec<String>,
    /// The interval the cells carry (`Wilson` when no question repeats in
    /// a cell, else `question-clustered t`); `None` when no cell has one.
    pub cell_interval: Option<&'static str>,
    /// The interval the means carry (`question-clustered t`), or `None`.
    pub mean_interval: Option<&'static str>,
    /// The rows, highest mean first (rows without a rate last, then by
    /// name).
    pub rows: Vec<GridRow>,
}

impl Grid {
    /// The smallest and largest n over the grid's cells with a rate.
    pub fn n_range(&self) -> Option<(usize, usize)> {
        let ns = self.cells().filter(|c| c.rate.is_some()).map(|c| c.n);
        let v: Vec<usize> = ns.collect();
        Some((*v.iter().min()?, *v.iter().max()?))
    }

    /// The smallest and largest rate (cells and means): the colour scale's
    /// range.
    pub fn rate_range(&self) -> Option<(f64, f64)> {
        let v: Vec<f64> = self
            .cells()
            .filter_map(|c| c.rate)
            .chain(
                self.rows
                    .iter()
                    .filter_map(|r| r.mean.as_ref().map(|m| m.mean)),
            )
            .collect();
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lo <= hi).then_some((lo, hi))
    }

    /// Every cell with results.
    pub fn cells(&self) -> impl Iterator<Item = &GridCell> {
        self.rows.iter().flat_map(|r| r.cells.iter().flatten())
    }

    /// The grid's title: the benchmark, then the run (or "latest result per
    /// question"), then its labels.
    pub fn title(&self) -> String {
        let mut t = self.column.benchmark.clone();
        match &self.column.run_name {
            Some(r) if !r.is_empty() => t.push_str(&format!(", run {r}")),
            _ if self.column.run.is_none() => t.push_str(", latest result per question"),
            _ => {}
        }
        if !self.column.labels.is_empty() {
            t.push_str(&format!(" ({})", self.column.labels.join(", ")));
        }
        t
    }
}

/// The leaderboard `filter` asks of `data` as grids, intervals not filled
/// (`super::grids` fills them).
pub(super) fn arrange(data: &BoardData, filter: &Filter) -> Vec<Grid> {
    let board = &leaderboard(data, filter);
    (0..board.columns.len())
        .map(|col| {
            let cells: Vec<_> = board.cells.iter().filter(|c| c.column == col).collect();
            let judges: Vec<String> = board
                .judges
                .iter()
                .filter(|j| cells.iter().any(|c| &c.judge == *j))
                .cloned()
                .collect();
            let mut rows: Vec<GridRow> = board
                .models
                .iter()
                .enumerate()
                .filter(|(m, _)| cells.iter().any(|c| c.model == *m))
                .map(|(m, model)| GridRow {
                    model: model.clone(),
                    label: super::model_label(model),
                    cells: judges
                        .iter()
                        .map(|j| {
                            cells
                                .iter()
                                .find(|c| c.model == m && &c.judge == j)
                                .map(|c| GridCell {
                                    combo: c.combo.clone(),
                                    passed: c.passed,
                                    n: c.total,
                                    rate: c.pass_pct,
                                    interval: None,
                                    results: c.results,
                                    questions: c.questions,
                                    most_per_question: c.most_per_question,
                                    outcomes: c.outcomes.clone(),
                                })
                        })
                        .collect(),
                    mean: board
                        .spreads
                        .iter()
                        .find(|s| s.column == col && s.model == m)
                        .map(|s| JudgeMean {
                            judges: s.judges,
                            mean: s.mean,
                            sd: s.sd,
                            min: s.min,
                            max: s.max,
                            interval: None,
                        }),
                })
                .collect();
            rows.sort_by(|a, b| {
                let key = |r: &GridRow| r.mean.as_ref().map(|m| -m.mean);
                match (key(a), key(b)) {
                    (Some(x), Some(y)) => x.total_cmp(&y),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                }
                .then_with(|| a.label.cmp(&b.label))
            });
            Grid {
                rate: super::RATE_NAME,
                definition: super::RATE_DEFINITION,
                mean_definition: super::MEAN_DEFINITION,
                column: board.columns[col].clone(),
                judges,
                cell_interval: None,
                mean_interval: None,
                rows,
            }
        })
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::grids;
    use crate::board::{leaderboard, BoardData, Filter, ResultRow, RunInfo};

    /// Two models, two judges, one run; model b has no results under j2.
    pub(crate) fn data() -> BoardData {
        let row = |q: &str, a: &str, j: &str, rep: i64, pass: bool| ResultRow {
            run: "urn:run".into(),
            checkpoint: "urn:cp".into(),
            question: q.into(),
            answering: a.into(),
            parsing: j.into(),
            mcp: vec![],
            replicate: Some(rep),
            timestamp: "2026-01-01 00:00:00".into(),
            verify: Some(pass),
            performed: Some(true),
            outcome: if pass { "passed" } else { "content" }.into(),
        };
        BoardData {
            runs: vec![RunInfo {
                graph: "urn:run".into(),
                run_name: "paper & co_1".into(),
                checkpoint: "urn:cp".into(),
                benchmark: "Bench #1".into(),
                exported: String::new(),
                labels: vec![],
            }],
            rows: vec![
                row("q1", "lc:a", "lc:j1", 1, true),
                row("q2", "lc:a", "lc:j1", 1, true),
                row("q3", "lc:a", "lc:j1", 1, false),
                row("q1", "lc:a", "lc:j2", 1, false),
                row("q2", "lc:a", "lc:j2", 1, false),
                row("q3", "lc:a", "lc:j2", 1, true),
                row("q1", "lc:b_%", "lc:j1", 1, true),
                row("q2", "lc:b_%", "lc:j1", 1, true),
                row("q3", "lc:b_%", "lc:j1", 1, true),
            ],
        }
    }

    #[test]
    fn a_grid_holds_the_board_s_cells_by_model_and_judge_best_mean_first() {
        let b = leaderboard(&data(), &Filter::default());
        let g = grids(&data(), &Filter::default(), 0.95);
        assert_eq!(g.len(), 1);
        let g = &g[0];
        assert_eq!(g.judges, ["lc:j1", "lc:j2"]);
        assert_eq!(g.rows[0].label, "lc:b_%");
        assert_eq!(g.rows[0].mean.as_ref().unwrap().mean, 100.0);
        assert!(g.rows[0].cells[1].is_none());
        let a = &g.rows[1];
        let (j1, j2) = (a.cells[0].as_ref().unwrap(), a.cells[1].as_ref().unwrap());
        assert_eq!((j1.passed, j1.n, j2.passed, j2.n), (2, 3, 1, 3));
        assert!((a.mean.as_ref().unwrap().mean - 50.0).abs() < 1e-9);
        assert_eq!(g.n_range(), Some((3, 3)));
        let (lo, hi) = g.rate_range().unwrap();
        assert!((lo - 100.0 / 3.0).abs() < 1e-12 && hi == 100.0);
        assert_eq!(g.title(), "Bench #1, run paper & co_1");
        // Every board cell is in the grid once, with the same numbers.
        assert_eq!(g.cells().count(), b.cells.len());
        for c in &b.cells {
            assert!(g
                .cells()
                .any(|x| x.combo == c.combo && x.rate == c.pass_pct && x.n == c.total));
        }
    }
}
