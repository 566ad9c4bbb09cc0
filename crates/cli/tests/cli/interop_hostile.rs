//! Hostile inputs to the interop exports (issue 22): a checkpoint with no
//! name, texts with Unicode oddities (those of the corpus and worse), a run
//! with zero results, an unbound run. Valid output or a clear error, never
//! invalid output; on the command line and from `GET /export`.

use super::interop::files_under;
use super::queries::query_rows;
use super::serve::{client, python, serve};
use super::{kld, stdout_of};
use crate::common::corpus;
use serde_json::Value;
use std::path::{Component, Path};

/// Line and paragraph separators, NEL, BOM, a bidi override, astral and
/// combining characters, a tab, quote and backslash, and the corpus's own
/// (the shrug with its backslash and katakana, CJK, an em dash), with `../`.
const ODD: &str = "Q\u{2028}\u{2029}\u{85}\u{feff}\u{202e}\u{1F600}e\u{301}\t\"\\ \u{af}\\_(\u{30c4})_/\u{af} \u{4e0d}\u{77e5}\u{9053} \u{2014} ../";

#[test]
#[ignore = "interop: needs python3 with mlcroissant, inspect-ai and jsonschema: cargo test -- --include-ignored"]
fn hostile_checkpoints_give_valid_output_or_a_clear_error() {
    let ex = std::path::Path::new(env!("KLD_SOURCE_ROOT")).join("examples/notebook.jsonld");
    let base: Value = serde_json::from_slice(&std::fs::read(&ex).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, edit: &dyn Fn(&mut Value)| {
        let mut v = base.clone();
        edit(&mut v);
        let p = dir.path().join(name);
        std::fs::write(&p, serde_json::to_vec(&v).unwrap()).unwrap();
        p
    };
    // No name, an empty name: refused, naming the member, nothing written.
    for (f, edit) in [
        (
            "noname.jsonld",
            &(|v: &mut Value| {
                v.as_object_mut().unwrap().remove("name");
            }) as &dyn Fn(&mut Value),
        ),
        ("empty.jsonld", &|v: &mut Value| v["name"] = "".into()),
    ] {
        let p = write(f, edit);
        for fmt in ["croissant", "inspect"] {
            let out = kld()
                .args(["export", "-f", fmt, "--license", "MIT"])
                .arg(&p)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(1), "{f} {fmt}");
            assert!(out.stdout.is_empty());
            assert!(String::from_utf8_lossy(&out.stderr).contains("name"), "{f}");
        }
        // As the checkpoint of an EEE export: refused, no file written.
        let eee = dir.path().join(format!("{f}.eee"));
        let out = kld()
            .args(["export", "-f", "eee"])
            .arg(corpus().join("results/res-docs__notebooks__test_checkpoint.full.json"))
            .arg("--for")
            .arg(&p)
            .arg("-o")
            .arg(&eee)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{f} eee");
        assert!(String::from_utf8_lossy(&out.stderr).contains("name"), "{f}");
        assert!(!eee.exists(), "{f}");
    }
    // A blank name and texts with line and paragraph separators, NEL, BOM,
    // bidi overrides, astral and combining characters: valid, read back.
    let odd = ODD;
    let blank = write("blank.jsonld", &|v: &mut Value| v["name"] = "  ".into());
    let texts = write("odd.jsonld", &|v: &mut Value| {
        v["name"] = odd.into();
        v["dataFeedElement"][0]["item"]["text"] = odd.into();
        v["dataFeedElement"][0]["item"]["acceptedAnswer"]["text"] = odd.into();
    });
    let mut outs = Vec::new();
    for p in [&blank, &texts] {
        let c = p.with_extension("croissant.json");
        stdout_of(
            kld()
                .args(["export", "-f", "croissant", "--license", "MIT"])
                .arg(p)
                .arg("-o")
                .arg(&c),
        );
        outs.push(c.to_str().unwrap().to_string());
    }
    let args: Vec<&str> = outs.iter().map(String::as_str).collect();
    let read: Vec<Value> = serde_json::from_str(&python("croissant_load.py", &args)).unwrap();
    assert_eq!(read[1]["sets"]["questions"][0]["question"], odd);
    assert_eq!(read[1]["sets"]["questions"][0]["answer"], odd);
    let doc: Value = serde_json::from_slice(&std::fs::read(&outs[0]).unwrap()).unwrap();
    assert_eq!(
        doc["name"], "blank",
        "a blank name falls back to the file's stem"
    );
    let i = dir.path().join("odd.jsonl");
    stdout_of(
        kld()
            .args(["export", "-f", "inspect"])
            .arg(&texts)
            .arg("-o")
            .arg(&i),
    );
    let s: Vec<Vec<Value>> =
        serde_json::from_str(&python("inspect_dataset.py", &[i.to_str().unwrap()])).unwrap();
    assert_eq!(
        s[0].len(),
        base["dataFeedElement"].as_array().unwrap().len()
    );
    assert_eq!(s[0][0]["input"], odd);
    assert_eq!(s[0][0]["target"], odd);
}

#[test]
#[ignore = "interop: needs python3 with jsonschema: cargo test -- --include-ignored"]
fn eee_of_odd_names_and_texts_is_valid_and_stays_under_the_output() {
    let c = corpus();
    let base: Value = serde_json::from_slice(
        &std::fs::read(c.join("loads/docs__notebooks__test_checkpoint.jsonld")).unwrap(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    // The answering model's name as Karenina would write any string: odd
    // characters, quotes, a backslash, a `../` and a `/` (developer/model).
    let model = format!("../org/gpt \"4.1\" \\ mini {ODD}");
    let results = dir.path().join("odd.json");
    let text =
        std::fs::read_to_string(c.join("results/res-docs__notebooks__test_checkpoint.full.json"))
            .unwrap();
    let quoted = serde_json::to_string(&model).unwrap();
    let edited = text.replace(
        "\"model_name\": \"gpt-4.1-mini\"",
        &format!("\"model_name\": {quoted}"),
    );
    assert_ne!(edited, text);
    std::fs::write(&results, edited).unwrap();
    let schemas = Path::new(env!("KLD_SOURCE_ROOT")).join("tests/data/eee");
    // An odd benchmark name and question; a blank name.
    for (name, benchmark) in [("odd", ODD), ("blank", "  ")] {
        let mut v = base.clone();
        v["name"] = benchmark.into();
        v["dataFeedElement"][0]["item"]["text"] = ODD.into();
        v["dataFeedElement"][0]["item"]["acceptedAnswer"]["text"] = ODD.into();
        let cp = dir.path().join(format!("{name}.jsonld"));
        std::fs::write(&cp, serde_json::to_vec(&v).unwrap()).unwrap();
        let out = dir.path().join(format!("out-{name}"));
        stdout_of(
            kld()
                .args(["export", "-f", "eee"])
                .arg(&results)
                .arg("--for")
                .arg(&cp)
                .arg("-o")
                .arg(&out),
        );
        let files = files_under(&out);
        for f in &files {
            let rel = f.strip_prefix(&out).unwrap();
            assert!(
                rel.components().all(|c| matches!(c, Component::Normal(_))),
                "{rel:?}"
            );
        }
        let mut args = vec![schemas.to_str().unwrap()];
        args.extend(files.iter().map(|p| p.to_str().unwrap()));
        let got: Value = serde_json::from_str(&python("eee_validate.py", &args)).unwrap();
        assert_eq!(got["errors"], Value::Array(vec![]), "{name}");
        // Every model as Karenina wrote it, one file each.
        // (One results-by-model row per combo: each answering model once.)
        let mut models: Vec<(String, String)> =
            query_rows(&[results.clone(), cp.clone()], "results-by-model")
                .iter()
                .map(|r| {
                    (
                        r["interface"].as_str().unwrap().to_string(),
                        r["model_name"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
        models.sort();
        models.dedup();
        let mut want: Vec<String> = models.into_iter().map(|(_, m)| m).collect();
        want.sort();
        let mut names: Vec<String> = got["aggregates"]
            .as_object()
            .unwrap()
            .values()
            .map(|a| a["model_info"]["name"].as_str().unwrap().to_string())
            .collect();
        names.sort();
        assert_eq!(names, want, "{name}");
        assert!(names.contains(&model), "{name}");
        // The odd question is read back as written in its instance rows.
        let qid = v["dataFeedElement"][0]["@id"].as_str().unwrap();
        let rows: Vec<Value> = files
            .iter()
            .filter(|f| f.to_string_lossy().ends_with(".jsonl"))
            .flat_map(|f| {
                std::fs::read_to_string(f)
                    .unwrap()
                    .lines()
                    .map(|l| serde_json::from_str::<Value>(l).unwrap())
                    .collect::<Vec<_>>()
            })
            .filter(|r| r["sample_id"] == qid)
            .collect();
        assert!(!rows.is_empty(), "{name}");
        for r in rows {
            assert_eq!(r["input"]["raw"], ODD, "{name}");
            assert_eq!(r["input"]["reference"][0], ODD, "{name}");
        }
    }
}

#[test]
fn served_eee_refuses_unbound_and_empty_runs_and_checkpoints_with_why() {
    let ex = Path::new(env!("KLD_SOURCE_ROOT")).join("examples/notebook.jsonld");
    let orphan = corpus().join("results/res-orphan.orphan.json");
    let empty = corpus().join("results/golden__results_export_empty.json");
    let s = serve(&[ex.clone(), orphan.clone(), empty.clone()], &[]);
    for (graph, why) in [
        (&orphan, "bound to no benchmark"),
        (&empty, "no EEE files"),
        (&ex, "not a results graph"),
    ] {
        let graph = std::fs::canonicalize(graph).unwrap();
        let r = client()
            .get(format!("{}/export", s.base))
            .query(&[("graph", graph.to_str().unwrap()), ("format", "eee")])
            .send()
            .unwrap();
        assert_eq!(r.status(), 400, "{graph:?}");
        let text = r.text().unwrap();
        assert!(text.contains(why), "{graph:?}: {text}");
    }
}
