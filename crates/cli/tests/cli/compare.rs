//! `kld compare` (issue 46): its faces agree with each other, the rate it
//! is about has one name on every face, and a bad request is a clear error.

use crate::kld;
use serde_json::Value;
use std::path::Path;

const RUN: &str = concat!(
    env!("KLD_SOURCE_ROOT"),
    "/examples/runs/notebook.verification.json"
);

fn stdout(args: &[&str]) -> String {
    let out = kld().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_rate_has_one_name_on_every_face() {
    let json: Value = serde_json::from_str(&stdout(&["compare", RUN, "--format", "json"])).unwrap();
    let name = json["rate"]["name"].as_str().unwrap();
    assert_eq!(name, "template pass rate");
    let text = stdout(&["compare", RUN]);
    assert!(text.starts_with(&format!("{name}: ")), "{text}");
    // kld info names Karenina's two rates: the template pass rate (by
    // combo) and the verdict pass rate (aggregate_pass_rate), each with n.
    let info = stdout(&["info", RUN]);
    assert!(info.contains(&format!("{name} by combo")), "{info}");
    assert!(info.contains("verdict pass rate "), "{info}");
    assert!(info.contains("95% Wilson ["), "{info}");
    let docs = std::fs::read_to_string(Path::new(env!("KLD_SOURCE_ROOT")).join("docs/numbers.md"))
        .unwrap();
    for n in [
        "**template pass rate**",
        "**verdict pass rate**",
        "**share of rows passed**",
    ] {
        assert!(docs.contains(n), "docs/numbers.md names {n}");
    }
}

#[test]
fn json_csv_and_text_give_the_same_numbers() {
    let json: Value = serde_json::from_str(&stdout(&["compare", RUN, "--format", "json"])).unwrap();
    let csv = stdout(&["compare", RUN, "--format", "csv", "--table", "pairs"]);
    let mut rd = csv::Reader::from_reader(csv.as_bytes());
    let head = rd.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = rd.records().map(Result::unwrap).collect();
    let pairs = json["pairs"].as_array().unwrap();
    assert_eq!(rows.len(), pairs.len());
    let col = |k: &str| head.iter().position(|h| h == k).unwrap();
    for (r, p) in rows.iter().zip(pairs) {
        for k in ["diff", "se", "p", "p_holm"] {
            match p[k].as_f64() {
                Some(x) => assert_eq!(r[col(k)].parse::<f64>().unwrap(), x, "{k}"),
                None => assert!(r[col(k)].is_empty(), "{k}"),
            }
        }
    }
    let text = stdout(&["compare", RUN]);
    let first = &pairs[0];
    let diff = format!("{:+.1}", first["diff"].as_f64().unwrap() * 100.0);
    assert!(text.contains(&diff), "{diff} in {text}");
    assert!(!text.contains("NaN") && !csv.contains("NaN"));
}

#[test]
fn an_unknown_reference_judge_names_the_judges() {
    let out = kld()
        .args(["compare", RUN, "--reference-judge", "nobody"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no parsing model is named \"nobody\""),
        "{err}"
    );
}
