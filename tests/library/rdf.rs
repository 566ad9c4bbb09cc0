//! The lossless RDF mapping: both JSON-LD processors agree, and the way back
//! gives the canonical bytes.

use crate::common::*;
use karenina_ld::model::{analyze, Checkpoint, ReadOptions};
use karenina_ld::rdf::isomorphic;
use karenina_ld::rdf::{self, Processor};
use karenina_ld::save::{write_checkpoint, WriteOptions};
use oxigraph::model::{GraphName, NamedNode};
use std::path::Path;

fn load(p: &Path) -> Checkpoint {
    let a = analyze(p, &std::fs::read(p).unwrap(), ReadOptions::default());
    a.checkpoint.unwrap_or_else(|| panic!("{}", a.report))
}

pub fn round_trip(cp: &Checkpoint, processor: Processor) -> String {
    let g = GraphName::NamedNode(NamedNode::new("urn:test:g").unwrap());
    let quads = rdf::lossless_quads(cp, &g, processor).unwrap();
    let back = rdf::checkpoint_from_quads(quads).unwrap();
    write_checkpoint(&back, &WriteOptions::default())
}

fn assert_same_quads_all_ways(p: &Path, cp: &Checkpoint) {
    let g = GraphName::DefaultGraph;
    let a = rdf::lossless_quads(cp, &g, Processor::Oxigraph).unwrap();
    let b = rdf::lossless_quads(cp, &g, Processor::JsonLdCrate).unwrap();
    let c = rdf::lossless_quads(cp, &g, Processor::Direct).unwrap();
    assert!(!a.is_empty());
    assert_eq!(a.len(), b.len(), "{}", p.display());
    assert_eq!(a.len(), c.len(), "{}", p.display());
    assert!(
        isomorphic(&a, &b),
        "{}: JSON-LD processors disagree",
        p.display()
    );
    assert!(
        isomorphic(&a, &c),
        "{}: direct emitter differs from JSON-LD expansion",
        p.display()
    );
}

#[test]
fn json_ld_processors_and_direct_emitter_give_isomorphic_quads() {
    for p in corpus_files("loads") {
        assert_same_quads_all_ways(&p, &load(&p));
    }
    let dir = generate(&[
        "-n",
        "3",
        "-q",
        "25",
        "-s",
        "9",
        "--all-kinds",
        "--edge-rate",
        "0.5",
    ]);
    for p in jsonld_in(dir.path()) {
        assert_same_quads_all_ways(&p, &load(&p));
    }
}

#[test]
fn quads_back_to_canonical_bytes_for_every_corpus_file() {
    for p in corpus_files("loads") {
        let cp = load(&p);
        let canon = write_checkpoint(&cp, &WriteOptions::default());
        for proc_ in [
            Processor::Direct,
            Processor::Oxigraph,
            Processor::JsonLdCrate,
        ] {
            assert_eq!(
                round_trip(&cp, proc_),
                canon,
                "{} via {proc_:?}",
                p.display()
            );
        }
    }
}

#[test]
fn generated_hostile_checkpoints_round_trip() {
    let dir = generate(&[
        "-n",
        "4",
        "-q",
        "40",
        "-s",
        "5",
        "--all-kinds",
        "--edge-rate",
        "0.5",
    ]);
    for p in jsonld_in(dir.path()) {
        let cp = load(&p);
        let bytes = std::fs::read_to_string(&p).unwrap();
        assert_eq!(
            round_trip(&cp, Processor::Oxigraph),
            bytes,
            "{}",
            p.display()
        );
    }
}

/// Every `@id` string anywhere in a raw JSON document, counted.
fn raw_id_counts(v: &serde_json::Value, counts: &mut std::collections::HashMap<String, usize>) {
    match v {
        serde_json::Value::Object(o) => {
            if let Some(serde_json::Value::String(id)) = o.get("@id") {
                *counts.entry(id.clone()).or_default() += 1;
            }
            o.iter()
                .filter(|(k, _)| *k != "@context")
                .for_each(|(_, x)| raw_id_counts(x, counts));
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| raw_id_counts(x, counts)),
        _ => {}
    }
}

#[test]
fn iri_nodes_are_exactly_the_valid_unique_feed_and_item_ids() {
    let generated = generate(&["-n", "4", "-q", "30", "-s", "21", "--edge-rate", "0.1"]);
    let mut files = corpus_files("loads");
    files.extend(jsonld_in(generated.path()));
    files.push(data("lossy/lossy.jsonld"));
    let mut total_iris = 0;
    let mut total_blank_items = 0;
    for p in &files {
        let bytes = std::fs::read(p).unwrap();
        // The expectation, from the raw file: the root and the items whose @id
        // is an absolute IRI that Oxigraph accepts and occurs once in the file.
        let raw: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let mut counts = std::collections::HashMap::new();
        raw_id_counts(&raw, &mut counts);
        let candidates = std::iter::once(&raw["@id"]).chain(
            raw["dataFeedElement"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|it| &it["@id"]),
        );
        let mut expected: Vec<String> = candidates
            .filter_map(|v| v.as_str())
            .filter(|id| counts[*id] == 1 && NamedNode::new(*id).is_ok())
            .map(str::to_string)
            .collect();
        expected.sort();
        // What the graph holds: IRI subjects, all typed DataFeed or DataFeedItem.
        let cp = load(p);
        let quads = rdf::lossless_quads(&cp, &GraphName::DefaultGraph, Processor::Direct).unwrap();
        let mut got: Vec<String> = quads
            .iter()
            .filter_map(|q| match &q.subject {
                oxigraph::model::NamedOrBlankNode::NamedNode(n) => Some(n.as_str().to_string()),
                _ => None,
            })
            .collect();
        got.sort();
        got.dedup();
        assert_eq!(got, expected, "{}", p.display());
        for iri in &got {
            let ty = quads
                .iter()
                .find(|q| {
                    q.subject.to_string() == format!("<{iri}>")
                        && q.predicate.as_str().ends_with("#type")
                })
                .map(|q| q.object.to_string())
                .unwrap();
            assert!(
                ty.ends_with("/DataFeed>") || ty.ends_with("/DataFeedItem>"),
                "{ty}"
            );
        }
        total_iris += got.len();
        total_blank_items += cp.items.len() + 1 - got.len();
        // The way back is unchanged: byte-identical to canon.
        assert_eq!(
            round_trip(&cp, Processor::Direct),
            write_checkpoint(&cp, &WriteOptions::default()),
            "{}",
            p.display()
        );
    }
    // Both kinds occur (relative, duplicated and hostile IDs stay blank).
    assert!(total_iris > 100, "{total_iris}");
    assert!(total_blank_items > 10, "{total_blank_items}");
}
