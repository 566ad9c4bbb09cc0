//! The question × model rates of one benchmark under one judge: each cell
//! the template pass rate of that model on that question (its replicates'
//! results whose template verification was performed), with row totals (a
//! question's rate over every model: its difficulty) and column totals (a
//! model's rate over every question: its cell of the grid under that
//! judge). The rows the matrix shows (one run, or the latest result per
//! question), so the heatmap, the matrix and the grid agree.

use crate::board::{one_benchmark, BoardData, Filter, Model, OneBenchmark};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Passed of n, and the rate (`None` for n = 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Count {
    /// Results with `verify_result` true among the n.
    pub passed: usize,
    /// Results whose template verification was performed.
    pub n: usize,
    /// `passed / n × 100`.
    pub rate: Option<f64>,
}

impl Count {
    fn add(&mut self, passed: bool) {
        self.n += 1;
        self.passed += usize::from(passed);
        self.rate = Some(self.passed as f64 / self.n as f64 * 100.0);
    }
}

/// One question's row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QuestionRow {
    /// The question ID.
    pub id: String,
    /// Its text, when the checkpoint holds it.
    pub text: Option<String>,
    /// One per model; `n` 0 where the model has no verified result.
    pub cells: Vec<Count>,
    /// Every model together: the question's rate (its difficulty).
    pub total: Count,
}

/// The question × model rates (see the module docs).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QuestionRates {
    /// The rate's name.
    pub rate: &'static str,
    /// The checkpoint graph (`None`: no results).
    pub checkpoint: Option<String>,
    /// Its benchmark's name.
    pub benchmark: String,
    /// The judge.
    pub judge: Option<String>,
    /// Whether cells hold the latest result per question across runs.
    pub latest: bool,
    /// The models (columns), by name.
    pub models: Vec<Model>,
    /// Their labels.
    pub labels: Vec<String>,
    /// Each model over every question: its template pass rate under the
    /// judge.
    pub totals: Vec<Count>,
    /// The questions, hardest first (lowest rate over every model; then by
    /// ID; questions without a rate last).
    pub questions: Vec<QuestionRow>,
}

/// The rates of the benchmark, judge and run `filter` names (the defaults
/// of [`crate::board::matrix`]: the first benchmark, its first
/// judge, the latest result per question when no run is chosen); `texts`
/// gives question texts by (checkpoint, ID).
pub fn question_rates(
    data: &BoardData,
    filter: &Filter,
    texts: &BTreeMap<(String, String), String>,
) -> QuestionRates {
    let OneBenchmark {
        checkpoint,
        judge,
        filter: f,
        ..
    } = one_benchmark(data, filter);
    let rows = f.apply(data);
    let models: Vec<Model> = rows
        .iter()
        .map(|r| Model {
            answering: r.answering.clone(),
            mcp: r.mcp.clone(),
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut by_q: BTreeMap<&str, (Vec<Count>, Count)> = BTreeMap::new();
    let mut totals = vec![Count::default(); models.len()];
    for r in &rows {
        let m = models
            .iter()
            .position(|m| m.answering == r.answering && m.mcp == r.mcp)
            .unwrap_or(0);
        let e = by_q
            .entry(r.question.as_str())
            .or_insert_with(|| (vec![Count::default(); models.len()], Count::default()));
        if r.performed == Some(true) {
            let pass = r.verify == Some(true);
            e.0[m].add(pass);
            e.1.add(pass);
            totals[m].add(pass);
        }
    }
    let mut questions: Vec<QuestionRow> = by_q
        .into_iter()
        .map(|(id, (cells, total))| QuestionRow {
            id: id.to_string(),
            text: checkpoint
                .as_ref()
                .and_then(|c| texts.get(&(c.clone(), id.to_string())).cloned()),
            cells,
            total,
        })
        .collect();
    questions.sort_by(|a, b| match (a.total.rate, b.total.rate) {
        (Some(x), Some(y)) => x.total_cmp(&y).then_with(|| a.id.cmp(&b.id)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.id.cmp(&b.id),
    });
    let benchmark = data
        .runs
        .iter()
        .find(|r| Some(&r.checkpoint) == checkpoint.as_ref())
        .map(|r| r.benchmark.clone())
        .unwrap_or_default();
    QuestionRates {
        rate: super::RATE_NAME,
        checkpoint,
        benchmark,
        judge,
        latest: f.latest,
        labels: models.iter().map(super::model_label).collect(),
        models,
        totals,
        questions,
    }
}

#[cfg(test)]
mod tests {
    use super::super::judge_grid::tests::data;
    use super::question_rates;
    use crate::board::{leaderboard, Filter};

    #[test]
    fn column_totals_are_the_grid_s_cells_and_rows_go_hardest_first() {
        let d = data();
        let q = question_rates(&d, &Filter::default(), &Default::default());
        assert_eq!(q.judge.as_deref(), Some("lc:j1"));
        assert_eq!(q.benchmark, "Bench #1");
        // j1: q3 is passed by b only (1 of 2): hardest.
        assert_eq!(q.questions[0].id, "q3");
        assert_eq!(q.questions[0].total.rate, Some(50.0));
        let b = leaderboard(
            &d,
            &Filter {
                judge: Some("lc:j1".into()),
                ..Filter::default()
            },
        );
        for c in &b.cells {
            let m = q
                .models
                .iter()
                .position(|m| *m == b.models[c.model])
                .unwrap();
            assert_eq!((q.totals[m].passed, q.totals[m].n), (c.passed, c.total));
            assert_eq!(q.totals[m].rate, c.pass_pct);
        }
    }
}
