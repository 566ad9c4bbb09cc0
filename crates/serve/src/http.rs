//! The HTTP layer of `kld serve` (axum on hyper and tokio): routes to
//! [`State`]'s methods (a query's way through the cache, the concurrency
//! bound and a streamed answer is [`super::stream`]), and the layers of [`super::guard`] (Host, cross-site
//! refusal, CORS, body bounds, the log) in front. No protocol logic lives
//! here.
//!
//! Why CORS stays off unless asked for: any page can make the browser send
//! requests to `127.0.0.1`; without `Access-Control-Allow-Origin` it cannot
//! read the answers (and [`super::guard`] refuses to run what it sends).

pub use super::app::Log;
use super::app::{accept, pairs, respond, App};
use super::{asset, catalogue, refuse_update, Answer, SparqlRequest, State};
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, RawQuery, Request, State as AxState};
use axum::http::{header, HeaderMap, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::get;
use axum::{Extension, Router};
use karenina_ld::sparql;

use std::net::SocketAddr;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use tokio::sync::Semaphore;
use tower_http::cors::{AllowOrigin, Any, CorsLayer};

pub use super::conn::Arrived;
pub use super::guard::cross_site;
pub use super::listen::{
    host_allowed, serve, HEADER_READ_TIMEOUT, MAX_BODY_BYTES, MAX_CONNECTIONS, REQUEST_MARGIN,
};

const INDEX_HTML: &str = include_str!("page/index.html");
const APP_JS: &str = include_str!("page/app.js");
const STYLE_CSS: &str = include_str!("page/style.css");

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
    let Some(nq) = sparql::find(&name) else {
        return respond(Answer::text(
            404,
            format!(
                "no query named {name:?}{}; GET /queries lists them",
                sparql::suggest(&name)
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
    if karenina_ld::table::answers::ANSWERED.contains(&name.as_str()) {
        let (state, accept, r) = (app.state.clone(), accept(&headers), req.clone());
        let answered = tokio::task::spawn_blocking(move || {
            super::board::table_answer(&state, &name, &r, accept.as_deref())
        })
        .await
        .ok()
        .flatten();
        if let Some(a) = answered {
            let mut r = respond(a);
            r.headers_mut()
                .insert("x-kld-cache", HeaderValue::from_static("table"));
            return r;
        }
    }
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
    app.in_slot(move || state.graph(graph.as_deref(), accept.as_deref()))
        .await
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
    app.in_slot(move || state.checkpoint_file(&graph)).await
}

async fn vocabulary(AxState(app): AxState<App>) -> Response {
    let state = app.state.clone();
    app.in_slot(move || state.vocabulary()).await
}

async fn errors(AxState(app): AxState<App>) -> Response {
    respond(Answer::json(&serde_json::json!({
        "watching": app.watching,
        "errors": app.state.errors(),
    })))
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
        .route("/leaderboard", get(super::board::leaderboard))
        .route("/matrix", get(super::board::matrix))
        .route("/grid", get(super::figures::grid))
        .route("/figure", get(super::figures::figure))
        .route("/compare", get(super::compare::compare))
        .route("/vocabulary", get(vocabulary))
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
        .merge(super::editor::routes())
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
        .route(
            "/table.js",
            get(|| async { asset("text/javascript; charset=utf-8", super::board::TABLE_JS) }),
        )
        .route(
            "/compare.js",
            get(|| async { asset("text/javascript; charset=utf-8", super::compare::COMPARE_JS) }),
        )
        .route(
            "/figures.js",
            get(|| async { asset("text/javascript; charset=utf-8", super::figures::FIGURES_JS) }),
        )
        .route(
            "/leaderboard.js",
            get(|| async {
                asset(
                    "text/javascript; charset=utf-8",
                    super::board::LEADERBOARD_JS,
                )
            }),
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
    let framing = super::guard::framing_headers(&settings.framing);
    router = router.layer(axum::middleware::from_fn(
        move |req: Request, next: Next| {
            let framing = framing.clone();
            async move {
                let mut resp = next.run(req).await;
                resp.headers_mut().extend(framing);
                resp
            }
        },
    ));
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
