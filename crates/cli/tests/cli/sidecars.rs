//! An unfinished run outside a run folder (`karenina verify
//! --progressive-save --output OUT` interrupted): its progressive-save
//! sidecars `OUT.state` and `OUT.results.jsonl`, copied from the fixture run
//! folder Karenina's own `ProgressiveFileSink` wrote
//! (`tests/data/runs/make_runs.py`), are read as one run.

use crate::common::*;
use crate::kld;
use crate::queries::query_rows;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The fixture run folder interrupted before its export.
fn early() -> PathBuf {
    data("runs/root/early_20261122T080500Z")
}

/// `dir/out/results.json.{state,results.jsonl}`, the state's benchmark_path
/// made absolute (as Karenina records a path given absolute).
fn sidecars_in(dir: &Path) -> (PathBuf, Value, PathBuf) {
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let mut state: Value =
        serde_json::from_slice(&std::fs::read(early().join("results.json.state")).unwrap())
            .unwrap();
    let cp =
        std::fs::canonicalize(corpus().join("loads/karenina-output__probe_dj.jsonld")).unwrap();
    state["benchmark_path"] = cp.to_str().unwrap().into();
    let file = out.join("results.json.state");
    std::fs::write(&file, serde_json::to_vec_pretty(&state).unwrap()).unwrap();
    std::fs::copy(
        early().join("results.json.results.jsonl"),
        out.join("results.json.results.jsonl"),
    )
    .unwrap();
    (file, state, cp)
}

#[test]
fn an_unfinished_run_s_sidecars_are_one_run_bound_to_their_benchmark_path() {
    let d = tempfile::tempdir().unwrap();
    let (file, state, cp) = sidecars_in(d.path());
    let jsonl_rows = std::fs::read_to_string(early().join("results.json.results.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count();
    // Found in a directory scan, beside its checkpoint.
    let out = kld()
        .args(["query", "--format", "json", "--named", "runs"])
        .arg(d.path())
        .arg(&cp)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "an unfinished run (its progressive-save sidecars): {} of {} tasks done",
            state["completed_count"], state["total_tasks"]
        )),
        "{err}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["results"]["bindings"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    let r = &rows[0];
    assert_eq!(r["source"]["value"], "progressive-save");
    assert_eq!(r["status"]["value"], "incomplete");
    assert_eq!(r["results"]["value"], jsonl_rows.to_string());
    assert_eq!(r["benchmark"]["value"], state["benchmark_path"]);
    assert_eq!(r["started"]["value"], state["created_at"]);
    assert_eq!(
        r["checkpoint"]["value"].as_str(),
        Some(url::Url::from_file_path(&cp).unwrap().as_str())
    );
    // It answers as the same sidecars in their run folder.
    for name in ["results-by-model", "trait-scores"] {
        // (Each names its own results graph.)
        assert_eq!(
            crate::queries::without(query_rows(&[file.clone(), cp.clone()], name), "graph"),
            crate::queries::without(query_rows(&[early(), cp.clone()], name), "graph"),
            "{name}"
        );
    }
}

#[test]
fn serve_watch_follows_an_unfinished_run_as_karenina_appends_and_finishes_it() {
    let d = tempfile::tempdir().unwrap();
    let (file, _, _) = sidecars_in(d.path());
    let jsonl = file.with_file_name("results.json.results.jsonl");
    let server = crate::serve::serve(&[d.path().to_path_buf()], &["--watch"]);
    let client = reqwest::blocking::Client::new();
    let wait_for = |want: usize| {
        assert_eq!(
            crate::serve::results_once(&client, &server.base, want),
            want
        );
    };
    let text = std::fs::read_to_string(&jsonl).unwrap();
    let n = text.lines().filter(|l| !l.trim().is_empty()).count();
    wait_for(n);
    // Karenina appends one more result (another task: its own result ID).
    let mut row: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    row["metadata"]["result_id"] = "0123456789abcdef".into();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&jsonl)
        .unwrap();
    std::io::Write::write_all(&mut f, format!("{row}\n").as_bytes()).unwrap();
    drop(f);
    wait_for(n + 1);
    // The run finishes elsewhere: its sidecars go, and so does its graph.
    std::fs::remove_file(&jsonl).unwrap();
    std::fs::remove_file(&file).unwrap();
    wait_for(0);
}

#[test]
fn info_describes_an_unfinished_run_from_its_state() {
    let d = tempfile::tempdir().unwrap();
    let (file, state, cp) = sidecars_in(d.path());
    let v: Value = serde_json::from_str(&crate::stdout_of(
        kld().args(["info", "--format", "json"]).arg(&file),
    ))
    .unwrap();
    for k in [
        "total_tasks",
        "completed_count",
        "failed_count",
        "created_at",
    ] {
        assert_eq!(v[k], state[k], "{k}");
    }
    assert_eq!(v["benchmark"], cp.to_str().unwrap());
    let want: Vec<String> = state["config"]["answering_models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            format!(
                "{}:{}",
                m["interface"].as_str().unwrap(),
                m["model_name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(v["answering_models"], serde_json::json!(want));
    assert!(v["results_jsonl"]
        .as_str()
        .unwrap()
        .ends_with("results.json.results.jsonl"));
}
