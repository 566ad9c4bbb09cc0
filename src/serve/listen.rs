//! The server loop under `kld serve`'s routes (hyper on tokio): header-read
//! and idle timeouts, a connection limit, a graceful stop; and the `Host`
//! check that keeps DNS-rebinding names out.
//!
//! Why not `axum::serve`: it sets no timer, so a client sending one byte a
//! second held a connection open forever (20 such clients stayed for 60 s).

use axum::Router;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// A client must send a request's headers within this time, and an idle
/// keep-alive connection is closed after it.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections served at once; more wait in the listen queue.
pub const MAX_CONNECTIONS: usize = 256;

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

/// Serves `router` on `listener` until `shutdown` resolves: at most
/// [`MAX_CONNECTIONS`] connections at once, each closed when its client
/// takes more than [`HEADER_READ_TIMEOUT`] to send a request's headers or
/// stays idle that long. After `shutdown`, in-flight requests get `grace` to
/// finish.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
    grace: Duration,
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
    let connections = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            p = connections.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            _ = &mut shutdown => break,
        };
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
        let service = hyper_util::service::TowerToHyperService::new(router.clone());
        let conn = builder
            .serve_connection_with_upgrades(TokioIo::new(stream), service)
            .into_owned();
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
            drop(permit);
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(grace, graceful.shutdown()).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
