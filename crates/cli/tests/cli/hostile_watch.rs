//! `kld serve --watch` against hostile trees (issue 31): deleted
//! directories and roots, a file replaced by a directory, FIFOs and
//! `/dev/zero` links in the watched tree. Split from hostile_files.rs.

use crate::hostile_files::{copies, mkfifo, probe};
use std::path::Path;
use std::time::Duration;

/// The checkpoint graphs a server holds, sorted.
fn served_graphs(c: &reqwest::blocking::Client, base: &str) -> Vec<String> {
    let mut g = crate::serve::select_column(
        c,
        base,
        "SELECT ?g WHERE { GRAPH ?g { ?f a <https://schema.org/DataFeed> } }",
        "g",
    );
    g.sort();
    g
}

/// `/errors`: (file, message) pairs.
fn served_errors(c: &reqwest::blocking::Client, base: &str) -> Vec<(String, String)> {
    let v: serde_json::Value = c
        .get(format!("{base}/errors"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["file"].as_str().unwrap().to_string(),
                e["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Waits (bounded) until `done` holds.
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let t = std::time::Instant::now();
    while !done() {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "not within 10 s: {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn file_graph(p: &Path) -> String {
    url::Url::from_file_path(std::fs::canonicalize(p).unwrap())
        .unwrap()
        .to_string()
}

/// The server still answers a query.
fn answers(c: &reqwest::blocking::Client, base: &str) -> bool {
    c.get(format!("{base}/sparql"))
        .query(&[("query", "ASK {}")])
        .header("accept", "application/sparql-results+json")
        .timeout(Duration::from_secs(5))
        .send()
        .is_ok_and(|r| r.status().is_success())
}

/// Resident memory of a process, in MB (Linux /proc).
fn rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb / 1024.0
}

#[test]
fn watch_follows_deleted_directories_replaced_files_non_regular_files_and_a_deleted_root() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("root");
    let sub = root.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let in_sub = copies(&sub, 2);
    let b = root.join("b.jsonld");
    std::fs::copy(probe(), &b).unwrap();
    let s = crate::serve::serve(std::slice::from_ref(&root), &["--watch"]);
    let c = reqwest::blocking::Client::new();
    let mut all: Vec<String> = in_sub.iter().chain([&b]).map(|p| file_graph(p)).collect();
    all.sort();
    assert_eq!(served_graphs(&c, &s.base), all);
    // rm -rf sub/: its two graphs go.
    std::fs::remove_dir_all(&sub).unwrap();
    eventually("sub's graphs removed", || {
        served_graphs(&c, &s.base) == [file_graph(&b)]
    });
    // A file replaced by a directory loses its graph.
    let b_graph = file_graph(&b);
    std::fs::remove_file(&b).unwrap();
    std::fs::create_dir(&b).unwrap();
    eventually("b's graph removed", || {
        served_graphs(&c, &s.base).is_empty()
    });
    assert!(!served_graphs(&c, &s.base).contains(&b_graph));
    // A FIFO and a symlink to /dev/zero: skipped, shown in /errors; the
    // watcher goes on (a new checkpoint is read) and memory stays put.
    let rss_before = rss_mb(s.pid());
    mkfifo(&root.join("pipe.jsonld"));
    std::os::unix::fs::symlink("/dev/zero", root.join("zero.jsonld")).unwrap();
    eventually("both reported", || {
        let e = served_errors(&c, &s.base);
        ["pipe.jsonld", "zero.jsonld"].iter().all(|n| {
            e.iter()
                .any(|(f, m)| f.ends_with(n) && m.contains("not a regular file"))
        })
    });
    let later = root.join("later.jsonld");
    std::fs::copy(probe(), &later).unwrap();
    eventually("a later checkpoint read", || {
        served_graphs(&c, &s.base) == [file_graph(&later)]
    });
    assert!(answers(&c, &s.base));
    let grown = rss_mb(s.pid()) - rss_before;
    assert!(grown < 200.0, "memory grew by {grown:.0} MB");
    // The watched root deleted: its graphs go and /errors says so; back, it
    // is read again and the error clears.
    let later_graph = file_graph(&later);
    let root_shown = std::fs::canonicalize(&root).unwrap().display().to_string();
    std::fs::remove_dir_all(&root).unwrap();
    eventually("the root's deletion reported", || {
        served_errors(&c, &s.base)
            .iter()
            .any(|(f, m)| *f == root_shown && m.contains("watched directory was deleted"))
    });
    assert!(served_graphs(&c, &s.base).is_empty());
    std::fs::create_dir(&root).unwrap();
    std::fs::copy(probe(), &later).unwrap();
    eventually("the root read again", || {
        served_graphs(&c, &s.base) == [later_graph.clone()] && served_errors(&c, &s.base).is_empty()
    });
    // And watched again: a change after its return is seen.
    std::fs::copy(probe(), root.join("again.jsonld")).unwrap();
    eventually("a checkpoint added after the return", || {
        served_graphs(&c, &s.base).len() == 2
    });
    assert!(answers(&c, &s.base));
}
