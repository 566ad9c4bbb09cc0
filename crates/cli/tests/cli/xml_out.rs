//! Every written file parses in an independent reader (issue 26): a term a
//! format cannot hold (XML 1.0 forbids U+000B, U+000C and most other
//! control characters) is refused in one line, naming the term and the
//! formats that can, before any byte is written; a carriage return survives
//! XML; the Graph Store's JSON-LD is a plain graph document.

use crate::common::*;
use crate::kld;
use crate::serve::{client, python, serve};
use karenina_ld::rdf::isomorphic;
use oxigraph::io::{RdfFormat, RdfParser};
use oxigraph::model::{GraphName, Quad};
use std::path::{Path, PathBuf};

/// A corpus checkpoint whose first question's text is `text`.
fn with_text(dir: &Path, name: &str, text: &str) -> PathBuf {
    let mut v: serde_json::Value = serde_json::from_slice(&read_fixture(
        &corpus().join("loads/docs__notebooks__test_checkpoint.jsonld"),
    ))
    .unwrap();
    v["dataFeedElement"][0]["item"]["text"] = text.into();
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    p
}

fn parse(bytes: &[u8], format: RdfFormat) -> Vec<Quad> {
    RdfParser::from_format(format)
        .for_slice(bytes)
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|e| panic!("{format:?}: {e}"))
}

const QUESTION_TEXT: &str = "SELECT ?t WHERE { ?q a schema:Question ; schema:text ?t }";

#[test]
fn xml_refuses_what_xml_cannot_hold_before_writing_and_keeps_carriage_returns() {
    let d = tempfile::tempdir().unwrap();
    let ctrl = with_text(d.path(), "ctrl.jsonld", "vertical\u{b}tab, form\u{c}feed");
    // RDF/XML export: refused, one line, no file.
    let out_file = d.path().join("out.rdf");
    let out = kld()
        .args(["export", "-f", "rdfxml"])
        .arg(&ctrl)
        .arg("-o")
        .arg(&out_file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("U+000B")
            && err.contains("RDF/XML")
            && err.contains("vertical\\u000Btab")
            && err.contains("N-Triples"),
        "{err}"
    );
    assert!(!out_file.exists());
    // SPARQL XML results and a CONSTRUCT as RDF/XML: refused, nothing on stdout.
    for (format, query) in [
        ("xml", QUESTION_TEXT.to_string()),
        (
            "rdfxml",
            "CONSTRUCT { ?q schema:text ?t } WHERE { ?q a schema:Question ; schema:text ?t }"
                .to_string(),
        ),
    ] {
        let out = kld()
            .args(["query", "--format", format, "-e", &query])
            .arg(&ctrl)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{format}");
        assert!(out.stdout.is_empty(), "{format}");
        assert!(err.contains("U+000B") && err.contains("can"), "{err}");
    }
    // A carriage return, a tab and a line feed survive RDF/XML and XML results.
    let cr = with_text(d.path(), "cr.jsonld", "carriage\rreturn\ttab\nline");
    let rdf = kld()
        .args(["export", "-f", "rdfxml"])
        .arg(&cr)
        .output()
        .unwrap();
    assert!(rdf.status.success());
    let nt = kld()
        .args(["export", "-f", "nt"])
        .arg(&cr)
        .output()
        .unwrap();
    assert!(isomorphic(
        &parse(&rdf.stdout, RdfFormat::RdfXml),
        &parse(&nt.stdout, RdfFormat::NTriples)
    ));
    let srx = kld()
        .args(["query", "--format", "xml", "-e", QUESTION_TEXT])
        .arg(&cr)
        .output()
        .unwrap();
    assert!(srx.status.success());
    assert!(String::from_utf8_lossy(&srx.stdout).contains("carriage&#xD;return"));
}

#[test]
fn the_endpoint_answers_406_for_xml_it_cannot_write_and_stays_up() {
    let d = tempfile::tempdir().unwrap();
    let ctrl = with_text(d.path(), "ctrl.jsonld", "form\u{c}feed");
    let s = serve(&[ctrl], &[]);
    let c = client();
    for (accept, query) in [
        ("application/sparql-results+xml", QUESTION_TEXT),
        (
            "application/rdf+xml",
            "CONSTRUCT { ?q schema:text ?t } WHERE { ?q a schema:Question ; schema:text ?t }",
        ),
    ] {
        let r = c
            .get(format!("{}/sparql", s.base))
            .query(&[("query", query)])
            .header("Accept", accept)
            .send()
            .unwrap();
        assert_eq!(r.status(), 406, "{accept}");
        let body = r.text().unwrap();
        assert!(body.contains("U+000C"), "{body}");
    }
    let r = c
        .get(format!("{}/sparql", s.base))
        .query(&[("query", "ASK {}")])
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
}

/// The Graph Store's JSON-LD and Turtle of one graph.
fn store_answers(base: &str, graph: &str) -> (Vec<u8>, Vec<u8>) {
    let c = client();
    let get = |accept: &str| {
        let r = c
            .get(format!("{base}/store"))
            .query(&[("graph", graph)])
            .header("Accept", accept)
            .send()
            .unwrap();
        assert_eq!(r.status(), 200);
        r.bytes().unwrap().to_vec()
    };
    (get("application/ld+json"), get("text/turtle"))
}

#[test]
fn graph_store_json_ld_is_a_plain_graph_document() {
    let f = corpus().join("loads/docs__notebooks__test_checkpoint.jsonld");
    let s = serve(std::slice::from_ref(&f), &[]);
    let graph = format!("file://{}", f.canonicalize().unwrap().display());
    let (jsonld, ttl) = store_answers(&s.base, &graph);
    let doc: serde_json::Value = serde_json::from_slice(&jsonld).unwrap();
    // Not a node named by the graph IRI wrapping the graph.
    assert_ne!(
        doc.get("@id").and_then(|v| v.as_str()),
        Some(graph.as_str())
    );
    let quads = parse(
        &jsonld,
        RdfFormat::JsonLd {
            profile: oxigraph::io::JsonLdProfileSet::empty(),
        },
    );
    assert!(quads
        .iter()
        .all(|q| q.graph_name == GraphName::DefaultGraph));
    assert!(quads.len() > 50);
    assert!(isomorphic(&quads, &parse(&ttl, RdfFormat::Turtle)));
}

#[test]
#[ignore = "interop: needs python3 with rdflib: cargo test -- --include-ignored"]
fn rdflib_reads_every_xml_file_and_graph_store_json_ld_as_written() {
    let d = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let mut inputs = corpus_files("loads");
    inputs.push(with_text(d.path(), "cr.jsonld", "carriage\rreturn"));
    for (i, f) in inputs.iter().enumerate() {
        let out = d.path().join(format!("{i}.rdf"));
        let o = kld()
            .args(["export", "-f", "rdfxml"])
            .arg(f)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        if o.status.success() {
            files.push((f.clone(), out));
        } else {
            // Refused only for a term XML cannot hold, in one line.
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains("XML 1.0 forbids"), "{}: {err}", f.display());
        }
    }
    assert!(files.len() >= 10);
    let mut args = vec!["xml".to_string()];
    args.extend(files.iter().map(|(_, o)| o.to_str().unwrap().to_string()));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let got: serde_json::Value = serde_json::from_str(&python("rdflib_read.py", &argv)).unwrap();
    for (src, out) in &files {
        let nt = kld()
            .args(["export", "-f", "nt"])
            .arg(src)
            .output()
            .unwrap();
        let want = parse(&nt.stdout, RdfFormat::NTriples).len();
        let entry = &got[out.to_str().unwrap()];
        assert_eq!(entry["triples"], want, "{}", src.display());
    }
    let cr = &got[files.last().unwrap().1.to_str().unwrap()]["cr"];
    assert_eq!(cr[0], "carriage\rreturn");
    // Graph Store JSON-LD: rdflib's Graph.parse reads what Turtle gives.
    let f = corpus().join("loads/docs__notebooks__test_checkpoint.jsonld");
    let s = serve(std::slice::from_ref(&f), &[]);
    let graph = format!("file://{}", f.canonicalize().unwrap().display());
    let (jsonld, ttl) = store_answers(&s.base, &graph);
    let (j, t) = (d.path().join("g.jsonld"), d.path().join("g.ttl"));
    std::fs::write(&j, jsonld).unwrap();
    std::fs::write(&t, ttl).unwrap();
    let count = |fmt: &str, p: &Path| -> u64 {
        let v: serde_json::Value =
            serde_json::from_str(&python("rdflib_read.py", &[fmt, p.to_str().unwrap()])).unwrap();
        v[p.to_str().unwrap()]["triples"].as_u64().unwrap()
    };
    let turtle = count("turtle", &t);
    assert!(turtle > 50);
    assert_eq!(count("json-ld", &j), turtle);
}

/// A whole-store export whose IRIs and strings hold U+2028, U+2029 and
/// U+0085 (characters rdflib 7.6 took for line breaks in N-Triples and
/// N-Quads, raising on the export) is read by rdflib as the same dataset
/// as its TriG export, with as many quads as kld wrote.
#[test]
#[ignore = "interop: needs python3 with rdflib: cargo test -- --include-ignored"]
fn rdflib_reads_a_whole_store_n_quads_export_holding_line_separators() {
    let d = tempfile::tempdir().unwrap();
    let probe = Path::new(env!("KLD_SOURCE_ROOT")).join("examples/probe.jsonld");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&probe).unwrap()).unwrap();
    v["dataFeedElement"][0]["@id"] = "urn:uuid:question-a\u{2028}b\u{2029}c\u{85}d".into();
    v["dataFeedElement"][1]["item"]["text"] = "line\u{2028}separated?".into();
    let hostile = d.path().join("hostile.jsonld");
    std::fs::write(&hostile, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let store = d.path().join("store");
    let examples = Path::new(env!("KLD_SOURCE_ROOT")).join("examples");
    let load = kld()
        .args(["load", "--store"])
        .arg(&store)
        .arg(&hostile)
        .arg(&examples)
        .output()
        .unwrap();
    assert!(load.status.success(), "{load:?}");
    let (nq, trig) = (d.path().join("all.nq"), d.path().join("all.trig"));
    for (f, out) in [("nq", &nq), ("trig", &trig)] {
        let o = kld()
            .args(["export", "--store"])
            .arg(&store)
            .args(["-f", f, "-o"])
            .arg(out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
    }
    let text = std::fs::read_to_string(&nq).unwrap();
    assert!(
        text.contains("a\\u2028b\\u2029c\\u0085d"),
        "escaped in the IRI"
    );
    assert!(!text.contains('\u{2028}') && !text.contains('\u{85}'));
    let written = parse(text.as_bytes(), RdfFormat::NQuads);
    let got: serde_json::Value =
        serde_json::from_str(&python("rdflib_read.py", &["nquads", nq.to_str().unwrap()])).unwrap();
    let via_trig: serde_json::Value =
        serde_json::from_str(&python("rdflib_read.py", &["trig", trig.to_str().unwrap()])).unwrap();
    let (got, via_trig) = (
        &got[nq.to_str().unwrap()],
        &via_trig[trig.to_str().unwrap()],
    );
    assert_eq!(got["triples"], written.len());
    assert_eq!(via_trig["triples"], written.len());
    assert_eq!(got["graphs"], via_trig["graphs"]);
    assert!(got["graphs"].as_object().unwrap().len() >= 4, "{got}");
}
