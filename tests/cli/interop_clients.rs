//! SPARQL engines written elsewhere against `kld serve`: Comunica (Node,
//! `@comunica/query-sparql` 4.5, the last major that runs on Node 20; `.ci/run`
//! installs it under `target/comunica`) queries the endpoint without a warning
//! and federates it with an Oxigraph server; Jena's `rsparql` gets answers,
//! and Jena's handling of Karenina's `urn:uuid:` IRIs is what docs/remote.md
//! says.

use crate::common::*;
use crate::serve::serve;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

/// `comunica-sparql` over `sources` (`sparql@URL` each), SPARQL JSON results.
fn comunica(sources: &[String], query: &str) -> Output {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/comunica/node_modules/.bin/comunica-sparql");
    Command::new(&bin)
        .args(sources)
        .args(["-t", "application/sparql-results+json", query])
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (npm install @comunica/query-sparql@4.5.0 --prefix target/comunica)",
                bin.display()
            )
        })
}

/// The rows of a SPARQL JSON result as `var=value` strings, one set per row.
fn rows(json: &[u8]) -> BTreeSet<Vec<String>> {
    let v: Value = serde_json::from_slice(json).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(json));
    });
    v["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let mut r: Vec<String> = b
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, x)| format!("{k}={}", x["value"].as_str().unwrap()))
                .collect();
            r.sort();
            r
        })
        .collect()
}

const NAMES: &str = "SELECT DISTINCT ?name WHERE { ?f a <https://schema.org/DataFeed> ; <https://schema.org/name> ?name }";

#[test]
#[ignore = "interop tier, needs node and @comunica/query-sparql 4.5.0 under target/comunica (.ci/run): cargo test -- --include-ignored"]
fn comunica_queries_kld_serve_without_a_warning() {
    let s = serve(&[examples()], &[]);
    let out = comunica(&[format!("sparql@{}/sparql", s.base)], NAMES);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Comunica logs at level "warn" by default: nothing at all on stderr.
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "Comunica warned");
    let local = crate::stdout_of(
        crate::kld()
            .args(["query", "--format", "json", "-e", NAMES])
            .arg(examples()),
    );
    let got = rows(&out.stdout);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(
        got,
        rows(local.as_bytes()),
        "Comunica over kld serve vs kld query"
    );
}

#[test]
#[ignore = "interop tier, needs node, @comunica/query-sparql 4.5.0 under target/comunica (.ci/run) and the Oxigraph server (pip oxigraph): cargo test -- --include-ignored"]
fn comunica_joins_kld_serve_and_an_oxigraph_server() {
    // Reviews of two questions (and of one no benchmark has) live only in
    // Oxigraph; the questions' texts live only in kld. The join needs both.
    let dir = tempfile::tempdir().unwrap();
    let nt = dir.path().join("reviews.nt");
    std::fs::write(
        &nt,
        "<urn:uuid:question-is-17-a-prime-number-7abec4b4> <http://example.org/reviewedBy> \"Ada\" .\n\
         <urn:uuid:question-what-is-6-multiplied-by-7-aba99ec8> <http://example.org/reviewedBy> \"Grace\" .\n\
         <urn:uuid:question-in-no-benchmark> <http://example.org/reviewedBy> \"Nobody\" .\n",
    )
    .unwrap();
    let db = dir.path().join("db");
    run_ok(
        Command::new("oxigraph")
            .args(["load", "--location"])
            .arg(&db)
            .arg("--file")
            .arg(&nt),
    );
    let port = free_port();
    let _oxigraph = oxigraph_server(&db, port);
    assert!(wait_for_port(port, std::time::Duration::from_secs(30)));
    let s = serve(&[examples()], &[]);
    let q = "SELECT DISTINCT ?text ?reviewer WHERE { \
             ?item <https://schema.org/item>/<https://schema.org/text> ?text . \
             ?item <http://example.org/reviewedBy> ?reviewer }";
    let sources = [
        format!("sparql@{}/sparql", s.base),
        format!("sparql@http://127.0.0.1:{port}/query"),
    ];
    let out = comunica(&sources, q);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "Comunica warned");
    let expected: BTreeSet<Vec<String>> = [
        ["reviewer=Ada", "text=Is 17 a prime number?"],
        ["reviewer=Grace", "text=What is 6 multiplied by 7?"],
    ]
    .iter()
    .map(|r| r.iter().map(|s| s.to_string()).collect())
    .collect();
    assert_eq!(rows(&out.stdout), expected);
    // Each source alone has half of the join: no rows.
    for one in &sources {
        let alone = comunica(std::slice::from_ref(one), q);
        assert!(alone.status.success());
        assert!(rows(&alone.stdout).is_empty(), "{one} alone");
    }
}
