//! Prints the predicates of the lossless reading of one checkpoint, by count.
use karenina_ld::model::{read_checkpoint, ReadOptions};
use karenina_ld::rdf::{self, Processor};
use oxigraph::model::GraphName;
use std::collections::HashMap;

fn main() {
    let p = std::env::args().nth(1).expect("usage: quad_stats FILE");
    let p = std::path::Path::new(&p);
    let cp = read_checkpoint(p, &std::fs::read(p).unwrap(), ReadOptions::default()).unwrap();
    let quads = rdf::lossless_quads(&cp, &GraphName::DefaultGraph, Processor::Oxigraph).unwrap();
    let mut by: HashMap<String, usize> = HashMap::new();
    for q in &quads {
        *by.entry(q.predicate.as_str().to_string()).or_default() += 1;
    }
    let mut v: Vec<_> = by.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1));
    println!("{} quads", quads.len());
    for (p, n) in v {
        println!("{n:>7}  {p}");
    }
}
