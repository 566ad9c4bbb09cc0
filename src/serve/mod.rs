//! `kld serve`: the loaded store as a read-only SPARQL endpoint, the Graph
//! Store Protocol's read side, Karenina-aware routes and a browser page.
//!
//! Why it exists: every `kld query` reloads files, and nothing outside kld
//! (notebooks, SPARQL editors, a browser) can ask the store anything. Serving
//! loads once and answers many.
//!
//! This module keeps the logic: what a protocol request asks
//! ([`SparqlRequest`]), content negotiation ([`negotiate`]), running a query
//! into bytes with the right media type ([`State::run_query`]), the checkpoint
//! listing and the canonical file of a graph. [`http`] is the thin axum layer
//! and [`watch`] re-reads files that change.

pub mod http;
mod negotiate;
pub mod watch;

pub use negotiate::{negotiate, negotiate_rdf, Negotiated};

use crate::canonical::{write_checkpoint, WriteOptions};
use crate::error::Error;
use crate::export;
use crate::query::{self, QueryOptions};
use crate::store::CheckpointStore;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

/// What a SPARQL Protocol request asks for, whatever its HTTP shape (GET
/// parameters, form-encoded POST or a `application/sparql-query` body).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SparqlRequest {
    /// The query text.
    pub query: Option<String>,
    /// An update (always refused: the endpoint is read-only).
    pub update: Option<String>,
    /// `default-graph-uri` values.
    pub default_graphs: Vec<String>,
    /// `named-graph-uri` values.
    pub named_graphs: Vec<String>,
    /// A `format` parameter (for browsers, which cannot set `Accept`).
    pub format: Option<String>,
}

impl SparqlRequest {
    /// Reads the protocol parameters from `application/x-www-form-urlencoded`
    /// pairs (a URL query string or a form body). Unknown parameters are ignored.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (String, String)> + 'a) -> Self {
        let mut r = SparqlRequest::default();
        for (k, v) in pairs {
            match k.as_str() {
                "query" => r.query = Some(v),
                "update" => r.update = Some(v),
                "default-graph-uri" => r.default_graphs.push(v),
                "named-graph-uri" => r.named_graphs.push(v),
                "format" => r.format = Some(v),
                _ => {}
            }
        }
        r
    }
}

/// The outcome of a request: an HTTP status, a media type and a body.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// HTTP status code.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: String,
    /// Body bytes.
    pub body: Vec<u8>,
}

impl Answer {
    /// A plain-text answer (errors, refusals).
    pub fn text(status: u16, message: impl Into<String>) -> Self {
        let mut body = message.into().into_bytes();
        body.push(b'\n');
        Answer {
            status,
            content_type: "text/plain; charset=utf-8".into(),
            body,
        }
    }

    /// A JSON answer.
    pub fn json(v: &serde_json::Value) -> Self {
        Answer {
            status: 200,
            content_type: "application/json".into(),
            body: serde_json::to_vec_pretty(v).unwrap_or_default(),
        }
    }
}

/// A load error under `--watch`: the file keeps its old graph meanwhile.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LoadError {
    /// The file.
    pub file: String,
    /// The rendered diagnostics (`file:line:col: error[CODE] …`).
    pub message: String,
}

/// Settings of a running endpoint.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Per-query time limit.
    pub timeout: Duration,
    /// Queries running at once; more wait (bounded), then get 503.
    pub max_concurrent: usize,
}

/// Everything the routes share: the store (replaced graph by graph under
/// `--watch`), the settings, the current load errors and cached summaries.
pub struct State {
    store: RwLock<CheckpointStore>,
    /// Settings.
    pub settings: Settings,
    errors: Mutex<BTreeMap<String, LoadError>>,
    summaries: Mutex<BTreeMap<(String, String), serde_json::Value>>,
}

impl State {
    /// Wraps a loaded store.
    pub fn new(store: CheckpointStore, settings: Settings) -> Arc<Self> {
        Arc::new(State {
            store: RwLock::new(store),
            settings,
            errors: Mutex::new(BTreeMap::new()),
            summaries: Mutex::new(BTreeMap::new()),
        })
    }

    /// The Oxigraph store (a cheap handle): queries run on it without holding
    /// any lock, and each graph replacement is one transaction, so a query sees
    /// a graph either before or after a change, never half.
    pub fn oxigraph(&self) -> oxigraph::store::Store {
        self.store
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .store()
            .clone()
    }

    /// Runs `f` with the store for reading (queries go on meanwhile).
    pub fn with_store<T>(&self, f: impl FnOnce(&CheckpointStore) -> T) -> T {
        f(&self.store.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Runs `f` with the store for writing (the watcher's graph replacements).
    pub fn with_store_mut<T>(&self, f: impl FnOnce(&mut CheckpointStore) -> T) -> T {
        f(&mut self.store.write().unwrap_or_else(|e| e.into_inner()))
    }

    /// Records (or clears, with `None`) the load error of a file.
    pub fn set_error(&self, file: &str, message: Option<String>) {
        let mut errors = self.errors.lock().unwrap_or_else(|e| e.into_inner());
        match message {
            Some(m) => {
                errors.insert(
                    file.to_string(),
                    LoadError {
                        file: file.to_string(),
                        message: m,
                    },
                );
            }
            None => {
                errors.remove(file);
            }
        }
    }

    /// The current load errors, by file.
    pub fn errors(&self) -> Vec<LoadError> {
        self.errors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect()
    }

    /// Runs a protocol request; `accept` is the request's `Accept` header.
    pub fn run_query(&self, req: &SparqlRequest, accept: Option<&str>) -> Answer {
        if req.update.is_some() {
            return refuse_update();
        }
        let Some(text) = req.query.as_deref() else {
            return Answer::text(
                400,
                "no query: pass `query` (GET or form POST) or a application/sparql-query body",
            );
        };
        let parsed = match query::parse(text) {
            Ok(p) => p,
            Err(e) => return error_answer(&e),
        };
        let form = parsed.form;
        let Some(neg) = negotiate(form, accept, req.format.as_deref()) else {
            return Answer::text(
                406,
                format!(
                    "cannot answer a {form:?} query in {}; supported: {}",
                    req.format.as_deref().or(accept).unwrap_or(""),
                    if form.is_graph() {
                        "text/turtle, application/n-triples, application/n-quads, application/trig, application/rdf+xml, application/ld+json"
                    } else {
                        "application/sparql-results+json, application/sparql-results+xml, text/csv, text/tab-separated-values"
                    }
                ),
            );
        };
        let opts = QueryOptions {
            timeout: self.settings.timeout,
            default_graphs: req.default_graphs.clone(),
            named_graphs: req.named_graphs.clone(),
        };
        let mut body = Vec::new();
        match query::run_parsed(&self.oxigraph(), &parsed, &opts, neg.format, &mut body) {
            Ok(_) => Answer {
                status: 200,
                content_type: neg.media_type.to_string(),
                body,
            },
            Err(e) => error_answer(&e),
        }
    }

    /// Graph Store Protocol read: one graph (or the default graph) in an RDF
    /// format chosen by `accept`.
    pub fn graph(&self, graph: Option<&str>, accept: Option<&str>) -> Answer {
        let Some((format, media)) = negotiate_rdf(accept, None) else {
            return Answer::text(406, "supported: text/turtle, application/n-triples, application/rdf+xml, application/ld+json");
        };
        let store = self.oxigraph();
        let quads: Vec<oxigraph::model::Quad> = match graph {
            Some(g) => match oxigraph::model::NamedNode::new(g) {
                Ok(n) => store
                    .quads_for_pattern(None, None, None, Some(n.as_ref().into()))
                    .filter_map(std::result::Result::ok)
                    .collect(),
                Err(e) => return Answer::text(400, format!("graph {g:?} is not an IRI: {e}")),
            },
            None => store
                .quads_for_pattern(
                    None,
                    None,
                    None,
                    Some(oxigraph::model::GraphNameRef::DefaultGraph),
                )
                .filter_map(std::result::Result::ok)
                .collect(),
        };
        if quads.is_empty() && graph.is_some() {
            return Answer::text(404, format!("no graph {}", graph.unwrap_or_default()));
        }
        let mut body = Vec::new();
        match export::write(&quads, format, true, &mut body) {
            Ok(()) => Answer {
                status: 200,
                content_type: media.to_string(),
                body,
            },
            Err(e) => error_answer(&e),
        }
    }

    /// The loaded checkpoints, one JSON object each (summaries cached by
    /// graph and file hash).
    pub fn checkpoints(&self) -> serde_json::Value {
        let infos: Vec<_> = {
            let s = self.store.read().unwrap_or_else(|e| e.into_inner());
            s.graphs()
                .filter(|g| g.kind == crate::store::GraphKind::Checkpoint)
                .cloned()
                .collect()
        };
        let mut out = Vec::new();
        for info in infos {
            let key = (info.graph.clone(), info.sha256.clone());
            let cached = self
                .summaries
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&key)
                .cloned();
            let summary = match cached {
                Some(s) => s,
                None => {
                    let extracted = {
                        let s = self.store.read().unwrap_or_else(|e| e.into_inner());
                        s.extract(&info.graph)
                    };
                    // Graphs that are not checkpoints are not listed here.
                    let Ok(cp) = extracted else { continue };
                    let s = crate::info::summarize(&cp);
                    let traits: usize = s.traits.values().sum();
                    let v = serde_json::json!({
                        "name": s.name,
                        "version": s.version,
                        "questions": s.questions,
                        "finished": s.finished,
                        "templates": s.templates,
                        "traits": traits,
                        "keywords": s.keywords,
                    });
                    self.summaries
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(key, v.clone());
                    v
                }
            };
            let mut o = serde_json::json!({
                "graph": info.graph,
                "source": info.source,
                "sha256": info.sha256,
                "loaded_at": info.loaded_at,
            });
            if let (Some(o), Some(s)) = (o.as_object_mut(), summary.as_object()) {
                for (k, v) in s {
                    o.insert(k.clone(), v.clone());
                }
            }
            out.push(o);
        }
        out.sort_by(|a, b| a["source"].as_str().cmp(&b["source"].as_str()));
        serde_json::Value::Array(out)
    }

    /// The canonical checkpoint held in `graph` (graph IRI or source path):
    /// the bytes `kld canon` writes for the file.
    pub fn checkpoint_file(&self, graph: &str) -> Answer {
        let s = self.store.read().unwrap_or_else(|e| e.into_inner());
        let Some(info) = s.resolve(graph).cloned() else {
            return Answer::text(404, format!("no checkpoint graph {graph}"));
        };
        match s.extract(&info.graph) {
            Ok(cp) => Answer {
                status: 200,
                content_type: "application/ld+json".into(),
                body: write_checkpoint(&cp, &WriteOptions::default()).into_bytes(),
            },
            Err(e) => error_answer(&e),
        }
    }
}

/// The catalogue as JSON: name, description, returned variables and text.
pub fn catalogue() -> serde_json::Value {
    serde_json::Value::Array(
        query::CATALOGUE
            .iter()
            .map(|q| {
                serde_json::json!({
                    "name": q.name,
                    "description": q.description(),
                    "returns": q.returns().split_whitespace().map(|v| v.trim_start_matches('?')).collect::<Vec<_>>(),
                    "query": q.text,
                })
            })
            .collect(),
    )
}

/// The answer to an update request.
pub fn refuse_update() -> Answer {
    Answer::text(
        403,
        "SPARQL UPDATE is refused: kld serve is read-only (edit the checkpoint files instead)",
    )
}

/// Maps a library error to an HTTP answer: syntax errors 400, updates 403,
/// timeouts 503, everything else 500.
pub fn error_answer(e: &Error) -> Answer {
    let m = e.to_string();
    match e {
        Error::Sparql(s) if s.contains("SPARQL UPDATE") => refuse_update(),
        Error::Sparql(s) if s.contains("time limit") => Answer::text(
            503,
            format!("the query was stopped after the server's time limit: {s}"),
        ),
        Error::Sparql(_) | Error::Usage(_) => Answer::text(400, m),
        _ => Answer::text(500, m),
    }
}
