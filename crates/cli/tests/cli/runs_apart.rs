//! Runs never vanish (issue 40): two inputs are the same run only when they
//! hold the same results *and* bind to the same benchmark; of the copies of
//! one run, the one that carries more (a run folder's manifest and label, a
//! database run) is kept over the bare export; and `kld load` lists what it
//! stored apart from what it skipped and why.

use crate::common::*;
use crate::kld;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The run folder whose `results.json` is the corpus export
/// `res-docs__notebooks__test_checkpoint.partial.json`.
const FOLDER: &str = "runs/root/completed_20261122T080100Z";
const EXPORT: &str = "results/res-docs__notebooks__test_checkpoint.partial.json";
const CHECKPOINT: &str = "loads/docs__notebooks__test_checkpoint@7c9617f2.jsonld";

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

/// A copy of the run folder at `to` whose manifest names `checkpoint`.
fn folder_for(to: &Path, checkpoint: &Path) -> PathBuf {
    copy_dir(&data(FOLDER), to);
    let m = to.join("run_manifest.json");
    let mut v: Value = serde_json::from_slice(&read_fixture(&m)).unwrap();
    v["benchmark_path"] = checkpoint.to_string_lossy().to_string().into();
    std::fs::write(&m, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    std::fs::canonicalize(to).unwrap()
}

/// `kld load --format json` of `inputs` into a new store: the document.
fn load_json(store: &Path, inputs: &[&Path]) -> Value {
    let out = kld()
        .args(["load", "--format", "json", "--store"])
        .arg(store)
        .args(inputs)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn url(p: &Path) -> String {
    url::Url::from_file_path(std::fs::canonicalize(p).unwrap())
        .unwrap()
        .to_string()
}

fn result_graphs(doc: &Value) -> Vec<&Value> {
    doc["graphs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["kind"] == "results")
        .collect()
}

#[test]
fn two_run_folders_with_one_results_file_but_two_benchmarks_are_two_runs() {
    let d = tempfile::tempdir().unwrap();
    // Two checkpoints holding the run's questions, one run folder naming
    // each; the folders' results files are byte for byte the same.
    let a = d.path().join("a.jsonld");
    let b = d.path().join("b.jsonld");
    std::fs::copy(corpus().join(CHECKPOINT), &a).unwrap();
    std::fs::copy(corpus().join(CHECKPOINT), &b).unwrap();
    let (a, b) = (
        std::fs::canonicalize(a).unwrap(),
        std::fs::canonicalize(b).unwrap(),
    );
    let fa = folder_for(&d.path().join("run-a"), &a);
    let fb = folder_for(&d.path().join("run-b"), &b);
    assert_eq!(
        read_fixture(&fa.join("results.json")),
        read_fixture(&fb.join("results.json"))
    );
    let doc = load_json(&d.path().join("store"), &[&a, &b, &fa, &fb]);
    let runs = result_graphs(&doc);
    assert_eq!(runs.len(), 2, "both runs stored: {doc:#}");
    assert_eq!(doc["skipped"], serde_json::json!([]), "{doc:#}");
    // Each bound to the checkpoint its own manifest names: told apart.
    for (folder, cp) in [(&fa, &a), (&fb, &b)] {
        let g = runs
            .iter()
            .find(|g| g["graph"] == url(folder).as_str())
            .unwrap_or_else(|| panic!("{folder:?} not stored: {doc:#}"));
        assert_eq!(g["checkpoint"], url(cp).as_str(), "{doc:#}");
    }
    // Each benchmark gets its run's results.
    let out = kld()
        .args(["query", "--store"])
        .arg(d.path().join("store"))
        .args(["--format", "json", "--named", "pass-rate-by-benchmark"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let graphs: std::collections::BTreeSet<&str> = v["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["graph"]["value"].as_str().unwrap())
        .collect();
    assert_eq!(graphs.len(), 2, "{v:#}");
}

#[test]
fn a_run_folder_is_kept_over_the_bare_export_of_its_run() {
    let d = tempfile::tempdir().unwrap();
    let folder = std::fs::canonicalize(data(FOLDER)).unwrap();
    let export = d.path().join("export.json");
    std::fs::copy(corpus().join(EXPORT), &export).unwrap();
    let export = std::fs::canonicalize(export).unwrap();
    let cp = corpus().join(CHECKPOINT);
    for order in [[&export, &folder], [&folder, &export]] {
        let store = tempfile::tempdir().unwrap();
        let doc = load_json(store.path(), &[cp.as_path(), order[0], order[1]]);
        let runs = result_graphs(&doc);
        assert_eq!(runs.len(), 1, "{doc:#}");
        assert_eq!(runs[0]["graph"], url(&folder).as_str(), "{doc:#}");
        assert_eq!(runs[0]["checkpoint"], url(&cp).as_str(), "{doc:#}");
        let skipped = doc["skipped"].as_array().unwrap();
        assert_eq!(skipped.len(), 1, "{doc:#}");
        assert_eq!(skipped[0]["file"], export.to_str().unwrap());
        assert_eq!(skipped[0]["kept"], folder.to_str().unwrap());
        assert_eq!(skipped[0]["why"], "same-run");
        assert!(
            skipped[0]["message"]
                .as_str()
                .unwrap()
                .contains("skipped: the same run as"),
            "{doc:#}"
        );
    }
}

#[test]
fn a_database_run_is_kept_over_the_bare_export_of_its_run() {
    let d = tempfile::tempdir().unwrap();
    let export = d.path().join("export.json");
    std::fs::copy(
        corpus().join("results/res-docs__notebooks__test_checkpoint.full.json"),
        &export,
    )
    .unwrap();
    let export = std::fs::canonicalize(export).unwrap();
    let cp = corpus().join("loads/docs__notebooks__test_checkpoint.jsonld");
    let rubrics = corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld");
    let db = data("runs/karenina.db");
    let doc = load_json(
        &d.path().join("store"),
        &[cp.as_path(), rubrics.as_path(), &export, &db],
    );
    // (The database's copies of the two benchmarks give way to the files.)
    let all = doc["skipped"].as_array().unwrap();
    assert_eq!(
        all.iter().filter(|s| s["why"] == "same-benchmark").count(),
        2,
        "{doc:#}"
    );
    let skipped: Vec<&Value> = all
        .iter()
        .filter(|s| s["why"] != "same-benchmark")
        .collect();
    assert_eq!(skipped.len(), 1, "{doc:#}");
    assert_eq!(skipped[0]["file"], export.to_str().unwrap(), "{doc:#}");
    assert!(
        skipped[0]["kept"]
            .as_str()
            .unwrap()
            .contains("karenina.db#run="),
        "{doc:#}"
    );
    let runs = result_graphs(&doc);
    assert_eq!(runs.len(), 3, "the database's three runs: {doc:#}");
    assert!(runs
        .iter()
        .all(|g| g["file"].as_str().unwrap().contains("karenina.db#run=")));
}

#[test]
fn load_lists_what_it_stored_and_apart_what_it_skipped() {
    let d = tempfile::tempdir().unwrap();
    let results = corpus().join("results");
    let json = results.join("res-docs__notebooks__test_checkpoint.full.json");
    let csv = results.join("res-docs__notebooks__test_checkpoint.full.csv");
    let cp = corpus().join("loads/docs__notebooks__test_checkpoint.jsonld");
    // Text: stdout lists the stored graphs only; stderr says what was
    // skipped, why, and how many.
    let out = kld()
        .args(["load", "--store"])
        .arg(d.path().join("text"))
        .args([&cp, &json, &csv])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert!(!stdout.contains(".csv"), "{stdout}");
    assert!(
        err.contains(&format!(
            "{}: skipped: the same run as {}",
            std::fs::canonicalize(&csv).unwrap().display(),
            std::fs::canonicalize(&json).unwrap().display()
        )),
        "{err}"
    );
    assert!(err.contains("1 input not stored"), "{err}");
    // JSON: `graphs` are what the store holds, `skipped` the rest.
    let doc = load_json(&d.path().join("json"), &[&cp, &json, &csv]);
    assert_eq!(doc["graphs"].as_array().unwrap().len(), 2, "{doc:#}");
    let skipped = doc["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0]["file"].as_str().unwrap().ends_with(".csv"));
    assert!(skipped[0]["kept"].as_str().unwrap().ends_with(".json"));
    assert_eq!(skipped[0]["results"].as_u64(), Some(30), "{doc:#}");
    let index = std::fs::read_to_string(d.path().join("json/index.tsv")).unwrap();
    assert_eq!(
        doc["graphs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| index.contains(g["graph"].as_str().unwrap()))
            .count(),
        2,
        "{index}"
    );
}
