//! `GET /export?graph=IRI&format=inspect|croissant[&license=SPDX]`: a
//! benchmark in the formats the field shares, for the page's download links.

use super::http::{pairs, respond, App};
use super::{error_answer, Answer, State};
use crate::canonical::{write_checkpoint, WriteOptions};
use crate::interop::{croissant, inspect};
use axum::extract::{RawQuery, State as AxState};
use axum::response::Response;

impl State {
    /// The checkpoint graph `graph` as an Inspect dataset or a Croissant
    /// description. The Croissant distribution is the checkpoint as
    /// `/checkpoint` serves it (`origin` is this server's `http://host`),
    /// with the sha256 of those bytes.
    pub fn interop_file(
        &self,
        graph: &str,
        format: &str,
        license: Option<&str>,
        origin: &str,
    ) -> Answer {
        let cp = {
            let s = self.store.read().unwrap_or_else(|e| e.into_inner());
            let Some(info) = s.resolve(graph).cloned() else {
                return Answer::text(404, format!("no checkpoint graph {graph}"));
            };
            match s.extract(&info.graph) {
                Ok(cp) => cp,
                Err(e) => return error_answer(&e),
            }
        };
        match format {
            "inspect" => Answer {
                status: 200,
                content_type: "application/jsonl; charset=utf-8".into(),
                body: inspect::samples_jsonl(&cp).into_bytes(),
            },
            "croissant" => {
                let Some(license) = license.filter(|l| !l.trim().is_empty()) else {
                    return Answer::text(
                        400,
                        "Croissant requires a licence and checkpoints carry none: pass &license=SPDX (e.g. CC-BY-4.0), a URL, or &license=unknown for an explicit note",
                    );
                };
                let bytes = write_checkpoint(&cp, &WriteOptions::default()).into_bytes();
                let enc: String = url::form_urlencoded::byte_serialize(graph.as_bytes()).collect();
                let opts = croissant::CroissantOptions {
                    license: license.to_string(),
                    content_url: format!("{origin}/checkpoint?graph={enc}"),
                    url: None,
                    fallback_name: "checkpoint".into(),
                };
                match croissant::describe(&cp, &bytes, &opts) {
                    Ok(doc) => Answer {
                        status: 200,
                        content_type: "application/ld+json".into(),
                        body: serde_json::to_vec_pretty(&doc).unwrap_or_default(),
                    },
                    Err(e) => Answer::text(400, e.to_string()),
                }
            }
            f => Answer::text(400, format!("format {f:?}: inspect or croissant")),
        }
    }
}

/// `/export?graph=IRI&format=inspect|croissant[&license=SPDX]`.
pub(super) async fn export(
    AxState(app): AxState<App>,
    headers: axum::http::HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    let p = pairs(q.as_deref());
    let get = |k: &str| p.iter().find(|(x, _)| x == k).map(|(_, v)| v.clone());
    let (Some(graph), Some(format)) = (get("graph"), get("format")) else {
        return respond(Answer::text(
            400,
            "pass ?graph=IRI&format=inspect|croissant",
        ));
    };
    let license = get("license");
    let host = headers
        .get(axum::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost")
        .to_string();
    let state = app.state.clone();
    let a = tokio::task::spawn_blocking(move || {
        state.interop_file(
            &graph,
            &format,
            license.as_deref(),
            &format!("http://{host}"),
        )
    })
    .await
    .unwrap_or_else(|e| Answer::text(500, e.to_string()));
    respond(a)
}
