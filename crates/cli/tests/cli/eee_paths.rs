//! Every Eval Ever export (issue 26): the developer the results record, a
//! path bounded for any benchmark name, and `--for` with the checkpoint also
//! among the inputs.

use crate::common::*;
use crate::{kld, stdout_of};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            out.extend(files_under(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out.sort();
    out
}

fn aggregates(dir: &Path) -> Vec<Value> {
    files_under(dir)
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "json"))
        .map(|f| serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap())
        .collect()
}

#[test]
fn eee_developer_is_the_provider_the_run_records() {
    let c = corpus();
    let results = c.join("results/res-karenina-output__probe_dj.full.json");
    let cp = c.join("loads/karenina-output__probe_dj.jsonld");
    // The providers the export's configuration gives each answering model.
    // (Python's json writes NaN, which JSON parsers refuse.)
    let text = std::fs::read_to_string(&results)
        .unwrap()
        .replace("NaN", "null");
    let export: Value = serde_json::from_str(&text).unwrap();
    let want: Vec<(String, String)> = export["metadata"]["verification_config"]["answering_models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let name = m["name"].as_str().unwrap().to_string();
            let dev = m["provider"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| {
                    name.split_once('/')
                        .map_or("unknown".to_string(), |(d, _)| d.to_string())
                });
            (name, dev)
        })
        .collect();
    assert!(want.iter().any(|(_, d)| d == "anthropic"), "{want:?}");
    let out = tempfile::tempdir().unwrap();
    // --for names the checkpoint that is also among the inputs, as `kld
    // query … --for` takes it.
    stdout_of(
        kld()
            .args(["export", "-f", "eee"])
            .arg(&results)
            .arg(&cp)
            .arg("--for")
            .arg(&cp)
            .arg("-o")
            .arg(out.path()),
    );
    let aggs = aggregates(out.path());
    assert_eq!(aggs.len(), want.len());
    for (name, dev) in &want {
        let a = aggs
            .iter()
            .find(|a| a["model_info"]["name"] == name.as_str())
            .unwrap_or_else(|| panic!("no file for {name}"));
        assert_eq!(a["model_info"]["developer"], dev.as_str(), "{name}");
        // The folder is the developer's too.
        let folder = files_under(out.path())
            .into_iter()
            .find(|f| {
                f.to_string_lossy()
                    .contains(&crate::eee_paths::model_dir(name))
            })
            .unwrap();
        assert!(
            folder.to_string_lossy().contains(&format!("/{dev}/")),
            "{folder:?}"
        );
    }
}

/// The last segment of a model's folder.
pub(crate) fn model_dir(name: &str) -> String {
    karenina_ld::interop::eee::slug(name.split_once('/').map_or(name, |(_, m)| m))
}

#[test]
fn eee_paths_are_bounded_and_stable_for_a_long_benchmark_name() {
    let c = corpus();
    let mut v: Value = serde_json::from_slice(
        &std::fs::read(c.join("loads/docs__notebooks__test_checkpoint.jsonld")).unwrap(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let long = |tail: &str| format!("{}{tail}", "A very long benchmark name ".repeat(40));
    let mut roots = Vec::new();
    for (i, name) in [long("one"), long("two"), long("one")].iter().enumerate() {
        v["name"] = name.as_str().into();
        let cp = dir.path().join(format!("long{i}.jsonld"));
        std::fs::write(&cp, serde_json::to_vec(&v).unwrap()).unwrap();
        let out = dir.path().join(format!("out{i}"));
        stdout_of(
            kld()
                .args(["export", "-f", "eee"])
                .arg(c.join("results/res-docs__notebooks__test_checkpoint.full.json"))
                .arg("--for")
                .arg(&cp)
                .arg("-o")
                .arg(&out),
        );
        let files = files_under(&out);
        assert!(!files.is_empty());
        for f in &files {
            for seg in f.strip_prefix(&out).unwrap().components() {
                assert!(seg.as_os_str().len() <= 100, "{f:?}");
            }
        }
        let bench = files[0]
            .strip_prefix(&out)
            .unwrap()
            .components()
            .nth(1)
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .to_string();
        // The benchmark's name is kept whole inside the files.
        for a in aggregates(&out) {
            for r in a["evaluation_results"].as_array().unwrap() {
                assert_eq!(r["source_data"]["dataset_name"], name.as_str());
            }
        }
        roots.push(bench);
    }
    // Stable for one name, apart for two names that share their start.
    assert_eq!(roots[0], roots[2]);
    assert_ne!(roots[0], roots[1]);
}

#[test]
fn eee_of_a_run_given_twice_writes_it_once_from_the_json() {
    let c = corpus();
    let cp = c.join("loads/karenina-output__probe_dj.jsonld");
    let (json, csv) = (
        c.join("results/res-karenina-output__probe_dj.full.json"),
        c.join("results/res-karenina-output__probe_dj.full.csv"),
    );
    let once = tempfile::tempdir().unwrap();
    let twice = tempfile::tempdir().unwrap();
    stdout_of(
        kld()
            .args(["export", "-f", "eee"])
            .arg(&json)
            .arg("--for")
            .arg(&cp)
            .arg("-o")
            .arg(once.path()),
    );
    let out = kld()
        .args(["export", "-f", "eee"])
        .arg(&csv)
        .arg(&json)
        .arg("--for")
        .arg(&cp)
        .arg("-o")
        .arg(twice.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains(".csv: skipped: the same run as"), "{err}");
    let rel = |d: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        files_under(d)
            .into_iter()
            .map(|f| {
                (
                    f.strip_prefix(d).unwrap().to_path_buf(),
                    std::fs::read(&f).unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(rel(twice.path()), rel(once.path()));
}
