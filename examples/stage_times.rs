//! Times each stage of loading a directory of checkpoints, single-threaded.
use karenina_ld::model::{read_checkpoint, ReadOptions};
use karenina_ld::rdf::{self, Processor};
use oxigraph::model::{GraphName, NamedNode, Quad};
use oxigraph::store::Store;
use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let dir = std::env::args().nth(1).expect("usage: stage_times DIR");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonld"))
        .collect();
    files.sort();
    let bytes: Vec<Vec<u8>> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let t = Instant::now();
    let cps: Vec<_> = files
        .iter()
        .zip(&bytes)
        .map(|(p, b)| read_checkpoint(p, b, ReadOptions::default()).unwrap())
        .collect();
    println!("analyze:      {:.3} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let mut all: Vec<Quad> = Vec::new();
    for (i, cp) in cps.iter().enumerate() {
        let g = GraphName::NamedNode(NamedNode::new(format!("urn:g:{i}")).unwrap());
        all.extend(rdf::lossless_quads(cp, &g, Processor::Direct).unwrap());
    }
    println!(
        "direct quads: {:.3} s ({} quads)",
        t.elapsed().as_secs_f64(),
        all.len()
    );
    let store = Store::new().unwrap();
    let t = Instant::now();
    for chunk in all.chunks(3000) {
        let mut tx = store.start_transaction().unwrap();
        tx.extend(chunk.iter());
        tx.commit().unwrap();
    }
    println!("insert (tx per 3000): {:.3} s", t.elapsed().as_secs_f64());
}
