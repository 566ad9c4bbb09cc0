//! Workspace captures and repairs, kld against Karenina itself (issue 36):
//! run folders made at test time by Karenina's own code
//! (`tests/scripts/karenina_agentic.py`: `create_run_directory`,
//! `capture_workspace` for every result as `FinalizeResultStage` calls it,
//! `compact_manifest` as the batch runner does, `ProgressiveFileSink` for a
//! run still going, and `repair_results_export`, what `karenina repair`
//! calls, with only the model calls replaced) around two exports of the
//! corpus. What Karenina's files and loaders say (its manifest entries by
//! status and by answering x parsing model as `ModelIdentity` displays them,
//! `RepairOutcome`, the backup and repaired export as
//! `ResultsIOManager.iter_from_json` reads them) is the oracle of kld's
//! `capture-errors-by-model`, `results-without-files` and `repairs`.

use crate::common::*;
use crate::kld;
use crate::queries::json_rows;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn s(r: &Map<String, Value>, k: &str) -> String {
    r.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

fn rows(inputs: &[PathBuf], name: &str) -> (Vec<Map<String, Value>>, String) {
    let out = kld()
        .args(["query", "--format", "json", "--named", name])
        .args(inputs)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{err}");
    (
        json_rows(&serde_json::from_slice(&out.stdout).unwrap()),
        err,
    )
}

/// Karenina's run folders around `export` in `root`, and what its files say.
fn karenina(root: &Path, export: &Path, benchmark: &Path) -> Value {
    let script = Path::new(env!("KLD_SOURCE_ROOT")).join("tests/scripts/karenina_agentic.py");
    let out = Command::new(karenina_python())
        .arg(script)
        .arg(root)
        .arg(export)
        .arg("--benchmark-path")
        .arg(benchmark)
        .output()
        .expect("the Karenina venv's python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
#[ignore = "interop: needs Karenina's venv (KLD_KARENINA_VENV): cargo test -- --include-ignored"]
fn captures_and_repairs_are_what_karenina_s_files_say() {
    let mut cases = 0;
    let mut disagreements = Vec::new();
    let mut check = |what: String, theirs: Value, ours: Value| {
        cases += 1;
        if theirs != ours {
            disagreements.push(format!("{what}: Karenina {theirs} / kld {ours}"));
        }
    };
    for (export, checkpoint) in [
        (
            "res-docs__notebooks__test_checkpoint.partial.json",
            "docs__notebooks__test_checkpoint.jsonld",
        ),
        (
            "res-tests__fixtures__checkpoints__with_rubrics.full.json",
            "tests__fixtures__checkpoints__with_rubrics.jsonld",
        ),
    ] {
        let d = tempfile::tempdir().unwrap();
        let cp = corpus().join("loads").join(checkpoint);
        let facts = karenina(d.path(), &corpus().join("results").join(export), &cp);
        let folders = ["agentic", "running"];
        let mut inputs = vec![cp.clone()];
        for f in folders {
            inputs.push(d.path().join(facts[f]["folder"].as_str().unwrap()));
        }
        let (by_model, err) = rows(&inputs, "capture-errors-by-model");
        // Karenina's own files: nothing to warn about, every run bound.
        assert!(!err.contains("KLD-W20"), "{export}: {err}");
        assert!(
            !err.contains("link to no loaded checkpoint"),
            "{export}: {err}"
        );
        let (without, _) = rows(&inputs, "results-without-files");
        for f in folders {
            let folder = facts[f]["folder"].as_str().unwrap();
            let of = |r: &&Map<String, Value>| s(r, "results_graph").ends_with(folder);
            let theirs = &facts[f]["by_combo"];
            let ours: Map<String, Value> = by_model
                .iter()
                .filter(of)
                .map(|r| {
                    let key = format!("{} | {}", s(r, "answering_model"), s(r, "parsing_model"));
                    let mut m = Map::new();
                    for (k, col) in [
                        ("captures", "captures"),
                        ("captured", "captured"),
                        ("captured_with_errors", "captured_with_errors"),
                        ("skipped", "skipped"),
                        ("copy_errors", "copy_errors"),
                        ("without_files", "without_files"),
                    ] {
                        let n: u64 = s(r, col).parse().unwrap();
                        // Karenina's Counter leaves out the statuses it never saw.
                        if n > 0 || !matches!(k, "captured" | "captured_with_errors" | "skipped") {
                            m.insert(k.into(), n.into());
                        }
                    }
                    (key, Value::Object(m))
                })
                .collect();
            check(
                format!("{export} {f} by model"),
                theirs.clone(),
                Value::Object(ours),
            );
            let mut ids: Vec<String> = without
                .iter()
                .filter(of)
                .map(|r| s(r, "result_id"))
                .collect();
            ids.sort();
            check(
                format!("{export} {f} without files"),
                facts[f]["without_files"].clone(),
                serde_json::json!(ids),
            );
        }
        let (repairs, _) = rows(&inputs, "repairs");
        let rep = &facts["repair"];
        check(
            format!("{export} repair rows"),
            rep["replaced_count"].clone(),
            serde_json::json!(repairs.len()),
        );
        for r in &repairs {
            check(
                format!("{export} repair mode"),
                rep["mode"].clone(),
                s(r, "mode").into(),
            );
            check(
                format!("{export} sidecar"),
                rep["sidecar"].clone(),
                s(r, "sidecar").into(),
            );
            check(
                format!("{export} source sha256"),
                "matches".into(),
                s(r, "source_check").into(),
            );
            let theirs = rep["replaced"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["new_result_id"] == s(r, "result_id").as_str())
                .cloned()
                .unwrap_or(Value::Null);
            let b = |k: &str| -> Value {
                match s(r, k).as_str() {
                    "true" => true.into(),
                    "false" => false.into(),
                    _ => Value::Null,
                }
            };
            let ours = serde_json::json!({
                "question_id": s(r, "question_id"),
                "old_result_id": s(r, "previous_result_id"),
                "new_result_id": s(r, "result_id"),
                "old_verify": b("previous_verify_result"),
                "new_verify": b("verify_result"),
                "old_failed": !matches!(s(r, "previous_outcome").as_str(), "passed" | "no_verdict"),
                "new_failed": !matches!(s(r, "outcome").as_str(), "passed" | "no_verdict"),
            });
            check(format!("{export} replaced row"), theirs, ours);
        }
        // The selected keys kld matched are Karenina's (row keys as
        // `_key_string` writes them).
        let keys = crate::queries::expr_rows(
            &inputs,
            "SELECT ?key WHERE { ?q a prov:Revision ; karenina:rowKey ?key }",
        );
        let mut ours: Vec<String> = keys.iter().map(|r| s(r, "key")).collect();
        ours.sort();
        let mut theirs: Vec<String> = rep["selected_keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap().to_string())
            .collect();
        theirs.sort();
        check(
            format!("{export} selected keys"),
            theirs.into(),
            ours.into(),
        );
    }
    report_differential(
        "workspaces-and-repairs",
        cases,
        disagreements.len(),
        " (kld's capture-errors-by-model, results-without-files and repairs against Karenina's manifests, RepairOutcome and ResultsIOManager, two runs)",
    );
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
