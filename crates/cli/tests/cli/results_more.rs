//! Verification results, continued (issue 12 and 15): CSV exports, the same
//! run as JSON and CSV, bindings kept by store directories and `serve
//! --watch`, scores linked to the checkpoint's traits, every row value kept,
//! streamed loads, and the page's results view.

use super::results::{by_model, expected_scores, query, runs};
use crate::common::*;
use crate::{kld, stdout_of};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// (CSV file, its checkpoint if any, the expect facts) for every run.
fn csv_runs() -> Vec<(PathBuf, Option<PathBuf>, Value)> {
    let dir = corpus().join("results");
    runs()
        .into_iter()
        .map(|(_, cp, e)| (dir.join(e["csv"].as_str().unwrap()), cp, e))
        .collect()
}

#[test]
fn csv_exports_reproduce_karenina_s_counts_and_boolean_traits() {
    let mut traits_checked = 0;
    for (file, cp, expect) in csv_runs() {
        let mut inputs = vec![&file];
        if let Some(c) = &cp {
            inputs.push(c);
        }
        // results-by-model: CSV writes false and null alike (an empty cell),
        // so verified_false and verified_null are 0 and
        // verified_false_or_null holds both.
        let rows = query(&inputs, "results-by-model");
        let want: BTreeMap<(String, String), [u64; 3]> = by_model(&expect)
            .into_iter()
            .map(|(k, [n, t, f, u])| (k, [n, t, f + u]))
            .collect();
        // (One row per combo: an answering model's rows add up.)
        let mut got: BTreeMap<(String, String), [u64; 3]> = BTreeMap::new();
        for r in &rows {
            assert_eq!(r["verified_false"], "0", "{}", file.display());
            assert_eq!(r["verified_null"], "0", "{}", file.display());
            let e = got
                .entry((r["interface"].clone(), r["model_name"].clone()))
                .or_default();
            for (i, k) in ["results", "verified_true", "verified_false_or_null"]
                .iter()
                .enumerate()
            {
                e[i] += r[*k].parse::<u64>().unwrap();
            }
        }
        assert_eq!(got, want, "{}", file.display());

        // trait-scores: no trait family in a CSV; agentic scores are not
        // exported. n for every score key, true_count for boolean traits.
        let rows = query(&inputs, "trait-scores");
        let got: BTreeMap<(String, String), &BTreeMap<String, String>> = rows
            .iter()
            .map(|r| {
                assert!(!r.contains_key("type"), "CSV rows have no family: {r:?}");
                ((r["model_name"].clone(), r["trait"].clone()), r)
            })
            .collect();
        let mut want_rows = 0;
        for (_, model, family, key, s) in expected_scores(&expect) {
            if family == "agentic" {
                continue;
            }
            let n = s["n"].as_u64().unwrap();
            if n == 0 {
                continue;
            }
            want_rows += 1;
            let r = got
                .get(&(model.clone(), key.clone()))
                .unwrap_or_else(|| panic!("{}: no row for {model} {key}", file.display()));
            assert_eq!(r["n"], n.to_string(), "{} {model} {key}", file.display());
            if s["type"] == "boolean" {
                assert_eq!(
                    r["true_count"],
                    s["true"].to_string(),
                    "{} {model} {key}",
                    file.display()
                );
                traits_checked += 1;
            }
        }
        assert_eq!(got.len(), want_rows, "{}: extra trait rows", file.display());
    }
    assert!(
        traits_checked > 20,
        "only {traits_checked} boolean traits checked"
    );
}

#[test]
fn the_same_run_as_json_and_as_csv_answers_alike() {
    let mut compared = 0;
    for ((json, cp, expect), (csv, _, _)) in runs().into_iter().zip(csv_runs()) {
        let rows_of = |f: &PathBuf| {
            let mut inputs = vec![f];
            if let Some(c) = &cp {
                inputs.push(c);
            }
            query(&inputs, "results-by-model")
                .into_iter()
                .map(|r| {
                    let f: u64 = r["verified_false"].parse().unwrap();
                    let n: u64 = r["verified_null"].parse().unwrap();
                    let u: u64 = r["verified_false_or_null"].parse().unwrap();
                    (
                        r["run"].clone(),
                        r["interface"].clone(),
                        r["model_name"].clone(),
                        r["results"].clone(),
                        r["verified_true"].clone(),
                        f + n + u,
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(rows_of(&json), rows_of(&csv), "{}", csv.display());
        compared += 1;
        // Result IRIs: recomputed from the CSV with Karenina's recipe, equal
        // the JSON's result_id (scenario rows hash fields the CSV lacks).
        if expect["run_kind"] != "scenario" {
            let ids = |f: &PathBuf| {
                let out = stdout_of(kld().args(["query", "--format", "tsv"]).arg(f).arg("-e").arg(
                    "SELECT ?r WHERE { ?r a <urn:karenina:vocab:VerificationResult> } ORDER BY ?r",
                ));
                let mut v: Vec<String> = out.lines().skip(1).map(str::to_string).collect();
                v.sort();
                v
            };
            let mut want: Vec<String> = expect["facts"]["result_ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| format!("<urn:karenina:result:{}>", i.as_str().unwrap()))
                .collect();
            want.sort();
            assert_eq!(ids(&csv), want, "{}", csv.display());
            assert_eq!(ids(&json), want, "{}", json.display());
        }
    }
    assert!(compared >= 8);
}

/// Rows of a query on a store directory, as TSV lines after the header.
fn store_rows(store: &std::path::Path, name: &str) -> Vec<String> {
    stdout_of(
        kld()
            .args(["query", "--format", "tsv", "--named", name, "--store"])
            .arg(store),
    )
    .lines()
    .skip(1)
    .map(str::to_string)
    .collect()
}

#[test]
fn bindings_persist_in_a_store_and_follow_later_checkpoints() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("store");
    let run = corpus().join("results/res-tests__fixtures__checkpoints__with_rubrics.full.json");
    let cp = corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld");
    // `kld load --store STORE ARGS…`, which must succeed; its stderr.
    let load = |args: &[&std::ffi::OsStr]| -> String {
        let out = kld()
            .args(["load", "--store"])
            .arg(&store)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stderr).unwrap()
    };
    // The run first: no checkpoint yet, an orphan.
    assert!(load(&[run.as_os_str()]).contains("results link to no loaded checkpoint"));
    assert!(store_rows(&store, "pass-rate-by-benchmark").is_empty());
    // Its checkpoint later, in another command: the run is bound then, and
    // the binding is in the store directory (reopened by the next command).
    assert!(load(&[cp.as_os_str()]).contains("results now bound to"));
    let index = std::fs::read_to_string(store.join("index.tsv")).unwrap();
    assert!(
        index.contains("\tauto file://") && index.contains("with_rubrics.jsonld"),
        "{index}"
    );
    let rows = store_rows(&store, "pass-rate-by-benchmark");
    let expect: Value = serde_json::from_slice(&read_fixture(
        &corpus().join("results/res-tests__fixtures__checkpoints__with_rubrics.full.expect.json"),
    ))
    .unwrap();
    // One row per combo: every answering model of the facts, each with
    // every parsing model.
    let parsers = expect["facts"]["parsing_models"].as_array().unwrap().len();
    assert_eq!(
        rows.len(),
        expect["facts"]["per_answering_model"]
            .as_object()
            .unwrap()
            .len()
            * parsers,
        "{rows:?}"
    );
    // A second checkpoint holding the same questions makes an automatic
    // binding ambiguous; an explicit --for stands.
    let copy = d.path().join("copy.jsonld");
    std::fs::copy(&cp, &copy).unwrap();
    assert!(load(&[copy.as_os_str()]).contains("results match 2 loaded checkpoints"));
    assert!(store_rows(&store, "pass-rate-by-benchmark").is_empty());
    load(&[run.as_os_str(), "--for".as_ref(), copy.as_os_str()]);
    let index = std::fs::read_to_string(store.join("index.tsv")).unwrap();
    assert!(
        index.contains("\tfor file://") && index.contains("copy.jsonld"),
        "{index}"
    );
    let rows = store_rows(&store, "pass-rate-by-benchmark");
    assert!(
        !rows.is_empty() && rows.iter().all(|r| r.contains("copy.jsonld")),
        "{rows:?}"
    );
    // Loading yet another checkpoint does not undo the user's choice.
    load(&[corpus()
        .join("loads/docs__notebooks__test_checkpoint.jsonld")
        .as_os_str()]);
    let rows = store_rows(&store, "pass-rate-by-benchmark");
    assert!(
        !rows.is_empty() && rows.iter().all(|r| r.contains("copy.jsonld")),
        "{rows:?}"
    );
}

#[test]
fn serve_watch_binds_a_run_when_its_checkpoint_arrives() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("bench");
    std::fs::create_dir(&dir).unwrap();
    let run = dir.join("run.json");
    std::fs::copy(
        corpus().join("results/res-tests__fixtures__checkpoints__with_rubrics.full.json"),
        &run,
    )
    .unwrap();
    let server = crate::serve::serve(std::slice::from_ref(&dir), &["--watch"]);
    let client = reqwest::blocking::Client::new();
    let bound = || {
        crate::serve::select_column(
            &client,
            &server.base,
            "SELECT ?c WHERE { ?r <urn:karenina:vocab:forBenchmark> ?c }",
            "c",
        )
        .len()
    };
    // The results file in a watched directory is loaded, and an orphan.
    assert_eq!(bound(), 0);
    std::fs::copy(
        corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld"),
        dir.join("bench.jsonld"),
    )
    .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while bound() == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(
        bound(),
        1,
        "the run was not bound once its checkpoint arrived"
    );
    std::fs::remove_file(dir.join("bench.jsonld")).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while bound() == 1 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(bound(), 0, "the binding outlived its checkpoint");
}

#[test]
fn scores_link_to_the_checkpoint_s_traits_and_type_csv_scores() {
    let mut typed = 0;
    for ((json, cp, _), (csv, _, _)) in runs().into_iter().zip(csv_runs()) {
        let Some(cp) = cp else { continue };
        let by_trait = |f: &PathBuf| query(&[f, &cp], "scores-by-trait");
        let json_rows = by_trait(&json);
        // Every score joined to a trait is counted once: per model and score
        // key, the n over the trait rows equals trait-scores' n.
        let mut n_by_key: BTreeMap<(String, String), u64> = BTreeMap::new();
        for r in &json_rows {
            assert!(r["type"].starts_with("karenina:"), "{r:?}");
            assert!(
                r["score_key"] == r["trait"]
                    || r["score_key"].starts_with(&format!("{}.", r["trait"])),
                "{r:?}"
            );
            *n_by_key
                .entry((r["model_name"].clone(), r["score_key"].clone()))
                .or_default() += r["n"].parse::<u64>().unwrap();
        }
        for r in query(&[&json, &cp], "trait-scores") {
            if let Some(n) = n_by_key.get(&(r["model_name"].clone(), r["trait"].clone())) {
                assert_eq!(n.to_string(), r["n"], "{} {r:?}", json.display());
            }
        }
        // A CSV's scores, untyped in the file, get the checkpoint's trait
        // type, the same as the JSON export of the same run.
        let key = |r: &BTreeMap<String, String>| {
            [
                "benchmark",
                "scope",
                "trait",
                "type",
                "score_key",
                "model_name",
            ]
            .map(|k| r.get(k).cloned().unwrap_or_default())
        };
        let json_by_key: BTreeMap<_, _> = json_rows.iter().map(|r| (key(r), r)).collect();
        for r in by_trait(&csv) {
            let j = json_by_key
                .get(&key(&r))
                .unwrap_or_else(|| panic!("{}: {r:?} not in the JSON's rows", csv.display()));
            assert_eq!(r["n"], j["n"], "{r:?}");
            assert_eq!(r["true_count"], j["true_count"], "{r:?}");
            typed += 1;
        }
    }
    assert!(typed > 30, "only {typed} CSV score rows typed");
}

/// Leaves of a JSON value as (path, scalar text), nulls left out.
fn leaves(v: &Value, path: String, out: &mut Vec<(String, String)>) {
    match v {
        Value::Null => {}
        Value::Object(o) => o
            .iter()
            .for_each(|(k, x)| leaves(x, format!("{path}/{k}"), out)),
        Value::Array(a) if !a.is_empty() => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| leaves(x, format!("{path}/{i}"), out)),
        Value::Array(_) => out.push((path, "[]".into())),
        Value::String(s) => out.push((path, s.clone())),
        other => out.push((path, other.to_string())),
    }
}

#[test]
fn every_value_of_a_row_is_a_triple_or_in_rest() {
    use karenina_ld::rdf::verification::{map_path, ResultsOptions};
    use oxigraph::model::{GraphName, Term};
    let traces = [
        "raw_llm_response",
        "trace_messages",
        "conversation_context",
        "investigation_trace",
        "agentic_trait_investigation_traces",
        "evaluation_input",
    ];
    let mut checked = 0;
    for (file, _, _) in runs() {
        let mut quads = Vec::new();
        map_path(
            &file,
            &GraphName::DefaultGraph,
            ResultsOptions::default(),
            &mut |q| quads.push(q),
        )
        .unwrap();
        // Literal texts per result node (scores' values included), and rest.
        let mut texts: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut rest: BTreeMap<String, Value> = BTreeMap::new();
        let mut score_of: BTreeMap<String, String> = BTreeMap::new();
        for q in &quads {
            // Score, per-stage usage and tool count nodes belong to their result.
            if [":score", ":usage", ":toolCallCount"]
                .iter()
                .any(|p| q.predicate.as_str().ends_with(p))
            {
                score_of.insert(q.object.to_string(), q.subject.to_string());
            }
        }
        for q in &quads {
            let s = q.subject.to_string();
            let owner = score_of.get(&s).cloned().unwrap_or(s);
            if let Term::Literal(l) = &q.object {
                if q.predicate.as_str().ends_with(":rest") {
                    rest.insert(owner, serde_json::from_str(l.value()).unwrap());
                } else {
                    let mut t = l.value().to_string();
                    if l.datatype().as_str().ends_with("#JSON") {
                        let v: Value = serde_json::from_str(&t).unwrap();
                        let mut ls = Vec::new();
                        leaves(&v, String::new(), &mut ls);
                        texts
                            .entry(owner.clone())
                            .or_default()
                            .extend(ls.into_iter().map(|l| l.1));
                        continue;
                    }
                    if t == "NaN" || t == "INF" {
                        t = if t == "NaN" {
                            "NaN".into()
                        } else {
                            "Infinity".into()
                        };
                    }
                    texts.entry(owner).or_default().push(t);
                }
            }
        }
        // Each row, by its result IRI, against the file's JSON.
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines().skip(1).take_while(|l| !l.starts_with(']')) {
            let line = line.trim_end_matches(',');
            if !line.starts_with('{') {
                continue;
            }
            let row: Value = serde_json::from_str(
                &line
                    .replace("NaN", "\"NaN\"")
                    .replace("Infinity", "\"Infinity\""),
            )
            .unwrap();
            let id = format!(
                "<urn:karenina:result:{}>",
                row["metadata"]["result_id"].as_str().unwrap()
            );
            let mut ls = Vec::new();
            leaves(&row, String::new(), &mut ls);
            let mut in_rest = Vec::new();
            leaves(&rest[&id], String::new(), &mut in_rest);
            let in_rest: std::collections::BTreeSet<_> = in_rest.into_iter().collect();
            let literal = &texts[&id];
            for (path, value) in ls {
                if traces.iter().any(|t| path.contains(&format!("/{t}"))) {
                    continue;
                }
                // A model without tools has no tools triple (Karenina's default).
                if path.ends_with("/tools") && value == "[]" {
                    continue;
                }
                let held = in_rest.contains(&(path.clone(), value.clone()))
                    || literal.iter().any(|t| {
                        *t == value
                            || t.parse::<f64>()
                                .ok()
                                .zip(value.parse::<f64>().ok())
                                .is_some_and(|(a, b)| a == b)
                    });
                assert!(held, "{}: {id} {path} = {value} is lost", file.display());
                checked += 1;
            }
        }
    }
    assert!(checked > 5000, "only {checked} values checked");
}

#[test]
fn streamed_loads_and_reopens_give_the_same_answers() {
    // KLD_STREAM_THRESHOLD=1: every file takes the streaming paths (results
    // mapped while inserted, store files written and reopened in chunks).
    let res = corpus().join("results");
    let files = [
        corpus().join("loads/karenina-output__probe_dj.jsonld"),
        res.join("res-karenina-output__probe_dj.full.json"),
        res.join("res-karenina-output__probe_dj.full.csv"),
    ];
    let d = tempfile::tempdir().unwrap();
    let mut answers = Vec::new();
    for (name, threshold) in [("plain", None), ("streamed", Some("1"))] {
        let store = d.path().join(name);
        let mut load = kld();
        load.args(["load", "--store"]).arg(&store).args(&files);
        let mut query = kld();
        query
            .args([
                "query",
                "--format",
                "tsv",
                "--named",
                "trait-scores",
                "--store",
            ])
            .arg(&store);
        if let Some(t) = threshold {
            load.env("KLD_STREAM_THRESHOLD", t);
            query.env("KLD_STREAM_THRESHOLD", t);
        }
        load.assert().success();
        let index = std::fs::read_to_string(store.join("index.tsv")).unwrap();
        answers.push((stdout_of(&mut query), index.lines().count()));
    }
    assert!(answers[0].0.lines().count() > 20);
    assert_eq!(answers[0], answers[1]);
}

#[test]
#[ignore = "interop: needs chromium, chromedriver and selenium: cargo test -- --include-ignored"]
fn the_results_view_charts_pass_rates_and_shows_the_outcomes_behind_each_bar() {
    let d = tempfile::tempdir().unwrap();
    let res = corpus().join("results");
    // One run with an answering model name that needs escaping in SPARQL.
    let tricky = d.path().join("tricky.json");
    let text = std::fs::read_to_string(res.join("res-docs__notebooks__test_checkpoint.full.json"))
        .unwrap()
        .replace(
            "\"model_name\": \"gpt-4.1-mini\"",
            "\"model_name\": \"gpt \\\"4.1\\\" \\\\ mini ünï\"",
        );
    assert!(text.contains("ünï\""));
    std::fs::write(&tricky, text).unwrap();
    let files = [
        corpus().join("loads/docs__notebooks__test_checkpoint.jsonld"),
        tricky,
        corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld"),
        res.join("res-tests__fixtures__checkpoints__with_rubrics.full.json"),
        corpus().join("loads/karenina-output__probe_dj.jsonld"),
        res.join("res-karenina-output__probe_dj.full.csv"),
        res.join("res-orphan.orphan.json"),
        // A failed run folder (issue 21): listed among the runs.
        data("runs/root/failed_20261122T080300Z"),
    ];
    let want = query(&files.iter().collect::<Vec<_>>(), "pass-rate-by-benchmark");
    // The verdicts of each run and combo (the chart counts verify_result
    // true over all results, not Karenina's template rate).
    let verdicts = query(&files.iter().collect::<Vec<_>>(), "results-by-model");
    let want_runs = query(&files.iter().collect::<Vec<_>>(), "runs");
    assert!(want.len() >= 6, "{want:?}");
    assert!(want.iter().any(|r| r["model_name"].contains("ünï")));
    let server = crate::serve::serve(&files, &[]);
    let shot = std::path::Path::new(env!("KLD_SOURCE_ROOT")).join("target/serve-results.png");
    let out = crate::serve::python(
        "browser_results.py",
        &[&server.base, shot.to_str().unwrap()],
    );
    let seen: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(seen["empty_message"], false);
    // The runs table: one row per run of the `runs` query, status and source.
    let seen_runs = seen["runs"].as_array().unwrap();
    assert_eq!(seen_runs.len(), want_runs.len(), "{seen_runs:?}");
    for (s, w) in seen_runs.iter().zip(&want_runs) {
        assert_eq!(s["source"], w["source"].as_str());
        assert_eq!(s["status"], w.get("status").map_or("", |v| v.as_str()));
        assert_eq!(s["cells"][3], w["results"].as_str());
    }
    assert!(seen_runs
        .iter()
        .any(|r| r["status"] == "failed" && r["source"] == "run-folder"));
    let bars = seen["bars"].as_array().unwrap();
    // One bar per row of pass-rate-by-benchmark (a benchmark, run and
    // combo), its results that row's, its passed the run's and combo's
    // verify_result true (results-by-model).
    assert_eq!(bars.len(), want.len());
    let iri = |v: &str| v.trim_start_matches('<').trim_end_matches('>').to_string();
    for r in &want {
        let graph = iri(&r["graph"]);
        let run = iri(&r["results_graph"]);
        let b = bars
            .iter()
            .find(|b| {
                b["graph"] == graph.as_str()
                    && b["run"] == run.as_str()
                    && b["combo"] == r["combo"].as_str()
            })
            .unwrap_or_else(|| panic!("no bar for {r:?}"));
        assert_eq!(b["interface"], r["interface"].as_str());
        assert_eq!(b["judge"], r["parsing_model"].as_str());
        assert_eq!(b["results"], r["results"].as_str());
        let v = verdicts
            .iter()
            .find(|v| iri(&v["graph"]) == run && v["combo"] == r["combo"])
            .unwrap_or_else(|| panic!("no results-by-model row for {r:?}"));
        assert_eq!(
            v["results"], r["results"],
            "every result of the run is the benchmark's"
        );
        assert_eq!(b["passed"], v["verified_true"].as_str());
        let (passed, results): (f64, f64) = (
            v["verified_true"].parse().unwrap(),
            r["results"].parse().unwrap(),
        );
        assert!((b["fill_ratio"].as_f64().unwrap() - passed / results).abs() < 1e-6);
        // The bar names its rate (one table of names) before its counts.
        let label = b["label"].as_str().unwrap();
        assert!(label.starts_with("share of rows passed "), "{label}");
        assert!(
            label.contains(&format!("({}/{})", v["verified_true"], r["results"])),
            "{label}"
        );
        // The outcomes behind the bar: one row per result, `passed` of them true.
        let outcomes = b["outcomes"].as_array().unwrap();
        assert_eq!(outcomes.len().to_string(), r["results"], "{r:?}");
        let trues = outcomes.iter().filter(|o| o[3] == "true").count();
        assert_eq!(trues.to_string(), v["verified_true"], "{r:?}");
        // Bound runs' questions are the checkpoint's: their text is shown.
        assert!(outcomes.iter().any(|o| !o[1].as_str().unwrap().is_empty()));
    }
    assert!(shot.exists());
}
