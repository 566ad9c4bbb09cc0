//! Fuzzes the workbook reader (`kld import` of .xlsx / .xls, calamine behind
//! kld's guard): any bytes must give a table or a located error within the
//! default limits, never a panic or an abort.
#![no_main]

use karenina_ld::import::{self, Columns, ImportOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("fuzz.xlsx");
    std::fs::write(&f, data).unwrap();
    let opts = ImportOptions {
        columns: Columns {
            question: Some("Question".into()),
            answer: Some("Answer".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    for format in [import::InputFormat::Xlsx, import::InputFormat::Xls] {
        let opts = ImportOptions { format: Some(format), ..opts.clone() };
        if let Err(e) = import::read_rows(&f, &opts) {
            assert!(e.to_string().contains("fuzz.xlsx"), "unlocated: {e}");
        }
    }
});
