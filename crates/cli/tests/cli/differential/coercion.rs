//! Values typed by hand, read as Karenina reads them (issue 48): exports
//! Karenina wrote (the corpus), with values replaced by ones pydantic's lax
//! mode coerces (`"1"`, `true`, `"yes"`, `" 2 "`, `"1_0"`, `3.0`) or refuses
//! (`"maybe"`, `2` for a bool, `1.5` or `{}` for an int, `"fast"`), and token
//! counts past 64 bits and negative (`tests/scripts/karenina_coercion.py`).
//! Where Karenina's loader refuses a file, `kld info` exits 1 with a located
//! `KLD-E201` at the row Karenina names; where it reads it, `kld info
//! --format json`'s `summary` is Karenina's `get_summary()`, key for key,
//! integers (token sums) digit for digit, floats within 1e-9.

use super::{json_diff, Integers};
use crate::common::*;
use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The cases Karenina's side writes: `script` run by the Karenina venv's
/// python into `out` with `args` (seed and count) over `bases`, one JSON
/// line a case.
fn karenina_cases(script: &str, out: &Path, args: [&str; 2], bases: &[PathBuf]) -> Vec<Value> {
    let script = Path::new(env!("KLD_SOURCE_ROOT")).join(script);
    let o = Command::new(karenina_python())
        .arg(&script)
        .arg(out)
        .args(args)
        .args(bases)
        .output()
        .expect("the Karenina venv's python");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `kld args` on the case `what`: its output and stderr, which never tells
/// of a panic.
fn kld_on(what: &str, args: &[&OsStr]) -> (Output, String) {
    let k = Command::new(env!("CARGO_BIN_EXE_kld"))
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&k.stderr).to_string();
    assert!(!err.contains("panicked"), "{what}: {err}");
    (k, err)
}

/// Whether kld refused as Karenina does: exit 1 and a `KLD-E201` located
/// `at` the row Karenina names.
fn refused_at(k: &Output, err: &str, at: &str) -> bool {
    k.status.code() == Some(1) && err.contains("error[KLD-E201]") && err.contains(at)
}

#[test]
#[ignore = "interop: needs Karenina's venv (tests/scripts/karenina-venv.sh; $KLD_KARENINA_VENV)"]
fn hand_typed_values_are_coerced_or_refused_as_karenina_does() {
    let tmp = tempfile::tempdir().unwrap();
    let bases: Vec<_> = corpus_files("results")
        .into_iter()
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().to_string();
            n.ends_with(".json") && !n.ends_with(".expect.json") && n != "INDEX.json"
        })
        .collect();
    let mut cases = 0;
    let (mut refused, mut read, mut raised) = (0, 0, 0);
    let mut bad = Vec::new();
    for seed in ["1", "2"] {
        let out = tmp.path().join(format!("s{seed}"));
        let script = "tests/scripts/karenina_coercion.py";
        for c in karenina_cases(script, &out, [seed, "300"], &bases) {
            let file = c["file"].as_str().unwrap();
            let what = format!("{file} {}", c["changes"]);
            let args = ["info", "--format", "json", file].map(OsStr::new);
            let (k, err) = kld_on(&what, &args);
            cases += 1;
            if c.get("summary_error").is_some() {
                raised += 1;
                continue;
            }
            if let Some(e) = c.get("error") {
                refused += 1;
                let at = format!("at /results/{}/", c["index"]);
                if !refused_at(&k, &err, &at) || !err.contains(file) {
                    bad.push(format!(
                        "{what}: Karenina refuses ({}), kld exit {:?}: {}",
                        e.as_str().unwrap().chars().take(200).collect::<String>(),
                        k.status.code(),
                        err.trim()
                    ));
                }
                continue;
            }
            read += 1;
            if !k.status.success() {
                bad.push(format!("{what}: Karenina reads it, kld: {}", err.trim()));
                continue;
            }
            let ours: Value = serde_json::from_slice(&k.stdout).unwrap();
            let mut out = Vec::new();
            json_diff(
                &c["summary"],
                &ours["summary"],
                "",
                Integers::Exact,
                &mut out,
                &mut 0,
            );
            bad.extend(out.into_iter().take(3).map(|d| format!("{what}: {d}")));
        }
    }
    for d in bad.iter().take(40) {
        eprintln!("  {d}");
    }
    report_differential(
        "coercion-vs-karenina",
        cases,
        bad.len(),
        &format!(
            " (exports with hand-typed values: {refused} refused by Karenina's loader, {read} read and summarised, {raised} whose get_summary() raises, not compared)"
        ),
    );
    assert!(
        refused > 100 && read > 100,
        "{refused} refused, {read} read"
    );
    assert!(bad.is_empty(), "{} disagreements", bad.len());
}

/// The CSV half: hand-typed `replicate`, `execution_time` and
/// `verify_result` cells, each row read by Karenina's own
/// `_process_csv_row` (`tests/scripts/karenina_csv_coercion.py`). Where it
/// raises or drops a cell without a word, `kld export --table` exits 1 with
/// a located `KLD-E201` at that row; where it reads the row, kld's table
/// holds the same replicate, execution time and verdict.
#[test]
#[ignore = "interop: needs Karenina's venv (tests/scripts/karenina-venv.sh; $KLD_KARENINA_VENV)"]
fn hand_typed_csv_cells_are_read_or_refused_as_karenina_does() {
    let tmp = tempfile::tempdir().unwrap();
    let bases: Vec<_> = corpus_files("results")
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    let script = "tests/scripts/karenina_csv_coercion.py";
    let cases_of_karenina = karenina_cases(script, &tmp.path().join("cases"), ["7", "300"], &bases);
    let (mut cases, mut refused, mut read) = (0, 0, 0);
    let mut bad = Vec::new();
    for c in cases_of_karenina {
        let file = c["file"].as_str().unwrap();
        let what = format!("{file} {}", c["changes"]);
        let table = tmp.path().join("table.csv");
        let args = [
            OsStr::new("export"),
            OsStr::new("--table"),
            table.as_os_str(),
            OsStr::new(file),
        ];
        let (k, err) = kld_on(&what, &args);
        cases += 1;
        if let Some(i) = c.get("refused") {
            refused += 1;
            let at = format!("at /rows/{i}/");
            if !refused_at(&k, &err, &at) {
                bad.push(format!(
                    "{what}: Karenina drops row {i}, kld exit {:?}: {}",
                    k.status.code(),
                    err.trim()
                ));
            }
            continue;
        }
        read += 1;
        if !k.status.success() {
            bad.push(format!("{what}: Karenina reads it, kld: {}", err.trim()));
            continue;
        }
        let mut t = csv::Reader::from_path(&table).unwrap();
        let h = t.headers().unwrap().clone();
        let col = |n: &str| h.iter().position(|x| x == n).unwrap();
        let (rep, time, verdict) = (
            col("replicate"),
            col("execution_time"),
            col("verify_result"),
        );
        let rows: Vec<csv::StringRecord> = t.records().map(Result::unwrap).collect();
        let theirs = c["rows"].as_array().unwrap();
        if rows.len() != theirs.len() {
            bad.push(format!(
                "{what}: {} rows, Karenina {}",
                rows.len(),
                theirs.len()
            ));
            continue;
        }
        for (i, (ours, theirs)) in rows.iter().zip(theirs).enumerate() {
            let r = match &theirs["replicate"] {
                Value::Null => String::new(),
                v => v.to_string(),
            };
            if ours[rep] != r {
                bad.push(format!(
                    "{what}: row {i} replicate {:?}, Karenina {r:?}",
                    &ours[rep]
                ));
            }
            let t: f64 = match &theirs["execution_time"] {
                Value::String(s) if s == "NaN" => f64::NAN,
                Value::String(s) if s == "Infinity" => f64::INFINITY,
                Value::String(s) if s == "-Infinity" => f64::NEG_INFINITY,
                v => v.as_f64().unwrap(),
            };
            // (Karenina reads an empty cell as 0.0; kld leaves it empty.)
            let o: f64 = match ours[time].to_ascii_lowercase().as_str() {
                "" => 0.0,
                "nan" => f64::NAN,
                "inf" | "infinity" => f64::INFINITY,
                "-inf" | "-infinity" => f64::NEG_INFINITY,
                s => s.parse().unwrap(),
            };
            let same = (t.is_nan() && o.is_nan()) || t == o || close(t, o);
            if !same {
                bad.push(format!("{what}: row {i} execution_time {o}, Karenina {t}"));
            }
            if (ours[verdict] == *"true") != (theirs["verify_result"] == true) {
                bad.push(format!(
                    "{what}: row {i} verify_result {:?}, Karenina {}",
                    &ours[verdict], theirs["verify_result"]
                ));
            }
        }
    }
    for d in bad.iter().take(40) {
        eprintln!("  {d}");
    }
    report_differential(
        "csv-coercion-vs-karenina",
        cases,
        bad.len(),
        &format!(" (CSV exports with hand-typed cells: {refused} refused, {read} read row by row)"),
    );
    assert!(refused > 50 && read > 50, "{refused} refused, {read} read");
    assert!(bad.is_empty(), "{} disagreements", bad.len());
}
