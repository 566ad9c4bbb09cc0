//! Karenina's numbers in the graph and the catalogue (issue 35): outcome
//! classes, tokens by stage, run labels, and the queries that stand in for
//! karenina.storage's helpers, each checked against the export files read
//! here with serde_json (the differential test against Karenina itself is
//! `differential/numbers.rs`).

use crate::common::*;
use crate::queries::query_rows;
use crate::{kld, stdout_of};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type Row = Map<String, Value>;

fn text(r: &Row, k: &str) -> String {
    r.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

fn num(r: &Row, k: &str) -> f64 {
    r.get(k)
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
        .unwrap_or(f64::NAN)
}

/// The rows of a v2.2 streamed JSON export (NaN read as null).
fn export_rows(file: &Path) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.trim_end_matches(','))
        .filter(|l| l.starts_with("{\"metadata\""))
        .map(|l| serde_json::from_str(&l.replace("NaN", "null")).unwrap())
        .collect()
}

/// Karenina's combo string of a row, written out independently.
fn combo_of(r: &Value) -> String {
    let id = |side: &str| {
        let m = &r["metadata"][side];
        let mut s = format!(
            "{}:{}",
            m["interface"].as_str().unwrap(),
            m["model_name"].as_str().unwrap()
        );
        if let Some(c) = m["config_id"].as_str() {
            s += &format!(" ({c})");
        }
        let tools: Vec<&str> = m["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| t.as_str().unwrap())
            .collect();
        if !tools.is_empty() {
            s += &format!(" +[{}]", tools.join(", "));
        }
        s
    };
    let mut mcp: Vec<&str> = r["template"]["answering_mcp_servers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t.as_str().unwrap())
        .collect();
    mcp.sort();
    let base = format!("{} | {}", id("answering"), id("parsing"));
    if mcp.is_empty() {
        base
    } else {
        format!("{base} | {}", mcp.join(", "))
    }
}

/// The JSON exports of the corpus with results.
fn json_runs() -> Vec<PathBuf> {
    corpus_files("results")
        .into_iter()
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("res-") && n.ends_with(".json") && !n.ends_with(".expect.json")
        })
        .collect()
}

#[test]
fn outcome_classes_split_every_combo_as_karenina_classifies_its_rows() {
    let mut classes = std::collections::BTreeSet::new();
    for file in json_runs() {
        let mut want: BTreeMap<(String, String), f64> = BTreeMap::new();
        for r in export_rows(&file) {
            let t = &r["template"];
            let outcome = match r["metadata"]["failure"]["group"].as_str() {
                Some(g) => g.to_string(),
                None if t["template_verification_performed"] == true
                    && t["verify_result"] == true =>
                {
                    "passed".into()
                }
                None => "no_verdict".into(),
            };
            *want.entry((combo_of(&r), outcome)).or_default() += 1.0;
        }
        let got: BTreeMap<(String, String), f64> =
            query_rows(std::slice::from_ref(&file), "outcome-classes")
                .iter()
                .map(|r| ((text(r, "combo"), text(r, "outcome")), num(r, "results")))
                .collect();
        assert_eq!(got, want, "{}", file.display());
        classes.extend(want.keys().map(|k| k.1.clone()));
    }
    // The corpus has every class.
    for c in [
        "passed",
        "content",
        "abstained",
        "autofail",
        "retry",
        "system",
        "no_verdict",
    ] {
        assert!(classes.contains(c), "{c} never seen: {classes:?}");
    }
    // A CSV keeps no failure category: its failed rows are unclassified,
    // the rest classified as in its JSON.
    let csv = corpus().join("results/res-docs__notebooks__test_checkpoint.full.csv");
    let rows = query_rows(&[csv], "outcome-classes");
    let count = |o: &str| -> f64 {
        rows.iter()
            .filter(|r| text(r, "outcome") == o)
            .map(|r| num(r, "results"))
            .sum()
    };
    let json =
        export_rows(&corpus().join("results/res-docs__notebooks__test_checkpoint.full.json"));
    let failed = json
        .iter()
        .filter(|r| !r["metadata"]["failure"].is_null())
        .count();
    assert_eq!(count("unclassified"), failed as f64);
    assert!(failed > 0);
    assert_eq!(count("content") + count("retry") + count("abstained"), 0.0);
}

#[test]
fn tokens_by_combo_add_up_each_stage_of_usage_metadata() {
    let mut stages = 0;
    for file in json_runs() {
        let mut want: BTreeMap<(String, String), [f64; 3]> = BTreeMap::new();
        for r in export_rows(&file) {
            let Some(usage) = r["template"]["usage_metadata"].as_object() else {
                continue;
            };
            for (stage, u) in usage {
                let e = want.entry((combo_of(&r), stage.clone())).or_default();
                e[0] += 1.0;
                e[1] += u["input_tokens"].as_f64().unwrap_or(0.0);
                e[2] += u["output_tokens"].as_f64().unwrap_or(0.0);
            }
        }
        let got: BTreeMap<(String, String), [f64; 3]> =
            query_rows(std::slice::from_ref(&file), "tokens-by-combo")
                .iter()
                .map(|r| {
                    assert_eq!(num(r, "total"), num(r, "input") + num(r, "output"));
                    (
                        (text(r, "combo"), text(r, "stage")),
                        [num(r, "results"), num(r, "input"), num(r, "output")],
                    )
                })
                .collect();
        assert_eq!(got, want, "{}", file.display());
        stages += got.len();
    }
    assert!(stages > 20, "only {stages} combo stages");
}

#[test]
fn labels_apply_to_the_inputs_after_them_and_a_store_keeps_them() {
    let d = tempfile::tempdir().unwrap();
    let res = corpus().join("results");
    let a = res.join("res-docs__notebooks__test_checkpoint.full.json");
    let b = res.join("res-tests__fixtures__checkpoints__with_rubrics.full.json");
    let out = stdout_of(
        kld()
            .args(["query", "--format", "json", "--named", "pass-rate-by-label"])
            .args(["--label", "regime=mcp", "--label", "prompt=v=1"])
            .arg(&a)
            .args(["--label", "regime=none"])
            .arg(&b),
    );
    let rows = crate::queries::json_rows(&serde_json::from_str(&out).unwrap());
    let labels = |file: &Path| -> Vec<String> {
        let mut v: Vec<String> = rows
            .iter()
            .filter(|r| {
                text(r, "results_graph").ends_with(&*file.file_name().unwrap().to_string_lossy())
            })
            .map(|r| format!("{}={}", text(r, "label"), text(r, "value")))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    assert_eq!(labels(&a), ["prompt=v=1", "regime=mcp"]);
    // A later label of the same key replaces it; the other key stays.
    assert_eq!(labels(&b), ["prompt=v=1", "regime=none"]);
    // Each labelled run's rows are its pass-rate rows, never pooled.
    let by_model = query_rows(std::slice::from_ref(&a), "results-by-model");
    for r in rows
        .iter()
        .filter(|r| text(r, "label") == "regime" && text(r, "value") == "mcp")
    {
        let m = by_model
            .iter()
            .find(|m| text(m, "combo") == text(r, "combo"))
            .unwrap();
        for k in ["results", "n", "passed"] {
            assert_eq!(num(r, k), num(m, k), "{k}");
        }
    }
    // A label after the last input labels nothing: a usage error.
    kld()
        .args(["query", "--named", "runs"])
        .arg(&a)
        .args(["--label", "x=1"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("follows the last input"));
    kld()
        .args(["query", "--named", "runs", "--label", "novalue"])
        .arg(&a)
        .assert()
        .code(2);
    // A store directory keeps them (the run-summary lists them).
    let store = d.path().join("store");
    kld()
        .args(["load", "--store"])
        .arg(&store)
        .args(["--label", "regime=mcp"])
        .arg(&a)
        .arg(&b)
        .assert()
        .success();
    let summary = query_rows(&[PathBuf::from("--store"), store.clone()], "run-summary");
    let labels_of: BTreeMap<String, String> = summary
        .iter()
        .map(|r| (text(r, "run"), text(r, "labels")))
        .collect();
    assert_eq!(labels_of["cli-verification"], "regime=mcp");
    assert_eq!(labels_of["nightly 🧪"], "regime=mcp");
}

#[test]
fn the_storage_helpers_replacements_answer_from_the_files() {
    let res = corpus().join("results");
    let file = res.join("res-tests__fixtures__checkpoints__with_rubrics.full.json");
    let cp = corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld");
    let rows = export_rows(&file);
    // model-performance: as judge, each parsing model's rows over every
    // answering model; as answering model, its rows over every judge.
    let perf = query_rows(std::slice::from_ref(&file), "model-performance");
    for role in ["answering", "parsing"] {
        let mut want: BTreeMap<String, [f64; 3]> = BTreeMap::new();
        for r in &rows {
            let combo = combo_of(r);
            let parts: Vec<&str> = combo.split(" | ").collect();
            let model = if role == "answering" {
                parts[0]
            } else {
                parts[1]
            };
            let e = want.entry(model.to_string()).or_default();
            e[0] += 1.0;
            let t = &r["template"];
            if t["template_verification_performed"] == true {
                e[1] += 1.0;
                if t["verify_result"] == true {
                    e[2] += 1.0;
                }
            }
        }
        let got: BTreeMap<String, [f64; 3]> = perf
            .iter()
            .filter(|r| text(r, "role") == role)
            .map(|r| {
                (
                    text(r, "model"),
                    [num(r, "results"), num(r, "n"), num(r, "passed")],
                )
            })
            .collect();
        assert_eq!(got, want, "{role}");
    }
    // latest-result-per-question: the greatest timestamp per question and combo.
    let mut latest: BTreeMap<(String, String), String> = BTreeMap::new();
    for r in &rows {
        let k = (
            r["metadata"]["question_id"].as_str().unwrap().to_string(),
            combo_of(r),
        );
        let ts = r["metadata"]["timestamp"].as_str().unwrap().to_string();
        let e = latest.entry(k).or_default();
        if ts > *e {
            *e = ts;
        }
    }
    let got = query_rows(std::slice::from_ref(&file), "latest-result-per-question");
    for r in &got {
        let k = (text(r, "question_id"), text(r, "combo"));
        assert_eq!(latest[&k], text(r, "timestamp"), "{k:?}");
    }
    let keys: std::collections::BTreeSet<_> = got
        .iter()
        .map(|r| (text(r, "question_id"), text(r, "combo")))
        .collect();
    assert_eq!(keys.len(), latest.len());
    // question-usage: the checkpoint given twice (two graphs) holds each
    // question in 2 benchmarks; the run's results per question.
    let d = tempfile::tempdir().unwrap();
    let copy = d.path().join("copy.jsonld");
    std::fs::copy(&cp, &copy).unwrap();
    let usage = query_rows(&[cp.clone(), copy, file.clone()], "question-usage");
    assert!(!usage.is_empty());
    for u in &usage {
        let n = rows
            .iter()
            .filter(|r| r["metadata"]["question_id"] == text(u, "question_id").as_str())
            .count();
        assert_eq!(num(u, "results"), n as f64, "{u:?}");
        assert_eq!(num(u, "benchmarks"), 2.0, "{u:?}");
    }
    // verification-history: one row per run, newest first.
    let hist = query_rows(
        &[
            file.clone(),
            res.join("res-docs__notebooks__test_checkpoint.full.json"),
        ],
        "verification-history",
    );
    assert_eq!(hist.len(), 2);
    assert!(text(&hist[0], "started") >= text(&hist[1], "started"));
    // rubric-score-aggregates: NaN kept and counted, every family there.
    let dj = res.join("res-karenina-output__probe_dj.full.json");
    let agg = query_rows(std::slice::from_ref(&dj), "rubric-score-aggregates");
    let nan: f64 = agg.iter().map(|r| num(r, "nan")).sum();
    let raw = std::fs::read_to_string(&dj).unwrap();
    assert_eq!(nan, raw.matches("NaN").count() as f64);
    assert!(nan > 0.0);
    let evaluations: f64 = agg.iter().map(|r| num(r, "evaluations")).sum();
    let scores = query_rows(&[dj], "trait-scores")
        .iter()
        .map(|r| num(r, "n"))
        .sum::<f64>();
    assert_eq!(evaluations, scores);
    // traits-by-type: the traits query's traits, counted by family,
    // agentic ones included.
    let gen = data("generated/n_1_q_8_s_3_all-kinds/checkpoint-0000.jsonld");
    let by_type = query_rows(std::slice::from_ref(&gen), "traits-by-type");
    let traits = query_rows(&[gen], "traits");
    let total: f64 = by_type.iter().map(|r| num(r, "traits")).sum();
    assert_eq!(total, traits.len() as f64);
    // (A dynamic trait counts as its member's family, which `traits` does
    // not show: at least the plain agentic traits are agentic.)
    let agentic: f64 = by_type
        .iter()
        .filter(|r| text(r, "type") == "agentic")
        .map(|r| num(r, "traits"))
        .sum();
    let plain = traits
        .iter()
        .filter(|r| text(r, "type").contains("Agentic") && !text(r, "type").contains("Dynamic"))
        .count();
    assert!(agentic >= plain as f64 && plain > 0, "{agentic} {plain}");
    assert!(by_type.iter().any(|r| text(r, "type") == "agentic"));
}
