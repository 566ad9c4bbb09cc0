//! The HTTP client for existing SPARQL servers: SPARQL 1.1 Protocol queries
//! (form-encoded POST: some servers hang on `application/sparql-query`
//! bodies) and Graph Store Protocol reads, replacements and deletions, with
//! bounded retries and basic or digest authentication. Credentials are only
//! held here; no message ever contains them.

use super::{Auth, AuthKind, Endpoints};
use karenina_ld::error::{Error, Result};
use reqwest::blocking::{Client, RequestBuilder, Response};
use reqwest::{Method, StatusCode};
use std::time::{Duration, Instant};

/// Attempts per request (the first plus retries) on connection errors and 5xx.
pub const ATTEMPTS: u32 = 4;
/// First backoff; doubled after each failed attempt (0.25 + 0.5 + 1 s).
pub const BACKOFF: Duration = Duration::from_millis(250);
/// No retry starts after this long.
pub const RETRY_BUDGET: Duration = Duration::from_secs(20);

/// A failed request: what, where, the status and the server's own message.
fn http_err(what: &str, url: &str, status: StatusCode, body: &str) -> Error {
    Error::HttpStatus {
        what: what.to_string(),
        url: super::redact(url),
        status: status.as_u16(),
        body: body.trim().chars().take(500).collect(),
    }
}

/// True when `e` is a request that never got an HTTP answer (after retries):
/// the server is down or unreachable, so a batch should stop sending.
pub fn is_unreachable(e: &Error) -> bool {
    e.is_unreachable()
}

/// A client bound to one server's endpoints.
pub struct RemoteClient {
    http: Client,
    /// The endpoints in use.
    pub endpoints: Endpoints,
    auth: Option<Auth>,
}

impl RemoteClient {
    /// A client for `endpoints` (HTTP timeouts: 10 s to connect, 300 s per request).
    pub fn new(endpoints: Endpoints, auth: Option<Auth>) -> Result<Self> {
        let http = Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(300))
            .user_agent(concat!("karenina-ld/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Error::Internal(format!("HTTP client: {e}")))?;
        Ok(RemoteClient {
            http,
            endpoints,
            auth,
        })
    }

    /// Sends a request built by `build` (called again for each attempt),
    /// retrying connection errors and 5xx with backoff, answering a digest
    /// challenge once. Returns the final response, successful or not.
    fn send(
        &self,
        what: &str,
        method: Method,
        url: &str,
        build: &dyn Fn(RequestBuilder) -> RequestBuilder,
    ) -> Result<Response> {
        let start = Instant::now();
        let mut delay = BACKOFF;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let result = self.send_once(method.clone(), url, build);
            let retry = match &result {
                Err(_) => true,
                Ok(r) => r.status().is_server_error(),
            };
            if !retry || attempt >= ATTEMPTS || start.elapsed() + delay > RETRY_BUDGET {
                return match result {
                    Ok(r) => Ok(r),
                    Err(reason) => Err(Error::Unreachable {
                        what: what.to_string(),
                        url: super::redact(url),
                        reason,
                        attempts: attempt,
                    }),
                };
            }
            std::thread::sleep(delay);
            delay *= 2;
        }
    }

    fn send_once(
        &self,
        method: Method,
        url: &str,
        build: &dyn Fn(RequestBuilder) -> RequestBuilder,
    ) -> std::result::Result<Response, String> {
        let base = || build(self.http.request(method.clone(), url));
        let req = match &self.auth {
            Some(Auth {
                kind: AuthKind::Basic,
                user,
                password,
            }) => base().basic_auth(user, Some(password)),
            Some(Auth {
                kind: AuthKind::Bearer,
                password,
                ..
            }) => base().bearer_auth(password),
            _ => base(),
        };
        let resp = req.send().map_err(|e| connection_message(&e))?;
        let Some(Auth {
            kind: AuthKind::Digest,
            user,
            password,
        }) = &self.auth
        else {
            return Ok(resp);
        };
        if resp.status() != StatusCode::UNAUTHORIZED {
            return Ok(resp);
        }
        let Some(challenge) = resp
            .headers()
            .get(reqwest::header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .filter(|v| v.trim_start().to_ascii_lowercase().starts_with("digest"))
            .map(str::to_string)
        else {
            return Ok(resp);
        };
        let path = reqwest::Url::parse(url)
            .map(|u| match u.query() {
                Some(q) => format!("{}?{q}", u.path()),
                None => u.path().to_string(),
            })
            .unwrap_or_else(|_| url.to_string());
        let mut prompt =
            digest_auth::parse(&challenge).map_err(|e| format!("bad digest challenge: {e}"))?;
        let cx = digest_auth::AuthContext::new_with_method(
            user.as_str(),
            password.as_str(),
            path,
            Option::<&[u8]>::None,
            digest_auth::HttpMethod::from(method.as_str().to_string()),
        );
        let header = prompt.respond(&cx).map_err(|e| format!("digest: {e}"))?;
        base()
            .header(reqwest::header::AUTHORIZATION, header.to_header_string())
            .send()
            .map_err(|e| connection_message(&e))
    }

    /// Runs a query; returns the body (SPARQL results or RDF, per `accept`).
    pub fn query(&self, sparql: &str, accept: &str) -> Result<Vec<u8>> {
        let url = self.endpoints.query.clone();
        let form: Vec<(&str, &str)> = vec![("query", sparql)];
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let r = self.send("query", Method::POST, &url, &|b| {
            b.header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", accept)
                .body(body.clone())
        })?;
        ok_bytes("query", &url, r)
    }

    fn gsp_url(&self, graph: &str) -> Result<String> {
        let base = self
            .endpoints
            .graph_store
            .as_deref()
            .ok_or(Error::NoGraphStore)?;
        let mut u = reqwest::Url::parse(base).map_err(|e| {
            Error::Usage(format!(
                "bad Graph Store Protocol URL {}: {e}",
                super::redact(base)
            ))
        })?;
        u.query_pairs_mut()
            .append_pair(&self.endpoints.graph_param, graph);
        Ok(u.to_string())
    }

    /// Replaces a graph with N-Triples (Graph Store Protocol PUT).
    pub fn put_graph(&self, graph: &str, ntriples: Vec<u8>) -> Result<()> {
        let url = self.gsp_url(graph)?;
        let r = self.send("PUT", Method::PUT, &url, &|b| {
            b.header("Content-Type", "application/n-triples")
                .body(ntriples.clone())
        })?;
        ok_bytes("PUT", &url, r).map(drop)
    }

    /// Deletes a graph (Graph Store Protocol DELETE); a missing graph is fine.
    pub fn delete_graph(&self, graph: &str) -> Result<()> {
        let url = self.gsp_url(graph)?;
        let r = self.send("DELETE", Method::DELETE, &url, &|b| b)?;
        if r.status() == StatusCode::NOT_FOUND {
            return Ok(());
        }
        ok_bytes("DELETE", &url, r).map(drop)
    }

    /// Reads a graph as N-Triples (Graph Store Protocol GET).
    pub fn get_graph(&self, graph: &str) -> Result<Vec<u8>> {
        let url = self.gsp_url(graph)?;
        let r = self.send("GET", Method::GET, &url, &|b| {
            b.header("Accept", "application/n-triples")
        })?;
        ok_bytes("GET", &url, r)
    }
}

fn connection_message(e: &reqwest::Error) -> String {
    let mut m = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        m = format!("{m}: {s}");
        source = s.source();
    }
    // reqwest names the URL; a token in it is not printed.
    match e.url() {
        Some(u) => m.replace(u.as_str(), &super::redact(u.as_str())),
        None => m,
    }
}

fn ok_bytes(what: &str, url: &str, r: Response) -> Result<Vec<u8>> {
    let status = r.status();
    let body = r.bytes().map_err(|e| Error::RemoteAnswer {
        what: format!("{what} {}", super::redact(url)),
        reason: format!(
            "HTTP {status}, the body broke off: {}",
            connection_message(&e)
        ),
    })?;
    if status.is_success() {
        Ok(body.to_vec())
    } else {
        Err(http_err(what, url, status, &String::from_utf8_lossy(&body)))
    }
}
