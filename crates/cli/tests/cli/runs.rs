//! Karenina run folders as inputs (issue 21): `tests/data/runs/root/`, made by
//! Karenina's own `create_run_directory` / `ProgressiveFileSink` around the
//! corpus exports (`tests/data/runs/make_runs.py`), answer as their exports
//! do, bind to their manifest's `benchmark_path` and are listed by `runs`.

use crate::common::*;
use crate::queries::query_rows;
use crate::{copy_to, kld};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    data("runs/root")
}

/// Every run folder of the fixtures, sorted.
fn folders() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("run_manifest.json").is_file())
        .collect();
    v.sort();
    assert!(v.len() >= 5, "the run-folder fixtures are there");
    v
}

fn manifest(folder: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(folder.join("run_manifest.json")).unwrap()).unwrap()
}

/// The corpus export a run folder's `results.json` is a copy of, with its
/// expect facts.
fn export_of(folder: &Path) -> Option<(PathBuf, Value)> {
    let bytes = std::fs::read(folder.join("results.json")).ok()?;
    let dir = corpus().join("results");
    let file = corpus_files("results")
        .into_iter()
        .find(|p| std::fs::read(p).unwrap() == bytes)
        .expect("results.json is a corpus export");
    let name = file.file_name().unwrap().to_string_lossy().to_string();
    let expect = dir.join(name.replace(".json", ".expect.json"));
    Some((
        file,
        serde_json::from_slice(&std::fs::read(expect).unwrap()).unwrap(),
    ))
}

/// The checkpoint `benchmark_path` names: against the current directory,
/// then the run root, as kld tries it.
fn benchmark_of(folder: &Path) -> Option<PathBuf> {
    let given = manifest(folder)["benchmark_path"]
        .as_str()
        .unwrap()
        .to_string();
    // As kld resolves it: from the directory it runs in (the repository's
    // root), then from the run folder's parent.
    [
        Path::new(env!("KLD_SOURCE_ROOT")).join(&given),
        root().join(&given),
    ]
    .into_iter()
    .find(|p| p.is_file())
    .map(|p| std::fs::canonicalize(p).unwrap())
}

fn file_url(p: &Path) -> String {
    url::Url::from_file_path(std::fs::canonicalize(p).unwrap())
        .unwrap()
        .to_string()
}

/// The checkpoint a run's facts name.
fn facts_checkpoint(expect: &Value) -> PathBuf {
    corpus()
        .join("loads")
        .join(expect["checkpoint"].as_str().unwrap())
}

#[test]
fn run_folders_answer_as_their_exports_and_the_facts() {
    let mut checked = 0;
    for folder in folders() {
        let Some((export, expect)) = export_of(&folder) else {
            continue;
        };
        let cp = facts_checkpoint(&expect);
        for name in ["results-by-model", "trait-scores", "scores-by-trait"] {
            let from_export = query_rows(&[export.clone(), cp.clone()], name);
            let from_folder = query_rows(&[folder.clone(), cp.clone()], name);
            if name == "results-by-model" {
                assert!(!from_export.is_empty(), "{}", export.display());
            }
            // (Each names its own results graph.)
            let (from_folder, from_export) = (
                crate::queries::without(from_folder, "graph"),
                crate::queries::without(from_export, "graph"),
            );
            assert_eq!(from_folder, from_export, "{name}: {}", folder.display());
        }
        let got = crate::results::model_rows(&query_rows(
            &[folder.clone(), cp.clone()],
            "results-by-model",
        ));
        assert_eq!(
            got,
            crate::results::by_model(&expect),
            "{}",
            folder.display()
        );
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} run folders with an export");
}

#[test]
fn runs_lists_every_run_with_status_binding_and_source() {
    let folders = folders();
    let mut inputs = vec![root()];
    // Every checkpoint a manifest or the facts name.
    let mut checkpoints: Vec<PathBuf> = folders.iter().filter_map(|f| benchmark_of(f)).collect();
    checkpoints.extend(export_of(&folders[0]).map(|(_, e)| facts_checkpoint(&e)));
    for f in &folders {
        if let Some((_, e)) = export_of(f) {
            checkpoints.push(std::fs::canonicalize(facts_checkpoint(&e)).unwrap());
        }
    }
    checkpoints.sort();
    checkpoints.dedup();
    inputs.extend(checkpoints);
    // One plain export beside them, bound by question IDs.
    let golden = corpus().join("results/golden__results_export_full.json");
    inputs.push(golden.clone());
    let rows = query_rows(&inputs, "runs");
    assert_eq!(rows.len(), folders.len() + 1, "{rows:?}");
    for folder in &folders {
        let m = manifest(folder);
        let label = m["label"].as_str().unwrap();
        let r = rows
            .iter()
            .find(|r| r.get("label").and_then(Value::as_str) == Some(label))
            .unwrap_or_else(|| panic!("no row for {label}: {rows:?}"));
        assert_eq!(r["run"], m["run_name"], "{label}");
        assert_eq!(r["status"], m["status"], "{label}");
        assert_eq!(r["started"], m["created_at"], "{label}");
        assert_eq!(r["completed"], m["completed_at"], "{label}");
        assert_eq!(r["benchmark"], m["benchmark_path"], "{label}");
        assert_eq!(r["source"], "run-folder", "{label}");
        let export = export_of(folder);
        // Bound to the manifest's checkpoint; when it is missing, to the
        // one the facts name (found by question IDs).
        let want_cp = benchmark_of(folder)
            .or_else(|| export.as_ref().map(|(_, e)| facts_checkpoint(e)))
            .unwrap();
        assert_eq!(
            r["checkpoint"].as_str(),
            Some(file_url(&want_cp).as_str()),
            "{label}"
        );
        let results: u64 = r["results"].as_str().unwrap().parse().unwrap();
        let want = match (&export, folder.join("results.json.results.jsonl")) {
            (Some((_, e)), _) => e["results_count"].as_u64().unwrap(),
            (None, jsonl) if jsonl.is_file() => std::fs::read_to_string(jsonl)
                .unwrap()
                .lines()
                .filter(|l| !l.trim().is_empty())
                .count() as u64,
            _ => 0,
        };
        assert_eq!(results, want, "{label}");
        if want == 0 {
            // A run without results still lists its models (the manifest's).
            let models = r["answering_models"].as_str().unwrap();
            assert!(models.contains(m["answering_models"][0]["model_name"].as_str().unwrap()));
        }
    }
    let g = rows.iter().find(|r| r["source"] == "export").unwrap();
    let golden_facts: Value = serde_json::from_slice(&read_fixture(
        &corpus().join("results/golden__results_export_full.expect.json"),
    ))
    .unwrap();
    assert_eq!(
        g["results"].as_str().unwrap(),
        golden_facts["results_count"].to_string()
    );
    assert!(g.get("label").is_none() && g.get("benchmark").is_none());
}

#[test]
fn a_run_folder_binds_to_its_benchmark_path_among_checkpoints_holding_its_questions() {
    let folder = folders()
        .into_iter()
        .find(|f| manifest(f)["status"] == "completed" && benchmark_of(f).is_some())
        .unwrap();
    let named = benchmark_of(&folder).unwrap();
    let (export, expect) = export_of(&folder).unwrap();
    let other = std::fs::canonicalize(facts_checkpoint(&expect)).unwrap();
    assert_ne!(
        named, other,
        "the fixture names another version of the checkpoint"
    );
    // The export alone is ambiguous between the two...
    let out = kld()
        .args(["query", "--named", "runs", "--format", "json"])
        .arg(&export)
        .args([&named, &other])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("choose one with --for")
            || String::from_utf8_lossy(&out.stderr).contains("use --for")
    );
    let rows = query_rows(&[export.clone(), named.clone(), other.clone()], "runs");
    assert!(rows[0].get("checkpoint").is_none(), "{rows:?}");
    // ...its run folder is not: no --for needed.
    let rows = query_rows(&[folder.clone(), other.clone(), named.clone()], "runs");
    assert_eq!(
        rows[0]["checkpoint"].as_str(),
        Some(file_url(&named).as_str())
    );
    // Nor in a store directory its checkpoint joins in a later command.
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("store");
    for inputs in [vec![folder.clone(), other.clone()], vec![named.clone()]] {
        crate::stdout_of(kld().arg("load").arg("--store").arg(&store).args(inputs));
    }
    let out = crate::stdout_of(
        kld()
            .args(["query", "--format", "json", "--named", "runs", "--store"])
            .arg(&store),
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["results"]["bindings"][0]["checkpoint"]["value"].as_str(),
        Some(file_url(&named).as_str()),
        "{out}"
    );
}

#[test]
fn not_completed_runs_are_marked_and_missing_benchmarks_reported() {
    let out = kld()
        .args(["query", "--named", "runs", "--format", "tsv"])
        .arg(root())
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    for folder in folders() {
        let m = manifest(&folder);
        let name = folder.file_name().unwrap().to_string_lossy().to_string();
        let line = err
            .lines()
            .filter(|l| l.contains(&name))
            .collect::<Vec<_>>()
            .join("\n");
        if m["status"] != "completed" {
            assert!(
                line.contains(&format!("run status {}", m["status"].as_str().unwrap())),
                "{err}"
            );
        }
        if let Some(msg) = m["failure_message"].as_str() {
            assert!(line.contains(msg), "{err}");
        }
        if benchmark_of(&folder).is_none() {
            assert!(
                line.contains("not found") && line.contains("by the run's question IDs"),
                "{err}"
            );
        } else {
            // Its checkpoint exists but is not among the inputs.
            assert!(line.contains("not among the inputs"), "{err}");
        }
    }
}

/// A copy of a run folder whose manifest is edited by `edit`.
fn hostile_copy(dir: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let src = folders()
        .into_iter()
        .find(|f| manifest(f)["status"] == "completed" && benchmark_of(f).is_some())
        .unwrap();
    let dst = dir.join(name);
    std::fs::create_dir_all(&dst).unwrap();
    std::fs::copy(src.join("results.json"), dst.join("results.json")).unwrap();
    let mut m = manifest(&src);
    edit(&mut m);
    std::fs::write(
        dst.join("run_manifest.json"),
        serde_json::to_string_pretty(&m).unwrap(),
    )
    .unwrap();
    dst
}

#[test]
fn hostile_manifests_are_located_errors_and_the_batch_goes_on() {
    let d = tempfile::tempdir().unwrap();
    let bad = [
        hostile_copy(d.path(), "unknown_field", |m| {
            m["colour"] = "blue".into();
        }),
        hostile_copy(d.path(), "wrong_type", |m| {
            m["replicate_count"] = "three".into();
        }),
        hostile_copy(d.path(), "escaping_results", |m| {
            m["results_path"] = "../../etc/passwd".into();
        }),
    ];
    let as_dir = hostile_copy(d.path(), "benchmark_dir", |m| {
        m["benchmark_path"] = corpus().join("loads").to_string_lossy().to_string().into();
    });
    // A file outside the tree that is no checkpoint: reported as not among
    // the inputs, the run bound by question IDs.
    let not_a_checkpoint = hostile_copy(d.path(), "benchmark_not_a_checkpoint", |m| {
        m["benchmark_path"] = concat!(env!("KLD_SOURCE_ROOT"), "/Cargo.toml").into();
        m["status"] = "running".into();
    });
    std::fs::remove_file(not_a_checkpoint.join("results.json")).unwrap();
    let outside = hostile_copy(d.path(), "benchmark_outside", |m| {
        m["benchmark_path"] = "../../../../../../../../nowhere/at/all.jsonld".into();
        m["status"] = "failed".into();
    });
    // (Without results: the same results twice would be one run, kept once.)
    std::fs::remove_file(outside.join("results.json")).unwrap();
    let out = kld()
        .args(["query", "--named", "runs", "--format", "json"])
        .arg(d.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    for (b, says) in bad
        .iter()
        .zip(["unknown field `colour`", "invalid type", "/results_path"])
    {
        let line = err
            .lines()
            .find(|l| {
                l.contains(b.file_name().unwrap().to_str().unwrap())
                    && l.contains("run_manifest.json:")
            })
            .unwrap_or_else(|| panic!("no located error for {}: {err}", b.display()));
        assert!(line.contains(says), "{line}");
    }
    assert!(err.contains("is a directory"), "{err}");
    assert!(err.contains("nowhere/at/all.jsonld\" not found"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // The three runs whose benchmark is unusable still load, unbound by path.
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["results"]["bindings"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(err.contains("/Cargo.toml is not among the inputs"), "{err}");
    for (dir, status) in [
        (as_dir, "completed"),
        (outside, "failed"),
        (not_a_checkpoint, "running"),
    ] {
        let label = manifest(&dir)["label"].clone();
        let r = rows
            .iter()
            .find(|r| r["label"]["value"] == label && r["status"]["value"] == status);
        assert!(r.is_some(), "{} not listed: {rows:?}", dir.display());
    }
}

#[test]
fn serve_watch_reads_a_run_folder_and_follows_its_manifest() {
    let src = folders()
        .into_iter()
        .find(|f| manifest(f)["status"] == "interrupted" && f.join("results.json").is_file())
        .unwrap();
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("root");
    let run = dir.join(src.file_name().unwrap());
    std::fs::create_dir_all(&run).unwrap();
    for f in ["results.json", "run_manifest.json"] {
        std::fs::copy(src.join(f), run.join(f)).unwrap();
    }
    let server = crate::serve::serve(std::slice::from_ref(&dir), &["--watch"]);
    let client = reqwest::blocking::Client::new();
    let status = || {
        crate::serve::select_column(
            &client,
            &server.base,
            "SELECT ?s WHERE { GRAPH ?g { ?r <urn:karenina:vocab:runStatus> ?s } }",
            "s",
        )
    };
    assert_eq!(status(), ["interrupted"]);
    // Karenina resumes the run and completes it: the manifest is rewritten.
    let mut m = manifest(&run);
    m["status"] = "completed".into();
    std::fs::write(
        run.join("run_manifest.json"),
        serde_json::to_string_pretty(&m).unwrap(),
    )
    .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while status() != ["completed"] && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(status(), ["completed"], "one run, its new status");
}

#[test]
fn info_describes_a_run_folder_from_its_manifest_and_results() {
    for folder in folders() {
        let m = manifest(&folder);
        let out = crate::stdout_of(kld().args(["info", "--format", "json"]).arg(&folder));
        let v: Value = serde_json::from_str(&out).unwrap();
        for k in ["status", "label", "run_name", "created_at", "completed_at"] {
            assert_eq!(v[k], m[k], "{k} of {}", folder.display());
        }
        assert_eq!(v["failure_message"], m["failure_message"]);
        match export_of(&folder) {
            Some((_, e)) => {
                assert_eq!(v["results_from"], "export");
                assert_eq!(v["results"]["results"], e["results_count"]);
            }
            None => assert!(v["results"].is_null()),
        }
        let found = benchmark_of(&folder);
        assert_eq!(
            v["benchmark"].as_str().unwrap()
                == found
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
            found.is_some(),
            "{}",
            folder.display()
        );
    }
}

/// The values of `karenina:<local>` on the run nodes of `inputs`' graphs.
fn run_facts(inputs: &[PathBuf], local: &str) -> Vec<String> {
    let out = crate::stdout_of(kld().args(["query", "--format", "json", "-e"]).arg(format!(
        "SELECT ?o WHERE {{ GRAPH ?g {{ ?r a <urn:karenina:vocab:VerificationRun> ; <urn:karenina:vocab:{local}> ?o }} }}"
    )).args(inputs));
    let v: Value = serde_json::from_str(&out).unwrap();
    v["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["o"]["value"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_run_interrupted_before_export_is_read_from_its_sidecars_as_karenina_would_export_it() {
    let folder = folders()
        .into_iter()
        .find(|f| f.join("results.json.state").is_file())
        .expect("a fixture interrupted before its export");
    assert!(!folder.join("results.json").exists());
    let state: Value =
        serde_json::from_slice(&std::fs::read(folder.join("results.json.state")).unwrap()).unwrap();
    let inputs = [folder.clone()];
    // Karenina's write_final_export: job_id progressive-<start>, the models
    // of the state's config.
    assert_eq!(
        run_facts(&inputs, "jobId"),
        [format!(
            "progressive-{}",
            state["start_time"].as_f64().unwrap().trunc() as i64
        )]
    );
    let configured: Value =
        serde_json::from_str(&run_facts(&inputs, "configuredModels")[0]).unwrap();
    for key in ["answering_models", "parsing_models"] {
        let names: Vec<&Value> = configured[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| &m["name"])
            .collect();
        let want: Vec<&Value> = state["config"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| &m["model_name"])
            .collect();
        assert_eq!(names, want, "{key}");
    }
    for (local, key) in [
        ("plannedTasks", "total_tasks"),
        ("completedTasks", "completed_count"),
        ("failedTasks", "failed_count"),
    ] {
        assert_eq!(
            run_facts(&inputs, local),
            [state[key].to_string()],
            "{local}"
        );
    }
    assert_eq!(
        run_facts(&inputs, "resultsFrom"),
        ["progressive-save sidecar"]
    );
    // A state Karenina's resume would refuse is a located error; the other
    // inputs still load.
    let d = tempfile::tempdir().unwrap();
    let bad = d.path().join(folder.file_name().unwrap());
    std::fs::create_dir_all(&bad).unwrap();
    for f in ["run_manifest.json", "results.json.results.jsonl"] {
        std::fs::copy(folder.join(f), bad.join(f)).unwrap();
    }
    let mut s = state.clone();
    s["format_version"] = "9.9".into();
    std::fs::write(bad.join("results.json.state"), s.to_string()).unwrap();
    let good = copy_to(
        d.path(),
        &corpus().join("results/golden__results_export_full.json"),
    );
    let out = kld()
        .args(["query", "--format", "tsv", "--named", "runs"])
        .arg(&bad)
        .arg(&good)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("results.json.state:1:1: error[KLD-E201] at /format_version"),
        "{err}"
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    // Killed mid-append: the sidecar's last line is partial. Karenina's reader
    // skips it; so does kld, and says so.
    std::fs::copy(
        folder.join("results.json.state"),
        bad.join("results.json.state"),
    )
    .unwrap();
    let jsonl = bad.join("results.json.results.jsonl");
    let whole = std::fs::read_to_string(&jsonl).unwrap();
    let first = whole.lines().next().unwrap();
    std::fs::write(&jsonl, format!("{whole}{}", &first[..first.len() / 2])).unwrap();
    let out = kld()
        .args(["query", "--format", "json", "--named", "runs"])
        .arg(&bad)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("ends in a partial line"), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["results"]["bindings"][0]["results"]["value"],
        whole
            .lines()
            .filter(|l| !l.trim().is_empty())
            .count()
            .to_string()
    );
}
