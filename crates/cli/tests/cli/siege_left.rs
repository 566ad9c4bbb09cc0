//! What the third siege found left from the last round (issue 48): an
//! imported database run marked by the `runs` query as `kld info` marks it,
//! a run name that cannot forge a line of kld's text, run folders that
//! differ only in their manifests listed as the runs they are, and scenario
//! CSV exports bound to their scenario checkpoint.

use crate::common::*;
use crate::database::{db, runs};
use crate::queries::query_rows;
use crate::{copy_to, kld};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The `runs` query marks a run Karenina imported into its database from an
/// export with the import's time and the export's file name (what `kld
/// info` shows as "imported from"); every other run has neither.
#[test]
fn the_runs_query_marks_an_imported_run_as_kld_info_does() {
    let runs = runs();
    let info: Value = serde_json::from_str(&crate::stdout_of(
        kld().args(["info", "--format", "json"]).arg(db()),
    ))
    .unwrap();
    let rows = query_rows(&[db()], "runs");
    assert_eq!(rows.len(), runs.len(), "{rows:?}");
    let mut imported = 0;
    for (run, _, _, _) in &runs {
        let i = info["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == run.id.as_str())
            .unwrap();
        let row = rows.iter().find(|r| r["run"] == run.name.as_str()).unwrap();
        let got = |k: &str| row.get(k).cloned().unwrap_or(Value::Null);
        if i["imported"].is_null() {
            assert!(
                got("imported").is_null() && got("imported_from").is_null(),
                "{row:?}"
            );
            continue;
        }
        imported += 1;
        let file = i["imported"]["file"].as_str().unwrap();
        assert_eq!(got("imported_from"), file, "{row:?}");
        let at = i["imported"]["at"].as_str().unwrap().replacen(' ', "T", 1);
        assert!(
            got("imported").as_str().is_some_and(|t| t.starts_with(&at)),
            "{row:?} vs {at}"
        );
        // Never dated as completed by its import.
        assert!(!got("completed")
            .as_str()
            .is_some_and(|t| t.starts_with(&at)));
    }
    assert!(imported >= 1, "the fixture holds an imported run");
}

/// `kld info DB` of a run whose name holds a newline (and other line
/// breaks) shows it escaped on its one line: nothing it prints starts a
/// line that looks like kld's own.
#[test]
fn kld_info_keeps_a_run_name_with_a_newline_on_its_line() {
    let d = tempfile::tempdir().unwrap();
    let file = copy_to(d.path(), &db());
    let runs = runs();
    let forged = "nightly\nkld: error: every result was lost\u{2028}runs:       0";
    let c = rusqlite::Connection::open(&file).unwrap();
    c.execute(
        "UPDATE verification_runs SET run_name = ?1 WHERE id = ?2",
        rusqlite::params![forged, runs[0].0.id],
    )
    .unwrap();
    drop(c);
    let text = crate::stdout_of(kld().arg("info").arg(&file));
    assert!(
        text.contains("nightly\\nkld: error: every result was lost\\u{2028}runs:       0 ["),
        "{text}"
    );
    assert!(
        !text.lines().any(|l| l.starts_with("kld:")) && !text.contains('\u{2028}'),
        "{text}"
    );
    assert_eq!(text.lines().filter(|l| l.starts_with("runs:")).count(), 1);
    // JSON keeps the name as it is.
    let v: Value = serde_json::from_str(&crate::stdout_of(
        kld().args(["info", "--format", "json"]).arg(&file),
    ))
    .unwrap();
    assert!(v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["name"] == forged));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), t).unwrap();
        }
    }
}

/// The runs `kld query --named runs DIR` lists: (run name, label).
fn listed_runs(dir: &Path) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = query_rows(&[dir.to_path_buf()], "runs")
        .iter()
        .map(|r| {
            let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            (s("run"), s("label"))
        })
        .collect();
    v.sort();
    v
}

/// Two run folders with the same results but manifests naming another run
/// (run name, label, benchmark path) are two runs when neither checkpoint
/// is loaded; a true copy of a folder (the same manifest) is still one run.
#[test]
fn run_folders_differing_in_their_manifests_are_two_runs_without_checkpoints() {
    let d = tempfile::tempdir().unwrap();
    let runs = d.path().join("runs");
    let folder = data("runs/root/completed_20261122T080100Z");
    let (a, b) = (runs.join("a"), runs.join("b"));
    copy_dir(&folder, &a);
    copy_dir(&folder, &b);
    let m = b.join("run_manifest.json");
    let mut v: Value = serde_json::from_slice(&read_fixture(&m)).unwrap();
    v["run_name"] = "run_other".into();
    v["label"] = "other".into();
    v["benchmark_path"] = "../elsewhere/other.jsonld".into();
    std::fs::write(&m, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let listed = listed_runs(&runs);
    assert_eq!(
        listed,
        [
            ("run_497fcd8b".to_string(), "completed".to_string()),
            ("run_other".to_string(), "other".to_string())
        ],
        "{listed:?}"
    );
    // A third folder, a true copy of the first: still two runs.
    copy_dir(&folder, &runs.join("c"));
    assert_eq!(listed_runs(&runs), listed);
    // And the bare export of the run beside them is folded too.
    std::fs::copy(a.join("results.json"), runs.join("export.json")).unwrap();
    assert_eq!(listed_runs(&runs), listed);
}

/// A scenario run's CSV export (which keeps a turn's question ID, the hash
/// of the node's question text, and drops its scenario name and node) binds
/// to the scenario checkpoint its JSON twin binds to, and the per-benchmark
/// views count its turns as they count the twin's.
#[test]
fn a_scenario_csv_export_binds_to_its_checkpoint_as_its_json_twin_does() {
    let cp = corpus().join("loads/karenina-output__scenario_probe.jsonld");
    let results = corpus().join("results");
    let csv = results.join("res-karenina-output__scenario_probe.scenario.csv");
    let json = results.join("res-karenina-output__scenario_probe.scenario.json");
    let with = |r: &PathBuf, name: &str| query_rows(&[cp.clone(), r.clone()], name);
    for r in [&csv, &json] {
        let runs = with(r, "runs");
        assert_eq!(runs.len(), 1, "{runs:?}");
        assert!(
            runs[0]
                .get("checkpoint")
                .and_then(Value::as_str)
                .is_some_and(|c| c.ends_with("karenina-output__scenario_probe.jsonld")),
            "{}: {runs:?}",
            r.display()
        );
    }
    // Results per combo, as the twin counts them.
    let counts = |r: &PathBuf| -> Vec<(String, String, String)> {
        let mut v: Vec<(String, String, String)> = with(r, "pass-rate-by-benchmark")
            .iter()
            .map(|row| {
                let s = |k: &str| row.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                (s("benchmark"), s("combo"), s("results"))
            })
            .collect();
        v.sort();
        v
    };
    let (from_csv, from_json) = (counts(&csv), counts(&json));
    assert!(!from_csv.is_empty());
    assert_eq!(from_csv, from_json);
    // The CSV's turns are all the twin's: every row counted.
    let total: usize = from_csv
        .iter()
        .map(|(_, _, n)| n.parse::<usize>().unwrap())
        .sum();
    let rows = csv::Reader::from_path(&csv).unwrap().records().count();
    assert_eq!(total, rows);
}

/// `kld query` stderr for `sparql` over the probe checkpoint, and the rows.
fn query_notes(sparql: &str) -> (String, String) {
    let probe = std::path::Path::new(env!("KLD_SOURCE_ROOT")).join("examples/probe.jsonld");
    let out = kld()
        .args(["query", "--format", "tsv", "-e", sparql])
        .arg(probe)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// A query naming `http://schema.org/` terms over kld's `https://schema.org/`
/// data finds nothing, and says why; the same query with kld's prefix finds
/// the questions and says nothing.
#[test]
fn an_http_schema_query_that_finds_nothing_says_kld_uses_https() {
    let q = "SELECT ?q WHERE { ?q a schema:Question }";
    let (rows, err) = query_notes(&format!("PREFIX schema: <http://schema.org/> {q}"));
    assert_eq!(rows.lines().count(), 1, "header only: {rows}");
    assert!(
        err.contains("kld: note:") && err.contains("<http://schema.org/Question>"),
        "{err}"
    );
    assert!(err.contains("https://schema.org/"), "{err}");
    let (rows, err) = query_notes(q);
    assert!(rows.lines().count() > 1, "{rows}");
    assert!(!err.contains("note"), "{err}");
}

/// A variance over decimals (the square of a difference from an average
/// needs more than the 18 fractional digits SPARQL's decimals hold) comes
/// back unbound, and kld says so and what to write; cast to xsd:double it
/// has a value and no note.
#[test]
fn a_variance_over_decimals_left_unbound_is_told_with_the_cast() {
    let variance = |cast: bool| {
        let x = if cast { "xsd:double(?x)" } else { "?x" };
        let m = if cast { "xsd:double(?m)" } else { "?m" };
        format!(
            "SELECT (AVG(({x} - {m}) * ({x} - {m})) AS ?var) WHERE {{
               VALUES ?x {{ 1.5 2.25 3.125 }}
               {{ SELECT (AVG(?y) AS ?m) WHERE {{ VALUES ?y {{ 1.5 2.25 3.125 }} }} }} }}"
        )
    };
    let (rows, err) = query_notes(&variance(false));
    let value = rows.lines().nth(1).unwrap_or("");
    assert_eq!(value, "", "unbound: {rows}");
    assert!(
        err.contains("kld: note:")
            && err.contains("?var in 1 of 1 rows")
            && err.contains("xsd:double"),
        "{err}"
    );
    let (rows, err) = query_notes(&variance(true));
    let v: f64 = rows.lines().nth(1).unwrap().parse().unwrap();
    assert!(crate::common::close(v, 0.440_972_222_222), "{rows}");
    assert!(!err.contains("note"), "{err}");
}
