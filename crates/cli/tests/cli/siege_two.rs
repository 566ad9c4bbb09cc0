//! `kld serve` under the second siege (issue 38, "The server"): a page
//! framed by another site, permalinks that ran themselves, a cache leader
//! whose client never reads, answers of non-deterministic queries kept,
//! the cache's copy charged to the query, `If-None-Match: *`, the editor's
//! vocabulary, and a `--watch` store that grew with every reload. A real
//! server on a loopback port; every loop is bounded and every server stops
//! with its guard.

use crate::hostile_serve::other_site;
use crate::serve::{client, python, serve, serve_logged, RUNAWAY};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn examples() -> Vec<PathBuf> {
    vec![Path::new(env!("KLD_SOURCE_ROOT")).join("examples")]
}

fn encoded(q: &str) -> String {
    url::form_urlencoded::byte_serialize(q.as_bytes()).collect()
}

/// A page on another loopback origin frames kld's page with a permalink to
/// a runaway query: the browser refuses the frame (`frame-ancestors
/// 'none'`, `X-Frame-Options: DENY`) and nothing runs. A permalink opened
/// in the browser fills the editor and waits: a script's click on Run
/// neither runs it nor writes the history; the user's click does both.
/// Before: the frame ran the runaway to its time limit, and the permalink
/// ran at once and went into the history.
#[test]
#[ignore = "interop: needs chromium, chromedriver and selenium: cargo test -- --include-ignored"]
fn a_framed_page_runs_nothing_and_a_permalink_waits_for_run() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let s = serve_logged(&examples(), &["--timeout", "2"], Some(&log));
    let r = client().get(format!("{}/", s.base)).send().unwrap();
    assert_eq!(r.headers()["x-frame-options"], "DENY");
    assert_eq!(
        r.headers()["content-security-policy"],
        "frame-ancestors 'none'"
    );
    let link = format!("{}/#query={}", s.base, encoded(RUNAWAY));
    let page = format!(
        r#"<!doctype html><title>other site</title>
<iframe id="kld" src="{link}" width="800" height="600"></iframe>"#
    );
    let (_site, port) = other_site(&page);
    let out = python(
        "browser_framed.py",
        &[&format!("http://127.0.0.1:{port}/index.html"), &link, "4"],
    );
    let seen: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(seen["text_before"], RUNAWAY, "{seen}");
    assert!(
        seen["status_before"]
            .as_str()
            .unwrap()
            .contains("press Run"),
        "{seen}"
    );
    assert_eq!(seen["history_before"], serde_json::Value::Null, "{seen}");
    assert_eq!(seen["rows_before"], 0, "{seen}");
    assert_eq!(seen["status_after_script"], seen["status_before"], "{seen}");
    assert_eq!(seen["history_after_script"], serde_json::Value::Null);
    assert!(
        seen["status_after_run"].as_str().unwrap().contains("503"),
        "{seen}"
    );
    assert_eq!(seen["history_after_run"], serde_json::json!([RUNAWAY]));
    // One runaway ran: the user's. The frame's and the script's did not.
    std::thread::sleep(Duration::from_millis(300));
    let logged = std::fs::read_to_string(&log).unwrap();
    let limits = logged
        .lines()
        .filter(|l| l.starts_with("POST /sparql 503") && l.contains("time limit"))
        .count();
    assert_eq!(limits, 1, "{logged}");
}

/// `--allow-framing ORIGIN` lets that origin frame the page (and no other).
#[test]
fn framing_is_refused_unless_the_user_allows_an_origin() {
    let s = serve(&examples(), &["--allow-framing", "http://localhost:8888"]);
    for path in ["/", "/sparql?query=ASK%7B%7D", "/app.js"] {
        let r = client().get(format!("{}{path}", s.base)).send().unwrap();
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(
            r.headers()["content-security-policy"],
            "frame-ancestors http://localhost:8888",
            "{path}"
        );
        assert!(r.headers().get("x-frame-options").is_none(), "{path}");
    }
    let s = serve(&examples(), &[]);
    for path in ["/", "/sparql?query=ASK%7B%7D", "/checkpoints", "/nowhere"] {
        let r = client().get(format!("{}{path}", s.base)).send().unwrap();
        assert_eq!(r.headers()["x-frame-options"], "DENY", "{path}");
        assert_eq!(
            r.headers()["content-security-policy"],
            "frame-ancestors 'none'",
            "{path}"
        );
    }
}

fn get(url: &str, headers: &[(&str, &str)]) -> reqwest::blocking::Response {
    let mut r = client().get(url);
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    r.send().unwrap()
}

fn cache_report(base: &str) -> serde_json::Value {
    get(&format!("{base}/cache"), &[]).json().unwrap()
}

/// Answers of queries calling `NOW()`, `RAND()`, `UUID()`, `STRUUID()` or
/// `BNODE()` change from run to run: never kept, never tagged, every
/// request runs them. Before: kept until the next reload, with 304s
/// (`ORDER BY RAND() LIMIT n` sampled the same rows forever).
#[test]
fn answers_that_change_from_run_to_run_are_never_cached() {
    let s = serve(&examples(), &[]);
    let url = |q: &str| format!("{}/sparql?format=json&query={}", s.base, encoded(q));
    let stored = || cache_report(&s.base)["stored"].as_u64().unwrap();
    // (The warm-up stores the catalogue's answers first.)
    let t = Instant::now();
    while cache_report(&s.base)["warmed"].is_null() && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let before = stored();
    for q in [
        "SELECT (STRUUID() AS ?u) {}",
        "SELECT (UUID() AS ?u) {}",
        "SELECT ?s ?r { ?s ?p ?o BIND(RAND() AS ?r) } ORDER BY ?r LIMIT 5",
        "SELECT (BNODE() AS ?b) (STR(?b) AS ?label) {}",
        "SELECT (NOW() AS ?now) (STRUUID() AS ?u) {}",
    ] {
        let first = get(&url(q), &[]);
        assert_eq!(first.status(), 200, "{q}");
        assert!(first.headers().get("etag").is_none(), "{q}");
        assert_eq!(first.headers()["x-kld-cache"], "off", "{q}");
        let first = first.text().unwrap();
        let second = get(&url(q), &[("If-None-Match", "*")]);
        assert_eq!(second.status(), 200, "{q}");
        assert_ne!(second.text().unwrap(), first, "{q}: served again");
    }
    assert_eq!(stored(), before);
    // A deterministic query is cached as before.
    let q = url("SELECT (STRLEN(\"NOW()\") AS ?n) {}");
    get(&q, &[]);
    assert_eq!(get(&q, &[]).headers()["x-kld-cache"], "hit");
}

/// `If-None-Match: *` matches a current answer only (RFC 9110 13.1.2): a
/// query never run is run and answered 200; once its answer is cached, 304.
/// Before: 304 for a query never run.
#[test]
fn if_none_match_star_needs_a_current_answer() {
    let s = serve(&examples(), &[]);
    let url = format!(
        "{}/sparql?format=json&query={}",
        s.base,
        encoded("SELECT (COUNT(*) AS ?n) { ?s ?p ?o } # never run before")
    );
    let first = get(&url, &[("If-None-Match", "*")]);
    assert_eq!(first.status(), 200);
    assert_eq!(first.headers()["x-kld-cache"], "miss");
    let body = first.text().unwrap();
    assert!(body.contains("\"n\""), "{body}");
    let again = get(&url, &[("If-None-Match", "*")]);
    assert_eq!(again.status(), 304);
    // A list with a tag that is not this answer's does not match.
    let other = get(&url, &[("If-None-Match", "W/\"kld-0-0-0\", \"x\"")]);
    assert_eq!(other.status(), 200);
    assert_eq!(other.text().unwrap(), body);
}

/// The cache's copy of an answer is not charged to the query's memory:
/// under `--query-memory 96M` with room in the cache for it, an answer of
/// about 60 MB arrives whole and is then served from the cache. Before: its
/// copy counted with the answer, and it was cut at 37 MB.
#[test]
#[ignore = "interop: heavy (a 60 MB answer, about a minute in a debug build): cargo test -- --include-ignored"]
fn the_caches_copy_does_not_count_against_the_query_memory() {
    let s = serve(
        &examples(),
        &[
            "--query-memory",
            "96M",
            "--cache-mb",
            "1024",
            "--timeout",
            "120",
        ],
    );
    let q = "SELECT ?a ?b { ?a ?p ?o . ?b ?q ?r } LIMIT 400000";
    let url = format!("{}/sparql?format=json&query={}", s.base, encoded(q));
    let body = get(&url, &[])
        .bytes()
        .unwrap_or_else(|e| panic!("the answer was cut: {e}"));
    assert!(body.len() > 48 << 20, "{} bytes", body.len());
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["results"]["bindings"].as_array().unwrap().len(), 400_000);
    let again = get(&url, &[]);
    assert_eq!(again.headers()["x-kld-cache"], "hit");
    assert_eq!(again.bytes().unwrap(), body);
}

/// Sends a GET for `query` on a raw socket and never reads the answer; the
/// socket stays open while the returned stream lives.
fn non_reading_get(port: u16, query: &str) -> std::net::TcpStream {
    use std::io::Write;
    let mut t = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        t,
        "GET /sparql?format=json&query={} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        encoded(query)
    )
    .unwrap();
    t
}

/// A client that never reads its answer leads the computation of an
/// answer: an identical request that comes meanwhile waits for it, is let
/// go when the leader's answer would wait for its client, and gets the
/// whole answer. Before: it waited until its own time limit (a cut answer
/// or a 503).
#[test]
fn a_leader_whose_client_never_reads_does_not_stall_identical_requests() {
    // A limit far past the 6 s this takes on an idle machine: on a loaded
    // one 30 s cut the answer. A follower that stalls still waits it out.
    let s = serve(&examples(), &["--timeout", "120"]);
    let q = "SELECT ?a ?b { ?a ?p ?o . ?b ?q ?r } LIMIT 90000";
    let leader = non_reading_get(s.port, q);
    std::thread::sleep(Duration::from_millis(300));
    let url = format!("{}/sparql?format=json&query={}", s.base, encoded(q));
    let r = get(&url, &[]);
    assert_eq!(r.status(), 200);
    let body = r.bytes().unwrap_or_else(|e| panic!("cut: {e}"));
    // Bigger than what sockets hold for a client that does not read.
    assert!(body.len() > 8 << 20, "{}", body.len());
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["results"]["bindings"].as_array().unwrap().len(), 90_000);
    let report = cache_report(&s.base);
    assert!(report["joined"].as_u64().unwrap() >= 1, "{report}");
    drop(leader);
}

/// A request that waited for an identical request's computation, which
/// ended with nothing to share (its client left), then ran out of time
/// computing: its 503, and the log, say the time went waiting for that
/// answer, not for a query slot (none was waited for).
#[test]
fn time_spent_following_is_not_called_waiting_for_a_slot() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let s = serve_logged(&examples(), &["--timeout", "3"], Some(&log));
    let leader = non_reading_get(s.port, RUNAWAY);
    let follower = {
        let url = format!("{}/sparql?format=json&query={}", s.base, encoded(RUNAWAY));
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(400));
            let r = get(&url, &[]);
            (r.status().as_u16(), r.text().unwrap())
        })
    };
    std::thread::sleep(Duration::from_millis(1500));
    drop(leader);
    let (status, text) = follower.join().unwrap();
    assert_eq!(status, 503, "{text}");
    assert!(
        text.contains("waiting for an identical query's answer"),
        "{text}"
    );
    assert!(!text.contains("query slot"), "{text}");
    std::thread::sleep(Duration::from_millis(300));
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.lines().any(|l| l.starts_with("GET /sparql 503")
            && l.contains("waiting for an identical query's answer")),
        "{logged}"
    );
}

/// Seconds of CPU the server spends on `n` full scans (each text new, so
/// none is answered from the cache), and the answers' count.
fn scan_work(s: &crate::serve::Server, n: usize) -> (f64, f64, String) {
    let before = crate::hostile_serve::cpu_seconds(s.pid());
    let t = Instant::now();
    let mut count = String::new();
    for i in 0..n {
        let q = format!("SELECT (COUNT(*) AS ?n) {{ GRAPH ?g {{ ?s ?p ?o }} }} # scan {i}");
        let url = format!("{}/sparql?format=csv&query={}", s.base, encoded(&q));
        let r = get(&url, &[]);
        assert_eq!(r.status(), 200);
        count = r.text().unwrap();
    }
    let wall = t.elapsed().as_secs_f64();
    (
        crate::hostile_serve::cpu_seconds(s.pid()) - before,
        wall,
        count,
    )
}

/// Waits until the server's log has `n` lines containing `what`.
fn logged_times(log: &Path, what: &str, n: usize) {
    let t = Instant::now();
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if text.lines().filter(|l| l.contains(what)).count() >= n {
            return;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "{n} × {what:?} not logged: {}",
            text.lines().rev().take(5).collect::<Vec<_>>().join("\n")
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `kld serve --watch`: 200 reloads of a 1.5 MB checkpoint (two versions
/// of it, in turn) leave the server as it was after its first 60: resident
/// memory grows by at most half a fresh server's size over the last 140,
/// stays within 2× of a fresh server on the final file, and a full scan
/// costs at most 1.5× the fresh server's CPU. Before: Oxigraph's in-memory
/// store kept every removed quad, and 150 saves took a server from 69 MB to
/// 1.12 GB and a scan from 0.031 s to 0.717 s.
///
/// The first reloads raise the server's size once and for all: a reload
/// holds the old store beside the new one, and a compaction the rebuilt
/// copy beside the live one, and the allocator keeps that high-water mark
/// (measured: about 95 MB from the 20th reload to the 200th, ±5 MB, against
/// 70 MB fresh). Comparing with the fresh server alone at 1.5× failed CI
/// once at 104.4 MB vs 69.5 MB with no growth to find: the plateau is the
/// baseline a leak is measured from.
#[test]
#[ignore = "interop: needs python3 (the checkpoint generator); heavy (200 reloads): cargo test -- --include-ignored"]
fn two_hundred_reloads_leave_the_served_store_as_a_fresh_one() {
    let dir = tempfile::tempdir().unwrap();
    let versions: Vec<Vec<u8>> = (1..=2)
        .map(|seed| {
            let out = dir.path().join(format!("gen{seed}"));
            crate::common::run_generator(
                &[
                    "--checkpoints",
                    "1",
                    "--questions",
                    "500",
                    "--seed",
                    &seed.to_string(),
                ],
                &out,
            );
            std::fs::read(out.join("checkpoint-0000.jsonld")).unwrap()
        })
        .collect();
    assert!(
        versions
            .iter()
            .all(|v| (1_300_000..1_800_000).contains(&v.len())),
        "{:?}",
        versions.iter().map(Vec::len).collect::<Vec<_>>()
    );
    let watched = dir.path().join("watched");
    std::fs::create_dir(&watched).unwrap();
    let file = watched.join("bench.jsonld");
    std::fs::write(&file, &versions[0]).unwrap();
    let log = dir.path().join("log");
    let s = serve_logged(std::slice::from_ref(&watched), &["--watch"], Some(&log));
    let start_rss = crate::hostile_serve::rss_mb(s.pid());
    const RELOADS: usize = 200;
    // The highest size seen from the 20th reload to the 60th.
    let mut plateau = 0.0_f64;
    for i in 1..=RELOADS {
        let tmp = watched.join("bench.tmp");
        std::fs::write(&tmp, &versions[i % 2]).unwrap();
        std::fs::rename(&tmp, &file).unwrap();
        logged_times(&log, "reloaded into", i);
        if (20..=60).contains(&i) && i % 10 == 0 {
            plateau = plateau.max(crate::hostile_serve::rss_mb(s.pid()));
        }
    }
    let last = &versions[RELOADS % 2];
    // The same file, loaded once.
    let fresh_dir = dir.path().join("fresh");
    std::fs::create_dir(&fresh_dir).unwrap();
    std::fs::write(fresh_dir.join("bench.jsonld"), last).unwrap();
    let fresh = serve(std::slice::from_ref(&fresh_dir), &["--watch"]);
    // Both idle, their catalogue answers computed.
    for server in [&s, &fresh] {
        let t = Instant::now();
        while cache_report(&server.base)["warmed"].is_null()
            && t.elapsed() < Duration::from_secs(60)
        {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    std::thread::sleep(Duration::from_secs(2));
    let (reloaded_rss, fresh_rss) = (
        crate::hostile_serve::rss_mb(s.pid()),
        crate::hostile_serve::rss_mb(fresh.pid()),
    );
    let (reloaded_cpu, reloaded_wall, reloaded_count) = scan_work(&s, 20);
    let (fresh_cpu, fresh_wall, fresh_count) = scan_work(&fresh, 20);
    assert_eq!(reloaded_count, fresh_count, "the same data");
    eprintln!(
        "after {RELOADS} reloads: RSS {reloaded_rss:.1} MB (started at {start_rss:.1}, \
         at most {plateau:.1} from the 20th reload to the 60th) vs fresh {fresh_rss:.1} MB; \
         20 scans: CPU {reloaded_cpu:.2} s vs {fresh_cpu:.2} s, wall {reloaded_wall:.2} s vs {fresh_wall:.2} s"
    );
    assert!(
        reloaded_rss <= plateau + 0.5 * fresh_rss,
        "RSS {reloaded_rss:.1} MB after {RELOADS} reloads vs at most {plateau:.1} MB \
         from the 20th to the 60th ({fresh_rss:.1} MB fresh): the reloads keep something"
    );
    assert!(
        reloaded_rss <= 2.0 * fresh_rss,
        "RSS {reloaded_rss:.1} MB after {RELOADS} reloads vs {fresh_rss:.1} MB fresh"
    );
    assert!(
        reloaded_cpu <= 1.5 * fresh_cpu.max(0.05),
        "scan CPU {reloaded_cpu:.2} s after {RELOADS} reloads vs {fresh_cpu:.2} s fresh"
    );
}

/// The editor's completion vocabulary is computed by the warm-up and kept:
/// `GET /vocabulary` answers from it, with no query run. Before: the page
/// sent a query reading every quad on the editor's first focus, each time
/// a page opened (about 1 s on 629k quads), and kept it nowhere.
#[test]
fn the_editors_vocabulary_is_computed_with_the_warm_up_and_kept() {
    let s = serve(&examples(), &[]);
    let t = Instant::now();
    while cache_report(&s.base)["warmed"].is_null() && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let report = cache_report(&s.base);
    assert_eq!(report["vocabulary_generation"], 0, "{report}");
    let url = format!("{}/vocabulary", s.base);
    let first = get(&url, &[]);
    assert_eq!(first.status(), 200);
    assert_eq!(
        first.headers()["content-type"],
        "application/sparql-results+json"
    );
    let body = first.bytes().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let terms: Vec<(&str, &str)> = v["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["kind"]["value"].as_str().unwrap(),
                b["term"]["value"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(
        terms.contains(&("class", "https://schema.org/DataFeed")),
        "{terms:?}"
    );
    assert!(
        terms.contains(&("predicate", "https://schema.org/name")),
        "{terms:?}"
    );
    assert_eq!(get(&url, &[]).bytes().unwrap(), body);
    // Kept, not run again: the cache saw no lookup for it.
    let after = cache_report(&s.base);
    assert_eq!(after["misses"], report["misses"], "{after}");
    assert_eq!(after["hits"], report["hits"], "{after}");
}
