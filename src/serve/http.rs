//! The HTTP layer of `kld serve` (axum on hyper and tokio): routes to
//! [`State`]'s methods, a concurrency bound, streamed answers under the
//! request's deadline, and the layers of [`super::guard`] (Host, cross-site
//! refusal, CORS, body bounds, the log) in front. No protocol logic lives
//! here.
//!
//! Why CORS stays off unless asked for: any page can make the browser send
//! requests to `127.0.0.1`; without `Access-Control-Allow-Origin` it cannot
//! read the answers (and [`super::guard`] refuses to run what it sends).

use super::{catalogue, refuse_update, Answer, SparqlRequest, State};
use crate::query;
use axum::body::{Body, Bytes};
use axum::extract::{Path as UrlPath, RawQuery, Request, State as AxState};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Router};

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, Semaphore};
use tower_http::cors::{AllowOrigin, Any, CorsLayer};

pub use super::conn::Arrived;
pub use super::guard::{cross_site, MAX_BODY_BYTES};
pub use super::listen::{
    host_allowed, serve, HEADER_READ_TIMEOUT, MAX_CONNECTIONS, REQUEST_MARGIN,
};

const INDEX_HTML: &str = include_str!("page/index.html");
const APP_JS: &str = include_str!("page/app.js");
const STYLE_CSS: &str = include_str!("page/style.css");

/// Receives one log line per request (`None`: quiet).
pub type Log = Option<Arc<dyn Fn(String) + Send + Sync>>;

/// An answer is sent in chunks of this size; a query that fails before its
/// first chunk gets a proper error status.
const CHUNK: usize = 64 << 10;

#[derive(Clone)]
pub(super) struct App {
    pub(super) state: Arc<State>,
    permits: Arc<Semaphore>,
    waiting: Arc<AtomicUsize>,
    watching: bool,
}

/// How many queries may wait for a free slot per running slot before new
/// ones are turned away with 503.
const QUEUE_PER_SLOT: usize = 64;

/// What the query thread sends the response: first `Ready` (the media
/// type, the query's control and its cache headers) or `Failed`, then chunks
/// and `Done` or `Failed`; or, instead of all that, `Cached` (the response
/// from the cache: the whole answer, or 304).
enum Msg {
    Ready(&'static str, query::Control, Cache),
    Cached(Response),
    Chunk(Bytes),
    Done,
    Failed(Answer),
}

/// Sends the response a message from the query thread, waiting at most
/// until `deadline` for room (a client that does not read fills the
/// channel): the query's slot is never held past the request's deadline.
fn send_until(tx: &mpsc::Sender<Msg>, msg: Msg, deadline: Instant) -> std::io::Result<()> {
    let send = tokio::time::timeout_at(deadline.into(), tx.send(msg));
    match tokio::runtime::Handle::current().block_on(send) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(_)) => Err(std::io::Error::new(
            std::io::ErrorKind::BrokenPipe,
            "client gone",
        )),
        Err(_) => Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "the client did not read the answer before the time limit",
        )),
    }
}

/// Writes an answer into the response as chunks; fails once the response
/// is gone (the client left) or the deadline passes with the client not
/// reading, which stops the query.
struct ChannelWriter {
    tx: mpsc::Sender<Msg>,
    buf: Vec<u8>,
    deadline: Instant,
}

impl ChannelWriter {
    fn send(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::take(&mut self.buf));
        send_until(&self.tx, Msg::Chunk(chunk), self.deadline)
    }
}

impl std::io::Write for ChannelWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// How an answer relates to the cache: its `X-Kld-Cache` value (`hit`,
/// `miss`, or `off` with `--cache-mb 0`) and its entity tag.
#[derive(Clone)]
struct Cache {
    status: &'static str,
    etag: Option<String>,
}

impl Cache {
    /// Adds the cache's headers to a response.
    fn mark(&self, mut r: Response) -> Response {
        let h = r.headers_mut();
        h.insert("x-kld-cache", HeaderValue::from_static(self.status));
        if let Some(v) = self
            .etag
            .as_deref()
            .and_then(|e| HeaderValue::from_str(e).ok())
        {
            h.insert(header::ETAG, v);
        }
        r
    }
}

/// The response from the cache, if it has one: the whole answer (headers
/// only for HEAD), or 304 when `if_none_match` names its current tag.
fn cached(found: &super::Lookup, if_none_match: Option<&str>, head: bool) -> Option<Response> {
    let mark = Cache {
        status: "hit",
        etag: found.etag.clone(),
    };
    if let (Some(tag), Some(sent)) = (&found.etag, if_none_match) {
        if matches(sent, tag) {
            return Some(mark.mark(respond_bytes(304, "", Bytes::new())));
        }
    }
    let hit = found.hit.as_ref()?;
    let body = if head { Bytes::new() } else { hit.body.clone() };
    Some(mark.mark(respond_bytes(200, hit.media_type, body)))
}

/// True when an `If-None-Match` header names `etag` (or is `*`); weak
/// comparison, as RFC 9110 has it for `If-None-Match`.
fn matches(if_none_match: &str, etag: &str) -> bool {
    let bare = |t: &str| t.trim().trim_start_matches("W/").to_string();
    if_none_match
        .split(',')
        .any(|t| t.trim() == "*" || bare(t) == bare(etag))
}

/// Cancels a query when the request or its response is dropped before the
/// query finished (a client that went away).
struct CancelOnDrop(query::Control);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

impl App {
    /// Runs a query on the blocking pool once a slot is free; too many
    /// waiting queries get 503 at once rather than piling up. The answer is
    /// streamed; HEAD gets the headers a GET would, without running it.
    async fn query(
        &self,
        req: SparqlRequest,
        headers: &HeaderMap,
        head: bool,
        arrived: Option<Arrived>,
    ) -> Response {
        let accept = accept(headers);
        let if_none_match = if_none_match(headers);
        // A request prepared before whose answer is cached is answered here,
        // without a query slot.
        if let Some(found) = self.state.quick_lookup(&req, accept.as_deref()) {
            if let Some(r) = cached(&found, if_none_match.as_deref(), head) {
                return r;
            }
        }
        let limit = self.state.settings.max_concurrent.max(1);
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= limit * (QUEUE_PER_SLOT + 1) {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return respond(Answer::text(
                503,
                "too many queries at once; try again shortly",
            ));
        }
        // `--timeout` bounds the whole request from its arrival, reading its
        // body and waiting for a slot included: a query that waited its time
        // away gets none to run (so a queue of runaways drains at their
        // deadline instead of each running again).
        let deadline = arrived.map_or_else(Instant::now, |a| a.0) + self.state.settings.timeout;
        let wait =
            tokio::time::timeout_at(deadline.into(), self.permits.clone().acquire_owned()).await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        let permit = match wait {
            Ok(Ok(p)) => p,
            _ => {
                return respond(Answer::text(
                    503,
                    "the server is busy: no query slot became free in time",
                ))
            }
        };
        // One blocking task parses, negotiates and runs (one hop, not two):
        // its first message says what was prepared.
        let state = self.state.clone();
        let (tx, mut rx) = mpsc::channel::<Msg>(4);
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let mut prepared = match state.prepare(&req, accept.as_deref()) {
                Ok(p) => p,
                Err(a) => {
                    let _ = tx.blocking_send(Msg::Failed(a));
                    return;
                }
            };
            // From the cache: the whole answer at once, or nothing when the
            // client's copy is the current one.
            let found = state.lookup(&prepared);
            if let Some(r) = cached(&found, if_none_match.as_deref(), head) {
                let _ = tx.blocking_send(Msg::Cached(r));
                return;
            }
            let cache = |status| Cache {
                status,
                etag: found.etag.clone(),
            };
            let status = if found.etag.is_some() { "miss" } else { "off" };
            prepared.limit_time(deadline.saturating_duration_since(Instant::now()));
            let ready = Msg::Ready(
                prepared.negotiated.media_type,
                prepared.control(),
                cache(status),
            );
            if send_until(&tx, ready, deadline).is_err() || head {
                return;
            }
            let mut w = ChannelWriter {
                tx: tx.clone(),
                buf: Vec::with_capacity(CHUNK),
                deadline,
            };
            let msg = match state.run_prepared(&prepared, &mut w) {
                Ok(_) => match w.send() {
                    Ok(()) => Msg::Done,
                    Err(_) => return,
                },
                Err(a) => Msg::Failed(a),
            };
            let _ = send_until(&tx, msg, deadline);
        });
        // The deadline holds for the headers whatever the query thread does
        // (a parse that outlasts it included): past it (and a moment for the
        // query's own 503, which says more), 503.
        let headers_by = deadline + Duration::from_millis(250);
        let late = || {
            respond(super::error_answer(&crate::Error::Timeout {
                limit: self.state.settings.timeout,
            }))
        };
        let (media, guard, cache) = match tokio::time::timeout_at(headers_by.into(), rx.recv())
            .await
        {
            Ok(Some(Msg::Ready(media, control, cache))) => (media, CancelOnDrop(control), cache),
            Ok(Some(Msg::Cached(r))) => return r,
            Ok(Some(Msg::Failed(a))) => return respond(a),
            Err(_) => return late(),
            _ => return respond(Answer::text(500, "the query task ended without an answer")),
        };
        if head {
            drop(guard);
            return cache.mark(respond(Answer {
                status: 200,
                content_type: media.into(),
                body: Vec::new(),
            }));
        }
        // Whatever has arrived before the headers go out is held: an answer
        // complete by then is sent whole (with its length), and a failure by
        // then still gets its own status.
        let mut held: Vec<Bytes> = Vec::new();
        match tokio::time::timeout_at(headers_by.into(), rx.recv()).await {
            Ok(Some(Msg::Failed(a))) => return respond(a),
            Ok(Some(Msg::Done)) => return cache.mark(whole(media, held)),
            Ok(Some(Msg::Chunk(b))) => held.push(b),
            Err(_) => return late(),
            Ok(Some(Msg::Ready(..) | Msg::Cached(..)) | None) => {
                return respond(Answer::text(500, "the query ended without an answer"))
            }
        }
        loop {
            match rx.try_recv() {
                Ok(Msg::Chunk(b)) => held.push(b),
                Ok(Msg::Done) => return cache.mark(whole(media, held)),
                Ok(Msg::Failed(a)) => return respond(a),
                Ok(Msg::Ready(..) | Msg::Cached(..)) | Err(_) => break,
            }
        }
        // The rest streams; a failure mid-answer (time limit, size limit)
        // aborts the body, so the client sees an incomplete response.
        let rest =
            futures_util::stream::unfold((rx, guard, false), |(mut rx, guard, done)| async move {
                if done {
                    return None;
                }
                match rx.recv().await {
                    Some(Msg::Chunk(b)) => Some((Ok(b), (rx, guard, false))),
                    Some(Msg::Done | Msg::Ready(..) | Msg::Cached(..)) => None,
                    // The query thread ended without `Done` (it gave up on a
                    // client that did not read): cut, never a short whole.
                    None => Some((
                        Err(std::io::Error::other("the answer was cut off")),
                        (rx, guard, true),
                    )),
                    Some(Msg::Failed(a)) => {
                        let reason = String::from_utf8_lossy(&a.body).trim().to_string();
                        Some((Err(std::io::Error::other(reason)), (rx, guard, true)))
                    }
                }
            });
        let body = futures_util::stream::iter(held.into_iter().map(Ok::<_, std::io::Error>));
        let stream = futures_util::StreamExt::chain(body, rest);
        cache.mark(
            Response::builder()
                .status(StatusCode::OK)
                .header(header::CONTENT_TYPE, media)
                .body(Body::from_stream(stream))
                .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response()),
        )
    }
}

/// A complete answer from its chunks.
fn whole(media: &'static str, chunks: Vec<Bytes>) -> Response {
    respond(Answer {
        status: 200,
        content_type: media.into(),
        body: chunks.concat(),
    })
}

/// A response of shared bytes (a cached answer; no `Content-Type` when
/// `media` is empty).
fn respond_bytes(status: u16, media: &str, body: Bytes) -> Response {
    let mut r = Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR));
    if !media.is_empty() {
        r = r.header(header::CONTENT_TYPE, media);
    }
    r.body(Body::from(body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

pub(super) fn respond(a: Answer) -> Response {
    Response::builder()
        .status(StatusCode::from_u16(a.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header(header::CONTENT_TYPE, a.content_type)
        .body(Body::from(a.body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

pub(super) fn pairs(raw: Option<&str>) -> Vec<(String, String)> {
    raw.map(|q| {
        url::form_urlencoded::parse(q.as_bytes())
            .into_owned()
            .collect()
    })
    .unwrap_or_default()
}

fn accept(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

fn if_none_match(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// The endpoint's own URL, the base IRI of its queries.
fn base(headers: &HeaderMap, path: &str) -> Option<String> {
    let host = headers.get(header::HOST)?.to_str().ok()?;
    Some(format!("http://{host}{path}"))
}

fn arrived(ext: Option<Extension<Arrived>>) -> Option<Arrived> {
    ext.map(|Extension(a)| a)
}

fn request(pairs: Vec<(String, String)>) -> Result<SparqlRequest, Box<Response>> {
    SparqlRequest::from_pairs(pairs).map_err(|e| Box::new(respond(super::error_answer(&e))))
}

async fn sparql_get(
    AxState(app): AxState<App>,
    method: Method,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
    uri: axum::http::Uri,
    ext: Option<Extension<Arrived>>,
) -> Response {
    // No query and no update: the SPARQL 1.1 Service Description (written
    // off the runtime: JSON-LD compaction blocks).
    let given = pairs(q.as_deref());
    if !given.iter().any(|(k, _)| k == "query" || k == "update") {
        let endpoint =
            base(&headers, uri.path()).unwrap_or_else(|| "http://localhost/sparql".into());
        let format = given
            .into_iter()
            .find(|(k, _)| k == "format")
            .map(|(_, v)| v);
        let accept = accept(&headers);
        let described = tokio::task::spawn_blocking(move || {
            super::describe::answer(&endpoint, accept.as_deref(), format.as_deref())
        });
        return respond(described.await.unwrap_or_else(|_| {
            Answer::text(500, "the service description could not be written")
        }));
    }
    let mut req = match request(given) {
        Ok(r) => r,
        Err(resp) => return *resp,
    };
    req.base = base(&headers, uri.path());
    app.query(req, &headers, method == Method::HEAD, arrived(ext))
        .await
}

async fn sparql_post(
    AxState(app): AxState<App>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
    uri: axum::http::Uri,
    ext: Option<Extension<Arrived>>,
    body: Bytes,
) -> Response {
    let ctype = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let mut url_pairs = pairs(q.as_deref());
    let req = match ctype.as_str() {
        "application/x-www-form-urlencoded" => {
            url_pairs.extend(url::form_urlencoded::parse(&body).into_owned());
            request(url_pairs)
        }
        "application/sparql-query" => {
            let Ok(text) = String::from_utf8(body.to_vec()) else {
                return respond(Answer::text(400, "the query body is not UTF-8"));
            };
            if url_pairs.iter().any(|(k, _)| k == "query" || k == "update") {
                return respond(Answer::text(
                    400,
                    "a query in the body and another in the URL: send one",
                ));
            }
            request(url_pairs).map(|mut r| {
                r.query = Some(text);
                r
            })
        }
        "application/sparql-update" => return respond(refuse_update()),
        other => {
            return respond(Answer::text(
                415,
                format!("unsupported Content-Type {other:?}: use application/x-www-form-urlencoded or application/sparql-query"),
            ))
        }
    };
    let mut req = match req {
        Ok(r) => r,
        Err(resp) => return *resp,
    };
    req.base = base(&headers, uri.path());
    app.query(req, &headers, false, arrived(ext)).await
}

async fn named_query(
    AxState(app): AxState<App>,
    method: Method,
    UrlPath(name): UrlPath<String>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
    ext: Option<Extension<Arrived>>,
) -> Response {
    let Some(nq) = query::find(&name) else {
        return respond(Answer::text(
            404,
            format!(
                "no query named {name:?}{}; GET /queries lists them",
                query::suggest(&name)
                    .first()
                    .map(|s| format!(" (did you mean {s:?}?)"))
                    .unwrap_or_default()
            ),
        ));
    };
    let mut req = match request(
        pairs(q.as_deref())
            .into_iter()
            .filter(|(k, _)| k != "query" && k != "update")
            .collect(),
    ) {
        Ok(r) => r,
        Err(resp) => return *resp,
    };
    req.query = Some(nq.text.to_string());
    app.query(req, &headers, method == Method::HEAD, arrived(ext))
        .await
}

async fn store_get(
    AxState(app): AxState<App>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
) -> Response {
    let p = pairs(q.as_deref());
    let graph = p.iter().find(|(k, _)| k == "graph").map(|(_, v)| v.clone());
    let default = p.iter().any(|(k, _)| k == "default");
    if graph.is_none() && !default {
        return respond(Answer::text(400, "pass ?graph=IRI or ?default"));
    }
    let state = app.state.clone();
    let accept = accept(&headers);
    let a = tokio::task::spawn_blocking(move || state.graph(graph.as_deref(), accept.as_deref()))
        .await
        .unwrap_or_else(|e| Answer::text(500, e.to_string()));
    respond(a)
}

async fn checkpoints(AxState(app): AxState<App>) -> Response {
    let state = app.state.clone();
    let v = tokio::task::spawn_blocking(move || state.checkpoints())
        .await
        .unwrap_or_default();
    respond(Answer::json(&v))
}

async fn checkpoint(AxState(app): AxState<App>, RawQuery(q): RawQuery) -> Response {
    let Some(graph) = pairs(q.as_deref())
        .into_iter()
        .find(|(k, _)| k == "graph")
        .map(|(_, v)| v)
    else {
        return respond(Answer::text(400, "pass ?graph=IRI"));
    };
    let state = app.state.clone();
    let a = tokio::task::spawn_blocking(move || state.checkpoint_file(&graph))
        .await
        .unwrap_or_else(|e| Answer::text(500, e.to_string()));
    respond(a)
}

async fn errors(AxState(app): AxState<App>) -> Response {
    respond(Answer::json(&serde_json::json!({
        "watching": app.watching,
        "errors": app.state.errors(),
    })))
}

fn asset(ctype: &'static str, text: &'static str) -> Response {
    respond(Answer {
        status: 200,
        content_type: ctype.into(),
        body: text.as_bytes().to_vec(),
    })
}

/// The routes of `kld serve` over `state`, for a server bound to `bound`:
/// the page, and behind the cross-site refusal ([`cross_site`]) everything
/// else; in front of all, the `Host` check, the body bounds and the log.
pub fn router(state: Arc<State>, watching: bool, log: Log, bound: SocketAddr) -> Router {
    let settings = state.settings.clone();
    let app = App {
        permits: Arc::new(Semaphore::new(settings.max_concurrent.max(1))),
        waiting: Arc::new(AtomicUsize::new(0)),
        state,
        watching,
    };
    let cors = Arc::new(settings.cors.clone());
    let limit = settings.timeout;
    let work = Router::new()
        .route("/sparql", get(sparql_get).post(sparql_post))
        .route("/query", get(sparql_get).post(sparql_post))
        .route("/store", get(store_get))
        .route("/checkpoints", get(checkpoints))
        .route("/checkpoint", get(checkpoint))
        .route("/export", get(super::interop::export))
        .route(
            "/queries",
            get(|| async { respond(Answer::json(&catalogue())) }),
        )
        .route("/queries/{name}", get(named_query))
        .route("/errors", get(errors))
        .route(
            "/cache",
            get(|AxState(app): AxState<App>| async move {
                respond(Answer::json(&app.state.cache_report()))
            }),
        )
        // The cross-site refusal comes first: nothing of such a request is
        // read or run.
        .route_layer(axum::middleware::from_fn(move |req, next| {
            super::guard::bounded_body(limit, req, next)
        }))
        .route_layer(axum::middleware::from_fn(move |req, next| {
            super::guard::refuse_cross_site(cors.clone(), req, next)
        }));
    let mut router = Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/style.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE_CSS) }),
        )
        .merge(work)
        .fallback(|| async { respond(Answer::text(404, "no such route; see / for the page")) })
        .with_state(app)
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY_BYTES));
    if !settings.cors.is_empty() {
        let origins = if settings.cors.iter().any(|o| o == "*") {
            AllowOrigin::from(Any)
        } else {
            AllowOrigin::list(
                settings
                    .cors
                    .iter()
                    .filter_map(|o| HeaderValue::from_str(o.trim_end_matches('/')).ok()),
            )
        };
        router = router.layer(
            CorsLayer::new()
                .allow_origin(origins)
                .allow_methods([Method::GET, Method::POST, Method::HEAD, Method::OPTIONS])
                .allow_headers(Any),
        );
    }
    let allowed = Arc::new(settings.allowed_hosts);
    router = router.layer(axum::middleware::from_fn(
        move |req: Request, next: Next| {
            let refusal = super::guard::host_refusal(&req, bound, &allowed);
            async move {
                match refusal {
                    Some(why) => respond(Answer::text(403, why)),
                    None => next.run(req).await,
                }
            }
        },
    ));
    match log {
        None => router,
        Some(log) => router.layer(axum::middleware::from_fn(move |req, next| {
            super::guard::log_request(log.clone(), req, next)
        })),
    }
}
