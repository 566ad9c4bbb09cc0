//! The results table (issue 45): Karenina's numbers computed from the table
//! equal `kld info`'s (`results::summary::summarize`) on every results file
//! under tests/data, and survive a round trip through Parquet.

use karenina_ld::numbers::tally::summarize;
use karenina_ld::table;
use std::path::{Path, PathBuf};

/// Every file under tests/data that kld reads as a results export.
fn results_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.path());
        for e in entries {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if matches!(p.extension().and_then(|e| e.to_str()), Some("json" | "csv"))
                && !p.to_string_lossy().contains(".repair_")
                && matches!(karenina_ld::results::sniff_file(&p), Ok(Some(_)))
            {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data"),
        &mut out,
    );
    out
}

#[test]
fn karenina_s_numbers_from_the_table_equal_kld_info_s() {
    let mut compared = 0;
    for p in results_files() {
        // Files kld info refuses are not results exports (bad fixtures).
        let Ok(info) = summarize(&p) else { continue };
        let t = table::from_path(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(t.len(), info.results, "{}: rows", p.display());
        assert_eq!(t.runs.len(), 1);
        let from_table = t.karenina_json(0);
        assert_eq!(
            serde_json::Value::Object(from_table.clone()),
            serde_json::Value::Object(info.karenina.clone()),
            "{}: Karenina's numbers from the table differ from kld info's",
            p.display()
        );
        // Through Parquet and back: the same numbers.
        let dir = tempfile::tempdir().unwrap();
        let pq = dir.path().join("t.parquet");
        table::parquet::write(&t, &pq).unwrap();
        let back = table::parquet::read(&pq).unwrap();
        assert_eq!(back.len(), t.len());
        assert_eq!(
            back.karenina_json(0),
            from_table,
            "{}: after Parquet",
            p.display()
        );
        compared += 1;
    }
    assert!(compared >= 20, "only {compared} results files compared");
}
