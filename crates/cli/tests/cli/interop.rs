//! `kld export -f inspect|croissant|eee`, read back by the field's own
//! libraries (inspect_ai, mlcroissant, every-eval-ever's JSON Schemas).

use super::queries::query_rows;
use super::serve::python;
use super::{kld, stdout_of};
use crate::common::{close, corpus, corpus_files};
use serde_json::Value;
use std::path::PathBuf;

/// The corpus checkpoints and the bundled examples.
fn checkpoints() -> Vec<PathBuf> {
    let mut v = corpus_files("loads");
    let ex = std::path::Path::new(env!("KLD_SOURCE_ROOT")).join("examples");
    v.extend(crate::common::jsonld_in(&ex));
    v
}

#[test]
#[ignore = "interop: needs python3 with inspect-ai: cargo test -- --include-ignored"]
fn inspect_json_dataset_reads_one_sample_per_question() {
    let dir = tempfile::tempdir().unwrap();
    let files = checkpoints();
    let outs: Vec<String> = files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let out = dir.path().join(format!("{i}.jsonl"));
            stdout_of(
                kld()
                    .args(["export", "-f", "inspect"])
                    .arg(f)
                    .arg("-o")
                    .arg(&out),
            );
            out.to_str().unwrap().to_string()
        })
        .collect();
    let args: Vec<&str> = outs.iter().map(String::as_str).collect();
    let read: Vec<Vec<Value>> = serde_json::from_str(&python("inspect_dataset.py", &args)).unwrap();
    let mut total = 0;
    for (f, samples) in files.iter().zip(&read) {
        let rows = query_rows(std::slice::from_ref(f), "questions");
        assert_eq!(samples.len(), rows.len(), "{}", f.display());
        total += rows.len();
        for (s, r) in samples.iter().zip(&rows) {
            assert_eq!(s["id"], r["qid"], "{}", f.display());
            assert_eq!(s["input"], r["question"], "{}", f.display());
            assert_eq!(s["target"], r["answer"], "{}", f.display());
            assert_eq!(s["metadata"]["benchmark"], r["benchmark"]);
        }
        // Keywords and template presence, from the checkpoint itself.
        let raw: Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
        for (s, it) in samples
            .iter()
            .zip(raw["dataFeedElement"].as_array().unwrap())
        {
            let q = &it["item"];
            let kws = q["keywords"]
                .as_array()
                .filter(|k| !k.is_empty())
                .or(it["keywords"].as_array())
                .cloned()
                .unwrap_or_default();
            assert_eq!(
                s["metadata"]["keywords"],
                Value::Array(kws),
                "{}",
                f.display()
            );
            let code = q["hasPart"]["text"].as_str().unwrap_or("");
            assert_eq!(s["metadata"]["has_template"], !code.trim().is_empty());
        }
    }
    assert!(total > 20, "{total} questions in all");
}

#[test]
fn inspect_refuses_an_invalid_checkpoint_and_several_inputs() {
    let bad = corpus_files("rejects").into_iter().next().unwrap();
    let out = kld()
        .args(["export", "-f", "inspect"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let two = checkpoints();
    let out = kld()
        .args(["export", "-f", "inspect"])
        .args(&two[..2])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exactly one CHECKPOINT"));
    let _ = corpus();
}

fn sha256_hex(p: &std::path::Path) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(std::fs::read(p).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
#[ignore = "interop: needs python3 with mlcroissant: cargo test -- --include-ignored"]
fn croissant_validates_and_mlcroissant_reads_the_questions_through_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let files = checkpoints();
    let outs: Vec<String> = files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let out = dir.path().join(format!("{i}.croissant.json"));
            stdout_of(
                kld()
                    .args(["export", "-f", "croissant", "--license", "CC-BY-4.0"])
                    .arg(f)
                    .arg("-o")
                    .arg(&out),
            );
            out.to_str().unwrap().to_string()
        })
        .collect();
    let args: Vec<&str> = outs.iter().map(String::as_str).collect();
    let read: Vec<Value> = serde_json::from_str(&python("croissant_load.py", &args)).unwrap();
    for ((f, out), got) in files.iter().zip(&outs).zip(&read) {
        let ctx = f.display();
        assert_eq!(got["issues"], Value::Array(vec![]), "{ctx}");
        let doc: Value = serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap();
        let sha = sha256_hex(f);
        for d in doc["distribution"].as_array().unwrap() {
            assert_eq!(d["sha256"], sha.as_str(), "{ctx}");
        }
        assert_eq!(doc["license"], "https://spdx.org/licenses/CC-BY-4.0.html");
        assert_eq!(got["license"], serde_json::json!([doc["license"]]), "{ctx}");
        let rows = query_rows(std::slice::from_ref(f), "questions");
        let qs = got["sets"]["questions"].as_array().unwrap();
        let ids: Vec<&Value> = qs.iter().map(|r| &r["id"]).collect();
        let want: Vec<&Value> = rows.iter().map(|r| &r["qid"]).collect();
        assert_eq!(ids, want, "{ctx}");
        let texts: Vec<&Value> = qs.iter().map(|r| &r["question"]).collect();
        let want: Vec<&Value> = rows.iter().map(|r| &r["question"]).collect();
        assert_eq!(texts, want, "{ctx}");
        let answers: Vec<&Value> = qs.iter().map(|r| &r["answer"]).collect();
        let want: Vec<&Value> = rows.iter().map(|r| &r["answer"]).collect();
        assert_eq!(answers, want, "{ctx}");
        // Keywords, where given, are each question's own (no shifted rows).
        let raw: Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
        let items = raw["dataFeedElement"].as_array().unwrap();
        for (r, it) in qs.iter().zip(items) {
            if let Some(k) = r.get("keywords").filter(|k| !k.is_null()) {
                let q = &it["item"]["keywords"];
                let want = if q.as_array().is_some_and(|a| !a.is_empty()) {
                    q
                } else {
                    &it["keywords"]
                };
                assert_eq!(k, want, "{ctx}");
            }
        }
        // Has template: the question's code is not blank, row by row.
        let has: Vec<&Value> = qs.iter().map(|r| &r["has_template"]).collect();
        let want: Vec<Value> = items.iter().map(has_code).collect();
        assert_eq!(has, want.iter().collect::<Vec<_>>(), "{ctx}");
        // Traits: as many records as ratings in the file, by scope.
        let n = |v: &Value| v.as_array().map_or(0, Vec::len);
        let global = n(&raw["rating"]);
        let per_q: usize = raw["dataFeedElement"]
            .as_array()
            .unwrap()
            .iter()
            .map(|it| n(&it["item"]["rating"]))
            .sum();
        let sets = &got["sets"];
        assert_eq!(n(&sets["global_traits"]), global, "{ctx}");
        assert_eq!(n(&sets["question_traits"]), per_q, "{ctx}");
        let owners: Vec<&Value> = raw["dataFeedElement"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|it| vec![&it["@id"]; n(&it["item"]["rating"])])
            .collect();
        let got_owners: Vec<&Value> = sets["question_traits"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| &r["question_id"])
            .collect();
        assert_eq!(got_owners, owners, "{ctx}");
        assert_eq!(n(&sets["templates"]), rows.len(), "{ctx}");
    }
}

/// Whether an item of a checkpoint file has template code (not blank).
fn has_code(item: &Value) -> Value {
    Value::Bool(
        !item["item"]["hasPart"]["text"]
            .as_str()
            .unwrap_or("")
            .trim()
            .is_empty(),
    )
}

#[test]
#[ignore = "interop: needs python3 with mlcroissant: cargo test -- --include-ignored"]
fn croissant_has_template_stays_aligned_when_only_some_questions_have_one() {
    let ex = std::path::Path::new(env!("KLD_SOURCE_ROOT")).join("examples/notebook.jsonld");
    let mut v: Value = serde_json::from_slice(&std::fs::read(&ex).unwrap()).unwrap();
    // Every other question loses its code: empty, or only whitespace.
    for (i, it) in v["dataFeedElement"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
    {
        it["item"]["hasPart"]["text"] = if i % 4 == 0 { "" } else { " \n\t " }.into();
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("some.jsonld");
    std::fs::write(&f, serde_json::to_vec(&v).unwrap()).unwrap();
    let out = dir.path().join("some.croissant.json");
    stdout_of(
        kld()
            .args(["export", "-f", "croissant", "--license", "MIT"])
            .arg(&f)
            .arg("-o")
            .arg(&out),
    );
    let read: Vec<Value> =
        serde_json::from_str(&python("croissant_load.py", &[out.to_str().unwrap()])).unwrap();
    let items = v["dataFeedElement"].as_array().unwrap();
    let want: Vec<(Value, Value)> = items
        .iter()
        .map(|it| (it["@id"].clone(), has_code(it)))
        .collect();
    let got: Vec<(Value, Value)> = read[0]["sets"]["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].clone(), r["has_template"].clone()))
        .collect();
    assert_eq!(got, want);
    assert!(want.iter().any(|(_, h)| h == true) && want.iter().any(|(_, h)| h == false));
}

#[test]
fn croissant_without_a_licence_names_the_flag() {
    let f = &checkpoints()[0];
    let out = kld()
        .args(["export", "-f", "croissant"])
        .arg(f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--license"), "{err}");
    assert!(err.contains("--license unknown"), "{err}");
}

#[test]
#[ignore = "interop: needs python3 with mlcroissant: cargo test -- --include-ignored"]
fn croissant_with_an_unknown_licence_says_so_and_validates() {
    let f = &checkpoints()[0];
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("unknown.croissant.json");
    stdout_of(
        kld()
            .args(["export", "-f", "croissant", "--license", "unknown"])
            .arg(f)
            .arg("-o")
            .arg(&out),
    );
    let read: Vec<Value> =
        serde_json::from_str(&python("croissant_load.py", &[out.to_str().unwrap()])).unwrap();
    assert_eq!(read[0]["issues"], Value::Array(vec![]));
    // mlcroissant reads the licence as a CreativeWork named `unknown` that
    // says it is not known, not as a licence URL.
    let l = read[0]["license"].as_array().unwrap();
    assert_eq!(l.len(), 1, "{l:?}");
    assert_eq!(l[0]["name"], "unknown");
    assert!(l[0]["description"].as_str().unwrap().contains("not known"));
    let rows = query_rows(std::slice::from_ref(f), "questions");
    assert_eq!(
        read[0]["sets"]["questions"].as_array().unwrap().len(),
        rows.len()
    );
}

/// Results exports of the corpus with their checkpoint (from the facts).
fn results_with_checkpoints() -> Vec<(PathBuf, PathBuf)> {
    let mut v = Vec::new();
    for f in corpus_files("results") {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".expect.json") else {
            continue;
        };
        let facts: Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
        if let Some(c) = facts["checkpoint"].as_str() {
            // A CSV export of a scenario run does not say its scenario
            // nodes, so it binds to nothing (eee_refuses… covers refusals).
            let csv = facts["run_kind"] != "scenario";
            for ext in ["json", "csv"].into_iter().filter(|e| csv || *e == "json") {
                v.push((
                    corpus().join("results").join(format!("{stem}.{ext}")),
                    corpus().join("loads").join(c),
                ));
            }
        }
    }
    assert!(v.len() >= 4, "{v:?}");
    v
}

pub(crate) fn files_under(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            v.extend(files_under(&p));
        } else {
            v.push(p);
        }
    }
    v.sort();
    v
}

#[test]
#[ignore = "interop: needs python3 with jsonschema: cargo test -- --include-ignored"]
fn eee_files_validate_and_equal_the_catalogue_figures() {
    let schemas = std::path::Path::new(env!("KLD_SOURCE_ROOT")).join("tests/data/eee");
    let mut checked = 0;
    for (results, checkpoint) in results_with_checkpoints() {
        let ctx = results.display().to_string();
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
        let files = files_under(dir.path());
        let mut args = vec![schemas.to_str().unwrap().to_string()];
        args.extend(files.iter().map(|p| p.to_str().unwrap().to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let got: Value = serde_json::from_str(&python("eee_validate.py", &args)).unwrap();
        assert_eq!(got["errors"], Value::Array(vec![]), "{ctx}");
        let inputs = [results.clone(), checkpoint.clone()];
        // EEE has one file per run and answering model: results-by-model's
        // rows of that model's combos (one per parsing model) added up.
        let mut by_model: Vec<serde_json::Map<String, Value>> = Vec::new();
        for r in query_rows(&inputs, "results-by-model") {
            let same = |m: &serde_json::Map<String, Value>| {
                m["interface"] == r["interface"] && m["model_name"] == r["model_name"]
            };
            match by_model.iter_mut().find(|m| same(m)) {
                None => by_model.push(r),
                Some(m) => {
                    for k in [
                        "results",
                        "verified_true",
                        "verified_false",
                        "verified_null",
                        "verified_false_or_null",
                    ] {
                        let sum = [&*m, &r]
                            .iter()
                            .map(|x| x[k].as_str().unwrap().parse::<u64>().unwrap())
                            .sum::<u64>();
                        m.insert(k.into(), Value::String(sum.to_string()));
                    }
                }
            }
        }
        let traits = query_rows(&inputs, "trait-scores");
        let aggs = got["aggregates"].as_object().unwrap();
        assert_eq!(
            aggs.len(),
            by_model.len(),
            "{ctx}: one file per run × model"
        );
        for (path, a) in aggs {
            let model = a["model_info"]["name"].as_str().unwrap();
            let iface = a["model_info"]["inference_platform"].as_str().unwrap();
            let row = by_model
                .iter()
                .find(|r| r["model_name"] == model && r["interface"] == iface)
                .unwrap_or_else(|| panic!("{path}: no results-by-model row"));
            let n = |k: &str| row[k].as_str().unwrap().parse::<f64>().unwrap();
            let res = &a["evaluation_results"];
            let metric = |name: &str| {
                res.as_array()
                    .unwrap()
                    .iter()
                    .find(|r| r["evaluation_name"] == name)
                    .map(|r| r["score_details"]["score"].as_f64().unwrap())
            };
            let verdicts = n("verified_true") + n("verified_false") + n("verified_false_or_null");
            // (EEE's pass rate is verified true over all the model's results;
            // the catalogue's is Karenina's template rate by combo.)
            match metric("pass_rate") {
                Some(p) => assert!(close(p, n("verified_true") / n("results")), "{path}"),
                None => assert_eq!(verdicts, 0.0, "{path}"),
            }
            for t in traits
                .iter()
                .filter(|t| t["model_name"] == model && t["interface"] == iface)
            {
                let key = t["trait"].as_str().unwrap();
                let got = metric(key);
                match t.get("mean").and_then(|m| m.as_str()) {
                    Some(mean) => {
                        assert!(close(got.unwrap(), mean.parse().unwrap()), "{path} {key}")
                    }
                    // No mean: a verdict trait gives its share true; a
                    // string field none.
                    None => {
                        let tn: f64 = t["n"].as_str().unwrap().parse().unwrap();
                        let tc: f64 = t["true_count"].as_str().unwrap().parse().unwrap();
                        if let Some(g) = got {
                            assert!(close(g, tc / tn), "{path} {key}");
                        }
                    }
                }
                checked += usize::from(got.is_some());
            }
            // One instance row per result.
            let samples = dir.path().join(
                a["detailed_evaluation_results"]["file_path"]
                    .as_str()
                    .unwrap(),
            );
            let lines = std::fs::read_to_string(&samples).unwrap().lines().count();
            assert_eq!(lines as f64, n("results"), "{path}");
        }
    }
    assert!(checked > 0, "no trait compared");
}

#[test]
fn eee_refuses_unbound_and_empty_runs() {
    let ex = std::path::Path::new(env!("KLD_SOURCE_ROOT")).join("examples");
    let dir = tempfile::tempdir().unwrap();
    for (results, why) in [
        ("res-orphan.orphan.json", "not bound"),
        ("golden__results_export_empty.json", "no results"),
    ] {
        let out = kld()
            .args(["export", "-f", "eee"])
            .arg(corpus().join("results").join(results))
            .arg("--for")
            .arg(ex.join("notebook.jsonld"))
            .arg("-o")
            .arg(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{results}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{results}: {err}");
        assert!(files_under(dir.path()).is_empty(), "{results}");
    }
}

#[test]
#[ignore = "interop: needs python3 with mlcroissant and inspect-ai: cargo test -- --include-ignored"]
fn serve_offers_the_benchmark_as_inspect_and_croissant() {
    let f = std::path::Path::new(env!("KLD_SOURCE_ROOT")).join("examples/notebook.jsonld");
    let s = super::serve::serve(std::slice::from_ref(&f), &[]);
    let c = reqwest::blocking::Client::new();
    let list: Value = c
        .get(format!("{}/checkpoints", s.base))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let graph = list[0]["graph"].as_str().unwrap();
    let url = |q: &str| {
        let g: String = url::form_urlencoded::byte_serialize(graph.as_bytes()).collect();
        format!("{}/export?graph={g}&{q}", s.base)
    };
    // Inspect: the bytes kld export writes.
    let got = c.get(url("format=inspect")).send().unwrap().text().unwrap();
    let want = stdout_of(kld().args(["export", "-f", "inspect"]).arg(&f));
    assert_eq!(got, want);
    // Croissant: refused without a licence, naming it.
    let r = c.get(url("format=croissant")).send().unwrap();
    assert_eq!(r.status(), 400);
    assert!(r.text().unwrap().contains("license"));
    // With one: its distribution is /checkpoint, fetched and checked by
    // mlcroissant, and the questions read through it are kld query's.
    let doc = c
        .get(url("format=croissant&license=CC-BY-4.0"))
        .send()
        .unwrap()
        .text()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("served.croissant.json");
    std::fs::write(&p, doc).unwrap();
    let read: Vec<Value> =
        serde_json::from_str(&python("croissant_load.py", &[p.to_str().unwrap()])).unwrap();
    let ids: Vec<&Value> = read[0]["sets"]["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["id"])
        .collect();
    let rows = query_rows(std::slice::from_ref(&f), "questions");
    let want: Vec<&Value> = rows.iter().map(|r| &r["qid"]).collect();
    assert_eq!(ids, want);
}
