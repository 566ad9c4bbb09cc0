//! The results table's Parquet file opens in pandas, polars and DuckDB with
//! one row per verification result, and the pass rates by combo they compute
//! from it equal Karenina's own `get_summary()["template_pass_by_combo"]`
//! (issue 45): runs made at test time by Karenina's pipeline
//! (`../shared/tools/karenina_runs.py`), exported by `kld export --table`.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn oracle(files: &[PathBuf]) -> Vec<Value> {
    let script = Path::new(env!("KLD_SOURCE_ROOT")).join("tests/scripts/karenina_summary.py");
    let out = Command::new(karenina_python())
        .arg(script)
        .args(files)
        .output()
        .expect("the Karenina venv's python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn libraries(table: &Path) -> Value {
    let script = Path::new(env!("KLD_SOURCE_ROOT")).join("tests/scripts/table_interop.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(table)
        .output()
        .expect("python3 with pandas, polars, duckdb");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
#[ignore = "interop: needs Karenina's venv ($KLD_KARENINA_VENV), ../shared/tools, python3 with pandas, polars, duckdb"]
fn the_parquet_table_opens_in_pandas_polars_and_duckdb_with_karenina_s_pass_rates() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("runs");
    let st = Command::new(karenina_python())
        .arg(shared_tools().join("karenina_runs.py"))
        .args(["--seed", "1", "--checkpoints"])
        .arg(corpus().join("loads").join("*.jsonld"))
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "karenina_runs.py");
    let exports: Vec<PathBuf> = files_in(&out, "json")
        .into_iter()
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("res-") && !n.ends_with(".expect.json")
        })
        .collect();
    assert!(exports.len() >= 5, "{} exports", exports.len());
    let (mut compared, mut combos) = (0, 0);
    for o in oracle(&exports) {
        if o.get("error").is_some() {
            continue;
        }
        let file = PathBuf::from(o["file"].as_str().unwrap());
        let table = tmp.path().join("t.parquet");
        let st = Command::new(env!("CARGO_BIN_EXE_kld"))
            .args(["export", "--table"])
            .arg(&table)
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
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
                        assert!((rate - pct).abs() < 1e-9, "{lib} {combo}: {rate} / {pct}");
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
