//! The lossless RDF mapping: both JSON-LD processors agree, and the way back
//! gives the canonical bytes.

use crate::common::*;
use karenina_ld::canonical::{write_checkpoint, WriteOptions};
use karenina_ld::model::{analyze, Checkpoint, ReadOptions};
use karenina_ld::rdf::isomorphic;
use karenina_ld::rdf::{self, Processor};
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
