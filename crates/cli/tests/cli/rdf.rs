//! load, extract, query, queries, export.

use crate::common::*;
use crate::{copy_to, kld, stdout_of};
use oxigraph::io::{RdfFormat, RdfParser};
use oxigraph::model::{GraphName, Quad};
use predicates::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn lossy_files() -> Vec<PathBuf> {
    vec![
        data("lossy/lossy.jsonld"),
        data("lossy/lossy_scenario.jsonld"),
    ]
}

pub fn raw(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

#[test]
fn load_then_extract_gives_canon_bytes_for_every_file() {
    let store = tempfile::tempdir().unwrap();
    let mut files = corpus_files("loads");
    files.extend(lossy_files());
    let out = stdout_of(
        kld()
            .arg("load")
            .arg("--store")
            .arg(store.path())
            .args(&files),
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), files.len());
    for (line, f) in lines.iter().zip(&files) {
        let (graph, file) = line.split_once('\t').unwrap();
        assert!(graph.starts_with("file:///"), "{graph}");
        assert_eq!(file, f.display().to_string());
    }
    for f in &files {
        let canon = stdout_of(kld().args(["canon", "-q"]).arg(f));
        let extracted = stdout_of(kld().arg("extract").arg("--store").arg(store.path()).arg(f));
        assert_eq!(extracted, canon, "{}", f.display());
    }
    // Karenina's own files come back byte for byte.
    let f = corpus().join("loads/karenina-output__probe_dj.jsonld");
    let extracted = stdout_of(
        kld()
            .arg("extract")
            .arg("--store")
            .arg(store.path())
            .arg(&f),
    );
    assert_eq!(extracted.as_bytes(), std::fs::read(&f).unwrap().as_slice());
}

#[test]
fn extract_without_a_store_round_trips_a_file_in_memory() {
    for f in lossy_files() {
        let out = stdout_of(kld().arg("extract").arg(&f));
        assert_eq!(
            out.as_bytes(),
            std::fs::read(&f).unwrap().as_slice(),
            "{}",
            f.display()
        );
    }
}

#[test]
fn store_directory_is_plain_rdf_and_reloading_replaces_the_graph() {
    let store = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let f = copy_to(
        work.path(),
        &corpus().join("loads/karenina-output__dyn.jsonld"),
    );
    stdout_of(kld().arg("load").arg("--store").arg(store.path()).arg(&f));
    // Load the same file again through another path spelling: same graph.
    let other = work.path().join(".").join(f.file_name().unwrap());
    stdout_of(
        kld()
            .arg("load")
            .arg("--store")
            .arg(store.path())
            .arg(&other),
    );
    let index = std::fs::read_to_string(store.path().join("index.tsv")).unwrap();
    assert_eq!(index.lines().count(), 2, "{index}");
    let nq_files: Vec<_> = std::fs::read_dir(store.path().join("graphs"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(nq_files.len(), 1);
    // Any RDF tool can read the graph file.
    let bytes = std::fs::read(nq_files[0].path()).unwrap();
    let quads: Vec<Quad> = RdfParser::from_format(RdfFormat::NQuads)
        .for_slice(&bytes)
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(quads.len() > 20);
    assert!(quads
        .iter()
        .all(|q| matches!(q.graph_name, GraphName::NamedNode(_))));
    // Provenance is queryable and matches the file.
    let rows = {
        let out = stdout_of(
            kld()
                .args(["query", "--format", "json", "--named", "graphs", "--store"])
                .arg(store.path()),
        );
        let v: Value = serde_json::from_str(&out).unwrap();
        v["results"]["bindings"].as_array().unwrap().clone()
    };
    assert_eq!(rows.len(), 1);
    use sha2::Digest;
    let sha: String = sha2::Sha256::digest(std::fs::read(&f).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(rows[0]["sha256"]["value"], sha);
    assert_eq!(
        rows[0]["source"]["value"],
        std::fs::canonicalize(&f).unwrap().display().to_string()
    );
    // Changing the file and reloading replaces its graph (no stale quads).
    let text = std::fs::read_to_string(&f)
        .unwrap()
        .replace("\"name\": \"dyn\"", "\"name\": \"dyn renamed\"");
    std::fs::write(&f, text).unwrap();
    stdout_of(kld().arg("load").arg("--store").arg(store.path()).arg(&f));
    let rows = query_rows_store(store.path(), "SELECT ?n WHERE { GRAPH ?g { ?f a <https://schema.org/DataFeed> ; <https://schema.org/name> ?n } }");
    assert_eq!(rows, vec!["dyn renamed".to_string()]);
}

fn query_rows_store(store: &Path, sparql: &str) -> Vec<String> {
    let out = stdout_of(
        kld()
            .args(["query", "--format", "tsv", "-e", sparql, "--store"])
            .arg(store),
    );
    out.lines()
        .skip(1)
        .map(|l| l.trim_matches('"').to_string())
        .collect()
}

#[test]
fn a_bad_file_in_a_batch_never_leaves_half_a_graph() {
    let store = tempfile::tempdir().unwrap();
    let good = corpus().join("loads/karenina-output__dyn.jsonld");
    let bad = corpus().join("rejects/src__sample-checkpoint.jsonld");
    let out = kld()
        .arg("load")
        .arg("--store")
        .arg(store.path())
        .arg(&good)
        .arg(&bad)
        .assert()
        .code(1);
    let o = out.get_output();
    assert!(String::from_utf8_lossy(&o.stderr).contains("not loaded"));
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 1);
    assert_eq!(
        std::fs::read_dir(store.path().join("graphs"))
            .unwrap()
            .count(),
        1
    );
    assert_eq!(
        std::fs::read_to_string(store.path().join("index.tsv"))
            .unwrap()
            .lines()
            .count(),
        2
    );
}

fn parse_all(bytes: &[u8], format: RdfFormat) -> Vec<Quad> {
    RdfParser::from_format(format)
        .for_slice(bytes)
        .collect::<Result<_, _>>()
        .unwrap()
}

fn in_default_graph(q: &[Quad]) -> Vec<Quad> {
    q.iter()
        .map(|q| {
            Quad::new(
                q.subject.clone(),
                q.predicate.clone(),
                q.object.clone(),
                GraphName::DefaultGraph,
            )
        })
        .collect()
}

#[test]
fn every_export_format_parses_back_to_the_same_dataset() {
    let f = corpus().join("loads/karenina-output__probe_default.jsonld");
    let reference = parse_all(
        stdout_of(kld().args(["export", "-f", "nq"]).arg(&f)).as_bytes(),
        RdfFormat::NQuads,
    );
    assert!(reference.len() > 500);
    for (fmt, rdf) in [
        ("nq", RdfFormat::NQuads),
        ("trig", RdfFormat::TriG),
        (
            "jsonld",
            RdfFormat::JsonLd {
                profile: Default::default(),
            },
        ),
    ] {
        let out = stdout_of(kld().args(["export", "-f", fmt]).arg(&f));
        let back = parse_all(out.as_bytes(), rdf);
        assert!(karenina_ld::rdf::isomorphic(&back, &reference), "{fmt}");
    }
    let triples = in_default_graph(&reference);
    for (fmt, rdf) in [
        ("nt", RdfFormat::NTriples),
        ("ttl", RdfFormat::Turtle),
        ("rdfxml", RdfFormat::RdfXml),
    ] {
        let out = stdout_of(kld().args(["export", "-f", fmt]).arg(&f));
        let back = parse_all(out.as_bytes(), rdf);
        assert!(karenina_ld::rdf::isomorphic(&back, &triples), "{fmt}");
    }
    // The format can come from -o's extension.
    let d = tempfile::tempdir().unwrap();
    stdout_of(
        kld()
            .arg("export")
            .arg("-o")
            .arg(d.path().join("x.ttl"))
            .arg(&f),
    );
    let back = parse_all(
        &std::fs::read(d.path().join("x.ttl")).unwrap(),
        RdfFormat::Turtle,
    );
    assert!(karenina_ld::rdf::isomorphic(&back, &triples));
}

#[test]
fn triple_formats_need_one_graph_or_union() {
    let a = corpus().join("loads/karenina-output__dyn.jsonld");
    let b = corpus().join("loads/karenina-output__probe_default.jsonld");
    kld()
        .args(["export", "-f", "nt"])
        .arg(&a)
        .arg(&b)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--union"));
    let out = stdout_of(
        kld()
            .args(["export", "-f", "nt", "--union"])
            .arg(&a)
            .arg(&b),
    );
    assert!(out.lines().count() > 500);
}

#[test]
fn plain_export_is_isomorphic_to_pyld_for_every_corpus_file() {
    for f in corpus_files("loads") {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let base = format!("https://example.org/corpus/{name}");
        let ours = stdout_of(
            kld()
                .args(["export", "--plain", "-f", "nq", "--base", &base])
                .arg(&f),
        );
        let expected = read_fixture(&data(&format!("plain/{}", name.replace(".jsonld", ".nq"))));
        let a = parse_all(ours.as_bytes(), RdfFormat::NQuads);
        let b = parse_all(&expected, RdfFormat::NQuads);
        assert_eq!(a.len(), b.len(), "{name}");
        assert!(
            karenina_ld::rdf::isomorphic(&a, &b),
            "{name}: plain reading differs from pyld"
        );
    }
}

#[test]
fn remote_contexts_are_refused_without_any_connection() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("remote.jsonld");
    std::fs::write(&f, r#"{"@context": "https://schema.org/", "name": "x"}"#).unwrap();
    kld()
        .args(["export", "--plain"])
        .arg(&f)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "refused remote or unknown @context https://schema.org/",
        ));
}

#[test]
fn a_context_on_a_local_listener_sees_no_connection() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!(
        "http://127.0.0.1:{}/context.jsonld",
        listener.local_addr().unwrap().port()
    );
    let d = tempfile::tempdir().unwrap();
    let string_ctx = d.path().join("string.jsonld");
    std::fs::write(
        &string_ctx,
        format!(r#"{{"@context": "{url}", "name": "x"}}"#),
    )
    .unwrap();
    let imported = d.path().join("import.jsonld");
    std::fs::write(
        &imported,
        format!(r#"{{"@context": {{"@import": "{url}"}}, "name": "x"}}"#),
    )
    .unwrap();
    let array = d.path().join("array.jsonld");
    std::fs::write(
        &array,
        format!(r#"{{"@context": [{{"@vocab": "https://schema.org/"}}, "{url}"], "name": "x"}}"#),
    )
    .unwrap();
    for f in [&string_ctx, &imported, &array] {
        kld()
            .args(["export", "--plain"])
            .arg(f)
            .assert()
            .code(1)
            .stderr(predicate::str::contains("refused remote"));
        kld().arg("validate").arg(f).assert().code(1);
        kld()
            .args(["query", "-n", "graphs"])
            .arg(f)
            .assert()
            .code(1);
    }
    // A checkpoint whose (ignored) context imports a URL still loads: Karenina
    // never reads the context and neither do we; nothing is fetched.
    let mut j: Value = raw(&corpus().join("loads/karenina-output__dyn.jsonld"));
    j["@context"]["@import"] = Value::String(url.clone());
    let cp = d.path().join("cp.jsonld");
    std::fs::write(&cp, serde_json::to_string_pretty(&j).unwrap()).unwrap();
    stdout_of(kld().args(["query", "-n", "graphs"]).arg(&cp));
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("the listener saw a connection: {other:?}"),
    }
}

#[test]
fn export_from_a_store_directory() {
    let store = tempfile::tempdir().unwrap();
    let f = corpus().join("loads/karenina-output__probe_default.jsonld");
    stdout_of(kld().arg("load").arg("--store").arg(store.path()).arg(&f));
    let from_store = stdout_of(
        kld()
            .args(["export", "-f", "nq", "--store"])
            .arg(store.path()),
    );
    let from_file = stdout_of(kld().args(["export", "-f", "nq"]).arg(&f));
    let a = parse_all(from_store.as_bytes(), RdfFormat::NQuads);
    let b = parse_all(from_file.as_bytes(), RdfFormat::NQuads);
    assert!(karenina_ld::rdf::isomorphic(&a, &b));
    kld()
        .args(["export", "--plain", "--store"])
        .arg(store.path())
        .assert()
        .code(2);
}
