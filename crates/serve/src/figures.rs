//! The routes behind the page's model × judge grid, its figures and its
//! download links (`docs/serving.md`): `GET /grid` (the grids as JSON, or
//! as CSV, Markdown, LaTeX or the HTML report with `format=`) and
//! `GET /figure` (`kind=dots|heatmap`, `format=svg|csv|json`), under the
//! leaderboard's filters and `digits=`. The numbers are
//! [`karenina_ld::manuscript`]'s over [`karenina_ld::board`]'s (intervals by
//! [`karenina_ld::stats`]), as
//! `kld leaderboard` and `kld figure` write them.
//!
//! Also the page's script that draws the grid and the figures
//! (`page/figures.js`).

use super::app::{pairs, App};
use super::board::{filter, read};
use super::{error_answer, Answer, State};
use axum::extract::{RawQuery, State as AxState};
use axum::response::Response;
use karenina_ld::board::{self, Filter};
use karenina_ld::manuscript::{self, Digits};
use karenina_ld::sparql::QueryOptions;
use std::sync::Arc;

/// The grid and figures script.
pub(super) const FIGURES_JS: &str = include_str!("page/figures.js");

/// `format`, `digits`, `kind` and `column` of a URL.
struct Wanted {
    format: String,
    digits: Digits,
    kind: String,
    column: usize,
    confidence: f64,
}

fn wanted(raw: Option<&str>) -> Result<Wanted, Answer> {
    let mut w = Wanted {
        format: "json".into(),
        digits: Digits::default(),
        kind: "dots".into(),
        column: 0,
        confidence: 0.95,
    };
    for (k, v) in pairs(raw) {
        match k.as_str() {
            "format" if !v.is_empty() => w.format = v,
            "kind" if !v.is_empty() => w.kind = v,
            "digits" if !v.is_empty() => match v.parse::<usize>() {
                Ok(d) if d <= 12 => w.digits = Digits(d),
                _ => return Err(Answer::text(400, format!("digits={v}: give 0 to 12"))),
            },
            "confidence" if !v.is_empty() => match v.parse::<f64>() {
                Ok(c) if c > 0.0 && c < 1.0 => w.confidence = c,
                _ => {
                    return Err(Answer::text(
                        400,
                        format!("confidence={v}: give a number between 0 and 1"),
                    ))
                }
            },
            "column" if !v.is_empty() => match v.parse() {
                Ok(c) => w.column = c,
                Err(_) => return Err(Answer::text(400, format!("column={v}: not a number"))),
            },
            _ => {}
        }
    }
    Ok(w)
}

fn typed(content_type: &str, body: String) -> Answer {
    Answer {
        status: 200,
        content_type: content_type.into(),
        body: body.into_bytes(),
    }
}

fn or_500(r: karenina_ld::error::Result<String>, content_type: &str) -> Answer {
    match r {
        Ok(s) => typed(content_type, s),
        Err(e) => error_answer(&e),
    }
}

const CSV: &str = "text/csv; charset=utf-8";

/// The heatmap rates of the filter's benchmark (or the first).
fn rates(
    state: &State,
    opts: &QueryOptions,
    data: &board::BoardData,
    f: &Filter,
) -> karenina_ld::error::Result<manuscript::QuestionRates> {
    let q = manuscript::question_rates(data, f, &Default::default());
    match &q.checkpoint {
        Some(cp) => {
            let texts = board::question_texts(&state.oxigraph(), cp, opts)?;
            Ok(manuscript::question_rates(data, f, &texts))
        }
        None => Ok(q),
    }
}

/// The prologue `/grid` and `/figure` share: the URL's filter and wants,
/// then `answer` in a query slot with the board's data and the server's
/// query limits; a bad want answers 400 and an unreadable board its error
/// before `answer` runs.
async fn in_slot_with_board(
    app: App,
    q: Option<String>,
    answer: impl FnOnce(&State, &Filter, Wanted, &board::BoardData, &QueryOptions) -> Answer
        + Send
        + 'static,
) -> Response {
    let state: Arc<State> = app.state.clone();
    let f = filter(q.as_deref());
    let w = wanted(q.as_deref());
    app.in_slot(move || {
        let w = match w {
            Ok(w) => w,
            Err(a) => return a,
        };
        let (data, opts) = match read(&state) {
            Ok(d) => d,
            Err(e) => return error_answer(&e),
        };
        answer(&state, &f, w, &data, &opts)
    })
    .await
}

/// `GET /grid`.
pub(super) async fn grid(AxState(app): AxState<App>, RawQuery(q): RawQuery) -> Response {
    in_slot_with_board(app, q, |state, f, w, data, opts| {
        let grids = manuscript::grids(data, f, w.confidence);
        match w.format.as_str() {
            "json" => Answer::json(&serde_json::to_value(&grids).unwrap_or_default()),
            "csv" => or_500(manuscript::csv(&grids, w.digits), CSV),
            "markdown" | "md" => typed(
                "text/markdown; charset=utf-8",
                manuscript::markdown(&grids, w.digits),
            ),
            "latex" | "tex" => typed(
                "application/x-tex; charset=utf-8",
                manuscript::latex(&grids, w.digits),
            ),
            "html" => {
                let mut maps = Vec::new();
                let mut seen = Vec::new();
                for g in &grids {
                    if seen.contains(&g.column.checkpoint) {
                        continue;
                    }
                    seen.push(g.column.checkpoint.clone());
                    let gf = Filter {
                        benchmark: Some(g.column.checkpoint.clone()),
                        run: g.column.run.clone(),
                        ..f.clone()
                    };
                    match rates(state, opts, data, &gf) {
                        Ok(r) => maps.push(r),
                        Err(e) => return error_answer(&e),
                    }
                }
                typed(
                    "text/html; charset=utf-8",
                    manuscript::html_report(&grids, &maps, w.digits),
                )
            }
            other => Answer::text(
                400,
                format!("format={other}: give json, csv, markdown, latex or html"),
            ),
        }
    })
    .await
}

/// `GET /figure`.
pub(super) async fn figure(AxState(app): AxState<App>, RawQuery(q): RawQuery) -> Response {
    in_slot_with_board(app, q, |state, f, w, data, opts| match w.kind.as_str() {
        "dots" => {
            let grids = manuscript::grids(data, f, w.confidence);
            let Some(g) = grids.get(w.column) else {
                return Answer::text(
                    404,
                    format!("column={}: the board has {} columns", w.column, grids.len()),
                );
            };
            match w.format.as_str() {
                "svg" => typed("image/svg+xml", manuscript::dot_plot_svg(g, w.digits)),
                "csv" => or_500(manuscript::dot_plot_csv(g, w.digits), CSV),
                "json" => Answer::json(&serde_json::to_value(g).unwrap_or_default()),
                other => Answer::text(400, format!("format={other}: give svg, csv or json")),
            }
        }
        "heatmap" => {
            let r = match rates(state, opts, data, f) {
                Ok(r) => r,
                Err(e) => return error_answer(&e),
            };
            match w.format.as_str() {
                "svg" => typed("image/svg+xml", manuscript::heatmap_svg(&r, w.digits)),
                "csv" => or_500(manuscript::heatmap_csv(&r, w.digits), CSV),
                "json" => Answer::json(&serde_json::to_value(&r).unwrap_or_default()),
                other => Answer::text(400, format!("format={other}: give svg, csv or json")),
            }
        }
        other => Answer::text(400, format!("kind={other}: give dots or heatmap")),
    })
    .await
}
