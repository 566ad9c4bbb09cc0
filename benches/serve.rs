//! `kld serve` against Oxigraph's own server, same run, same data (run with
//! `cargo bench --bench serve`; `KLD_BENCH_SECONDS` shortens the 20 s per
//! query and server).
//!
//! 200 checkpoints x 50 questions from the shared generator. Measures:
//! - time from start to the first answer: `kld serve DIR` (loads the files
//!   itself) against `oxigraph serve --location DIR` (pip `oxigraph`) started
//!   empty and loaded over HTTP with `kld export -f nq` of the same files (the
//!   export is made beforehand and not counted for Oxigraph);
//! - for each catalogue query, 8 concurrent clients for 20 s on loopback:
//!   p50 / p95 latency and queries per second on both servers.
//!
//! Oxigraph's server runs with `--union-default-graph`, as kld's default graph
//! is the union of all graphs, and gets kld's provenance triples after its load
//! is timed, so both answer every catalogue query with the same rows.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "../tests/common/mod.rs"]
mod common;

fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap()
}

fn ask(c: &reqwest::blocking::Client, endpoint: &str, query: &str) -> bool {
    c.post(endpoint)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Accept", "application/sparql-results+json")
        .body(
            url::form_urlencoded::Serializer::new(String::new())
                .append_pair("query", query)
                .finish(),
        )
        .send()
        .is_ok_and(|r| r.status().is_success() && r.bytes().is_ok())
}

/// Polls until `endpoint` answers a trivial query; returns the elapsed time.
fn until_answer(start: Instant, endpoint: &str) -> Duration {
    let c = client();
    loop {
        if ask(&c, endpoint, "ASK { ?s ?p ?o }") {
            return start.elapsed();
        }
        assert!(start.elapsed() < Duration::from_secs(600), "no answer");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// 8 clients for `secs`: (p50 ms, p95 ms, queries per second).
fn load(endpoint: &str, query: &str, secs: f64) -> (f64, f64, f64) {
    let stop = Instant::now() + Duration::from_secs_f64(secs);
    let mut lat: Vec<f64> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| {
                    let c = client();
                    let mut v = Vec::new();
                    while Instant::now() < stop {
                        let t = Instant::now();
                        assert!(ask(&c, endpoint, query), "query failed on {endpoint}");
                        v.push(t.elapsed().as_secs_f64() * 1e3);
                    }
                    v
                })
            })
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    lat.sort_by(|a, b| a.total_cmp(b));
    let p = |q: f64| lat[((lat.len() as f64 - 1.0) * q).round() as usize];
    (p(0.5), p(0.95), lat.len() as f64 / secs)
}

fn main() {
    let secs: f64 = std::env::var("KLD_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20.0);
    let kld = env!("CARGO_BIN_EXE_kld");
    let dir = common::generate(&["-n", "200", "-q", "50", "-s", "1"]);
    let work = tempfile::tempdir().unwrap();
    let nq = work.path().join("all.nq");
    let st = Command::new(kld)
        .args(["export", "-f", "nq", "-o"])
        .arg(&nq)
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(st.success());
    let nq_bytes = std::fs::read(&nq).unwrap();
    let quads = nq_bytes.iter().filter(|b| **b == b'\n').count();

    // kld serve: start to first answer.
    let kport = common::free_port();
    let start = Instant::now();
    let _k = common::ServerGuard(
        Command::new(kld)
            .arg("serve")
            .arg(dir.path())
            .args(["--bind", &format!("127.0.0.1:{kport}"), "--quiet"])
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let kld_ep = format!("http://127.0.0.1:{kport}/sparql");
    let kld_ready = until_answer(start, &kld_ep);

    // Oxigraph server: start, load the same quads over HTTP, first answer.
    let oport = common::free_port();
    let start = Instant::now();
    let _o = common::oxigraph_server(&work.path().join("oxi"), oport);
    assert!(common::wait_for_port(oport, Duration::from_secs(60)));
    let r = client()
        .post(format!("http://127.0.0.1:{oport}/store"))
        .header("Content-Type", "application/n-quads")
        .body(nq_bytes)
        .send()
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let oxi_ep = format!("http://127.0.0.1:{oport}/query");
    let oxi_ready = until_answer(start, &oxi_ep);
    // Give Oxigraph kld's provenance too (the N-Quads export holds only the
    // checkpoint graphs), so `graphs` answers the same rows on both; not timed.
    let provenance = client()
        .post(&kld_ep)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Accept", "application/n-triples")
        .body(
            url::form_urlencoded::Serializer::new(String::new())
                .append_pair(
                    "query",
                    "CONSTRUCT { ?g ?p ?o } WHERE { ?g a <urn:karenina:vocab:CheckpointGraph> ; ?p ?o }",
                )
                .finish(),
        )
        .send()
        .unwrap()
        .bytes()
        .unwrap();
    let r = client()
        .post(format!("http://127.0.0.1:{oport}/store?default"))
        .header("Content-Type", "application/n-triples")
        .body(provenance.to_vec())
        .send()
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());

    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "200 x 50 checkpoints, {quads} quads; {secs} s per query and server, 8 clients"
    )
    .unwrap();
    writeln!(
        out,
        "ready (start -> first answer): kld serve {:.2} s, oxigraph serve + HTTP load {:.2} s ({:.1}x)",
        kld_ready.as_secs_f64(),
        oxi_ready.as_secs_f64(),
        oxi_ready.as_secs_f64() / kld_ready.as_secs_f64()
    )
    .unwrap();
    writeln!(
        out,
        "{:<28} {:>9} {:>9} {:>8}   {:>9} {:>9} {:>8}   {:>6}",
        "query", "kld p50", "p95", "q/s", "oxi p50", "p95", "q/s", "ratio"
    )
    .unwrap();
    for q in karenina_ld::query::CATALOGUE {
        let (k50, k95, kq) = load(&kld_ep, q.text, secs);
        let (o50, o95, oq) = load(&oxi_ep, q.text, secs);
        writeln!(
            out,
            "{:<28} {:>7.1}ms {:>7.1}ms {:>8.1}   {:>7.1}ms {:>7.1}ms {:>8.1}   {:>5.2}x",
            q.name,
            k50,
            k95,
            kq,
            o50,
            o95,
            oq,
            o50 / k50
        )
        .unwrap();
        out.flush().unwrap();
    }
}
