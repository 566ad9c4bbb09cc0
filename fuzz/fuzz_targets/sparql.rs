//! Fuzzes the query entry point: any text must parse within the bounds and
//! run to an answer or a typed error within its time limit, never a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let store = oxigraph::store::Store::new().unwrap();
    let mut out = Vec::new();
    let _ = karenina_ld::sparql::run(
        &store,
        text,
        Duration::from_millis(200),
        karenina_ld::sparql::ResultFormat::Tsv,
        &mut out,
    );
});
