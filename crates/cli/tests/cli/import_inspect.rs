//! `kld import --format inspect` (issue 37): an Inspect dataset written by
//! `kld export -f inspect` comes back as the same questions and answers, in
//! order; one written by Inspect AI itself (the dataset files inspect_ai
//! ships, and samples serialized by its own `Sample` model) imports with
//! every sample. Each imported checkpoint passes `kld canon --check` and
//! `kld validate`.

use super::kld;
use crate::common::{corpus_files, jsonld_in};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// (question, answer) of each item, in file order.
fn questions_and_answers(checkpoint: &Path) -> Vec<(String, String)> {
    let v: Value = serde_json::from_slice(&std::fs::read(checkpoint).unwrap()).unwrap();
    v["dataFeedElement"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|it| {
                    let q = &it["item"];
                    (
                        q["text"].as_str().unwrap_or_default().to_string(),
                        q["acceptedAnswer"]["text"]
                            .as_str()
                            .unwrap_or_default()
                            .to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `kld import --format inspect FILE -o OUT`; OUT, checked canonical and valid.
fn import_inspect(file: &Path, out: &Path) -> PathBuf {
    kld()
        .arg("import")
        .arg(file)
        .args(["--format", "inspect", "--name", "Imported"])
        .arg("-o")
        .arg(out)
        .assert()
        .success();
    kld()
        .arg("canon")
        .arg("--check")
        .arg(out)
        .assert()
        .success();
    kld().arg("validate").arg(out).assert().success();
    out.to_path_buf()
}

/// The standalone-question checkpoints of the corpus and the examples (a
/// scenario benchmark has no question list for Inspect).
fn checkpoints() -> Vec<PathBuf> {
    let mut v = corpus_files("loads");
    v.extend(jsonld_in(
        &Path::new(env!("KLD_SOURCE_ROOT")).join("examples"),
    ));
    v.retain(|p| !questions_and_answers(p).is_empty());
    v
}

#[test]
fn an_inspect_export_imports_back_to_the_same_questions_and_answers() {
    let dir = tempfile::tempdir().unwrap();
    let files = checkpoints();
    assert!(files.len() >= 10, "{} checkpoints", files.len());
    let mut total = 0;
    for (i, f) in files.iter().enumerate() {
        let samples = dir.path().join(format!("{i}.jsonl"));
        kld()
            .args(["export", "-f", "inspect"])
            .arg(f)
            .arg("-o")
            .arg(&samples)
            .assert()
            .success();
        let back = import_inspect(&samples, &dir.path().join(format!("{i}.jsonld")));
        let want = questions_and_answers(f);
        assert_eq!(questions_and_answers(&back), want, "{}", f.display());
        total += want.len();
    }
    assert!(total > 20, "{total} questions in all");
}

#[test]
#[ignore = "interop: needs python3 with inspect-ai (pip inspect-ai==0.3.285, as .ci/run installs)"]
fn a_dataset_inspect_ai_wrote_imports_with_every_sample() {
    let dir = tempfile::tempdir().unwrap();
    let read: Vec<Value> = serde_json::from_str(&super::serve::python(
        "inspect_written.py",
        &[dir.path().to_str().unwrap()],
    ))
    .unwrap();
    let mut total = 0;
    for f in &read {
        let name = f["file"].as_str().unwrap();
        let samples = f["samples"].as_array().unwrap();
        let back = import_inspect(
            &dir.path().join(name),
            &dir.path().join(format!("{name}.jsonld")),
        );
        let got = questions_and_answers(&back);
        let want: Vec<(String, String)> = samples
            .iter()
            .map(|s| {
                (
                    s["input"].as_str().unwrap().to_string(),
                    s["target"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(got, want, "{name}: every sample, in order");
        total += want.len();
    }
    assert_eq!(
        total, 216,
        "theory_of_mind 100 + security_guide 16 + written 100"
    );
}
