//! The results table's Parquet file opens in pandas, polars and DuckDB with
//! one row per verification result, and the pass rates by combo they compute
//! from it equal Karenina's own `get_summary()["template_pass_by_combo"]`
//! (issue 45): runs made at test time by Karenina's pipeline
//! (`../shared/tools/karenina_runs.py`), exported by `kld export --table`.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `tests/scripts/NAME`.
fn script(name: &str) -> PathBuf {
    Path::new(env!("KLD_SOURCE_ROOT"))
        .join("tests/scripts")
        .join(name)
}

/// Karenina's `get_summary()` of each of `files`.
fn oracle(files: &[PathBuf]) -> Vec<Value> {
    run_ok(
        Command::new(karenina_python())
            .arg(script("karenina_summary.py"))
            .args(files),
    )
    .lines()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect()
}

/// What pandas, polars and DuckDB read of the Parquet `table`.
fn libraries(table: &Path) -> Value {
    let out = run_ok(
        Command::new("python3")
            .arg(script("table_interop.py"))
            .arg(table),
    );
    serde_json::from_str(&out).unwrap()
}

#[test]
#[ignore = "interop: needs Karenina's venv ($KLD_KARENINA_VENV), ../shared/tools, python3 with pandas, polars, duckdb"]
fn the_parquet_table_opens_in_pandas_polars_and_duckdb_with_karenina_s_pass_rates() {
    let tmp = tempfile::tempdir().unwrap();
    let exports = karenina_runs("1", &tmp.path().join("runs"));
    assert!(exports.len() >= 5, "{} exports", exports.len());
    let (mut compared, mut combos) = (0, 0);
    for o in oracle(&exports) {
        if o.get("error").is_some() {
            continue;
        }
        let file = PathBuf::from(o["file"].as_str().unwrap());
        let table = tmp.path().join("t.parquet");
        run_ok(
            Command::new(env!("CARGO_BIN_EXE_kld"))
                .args(["export", "--table"])
                .arg(&table)
                .arg(&file),
        );
        let got = libraries(&table);
        let theirs = &o["summary"];
        for lib in ["pandas", "polars", "duckdb"] {
            let g = &got[lib];
            assert_eq!(
                g["rows"],
                theirs["num_results"],
                "{lib} rows, {}",
                file.display()
            );
            let by = g["by_combo"].as_object().unwrap();
            match theirs["template_pass_by_combo"].as_object() {
                None => assert!(by.is_empty(), "{lib}: {}", file.display()),
                Some(k) => {
                    assert_eq!(by.len(), k.len(), "{lib} combos, {}", file.display());
                    for (combo, t) in k {
                        let pt = &by[combo];
                        assert_eq!(
                            pt[0],
                            t["passed"],
                            "{lib} {combo} passed, {}",
                            file.display()
                        );
                        assert_eq!(pt[1], t["total"], "{lib} {combo} total, {}", file.display());
                        let rate = pt[0].as_f64().unwrap() / pt[1].as_f64().unwrap() * 100.0;
                        let pct = t["pass_pct"].as_f64().unwrap();
                        assert!(close(rate, pct), "{lib} {combo}: {rate} / {pct}");
                        combos += 1;
                    }
                }
            }
        }
        compared += 1;
    }
    assert!(compared >= 5, "only {compared} runs compared");
    report_differential(
        "table-parquet-vs-karenina",
        combos,
        0,
        &format!(" ({compared} runs; pandas, polars and DuckDB)"),
    );
}
