//! The default-graph check (issue 30): on a server whose default graph is
//! not the union of its named graphs, the catalogue's queries answer with a
//! header only; `kld push` and an empty `kld query --server` answer say so
//! once, with the fix per server. Real `oxigraph serve` processes, with and
//! without `--union-default-graph`, stopped by PID.

use crate::common::*;
use crate::kld;
use std::path::Path;
use std::time::Duration;

/// `oxigraph serve` over `dir` on a free loopback port, with or without
/// the union default graph; its base URL and the guard that kills it.
fn oxigraph(dir: &Path, union: bool) -> (String, ServerGuard) {
    let port = free_port();
    let guard = oxigraph_server_with(dir, port, union);
    assert!(
        wait_for_port(port, Duration::from_secs(60)),
        "oxigraph did not start"
    );
    (format!("http://127.0.0.1:{port}"), guard)
}

const WARNING: &str = "default graph is not the union of its named graphs";

#[test]
#[ignore = "interop: needs the Oxigraph server (pip oxigraph): cargo test -- --include-ignored"]
fn push_and_an_empty_server_answer_warn_when_the_default_graph_is_not_the_union() {
    let examples = Path::new(env!("KLD_SOURCE_ROOT")).join("examples");
    let inputs = [
        examples.join("notebook.jsonld"),
        examples.join("runs/notebook.verification.json"),
    ];
    let data = tempfile::tempdir().unwrap();
    for union in [false, true] {
        let (base, guard) = oxigraph(&data.path().join(format!("db-{union}")), union);
        let push = kld()
            .args(["push", "--server", "oxigraph", &base])
            .args(&inputs)
            .output()
            .unwrap();
        assert!(
            push.status.success(),
            "{}",
            String::from_utf8_lossy(&push.stderr)
        );
        let err = String::from_utf8(push.stderr).unwrap();
        let query = |name: &str| {
            kld()
                .args([
                    "query", "--server", "oxigraph", &base, "--named", name, "--format", "csv",
                ])
                .output()
                .unwrap()
        };
        let stats = query("pass-rate-by-benchmark");
        assert!(
            stats.status.success(),
            "{}",
            String::from_utf8_lossy(&stats.stderr)
        );
        let (rows, qerr) = (
            String::from_utf8(stats.stdout).unwrap().lines().count(),
            String::from_utf8(stats.stderr).unwrap(),
        );
        if union {
            assert!(!err.contains(WARNING), "{err}");
            assert!(rows > 1, "a header and rows on a union default graph");
            assert!(!qerr.contains(WARNING), "{qerr}");
        } else {
            // Said once by push, with the fix for each server.
            assert_eq!(err.matches(WARNING).count(), 1, "{err}");
            for fix in [
                "--union-default-graph",
                "unionDefaultGraph",
                "Virtuoso",
                "QLever",
            ] {
                assert!(err.contains(fix), "{fix}: {err}");
            }
            // The catalogue query answers with its header only, and says why.
            assert_eq!(rows, 1, "a header only");
            assert_eq!(qerr.matches(WARNING).count(), 1, "{qerr}");
            // A query that reads the named graphs answers, and is not warned about.
            let graphs = kld()
                .args([
                    "query", "--server", "oxigraph", &base, "--format", "csv", "-e",
                ])
                .arg("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }")
                .output()
                .unwrap();
            assert!(String::from_utf8(graphs.stdout).unwrap().lines().count() > 1);
            assert!(!String::from_utf8(graphs.stderr).unwrap().contains(WARNING));
        }
        drop(guard);
    }
}
