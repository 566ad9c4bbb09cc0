//! rdflib reads kld's N-Triples and N-Quads whatever spaces their IRIs and
//! strings hold (issue 48): rdflib's line patterns use Python's `\s`, which
//! matches every Unicode space, so an IRI holding U+00A0 or U+3000 was
//! refused and a line holding U+2028 split. kld writes each such character
//! as a `\u` escape; the file reads back (in Oxigraph and in rdflib) as the
//! very graph kld holds.

use crate::kld;
use crate::serve::python;
use oxigraph::io::{RdfFormat, RdfParser};
use oxigraph::model::{GraphName, NamedOrBlankNode, Quad, Term};
use std::path::Path;

/// Every character Python's `re` matches with `\s` in a `str` pattern
/// outside ASCII (CPython: `[c for c in range(0x110000) if re.match(r"\s", chr(c))]`).
const SPACES: &[char] = &[
    '\u{85}', '\u{A0}', '\u{1680}', '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}',
    '\u{2005}', '\u{2006}', '\u{2007}', '\u{2008}', '\u{2009}', '\u{200A}', '\u{2028}', '\u{2029}',
    '\u{202F}', '\u{205F}', '\u{3000}',
];

/// The probe checkpoint with every space in question IDs (one each, then
/// all in one; U+0085, a C1 control, cannot be in an IRI) and in a
/// question's and an answer's text.
fn spaced(dir: &Path) -> std::path::PathBuf {
    let probe = Path::new(env!("KLD_SOURCE_ROOT")).join("examples/probe.jsonld");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(probe).unwrap()).unwrap();
    let items = v["dataFeedElement"].as_array_mut().unwrap();
    let n = items.len();
    assert!(n >= 2);
    let all: String = SPACES.iter().collect();
    let in_iri: Vec<char> = SPACES.iter().copied().filter(|c| *c != '\u{85}').collect();
    for (i, item) in items.iter_mut().enumerate() {
        let id = if i + 1 == n {
            let all: String = in_iri.iter().collect();
            format!("urn:uuid:question-all{all}end")
        } else {
            let chars: String = in_iri.iter().skip(i).step_by(n - 1).collect();
            format!("urn:uuid:question-{i}{chars}x")
        };
        item["@id"] = id.into();
    }
    items[0]["item"]["text"] = format!("What{all}is it?").into();
    items[0]["item"]["acceptedAnswer"]["text"] = format!("A{all}").into();
    let p = dir.join("spaced.jsonld");
    std::fs::write(&p, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    p
}

fn term_json(t: &Term) -> serde_json::Value {
    match t {
        Term::NamedNode(n) => serde_json::json!({ "iri": n.as_str() }),
        Term::BlankNode(b) => serde_json::json!({ "bnode": b.as_str() }),
        Term::Literal(l) => serde_json::json!({
            "literal": l.value(),
            "datatype": l.datatype().as_str(),
            "lang": l.language(),
        }),
    }
}

fn quads_json(quads: &[Quad]) -> serde_json::Value {
    quads
        .iter()
        .map(|q| {
            let s: Term = match &q.subject {
                NamedOrBlankNode::NamedNode(n) => n.clone().into(),
                NamedOrBlankNode::BlankNode(b) => b.clone().into(),
            };
            let g = match &q.graph_name {
                GraphName::NamedNode(n) => serde_json::json!({ "iri": n.as_str() }),
                _ => serde_json::Value::Null,
            };
            serde_json::json!([
                term_json(&s),
                term_json(&q.predicate.clone().into()),
                term_json(&q.object),
                g
            ])
        })
        .collect()
}

/// Exports `file` as `format` with kld: the text.
fn export(file: &Path, format: &str, out: &Path) -> String {
    let o = kld()
        .arg("export")
        .arg(file)
        .args(["-f", format, "-o"])
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    std::fs::read_to_string(out).unwrap()
}

/// Without Python: every space is escaped and the file reads back in
/// Oxigraph as the graph kld's TriG export holds.
#[test]
fn n_triples_and_n_quads_escape_every_python_space_and_read_back() {
    let d = tempfile::tempdir().unwrap();
    let file = spaced(d.path());
    let trig = export(&file, "trig", &d.path().join("x.trig"));
    let want: Vec<Quad> = RdfParser::from_format(RdfFormat::TriG)
        .for_slice(trig.as_bytes())
        .collect::<Result<_, _>>()
        .unwrap();
    let held = |c: char| {
        want.iter().any(|q| match &q.subject {
            NamedOrBlankNode::NamedNode(n) => n.as_str().contains(c),
            _ => false,
        })
    };
    for c in SPACES.iter().filter(|c| **c != '\u{85}') {
        assert!(held(*c), "{c:?} is in an IRI kld holds");
    }
    for (f, format) in [("nt", RdfFormat::NTriples), ("nq", RdfFormat::NQuads)] {
        let text = export(&file, f, &d.path().join(format!("x.{f}")));
        for c in SPACES {
            assert!(!text.contains(*c), "{f}: {c:?} written raw");
            assert!(
                text.contains(&format!("\\u{:04X}", u32::from(*c))),
                "{f}: {c:?} not escaped"
            );
        }
        let back: Vec<Quad> = RdfParser::from_format(format)
            .for_slice(text.as_bytes())
            .collect::<Result<_, _>>()
            .unwrap();
        let strip = |q: &Quad| {
            let mut q = q.clone();
            if f == "nt" {
                q.graph_name = GraphName::DefaultGraph;
            }
            q
        };
        let a: Vec<Quad> = back.iter().map(strip).collect();
        let b: Vec<Quad> = want.iter().map(strip).collect();
        assert_eq!(a.len(), b.len(), "{f}");
        assert!(karenina_ld::rdf::isomorphic(&a, &b), "{f}");
    }
}

/// rdflib parses the N-Triples and N-Quads exports of a checkpoint whose
/// IRIs and strings hold every character Python's `\s` matches, and reads
/// the same graph (isomorphic) as Oxigraph reads from kld's file.
#[test]
#[ignore = "interop: needs python3 with rdflib: cargo test -- --include-ignored"]
fn rdflib_reads_exports_holding_every_python_space_as_the_same_graph() {
    let d = tempfile::tempdir().unwrap();
    let file = spaced(d.path());
    for (f, format, rdflib_format) in [
        ("nt", RdfFormat::NTriples, "nt"),
        ("nq", RdfFormat::NQuads, "nquads"),
    ] {
        let out = d.path().join(format!("x.{f}"));
        let text = export(&file, f, &out);
        let quads: Vec<Quad> = RdfParser::from_format(format)
            .for_slice(text.as_bytes())
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(quads.iter().any(|q| match &q.subject {
            NamedOrBlankNode::NamedNode(n) => n.as_str().contains('\u{3000}'),
            _ => false,
        }));
        let reference = d.path().join(format!("{f}.json"));
        std::fs::write(&reference, quads_json(&quads).to_string()).unwrap();
        let got: serde_json::Value = serde_json::from_str(&python(
            "rdflib_same_graph.py",
            &[
                rdflib_format,
                out.to_str().unwrap(),
                reference.to_str().unwrap(),
            ],
        ))
        .unwrap();
        assert_eq!(got["read"], quads.len(), "{f}: {got}");
        assert_eq!(got["isomorphic"], true, "{f}: {got}");
    }
}
