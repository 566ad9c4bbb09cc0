//! `kld serve`'s memory under the second siege (issue 38): a chain of
//! `CONCAT` doublings and four `CONSTRUCT {?s ?p ?o}` answered as JSON-LD
//! at once, each measured by the server's resident high-water mark
//! (`VmHWM`, reset once the server is idle). A real server on a loopback
//! port; every server stops with its guard.

use crate::serve::{client, serve};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn examples() -> Vec<PathBuf> {
    vec![Path::new(env!("KLD_SOURCE_ROOT")).join("examples")]
}

/// Waits until the server's catalogue answers are computed (its warm-up,
/// whose own peak is not a query's).
fn warmed(s: &crate::serve::Server) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(600) {
        let report: serde_json::Value = client()
            .get(format!("{}/cache", s.base))
            .send()
            .unwrap()
            .json()
            .unwrap();
        if !report["warmed"].is_null() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("the warm-up did not end in 600 s");
}

/// Resets the server's high-water mark to its resident size, and returns
/// that size (MB).
fn reset_peak(pid: u32) -> f64 {
    let (_, idle) = peak_and_rss_mb(pid);
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").unwrap();
    idle
}

/// `VmHWM` and `VmRSS` of a process, in MB.
fn peak_and_rss_mb(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| -> f64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
            .unwrap()
            / 1024.0
    };
    (field("VmHWM:"), field("VmRSS:"))
}

/// A chain of `BIND(CONCAT(?v, ?v))` stops within its memory limit, in
/// the server's resident size too: the evaluator asks the budget before it
/// allocates a concatenation, and before the dataset copies a large value
/// in or out (the next `CONCAT` reads two copies of the last value), and
/// freed memory leaves the process at once. Two chains: from each quad's
/// object, and from an 85-byte string, whose doublings reach 85 MiB where
/// the last value that fits leaves the least room (510 MiB held). Before:
/// 569 MB over the idle size under a 512 MiB limit (2.09 GB under 1.5 GB
/// in the siege); on the merged main the 85-byte chain peaked 695 MB over
/// idle (680 MiB charged: the copies of the value the next `CONCAT` read
/// were charged once made; and mimalloc keeps freed memory for a second).
#[test]
fn a_chain_of_concat_doublings_stays_within_its_memory_limit() {
    let s = serve(&examples(), &["--query-memory", "512M", "--timeout", "120"]);
    warmed(&s);
    let binds: Vec<String> = (0..40)
        .map(|i| format!("BIND(CONCAT(?v{i}, ?v{i}) AS ?v{})", i + 1))
        .collect();
    let binds = binds.join(" ");
    for start in [
        "?s ?p ?o BIND(STR(?o) AS ?v0)".to_string(),
        format!("VALUES ?v0 {{ \"{}\" }}", "x".repeat(85)),
    ] {
        let idle = reset_peak(s.pid());
        let q = format!("SELECT (STRLEN(?v40) AS ?len) WHERE {{ {start} {binds} }}");
        let r = client()
            .post(format!("{}/sparql", s.base))
            .form(&[("query", q.as_str())])
            .send()
            .unwrap();
        assert_eq!(r.status(), 503, "{start}");
        let body = r.text().unwrap();
        assert!(body.contains("memory limit of 512 MiB"), "{start}: {body}");
        let (peak, _) = peak_and_rss_mb(s.pid());
        eprintln!("CONCAT chain ({start}) under 512 MiB: idle {idle:.0} MB, peak {peak:.0} MB");
        // The budget, and the allocator's slack (the other threads' buffers).
        assert!(
            peak - idle <= 512.0 + 32.0,
            "{start}: peak {peak:.0} MB, {:.0} MB over the idle {idle:.0} MB",
            peak - idle
        );
    }
}

/// POSTs `query` asking for `accept` and reads the whole answer (with a
/// time limit long enough for a debug build's JSON-LD compaction).
fn post_all(base: &str, query: &str, accept: &str) -> (u16, Vec<u8>) {
    let r = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(900))
        .build()
        .unwrap()
        .post(format!("{base}/sparql"))
        .header("Content-Type", "application/sparql-query")
        .header("Accept", accept)
        .body(query.to_string())
        .send()
        .unwrap();
    let status = r.status().as_u16();
    let body = r
        .bytes()
        .unwrap_or_else(|e| panic!("{status}: the answer was cut: {e}"));
    (status, body.to_vec())
}

/// Four `CONSTRUCT {?s ?p ?o}` answered as JSON-LD at once (four texts, so
/// four compactions: identical ones would share one) grow the server by
/// less than 256 MB whatever their size: each answer is compacted and
/// written a batch of about 1 MB at a time. Here four answers of about
/// 15 MB each, complete, each the same graph as the N-Triples answer.
/// Before: each answer was compacted whole, holding it several times over;
/// on this store the four grew the server by about 660 MB, and on 200 × 50
/// checkpoints (72 MB answers) by 2.5 GB, past the siege's bound of 2 GB.
#[test]
#[ignore = "interop: needs python3 (the checkpoint generator); heavy (four 15 MB JSON-LD answers at once, minutes in a debug build): cargo test -- --include-ignored"]
fn four_json_ld_constructs_at_once_grow_the_server_by_a_bound_not_by_their_size() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("gen");
    crate::common::run_generator(
        &["--checkpoints", "40", "--questions", "50", "--seed", "1"],
        &data,
    );
    let s = serve(std::slice::from_ref(&data), &["--timeout", "900"]);
    warmed(&s);
    std::thread::sleep(Duration::from_secs(1));
    let idle = reset_peak(s.pid());
    let query = |i: usize| format!("CONSTRUCT {{ ?s ?p ?o }} WHERE {{ ?s ?p ?o }} # {i}");
    let answers: Vec<(u16, Vec<u8>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let (base, q) = (&s.base, query(i));
                scope.spawn(move || post_all(base, &q, "application/ld+json"))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let (peak, _) = peak_and_rss_mb(s.pid());
    let sizes: Vec<usize> = answers.iter().map(|(_, b)| b.len()).collect();
    eprintln!(
        "4 JSON-LD CONSTRUCTs of {sizes:?} bytes: idle {idle:.0} MB, peak {peak:.0} MB (+{:.0})",
        peak - idle
    );
    for (status, body) in &answers {
        assert_eq!(
            *status,
            200,
            "{}",
            String::from_utf8_lossy(&body[..body.len().min(300)])
        );
        assert!(body.len() > 12 << 20, "{} bytes", body.len());
    }
    assert!(
        peak - idle <= 256.0,
        "peak {peak:.0} MB, {:.0} MB over the idle {idle:.0} MB",
        peak - idle
    );
    // Each a whole JSON-LD document of the graph the N-Triples answer has.
    use oxigraph::io::{JsonLdProfileSet, RdfFormat, RdfParser};
    let read = |format: RdfFormat, body: &[u8]| -> Vec<oxigraph::model::Quad> {
        RdfParser::from_format(format)
            .for_slice(body)
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let (status, nt) = post_all(&s.base, &query(9), "application/n-triples");
    assert_eq!(status, 200);
    let expected = karenina_ld::rdf::isomorphism_form(read(RdfFormat::NTriples, &nt));
    let json_ld = RdfFormat::JsonLd {
        profile: JsonLdProfileSet::empty(),
    };
    let (_, first) = &answers[0];
    assert_eq!(
        karenina_ld::rdf::isomorphism_form(read(json_ld, first)),
        expected
    );
    for (_, other) in &answers[1..] {
        assert_eq!(other.len(), first.len());
    }
}
