//! `kld push` into an Oxigraph server against Oxigraph's own bulk loader, same
//! run, same data (run with `cargo bench --bench push`).
//!
//! 200 checkpoints x 50 questions from the shared generator:
//! - `kld push --server oxigraph` into an empty `oxigraph serve --location`
//!   (pip `oxigraph`): reads, maps and PUTs every graph, then the provenance;
//! - `oxigraph load --location` of `kld export -f nq` of the same files (the
//!   export made beforehand, not counted);
//! - a re-push of the unchanged files (one provenance query, nothing sent);
//! - each catalogue query on the server (`kld query --server`, HTTP) against
//!   kld's in-memory store (in process), median of 3.

use karenina_ld::rdf::Processor;
use karenina_ld::remote::{self, RemoteClient};
use karenina_ld::sparql::{self, ResultFormat};
use karenina_ld::store::CheckpointStore;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "../tests/common/mod.rs"]
mod common;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let kld = env!("CARGO_BIN_EXE_kld");
    let dir = common::generate(&["-n", "200", "-q", "50", "-s", "1"]);
    let work = tempfile::tempdir().unwrap();
    let nq = work.path().join("all.nq");
    assert!(Command::new(kld)
        .args(["export", "-f", "nq", "-o"])
        .arg(&nq)
        .arg(dir.path())
        .status()
        .unwrap()
        .success());
    let quads = std::fs::read(&nq)
        .unwrap()
        .iter()
        .filter(|b| **b == b'\n')
        .count();

    // Oxigraph's own bulk loader.
    let t = Instant::now();
    assert!(Command::new("oxigraph")
        .args(["load", "--location"])
        .arg(work.path().join("bulk"))
        .arg("--file")
        .arg(&nq)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("pip install oxigraph")
        .success());
    let bulk = t.elapsed().as_secs_f64();

    // kld push into a running server.
    let port = common::free_port();
    let _server = common::oxigraph_server(&work.path().join("served"), port);
    assert!(common::wait_for_port(port, Duration::from_secs(60)));
    let base = format!("http://127.0.0.1:{port}");
    let push = |extra: &[&str]| {
        let t = Instant::now();
        common::run_ok(
            Command::new(kld)
                .args(["push", "--server", "oxigraph", &base])
                .args(extra)
                .arg(dir.path()),
        );
        t.elapsed().as_secs_f64()
    };
    let pushed = push(&[]);
    let repush = push(&[]);
    println!("200 x 50 checkpoints, {quads} quads");
    println!(
        "kld push (Graph Store PUTs)      {pushed:.2} s  {:>9.0} quads/s",
        quads as f64 / pushed
    );
    println!(
        "oxigraph load (bulk, offline)    {bulk:.2} s  {:>9.0} quads/s   (push/load time {:.2}x)",
        quads as f64 / bulk,
        pushed / bulk
    );
    println!("kld push again, nothing changed  {repush:.2} s");

    // Catalogue latency: the server over HTTP against the in-memory store.
    let client = RemoteClient::new(remote::server("oxigraph", &base).unwrap(), None).unwrap();
    let mut store = CheckpointStore::in_memory().unwrap();
    let files = common::jsonld_in(dir.path());
    store.load_files(&files, Processor::Direct, &|_, _| {});
    println!(
        "{:<28} {:>12} {:>12}",
        "query (median of 3)", "server HTTP", "in-memory"
    );
    for q in sparql::CATALOGUE {
        let remote: Vec<f64> = (0..3)
            .map(|_| {
                let t = Instant::now();
                remote::run_query(&client, q.text, ResultFormat::Tsv, &mut std::io::sink())
                    .unwrap();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        let local: Vec<f64> = (0..3)
            .map(|_| {
                let t = Instant::now();
                sparql::run(
                    store.store(),
                    q.text,
                    sparql::DEFAULT_TIMEOUT,
                    ResultFormat::Tsv,
                    &mut std::io::sink(),
                )
                .unwrap();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        println!(
            "{:<28} {:>10.1}ms {:>10.1}ms",
            q.name,
            median(remote),
            median(local)
        );
    }
}
