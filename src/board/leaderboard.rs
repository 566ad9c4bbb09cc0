//! The leaderboard: answering models (with their MCP servers) × benchmark
//! columns (one per run, or one per benchmark over the latest results),
//! one cell per judge.

use super::{BoardData, Filter, ResultRow, OUTCOMES};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A column: a benchmark over one run, or (latest) over all its runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Column {
    /// The checkpoint graph.
    pub checkpoint: String,
    /// Its benchmark's name.
    pub benchmark: String,
    /// The run (results graph); `None` for the latest results of all runs.
    pub run: Option<String>,
    /// That run's name (Karenina's), when one run.
    pub run_name: Option<String>,
    /// That run's labels.
    pub labels: Vec<String>,
}

/// A row: an answering model and its MCP servers (Karenina's combo without
/// the judge).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Model {
    /// The answering model's display string.
    pub answering: String,
    /// Its MCP servers, sorted.
    pub mcp: Vec<String>,
}

/// One judge's numbers for one model in one column.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// Index into [`Leaderboard::columns`].
    pub column: usize,
    /// Index into [`Leaderboard::models`].
    pub model: usize,
    /// The judge (parsing model display string).
    pub judge: String,
    /// Karenina's combo string.
    pub combo: String,
    /// Karenina's `template_pass_by_combo` total: the results whose template
    /// verification was performed (the rate's n).
    pub total: usize,
    /// Of those, `verify_result` true.
    pub passed: usize,
    /// `passed / total × 100`, as Karenina's `pass_pct`; `None` when
    /// `total` is 0 or some results cannot tell (see `undetermined`).
    pub pass_pct: Option<f64>,
    /// Every result of the combo in the column.
    pub results: usize,
    /// The distinct questions among them.
    pub questions: usize,
    /// The largest number of times one (question, replicate) is counted:
    /// 1, unless a column pooled two runs.
    pub most_per_question: usize,
    /// Results per outcome (`passed`, `content`, `abstained`, `autofail`,
    /// `retry`, `system`, `no_verdict`), every outcome present.
    pub outcomes: BTreeMap<String, usize>,
    /// Results whose file does not record whether template verification was
    /// performed (a CSV export's empty `verify_result`).
    pub undetermined: usize,
}

/// The judges' rates side by side for one model and column: never a pooled
/// count, their mean and spread.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Spread {
    /// Index into [`Leaderboard::columns`].
    pub column: usize,
    /// Index into [`Leaderboard::models`].
    pub model: usize,
    /// The judges with a rate.
    pub judges: usize,
    /// The mean of their `pass_pct`.
    pub mean: f64,
    /// The sample standard deviation (`None` for one judge).
    pub sd: Option<f64>,
    /// The lowest and highest.
    pub min: f64,
    /// See `min`.
    pub max: f64,
}

/// The leaderboard under a [`Filter`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Leaderboard {
    /// Every judge in the data (before the judge filter), for a selector.
    pub judges: Vec<String>,
    /// Every run label in the data.
    pub labels: Vec<String>,
    /// Whether columns hold the latest result per question.
    pub latest: bool,
    /// The columns, by benchmark name, then run name.
    pub columns: Vec<Column>,
    /// The rows, by answering model.
    pub models: Vec<Model>,
    /// One per (column, model, judge) with results.
    pub cells: Vec<Cell>,
    /// One per (column, model) with at least one judge's rate.
    pub spreads: Vec<Spread>,
    /// Which keys hold which named rate ([`crate::numbers::names`]): a
    /// cell's `pass_pct` is the template pass rate, a spread's `mean` the
    /// mean of judges' template pass rates.
    pub rate_names: serde_json::Value,
}

/// The leaderboard's [`Leaderboard::rate_names`].
pub fn rate_names() -> serde_json::Value {
    use crate::numbers::names::{rate_names, JUDGES_MEAN, TEMPLATE_PASS_RATE};
    rate_names(&[
        ("cells[].pass_pct", &TEMPLATE_PASS_RATE),
        ("spreads[].mean", &JUDGES_MEAN),
        ("spreads[].min", &TEMPLATE_PASS_RATE),
        ("spreads[].max", &TEMPLATE_PASS_RATE),
    ])
}

/// Folds `data` into the leaderboard `filter` asks for.
pub fn leaderboard(data: &BoardData, filter: &Filter) -> Leaderboard {
    let judges: BTreeSet<&str> = data.rows.iter().map(|r| r.parsing.as_str()).collect();
    let labels: BTreeSet<&str> = data
        .runs
        .iter()
        .flat_map(|r| r.labels.iter().map(String::as_str))
        .collect();
    let rows = filter.apply(data);
    let runs: HashMap<&str, &super::RunInfo> =
        data.runs.iter().map(|r| (r.graph.as_str(), r)).collect();
    // Column key: (benchmark name, checkpoint, run name, run graph).
    type ColKey = (String, String, String, String);
    let col_key = |r: &ResultRow| -> ColKey {
        let run = runs.get(r.run.as_str());
        let bench = run.map(|x| x.benchmark.clone()).unwrap_or_default();
        if filter.latest {
            (bench, r.checkpoint.clone(), String::new(), String::new())
        } else {
            let name = run.map(|x| x.run_name.clone()).unwrap_or_default();
            (bench, r.checkpoint.clone(), name, r.run.clone())
        }
    };
    let mut groups: BTreeMap<(ColKey, Model, String), Vec<&ResultRow>> = BTreeMap::new();
    for r in rows {
        let model = Model {
            answering: r.answering.clone(),
            mcp: r.mcp.clone(),
        };
        groups
            .entry((col_key(r), model, r.parsing.clone()))
            .or_default()
            .push(r);
    }
    let col_keys: BTreeSet<&ColKey> = groups.keys().map(|(c, _, _)| c).collect();
    let model_keys: BTreeSet<&Model> = groups.keys().map(|(_, m, _)| m).collect();
    let columns: Vec<Column> = col_keys
        .iter()
        .map(|(bench, cp, name, run)| Column {
            checkpoint: cp.clone(),
            benchmark: bench.clone(),
            run: (!run.is_empty()).then(|| run.clone()),
            run_name: (!run.is_empty()).then(|| name.clone()),
            labels: runs
                .get(run.as_str())
                .map(|r| r.labels.clone())
                .unwrap_or_default(),
        })
        .collect();
    let col_index: HashMap<&ColKey, usize> =
        col_keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    let model_index: HashMap<&Model, usize> = model_keys
        .iter()
        .enumerate()
        .map(|(i, k)| (*k, i))
        .collect();
    let mut cells = Vec::new();
    for ((ck, model, judge), rows) in &groups {
        cells.push(cell(col_index[ck], model_index[model], judge, rows));
    }
    let mut spreads = Vec::new();
    let mut by_pair: BTreeMap<(usize, usize), Vec<f64>> = BTreeMap::new();
    for c in &cells {
        if let Some(p) = c.pass_pct {
            by_pair.entry((c.column, c.model)).or_default().push(p);
        }
    }
    for ((column, model), rates) in by_pair {
        let n = rates.len() as f64;
        let mean = rates.iter().sum::<f64>() / n;
        let sd = (rates.len() > 1)
            .then(|| (rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt());
        spreads.push(Spread {
            column,
            model,
            judges: rates.len(),
            mean,
            sd,
            min: rates.iter().copied().fold(f64::INFINITY, f64::min),
            max: rates.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        });
    }
    Leaderboard {
        judges: judges.into_iter().map(str::to_string).collect(),
        labels: labels.into_iter().map(str::to_string).collect(),
        latest: filter.latest,
        columns,
        models: model_keys.into_iter().cloned().collect(),
        cells,
        spreads,
        rate_names: rate_names(),
    }
}

fn cell(column: usize, model: usize, judge: &str, rows: &[&ResultRow]) -> Cell {
    let total = rows.iter().filter(|r| r.performed == Some(true)).count();
    let passed = rows
        .iter()
        .filter(|r| r.performed == Some(true) && r.verify == Some(true))
        .count();
    let undetermined = rows.iter().filter(|r| r.performed.is_none()).count();
    let mut outcomes: BTreeMap<String, usize> =
        OUTCOMES.iter().map(|o| (o.to_string(), 0)).collect();
    for r in rows {
        *outcomes.entry(r.outcome.clone()).or_default() += 1;
    }
    let mut per_question: HashMap<(&str, Option<i64>), usize> = HashMap::new();
    for r in rows {
        *per_question.entry((&r.question, r.replicate)).or_default() += 1;
    }
    let questions: BTreeSet<&str> = rows.iter().map(|r| r.question.as_str()).collect();
    Cell {
        column,
        model,
        judge: judge.to_string(),
        combo: rows[0].combo(),
        total,
        passed,
        pass_pct: (total > 0 && undetermined == 0).then(|| passed as f64 / total as f64 * 100.0),
        results: rows.len(),
        questions: questions.len(),
        most_per_question: per_question.values().copied().max().unwrap_or(0),
        outcomes,
        undetermined,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BoardData, Filter, ResultRow, RunInfo};
    use super::leaderboard;

    fn row(run: &str, q: &str, judge: &str, rep: i64, ts: &str, outcome: &str) -> ResultRow {
        let passed = outcome == "passed";
        ResultRow {
            run: run.into(),
            checkpoint: "cp".into(),
            question: q.into(),
            answering: "langchain:a".into(),
            parsing: judge.into(),
            mcp: vec![],
            replicate: Some(rep),
            timestamp: ts.into(),
            verify: (outcome != "retry").then_some(passed),
            performed: Some(matches!(outcome, "passed" | "content")),
            outcome: outcome.into(),
        }
    }

    fn data() -> BoardData {
        let run = |g: &str, label: &str| RunInfo {
            graph: g.into(),
            run_name: format!("name-{g}"),
            checkpoint: "cp".into(),
            benchmark: "B".into(),
            exported: String::new(),
            labels: vec![label.into()],
        };
        BoardData {
            runs: vec![run("r1", "regime=mcp"), run("r2", "regime=none")],
            rows: vec![
                row("r1", "q1", "j1", 1, "2026-01-01 00:00:01", "passed"),
                row("r1", "q2", "j1", 1, "2026-01-01 00:00:02", "content"),
                row("r1", "q3", "j1", 1, "2026-01-01 00:00:03", "retry"),
                row("r1", "q1", "j2", 1, "2026-01-01 00:00:04", "content"),
                row("r2", "q1", "j1", 1, "2026-01-02 00:00:01", "content"),
            ],
        }
    }

    #[test]
    fn judges_and_runs_are_never_pooled_and_retries_are_not_wrong_answers() {
        let b = leaderboard(&data(), &Filter::default());
        assert_eq!(b.columns.len(), 2);
        assert_eq!(b.judges, ["j1", "j2"]);
        // r1 under j1: 1 of 2 (the retry is outside the denominator).
        let c = b
            .cells
            .iter()
            .find(|c| c.judge == "j1" && b.columns[c.column].run.as_deref() == Some("r1"))
            .unwrap();
        assert_eq!((c.passed, c.total, c.results), (1, 2, 3));
        assert_eq!(c.pass_pct, Some(50.0));
        assert_eq!((c.outcomes["retry"], c.outcomes["content"]), (1, 1));
        assert_eq!(c.most_per_question, 1);
        // r1: j1 50 %, j2 0 %: a spread, not a pooled 1/3.
        let s = b
            .spreads
            .iter()
            .find(|s| b.columns[s.column].run.as_deref() == Some("r1"))
            .unwrap();
        assert_eq!((s.judges, s.mean, s.min, s.max), (2, 25.0, 0.0, 50.0));
        assert!((s.sd.unwrap() - 1250f64.sqrt()).abs() < 1e-9);
    }

    #[test]
    fn latest_keeps_one_result_per_question_and_labels_filter_runs() {
        let latest = Filter {
            judge: Some("j1".into()),
            latest: true,
            ..Filter::default()
        };
        let b = leaderboard(&data(), &latest);
        assert_eq!(b.columns.len(), 1);
        assert_eq!(b.cells.len(), 1);
        let c = &b.cells[0];
        // q1 from r2 (later), q2 and q3 from r1.
        assert_eq!(
            (c.passed, c.total, c.results, c.most_per_question),
            (0, 2, 3, 1)
        );
        let labelled = Filter {
            label: Some("regime=none".into()),
            ..Filter::default()
        };
        let b = leaderboard(&data(), &labelled);
        assert_eq!(b.labels, ["regime=mcp", "regime=none"]);
        assert_eq!(b.cells.len(), 1);
        assert_eq!(b.columns[0].run.as_deref(), Some("r2"));
    }
}
