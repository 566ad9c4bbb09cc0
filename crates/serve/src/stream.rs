//! How a SPARQL request becomes a response: from the answer cache at once
//! when it holds the answer, else parsed and run on the blocking pool once a
//! query slot is free, its answer streamed under the request's deadline.
//!
//! Why apart from the routes ([`super::http`]): this is the one path every
//! query takes, with its own message protocol between the query thread and
//! the response; the routes only read requests.

use super::app::{accept, respond, App};
use super::conn::Arrived;
use super::{flight, Answer, PreparedQuery, SparqlRequest};
use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use karenina_ld::sparql;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, OwnedSemaphorePermit};

/// An answer is sent in chunks of this size; a query that fails before its
/// first chunk gets a proper error status.
pub(super) const CHUNK: usize = 64 << 10;

/// How many queries may wait for a free slot per running slot before new
/// ones are turned away with 503.
const QUEUE_PER_SLOT: usize = 64;

/// What the query thread sends the response: first `Ready` (the media
/// type, the query's control and its cache headers) or `Failed`, then chunks
/// and `Done` or `Failed`; or, instead of all that, `Cached` (the response
/// from the cache: the whole answer, or 304), or `Wait` (the same answer is
/// being computed for another request: the response waits for it, then
/// starts a query thread again with the prepared query).
enum Msg {
    Ready(&'static str, sparql::Control, Cache),
    Cached(Response),
    Chunk(Bytes),
    Done,
    Failed(Answer),
    Wait(flight::Following, Box<PreparedQuery>),
}

/// Where a query thread starts: a request to prepare, or a query prepared
/// by an earlier thread of the same request.
enum Start {
    Request(SparqlRequest),
    Prepared(Box<PreparedQuery>),
}

/// A request's work on a query thread.
struct Job {
    state: std::sync::Arc<super::State>,
    start: Start,
    accept: Option<String>,
    if_none_match: Option<String>,
    head: bool,
    deadline: Instant,
    /// How long the request waited for the slot this job holds.
    slot_waited: Duration,
}

impl Job {
    /// Prepares the query (unless it was), answers it from the cache, or
    /// hands the response the computation to wait for, or leads the
    /// computation: runs it, streaming its answer into `tx`, holding the
    /// query slot `_permit` meanwhile.
    fn run(self, _permit: OwnedSemaphorePermit, tx: mpsc::Sender<Msg>) {
        let Job {
            state,
            start,
            accept,
            if_none_match,
            head,
            deadline,
            slot_waited,
        } = self;
        let (mut prepared, waited) = match start {
            Start::Prepared(p) => (*p, true),
            Start::Request(req) => match state.prepare(&req, accept.as_deref()) {
                Ok(p) => (p, false),
                Err(a) => {
                    let _ = tx.blocking_send(Msg::Failed(a));
                    return;
                }
            },
        };
        prepared.waited_for_slot(slot_waited);
        // From the cache: the whole answer at once, or nothing when the
        // client's copy is the current one.
        let mut found = state.lookup(&prepared);
        if let Some(r) = cached(&found, if_none_match.as_deref(), head) {
            let _ = tx.blocking_send(Msg::Cached(r));
            return;
        }
        // A miss. The same answer being computed for another request: the
        // response waits for it. Otherwise lead: identical requests wait for
        // this one. Not for HEAD, which runs nothing, nor for a request that
        // waited once already: the computation it waited for ended with
        // nothing to share (too big to keep, stopped), so it computes now,
        // as the others that waited do, side by side.
        let turn = if head || waited {
            None
        } else {
            state.join(&prepared)
        };
        let leading = match turn {
            Some(flight::Turn::Follow(f)) => {
                let _ = tx.blocking_send(Msg::Wait(f, Box::new(prepared)));
                return;
            }
            Some(flight::Turn::Lead(leading)) => {
                // (Another may have ended between the lookup and now.)
                if state.is_cached(&prepared) {
                    found = state.lookup(&prepared);
                }
                Some(leading)
            }
            None => None,
        };
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
            leading: leading.as_ref(),
        };
        let ran = state.run_leading(&prepared, &mut w, leading.as_ref());
        // The answer is cached (or the failure recorded): the waiters need
        // not wait for this client to read the last chunk.
        w.leading = None;
        if let Some(l) = &leading {
            l.release();
        }
        let msg = match ran {
            Ok(_) => match w.send() {
                Ok(()) => Msg::Done,
                Err(_) => return,
            },
            Err(a) => Msg::Failed(a),
        };
        let _ = send_until(&tx, msg, deadline);
    }
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
/// reading, which stops the query. Before it waits for the client, it lets
/// go the requests waiting for this computation (`leading`): they compute
/// the answer themselves rather than wait on a client that may never read.
struct ChannelWriter<'l, 'f> {
    tx: mpsc::Sender<Msg>,
    buf: Vec<u8>,
    deadline: Instant,
    leading: Option<&'l flight::Leading<'f>>,
}

impl ChannelWriter<'_, '_> {
    fn send(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::take(&mut self.buf));
        let msg = match self.tx.try_send(Msg::Chunk(chunk)) {
            Ok(()) => return Ok(()),
            Err(mpsc::error::TrySendError::Full(msg)) => msg,
            Err(mpsc::error::TrySendError::Closed(_)) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::BrokenPipe,
                    "client gone",
                ))
            }
        };
        if let Some(l) = self.leading.take() {
            l.release();
        }
        send_until(&self.tx, msg, self.deadline)
    }
}

impl std::io::Write for ChannelWriter<'_, '_> {
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
/// only for HEAD), or 304 when `if_none_match` names its current tag, or is
/// `*` and the answer is held (RFC 9110 13.1.2: `*` matches only a current
/// representation; a query never run has none, so it runs).
fn cached(found: &super::Lookup, if_none_match: Option<&str>, head: bool) -> Option<Response> {
    let mark = Cache {
        status: "hit",
        etag: found.etag.clone(),
    };
    if let (Some(tag), Some(sent)) = (&found.etag, if_none_match) {
        if matches(sent, tag, found.hit.is_some()) {
            return Some(mark.mark(respond_bytes(304, "", Bytes::new())));
        }
    }
    let hit = found.hit.as_ref()?;
    let body = if head { Bytes::new() } else { hit.body.clone() };
    Some(mark.mark(noted(respond_bytes(200, hit.media_type, body), &hit.notes)))
}

/// Adds one `Kld-Note` header per note the query's answer came with (a
/// known trap: kld's `https://schema.org/`, decimals left unbound). A
/// header, not a field of the answer: every SPARQL client ignores a header
/// it does not know, and the answer stays the protocol's. Non-ASCII
/// characters are written as `\u{…}` (a header holds visible ASCII).
fn noted(mut r: Response, notes: &[String]) -> Response {
    for note in notes {
        let ascii: String = note
            .chars()
            .map(|c| match c {
                ' '..='~' => c.to_string(),
                c => format!("\\u{{{:x}}}", u32::from(c)),
            })
            .collect();
        if let Ok(v) = HeaderValue::from_str(&ascii) {
            r.headers_mut().append("kld-note", v);
        }
    }
    r
}

/// True when an `If-None-Match` header names `etag`, or is `*` and a
/// current answer `exists`; weak comparison, as RFC 9110 has it for
/// `If-None-Match`.
fn matches(if_none_match: &str, etag: &str, exists: bool) -> bool {
    let bare = |t: &str| t.trim().trim_start_matches("W/").to_string();
    if if_none_match.trim() == "*" {
        return exists;
    }
    if_none_match.split(',').any(|t| bare(t) == bare(etag))
}

/// A request counted among those waiting for a query slot while this
/// lives. A request whose client leaves while it waits is dropped in the
/// middle of its wait, so the count is given back on drop, not after the
/// wait: 70 clients that left a queue used to stay counted for good, and
/// every later query got 503 "too many queries at once".
struct Queued<'a>(&'a AtomicUsize);

impl<'a> Queued<'a> {
    /// Counts a request in; also returns how many were waiting before it.
    fn enter(waiting: &'a AtomicUsize) -> (Queued<'a>, usize) {
        let ahead = waiting.fetch_add(1, Ordering::SeqCst);
        (Queued(waiting), ahead)
    }
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Cancels a query when the request or its response is dropped before the
/// query finished (a client that went away).
struct CancelOnDrop(sparql::Control);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

impl App {
    /// A query slot, waited for until `deadline`: 503 past it, or at once
    /// when too many wait already.
    async fn slot(&self, deadline: Instant) -> Result<OwnedSemaphorePermit, Response> {
        let limit = self.state.settings.max_concurrent.max(1);
        let (queued, ahead) = Queued::enter(&self.waiting);
        if ahead >= limit * (QUEUE_PER_SLOT + 1) {
            return Err(respond(Answer::text(
                503,
                "too many queries at once; try again shortly",
            )));
        }
        let wait =
            tokio::time::timeout_at(deadline.into(), self.permits.clone().acquire_owned()).await;
        drop(queued);
        match wait {
            Ok(Ok(p)) => Ok(p),
            _ => Err(respond(Answer::text(
                503,
                "the server is busy: no query slot became free in time",
            ))),
        }
    }

    /// Runs `work` on the blocking pool within a query slot, waiting for one
    /// at most the time limit (503 past it, or at once when too many wait):
    /// reading a whole graph or writing an export costs what a query does,
    /// and as many at once as clients ask would hold as much memory.
    pub(super) async fn in_slot(&self, work: impl FnOnce() -> Answer + Send + 'static) -> Response {
        let permit = match self
            .slot(Instant::now() + self.state.settings.timeout)
            .await
        {
            Ok(p) => p,
            Err(r) => return r,
        };
        let done = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            work()
        });
        respond(
            done.await
                .unwrap_or_else(|e| Answer::text(500, e.to_string())),
        )
    }

    /// Runs a query on the blocking pool once a slot is free; too many
    /// waiting queries get 503 at once rather than piling up. The answer is
    /// streamed; HEAD gets the headers a GET would, without running it.
    pub(super) async fn query(
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
        // `--timeout` bounds the whole request from its arrival, reading its
        // body and waiting for a slot included: a query that waited its time
        // away gets none to run (so a queue of runaways drains at their
        // deadline instead of each running again).
        let deadline = arrived.map_or_else(Instant::now, |a| a.0) + self.state.settings.timeout;
        // Measured, so that a 503 says how long went to slots and how long
        // to other requests' computations, and nothing else (parsing and
        // thread hops on a busy machine) is called either.
        let asked = Instant::now();
        let mut permit = match self.slot(deadline).await {
            Ok(p) => p,
            Err(r) => return r,
        };
        let mut slot_waited = asked.elapsed();
        // One blocking task parses, negotiates and runs (one hop, not two):
        // its first message says what was prepared.
        let mut start = Start::Request(req);
        // The deadline holds for the headers whatever the query thread does
        // (a parse that outlasts it included): past it (and a moment for the
        // query's own 503, which says more), 503.
        let headers_by = deadline + Duration::from_millis(250);
        let late = || {
            respond(super::error_answer(&karenina_ld::Error::Timeout {
                limit: self.state.settings.timeout,
            }))
        };
        let (media, guard, cache, mut rx) = loop {
            let (tx, mut rx) = mpsc::channel::<Msg>(4);
            let job = Job {
                state: self.state.clone(),
                start,
                accept: accept.clone(),
                if_none_match: if_none_match.clone(),
                head,
                deadline,
                slot_waited,
            };
            tokio::task::spawn_blocking(move || job.run(permit, tx));
            match tokio::time::timeout_at(headers_by.into(), rx.recv()).await {
                Ok(Some(Msg::Ready(media, control, cache))) => {
                    break (media, CancelOnDrop(control), cache, rx)
                }
                Ok(Some(Msg::Cached(r))) => return r,
                Ok(Some(Msg::Failed(a))) => return respond(a),
                // The same answer is being computed for another request:
                // wait for it here, on this request's task (no thread, no
                // query slot), within this request's time; then its failure
                // when this run would fail alike, or else a slot again to
                // take the answer from the cache or compute it.
                Ok(Some(Msg::Wait(following, mut prepared))) => {
                    let since = Instant::now();
                    match following.wait(deadline).await {
                        flight::Waited::Late => {
                            return respond(Answer::text(
                                503,
                                format!(
                                    "SPARQL: query stopped at the server's {} s time limit, spent waiting for an identical query's answer (try again shortly)",
                                    self.state.settings.timeout.as_secs_f64()
                                ),
                            ))
                        }
                        flight::Waited::Shared(a) => return respond(a),
                        flight::Waited::Ended => prepared.followed(since.elapsed()),
                    }
                    let since = Instant::now();
                    permit = match self.slot(deadline).await {
                        Ok(p) => p,
                        Err(r) => return r,
                    };
                    slot_waited = since.elapsed();
                    start = Start::Prepared(prepared);
                }
                Err(_) => return late(),
                _ => return respond(Answer::text(500, "the query task ended without an answer")),
            }
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
        // (Sent whole, an answer carries its notes: they are known once it
        // is written.)
        let done = |held| cache.mark(noted(whole(media, held), &guard.0.notes()));
        match tokio::time::timeout_at(headers_by.into(), rx.recv()).await {
            Ok(Some(Msg::Failed(a))) => return respond(a),
            Ok(Some(Msg::Done)) => return done(held),
            // A chunk shorter than CHUNK is the answer's last: its `Done`
            // (or failure) follows at once, so the answer goes whole.
            Ok(Some(Msg::Chunk(b))) if b.len() < CHUNK => {
                held.push(b);
                match tokio::time::timeout_at(headers_by.into(), rx.recv()).await {
                    Ok(Some(Msg::Done)) => return done(held),
                    Ok(Some(Msg::Failed(a))) => return respond(a),
                    Err(_) => return late(),
                    _ => return respond(Answer::text(500, "the query ended without an answer")),
                }
            }
            Ok(Some(Msg::Chunk(b))) => held.push(b),
            Err(_) => return late(),
            Ok(Some(Msg::Ready(..) | Msg::Cached(..) | Msg::Wait(..)) | None) => {
                return respond(Answer::text(500, "the query ended without an answer"))
            }
        }
        loop {
            match rx.try_recv() {
                Ok(Msg::Chunk(b)) => held.push(b),
                Ok(Msg::Done) => return done(held),
                Ok(Msg::Failed(a)) => return respond(a),
                Ok(Msg::Ready(..) | Msg::Cached(..) | Msg::Wait(..)) | Err(_) => break,
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
                    Some(Msg::Done | Msg::Ready(..) | Msg::Cached(..) | Msg::Wait(..)) => None,
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

fn if_none_match(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}
