//! The policy layers in front of `kld serve`'s routes: the `Host` check,
//! the cross-site refusal, the request body's size and read deadline, and
//! the log line of every request (cancelled ones included).
//!
//! Why: the endpoint has no authentication and runs on a laptop whose
//! browser visits other websites. Any page can make the browser send
//! requests to `127.0.0.1`: a `<script src>`, an `<img>` or a form POST
//! needs no CORS, so CORS alone let other websites run queries and time
//! them (a condition that holds answers after the time limit, one that does
//! not at once: benchmark names leaked prefix by prefix). Such requests are
//! refused before anything runs; a DNS-rebinding name is refused by `Host`.

use super::conn::{Arrived, Watched};
use super::listen::{host_allowed, HEADER_READ_TIMEOUT, MAX_BODY_BYTES};
use super::Answer;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why a request is refused as coming from another website's page, or
/// `None` when it may run: its `Origin` is the server's own or one allowed
/// by `--cors` (`*` allows all); without an `Origin`, a `Sec-Fetch-Site` of
/// `cross-site` or `same-site` (another port or name of the same host is
/// another origin too) is refused, while `same-origin`, `none` (typed in
/// the address bar, a bookmark) and no such header (curl, SPARQLWrapper and
/// other clients that are not browsers) pass.
pub fn cross_site(headers: &HeaderMap, cors: &[String]) -> Option<String> {
    if cors.iter().any(|o| o == "*") {
        return None;
    }
    let text = |name: &str| headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"));
    if let Some(origin) = text(header::ORIGIN.as_str()) {
        let origin = origin.trim_end_matches('/');
        let own = text(header::HOST.as_str()).map(|h| format!("http://{h}"));
        let same = |a: &str, b: &str| {
            a.trim_end_matches(":80")
                .eq_ignore_ascii_case(b.trim_end_matches(":80"))
        };
        if own.is_some_and(|own| same(origin, &own))
            || cors.iter().any(|c| same(origin, c.trim_end_matches('/')))
        {
            return None;
        }
        return Some(format!(
            "refused: a request from the page of {origin:?}, another origin, may not run anything here \
             (kld serve answers its own page and clients that are not browsers; --cors ORIGIN allows a page)"
        ));
    }
    match text("sec-fetch-site") {
        Some(site @ ("cross-site" | "same-site")) => Some(format!(
            "refused: a {site} request from another website's page may not run anything here \
             (kld serve answers its own page and clients that are not browsers; --cors ORIGIN allows a page)"
        )),
        _ => None,
    }
}

/// The middleware of [`cross_site`]: 403 before the request's body is read
/// or its query parsed.
pub(super) async fn refuse_cross_site(
    cors: Arc<Vec<String>>,
    req: Request,
    next: Next,
) -> Response {
    match cross_site(req.headers(), &cors) {
        Some(why) => super::app::respond(Answer::text(403, why)),
        None => next.run(req).await,
    }
}

/// Why a request's `Host` is refused, or `None`: one `Host` (or an
/// authority in the request line), visible ASCII, naming this machine
/// ([`host_allowed`]).
pub fn host_refusal(req: &Request, bound: SocketAddr, allowed: &[String]) -> Option<String> {
    let mut hosts = req.headers().get_all(header::HOST).iter();
    let host = match (hosts.next(), hosts.next()) {
        (Some(_), Some(_)) => return Some("more than one Host header".into()),
        (Some(h), None) => match h.to_str() {
            Ok(h) => h.to_string(),
            Err(_) => {
                return Some(format!(
                    "Host {:?} is not this server: a Host is plain ASCII",
                    String::from_utf8_lossy(h.as_bytes())
                ))
            }
        },
        (None, _) => req.uri().authority()?.to_string(),
    };
    (!host_allowed(&host, bound, allowed)).then(|| {
        format!(
            "Host {host:?} is not this server: it answers requests for localhost and its own address only (its operator can allow more names)"
        )
    })
}

/// A response that also closes the connection (the request's body is left
/// unread).
fn closing(a: Answer) -> Response {
    let mut r = super::app::respond(a);
    r.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

/// Reads a request's body whole before the route sees it: a declared
/// `Content-Length` over [`MAX_BODY_BYTES`] is answered 413 at once, a body
/// that grows past it 413, and one that has not arrived within
/// [`HEADER_READ_TIMEOUT`] (or the request's `limit`, if shorter) of the
/// request 408; each closes the connection.
pub(super) async fn bounded_body(limit: Duration, req: Request, next: Next) -> Response {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY_BYTES as u64) {
        return closing(too_large());
    }
    if http_body::Body::is_end_stream(req.body()) {
        return next.run(req).await;
    }
    let arrived = req
        .extensions()
        .get::<Arrived>()
        .map_or_else(Instant::now, |a| a.0);
    let (parts, body) = req.into_parts();
    let read = async {
        let mut data = futures_util::StreamExt::fuse(body.into_data_stream());
        let mut whole: Vec<u8> = Vec::new();
        while let Some(chunk) = futures_util::StreamExt::next(&mut data).await {
            let Ok(chunk) = chunk else {
                return Err(Answer::text(400, "the request body could not be read"));
            };
            if whole.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(too_large());
            }
            whole.extend_from_slice(&chunk);
        }
        Ok(Bytes::from(whole))
    };
    let within = HEADER_READ_TIMEOUT.min(limit);
    match tokio::time::timeout_at((arrived + within).into(), read).await {
        Ok(Ok(bytes)) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Ok(Err(a)) => closing(a),
        Err(_) => closing(Answer::text(
            408,
            format!(
                "the request body did not arrive within {} s",
                within.as_secs_f64()
            ),
        )),
    }
}

fn too_large() -> Answer {
    Answer::text(
        413,
        format!("the request body is over {} MiB", MAX_BODY_BYTES >> 20),
    )
}

/// The headers that say who may show the server's responses in a frame:
/// nobody (`frame-ancestors 'none'` and `X-Frame-Options: DENY`, the
/// latter for browsers that predate CSP), or the origins given
/// (`--allow-framing`). A page framed by another site could be driven by
/// it (its permalinks filled in, its history written, queries run).
pub(super) fn framing_headers(origins: &[String]) -> HeaderMap {
    let mut h = HeaderMap::new();
    let sources: Vec<&str> = origins
        .iter()
        .map(|o| o.trim().trim_end_matches('/'))
        .filter(|o| {
            !o.is_empty()
                && o.bytes()
                    .all(|b| b.is_ascii_graphic() && b != b';' && b != b',')
        })
        .collect();
    let policy = if sources.is_empty() {
        h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        "frame-ancestors 'none'".to_string()
    } else {
        format!("frame-ancestors {}", sources.join(" "))
    };
    if let Ok(v) = HeaderValue::from_str(&policy) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    h
}

/// Logs one line when dropped before [`LogLine::done`]: the request was
/// cancelled (its client disconnected) and is logged like others, 499.
struct LogLine {
    log: Arc<dyn Fn(String) + Send + Sync>,
    method: Method,
    path: String,
    start: Instant,
    done: bool,
}

impl LogLine {
    fn write(&mut self, status: u16, why: &str) {
        self.done = true;
        (self.log)(format!(
            "{} {} {status} {}ms{}",
            self.method,
            self.path,
            self.start.elapsed().as_millis(),
            if why.is_empty() {
                String::new()
            } else {
                format!(" {why}")
            }
        ));
    }
}

impl Drop for LogLine {
    fn drop(&mut self) {
        if !self.done {
            self.write(499, "the client disconnected before the answer");
        }
    }
}

/// The log middleware: `METHOD PATH STATUS MILLISECONDSms`, then a refusal's
/// reason (the first line of its plain-text body).
pub(super) async fn log_request(
    log: Arc<dyn Fn(String) + Send + Sync>,
    req: Request,
    next: Next,
) -> Response {
    let head = req.method() == Method::HEAD;
    let mut line = LogLine {
        log,
        method: req.method().clone(),
        path: req.uri().path().to_string(),
        start: req
            .extensions()
            .get::<Arrived>()
            .map_or_else(Instant::now, |a| a.0),
        done: false,
    };
    let resp = next.run(req).await;
    let status = resp.status();
    // A refusal says why in its (short, plain-text) body: the log says it too.
    let (resp, why) = if status.is_client_error() || status.is_server_error() {
        let (parts, body) = resp.into_parts();
        let bytes = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
        let why = String::from_utf8_lossy(&bytes)
            .lines()
            .next()
            .unwrap_or("")
            .to_string();
        (Response::from_parts(parts, Body::from(bytes)), why)
    } else {
        (resp, String::new())
    };
    line.write(status.as_u16(), &why);
    if head {
        // Its body is never sent.
        return resp;
    }
    // An answer cut after its headers (time or size limit, a client that
    // left or did not read) gets a second line saying so.
    let mut cut = line;
    resp.map(|body| {
        Body::new(Watched::new(
            body,
            Box::new(move |why| {
                let why = why.unwrap_or_else(|| "the client disconnected".into());
                cut.write(status.as_u16(), &format!("answer cut off: {why}"));
            }),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &[u8])]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_bytes(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn cross_site_requests_are_refused_and_the_page_and_clients_pass() {
        let host: (&str, &[u8]) = ("host", b"127.0.0.1:7879");
        let none: Vec<String> = Vec::new();
        let passes = [
            headers(&[host]),
            headers(&[host, ("sec-fetch-site", b"same-origin")]),
            headers(&[host, ("sec-fetch-site", b"none")]),
            headers(&[host, ("origin", b"http://127.0.0.1:7879")]),
            headers(&[host, ("origin", b"HTTP://127.0.0.1:7879/")]),
        ];
        for h in &passes {
            assert_eq!(cross_site(h, &none), None, "{h:?}");
        }
        let refused = [
            headers(&[host, ("sec-fetch-site", b"cross-site")]),
            headers(&[host, ("sec-fetch-site", b"same-site")]),
            headers(&[host, ("origin", b"https://example.org")]),
            headers(&[host, ("origin", b"http://127.0.0.1:8000")]),
            headers(&[host, ("origin", b"null")]),
            headers(&[host, ("origin", b"\xff")]),
            headers(&[("origin", b"http://127.0.0.1:7879")]),
        ];
        for h in &refused {
            assert!(cross_site(h, &none).is_some(), "{h:?}");
        }
        let jupyter = vec!["http://localhost:8888/".to_string()];
        let h = headers(&[
            host,
            ("origin", b"http://localhost:8888"),
            ("sec-fetch-site", b"cross-site"),
        ]);
        assert_eq!(cross_site(&h, &jupyter), None);
        assert!(cross_site(&refused[2], &jupyter).is_some());
        assert_eq!(cross_site(&refused[0], &["*".to_string()]), None);
    }

    #[test]
    fn a_host_that_is_not_ascii_or_given_twice_is_refused() {
        let bound: SocketAddr = "127.0.0.1:7879".parse().unwrap();
        let req = |hosts: &[&[u8]]| {
            let mut r = Request::new(Body::empty());
            for h in hosts {
                r.headers_mut()
                    .append(header::HOST, HeaderValue::from_bytes(h).unwrap());
            }
            r
        };
        assert_eq!(host_refusal(&req(&[b"localhost:7879"]), bound, &[]), None);
        assert_eq!(host_refusal(&req(&[]), bound, &[]), None);
        for bad in [
            &[&b"localhost\xff"[..]][..],
            &[b"\xff"],
            &[b"localhost", b"localhost"],
            &[b"evil.example"],
        ] {
            assert!(host_refusal(&req(bad), bound, &[]).is_some(), "{bad:?}");
        }
    }
}
