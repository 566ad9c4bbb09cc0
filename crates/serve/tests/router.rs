//! The endpoint's router in process (issue 20): requests go through
//! `serve::http::router` with `tower::ServiceExt::oneshot`, no port, no
//! process, so the HTTP contract is tested on any machine. The real server
//! on a loopback port is tested in `crates/cli/tests/cli/serve.rs` and
//! `crates/cli/tests/cli/hostile_serve.rs`.

#[path = "../../../tests/common/mod.rs"]
mod common;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use karenina_ld::rdf::Processor;
use karenina_ld::store::CheckpointStore;
use karenina_ld_serve::{http::router, Settings, State};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tower::ServiceExt;

fn examples() -> Vec<PathBuf> {
    crate::common::jsonld_in(&PathBuf::from(env!("KLD_SOURCE_ROOT")).join("examples"))
}

fn app(settings: Settings) -> axum::Router {
    let mut store = CheckpointStore::in_memory().unwrap();
    for (f, r) in store.load_files(&examples(), Processor::Direct, &|_, _| ()) {
        r.unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    }
    let bound: SocketAddr = "127.0.0.1:7878".parse().unwrap();
    router(State::new(store, settings), false, None, bound)
}

/// Sends one request; returns status, headers and body text.
fn send(app: &axum::Router, req: Request<Body>) -> (StatusCode, axum::http::HeaderMap, String) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let resp = app.clone().oneshot(req).await.unwrap();
        let (parts, body) = resp.into_parts();
        let bytes = axum::body::to_bytes(body, 64 << 20).await.unwrap();
        (
            parts.status,
            parts.headers,
            String::from_utf8_lossy(&bytes).into_owned(),
        )
    })
}

fn get(uri: &str) -> axum::http::request::Builder {
    Request::get(uri).header(header::HOST, "localhost:7878")
}

fn encoded(q: &str) -> String {
    url::form_urlencoded::byte_serialize(q.as_bytes()).collect()
}

#[test]
fn queries_answer_in_the_negotiated_format_and_the_catalogue_is_listed() {
    let app = app(Settings::default());
    let (s, h, body) = send(
        &app,
        get(&format!("/sparql?query={}", encoded("ASK { ?s ?p ?o }")))
            .header(header::ACCEPT, "application/sparql-results+json")
            .body(Body::empty())
            .unwrap(),
    );
    assert_eq!(s, StatusCode::OK, "{body}");
    assert!(h[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("application/sparql-results+json"));
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["boolean"], true);

    let (s, _, body) = send(&app, get("/queries").body(Body::empty()).unwrap());
    assert_eq!(s, StatusCode::OK);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        v.as_array().map(Vec::len),
        Some(karenina_ld::sparql::CATALOGUE.len()),
        "{body}"
    );

    let (s, _, body) = send(&app, get("/checkpoints").body(Body::empty()).unwrap());
    assert_eq!(s, StatusCode::OK);
    let n = examples().len();
    assert_eq!(body.matches("\"graph\"").count(), n, "{body}");
}

#[test]
fn each_refusal_has_its_status() {
    let app = app(Settings::default());
    // An UPDATE: 403, and nothing changes.
    let (s, _, body) = send(
        &app,
        Request::post("/sparql")
            .header(header::HOST, "localhost")
            .header(header::CONTENT_TYPE, "application/sparql-update")
            .body(Body::from("DROP ALL"))
            .unwrap(),
    );
    assert_eq!(s, StatusCode::FORBIDDEN, "{body}");
    let (s, _, body) = send(
        &app,
        Request::post("/sparql")
            .header(header::HOST, "localhost")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(format!(
                "query={}",
                encoded("DELETE WHERE { ?s ?p ?o }")
            )))
            .unwrap(),
    );
    assert_eq!(s, StatusCode::FORBIDDEN, "{body}");
    // A syntax error: 400 with the position.
    let (s, _, body) = send(
        &app,
        get(&format!(
            "/sparql?query={}",
            encoded("SELECT ?x WHERE { ?x ")
        ))
        .body(Body::empty())
        .unwrap(),
    );
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(body.contains("syntax error at 1:"), "{body}");
    // An empty query, a format that does not fit: 400 / 406.
    let (s, _, _) = send(&app, get("/sparql?query=").body(Body::empty()).unwrap());
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (s, _, body) = send(
        &app,
        get(&format!(
            "/sparql?query={}",
            encoded("CONSTRUCT WHERE { ?s ?p ?o }")
        ))
        .header(header::ACCEPT, "application/sparql-results+json")
        .body(Body::empty())
        .unwrap(),
    );
    assert_eq!(s, StatusCode::NOT_ACCEPTABLE, "{body}");
    // Another website's Host (DNS rebinding): 403 before any route runs.
    let (s, _, body) = send(
        &app,
        Request::get("/checkpoints")
            .header(header::HOST, "evil.example")
            .body(Body::empty())
            .unwrap(),
    );
    assert_eq!(s, StatusCode::FORBIDDEN, "{body}");
    // No such route, no such named query.
    let (s, _, _) = send(&app, get("/nope").body(Body::empty()).unwrap());
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _, _) = send(&app, get("/queries/nope").body(Body::empty()).unwrap());
    assert_eq!(s, StatusCode::NOT_FOUND);
}

#[test]
fn another_origin_is_refused_and_gets_no_cors_header_unless_allowed() {
    let q = format!("/sparql?query={}", encoded("ASK {}"));
    let req = || {
        get(&q)
            .header(header::ORIGIN, "http://other.example")
            .body(Body::empty())
            .unwrap()
    };
    let app_default = app(Settings::default());
    let (s, h, body) = send(&app_default, req());
    assert_eq!(s, StatusCode::FORBIDDEN, "{body}");
    assert!(body.contains("another origin"), "{body}");
    assert!(
        h.get(header::ACCESS_CONTROL_ALLOW_ORIGIN).is_none(),
        "{h:?}"
    );
    // Another site's <script src> or <img> (no Origin on a GET): refused on
    // every route that runs something; the page itself opens from a link.
    for path in [
        q.as_str(),
        "/checkpoints",
        "/queries/benchmark-stats",
        "/store?default",
    ] {
        let (s, _, body) = send(
            &app_default,
            get(path)
                .header("sec-fetch-site", "cross-site")
                .body(Body::empty())
                .unwrap(),
        );
        assert_eq!(s, StatusCode::FORBIDDEN, "{path}: {body}");
    }
    for site in ["cross-site", "same-origin", "none"] {
        let (s, _, _) = send(
            &app_default,
            get("/")
                .header("sec-fetch-site", site)
                .body(Body::empty())
                .unwrap(),
        );
        assert_eq!(s, StatusCode::OK, "the page, {site}");
    }
    // The page's own requests pass.
    let (s, _, body) = send(
        &app_default,
        get(&q)
            .header(header::ORIGIN, "http://localhost:7878")
            .header("sec-fetch-site", "same-origin")
            .body(Body::empty())
            .unwrap(),
    );
    assert_eq!(s, StatusCode::OK, "{body}");
    let allowed = Settings {
        cors: vec!["http://other.example".into()],
        ..Settings::default()
    };
    let (s, h, _) = send(&app(allowed), req());
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        h.get(header::ACCESS_CONTROL_ALLOW_ORIGIN)
            .map(|v| v.to_str().unwrap()),
        Some("http://other.example")
    );
}

#[test]
fn a_runaway_query_stops_at_the_time_limit_with_503() {
    let settings = Settings {
        timeout: Duration::from_secs(1),
        ..Settings::default()
    };
    let app = app(settings);
    let t = Instant::now();
    let (s, _, body) = send(
        &app,
        get(&format!(
            "/sparql?query={}",
            encoded("SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }")
        ))
        .header(header::ACCEPT, "application/sparql-results+json")
        .body(Body::empty())
        .unwrap(),
    );
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(body.contains("time limit"), "{body}");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}
