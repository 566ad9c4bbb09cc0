//! `kld serve`: load once, then answer SPARQL and Karenina routes over HTTP.

use super::rdf::{files_of, load_into, open_store};
use super::ProcessorArg;
use anyhow::Context;
use karenina_ld::serve::{self, Settings, State};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Arguments of `kld serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Checkpoints, results exports or directories to load (and to watch with --watch).
    pub inputs: Vec<PathBuf>,
    /// Store directory to open (graphs replaced under --watch are written back).
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Address to listen on (non-loopback addresses expose an unauthenticated endpoint).
    #[arg(long, default_value = "127.0.0.1:7879")]
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
    /// No log line per request.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// How checkpoints become quads.
    #[arg(long, value_enum, default_value = "direct")]
    pub processor: ProcessorArg,
    /// Results exports among the inputs.
    #[command(flatten)]
    pub results: super::rdf::ResultsArgs,
}

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

pub fn serve(a: ServeArgs) -> anyhow::Result<u8> {
    if !(a.timeout > 0.0 && a.timeout.is_finite()) {
        anyhow::bail!("--timeout must be a positive number of seconds");
    }
    if a.max_concurrent == 0 {
        anyhow::bail!("--max-concurrent must be at least 1");
    }
    let start = Instant::now();
    let mut store = open_store(a.store.as_deref())?;
    let (files, _io_failed) = files_of(&a.inputs);
    // Bad files are reported and skipped; the endpoint serves the good ones.
    load_into(&mut store, &files, a.processor.into(), false, &a.results);
    let graphs = store.graphs().count();
    let state = State::new(
        store,
        Settings {
            timeout: Duration::from_secs_f64(a.timeout),
            max_concurrent: a.max_concurrent,
        },
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(a.bind)
            .await
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
        let router = serve::http::router(state, a.watch, (!a.quiet).then_some(print));
        eprintln!(
            "kld serve: {graphs} graphs loaded in {:.2} s; SPARQL endpoint http://{addr}/sparql, page http://{addr}/",
            start.elapsed().as_secs_f64()
        );
        serve::http::serve(listener, router, shutdown_signal()).await?;
        eprintln!("kld serve: stopped");
        anyhow::Ok(())
    })?;
    Ok(super::OK)
}
