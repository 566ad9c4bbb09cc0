//! `kld serve`: the loaded store as a read-only SPARQL endpoint, the Graph
//! Store Protocol's read side, Karenina-aware routes and a browser page.
//!
//! Why it exists: every `kld query` reloads files, and nothing outside kld
//! (notebooks, SPARQL editors, a browser) can ask the store anything. Serving
//! loads once and answers many.
//!
//! This crate keeps the HTTP side of the logic: what a protocol request asks
//! ([`SparqlRequest`]), content negotiation ([`negotiate`]), running a query
//! into bytes with the right media type ([`State::run_query`]), the checkpoint
//! listing and the canonical file of a graph. [`http`] is the thin axum layer
//! and [`watch`] re-reads files that change. Answers are kept per store
//! generation in [`cache`] and the catalogue's computed ahead by [`warm`].

#![warn(missing_docs)]
// One module-file style, the library's: a module with children is
// `foo/mod.rs`, never `foo.rs` beside `foo/`.
#![deny(clippy::self_named_module_files)]

mod app;
mod board;
pub mod cache;
mod compare;
mod conn;
mod describe;
mod editor;
mod figures;
mod flight;
mod guard;
pub mod http;
mod interop;
mod listen;
mod negotiate;
mod run;
mod status;
mod stream;
pub mod vocabulary;
pub mod warm;
pub mod watch;

pub use listen::{bind, LISTEN_BACKLOG};
pub use negotiate::{negotiate, negotiate_rdf, supported, Negotiated};
pub use run::{Lookup, PreparedQuery};
pub use status::{error_answer, refuse_update};

use karenina_ld::error::Error;
use karenina_ld::export;
use karenina_ld::save::{write_checkpoint, WriteOptions};
use karenina_ld::sparql;
use karenina_ld::store::CheckpointStore;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
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
    /// The base IRI relative IRIs in the query resolve against (the
    /// endpoint's URL, as Oxigraph's server does).
    pub base: Option<String>,
}

impl SparqlRequest {
    /// Reads the protocol parameters from `application/x-www-form-urlencoded`
    /// pairs (a URL query string or a form body). Unknown parameters are
    /// ignored; a `query` or `update` given twice is an error (the protocol
    /// allows one), and so is a request with both a query and an update.
    pub fn from_pairs(
        pairs: impl IntoIterator<Item = (String, String)>,
    ) -> karenina_ld::Result<Self> {
        let mut r = SparqlRequest::default();
        for (k, v) in pairs {
            let once = |slot: &mut Option<String>, v: String| match slot {
                Some(_) => Err(Error::Usage(format!(
                    "`{k}` is given more than once; the SPARQL protocol allows one"
                ))),
                None => {
                    *slot = Some(v);
                    Ok(())
                }
            };
            match k.as_str() {
                "query" => once(&mut r.query, v)?,
                "update" => once(&mut r.update, v)?,
                // Not the protocol's: SPARQLWrapper sends it twice for some
                // formats (`tsv` and its media type); the first counts.
                "format" => {
                    r.format.get_or_insert(v);
                }
                "default-graph-uri" => r.default_graphs.push(v),
                "named-graph-uri" => r.named_graphs.push(v),
                _ => {}
            }
        }
        if r.query.is_some() && r.update.is_some() {
            return Err(Error::Usage(
                "a request carries a query or an update, not both".into(),
            ));
        }
        Ok(r)
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
        Self::json_bytes(serde_json::to_vec_pretty(v).unwrap_or_default())
    }

    /// A JSON answer whose bytes are already written (a memoized view).
    pub fn json_bytes(body: Vec<u8>) -> Self {
        Answer {
            status: 200,
            content_type: "application/json".into(),
            body,
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
    /// Largest answer in bytes; a query whose answer grows past it is stopped.
    pub max_result_bytes: Option<u64>,
    /// Origins allowed to read answers from a browser page of theirs (CORS);
    /// `*` allows any. Empty: none but the page's own.
    pub cors: Vec<String>,
    /// Host names accepted besides `localhost`, the bound address and
    /// loopback IPs (a guard against DNS rebinding).
    pub allowed_hosts: Vec<String>,
    /// Origins whose pages may show this server's responses in a frame
    /// (`Content-Security-Policy: frame-ancestors`). Empty: none (and
    /// `X-Frame-Options: DENY`), so another site cannot drive the page
    /// from a hidden frame.
    pub framing: Vec<String>,
    /// Memory one query, and all running queries together, may hold; a
    /// query past either is stopped (503).
    pub memory: karenina_ld::memory::Limits,
    /// The answer cache's budget in bytes ([`cache`]); 0 turns it off.
    pub cache_bytes: u64,
}

/// The default answer cache: 64 MiB.
pub const DEFAULT_CACHE_BYTES: u64 = 64 << 20;

/// The default largest answer: 256 MiB.
pub const DEFAULT_MAX_RESULT_BYTES: u64 = 256 << 20;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            timeout: sparql::DEFAULT_TIMEOUT,
            max_concurrent: 4,
            max_result_bytes: Some(DEFAULT_MAX_RESULT_BYTES),
            cors: Vec::new(),
            allowed_hosts: Vec::new(),
            framing: Vec::new(),
            memory: karenina_ld::memory::Limits::for_machine(),
            cache_bytes: DEFAULT_CACHE_BYTES,
        }
    }
}

/// Everything the routes share: the store (replaced graph by graph under
/// `--watch`), the settings, the current load errors and cached summaries
/// and answers.
pub struct State {
    store: RwLock<CheckpointStore>,
    /// Bumped (under the store's write lock) by every change of the store.
    generation: AtomicU64,
    cache: cache::AnswerCache,
    /// The answers being computed now ([`flight`]).
    flights: flight::Flights,
    /// The warm-up's running query, cancelled by a change of the store.
    warming: Mutex<Option<sparql::Control>>,
    /// The last finished warm-up.
    warmed: Mutex<Option<warm::Warmed>>,
    /// The editor's completion vocabulary, kept for one generation.
    vocabulary: Mutex<Option<vocabulary::Kept>>,
    /// Tells this process's entity tags from another's (a restarted server
    /// starts again at generation 0).
    boot: u64,
    /// Settings.
    pub settings: Settings,
    errors: Mutex<BTreeMap<String, LoadError>>,
    summaries: Mutex<BTreeMap<(String, String), serde_json::Value>>,
    /// The queries running now, so a stopping server can cancel them.
    running: Mutex<BTreeMap<u64, sparql::Control>>,
    next_id: std::sync::atomic::AtomicU64,
    /// The number views of the current generation ([`karenina_ld::table::views`]),
    /// replaced whole under the store's write lock.
    views: Mutex<Option<Arc<karenina_ld::table::views::Views>>>,
}

impl State {
    /// Wraps a loaded store.
    pub fn new(store: CheckpointStore, settings: Settings) -> Arc<Self> {
        Self::with_table(store, settings, None)
    }

    /// [`State::new`], with the runs of `known` (a table read beside the
    /// load, [`karenina_ld::table::stored::read_exports`], or a store
    /// directory's Parquet file) taken as they are where the store holds
    /// their graph from the same bytes, instead of read again.
    pub fn with_table(
        store: CheckpointStore,
        settings: Settings,
        known: Option<&karenina_ld::table::Table>,
    ) -> Arc<Self> {
        // Every number view warm before the first request.
        let views = Arc::new(karenina_ld::table::views::Views::build(&store, 0, known));
        let boot = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Arc::new(State {
            store: RwLock::new(store),
            generation: AtomicU64::new(0),
            cache: cache::AnswerCache::new(settings.cache_bytes),
            flights: flight::Flights::default(),
            warming: Mutex::new(None),
            warmed: Mutex::new(None),
            vocabulary: Mutex::new(None),
            boot,
            settings,
            errors: Mutex::new(BTreeMap::new()),
            summaries: Mutex::new(BTreeMap::new()),
            running: Mutex::new(BTreeMap::new()),
            next_id: std::sync::atomic::AtomicU64::new(0),
            views: Mutex::new(Some(views)),
        })
    }

    /// The number views of the store's current generation: built from the
    /// results table once per generation, and shared.
    pub fn views(&self) -> Arc<karenina_ld::table::views::Views> {
        // The store's read lock first, then the views' (as a change takes
        // them): the views match the generation read here.
        let store = self.store.read().unwrap_or_else(|e| e.into_inner());
        let generation = self.generation.load(Ordering::SeqCst);
        let mut views = self.views.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = views.as_ref().filter(|v| v.generation == generation) {
            return v.clone();
        }
        let previous = views.as_ref().map(|v| v.table.clone());
        let v = Arc::new(karenina_ld::table::views::Views::build(
            &store,
            generation,
            previous.as_deref(),
        ));
        *views = Some(v.clone());
        v
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

    /// Runs `f` with the store for writing (the watcher's graph
    /// replacements), then starts a new generation: cached answers go and a
    /// running warm-up is cancelled. The generation moves before the write
    /// lock is released, so whoever sees the change (every route takes the
    /// read lock) also sees the new generation: no answer of the old store
    /// is served after it.
    pub fn with_store_mut<T>(&self, f: impl FnOnce(&mut CheckpointStore) -> T) -> T {
        let mut store = self.store.write().unwrap_or_else(|e| e.into_inner());
        let r = f(&mut store);
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        self.cache.invalidate(generation);
        self.cancel_warming();
        // The views of the new generation, swapped in before the store is
        // let go: a request sees the old views or the new, whole.
        let mut views = self.views.lock().unwrap_or_else(|e| e.into_inner());
        let previous = views.as_ref().map(|v| v.table.clone());
        *views = Some(Arc::new(karenina_ld::table::views::Views::build(
            &store,
            generation,
            previous.as_deref(),
        )));
        drop(views);
        drop(store);
        r
    }

    /// Rebuilds the Oxigraph store once the quads it keeps for nothing (a
    /// graph replaced or removed: see [`CheckpointStore::waste`]) reach a
    /// quarter of those it holds, so that a served store's size and query
    /// time depend on what it holds, not on how often its files changed.
    /// The copy is made while queries go on (on the old store); the swap
    /// changes no answer, so the generation, the cache and the entity tags
    /// stay. Skipped when the store changed meanwhile (the next change
    /// tries again). True when it rebuilt.
    pub fn compact(&self) -> bool {
        let (generation, fresh) = {
            let store = self.store.read().unwrap_or_else(|e| e.into_inner());
            let (dead, live) = store.waste();
            if dead == 0 || dead.saturating_mul(4) < live {
                return false;
            }
            (self.generation.load(Ordering::SeqCst), store.rebuilt())
        };
        let Ok(fresh) = fresh else { return false };
        let mut store = self.store.write().unwrap_or_else(|e| e.into_inner());
        if self.generation.load(Ordering::SeqCst) != generation {
            return false;
        }
        let old = store.replace_store(fresh);
        drop(store);
        drop(old);
        karenina_ld::memory::release();
        true
    }

    /// The store's generation: 0 after loading, one more after every change.
    pub fn generation(&self) -> u64 {
        let _store = self.store.read().unwrap_or_else(|e| e.into_inner());
        self.generation.load(Ordering::SeqCst)
    }

    /// [`State::generation`], or `None` while a change holds the store.
    fn generation_now(&self) -> Option<u64> {
        let _store = self.store.try_read().ok()?;
        Some(self.generation.load(Ordering::SeqCst))
    }

    /// The Oxigraph store and its generation, read together.
    fn snapshot(&self) -> (oxigraph::store::Store, u64) {
        let store = self.store.read().unwrap_or_else(|e| e.into_inner());
        (
            store.store().clone(),
            self.generation.load(Ordering::SeqCst),
        )
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

    /// Cancels every running query (a stopping server).
    pub fn cancel_all(&self) {
        for c in self
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
        {
            c.cancel();
        }
    }

    /// Graph Store Protocol read: one graph (or the default graph) in an RDF
    /// format chosen by `accept`.
    pub fn graph(&self, graph: Option<&str>, accept: Option<&str>) -> Answer {
        let Some((format, media)) = negotiate_rdf(accept, None) else {
            return Answer::text(
                406,
                format!(
                    "supported: {}",
                    negotiate::supported(sparql::QueryForm::Construct)
                ),
            );
        };
        if let Some(g) = graph {
            let partial = self.with_store(|s| s.graphs().any(|i| i.graph == g && i.keys_only));
            if partial {
                return Answer::text(
                    409,
                    format!(
                        "graph {g} holds each result's keys only (kld serve --result-quads keys), not the run's whole graph: read the run's file, or serve it with --result-quads all"
                    ),
                );
            }
        }
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
        // The Graph Store Protocol answers a graph: its triples, in no
        // named graph (a JSON-LD document is then a plain graph document,
        // not a node named by the graph IRI).
        let quads: Vec<oxigraph::model::Quad> = quads
            .into_iter()
            .map(|q| {
                oxigraph::model::Quad::new(
                    q.subject,
                    q.predicate,
                    q.object,
                    oxigraph::model::GraphName::DefaultGraph,
                )
            })
            .collect();
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
                .filter(|g| g.kind == karenina_ld::store::GraphKind::Checkpoint)
                .cloned()
                .collect()
        };
        // The summaries of graphs no longer loaded (or since changed) go.
        {
            let current: std::collections::BTreeSet<(&str, &str)> = infos
                .iter()
                .map(|i| (i.graph.as_str(), i.sha256.as_str()))
                .collect();
            self.summaries
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .retain(|(g, sha), _| current.contains(&(g.as_str(), sha.as_str())));
        }
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
                    let s = karenina_ld::contents::count(&cp);
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
        if info.kind == karenina_ld::store::GraphKind::Results {
            return Answer::text(
                400,
                format!(
                    "{graph} is a results export's graph, not a checkpoint: query it at /sparql (GRAPH <{}>)",
                    info.graph
                ),
            );
        }
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
        sparql::CATALOGUE
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

/// A page asset or other fixed body: 200 with its content type (a static
/// body is sent without a copy).
fn asset(ctype: &'static str, body: impl Into<axum::body::Body>) -> axum::response::Response {
    use axum::http::{header, HeaderValue, StatusCode};
    use axum::response::IntoResponse;
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, HeaderValue::from_static(ctype))],
        body.into(),
    )
        .into_response()
}
