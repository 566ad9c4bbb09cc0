//! `GET /compare` (`docs/serving.md`): `kld compare` of one run the server
//! holds, behind the page's "Compare models" section and its download
//! links (`page/compare.js`). The run is chosen by the board's filters
//! (`run`, `benchmark`, `label`); several runs are never pooled, so a
//! filter that leaves several answers 400 naming them. `format=` is
//! `json`, `csv`, `markdown`, `latex` or `html`, `table=` one of `kld
//! compare --table`'s, `digits=`, `hardest=`, `confidence=`; `figure=forest`
//! or `kappa` draws a figure (`format=svg` or `csv`, `judge=` the forest's
//! judge). The numbers are [`karenina_ld::manuscript::compare_run`]'s over
//! the server's results table: the bytes `kld compare` writes for the
//! run's file.
//!
//! Why a module of its own: the grid and figure routes (`figures`) arrange
//! the board; this one the statistics of one run, with its own choice of
//! run and its own memo (a paper-size comparison is computed once per store
//! generation, not once per table and figure the page asks for).

use super::app::{pairs, App};
use super::board::filter;
use super::{Answer, State};
use axum::extract::{RawQuery, State as AxState};
use axum::response::Response;
use karenina_ld::manuscript::{self, Digits, RunCompareError};
use karenina_ld::stats::{formats::Table as Which, Comparison, Options};
use karenina_ld::table::Table;
use std::sync::{Arc, Mutex, Weak};

/// The compare section's script.
pub(super) const COMPARE_JS: &str = include_str!("page/compare.js");

const CSV: &str = "text/csv; charset=utf-8";

/// What a `/compare` URL asks besides the run.
struct Wanted {
    format: Option<String>,
    table: Option<Which>,
    figure: Option<String>,
    judge: Option<String>,
    digits: Digits,
    hardest: usize,
    confidence: f64,
}

fn bad(message: String) -> Answer {
    Answer::text(400, message)
}

fn wanted(raw: Option<&str>) -> Result<Wanted, Answer> {
    let mut w = Wanted {
        format: None,
        table: None,
        figure: None,
        judge: None,
        digits: Digits::default(),
        hardest: 10,
        confidence: 0.95,
    };
    for (k, v) in pairs(raw) {
        if v.is_empty() {
            continue;
        }
        match k.as_str() {
            "format" => w.format = Some(v),
            "figure" => w.figure = Some(v),
            "judge" => w.judge = Some(v),
            "table" => {
                w.table = Some(match v.as_str() {
                    "pairs" => Which::Pairs,
                    "rates" => Which::Rates,
                    "agreement" => Which::Agreement,
                    "kappa" => Which::Kappa,
                    "questions" => Which::Questions,
                    _ => {
                        return Err(bad(format!(
                            "table={v}: give pairs, rates, agreement, kappa or questions"
                        )))
                    }
                })
            }
            "digits" => match v.parse::<usize>() {
                Ok(d) if d <= 10 => w.digits = Digits(d),
                _ => return Err(bad(format!("digits={v}: give 0 to 10"))),
            },
            "hardest" => match v.parse::<usize>() {
                Ok(h) => w.hardest = h,
                _ => return Err(bad(format!("hardest={v}: not a count"))),
            },
            "confidence" => match v.parse::<f64>() {
                Ok(c) if c > 0.0 && c < 1.0 => w.confidence = c,
                _ => {
                    return Err(bad(format!(
                        "confidence={v}: give a number between 0 and 1"
                    )))
                }
            },
            _ => {}
        }
    }
    if w.figure.is_some() && w.table.is_some() {
        return Err(bad("give table= or figure=, not both".into()));
    }
    if w.judge.is_some() && w.figure.as_deref() != Some("forest") {
        // The board's judge filter rides along from the page: only the
        // forest plot takes one.
        w.judge = None;
    }
    Ok(w)
}

/// The last comparisons made, by results table (a weak reference: a new
/// generation's table is another, and a dropped one matches nothing),
/// run and confidence.
type Memo = Vec<(Weak<Table>, usize, u64, Arc<Comparison>)>;

/// Comparisons kept at most.
const MEMO: usize = 4;

static LAST: Mutex<Memo> = Mutex::new(Vec::new());

/// The comparison of the run `f` leaves of `state`'s table, made once per
/// table, run and confidence; requests that ask meanwhile wait for it
/// (the memo's lock is held while it is made).
fn comparison(
    state: &State,
    f: &karenina_ld::board::Filter,
    confidence: f64,
) -> Result<(String, Arc<Comparison>), Answer> {
    let views = state.views();
    let table = &views.table;
    let refused = |e: RunCompareError| match e {
        RunCompareError::NoRun(_) => Answer::text(404, e.to_string()),
        _ => bad(e.to_string()),
    };
    let r = manuscript::choose_run(table, f).map_err(refused)?;
    let graph = table.runs[r].graph.clone();
    let mut memo = LAST.lock().unwrap_or_else(|e| e.into_inner());
    memo.retain(|(t, ..)| t.strong_count() > 0);
    let key = confidence.to_bits();
    if let Some((.., c)) = memo.iter().find(|(t, run, k, _)| {
        std::ptr::eq(t.as_ptr(), Arc::as_ptr(table)) && *run == r && *k == key
    }) {
        return Ok((graph, c.clone()));
    }
    let options = Options {
        confidence,
        ..Default::default()
    };
    let c = Arc::new(
        karenina_ld::stats::compare(manuscript::observations_of_run(table, r), options)
            .map_err(|e| refused(e.into()))?,
    );
    if memo.len() >= MEMO {
        memo.remove(0);
    }
    memo.push((Arc::downgrade(table), r, key, c.clone()));
    Ok((graph, c))
}

fn typed(content_type: &str, body: String) -> Answer {
    Answer {
        status: 200,
        content_type: content_type.into(),
        body: body.into_bytes(),
    }
}

fn csv_or_500(r: karenina_ld::error::Result<String>) -> Answer {
    match r {
        Ok(s) => typed(CSV, s),
        Err(e) => super::error_answer(&e),
    }
}

/// The answer `w` asks of the comparison `c` of the run `graph`.
fn answer(c: &Comparison, graph: &str, w: &Wanted) -> Answer {
    let d = w.digits;
    if let Some(figure) = &w.figure {
        let view = match &w.judge {
            None => None,
            Some(name) => match c.obs.judges.iter().position(|j| j == name) {
                Some(j) => Some(j as u32),
                None => {
                    return bad(format!(
                        "judge={name}: no parsing model of the run is named so; its judges: {}",
                        c.obs.judges.join(", ")
                    ))
                }
            },
        };
        return match (figure.as_str(), w.format.as_deref().unwrap_or("svg")) {
            ("forest", "svg") => typed("image/svg+xml", manuscript::forest_svg(c, view, d)),
            ("forest", "csv") => csv_or_500(manuscript::forest_csv(c, view, d)),
            ("kappa", "svg") => typed("image/svg+xml", manuscript::kappa_svg(c, d)),
            ("kappa", "csv") => csv_or_500(manuscript::kappa_csv(c, d)),
            ("forest" | "kappa", other) => bad(format!("format={other}: a figure is svg or csv")),
            (other, _) => bad(format!("figure={other}: give forest or kappa")),
        };
    }
    // Every table a manuscript takes, in `kld compare`'s order.
    let layouts = || -> Vec<manuscript::Layout> {
        let tables = w.table.map_or(
            vec![
                Which::Rates,
                Which::Pairs,
                Which::Agreement,
                Which::Questions,
            ],
            |t| vec![t],
        );
        tables
            .into_iter()
            .flat_map(|t| manuscript::compare_tables(c, t, d, w.hardest))
            .collect()
    };
    match w.format.as_deref().unwrap_or("json") {
        // The whole comparison, as `kld compare --format json`; with
        // table=, that table's rounded layouts (what the page draws).
        "json" => match w.table {
            None => Answer::json(&c.to_json()),
            Some(_) => Answer::json(&serde_json::Value::Array(
                layouts().iter().map(manuscript::Layout::to_json).collect(),
            )),
        },
        "csv" => typed(CSV, c.to_csv(w.table.unwrap_or(Which::Pairs))),
        "markdown" | "md" => typed(
            "text/markdown; charset=utf-8",
            manuscript::markdown_all(&layouts()),
        ),
        "latex" | "tex" => typed(
            "application/x-tex; charset=utf-8",
            manuscript::latex_all(&layouts()),
        ),
        "html" => typed(
            "text/html; charset=utf-8",
            manuscript::compare_report(c, graph, d, w.hardest),
        ),
        other => bad(format!(
            "format={other}: give json, csv, markdown, latex or html (svg or csv with figure=)"
        )),
    }
}

/// `GET /compare`.
pub(super) async fn compare(AxState(app): AxState<App>, RawQuery(q): RawQuery) -> Response {
    let state: Arc<State> = app.state.clone();
    let f = filter(q.as_deref());
    let w = wanted(q.as_deref());
    app.in_slot(move || {
        let w = match w {
            Ok(w) => w,
            Err(a) => return a,
        };
        match comparison(&state, &f, w.confidence) {
            Ok((graph, c)) => answer(&c, &graph, &w),
            Err(a) => a,
        }
    })
    .await
}
