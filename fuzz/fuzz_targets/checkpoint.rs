//! Fuzzes the checkpoint reader: any bytes must give a checkpoint or located
//! diagnostics, never a panic; what loads must be canonical after one `canon`
//! and survive the store round trip.
#![no_main]

use karenina_ld::save::{write_checkpoint, WriteOptions};
use karenina_ld::model::{analyze, ReadOptions};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let a = analyze(Path::new("fuzz.jsonld"), data, ReadOptions { upgrade: data.first() == Some(&b' ') });
    for d in &a.report.diagnostics {
        assert!(d.location.is_some(), "unlocated {}", d.code);
    }
    let Some(cp) = a.checkpoint else { return };
    let once = write_checkpoint(&cp, &WriteOptions::default());
    let b = analyze(Path::new("fuzz.jsonld"), once.as_bytes(), ReadOptions::default());
    let cp2 = b.checkpoint.expect("canonical output must load");
    let twice = write_checkpoint(&cp2, &WriteOptions::default());
    assert_eq!(once, twice, "canon is not idempotent");
    let g = oxigraph::model::GraphName::DefaultGraph;
    let quads = karenina_ld::rdf::lossless_quads(&cp2, &g, karenina_ld::rdf::Processor::Direct).unwrap();
    let back = karenina_ld::rdf::checkpoint_from_quads(quads).expect("extract");
    assert_eq!(write_checkpoint(&back, &WriteOptions::default()), once, "store round trip differs");
});
