//! A fresh clone tests itself (issue 40): the corpus the tests read is in
//! the repository with its origin manifest, nothing outside `tests/ci`
//! scripts reads `../shared/corpus`, the run-folder and database fixtures
//! name checkpoints inside the repository, and a missing fixture panics
//! naming its path. `.ci/run` (tests/scripts/fresh-clone.sh) runs the
//! README's commands in a clone without `../shared` and with only Rust.

use crate::common::*;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Files under `dir` whose name ends with one of `exts`, recursively.
fn sources(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, exts, out);
        } else if exts.iter().any(|x| p.to_string_lossy().ends_with(x)) {
            out.push(p);
        }
    }
}

#[test]
fn every_corpus_file_the_manifest_lists_is_in_the_repository() {
    let dir = corpus_at(data("corpus"));
    assert!(dir.join("ORIGIN.md").is_file());
    let manifest = read_fixture_string(&dir.join("MANIFEST.tsv"));
    let mut listed = 0;
    for line in manifest.lines().skip(1) {
        let file = line.split('\t').next().unwrap();
        assert!(dir.join(file).is_file(), "MANIFEST.tsv lists {file}");
        listed += 1;
    }
    assert!(listed >= 30, "{listed}");
    let results = read_fixture_string(&dir.join("results/MANIFEST.tsv"));
    for line in results.lines().skip(1) {
        let file = line.split('\t').next().unwrap();
        assert!(dir.join("results").join(file).is_file(), "{file}");
    }
}

#[test]
fn no_test_script_or_benchmark_reads_the_shared_corpus() {
    let mut files = Vec::new();
    for d in [
        "tests",
        "benches",
        "src",
        "crates",
        "python/tests",
        "python/bench",
        "python/src",
    ] {
        sources(&repo().join(d), &[".rs", ".py", ".sh"], &mut files);
    }
    sources(&repo().join(".ci"), &["run"], &mut files);
    let me = repo().join(file!());
    let mut bad = Vec::new();
    for f in files.iter().filter(|f| **f != me) {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        if text.contains("shared/corpus") || text.contains("\"shared\" / \"corpus\"") {
            bad.push(f.strip_prefix(repo()).unwrap().display().to_string());
        }
    }
    assert!(bad.is_empty(), "these read ../shared/corpus: {bad:?}");
}

#[test]
fn run_folders_and_the_database_name_checkpoints_inside_the_repository() {
    let root = data("runs/root");
    let mut named = 0;
    for e in std::fs::read_dir(&root).unwrap().flatten() {
        let m = e.path().join("run_manifest.json");
        if !m.is_file() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_slice(&read_fixture(&m)).unwrap();
        let given = v["benchmark_path"].as_str().unwrap();
        if given.contains("moved-away") {
            continue; // the fixture of a checkpoint that is gone
        }
        let found = [repo().join(given), root.join(given)]
            .into_iter()
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{}: {given} not found", m.display()));
        let found = std::fs::canonicalize(found).unwrap();
        assert!(
            found.starts_with(std::fs::canonicalize(repo()).unwrap()),
            "{found:?}"
        );
        named += 1;
    }
    assert!(named >= 4, "{named}");
    let db = read_fixture(&data("runs/karenina.db"));
    let text = String::from_utf8_lossy(&db);
    assert!(!text.contains("shared/corpus"));
    assert_eq!(text.matches("tests/data/corpus/loads/").count(), 2);
}

#[test]
fn a_missing_fixture_panics_naming_its_path() {
    let gone = data("corpus/loads/no-such-checkpoint.jsonld");
    let message = |f: Box<dyn std::any::Any + Send>| -> String {
        f.downcast_ref::<String>()
            .cloned()
            .or_else(|| f.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    };
    let err = std::panic::catch_unwind(|| read_fixture(&gone)).unwrap_err();
    assert!(message(err).contains(&gone.display().to_string()));
    let nowhere = repo().join("no-such-dir/corpus");
    let err = std::panic::catch_unwind(|| corpus_at(nowhere.clone())).unwrap_err();
    let m = message(err);
    assert!(
        m.contains(&nowhere.join("MANIFEST.tsv").display().to_string()),
        "{m}"
    );
    assert!(m.contains("tests/data/corpus"), "{m}");
}
