//! The page's downloads in the formats the field shares (issue 22), clicked
//! in a real browser: Inspect and Croissant on a benchmark, a run's Every
//! Eval Ever files, each the bytes `kld export` (or `GET /export`) gives.

use super::interop::files_under;
use super::queries::query_rows;
use super::serve::{client, python, serve};
use super::{kld, stdout_of};
use crate::common::corpus;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

fn by_name(files: impl IntoIterator<Item = std::path::PathBuf>) -> BTreeMap<String, Vec<u8>> {
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

#[test]
#[ignore = "interop: needs chromium, chromedriver, selenium and mlcroissant: cargo test -- --include-ignored"]
fn the_page_downloads_inspect_croissant_and_a_runs_eee_files() {
    let checkpoint = corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld");
    let results = corpus().join("results/res-tests__fixtures__checkpoints__with_rubrics.full.json");
    let s = serve(&[checkpoint.clone(), results.clone()], &[]);
    let dl = tempfile::tempdir().unwrap();
    let out = python(
        "browser_downloads.py",
        &[&s.base, dl.path().to_str().unwrap()],
    );
    let seen: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let path = |k: &str| Path::new(seen[k].as_str().unwrap()).to_path_buf();

    // Inspect: the bytes kld export writes.
    let want = stdout_of(kld().args(["export", "-f", "inspect"]).arg(&checkpoint));
    assert_eq!(std::fs::read_to_string(path("inspect")).unwrap(), want);

    // Croissant: a licence the server refuses is shown with the reason; with
    // CC-BY-4.0 the body /export gives, which mlcroissant validates and reads
    // through the server's /checkpoint: kld query's question IDs, in order.
    let refusal = seen["refusal"].as_str().unwrap();
    assert!(refusal.contains("SPDX"), "{refusal}");
    let croissant = std::fs::read(path("croissant")).unwrap();
    let list: Value = client()
        .get(format!("{}/checkpoints", s.base))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let graph = list[0]["graph"].as_str().unwrap();
    let served = client()
        .get(format!("{}/export", s.base))
        .query(&[
            ("graph", graph),
            ("format", "croissant"),
            ("license", "CC-BY-4.0"),
        ])
        .send()
        .unwrap()
        .bytes()
        .unwrap();
    assert_eq!(croissant, served.to_vec());
    let read: Vec<Value> = serde_json::from_str(&python(
        "croissant_load.py",
        &[path("croissant").to_str().unwrap()],
    ))
    .unwrap();
    assert_eq!(read[0]["issues"], Value::Array(vec![]));
    let ids: Vec<&Value> = read[0]["sets"]["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["id"])
        .collect();
    let rows = query_rows(std::slice::from_ref(&checkpoint), "questions");
    let want: Vec<&Value> = rows.iter().map(|r| &r["qid"]).collect();
    assert_eq!(ids, want);

    // EEE: one link per file of kld export -f eee, byte for byte, and valid
    // against the pinned schemas.
    let dir = tempfile::tempdir().unwrap();
    stdout_of(
        kld()
            .args(["export", "-f", "eee"])
            .arg(&results)
            .arg("--for")
            .arg(&checkpoint)
            .arg("-o")
            .arg(dir.path()),
    );
    let want = by_name(files_under(dir.path()));
    let got_paths: Vec<std::path::PathBuf> = seen["eee"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| Path::new(p.as_str().unwrap()).to_path_buf())
        .collect();
    assert_eq!(seen["eee_links"].as_array().unwrap().len(), want.len());
    assert!(want.len() >= 2, "{:?}", want.keys());
    assert_eq!(by_name(got_paths.clone()), want);
    let schemas = Path::new(env!("KLD_SOURCE_ROOT")).join("tests/data/eee");
    let mut args = vec![schemas.to_str().unwrap()];
    args.extend(got_paths.iter().map(|p| p.to_str().unwrap()));
    let v: Value = serde_json::from_str(&python("eee_validate.py", &args)).unwrap();
    assert_eq!(v["errors"], Value::Array(vec![]));
}
