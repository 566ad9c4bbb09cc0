//! Figures a user can trust (issue 18): a `--for` binding is checked, a
//! result counts for a benchmark only when its question belongs to it, and
//! a directory of exports is read the way a newcomer keeps it. Expected
//! figures come from Karenina's facts (`*.expect.json`).

use crate::common::*;
use crate::kld;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A catalogue query's rows (`--format json`), its exit code and stderr,
/// whatever the exit code.
pub(crate) fn query(
    args: &[&dyn AsRef<std::ffi::OsStr>],
    name: &str,
) -> (i32, Vec<Map<String, Value>>, String) {
    let out = kld()
        .args(["query", "--format", "json", "--named", name])
        .args(args.iter().map(|a| a.as_ref()))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let rows = v["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            b.as_object()
                .unwrap()
                .iter()
                .map(|(k, x)| (k.clone(), x["value"].clone()))
                .collect()
        })
        .collect();
    (
        out.status.code().unwrap(),
        rows,
        String::from_utf8(out.stderr).unwrap(),
    )
}

pub(crate) fn expect(name: &str) -> Value {
    serde_json::from_slice(
        &std::fs::read(corpus().join("results").join(format!("{name}.expect.json"))).unwrap(),
    )
    .unwrap()
}

pub(crate) fn num(r: &Map<String, Value>, k: &str) -> u64 {
    r[k].as_str().unwrap().parse().unwrap()
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

/// The question IDs of a checkpoint (its items' `@id`).
fn checkpoint_ids(p: &Path) -> BTreeSet<String> {
    let j: Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
    j["dataFeedElement"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|it| it["@id"].as_str().map(str::to_string))
        .collect()
}

const NOTEBOOK: &str = "res-docs__notebooks__test_checkpoint.full";

#[test]
fn for_a_checkpoint_missing_question_ids_exits_1_and_binds_nothing() {
    let run = corpus().join(format!("results/{NOTEBOOK}.json"));
    // The bundled example run is this corpus run.
    assert_eq!(
        std::fs::read(&run).unwrap(),
        std::fs::read(examples().join("runs/notebook.verification.json")).unwrap()
    );
    let probe = examples().join("probe.jsonld");
    let facts = expect(NOTEBOOK);
    let covered: BTreeSet<String> = facts["question_ids_covered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q.as_str().unwrap().to_string())
        .collect();
    let in_probe = checkpoint_ids(&probe);
    let missing: Vec<&String> = covered.difference(&in_probe).collect();
    assert!(!missing.is_empty() && missing.len() < covered.len());
    let (code, rows, err) = query(&[&run, &probe, &"--for", &probe], "pass-rate-by-benchmark");
    assert_eq!(code, 1, "{err}");
    assert!(rows.is_empty(), "bound nothing: {rows:?}");
    assert!(
        err.contains(&format!(
            "does not hold {} of the run's {} question IDs",
            missing.len(),
            covered.len()
        )),
        "{err}"
    );
    assert!(err.contains(missing[0].as_str()), "an example: {err}");
    // The right checkpoint binds, exit 0.
    let notebook = examples().join("notebook.jsonld");
    let (code, rows, err) = query(
        &[&run, &notebook, &"--for", &notebook],
        "pass-rate-by-benchmark",
    );
    assert_eq!(code, 0, "{err}");
    let results: u64 = rows.iter().map(|r| num(r, "results")).sum();
    assert_eq!(results, facts["results_count"].as_u64().unwrap());
}

#[test]
fn a_wrong_binding_in_a_store_credits_only_the_benchmark_s_own_questions() {
    // A store whose index binds the notebook run to the probe benchmark
    // (written by hand, or by an older kld that did not check `--for`).
    let store = tempfile::tempdir().unwrap();
    let run = corpus().join(format!("results/{NOTEBOOK}.json"));
    let (notebook, probe) = (
        examples().join("notebook.jsonld"),
        examples().join("probe.jsonld"),
    );
    kld()
        .args(["load", "--store"])
        .arg(store.path())
        .args([&run, &notebook, &probe])
        .assert()
        .success();
    let index = store.path().join("index.tsv");
    let text = std::fs::read_to_string(&index).unwrap();
    let nb_url = format!("file://{}", notebook.canonicalize().unwrap().display());
    let probe_url = format!("file://{}", probe.canonicalize().unwrap().display());
    let wrong = text.replace(&format!("auto {nb_url}"), &format!("for {probe_url}"));
    assert_ne!(wrong, text);
    std::fs::write(&index, wrong).unwrap();
    let (code, rows, err) = query(&[&"--store", &store.path()], "pass-rate-by-benchmark");
    assert_eq!(code, 0, "{err}");
    // Spec Probe is credited with the results of the questions it holds, no more.
    let facts = expect(NOTEBOOK);
    let shared = checkpoint_ids(&probe);
    let (mut want_results, mut want_passed) = (0, 0);
    for (qid, q) in facts["facts"]["per_question"].as_object().unwrap() {
        if shared.contains(qid) {
            want_results += q["results"].as_u64().unwrap();
            want_passed += q["verify_true"].as_u64().unwrap();
        }
    }
    assert!(want_results > 0 && want_results < facts["results_count"].as_u64().unwrap());
    let sum = |k: &str| -> u64 { rows.iter().map(|r| num(r, k)).sum() };
    assert!(
        rows.iter().all(|r| r["benchmark"] == "Spec Probe"),
        "{rows:?}"
    );
    assert_eq!((sum("results"), sum("passed")), (want_results, want_passed));
}

#[test]
fn scores_by_trait_counts_no_score_of_a_question_outside_the_benchmark() {
    // The probe run scores the probe's global traits; a copy of the probe
    // without one of its questions is bound to it by hand in a store.
    let d = tempfile::tempdir().unwrap();
    let run = corpus().join("results/res-karenina-output__probe_dj.full.json");
    let full = corpus().join("loads/karenina-output__probe_dj.jsonld");
    let mut j: Value = serde_json::from_slice(&std::fs::read(&full).unwrap()).unwrap();
    let removed = j["dataFeedElement"].as_array_mut().unwrap().pop().unwrap();
    let trimmed = d.path().join("trimmed.jsonld");
    std::fs::write(&trimmed, serde_json::to_string(&j).unwrap()).unwrap();
    let store = d.path().join("store");
    kld()
        .args(["load", "--store"])
        .arg(&store)
        .args([&run, &trimmed])
        .assert()
        .success();
    let index = store.join("index.tsv");
    let text = std::fs::read_to_string(&index).unwrap();
    let url = format!("file://{}", trimmed.canonicalize().unwrap().display());
    let edited: String = text
        .lines()
        .map(|l| {
            let mut f: Vec<String> = l.split('\t').map(str::to_string).collect();
            if f.get(6).is_some_and(|k| k == "results") {
                f.resize(9, String::new());
                f[7] = format!("for {url}");
                f[8] = String::new();
            }
            f.join("\t") + "\n"
        })
        .collect();
    std::fs::write(&index, edited).unwrap();
    let global_n = |rows: &[Map<String, Value>]| -> u64 {
        rows.iter()
            .filter(|r| r["scope"] == "global")
            .map(|r| num(r, "n"))
            .sum()
    };
    let (code, wrong, err) = query(&[&"--store", &store], "scores-by-trait");
    assert_eq!(code, 0, "{err}");
    let (_, right, _) = query(&[&run, &full], "scores-by-trait");
    // Scores of the removed question's results are left out, the others kept.
    let removed_id = removed["@id"].as_str().unwrap();
    assert!(global_n(&right) > global_n(&wrong), "{removed_id}");
    assert!(global_n(&wrong) > 0);
}

#[test]
fn a_summary_that_mentions_format_version_is_not_an_export() {
    // `kld query corpus/loads corpus/results`: the *.expect.json beside the
    // exports are not results exports (they were loaded and failed).
    let (code, _, err) = query(
        &[&corpus().join("loads"), &corpus().join("results")],
        "results-by-model",
    );
    assert!(!err.contains("expect.json"), "{err}");
    assert!(!err.contains("INDEX.json"), "{err}");
    assert_eq!(code, 0, "{err}");
}
