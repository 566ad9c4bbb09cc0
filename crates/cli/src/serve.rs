//! `kld serve`: load once, then answer SPARQL and Karenina routes over HTTP.

use super::inputs::{files_of_strict, open_store};
use super::rdf::load_into;
use super::ProcessorArg;
use anyhow::Context;
use karenina_ld_serve::{self as serve, Settings, State};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Arguments of `kld serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Checkpoints, results exports or directories to load (and to watch with --watch).
    pub inputs: Vec<PathBuf>,
    /// Store directory to serve, opened read-only: changes under --watch are
    /// served from memory and never written back to it.
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Address to listen on: HOST:PORT, localhost:PORT or a port (non-loopback
    /// addresses expose an unauthenticated endpoint).
    #[arg(long, default_value = "127.0.0.1:7879", value_parser = parse_bind)]
    pub bind: SocketAddr,
    /// Re-read checkpoints and results exports that change on disk, replace
    /// their graphs, and bind results to checkpoints again.
    #[arg(long)]
    pub watch: bool,
    /// Stop a query after this many seconds (answered 503).
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// Queries running at once; more wait for a slot (bounded), then get 503.
    #[arg(long, default_value_t = default_concurrency())]
    pub max_concurrent: usize,
    /// Stop an answer past this many bytes (the client sees an incomplete
    /// response; answered 503 if nothing was sent yet).
    #[arg(long, default_value_t = serve::DEFAULT_MAX_RESULT_BYTES)]
    pub max_result_bytes: u64,
    /// Stop a query that holds more than SIZE of memory (answered 503), e.g.
    /// 512M or 2G [default: a sixteenth of the machine's memory].
    #[arg(long, value_name = "SIZE", value_parser = karenina_ld::memory::parse_size)]
    pub query_memory: Option<u64>,
    /// Stop the query that takes the running queries together past SIZE of
    /// memory (answered 503) [default: a quarter of the machine's memory].
    #[arg(long, value_name = "SIZE", value_parser = karenina_ld::memory::parse_size)]
    pub total_memory: Option<u64>,
    /// Let pages from ORIGIN (e.g. http://localhost:8888) query the endpoint
    /// and read answers from a browser (CORS; other websites' pages get 403);
    /// repeatable; `*` lets every website.
    #[arg(long = "cors", value_name = "ORIGIN")]
    pub cors: Vec<String>,
    /// Let pages from ORIGIN show the server's page in a frame (sent as
    /// `Content-Security-Policy: frame-ancestors ORIGIN`); repeatable.
    /// Without it no site may frame it (`frame-ancestors 'none'`,
    /// `X-Frame-Options: DENY`).
    #[arg(long = "allow-framing", value_name = "ORIGIN")]
    pub allow_framing: Vec<String>,
    /// Keep up to MB megabytes of complete answers, by query, dataset and
    /// format, until the store changes (a --watch reload); the catalogue's
    /// answers are computed ahead after loading and after every reload.
    /// 0 turns the cache off.
    #[arg(long, value_name = "MB", default_value_t = serve::DEFAULT_CACHE_BYTES >> 20)]
    pub cache_mb: u64,
    /// Answer requests whose Host is NAME (besides localhost, loopback IPs
    /// and the bound address); repeatable.
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// No log line per request.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// How checkpoints become quads.
    #[arg(long, value_enum, default_value = "direct")]
    pub processor: ProcessorArg,
    /// What of each result of the runs loaded becomes quads: `all` (every
    /// field, so SPARQL sees the whole run), or `keys` (its question, run,
    /// IDs and answering model: about an eighth of the memory). With either,
    /// every number, the leaderboard, grid, matrix and figures come from
    /// the results table; with `keys`, SPARQL over a result's other fields
    /// finds nothing: for runs past this machine's memory, whose quads go to
    /// a SPARQL server (`kld push`).
    #[arg(long, value_enum, value_name = "WHAT", default_value = "all")]
    pub result_quads: ResultQuads,
    /// Results exports among the inputs.
    #[command(flatten)]
    pub results: super::rdf::ResultsArgs,
}

/// Results served as every field's quads past which `kld serve` says that
/// `--result-quads keys` would take a twentieth of the memory (100,000
/// results: about 3 GB).
const HINT_KEYS_AT: usize = 100_000;

/// `--result-quads`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultQuads {
    /// Every field of every result.
    All,
    /// Each result's keys only.
    Keys,
}

/// `HOST:PORT`, `localhost:PORT` (loopback) or a bare port (on 127.0.0.1).
fn parse_bind(s: &str) -> Result<SocketAddr, String> {
    if let Ok(port) = s.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    if let Ok(a) = s.parse::<SocketAddr>() {
        return Ok(a);
    }
    match s.rsplit_once(':') {
        Some((h, p)) if h.eq_ignore_ascii_case("localhost") => p
            .parse::<u16>()
            .map(|port| SocketAddr::from(([127, 0, 0, 1], port)))
            .map_err(|_| format!("{p:?} is not a port")),
        _ => Err(format!(
            "{s:?} is not an address: give HOST:PORT (127.0.0.1:7879), localhost:PORT or a port"
        )),
    }
}

/// How long a stopping server gives running requests (their queries are
/// cancelled at once) before it exits anyway.
const GRACE: Duration = Duration::from_secs(5);

fn default_concurrency() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get() * 2)
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

pub fn serve(mut a: ServeArgs) -> anyhow::Result<u8> {
    a.results.keys_only = a.result_quads == ResultQuads::Keys;
    // A panic in a request (a bug) is logged on one line; the request fails
    // with 500 and the server goes on.
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("kld serve: panic{at}: {}", what.replace('\n', " "));
    }));
    let timeout = karenina_ld::duration::seconds("--timeout", a.timeout, false)?;
    if a.max_concurrent == 0 {
        anyhow::bail!("--max-concurrent must be at least 1");
    }
    let start = Instant::now();
    let files = files_of_strict(&a.inputs, a.store.is_some())?;
    let mut store = open_store(a.store.as_deref())?;
    // Bad files are reported and skipped; the endpoint serves the good ones.
    // The results table of the exports is read on another core meanwhile
    // (the load inserts on one), so the views need not read them again.
    let stop = std::sync::atomic::AtomicBool::new(false);
    let read = std::thread::scope(|s| {
        let reading = s.spawn(|| karenina_ld::table::stored::read_exports(&files, &stop));
        load_into(&mut store, &files, a.processor.into(), false, &a.results);
        reading.join().ok()
    });
    // A store directory's table first, so that a run read just now wins.
    let mut known = a
        .store
        .as_deref()
        .and_then(|dir| karenina_ld::table::stored::load(dir).ok().flatten())
        .unwrap_or_default();
    if let Some(read) = read {
        known.append(&read);
    }
    let graphs = store.graphs().count();
    let state = State::with_table(
        store,
        Settings {
            timeout,
            max_concurrent: a.max_concurrent,
            max_result_bytes: Some(a.max_result_bytes),
            cors: a.cors.clone(),
            allowed_hosts: a.allow_host.clone(),
            framing: a.allow_framing.clone(),
            memory: memory_limits(a.query_memory, a.total_memory),
            cache_bytes: a.cache_mb.saturating_mul(1 << 20),
        },
        Some(&known),
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Queries run on the blocking pool: a stack that fits every usual
        // query, so only deep ones grow a segment of their own.
        .thread_stack_size(16 << 20)
        .build()
        .context("starting the tokio runtime")?;
    runtime.block_on(async move {
        let listener = serve::bind(a.bind)
            .with_context(|| format!("cannot listen on {}", a.bind))?;
        let addr = listener.local_addr()?;
        if !addr.ip().is_loopback() {
            eprintln!(
                "kld serve: warning: listening on {addr}, not a loopback address: the endpoint has no authentication, anyone who can reach it can read every loaded benchmark"
            );
        }
        let print: Arc<dyn Fn(String) + Send + Sync> = Arc::new(|line| eprintln!("{line}"));
        let _watcher = if a.watch {
            Some(serve::watch::spawn(
                state.clone(),
                &a.inputs,
                a.processor.into(),
                print.clone(),
            )?)
        } else {
            None
        };
        let _warmer = serve::warm::spawn(state.clone(), (!a.quiet).then(|| print.clone()))?;
        let log = (!a.quiet).then_some(print);
        let router = serve::http::router(state.clone(), a.watch, log.clone(), addr);
        eprintln!(
            "kld serve: {} loaded in {:.2} s; SPARQL endpoint http://{addr}/sparql, page http://{addr}/",
            super::plural(graphs, "graph"),
            start.elapsed().as_secs_f64()
        );
        let results = state.views().table.len();
        if a.result_quads == ResultQuads::All && results >= HINT_KEYS_AT {
            eprintln!(
                "kld serve: {results} results held as quads (about 30 kB each); --result-quads keys serves the same numbers, leaderboard and figures in about a twentieth of the memory (SPARQL then sees each result's keys only)"
            );
        }
        if a.result_quads == ResultQuads::Keys {
            eprintln!(
                "kld serve: --result-quads keys: the runs' numbers come from the results table; SPARQL sees each result's question, run, IDs and answering model only"
            );
        }
        let stopping = async move {
            shutdown_signal().await;
            eprintln!("kld serve: stopping (running queries cancelled, {} s grace)", GRACE.as_secs());
            state.cancel_all();
            // Whatever still runs after the grace period (a query deaf to
            // cancellation) does not keep the process alive.
            std::thread::spawn(|| {
                std::thread::sleep(GRACE + Duration::from_secs(1));
                eprintln!("kld serve: stopped (grace period over)");
                std::process::exit(0);
            });
        };
        serve::http::serve(listener, router, stopping, GRACE, timeout, log).await?;
        eprintln!("kld serve: stopped");
        anyhow::Ok(())
    })?;
    Ok(super::OK)
}

/// The memory limits from `--query-memory` and `--total-memory`, each
/// sized to the machine when not given.
pub fn memory_limits(query: Option<u64>, total: Option<u64>) -> karenina_ld::memory::Limits {
    let machine = karenina_ld::memory::Limits::for_machine();
    karenina_ld::memory::Limits {
        per_query: query.or(machine.per_query),
        total: total.or(machine.total),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_bind;

    #[test]
    fn bind_takes_an_address_localhost_or_a_port() {
        assert_eq!(
            parse_bind("127.0.0.1:7886").unwrap().to_string(),
            "127.0.0.1:7886"
        );
        assert_eq!(
            parse_bind("localhost:7886").unwrap().to_string(),
            "127.0.0.1:7886"
        );
        assert_eq!(parse_bind("7886").unwrap().to_string(), "127.0.0.1:7886");
        assert_eq!(parse_bind("[::1]:80").unwrap().to_string(), "[::1]:80");
        assert!(parse_bind("localhost:x").is_err());
        assert!(parse_bind("example.org:80")
            .unwrap_err()
            .contains("HOST:PORT"));
    }
}
