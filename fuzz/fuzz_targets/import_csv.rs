//! Fuzzes the CSV and TSV readers (`kld import`): any bytes must give a
//! table or a located, bounded error, never a panic.
#![no_main]

use karenina_ld::import::{self, Columns, ImportOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("fuzz.csv");
    std::fs::write(&f, data).unwrap();
    for format in [import::InputFormat::Csv, import::InputFormat::Tsv] {
        let opts = ImportOptions {
            format: Some(format),
            columns: Columns {
                question: Some("Question".into()),
                answer: Some("Answer".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        if let Err(e) = import::read_rows(&f, &opts) {
            let m = e.to_string();
            assert!(m.contains("fuzz.csv"), "unlocated: {m}");
            assert!(m.len() < 8192, "a {} byte message", m.len());
        }
    }
});
