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
//!   p50 latency and queries per second of kld's answers *warm* (from its
//!   answer cache, once the catalogue warm-up after loading is done),
//!   *cold* (computed: every request's text made unique by a comment, so
//!   each is a cache miss computed, copied and stored as the first request
//!   after a reload is), *off* (a second `kld serve --cache-mb 0`, i.e.
//!   kld before the cache) and Oxigraph's server, with the ratios
//!   Oxigraph p50 / kld warm p50 and Oxigraph p50 / kld cold p50.
//!   `KLD_BENCH_ONLY=catalogue` runs only these;
//! - the memory budget (issue 31): peak resident memory and time of the
//!   queries that grew kld to gigabytes (ORDER BY and COUNT(DISTINCT) over a
//!   cartesian product, chained CONCAT doubling, four concurrent CONSTRUCTs
//!   answered as JSON-LD), one case at a time on each server, sampled every
//!   10 ms; Oxigraph's server is stopped past 60 s or 8 GB and restarted on
//!   its store. `KLD_BENCH_ONLY=memory` runs only these.
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
    load_with(endpoint, secs, |_| query.to_string())
}

/// [`load`] with the `n`th request of each client sending `query(n)`.
fn load_with(endpoint: &str, secs: f64, query: impl Fn(usize) -> String + Sync) -> (f64, f64, f64) {
    let stop = Instant::now() + Duration::from_secs_f64(secs);
    let mut lat: Vec<f64> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| {
                    let c = client();
                    let mut v = Vec::new();
                    while Instant::now() < stop {
                        let q = query(v.len());
                        let t = Instant::now();
                        assert!(ask(&c, endpoint, &q), "query failed on {endpoint}");
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
    // The same without its answer cache: kld as it was before it.
    let off_port = common::free_port();
    let _off = common::ServerGuard(
        Command::new(kld)
            .arg("serve")
            .arg(dir.path())
            .args([
                "--bind",
                &format!("127.0.0.1:{off_port}"),
                "--quiet",
                "--cache-mb",
                "0",
            ])
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let off_ep = format!("http://127.0.0.1:{off_port}/sparql");
    until_answer(Instant::now(), &off_ep);

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

    // The catalogue warm-up after loading ends before warm answers are timed.
    let warm_started = Instant::now();
    let warmed = loop {
        let v: serde_json::Value = client()
            .get(format!("http://127.0.0.1:{kport}/cache"))
            .send()
            .unwrap()
            .json()
            .unwrap();
        if !v["warmed"].is_null() {
            break v;
        }
        assert!(
            warm_started.elapsed() < Duration::from_secs(900),
            "no warm-up: {v}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };

    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "200 x 50 checkpoints, {quads} quads; {secs} s per query and server, 8 clients"
    )
    .unwrap();
    writeln!(
        out,
        "catalogue warm-up after loading (beside Oxigraph's load): {} answers in {:.2} s, cache {} of {} bytes",
        warmed["warmed"]["answers"],
        warmed["warmed"]["seconds"].as_f64().unwrap_or(0.0),
        warmed["bytes"],
        warmed["budget"]
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
        "p50 (q/s): kld warm = from the cache; cold = computed (each text unique: a miss, stored); off = --cache-mb 0; ratios = oxigraph p50 / kld p50"
    )
    .unwrap();
    writeln!(
        out,
        "{:<28} {:>17} {:>17} {:>17} {:>17}   {:>8} {:>8}",
        "query", "kld warm", "kld cold", "kld off", "oxigraph", "warm", "cold"
    )
    .unwrap();
    let only = std::env::var("KLD_BENCH_ONLY").unwrap_or_default();
    let cell = |(p50, _, qs): (f64, f64, f64)| format!("{p50:>7.2}ms ({qs:>6.0})");
    let queries: Vec<_> = karenina_ld::sparql::CATALOGUE
        .iter()
        .filter(|_| only != "memory")
        .collect();
    // Every warm figure before any cold one: the cold runs' unique texts
    // fill the cache and push the catalogue's answers out.
    let warm: Vec<_> = queries
        .iter()
        .map(|q| load(&kld_ep, q.text, secs))
        .collect();
    for (q, warm) in queries.iter().zip(warm) {
        let thread = std::sync::atomic::AtomicUsize::new(0);
        let cold = load_with(&kld_ep, secs, |_| {
            let t = thread.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            format!("{}\n# cold {t}", q.text)
        });
        let off = load(&off_ep, q.text, secs);
        let oxi = load(&oxi_ep, q.text, secs);
        writeln!(
            out,
            "{:<28} {:>17} {:>17} {:>17} {:>17}   {:>7.1}x {:>7.2}x",
            q.name,
            cell(warm),
            cell(cold),
            cell(off),
            cell(oxi),
            oxi.0 / warm.0,
            oxi.0 / cold.0,
        )
        .unwrap();
        out.flush().unwrap();
    }
    drop(out);
    if only == "catalogue" {
        return;
    }
    memory_cases(
        _k.0.id(),
        &kld_ep,
        _o,
        &work.path().join("oxi"),
        oport,
        &oxi_ep,
    );
}

/// The queries of issue 31 that grew kld to gigabytes.
fn memory_queries() -> Vec<(&'static str, String, &'static str, usize)> {
    let concat: Vec<String> = (0..30)
        .map(|i| format!("BIND(CONCAT(?v{i}, ?v{i}) AS ?v{})", i + 1))
        .collect();
    let concat = format!(
        "SELECT (STRLEN(?v30) AS ?n) WHERE {{ ?s ?p ?o BIND(STR(?o) AS ?v0) {} }} LIMIT 1",
        concat.join(" ")
    );
    let csv = "text/csv";
    vec![
        (
            "ORDER BY",
            "SELECT * WHERE {?a ?b ?c . ?d ?e ?f} ORDER BY ?c ?f".into(),
            csv,
            1,
        ),
        (
            "COUNT(DISTINCT *)",
            "SELECT (COUNT(DISTINCT *) AS ?n) WHERE {?a ?b ?c . ?d ?e ?f}".into(),
            csv,
            1,
        ),
        ("CONCAT doubling x30", concat, csv, 1),
        (
            "4 x CONSTRUCT as JSON-LD",
            "CONSTRUCT {?s ?p ?o} WHERE {?s ?p ?o}".into(),
            "application/ld+json",
            4,
        ),
    ]
}

/// Runs `clients` copies of `query` at once: (statuses, answer bytes).
fn run_case(endpoint: &str, query: &str, accept: &str, clients: usize) -> (Vec<String>, usize) {
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..clients)
            .map(|_| {
                s.spawn(|| {
                    let r = reqwest::blocking::Client::builder()
                        .timeout(Duration::from_secs(75))
                        .build()
                        .unwrap()
                        .post(endpoint)
                        .header("Content-Type", "application/sparql-query")
                        .header("Accept", accept)
                        .body(query.to_string())
                        .send();
                    match r {
                        Ok(r) => {
                            let status = r.status().as_u16().to_string();
                            let n = r.bytes().map_or(0, |b| b.len());
                            (status, n)
                        }
                        Err(e) if e.is_timeout() => ("timeout".to_string(), 0),
                        Err(_) => ("failed".to_string(), 0),
                    }
                })
            })
            .collect();
        let all: Vec<(String, usize)> = hs.into_iter().map(|h| h.join().unwrap()).collect();
        let bytes = all.iter().map(|a| a.1).sum();
        (all.into_iter().map(|a| a.0).collect(), bytes)
    })
}

/// Runs `f` while sampling `pid`'s resident memory every 10 ms (and, with
/// `cap`, killing it past `cap` MB or 60 s): (f's result, peak MB, seconds,
/// killed).
fn sampled<T>(pid: u32, cap: Option<f64>, f: impl FnOnce() -> T) -> (T, f64, f64, bool) {
    let done = std::sync::atomic::AtomicBool::new(false);
    let start = Instant::now();
    std::thread::scope(|s| {
        let sampler = s.spawn(|| {
            let (mut peak, mut killed) = (0.0f64, false);
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let rss = common::rss_mb(pid);
                peak = peak.max(rss);
                if let Some(cap) = cap {
                    if !killed && (rss > cap || start.elapsed() > Duration::from_secs(60)) {
                        // Stopped by PID: the process this bench started.
                        let _ = Command::new("kill").arg(pid.to_string()).status();
                        killed = true;
                    }
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            (peak, killed)
        });
        let r = f();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        let (peak, killed) = sampler.join().unwrap();
        (r, peak, start.elapsed().as_secs_f64(), killed)
    })
}

fn memory_cases(
    kld_pid: u32,
    kld_ep: &str,
    oxigraph: common::ServerGuard,
    oxi_dir: &std::path::Path,
    oport: u16,
    oxi_ep: &str,
) {
    let limits = karenina_ld::memory::Limits::for_machine();
    let mb = |b: Option<u64>| b.unwrap_or(0) as f64 / (1 << 20) as f64;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "\nmemory budget (defaults for this machine): {:.0} MB a query, {:.0} MB all queries",
        mb(limits.per_query),
        mb(limits.total)
    )
    .unwrap();
    writeln!(
        out,
        "{:<26} {:>9} {:>9} {:>8} {:>9} {:<14}   {:>9} {:>8} {:<14}",
        "case", "kld idle", "peak", "time", "after", "status", "oxi peak", "time", "status"
    )
    .unwrap();
    let mut oxigraph = Some(oxigraph);
    for (name, query, accept, clients) in memory_queries() {
        let idle = common::rss_mb(kld_pid);
        let ((status, _), peak, secs, _) =
            sampled(kld_pid, None, || run_case(kld_ep, &query, accept, clients));
        std::thread::sleep(Duration::from_secs(1));
        let after = common::rss_mb(kld_pid);
        let guard = oxigraph.take().unwrap_or_else(|| {
            let g = common::oxigraph_server(oxi_dir, oport);
            assert!(common::wait_for_port(oport, Duration::from_secs(120)));
            g
        });
        let opid = guard.0.id();
        let ((ostatus, _), opeak, osecs, killed) = sampled(opid, Some(8192.0), || {
            run_case(oxi_ep, &query, accept, clients)
        });
        let ostatus = if killed {
            "stopped by bench".to_string()
        } else {
            ostatus.join(",")
        };
        if !killed {
            oxigraph = Some(guard);
        } else {
            drop(guard);
        }
        writeln!(
            out,
            "{:<26} {:>7.0}MB {:>7.0}MB {:>7.1}s {:>7.0}MB {:<14}   {:>7.0}MB {:>7.1}s {:<14}",
            name,
            idle,
            peak,
            secs,
            after,
            status.join(","),
            opeak,
            osecs,
            ostatus
        )
        .unwrap();
        out.flush().unwrap();
    }
}
