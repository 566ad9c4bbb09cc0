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

/// One `--format csv` table as rows keyed by their text cells (sorted), the
/// numbers of each row beside.
fn table(csv: &str) -> Vec<(Vec<String>, Vec<Option<f64>>)> {
    let mut rd = csv::Reader::from_reader(csv.as_bytes());
    let mut rows: Vec<(Vec<String>, Vec<Option<f64>>)> = rd
        .records()
        .map(|r| {
            let r = r.unwrap();
            let mut text = Vec::new();
            let mut nums = Vec::new();
            for cell in r.iter() {
                match cell.parse::<f64>() {
                    Ok(x) => nums.push(Some(x)),
                    Err(_) if cell.is_empty() => nums.push(None),
                    Err(_) => text.push(cell.to_string()),
                }
            }
            (text, nums)
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

#[test]
fn a_database_run_compares_as_its_export() {
    use karenina_ld::sqlite;
    let db = crate::database::db();
    let c = sqlite::open(&db).unwrap();
    let runs = sqlite::runs(&db, &c).unwrap();
    assert!(runs.len() >= 3);
    let mut compared = 0;
    for run in &runs {
        let export = crate::common::corpus()
            .join("results")
            .join(format!("{}.json", run.name));
        let named = format!("{}{}{}", db.display(), karenina_ld::kind::DB_RUN, run.id);
        for t in ["pairs", "rates", "agreement", "questions"] {
            let ours = table(&stdout(&[
                "compare", &named, "--format", "csv", "--table", t,
            ]));
            let theirs = table(&stdout(&[
                "compare",
                export.to_str().unwrap(),
                "--format",
                "csv",
                "--table",
                t,
            ]));
            assert_eq!(ours.len(), theirs.len(), "{} {t}", run.name);
            for (a, b) in ours.iter().zip(&theirs) {
                assert_eq!(a.0, b.0, "{} {t}", run.name);
                assert_eq!(a.1.len(), b.1.len());
                for (x, y) in a.1.iter().zip(&b.1) {
                    match (x, y) {
                        (Some(x), Some(y)) => assert!((x - y).abs() < 1e-12, "{} {t}", run.name),
                        (x, y) => assert_eq!(x, y, "{} {t}", run.name),
                    }
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 10, "{compared} rows compared");
    // A database of several runs: runs are never pooled, so it must name one.
    let out = kld().arg("compare").arg(&db).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("runs are never pooled"), "{err}");
    assert!(err.contains(&runs[0].id), "{err}");
    // An unknown run names the runs there are.
    let out = kld()
        .arg("compare")
        .arg(format!("{}{}nope", db.display(), karenina_ld::kind::DB_RUN))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&runs[1].id));
}
