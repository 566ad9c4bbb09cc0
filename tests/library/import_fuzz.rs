//! The workbook and CSV readers under random bytes (issue 48), on stable
//! Rust: proptest mutations of real sheets (tests/data/import) and random
//! text, each read through `import::read_rows` with the default limits.
//! Every input must give a table or a typed error, never a panic or an
//! abort (an abort ends the whole test binary, so a green run means none
//! happened), and any error must name the file. fuzz/ holds the same
//! readers as cargo-fuzz targets for longer runs; `KLD_FUZZ_CASES` sets how
//! many cases each property runs here (CI: a bounded number).

use crate::common::data;
use karenina_ld::import::{self, Columns, ImportOptions, InputFormat};
use proptest::prelude::*;
use std::path::Path;

fn cases() -> u32 {
    std::env::var("KLD_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

fn opts(format: InputFormat) -> ImportOptions {
    ImportOptions {
        format: Some(format),
        columns: Columns {
            question: Some("Question".into()),
            answer: Some("Answer".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Reads `bytes` as `format` from a temporary file named `name`.
fn read(name: &str, bytes: &[u8], format: InputFormat) -> Result<(), TestCaseError> {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join(name);
    std::fs::write(&f, bytes).unwrap();
    let r = std::panic::catch_unwind(|| import::read_rows(&f, &opts(format)));
    match r {
        Err(_) => Err(TestCaseError::fail(format!("a panic reading {name}"))),
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => {
            let m = e.to_string();
            prop_assert!(m.contains(name), "not located: {}", m);
            prop_assert!(m.len() < 8192, "a {} byte message", m.len());
            Ok(())
        }
    }
}

/// A seed with up to 8 bytes set at random places, or cut short.
fn mutated(seed: &'static Path) -> impl Strategy<Value = Vec<u8>> {
    let bytes = std::fs::read(seed).unwrap();
    let n = bytes.len();
    (
        proptest::collection::vec((0..n, any::<u8>()), 0..8),
        prop_oneof![3 => Just(n), 1 => 0..n],
    )
        .prop_map(move |(flips, cut)| {
            let mut b = bytes.clone();
            for (i, v) in flips {
                b[i] = v;
            }
            b.truncate(cut);
            b
        })
}

fn seed(name: &str) -> &'static Path {
    Box::leak(data(&format!("import/{name}")).into_boxed_path())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn a_mutated_legacy_workbook_is_read_or_refused(b in mutated(seed("legacy.xls"))) {
        read("fuzz.xls", &b, InputFormat::Xls)?;
    }

    #[test]
    fn a_mutated_xlsx_workbook_is_read_or_refused(b in mutated(seed("questions.xlsx"))) {
        read("fuzz.xlsx", &b, InputFormat::Xlsx)?;
    }

    #[test]
    fn a_mutated_csv_is_read_or_refused(b in mutated(seed("questions.csv"))) {
        read("fuzz.csv", &b, InputFormat::Csv)?;
        read("fuzz.tsv", &b, InputFormat::Tsv)?;
    }

    #[test]
    fn random_delimited_text_is_read_or_refused(
        s in proptest::collection::vec(prop_oneof![
            Just("\"".to_string()), Just(",".to_string()), Just("\t".to_string()),
            Just("\n".to_string()), Just("\r\n".to_string()), Just("Question".to_string()),
            Just("Answer".to_string()), Just("".to_string()), "[a-z ]{0,4}",
        ], 0..60)
    ) {
        let b = s.concat();
        read("fuzz.csv", b.as_bytes(), InputFormat::Csv)?;
        read("fuzz.tsv", b.as_bytes(), InputFormat::Tsv)?;
    }
}

/// Every single byte of legacy.xls set to 0x00, 0x7f and 0xff in turn
/// (16,896 workbooks): none aborts, none reserves gigabytes, and none
/// reaches a panic in calamine: `import::biff` refuses each record calamine
/// would misread before it runs (`unwind` catching one is a failure here).
#[test]
fn every_flipped_byte_of_the_legacy_workbook() {
    let bytes = std::fs::read(data("import/legacy.xls")).unwrap();
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("flip.xls");
    let (mut ok, mut refused, mut caught) = (0, 0, 0);
    let mut where_caught = Vec::new();
    for i in 0..bytes.len() {
        for v in [0x00u8, 0x7f, 0xff] {
            if bytes[i] == v {
                continue;
            }
            let mut b = bytes.clone();
            b[i] = v;
            std::fs::write(&f, &b).unwrap();
            match import::read_rows(&f, &opts(InputFormat::Xls)) {
                Ok(_) => ok += 1,
                Err(e) if e.to_string().contains("calamine cannot read") => {
                    caught += 1;
                    where_caught.push(format!("byte {i} = {v:#04x}: {e}"));
                }
                Err(e) => {
                    assert!(e.to_string().contains("flip.xls"), "{e}");
                    refused += 1
                }
            }
        }
    }
    eprintln!("legacy.xls flips: {ok} read, {refused} refused, {caught} calamine panics caught");
    assert!(
        where_caught.is_empty(),
        "calamine panicked (caught) on:\n{}",
        where_caught.join("\n")
    );
}
