//! `GET /export?graph=IRI&format=inspect|croissant[&license=SPDX]`: a
//! benchmark in the formats the field shares, and
//! `GET /export?graph=RUN&format=eee[&file=PATH]`: a run's Every Eval Ever
//! files, for the page's download links.

use super::app::{pairs, respond, App};
use super::{error_answer, Answer, State};
use axum::extract::{RawQuery, State as AxState};
use axum::response::Response;
use karenina_ld::interop::eee::EeeFile;
use karenina_ld::interop::{croissant, eee, inspect};
use karenina_ld::model::{read_checkpoint, ReadOptions};
use karenina_ld::save::{write_checkpoint, WriteOptions};
use karenina_ld::store::GraphKind;
use std::path::{Path, PathBuf};

/// The query string of `/export` for `graph` in `format`.
fn export_query(graph: &str, format: &str) -> String {
    let enc: String = url::form_urlencoded::byte_serialize(graph.as_bytes()).collect();
    format!("/export?graph={enc}&format={format}")
}

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
            f => Answer::text(400, format!("format {f:?}: inspect, croissant or eee")),
        }
    }

    /// The EEE files of the results graph `graph`, as `kld export -f eee
    /// RESULTS --for CHECKPOINT` writes them from the files the graphs were
    /// loaded from: without `file`, their list (`{"files": [{"path",
    /// "href"}]}`); with it, that file. Only a results export (JSON or CSV)
    /// bound to a loaded checkpoint has them.
    pub fn eee_file(&self, graph: &str, file: Option<&str>) -> Answer {
        let files = match self.eee_files(graph) {
            Ok(f) => f,
            Err(a) => return a,
        };
        let Some(want) = file else {
            let list: Vec<serde_json::Value> = files
                .iter()
                .map(|f| {
                    let p = f.path.to_string_lossy();
                    let enc: String = url::form_urlencoded::byte_serialize(p.as_bytes()).collect();
                    serde_json::json!({
                        "path": p,
                        "href": format!("{}&file={enc}", export_query(graph, "eee")),
                    })
                })
                .collect();
            return Answer::json(&serde_json::json!({ "files": list }));
        };
        match files.into_iter().find(|f| f.path == Path::new(want)) {
            Some(f) => Answer {
                status: 200,
                content_type: if want.ends_with(".jsonl") {
                    "application/jsonl; charset=utf-8"
                } else {
                    "application/json"
                }
                .into(),
                body: f.text.into_bytes(),
            },
            None => Answer::text(404, format!("{graph} has no EEE file {want}")),
        }
    }

    fn eee_files(&self, graph: &str) -> Result<Vec<EeeFile>, Answer> {
        let (results, checkpoint) = {
            let s = self.store.read().unwrap_or_else(|e| e.into_inner());
            let Some(info) = s.resolve(graph).cloned() else {
                return Err(Answer::text(404, format!("no results graph {graph}")));
            };
            if info.kind != GraphKind::Results {
                return Err(Answer::text(
                    400,
                    format!("{graph} is not a results graph: EEE is written for a run"),
                ));
            }
            let Some(b) = info.binding else {
                let why = info.unbound.unwrap_or_else(|| "not bound".into());
                return Err(Answer::text(
                    400,
                    format!("{graph} is bound to no benchmark ({why}): no EEE files"),
                ));
            };
            let Some(c) = s.resolve(&b.checkpoint) else {
                return Err(Answer::text(
                    404,
                    format!("no checkpoint graph {}", b.checkpoint),
                ));
            };
            (PathBuf::from(info.source), PathBuf::from(&c.source))
        };
        if !results.is_file() {
            return Err(Answer::text(
                400,
                format!("{graph}: EEE files are written from a results export (JSON or CSV), and this run is a run folder or a database run"),
            ));
        }
        let bytes = std::fs::read(&checkpoint)
            .map_err(|e| error_answer(&karenina_ld::error::Error::io(&checkpoint, e)))?;
        let cp = read_checkpoint(&checkpoint, &bytes, ReadOptions::default())
            .map_err(|e| error_answer(&e))?;
        eee::export(&cp, &checkpoint, &results).map_err(|e| error_answer(&e))
    }
}

/// `/export?graph=IRI&format=inspect|croissant[&license=SPDX]` and
/// `/export?graph=RUN&format=eee[&file=PATH]`.
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
            "pass ?graph=IRI&format=inspect|croissant|eee",
        ));
    };
    let license = get("license");
    let file = get("file");
    let host = headers
        .get(axum::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost")
        .to_string();
    let state = app.state.clone();
    app.in_slot(move || {
        if format == "eee" {
            return state.eee_file(&graph, file.as_deref());
        }
        state.interop_file(
            &graph,
            &format,
            license.as_deref(),
            &format!("http://{host}"),
        )
    })
    .await
}
