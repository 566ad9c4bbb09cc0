//! The question × model (× replicate) matrix of one benchmark under one
//! judge, as Karenina's GUI shows it: each result's outcome in its place.

use super::{BoardData, Filter, Model};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// A question of the matrix.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatrixQuestion {
    /// Its ID.
    pub id: String,
    /// Its text, when the checkpoint holds it.
    pub text: Option<String>,
}

/// One result in the matrix.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatrixCell {
    /// Index into [`Matrix::questions`].
    pub question: usize,
    /// Index into [`Matrix::models`].
    pub model: usize,
    /// The replicate (`None`: a single-replicate run).
    pub replicate: Option<i64>,
    /// The outcome (`passed`, a failure group, `no_verdict`).
    pub outcome: String,
    /// `verify_result`.
    pub verify: Option<bool>,
    /// The run (results graph) it comes from.
    pub run: String,
}

/// The matrix of one benchmark under one judge.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Matrix {
    /// The checkpoint graph shown (`None`: no results at all).
    pub checkpoint: Option<String>,
    /// The judge shown.
    pub judge: Option<String>,
    /// The judges there are, for a selector.
    pub judges: Vec<String>,
    /// The benchmarks there are (checkpoint graphs), for a selector.
    pub checkpoints: Vec<String>,
    /// Whether cells are the latest result per question across runs (else
    /// the run chosen, which is required to be one).
    pub latest: bool,
    /// The questions, by ID.
    pub questions: Vec<MatrixQuestion>,
    /// The models (columns).
    pub models: Vec<Model>,
    /// The replicates present (sub-columns).
    pub replicates: Vec<Option<i64>>,
    /// One per result shown.
    pub cells: Vec<MatrixCell>,
}

/// The matrix `filter` asks for: its benchmark (default: the first with
/// results), its judge (default: the first of that benchmark), then its run,
/// or the latest result per question when no run is chosen (a question is
/// never shown twice). `texts` gives question texts by (checkpoint, ID).
pub fn matrix(
    data: &BoardData,
    filter: &Filter,
    texts: &BTreeMap<(String, String), String>,
) -> Matrix {
    let super::OneBenchmark {
        checkpoint,
        judge,
        checkpoints,
        judges,
        filter: f,
    } = super::one_benchmark(data, filter);
    let rows = f.apply(data);
    let ids: BTreeSet<&str> = rows.iter().map(|r| r.question.as_str()).collect();
    let questions: Vec<MatrixQuestion> = ids
        .iter()
        .map(|id| MatrixQuestion {
            id: id.to_string(),
            text: checkpoint
                .as_ref()
                .and_then(|c| texts.get(&(c.clone(), id.to_string())).cloned()),
        })
        .collect();
    let models: BTreeSet<Model> = rows
        .iter()
        .map(|r| Model {
            answering: r.answering.clone(),
            mcp: r.mcp.clone(),
        })
        .collect();
    let models: Vec<Model> = models.into_iter().collect();
    let replicates: BTreeSet<Option<i64>> = rows.iter().map(|r| r.replicate).collect();
    let qi = |q: &str| ids.iter().position(|x| *x == q).unwrap_or(0);
    let mi = |r: &super::ResultRow| {
        models
            .iter()
            .position(|m| m.answering == r.answering && m.mcp == r.mcp)
            .unwrap_or(0)
    };
    let cells = rows
        .iter()
        .map(|r| MatrixCell {
            question: qi(&r.question),
            model: mi(r),
            replicate: r.replicate,
            outcome: r.outcome.clone(),
            verify: r.verify,
            run: r.run.clone(),
        })
        .collect();
    Matrix {
        checkpoint,
        judge,
        judges,
        checkpoints,
        latest: f.latest,
        questions,
        models,
        replicates: replicates.into_iter().collect(),
        cells,
    }
}
