//! Figures a user can trust (issue 18): a `--for` binding is checked, a
//! result counts for a benchmark only when its question belongs to it, and
//! a directory of exports is read the way a newcomer keeps it. Expected
//! figures come from Karenina's facts (`*.expect.json`).

use crate::common::*;
use crate::kld;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
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
    let rows = crate::queries::json_rows(&v);
    (
        out.status.code().unwrap(),
        rows,
        String::from_utf8(out.stderr).unwrap(),
    )
}

pub(crate) fn expect(name: &str) -> Value {
    serde_json::from_slice(&read_fixture(
        &corpus().join("results").join(format!("{name}.expect.json")),
    ))
    .unwrap()
}

pub(crate) fn num(r: &Map<String, Value>, k: &str) -> u64 {
    r[k].as_str().unwrap().parse().unwrap()
}

fn examples() -> PathBuf {
    Path::new(env!("KLD_SOURCE_ROOT")).join("examples")
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
    // An empty export says so, rather than "none holds all 0 of its question IDs".
    let empty = corpus().join("results/golden__results_export_empty.json");
    let (_, _, err) = query(&[&empty], "results-by-model");
    assert!(
        err.contains("holds no results") && !err.contains("all 0"),
        "{err}"
    );
}

/// Per (interface, model name): results, verify_result true, false, null,
/// summed over the facts of `runs`.
fn facts_by_model(runs: &[&str]) -> BTreeMap<(String, String), [u64; 4]> {
    let mut want: BTreeMap<(String, String), [u64; 4]> = BTreeMap::new();
    for run in runs {
        for (model, counts) in crate::results::by_model(&expect(run)) {
            let e = want.entry(model).or_default();
            for (sum, n) in e.iter_mut().zip(counts) {
                *sum += n;
            }
        }
    }
    want
}

/// pass-rate-by-benchmark's (results, passed) per (interface, model name).
fn pass_rates(rows: &[Map<String, Value>]) -> BTreeMap<(String, String), [u64; 2]> {
    let mut got: BTreeMap<(String, String), [u64; 2]> = BTreeMap::new();
    for r in rows {
        let e = got
            .entry((
                r["interface"].as_str().unwrap().to_string(),
                r["model_name"].as_str().unwrap().to_string(),
            ))
            .or_default();
        e[0] += num(r, "results");
        e[1] += num(r, "passed");
    }
    got
}

fn copy_as(src: &Path, dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::copy(src, &p).unwrap();
    p
}

#[test]
fn json_csv_and_a_renamed_copy_of_one_run_count_once() {
    let d = tempfile::tempdir().unwrap();
    let results = corpus().join("results");
    copy_as(
        &examples().join("notebook.jsonld"),
        d.path(),
        "notebook.jsonld",
    );
    let json = copy_as(
        &results.join(format!("{NOTEBOOK}.json")),
        d.path(),
        "run.json",
    );
    let csv = copy_as(
        &results.join(format!("{NOTEBOOK}.csv")),
        d.path(),
        "run.csv",
    );
    let copy = copy_as(&json, d.path(), "run (copy).json");
    let want = facts_by_model(&[NOTEBOOK]);

    let (code, rows, err) = query(&[&d.path()], "results-by-model");
    assert_eq!(code, 0, "{err}");
    let got: BTreeMap<(String, String), [u64; 4]> = rows
        .iter()
        .map(|r| {
            (
                (
                    r["interface"].as_str().unwrap().to_string(),
                    r["model_name"].as_str().unwrap().to_string(),
                ),
                [
                    num(r, "results"),
                    num(r, "verified_true"),
                    num(r, "verified_false"),
                    num(r, "verified_null"),
                ],
            )
        })
        .collect();
    assert_eq!(rows.len(), want.len(), "one row per model: {rows:?}");
    assert_eq!(got, want);
    // One note per skipped file, naming it and the one kept (the JSON
    // first by name: "run (copy).json" sorts before "run.json").
    let notes: Vec<&str> = err.lines().filter(|l| l.contains("skipped")).collect();
    assert_eq!(notes.len(), 2, "{err}");
    for skipped in [&csv, &json] {
        let line = notes
            .iter()
            .find(|l| l.contains(&format!("{}: skipped", skipped.display())))
            .unwrap_or_else(|| panic!("no note for {}: {err}", skipped.display()));
        assert!(line.contains(&copy.display().to_string()), "{line}");
        assert!(
            line.contains(&format!(
                "the same {} results",
                expect(NOTEBOOK)["results_count"]
            )),
            "{line}"
        );
    }

    let (_, rows, _) = query(&[&d.path()], "pass-rate-by-benchmark");
    let want_rates: BTreeMap<(String, String), [u64; 2]> = want
        .iter()
        .map(|(k, v)| (k.clone(), [v[0], v[1]]))
        .collect();
    assert_eq!(pass_rates(&rows), want_rates);
    let (_, rows, _) = query(&[&d.path()], "run-diff");
    assert!(rows.is_empty(), "a run compared with itself: {rows:?}");
}

#[test]
fn the_examples_with_a_csv_and_another_run_beside_them_count_each_run_once() {
    // The case: examples/ plus the CSV of the bundled run and the
    // JSON of another run of the same benchmark.
    let d = tempfile::tempdir().unwrap();
    let results = corpus().join("results");
    for f in ["notebook.jsonld", "probe.jsonld", "scenario.jsonld"] {
        copy_as(&examples().join(f), d.path(), f);
    }
    let runs = d.path().join("runs");
    std::fs::create_dir(&runs).unwrap();
    for f in ["notebook.verification.json", "scenario.verification.json"] {
        copy_as(&examples().join("runs").join(f), &runs, f);
    }
    let partial = "res-docs__notebooks__test_checkpoint.partial";
    copy_as(
        &results.join(format!("{NOTEBOOK}.csv")),
        &runs,
        &format!("{NOTEBOOK}.csv"),
    );
    copy_as(
        &results.join(format!("{partial}.json")),
        &runs,
        &format!("{partial}.json"),
    );
    let (code, rows, err) = query(&[&d.path()], "pass-rate-by-benchmark");
    assert_eq!(code, 0, "{err}");
    let notebook: Vec<Map<String, Value>> = rows
        .into_iter()
        .filter(|r| r["benchmark"] == expect(NOTEBOOK)["benchmark_name"])
        .collect();
    let want: BTreeMap<(String, String), [u64; 2]> = facts_by_model(&[NOTEBOOK, partial])
        .into_iter()
        .map(|(k, v)| (k, [v[0], v[1]]))
        .collect();
    assert_eq!(pass_rates(&notebook), want);
    assert!(err.contains(&format!("{NOTEBOOK}.csv: skipped")), "{err}");
}

/// A v2.2 export holding rows `rows` of `src` (header and layout kept).
fn slice_export(src: &Path, rows: std::ops::Range<usize>, dst: &Path) -> usize {
    let text = std::fs::read_to_string(src).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let body: Vec<&str> = lines[1..]
        .iter()
        .take_while(|l| !l.starts_with(']'))
        .map(|l| l.trim_end_matches(','))
        .collect();
    let kept = &body[rows];
    std::fs::write(dst, format!("{}\n{}\n]}}\n", lines[0], kept.join(",\n"))).unwrap();
    kept.len()
}

#[test]
fn a_subset_is_skipped_and_a_partial_overlap_is_reported() {
    let d = tempfile::tempdir().unwrap();
    let src = corpus().join(format!("results/{NOTEBOOK}.json"));
    let n = expect(NOTEBOOK)["results_count"].as_u64().unwrap() as usize;
    let (a, b, sub) = (
        d.path().join("a.json"),
        d.path().join("b.json"),
        d.path().join("sub.json"),
    );
    let na = slice_export(&src, 0..2 * n / 3, &a);
    let nb = slice_export(&src, n / 3..n, &b);
    let nsub = slice_export(&src, 0..n / 3, &sub);
    let shared = na + nb - n;
    // Each is a valid export that loads alone.
    for f in [&a, &b, &sub] {
        let (code, rows, err) = query(&[f], "results-by-model");
        assert_eq!(code, 0, "{err}");
        assert!(!rows.is_empty());
    }
    let store = d.path().join("store");
    let out = kld()
        .args(["load", "--store"])
        .arg(&store)
        .args([&a, &b, &sub])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "{}: skipped: its {nsub} results are all in {}",
            sub.display(),
            a.display()
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{shared} of its {nb} results are also in {}",
            a.display()
        )),
        "{err}"
    );
    let (_, rows, _) = query(&[&"--store", &store], "results-by-model");
    let total: u64 = rows.iter().map(|r| num(r, "results")).sum();
    assert_eq!(total as usize, na + nb, "the overlap counts twice, as said");
}

#[test]
fn a_store_keeps_the_json_when_its_csv_came_first() {
    let d = tempfile::tempdir().unwrap();
    let results = corpus().join("results");
    let (json, csv) = (
        results
            .join(format!("{NOTEBOOK}.json"))
            .canonicalize()
            .unwrap(),
        results
            .join(format!("{NOTEBOOK}.csv"))
            .canonicalize()
            .unwrap(),
    );
    let store = d.path().join("store");
    kld()
        .args(["load", "--store"])
        .arg(&store)
        .arg(&csv)
        .assert()
        .success();
    let out = kld()
        .args(["load", "--store"])
        .arg(&store)
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "{}: skipped: the same run as {}",
            csv.display(),
            json.display()
        )),
        "{err}"
    );
    let index = std::fs::read_to_string(store.join("index.tsv")).unwrap();
    assert!(index.contains(&json.display().to_string()), "{index}");
    assert!(!index.contains(&csv.display().to_string()), "{index}");
    // Loading the CSV again changes nothing but a note.
    let out = kld()
        .args(["load", "--store"])
        .arg(&store)
        .arg(&csv)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("skipped"));
    let (_, rows, _) = query(&[&"--store", &store], "results-by-model");
    let want = facts_by_model(&[NOTEBOOK]);
    let total: u64 = rows.iter().map(|r| num(r, "results")).sum();
    assert_eq!(total, want.values().map(|v| v[0]).sum::<u64>());
    // The JSON's three verdicts survive (a CSV would have lost false vs null).
    let nulls: u64 = rows.iter().map(|r| num(r, "verified_null")).sum();
    assert_eq!(nulls, want.values().map(|v| v[3]).sum::<u64>());
}

#[test]
fn for_over_a_folder_binds_only_the_runs_of_that_benchmark() {
    // `kld query corpus/loads/ corpus/results/ --for …test_checkpoint.jsonld`
    // attributed every run in the folder to that benchmark.
    let cp = corpus().join("loads/docs__notebooks__test_checkpoint.jsonld");
    let (code, rows, err) = query(
        &[
            &corpus().join("loads"),
            &corpus().join("results"),
            &"--for",
            &cp,
        ],
        "pass-rate-by-benchmark",
    );
    assert_eq!(code, 1, "runs it does not hold are refused: {err}");
    let mut ours = Vec::new();
    let mut refused = 0;
    for p in corpus_files("results") {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let Some(run) = name.strip_suffix(".expect.json") else {
            continue;
        };
        let facts = expect(run);
        if facts["checkpoint"] == "docs__notebooks__test_checkpoint.jsonld" {
            ours.push(run.to_string());
        } else if facts["results_count"].as_u64().unwrap() > 0 {
            // Its JSON export is refused (the CSV is skipped as the same run).
            assert!(
                err.contains(&format!("{run}.json: --for")) && err.contains("not bound"),
                "{run}: {err}"
            );
            refused += 1;
        }
    }
    assert!(ours.len() >= 2 && refused >= 3);
    let ours: Vec<&str> = ours.iter().map(String::as_str).collect();
    let want: BTreeMap<(String, String), [u64; 2]> = facts_by_model(&ours)
        .into_iter()
        .map(|(k, v)| (k, [v[0], v[1]]))
        .collect();
    assert_eq!(pass_rates(&rows), want);
}
