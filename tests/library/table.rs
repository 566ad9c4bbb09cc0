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

/// A CSV export's trait scores are in the table (family `unknown`: a CSV
/// does not say a trait's kind), each score equal to the one the same run's
/// JSON export gives, row for row, and they survive Parquet.
#[test]
fn a_csv_export_s_trait_scores_are_its_json_twin_s() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/corpus/results");
    let (mut runs, mut scores) = (0, 0);
    for csv in results_files()
        .into_iter()
        .filter(|p| p.starts_with(&dir) && p.extension().is_some_and(|e| e == "csv"))
    {
        let json = csv.with_extension("json");
        if !json.is_file() {
            continue;
        }
        let (c, j) = (
            table::from_path(&csv).unwrap(),
            table::from_path(&json).unwrap(),
        );
        assert_eq!(c.len(), j.len(), "{}", csv.display());
        for col in &c.traits {
            assert_eq!(col.family, table::UNTYPED_FAMILY, "{}", csv.display());
        }
        // Each trait of the CSV is one of the JSON's, by name (the family is
        // the JSON's alone; Karenina's CSV leaves agentic traits out).
        for cc in &c.traits {
            let Some(jc) = j.traits.iter().find(|t| t.name == cc.name) else {
                panic!("{}: trait {} is not in the JSON", csv.display(), cc.name);
            };
            assert_eq!(cc.keys(), jc.keys(), "{}: {}", csv.display(), jc.name);
            for i in 0..j.len() {
                assert_eq!(
                    cc.present[i],
                    jc.present[i],
                    "{}: {}",
                    csv.display(),
                    cc.name
                );
                if !jc.present[i] {
                    continue;
                }
                let (a, b) = (&cc.value[i], &jc.value[i]);
                assert_eq!(a, b, "{}: {} row {i}", csv.display(), jc.name);
                for ((_, fa), (_, fb)) in cc.fields.iter().zip(&jc.fields) {
                    assert_eq!(fa[i], fb[i], "{}: {} row {i}", csv.display(), jc.name);
                }
                scores += 1;
            }
        }
        let d = tempfile::tempdir().unwrap();
        let pq = d.path().join("t.parquet");
        table::parquet::write(&c, &pq).unwrap();
        assert_eq!(
            table::parquet::read(&pq).unwrap().traits,
            c.traits,
            "{}",
            csv.display()
        );
        runs += 1;
    }
    assert!(runs >= 5 && scores >= 20, "{runs} runs, {scores} scores");
}
