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
    Path::new(env!("KLD_SOURCE_ROOT")).join("examples")
}

/// `comunica-sparql` over `sources` (`sparql@URL` each), SPARQL JSON results.
fn comunica(sources: &[String], query: &str) -> Output {
    let bin = Path::new(env!("KLD_SOURCE_ROOT"))
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

/// Asserts that a SPARQL JSON answer to [`NAMES`] (what `who` answered) has
/// the three benchmark names `kld query` gives over examples/.
fn same_names_as_kld_query(answer: &[u8], who: &str) {
    let local = crate::stdout_of(
        crate::kld()
            .args(["query", "--format", "json", "-e", NAMES])
            .arg(examples()),
    );
    let got = rows(answer);
    assert_eq!(got.len(), 3, "{who}: {got:?}");
    assert_eq!(got, rows(local.as_bytes()), "{who} vs kld query");
}

const NAMES: &str = "SELECT DISTINCT ?name WHERE { ?f a <https://schema.org/DataFeed> ; <https://schema.org/name> ?name }";

#[test]
#[ignore = "interop: needs node and @comunica/query-sparql 4.5.0 under target/comunica (.ci/run): cargo test -- --include-ignored"]
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
    same_names_as_kld_query(&out.stdout, "Comunica over kld serve");
}

#[test]
#[ignore = "interop: needs node, @comunica/query-sparql 4.5.0 under target/comunica (.ci/run) and the Oxigraph server (pip oxigraph): cargo test -- --include-ignored"]
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

/// A `java` command running Jena's `main` class with the classpath
/// `tests/scripts/jena_classpath.py` builds (resources under `dir`).
fn jena(dir: &Path, main: &str) -> Command {
    let script = Path::new(env!("KLD_SOURCE_ROOT")).join("tests/scripts/jena_classpath.py");
    let cp = run_ok(Command::new("python3").arg(script).arg(dir));
    let mut c = Command::new("java");
    c.args(["-cp", cp.trim(), main]);
    c
}

#[test]
#[ignore = "interop: needs java and Debian's libapache-jena-java (.ci/run): cargo test -- --include-ignored"]
fn jena_rsparql_gets_answers_from_kld_serve() {
    let dir = tempfile::tempdir().unwrap();
    let s = serve(&[examples()], &[]);
    let out = run_ok(jena(dir.path(), "arq.rsparql").args([
        "--service",
        &format!("{}/sparql", s.base),
        "--results",
        "json",
        NAMES,
    ]));
    same_names_as_kld_query(out.as_bytes(), "rsparql over kld serve");
}

/// What docs/remote.md says Jena does with Karenina's `urn:uuid:` IRIs
/// (`urn:uuid:question-…`, `urn:uuid:karenina-checkpoint-…`: not UUIDs).
#[test]
#[ignore = "interop: needs java and Debian's libapache-jena-java (.ci/run): cargo test -- --include-ignored"]
fn jena_warns_on_karenina_urn_uuid_iris_in_data_and_refuses_them_in_query_text() {
    let dir = tempfile::tempdir().unwrap();
    let nq = dir.path().join("examples.nq");
    crate::stdout_of(
        crate::kld()
            .arg("export")
            .arg(examples())
            .arg("-o")
            .arg(&nq),
    );
    let quads = std::fs::read_to_string(&nq).unwrap().lines().count();
    // Loading: every quad is read, each such IRI draws a warning, exit 1
    // (riot writes the count to stderr too).
    let out = jena(dir.path(), "riotcmd.riot")
        .arg("--count")
        .arg(&nq)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    let n: String = stderr
        .rsplit("Quads = ")
        .next()
        .unwrap()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    assert_eq!(n.parse::<usize>().unwrap(), quads, "{stdout}");
    for iri in [
        "urn:uuid:question-is-17-a-prime-number-7abec4b4",
        "urn:uuid:karenina-checkpoint-1770332819.237824",
    ] {
        assert!(
            stderr
                .lines()
                .any(|l| l.contains("WARN org.apache.jena.riot - [line: ")
                    && l.ends_with(&format!("Bad IRI: Not a valid UUID string: {iri}"))),
            "{stderr}"
        );
    }
    let warnings = stderr
        .lines()
        .filter(|l| l.contains("Not a valid UUID string"))
        .count();
    assert!(warnings > 100, "one warning per occurrence: {warnings}");

    // Query text naming one: refused before it is sent (exit 2); matching
    // the IRI's string, or building it with IRI(), works.
    let s = serve(&[examples()], &[]);
    let service = format!("{}/sparql", s.base);
    let named =
        "SELECT (COUNT(*) AS ?n) { <urn:uuid:question-is-17-a-prime-number-7abec4b4> ?p ?o }";
    let out = jena(dir.path(), "arq.rsparql")
        .args(["--service", &service, named])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "Bad IRI: 'urn:uuid:question-is-17-a-prime-number-7abec4b4': Not a valid UUID string"
        ),
        "{stderr}"
    );
    let expected = rows(
        crate::stdout_of(
            crate::kld()
                .args(["query", "--format", "json", "-e", named])
                .arg(examples()),
        )
        .as_bytes(),
    );
    assert_ne!(
        expected,
        rows(br#"{"results":{"bindings":[{"n":{"value":"0"}}]}}"#)
    );
    for workaround in [
        "SELECT (COUNT(*) AS ?n) { ?s ?p ?o FILTER(STR(?s) = \"urn:uuid:question-is-17-a-prime-number-7abec4b4\") }",
        "SELECT (COUNT(*) AS ?n) { BIND(IRI(\"urn:uuid:question-is-17-a-prime-number-7abec4b4\") AS ?s) ?s ?p ?o }",
    ] {
        let out = jena(dir.path(), "arq.rsparql")
            .args(["--service", &service, "--results", "json", workaround])
            .output()
            .unwrap();
        assert!(out.status.success(), "{workaround}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(rows(&out.stdout), expected, "{workaround}");
    }
}
