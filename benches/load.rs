//! Loading checkpoints into the Oxigraph store (run with `cargo bench --bench load`).
//!
//! 200 checkpoints x 50 questions from `../shared/tools/gen_checkpoints.py`,
//! parsed in parallel and inserted while parsing, as `kld load`/`kld query` do.
//! Target (issue #3, 2 cores): under 1.6 s. Also reports each stage alone,
//! and Oxigraph's insertion of the same quads by itself: the floor of any
//! load that ends in Oxigraph's in-memory store, which takes one writer at
//! a time (issue 27: pyoxigraph's `Store.load` pays it too).

use karenina_ld::model::{read_checkpoint, ReadOptions};
use karenina_ld::rdf::{self, Processor};
use karenina_ld::store::CheckpointStore;
use oxigraph::model::{GraphName, NamedNode};
use rayon::prelude::*;
use std::time::Instant;

#[path = "../tests/common/mod.rs"]
mod common;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let dir = common::generate(&["-n", "200", "-q", "50", "-s", "1"]);
    let files = common::jsonld_in(dir.path());
    let mb = common::total_mb(&files);
    // Stage: parse + model + lossless quads, all cores, no store.
    let g = GraphName::NamedNode(NamedNode::new("urn:bench:g").unwrap());
    for processor in [
        Processor::Direct,
        Processor::Oxigraph,
        Processor::JsonLdCrate,
    ] {
        let t = Instant::now();
        let n: usize = files
            .par_iter()
            .map(|p| {
                let b = std::fs::read(p).unwrap();
                let cp = read_checkpoint(p, &b, ReadOptions::default()).unwrap();
                rdf::lossless_quads(&cp, &g, processor).unwrap().len()
            })
            .sum();
        let s = t.elapsed().as_secs_f64();
        println!(
            "to quads only ({processor:?}): {n} quads in {s:.2} s ({:.0} quads/s, {:.1} MB/s)",
            n as f64 / s,
            mb / s
        );
    }
    // Stage: Oxigraph's insertion alone, of quads mapped beforehand (one
    // transaction per file, as a load inserts them).
    let mapped: Vec<Vec<oxigraph::model::Quad>> = files
        .par_iter()
        .map(|p| {
            let b = std::fs::read(p).unwrap();
            let cp = read_checkpoint(p, &b, ReadOptions::default()).unwrap();
            let g = GraphName::NamedNode(rdf::file_url(p).map(NamedNode::new_unchecked).unwrap());
            rdf::lossless_quads(&cp, &g, Processor::Direct).unwrap()
        })
        .collect();
    let n: usize = mapped.iter().map(Vec::len).sum();
    for run in 0..3 {
        let store = oxigraph::store::Store::new().unwrap();
        let t = Instant::now();
        for quads in &mapped {
            let mut tx = store.start_transaction().unwrap();
            tx.extend(quads.iter());
            tx.commit().unwrap();
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "Oxigraph insert alone run {run}: {n} quads in {s:.2} s ({:.0} quads/s)",
            n as f64 / s
        );
    }
    for run in 0..3 {
        let mut store = CheckpointStore::in_memory().unwrap();
        let t = Instant::now();
        let res = store.load_files(&files, Processor::Direct, &|_, _| {});
        let s = t.elapsed().as_secs_f64();
        assert!(res.iter().all(|(_, r)| r.is_ok()));
        let quads = store.store().len().unwrap();
        println!(
            "load run {run}: {} files, {mb:.1} MB, {quads} quads in {s:.2} s ({:.0} quads/s, {:.1} MB/s; target < 1.6 s)",
            files.len(),
            quads as f64 / s,
            mb / s
        );
    }
}
