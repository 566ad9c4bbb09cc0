//! The page's results table and leaderboard scripts (`page/table.js`,
//! `page/leaderboard.js`), embedded in the binary and served beside the
//! page, and the checks that what they hard-code agrees with the server:
//! kld's predefined prefixes (which shorten IRIs in the table) and the
//! `format=` names the endpoint answers (the download links).
//!
//! Why they are separate files: the table and the views change on their own
//! schedule, apart from the editor in `page/app.js`.
//!
//! Also the two routes the leaderboard and the matrix read,
//! `GET /leaderboard` and `GET /matrix` (`docs/serving.md`): the numbers are
//! [`karenina_ld::board`]'s, as JSON; this layer only reads the filters
//! from the URL and runs the work in a query slot.

/// The results table: paging, sorting, IRIs, downloads.
pub(super) const TABLE_JS: &str = include_str!("page/table.js");
/// The leaderboard: models × benchmarks from the catalogue queries.
pub(super) const LEADERBOARD_JS: &str = include_str!("page/leaderboard.js");

use super::app::{pairs, App};
use super::{error_answer, Answer, State};
use axum::extract::{RawQuery, State as AxState};
use axum::response::Response;
use karenina_ld::board::{self, Filter};
use std::sync::Arc;

/// The filters of a board URL: `judge`, `run`, `benchmark` (a checkpoint
/// graph), `label` (`K=V`), `latest` (`1` or `true`); empty values are no
/// filter.
pub(super) fn filter(raw: Option<&str>) -> Filter {
    let mut f = Filter::default();
    for (k, v) in pairs(raw) {
        let v = (!v.is_empty()).then_some(v);
        match k.as_str() {
            "judge" => f.judge = v,
            "run" => f.run = v,
            "benchmark" => f.benchmark = v,
            "label" => f.label = v,
            "latest" => f.latest = matches!(v.as_deref(), Some("1" | "true")),
            _ => {}
        }
    }
    f
}

/// The board's data from the current generation's results table
/// ([`karenina_ld::table::views`]), and the server's limits for what is left to
/// query.
pub(super) fn read(
    state: &State,
) -> karenina_ld::error::Result<(Arc<board::BoardData>, karenina_ld::sparql::QueryOptions)> {
    let opts = karenina_ld::sparql::QueryOptions {
        timeout: state.settings.timeout,
        memory: state.settings.memory,
        ..Default::default()
    };
    Ok((state.views().board.clone(), opts))
}

/// `GET /leaderboard`: [`board::leaderboard`] under the URL's filters.
pub(super) async fn leaderboard(AxState(app): AxState<App>, RawQuery(q): RawQuery) -> Response {
    let state: Arc<State> = app.state.clone();
    let f = filter(q.as_deref());
    app.in_slot(move || {
        // Made once per generation and filter (the views' memo): a warm
        // request copies the bytes.
        let views = state.views();
        let body = views.memoized(&format!("leaderboard {f:?}"), || {
            json(&board::leaderboard(&views.board, &f)).body
        });
        Answer::json_bytes(body.to_vec())
    })
    .await
}

/// `GET /matrix`: [`board::matrix`] under the URL's filters.
pub(super) async fn matrix(AxState(app): AxState<App>, RawQuery(q): RawQuery) -> Response {
    let state: Arc<State> = app.state.clone();
    let f = filter(q.as_deref());
    app.in_slot(move || {
        let (data, opts) = match read(&state) {
            Ok(d) => d,
            Err(e) => return error_answer(&e),
        };
        let mut m = board::matrix(&data, &f, &Default::default());
        if let Some(cp) = &m.checkpoint {
            match board::question_texts(&state.oxigraph(), cp, &opts) {
                Ok(texts) => m = board::matrix(&data, &f, &texts),
                Err(e) => return error_answer(&e),
            }
        }
        json(&m)
    })
    .await
}

/// `GET /queries/NAME` of a catalogue number query the results table
/// answers ([`karenina_ld::table::answers::ANSWERED`]) over the whole store
/// (no `default-graph-uri` or `named-graph-uri`): the rows SPARQL gives over
/// the quads (a differential test keeps them equal), made once per
/// generation and format from the table, so the view is answered in
/// milliseconds cold, and under `--result-quads keys`, whose quads lack
/// the fields. `None`: left to SPARQL (another query, a dataset, a format
/// not negotiated, which SPARQL's path refuses with its message).
pub(super) fn table_answer(
    state: &State,
    name: &str,
    req: &super::SparqlRequest,
    accept: Option<&str>,
) -> Option<Answer> {
    use karenina_ld::table::answers;
    if !req.default_graphs.is_empty() || !req.named_graphs.is_empty() {
        return None;
    }
    let negotiated = super::negotiate::negotiate(
        karenina_ld::sparql::QueryForm::Select,
        accept,
        req.format.as_deref(),
    )?;
    let views = state.views();
    // (Another query, or a table that cannot answer this view, such as one
    // read from a file written before it kept the trait scores' kinds:
    // SPARQL answers.)
    if !answers::answers(name, &views.table) {
        return None;
    }
    let body = views.memoized(&format!("query {name} {}", negotiated.media_type), || {
        let mut out = Vec::new();
        if let Some(karenina_ld::sparql::Answer::Solutions { variables, rows }) =
            answers::answer(name, &views.table)
        {
            // (Writing to memory fails only on a term the format cannot
            // write; SPARQL's path would fail on it alike.)
            let _ = karenina_ld::sparql::write_solutions(
                &variables,
                rows,
                negotiated.format,
                None,
                &mut out,
            );
        }
        out
    });
    Some(Answer {
        status: 200,
        content_type: negotiated.media_type.to_string(),
        body: body.to_vec(),
    })
}

fn json(v: &impl serde::Serialize) -> Answer {
    Answer::json(&serde_json::to_value(v).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::TABLE_JS;
    use crate::negotiate::{negotiate, supported};
    use karenina_ld::sparql::QueryForm;
    use std::collections::BTreeSet;

    /// The JSON array assigned to `const NAME = [...]` in `script`.
    fn js_const(script: &str, name: &str) -> serde_json::Value {
        let start = script
            .find(&format!("const {name} = "))
            .unwrap_or_else(|| panic!("no const {name}"));
        let rest = &script[start + name.len() + 9..];
        let end = rest.find("];").expect("the array ends with ];") + 1;
        serde_json::from_str(&rest[..end]).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    fn names(v: &serde_json::Value) -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| r[0].as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn the_tables_prefixes_are_kld_s_predefined_ones() {
        let page: Vec<(String, String)> = js_const(TABLE_JS, "KLD_PREFIXES")
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r[0].as_str().unwrap().into(), r[1].as_str().unwrap().into()))
            .collect();
        let kld: Vec<(String, String)> = karenina_ld::sparql::PREDEFINED
            .iter()
            .map(|(p, iri)| (p.to_string(), iri.to_string()))
            .collect();
        assert_eq!(page, kld);
    }

    /// Each download link's `format=` is answered, each in a media type of
    /// its own, and together they cover every format the endpoint writes
    /// for that kind of answer.
    #[test]
    fn the_download_links_cover_every_format_the_endpoint_writes() {
        for (form, list) in [
            (QueryForm::Select, "SOLUTION_FORMATS"),
            (QueryForm::Construct, "GRAPH_FORMATS"),
        ] {
            let page = names(&js_const(TABLE_JS, list));
            let served: BTreeSet<&str> = page
                .iter()
                .map(|f| {
                    negotiate(form, None, Some(f))
                        .unwrap_or_else(|| panic!("{f} is not answered"))
                        .media_type
                })
                .collect();
            assert_eq!(served.len(), page.len(), "{list}: two links, one format");
            // A `format=` the table does not name falls back to Accept: the
            // link must be a name the table holds, not the default.
            for f in &page {
                assert!(
                    negotiate(form, Some("x/none"), Some(f)).is_some(),
                    "{f} answered only by default"
                );
            }
            let all: BTreeSet<&str> = supported(form)
                .split(", ")
                .map(|m| negotiate(form, Some(m), None).unwrap().media_type)
                .collect();
            assert_eq!(served, all, "{list}");
        }
    }
}
