//! What every handler of the endpoint shares: the application state a
//! handler is given ([`App`]), the request log's type, and the few helpers
//! that turn an [`Answer`] into a response and read a query string.
//!
//! Why a module of its own: the router (`http`) and the handlers it routes
//! to (`board`, `interop`, `stream`, `guard`) all need these; kept in the
//! router, every handler imported its own router back.

use super::{Answer, State};
use axum::body::Body;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use tokio::sync::Semaphore;

/// Receives one log line per request (`None`: quiet).
pub type Log = Option<Arc<dyn Fn(String) + Send + Sync>>;

#[derive(Clone)]
pub(super) struct App {
    pub(super) state: Arc<State>,
    pub(super) permits: Arc<Semaphore>,
    pub(super) waiting: Arc<AtomicUsize>,
    pub(super) watching: bool,
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

pub(super) fn accept(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}
