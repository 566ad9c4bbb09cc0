//! Values typed by hand into a results export, read as Karenina reads them
//! (issue 48), on the plain tier (the differential against Karenina itself
//! is `differential/coercion.rs`, interop tier): what Karenina's models
//! refuse is a located `KLD-E201` naming the file, the row and the value's
//! path; what they coerce counts as Karenina counts it; token sums are
//! exact past 64 bits.

use crate::common::*;
use crate::kld;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const BASE: &str = "corpus/results/res-tests__fixtures__checkpoints__with_rubrics.full.json";

fn base() -> Value {
    serde_json::from_slice(&std::fs::read(data(BASE)).unwrap()).unwrap()
}

fn write(dir: &Path, name: &str, doc: &Value) -> PathBuf {
    let f = dir.join(name);
    std::fs::write(&f, serde_json::to_vec(doc).unwrap()).unwrap();
    f
}

/// `kld info --format json FILE`: exit code, stderr, and the summary.
fn info(file: &Path) -> (Option<i32>, String, Value) {
    let o = kld()
        .args(["info", "--format", "json"])
        .arg(file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(!err.contains("panicked"), "{err}");
    let summary = serde_json::from_slice::<Value>(&o.stdout)
        .map(|v| v["summary"].clone())
        .unwrap_or(Value::Null);
    (o.status.code(), err, summary)
}

/// Sets the value at `pointer` below row `i`.
fn set(doc: &mut Value, i: usize, pointer: &str, v: Value) {
    *doc["results"][i].pointer_mut(pointer).unwrap() = v;
}

/// Each value Karenina's model refuses (the siege's list and the score
/// dictionaries' values) is a located KLD-E201.
#[test]
fn values_karenina_refuses_are_located_errors() {
    let d = tempfile::tempdir().unwrap();
    let cases: &[(&str, Value)] = &[
        ("/template/verify_result", json!("maybe")),
        ("/template/verify_result", json!(2)),
        ("/metadata/replicate", json!("one")),
        ("/metadata/replicate", json!(1.5)),
        ("/metadata/replicate", json!({})),
        ("/metadata/execution_time", json!("fast")),
        // Inside the score dictionaries.
        ("/rubric/regex_trait_scores/HasCitations", json!("maybe")),
        ("/rubric/callable_trait_scores/ResponseLength", json!([])),
        ("/rubric/callable_trait_scores", json!("all good")),
    ];
    for (k, (pointer, v)) in cases.iter().enumerate() {
        let mut doc = base();
        set(&mut doc, 3, pointer, v.clone());
        let name = format!("refused-{k}.json");
        let f = write(d.path(), &name, &doc);
        let (code, err, _) = info(&f);
        assert_eq!(code, Some(1), "{pointer} = {v}: {err}");
        for want in [
            name.as_str(),
            "error[KLD-E201]",
            &format!("at /results/3{pointer}"),
        ] {
            assert!(err.contains(want), "{pointer} = {v}: {want:?} not in {err}");
        }
    }
}

#[test]
fn values_karenina_coerces_count_as_karenina_counts_them() {
    let d = tempfile::tempdir().unwrap();
    let (code, err, plain) = info(&write(d.path(), "plain.json", &base()));
    assert_eq!(code, Some(0), "{err}");
    // Replicate "1" and true are replicate 1: nothing changes.
    let mut doc = base();
    let ones: Vec<usize> = (0..doc["results"].as_array().unwrap().len())
        .filter(|&i| doc["results"][i]["metadata"]["replicate"] == 1)
        .collect();
    set(&mut doc, ones[0], "/metadata/replicate", json!("1"));
    set(&mut doc, ones[1], "/metadata/replicate", json!(true));
    set(&mut doc, ones[2], "/metadata/replicate", json!(" 1.0 "));
    let (code, err, coerced) = info(&write(d.path(), "replicates.json", &doc));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(coerced["replicate_stats"], plain["replicate_stats"]);
    assert_eq!(coerced["num_replicates"], plain["num_replicates"]);
    // verify_result "yes" on a row that failed verification is a pass.
    let mut doc = base();
    let rows = doc["results"].as_array().unwrap();
    let i = (0..rows.len())
        .find(|&i| rows[i]["template"]["verify_result"] == false)
        .unwrap();
    set(&mut doc, i, "/template/verify_result", json!("yes"));
    let (code, err, yes) = info(&write(d.path(), "yes.json", &doc));
    assert_eq!(code, Some(0), "{err}");
    let passed = |s: &Value| s["template_pass_overall"]["passed"].as_u64().unwrap();
    assert_eq!(passed(&yes), passed(&plain) + 1);
}

#[test]
fn token_sums_are_exact_past_64_bits_and_with_negative_counts() {
    let d = tempfile::tempdir().unwrap();
    let (_, _, plain) = info(&write(d.path(), "plain.json", &base()));
    let total = |s: &Value| {
        s["tokens"]["total_input"]
            .to_string()
            .parse::<i128>()
            .unwrap()
    };
    let mut doc = base();
    let at = "/template/usage_metadata/total/input_tokens";
    let old = |doc: &Value, i: usize| doc["results"][i].pointer(at).unwrap().as_i64().unwrap();
    let (a, b, c) = (old(&doc, 0), old(&doc, 1), old(&doc, 2));
    set(&mut doc, 0, at, json!(i64::MAX));
    set(&mut doc, 1, at, json!(i64::MAX));
    set(&mut doc, 2, at, json!(-5));
    let (code, err, big) = info(&write(d.path(), "tokens.json", &doc));
    assert_eq!(code, Some(0), "{err}");
    // Python's integers: the exact sum, never saturated at i64::MAX.
    let want = total(&plain) - i128::from(a + b + c) + 2 * i128::from(i64::MAX) - 5;
    assert_eq!(total(&big), want);
    assert!(total(&big) > i128::from(i64::MAX));
}
