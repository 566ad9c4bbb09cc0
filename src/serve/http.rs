//! The HTTP layer of `kld serve` (axum on tokio): routes to [`State`]'s
//! methods, a concurrency bound, CORS, one log line per request. No protocol
//! logic lives here.

use super::{catalogue, refuse_update, Answer, SparqlRequest, State};
use crate::query;
use axum::body::{Body, Bytes};
use axum::extract::{Path as UrlPath, RawQuery, Request, State as AxState};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::Semaphore;
use tower_http::cors::{Any, CorsLayer};

const INDEX_HTML: &str = include_str!("page/index.html");
const APP_JS: &str = include_str!("page/app.js");
const STYLE_CSS: &str = include_str!("page/style.css");

/// Receives one log line per request (`None`: quiet).
pub type Log = Option<Arc<dyn Fn(String) + Send + Sync>>;

#[derive(Clone)]
struct App {
    state: Arc<State>,
    permits: Arc<Semaphore>,
    waiting: Arc<AtomicUsize>,
    watching: bool,
}

/// How many queries may wait for a free slot per running slot before new
/// ones are turned away with 503.
const QUEUE_PER_SLOT: usize = 64;

impl App {
    /// Runs a query on the blocking pool once a slot is free; too many waiting
    /// queries get 503 at once rather than piling up.
    async fn query(&self, req: SparqlRequest, accept: Option<String>) -> Answer {
        let limit = self.state.settings.max_concurrent.max(1);
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= limit * (QUEUE_PER_SLOT + 1) {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Answer::text(503, "too many queries at once; try again shortly");
        }
        let wait = tokio::time::timeout(self.state.settings.timeout, self.permits.acquire()).await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        let permit = match wait {
            Ok(Ok(p)) => p,
            _ => return Answer::text(503, "the server is busy: no query slot became free in time"),
        };
        let state = self.state.clone();
        let answer =
            tokio::task::spawn_blocking(move || state.run_query(&req, accept.as_deref())).await;
        drop(permit);
        answer.unwrap_or_else(|e| Answer::text(500, format!("query task failed: {e}")))
    }
}

fn respond(a: Answer) -> Response {
    Response::builder()
        .status(StatusCode::from_u16(a.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header(header::CONTENT_TYPE, a.content_type)
        .body(Body::from(a.body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

fn pairs(raw: Option<&str>) -> Vec<(String, String)> {
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

async fn sparql_get(
    AxState(app): AxState<App>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
) -> Response {
    let req = SparqlRequest::from_pairs(pairs(q.as_deref()));
    respond(app.query(req, accept(&headers)).await)
}

async fn sparql_post(
    AxState(app): AxState<App>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
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
            SparqlRequest::from_pairs(url_pairs)
        }
        "application/sparql-query" => {
            let Ok(text) = String::from_utf8(body.to_vec()) else {
                return respond(Answer::text(400, "the query body is not UTF-8"));
            };
            let mut r = SparqlRequest::from_pairs(url_pairs);
            r.query = Some(text);
            r
        }
        "application/sparql-update" => return respond(refuse_update()),
        other => {
            return respond(Answer::text(
                415,
                format!("unsupported Content-Type {other:?}: use application/x-www-form-urlencoded or application/sparql-query"),
            ))
        }
    };
    respond(app.query(req, accept(&headers)).await)
}

async fn named_query(
    AxState(app): AxState<App>,
    UrlPath(name): UrlPath<String>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
) -> Response {
    let Some(nq) = query::find(&name) else {
        return respond(Answer::text(
            404,
            format!("no query named {name:?}; GET /queries lists them"),
        ));
    };
    let mut req = SparqlRequest::from_pairs(pairs(q.as_deref()));
    req.update = None;
    req.query = Some(nq.text.to_string());
    respond(app.query(req, accept(&headers)).await)
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

/// The routes of `kld serve` over `state`.
pub fn router(state: Arc<State>, watching: bool, log: Log) -> Router {
    let app = App {
        permits: Arc::new(Semaphore::new(state.settings.max_concurrent.max(1))),
        waiting: Arc::new(AtomicUsize::new(0)),
        state,
        watching,
    };
    let cors = CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST, Method::HEAD, Method::OPTIONS])
        .allow_headers(Any);
    let router = Router::new()
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
        .route("/sparql", get(sparql_get).post(sparql_post))
        .route("/query", get(sparql_get).post(sparql_post))
        .route("/store", get(store_get))
        .route("/checkpoints", get(checkpoints))
        .route("/checkpoint", get(checkpoint))
        .route(
            "/queries",
            get(|| async { respond(Answer::json(&catalogue())) }),
        )
        .route("/queries/{name}", get(named_query))
        .route("/errors", get(errors))
        .fallback(|| async { respond(Answer::text(404, "no such route; see / for the page")) })
        .with_state(app)
        .layer(cors);
    match log {
        None => router,
        Some(log) => router.layer(axum::middleware::from_fn(
            move |req: Request, next: Next| {
                let log = log.clone();
                async move {
                    let (method, path) = (req.method().clone(), req.uri().path().to_string());
                    let start = Instant::now();
                    let resp = next.run(req).await;
                    log(format!(
                        "{method} {path} {} {}ms",
                        resp.status().as_u16(),
                        start.elapsed().as_millis()
                    ));
                    resp
                }
            },
        )),
    }
}

/// Serves `router` on `listener` until `shutdown` resolves; in-flight
/// requests finish first.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await
}
