//! The server loop under `kld serve`'s routes (hyper on tokio): a watchdog
//! per connection (idle and header-read time, request time), a connection
//! limit idle sockets cannot exhaust, a graceful stop; and the `Host` check
//! that keeps DNS-rebinding names out.
//!
//! Why not `axum::serve`: it sets no timer, so a client sending one byte a
//! second held a connection open forever (20 such clients stayed for 60 s).
//! Why not hyper's timers alone: they start with the first byte, so silent
//! connections stayed forever (256 of them kept the server unreachable), and
//! none covers an answer blocked on a client that does not read.

use super::conn::{Clock, Table, Watched};
use axum::body::Body;
use axum::http::{header, HeaderValue, Request, Response, StatusCode};
use axum::Router;
use hyper::body::Incoming;
use hyper::service::Service as _;
use hyper_util::service::TowerToHyperService;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Largest request body (a POSTed query or form).
pub const MAX_BODY_BYTES: usize = 2 << 20;

/// A connection must send a request's headers within this time of opening
/// (or of its last answer), or it is closed; a request's body must arrive
/// within it too.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections served at once; past it the idlest is shed for a new one.
pub const MAX_CONNECTIONS: usize = 256;

/// Connections the kernel may hold for the server before it accepts them.
/// Tokio's `TcpListener::bind` asks for 128 here: a burst of a few hundred
/// clients overflowed it, and Linux answered the overflow with SYN cookies
/// it then reset (91 of 500 runaways at once got no status on one core).
/// The kernel caps it at `net.core.somaxconn`.
pub const LISTEN_BACKLOG: u32 = 1024;

/// Listens on `addr` with [`LISTEN_BACKLOG`] (and `SO_REUSEADDR`, as
/// Tokio's own `bind` sets, so a restarted server gets its port back at
/// once).
pub fn bind(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// True when a request's `Host` names this machine: `localhost` (or a name
/// under it), a loopback IP, the address the server is bound to (any IP
/// when bound to all interfaces), or a name the user allowed.
pub fn host_allowed(host: &str, bound: SocketAddr, allowed: &[String]) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(h, port)| {
            if port.chars().all(|c| c.is_ascii_digit()) {
                h
            } else {
                host
            }
        }),
    }
    .trim_end_matches('.')
    .to_ascii_lowercase();
    if name == "localhost" || name.ends_with(".localhost") {
        return true;
    }
    if allowed.iter().any(|a| a.eq_ignore_ascii_case(&name)) {
        return true;
    }
    match name.parse::<IpAddr>() {
        Ok(ip) => ip.is_loopback() || ip == bound.ip() || bound.ip().is_unspecified(),
        Err(_) => false,
    }
}

/// A connection idle (or silent) this long may be shed for a new one when
/// the limit is reached; a newer one has had no time to send its request.
pub const SHED_AFTER: Duration = Duration::from_secs(3);

/// How long past its request limit a connection with a request still in
/// flight is kept: the request's own 503 or cut-off answer goes out first.
pub const REQUEST_MARGIN: Duration = Duration::from_secs(1);

/// Serves `router` on `listener` until `shutdown` resolves. A connection is
/// closed when it has no request in flight for [`HEADER_READ_TIMEOUT`]
/// (from its start: a client that never sends a byte included), or a
/// request in flight for `request_limit` + [`REQUEST_MARGIN`] (an answer
/// blocked on a client that does not read). At [`MAX_CONNECTIONS`], the
/// connection idle the longest (at least [`SHED_AFTER`]) is shed for a new
/// one; when none is, a new one is answered 503 and closed (at most
/// [`MAX_CONNECTIONS`] more of those at once, past that they are closed
/// unanswered). After `shutdown`, in-flight requests get `grace` to finish.
/// A request refused while its head is read (414, 431: it never reaches
/// the router, whose layer logs the others) is logged to `log` here.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
    grace: Duration,
    request_limit: Duration,
    log: super::app::Log,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    let mut builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .max_buf_size(256 << 10);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(HEADER_READ_TIMEOUT)
        .keep_alive_timeout(HEADER_READ_TIMEOUT)
        .max_concurrent_streams(64);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let table = Arc::new(Table::default());
    let overflow = Arc::new(AtomicUsize::new(0));
    tokio::pin!(shutdown);
    loop {
        let (stream, _peer) = tokio::select! {
            a = listener.accept() => match a {
                Ok(a) => a,
                // Out of file descriptors and the like: wait, go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let clock = Clock::new(HEADER_READ_TIMEOUT, request_limit + REQUEST_MARGIN);
        let io = TokioIo::new(stream);
        if table.make_room(MAX_CONNECTIONS, SHED_AFTER) {
            let key = table.add(clock.clone());
            let (router, c) = (router.clone(), clock.clone());
            let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
                let ticket = c.begin();
                req.extensions_mut().insert(ticket.arrived());
                let call = TowerToHyperService::new(router.clone()).call(req);
                async move {
                    let resp = call.await?;
                    Ok::<_, Infallible>(resp.map(|body| Body::new(Watched::tracked(body, ticket))))
                }
            });
            let conn = builder
                .serve_connection_with_upgrades(io, service)
                .into_owned();
            let conn = graceful.watch(conn);
            let (table, log) = (table.clone(), log.clone());
            tokio::spawn(async move {
                let started = std::time::Instant::now();
                if let Some(Err(e)) = watch_over(conn, &clock).await {
                    log_refused_head(log.as_deref(), &*e, started);
                }
                table.remove(key);
            });
        } else if overflow.fetch_add(1, Ordering::SeqCst) < MAX_CONNECTIONS {
            let service = hyper::service::service_fn(|req: Request<Incoming>| async {
                // Read the body first (bounded, kept nowhere): closing on
                // unread bytes resets the connection, and the client would
                // lose the 503.
                let mut data = Body::new(req.into_body()).into_data_stream();
                let mut read = 0;
                while read <= MAX_BODY_BYTES {
                    match futures_util::StreamExt::next(&mut data).await {
                        Some(Ok(chunk)) => read += chunk.len(),
                        _ => break,
                    }
                }
                let mut resp = Response::new(Body::from(
                    "the server is busy: it is at its connection limit, none idle long enough to close; try again shortly\n",
                ));
                *resp.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
                let h = resp.headers_mut();
                h.insert(header::CONNECTION, HeaderValue::from_static("close"));
                h.insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("text/plain; charset=utf-8"),
                );
                Ok::<_, Infallible>(resp)
            });
            let conn = builder.serve_connection(io, service).into_owned();
            let overflow = overflow.clone();
            let log = log.clone();
            tokio::spawn(async move {
                let started = std::time::Instant::now();
                if let Some(Err(e)) = watch_over(conn, &clock).await {
                    log_refused_head(log.as_deref(), &*e, started);
                }
                overflow.fetch_sub(1, Ordering::SeqCst);
            });
        } else {
            overflow.fetch_sub(1, Ordering::SeqCst);
            drop(io);
        }
    }
    drop(listener);
    let _ = tokio::time::timeout(grace, graceful.shutdown()).await;
    Ok(())
}

/// Drives a connection until it ends (its outcome) or its clock expires
/// (then drops it, which closes the socket and drops what it was sending:
/// `None`).
async fn watch_over<F: Future>(conn: F, clock: &Clock) -> Option<F::Output> {
    clock.start();
    tokio::pin!(conn);
    loop {
        let deadline = clock.deadline();
        tokio::select! {
            out = &mut conn => return Some(out),
            _ = tokio::time::sleep_until(deadline.into()) => {
                if clock.expired() {
                    return None;
                }
            }
            _ = clock.changed() => {
                if clock.expired() {
                    return None;
                }
            }
        }
    }
}

/// The status hyper answered a request refused while its head was read,
/// and why, if that is how the connection ended: 414 for a request line
/// past its buffer, 431 for headers past it.
fn refused_head(e: &(dyn std::error::Error + 'static)) -> Option<(u16, &'static str)> {
    let e = e.downcast_ref::<hyper::Error>()?;
    if !e.is_parse_too_large() {
        return None;
    }
    // (hyper tells the two apart only in its message.)
    Some(if e.to_string().contains("URI") {
        (
            414,
            "the request line is past about 64 KiB: POST a long query",
        )
    } else {
        (431, "the request's headers are past about 256 KiB")
    })
}

/// Logs a request hyper refused while reading its head, in the log's
/// usual shape (`METHOD PATH STATUS MILLISECONDSms why`); its method and
/// path were never read, so they are `-`.
fn log_refused_head(
    log: Option<&(dyn Fn(String) + Send + Sync)>,
    e: &(dyn std::error::Error + Send + Sync + 'static),
    started: std::time::Instant,
) {
    if let (Some(log), Some((status, why))) = (log, refused_head(e)) {
        log(format!(
            "- - {status} {}ms {why}",
            started.elapsed().as_millis()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 300 clients connect before the server accepts any: the kernel holds
    /// them all (Tokio's own `bind`, backlog 128, kept about 129 and reset
    /// the rest once their SYN-cookie handshakes failed).
    #[test]
    fn a_burst_of_300_connections_waits_in_the_backlog() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let listener = bind("127.0.0.1:0".parse().unwrap()).unwrap();
            let addr = listener.local_addr().unwrap();
            let clients: Vec<_> = (0..300)
                .map_while(|_| {
                    std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()
                })
                .collect();
            assert_eq!(clients.len(), 300, "connections the kernel took");
            let mut accepted = 0;
            while let Ok(Ok(_)) =
                tokio::time::timeout(Duration::from_millis(500), listener.accept()).await
            {
                accepted += 1;
            }
            assert_eq!(accepted, clients.len());
        });
    }

    #[test]
    fn hosts_of_this_machine_are_allowed_and_others_are_not() {
        let lo: SocketAddr = "127.0.0.1:7879".parse().unwrap();
        let any: SocketAddr = "0.0.0.0:7879".parse().unwrap();
        for h in [
            "localhost",
            "localhost:7879",
            "LOCALHOST.",
            "app.localhost:7879",
            "127.0.0.1:7879",
            "127.0.0.2",
            "[::1]:7879",
        ] {
            assert!(host_allowed(h, lo, &[]), "{h}");
        }
        for h in [
            "evil.example",
            "evil.example:7879",
            "10.0.0.5:7879",
            "[::2]",
        ] {
            assert!(!host_allowed(h, lo, &[]), "{h}");
        }
        assert!(host_allowed("10.0.0.5:7879", any, &[]));
        assert!(!host_allowed("laptop.lan:7879", any, &[]));
        assert!(host_allowed("laptop.lan:7879", any, &["laptop.lan".into()]));
    }
}
