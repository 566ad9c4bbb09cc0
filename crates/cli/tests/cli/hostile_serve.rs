//! `kld serve` and `kld query` against hostile and careless requests (issue
//! 17): a real server on a loopback port, real HTTP, real signals, a real
//! browser. Each case was a crash, a runaway or a leak before.

use crate::common::*;
use crate::kld;
use crate::serve::{client, python, serve, serve_logged, RUNAWAY};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn probe() -> Vec<PathBuf> {
    vec![Path::new(env!("KLD_SOURCE_ROOT")).join("examples/probe.jsonld")]
}

fn examples() -> Vec<PathBuf> {
    vec![Path::new(env!("KLD_SOURCE_ROOT")).join("examples")]
}

/// Resident memory of a process, in MB.
pub(crate) fn rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    kb / 1024.0
}

/// CPU time a process has used, in seconds (user + system).
pub(crate) fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name (which may hold spaces) in parentheses.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap();
    ticks / 100.0
}

/// The hostile shapes of issue 17, at `n` levels.
fn hostile(kind: &str, n: usize) -> String {
    match kind {
        "groups" => format!(
            "SELECT * WHERE {} ?s ?p ?o {}",
            "{".repeat(n),
            "}".repeat(n)
        ),
        "unions" => format!(
            "SELECT * WHERE {{ {} }}",
            vec!["{?s ?p ?o}"; n].join("UNION")
        ),
        "filter" => format!(
            "SELECT * WHERE {{ ?s ?p ?o FILTER({}?o{}) }}",
            "(".repeat(n),
            ")".repeat(n)
        ),
        "optional" => format!(
            "SELECT * WHERE {{ ?s ?p ?o {}{} }}",
            "OPTIONAL{".repeat(n),
            "}".repeat(n)
        ),
        "optionals" => format!("SELECT * WHERE {{ ?s ?p ?o {} }}", "OPTIONAL{}".repeat(n)),
        _ => unreachable!(),
    }
}

const KINDS: [&str; 5] = ["groups", "unions", "filter", "optional", "optionals"];

#[test]
fn deep_and_long_queries_get_a_400_or_an_answer_and_the_server_goes_on() {
    let s = serve(&probe(), &["--timeout", "5"]);
    let c = client();
    for kind in KINDS {
        for n in [1_000, 10_000, 100_000] {
            let q = hostile(kind, n);
            let r = c
                .post(format!("{}/sparql", s.base))
                .header("Content-Type", "application/sparql-query")
                .header("Accept", "text/tab-separated-values")
                .body(q)
                .send()
                .unwrap_or_else(|e| panic!("{kind} {n}: {e}"));
            let status = r.status().as_u16();
            let body = r.text().unwrap_or_default();
            assert!(
                matches!(status, 200 | 400 | 503),
                "{kind} {n}: {status} {body}"
            );
            if status == 400 {
                assert!(body.contains("limit of 1000"), "{kind} {n}: {body}");
            }
            let ask = c
                .get(format!("{}/sparql?query=ASK%7B%7D", s.base))
                .send()
                .unwrap_or_else(|e| panic!("the server died after {kind} {n}: {e}"));
            assert_eq!(ask.status(), 200, "after {kind} {n}");
        }
    }
    // The 6 KB GET of the report, as an <img> would send it.
    let q = hostile("groups", 900);
    let r = c
        .get(format!("{}/sparql", s.base))
        .query(&[("query", q.as_str())])
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[test]
fn runaway_queries_stop_at_the_time_limit_and_leave_no_load() {
    let timeout = 3.0;
    let s = serve(&examples(), &["--timeout", "3"]);
    let c = client();
    let pid = s.pid();
    assert_eq!(
        c.get(format!("{}/sparql?query=ASK%7B%7D", s.base))
            .send()
            .unwrap()
            .status(),
        200
    );
    let idle = rss_mb(pid);
    let count = RUNAWAY;
    let t = Instant::now();
    let r = c
        .post(format!("{}/sparql", s.base))
        .form(&[("query", count)])
        .send()
        .unwrap();
    let took = t.elapsed().as_secs_f64();
    assert_eq!(r.status(), 503);
    assert!(r.text().unwrap().contains("time limit"));
    assert!(took < timeout + 1.0, "COUNT answered after {took:.2} s");
    // GROUP BY answers 503; DISTINCT and SELECT * stream, so their body
    // ends (incomplete) at the limit.
    for q in [
        "SELECT ?c (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } GROUP BY ?c",
        "SELECT DISTINCT ?c ?f ?i { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }",
        "SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }",
    ] {
        let t = Instant::now();
        let r = c
            .post(format!("{}/sparql", s.base))
            .form(&[("query", q)])
            .header("Accept", "text/tab-separated-values")
            .send()
            .unwrap();
        let status = r.status().as_u16();
        let mut body = Vec::new();
        let read = r.take(u64::MAX).read_to_end(&mut body);
        let took = t.elapsed().as_secs_f64();
        match status {
            503 => assert!(String::from_utf8_lossy(&body).contains("time limit")),
            200 => {
                assert!(read.is_err(), "{q}: the cut answer reads as incomplete");
                assert!(
                    body.len() > 1 << 16,
                    "{q}: it streamed ({} bytes)",
                    body.len()
                );
            }
            other => panic!("{q}: {other}"),
        }
        assert!(took < timeout + 1.0, "{q}: ended after {took:.2} s");
    }
    let peak = rss_mb(pid);
    assert!(
        peak < idle + 200.0,
        "RSS {peak:.0} MB after the runaways, {idle:.0} MB idle"
    );
    // CPU falls back to idle within 2 s.
    std::thread::sleep(Duration::from_secs(2));
    let before = cpu_seconds(pid);
    std::thread::sleep(Duration::from_secs(1));
    let used = cpu_seconds(pid) - before;
    assert!(used < 0.2, "{used:.2} s of CPU in the second after");
}

#[test]
fn eight_runaways_do_not_starve_an_ask_and_sigterm_stops_the_server() {
    let s = serve(&examples(), &["--timeout", "3", "--max-concurrent", "2"]);
    let count = RUNAWAY;
    let runaways: Vec<_> = (0..8)
        .map(|_| {
            let url = format!("{}/sparql", s.base);
            std::thread::spawn(move || {
                client()
                    .post(url)
                    .form(&[("query", count)])
                    .send()
                    .map(|r| r.status().as_u16())
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    let ask = client()
        .get(format!("{}/sparql?query=ASK%7B%7D", s.base))
        .send()
        .unwrap();
    assert_eq!(ask.status(), 200);
    // 8 runaways on 2 slots: 4 rounds of 3 s before the ASK's turn at worst.
    assert!(t.elapsed() < Duration::from_secs(16), "{:?}", t.elapsed());
    for r in runaways {
        assert!(matches!(r.join().unwrap(), Ok(503)));
    }
    // SIGTERM in the middle of a runaway: the process exits within the grace.
    let url = format!("{}/sparql", s.base);
    let _pending = std::thread::spawn(move || client().post(url).form(&[("query", count)]).send());
    std::thread::sleep(Duration::from_millis(500));
    let mut s = s;
    let t = Instant::now();
    unsafe { libc::kill(s.pid() as i32, libc::SIGTERM) };
    let status = loop {
        if let Some(st) = s.guard.0.try_wait().unwrap() {
            break st;
        }
        assert!(
            t.elapsed() < Duration::from_secs(7),
            "still running after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
}

/// `ORDER BY` over numbers beside strings of digits: `cmp_terms` compares
/// `10 > 9` by value but `"9" > "5" > 10` lexically, no total order, and
/// Rust's standard sorts may panic on that ("does not correctly implement a
/// total order"), which failed the query (vendor/spareval patch 2). With the
/// standard sort 7 of these 16 sets of 200 values failed (a 500); each
/// answers here. (This replaces `?c ?f { ?a ?b ?c . ?d ?e ?f } ORDER BY ?c
/// ?f` over the probe: 17 s of CPU in a debug build, past its time limit on
/// a loaded machine, and the standard sort no longer failed on it.)
#[test]
fn an_order_by_over_mixed_literals_answers() {
    let s = serve(&probe(), &["--timeout", "120"]);
    let mut state: u64 = 17;
    let mut next = |m: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % m
    };
    for set in 0..16 {
        let values: Vec<String> = (0..200)
            .map(|_| {
                let x = next(100_000);
                match next(3) {
                    0 => x.to_string(),
                    1 => format!("\"{x}\""),
                    _ => format!(
                        "\"{}.{:03}\"^^<http://www.w3.org/2001/XMLSchema#decimal>",
                        x / 7,
                        x % 1000
                    ),
                }
            })
            .collect();
        let q = format!(
            "SELECT ?v {{ VALUES ?v {{ {} }} }} ORDER BY ?v LIMIT 3",
            values.join(" ")
        );
        let r = client()
            .post(format!("{}/sparql", s.base))
            .form(&[("query", q.as_str())])
            .header("Accept", "text/csv")
            .send()
            .unwrap();
        assert_eq!(r.status(), 200, "set {set}");
        assert_eq!(r.text().unwrap().lines().count(), 4, "set {set}");
    }
}

#[test]
fn other_websites_cannot_read_and_other_hosts_are_refused() {
    let c = client();
    let s = serve(&probe(), &[]);
    let r = c
        .get(format!("{}/checkpoints", s.base))
        .header("Origin", "https://example.org")
        .send()
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.headers().get("access-control-allow-origin").is_none());
    let r = c
        .get(format!("{}/checkpoints", s.base))
        .header("Host", "evil.example")
        .send()
        .unwrap();
    assert_eq!(r.status(), 403);
    for host in ["localhost", "127.0.0.1"] {
        let r = c
            .get(format!("{}/checkpoints", s.base))
            .header("Host", format!("{host}:{}", s.port))
            .send()
            .unwrap();
        assert_eq!(r.status(), 200, "{host}");
    }
    let open = serve(
        &probe(),
        &[
            "--cors",
            "https://example.org",
            "--allow-host",
            "evil.example",
        ],
    );
    let r = c
        .get(format!("{}/checkpoints", open.base))
        .header("Origin", "https://example.org")
        .header("Host", "evil.example")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()["access-control-allow-origin"],
        "https://example.org"
    );
    let r = c
        .get(format!("{}/checkpoints", open.base))
        .header("Origin", "https://other.example")
        .send()
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.headers().get("access-control-allow-origin").is_none());
}

#[test]
fn protocol_edges_answer_as_the_protocol_says() {
    let s = serve(&probe(), &["--timeout", "3"]);
    let c = client();
    let get = |q: &str| c.get(format!("{}/sparql?{q}", s.base)).send().unwrap();
    assert_eq!(get("query=ASK%7B%7D&query=SELECT*%7B%7D").status(), 400);
    assert_eq!(get("query=").status(), 400);
    assert_eq!(get("query=%20%0A").status(), 400);
    let r = c
        .post(format!("{}/sparql?query=ASK%7B%7D", s.base))
        .header("Content-Type", "application/sparql-query")
        .body("SELECT * {}")
        .send()
        .unwrap();
    assert_eq!(r.status(), 400);
    let r = c
        .post(format!("{}/sparql", s.base))
        .form(&[("query", "ASK {}"), ("query", "ASK {}")])
        .send()
        .unwrap();
    assert_eq!(r.status(), 400);
    // Relative IRIs resolve against the endpoint's URL (a W3C protocol test).
    let r = c
        .post(format!("{}/sparql", s.base))
        .form(&[("query", "CONSTRUCT { <s> <p> 1 } WHERE {}")])
        .header("Accept", "application/n-triples")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.text().unwrap().trim(),
        format!(
            "<{0}/s> <{0}/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .",
            s.base
        )
    );
    // HEAD answers headers without running the (runaway) query.
    let t = Instant::now();
    let r = c
        .head(format!("{}/sparql", s.base))
        .query(&[("query", RUNAWAY)])
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    // Run, the runaway would have taken the 3 s limit (and been a 503).
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert_eq!(
        r.headers()["content-type"],
        "application/sparql-results+json"
    );
    // Slow clients (1 byte a second) are disconnected once the header-read
    // timeout (10 s) passes; the server answers others meanwhile.
    let slow: Vec<_> = (0..20)
        .map(|_| {
            let port = s.port;
            std::thread::spawn(move || {
                let mut t = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
                t.set_read_timeout(Some(Duration::from_millis(100)))
                    .unwrap();
                let start = Instant::now();
                for b in b"GET /sparql?query=ASK%7B%7D HTTP/1.1\r\nHost: localhost\r\nX-Slow: "
                    .iter()
                    .cycle()
                {
                    if t.write_all(&[*b]).is_err() {
                        break;
                    }
                    let mut buf = [0u8; 256];
                    match t.read(&mut buf) {
                        Ok(0) => break,
                        Ok(_) => break,
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(_) => break,
                    }
                    std::thread::sleep(Duration::from_millis(900));
                    if start.elapsed() > Duration::from_secs(40) {
                        break;
                    }
                }
                start.elapsed()
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(get("query=ASK%7B%7D").status(), 200);
    for h in slow {
        let held = h.join().unwrap();
        assert!(
            held < Duration::from_secs(20),
            "a slow client was held {held:?}"
        );
    }
}

#[test]
fn a_watched_file_is_not_reloaded_by_reads_and_every_atomic_save_is_served() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bench.jsonld");
    let original = std::fs::read_to_string(&probe()[0]).unwrap();
    std::fs::write(&file, &original).unwrap();
    let log = dir.path().join("serve.log");
    let s = serve_logged(std::slice::from_ref(&file), &["--watch"], Some(&log));
    let c = client();
    // A hundred reads: no reload.
    for _ in 0..100 {
        let _ = std::fs::read(&file).unwrap();
        kld().args(["info"]).arg(&file).assert().success();
    }
    std::thread::sleep(Duration::from_secs(1));
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.matches("reloaded").count(), 0, "{text}");
    // Twenty atomic saves (write a temporary file, rename it over): each one
    // is served.
    let name = |i: usize| format!("Spec Probe {i}");
    let first_name = serde_json::from_str::<serde_json::Value>(&original).unwrap()["name"]
        .as_str()
        .unwrap()
        .to_string();
    for i in 1..=20 {
        let edited = original.replacen(
            &format!("\"name\": \"{first_name}\""),
            &format!("\"name\": \"{}\"", name(i)),
            1,
        );
        assert_ne!(edited, original);
        let tmp = dir.path().join(format!(".bench.jsonld.tmp{i}"));
        std::fs::write(&tmp, &edited).unwrap();
        std::fs::rename(&tmp, &file).unwrap();
        let t = Instant::now();
        loop {
            let v: serde_json::Value = c
                .get(format!("{}/checkpoints", s.base))
                .send()
                .unwrap()
                .json()
                .unwrap();
            if v[0]["name"] == name(i) {
                break;
            }
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "save {i} not served: {v}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    // A broken save is logged once, not once per event.
    std::fs::write(&file, "{ broken").unwrap();
    std::thread::sleep(Duration::from_secs(2));
    let _ = std::fs::read(&file);
    std::thread::sleep(Duration::from_secs(1));
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.matches("not reloaded").count(), 1, "{text}");
}

#[test]
fn kld_query_answers_hostile_queries_or_exits_with_a_clear_error() {
    for kind in KINDS {
        for n in [1_000, 10_000, 100_000] {
            let dir = tempfile::tempdir().unwrap();
            let rq = dir.path().join("q.rq");
            std::fs::write(&rq, hostile(kind, n)).unwrap();
            let out = kld()
                .arg("query")
                .args(probe())
                .arg(&rq)
                .args(["--timeout", "5", "--format", "tsv"])
                .output()
                .unwrap();
            let code = out.status.code();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                matches!(code, Some(0) | Some(1)),
                "{kind} {n}: {:?} {err}",
                out.status
            );
            if code == Some(1) {
                assert!(
                    err.contains("limit of 1000") || err.contains("time limit"),
                    "{kind} {n}: {err}"
                );
            }
        }
    }
    let t = Instant::now();
    let out = kld()
        .arg("query")
        .args(examples())
        .args(["--timeout", "3", "-e", RUNAWAY])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("time limit") && err.contains("--timeout"),
        "{err}"
    );
    // Stopped at its limit (unstopped, it runs for minutes).
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
}

#[test]
#[ignore = "interop: needs chromium, chromedriver and selenium: cargo test -- --include-ignored"]
fn a_page_from_another_origin_can_neither_read_nor_crash_the_server() {
    let s = serve(&probe(), &[]);
    let nested = hostile("groups", 900);
    let page = format!(
        r#"<!doctype html><title>other site</title>
<img id="bomb" src="{base}/sparql?query={q}">
<script>
window.outcome = null;
fetch("{base}/checkpoints").then(r => r.text()).then(
  t => {{ window.outcome = "read " + t.length + " bytes"; }},
  e => {{ window.outcome = "blocked: " + e; }});
</script>"#,
        base = s.base,
        q = url::form_urlencoded::byte_serialize(nested.as_bytes()).collect::<String>()
    );
    let (_site, port) = other_site(&page);
    let out = python(
        "browser_other_origin.py",
        &[&format!("http://127.0.0.1:{port}/index.html")],
    );
    let seen: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let outcome = seen["outcome"].as_str().unwrap_or_default();
    assert!(outcome.starts_with("blocked"), "{seen}");
    let r = client()
        .get(format!("{}/sparql?query=ASK%7B%7D", s.base))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200, "the server survived the <img>");
}

/// Serves `page` as `index.html` of another website on a loopback port
/// (Python's http.server): the guard, its directory, and the port.
pub(crate) fn other_site(page: &str) -> ((ServerGuard, tempfile::TempDir), u16) {
    let site = tempfile::tempdir().unwrap();
    std::fs::write(site.path().join("index.html"), page).unwrap();
    let port = free_port();
    let server = ServerGuard(
        std::process::Command::new("python3")
            .args([
                "-m",
                "http.server",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
            ])
            .current_dir(site.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    assert!(wait_for_port(port, Duration::from_secs(30)));
    ((server, site), port)
}
