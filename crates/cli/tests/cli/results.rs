//! Verification-results exports through every command (issue 12): the JSON
//! exports of `tests/data/corpus/results/`, loaded with their checkpoint, answer
//! the catalogue with the facts Karenina computed (`*.expect.json`).

use crate::common::*;
use crate::{kld, stdout_of};
use karenina_ld::table::catalogue_views::{outcome_column, OUTCOMES};
use predicates::prelude::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// (results JSON file, its checkpoint if any, the expect facts).
pub(crate) fn runs() -> Vec<(PathBuf, Option<PathBuf>, Value)> {
    let dir = corpus().join("results");
    let mut v = Vec::new();
    for p in corpus_files("results") {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".expect.json") {
            continue;
        }
        let expect: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        let file = dir.join(expect["file"].as_str().unwrap());
        let cp = expect["checkpoint"]
            .as_str()
            .filter(|c| c.ends_with(".jsonld"))
            .map(|c| corpus().join("loads").join(c));
        v.push((file, cp, expect));
    }
    assert!(v.len() >= 8, "the corpus has its results exports");
    v
}

/// `results-by-model` rows as (interface, model name) → results, verified
/// true / false / null, the shape [`by_model`] gives from the facts (the
/// rows of one answering model's combos added up).
pub(crate) fn model_rows(
    rows: &[serde_json::Map<String, Value>],
) -> BTreeMap<(String, String), [u64; 4]> {
    let mut out: BTreeMap<(String, String), [u64; 4]> = BTreeMap::new();
    for r in rows {
        let n = |k: &str| r[k].as_str().unwrap().parse::<u64>().unwrap();
        let e = out
            .entry((
                r["interface"].as_str().unwrap().to_string(),
                r["model_name"].as_str().unwrap().to_string(),
            ))
            .or_default();
        for (i, k) in [
            "results",
            "verified_true",
            "verified_false",
            "verified_null",
        ]
        .iter()
        .enumerate()
        {
            e[i] += n(k);
        }
    }
    out
}

/// Per (interface, model name), from the expect file: results and
/// verify_result true / false / null.
pub(crate) fn by_model(expect: &Value) -> BTreeMap<(String, String), [u64; 4]> {
    let mut want: BTreeMap<(String, String), [u64; 4]> = BTreeMap::new();
    for m in expect["facts"]["per_answering_model"]
        .as_object()
        .into_iter()
        .flat_map(|o| o.values())
    {
        let id = &m["identity"];
        let e = want
            .entry((
                id["interface"].as_str().unwrap().to_string(),
                id["model_name"].as_str().unwrap().to_string(),
            ))
            .or_default();
        e[0] += m["results"].as_u64().unwrap();
        for (i, k) in ["true", "false", "null"].iter().enumerate() {
            e[i + 1] += m["verify_result"][*k].as_u64().unwrap();
        }
    }
    want
}

/// Every score key of the expect facts, metric traits split per metric:
/// (interface, model name, trait family, score key, its stats).
pub(crate) fn expected_scores(expect: &Value) -> Vec<(String, String, String, String, &Value)> {
    let mut out = Vec::new();
    for m in expect["facts"]["per_answering_model"]
        .as_object()
        .into_iter()
        .flat_map(|o| o.values())
    {
        let id = &m["identity"];
        let (interface, model) = (
            id["interface"].as_str().unwrap().to_string(),
            id["model_name"].as_str().unwrap().to_string(),
        );
        for (dict, traits) in m["traits"].as_object().into_iter().flatten() {
            let family = dict.split('_').next().unwrap().to_string();
            for (name, stats) in traits.as_object().unwrap() {
                if stats["type"] == "metric" {
                    for (k, s) in stats["metrics"].as_object().unwrap() {
                        let key = format!("{name}.{k}");
                        out.push((interface.clone(), model.clone(), family.clone(), key, s));
                    }
                } else {
                    out.push((
                        interface.clone(),
                        model.clone(),
                        family.clone(),
                        name.clone(),
                        stats,
                    ));
                }
            }
        }
    }
    out
}

/// Rows of a catalogue query as maps var → value text.
pub(crate) fn query(files: &[&PathBuf], name: &str) -> Vec<BTreeMap<String, String>> {
    let files: Vec<PathBuf> = files.iter().map(|f| f.to_path_buf()).collect();
    crate::queries::query_rows(&files, name)
        .into_iter()
        .map(|r| {
            r.into_iter()
                .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn results_by_model_reproduces_karenina_s_facts() {
    for (file, cp, expect) in runs() {
        let mut inputs = vec![&file];
        if let Some(c) = &cp {
            inputs.push(c);
        }
        let rows = query(&inputs, "results-by-model");
        let want = by_model(&expect);
        // One row per combo: an answering model's rows add up to its facts.
        let mut got: BTreeMap<(String, String), [u64; 4]> = BTreeMap::new();
        for r in &rows {
            assert_eq!(
                r["run"],
                expect["run_name"].as_str().unwrap_or("(unnamed run)")
            );
            assert!(r["combo"].starts_with(&format!(
                "{} | {}",
                r["answering_model"], r["parsing_model"]
            )));
            let e = got
                .entry((r["interface"].clone(), r["model_name"].clone()))
                .or_default();
            for (i, k) in [
                "results",
                "verified_true",
                "verified_false",
                "verified_null",
            ]
            .iter()
            .enumerate()
            {
                e[i] += r[*k].parse::<u64>().unwrap();
            }
        }
        assert_eq!(got, want, "{}", file.display());
    }
}

#[test]
fn trait_scores_reproduce_karenina_s_facts() {
    let mut checked = 0;
    for (file, cp, expect) in runs() {
        let mut inputs = vec![&file];
        if let Some(c) = &cp {
            inputs.push(c);
        }
        let rows = query(&inputs, "trait-scores");
        let got: BTreeMap<(String, String, String, String), &BTreeMap<String, String>> = rows
            .iter()
            .map(|r| {
                (
                    (
                        r["interface"].clone(),
                        r["model_name"].clone(),
                        r["type"].clone(),
                        r["trait"].clone(),
                    ),
                    r,
                )
            })
            .collect();
        let mut want_keys = 0;
        for (interface, model, family, key, s) in expected_scores(&expect) {
            let n = s["n"].as_u64().unwrap();
            let row = got.get(&(
                interface.clone(),
                model.clone(),
                family.clone(),
                key.clone(),
            ));
            if n == 0 {
                // Only nulls: a row with n = 0, or none.
                if let Some(r) = row {
                    assert_eq!(r["n"], "0");
                }
                continue;
            }
            let r = row
                .unwrap_or_else(|| panic!("{}: no row for {model} {family} {key}", file.display()));
            want_keys += 1;
            assert_eq!(
                r["n"].parse::<u64>().unwrap(),
                n,
                "{} {key} n",
                file.display()
            );
            if s["type"] == "boolean" {
                assert_eq!(
                    r["true_count"].parse::<u64>().unwrap(),
                    s["true"].as_u64().unwrap(),
                    "{} {key} true",
                    file.display()
                );
            }
            if s["type"] == "number" && s["count_for_mean"].as_u64().unwrap_or(0) > 0 {
                let mean: f64 = r
                    .get("mean")
                    .unwrap_or_else(|| {
                        panic!(
                            "{}: no mean for {model} {family} {key}: {r:?} want {s}",
                            file.display()
                        )
                    })
                    .parse()
                    .unwrap();
                let want = s["mean"].as_f64().unwrap();
                assert!(
                    close(mean, want),
                    "{} {key}: mean {mean} != {want}",
                    file.display()
                );
            }
        }
        checked += want_keys;
    }
    assert!(checked > 50, "only {checked} trait scores checked");
}

#[test]
fn results_without_question_and_the_orphan_run() {
    for (file, cp, expect) in runs() {
        let mut inputs = vec![&file];
        if let Some(c) = &cp {
            inputs.push(c);
        }
        let mut got: Vec<String> = query(&inputs, "results-without-question")
            .into_iter()
            .map(|r| r["question_id"].clone())
            .collect();
        got.sort();
        let mut want: Vec<String> = if cp.is_some() {
            expect["question_ids_not_in_checkpoint"]
                .as_array()
                .unwrap()
                .iter()
                .map(|q| q.as_str().unwrap().to_string())
                .collect()
        } else {
            // No checkpoint loaded: every question is without one.
            expect["question_ids_covered"]
                .as_array()
                .unwrap()
                .iter()
                .map(|q| q.as_str().unwrap().to_string())
                .collect()
        };
        want.sort();
        assert_eq!(got, want, "{}", file.display());
    }
    // The orphan run, loaded with a checkpoint, links to nothing and says so.
    let orphan = corpus().join("results/res-orphan.orphan.json");
    let cp = corpus().join("loads/docs__notebooks__test_checkpoint.jsonld");
    kld()
        .args(["query", "--named", "graphs"])
        .arg(&cp)
        .arg(&orphan)
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "results link to no loaded checkpoint",
        ));
    // A run loaded with its checkpoint is bound to it.
    let run = corpus().join("results/res-tests__fixtures__checkpoints__with_rubrics.full.json");
    let cp = corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld");
    let out = stdout_of(
        kld()
            .args([
                "query",
                "--format",
                "tsv",
                "-e",
                "SELECT ?c WHERE { ?r <urn:karenina:vocab:forBenchmark> ?c }",
            ])
            .arg(&cp)
            .arg(&run),
    );
    assert!(
        out.contains("tests__fixtures__checkpoints__with_rubrics.jsonld"),
        "{out}"
    );
}

#[test]
fn hostile_results_files_end_in_located_errors() {
    let d = tempfile::tempdir().unwrap();
    let good = read_fixture_string(
        &corpus().join("results/res-tests__fixtures__checkpoints__with_rubrics.full.json"),
    );
    let lines: Vec<&str> = good.lines().collect();
    // Truncated in the middle of row 3; a row of the wrong type; an unknown version.
    let truncated = format!(
        "{}\n{}\n{}\n{}",
        lines[0],
        lines[1],
        lines[2],
        &lines[3][..lines[3].len() / 2]
    );
    let wrong = format!("{}\n{}\n[1, 2]\n]}}\n", lines[0], lines[1]);
    let version = good.replacen(
        "\"format_version\": \"2.2\"",
        "\"format_version\": \"9.0\"",
        1,
    );
    // CSV: cut inside row 3's quoted cells; a replicate that is no number.
    let good_csv = read_fixture_string(
        &corpus().join("results/res-tests__fixtures__checkpoints__with_rubrics.full.csv"),
    );
    let truncated_csv =
        good_csv[..good_csv.match_indices("\r\n").nth(3).unwrap().0 - 40].to_string();
    let mut rdr = csv::Reader::from_reader(good_csv.as_bytes());
    let header = rdr.headers().unwrap().clone();
    let replicate = header.iter().position(|c| c == "replicate").unwrap();
    let mut records: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    assert!(records[0][replicate].parse::<u32>().is_ok());
    let mut cells: Vec<String> = records[0].iter().map(str::to_string).collect();
    cells[replicate] = "three".into();
    records[0] = csv::StringRecord::from(cells);
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&header).unwrap();
    for r in &records {
        w.write_record(r).unwrap();
    }
    let wrong_csv = String::from_utf8(w.into_inner().unwrap()).unwrap();
    // A 100 MB trace string never closed.
    let mut huge = format!("{}\n{}\n", lines[0], lines[1]);
    huge.push_str(&lines[2][..lines[2].find("\"raw_llm_response\": \"").unwrap() + 21]);
    huge.push_str(&"x".repeat(100 << 20));
    for (name, text, want) in [
        ("truncated.json", truncated, ":4:"),
        ("wrong.json", wrong, "/results/1"),
        ("version.json", version, "format_version"),
        ("truncated.csv", truncated_csv, "/rows/2: truncated"),
        (
            "short.csv",
            format!("{good_csv}a,b\r\n"),
            "cells where the header has",
        ),
        (
            "unclosed.json",
            format!("{}\n{}\n", lines[0], lines[1]),
            "never closed",
        ),
        ("wrong.csv", wrong_csv, "/rows/0/replicate"),
        ("huge-trace.json", huge, ":3:"),
    ] {
        let p = d.path().join(name);
        std::fs::write(&p, text).unwrap();
        kld()
            .args(["query", "--named", "results-by-model"])
            .arg(&p)
            .assert()
            .code(1)
            .stderr(predicates::str::contains(want).and(predicates::str::contains(name)));
    }
}

#[test]
fn pass_rate_by_benchmark_matches_the_facts() {
    for (file, cp, expect) in runs() {
        let Some(cp) = cp else { continue };
        let rows = query(&[&file, &cp], "pass-rate-by-benchmark");
        if expect["run_kind"] == "scenario" {
            // Scenario turn rows (question IDs hashed from node texts) are
            // bound through their scenario name and node id: every one of
            // them names a node of a scenario of the bound checkpoint.
            let out = stdout_of(
                kld()
                    .args(["query", "--format", "tsv", "-e"])
                    .arg(
                        "PREFIX k: <urn:karenina:vocab:> PREFIX s: <https://schema.org/>
                         SELECT (COUNT(?r) AS ?n) WHERE {
                           ?rg k:forBenchmark ?c .
                           GRAPH ?rg { ?r k:scenarioId ?sid ; k:scenarioNode ?nid }
                           GRAPH ?c { ?sc a k:Scenario ; s:name ?sid ; k:node ?node .
                                      ?node s:nodeId ?nid } }",
                    )
                    .arg(&file)
                    .arg(&cp),
            );
            let n: u64 = out.lines().nth(1).unwrap().parse().unwrap();
            assert_eq!(n, expect["facts"]["scenario_rows"].as_u64().unwrap());
            assert!(n > 0);
        }
        for m in expect["facts"]["per_answering_model"]
            .as_object()
            .unwrap()
            .values()
        {
            let id = &m["identity"];
            // One row per combo: the answering model's rows add up to its facts.
            let mine: Vec<_> = rows
                .iter()
                .filter(|r| {
                    r["interface"] == id["interface"].as_str().unwrap()
                        && r["model_name"] == id["model_name"].as_str().unwrap()
                })
                .collect();
            assert!(!mine.is_empty(), "{}: no row for {id}", file.display());
            let sum = |k: &str| mine.iter().map(|r| num(r, k)).sum::<u64>();
            for r in &mine {
                assert_eq!(r["benchmark"], expect["benchmark_name"].as_str().unwrap());
                // The outcome classes split the rows.
                assert_eq!(
                    OUTCOMES
                        .iter()
                        .map(|c| num(r, outcome_column(c)))
                        .sum::<u64>(),
                    num(r, "results"),
                    "{r:?}"
                );
                assert_eq!(r["unclassified"], "0", "a JSON export classifies every row");
                // Karenina's rate: passed over the verified rows, none at n = 0.
                let n = num(r, "n");
                assert!(num(r, "passed") <= n && n <= num(r, "results"));
                match r.get("pass_rate") {
                    Some(rate) => {
                        let rate: f64 = rate.parse().unwrap();
                        assert!((rate - num(r, "passed") as f64 / n as f64).abs() < 1e-12);
                    }
                    None => assert_eq!(n, 0, "{r:?}"),
                }
            }
            assert_eq!(sum("results"), m["results"].as_u64().unwrap());
            // Every verified-true row of the corpus had its template verified.
            assert_eq!(sum("passed"), m["verify_result"]["true"].as_u64().unwrap());
        }
    }
}

/// A row's count.
fn num(r: &BTreeMap<String, String>, k: &str) -> u64 {
    r[k].parse().unwrap()
}

/// The same facts computed by Python's json module (which reads NaN) from the
/// raw exports: questions failed by every model, and outcome changes per
/// (question, model) between two runs.
fn python_facts(files: &[PathBuf]) -> Value {
    let script = r#"
import json, sys, collections
rows = []
for f in sys.argv[1:]:
    text = open(f, encoding="utf-8").read()
    d = json.loads(text)
    t = d["metadata"]["export_timestamp"]
    for r in d["results"]:
        rows.append((f, t, r))
verified = collections.defaultdict(list)
per_run = collections.defaultdict(list)
for f, t, r in rows:
    m = r["metadata"]; tpl = r["template"] or {}; v = tpl.get("verify_result")
    # hardest: per run, over the rows whose template was verified.
    if tpl.get("template_verification_performed"):
        verified[(f.rsplit("/", 1)[-1], m["question_id"])].append(v)
    if v is None: continue
    model = (m["answering"]["interface"], m["answering"]["model_name"])
    per_run[(m["question_id"], model, f, t)].append(v)
hardest = sorted(list(k) for k, vs in verified.items() if not any(vs))
rates = collections.defaultdict(list)
for (q, model, f, t), vs in per_run.items():
    rates[(q, model)].append((t, f, sum(vs) / len(vs)))
changed = 0
for k, rs in rates.items():
    rs.sort()
    for i in range(len(rs)):
        for j in range(i + 1, len(rs)):
            if rs[i][2] != rs[j][2]: changed += 1
print(json.dumps({"hardest": hardest, "changed": changed}))
"#;
    let out = run_ok(
        std::process::Command::new("python3")
            .arg("-c")
            .arg(script)
            .args(files),
    );
    serde_json::from_str(&out).unwrap()
}

#[test]
#[ignore = "interop: needs python3 (the independent computation): cargo test -- --include-ignored"]
fn hardest_questions_and_run_diff_match_an_independent_computation() {
    let dir = corpus().join("results");
    let runs = [
        dir.join("res-docs__notebooks__test_checkpoint.full.json"),
        dir.join("res-docs__notebooks__test_checkpoint.partial.json"),
        dir.join("res-tests__fixtures__checkpoints__with_rubrics.full.json"),
    ];
    let facts = python_facts(&runs);
    let cp1 = corpus().join("loads/docs__notebooks__test_checkpoint.jsonld");
    let cp2 = corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld");
    let mut inputs: Vec<&PathBuf> = runs.iter().collect();
    inputs.push(&cp1);
    inputs.push(&cp2);
    // Per run (results graph): never pooled across runs.
    let mut hardest: Vec<[String; 2]> = query(&inputs, "hardest-questions")
        .into_iter()
        .map(|r| {
            let file = r["results_graph"].rsplit('/').next().unwrap().to_string();
            [file, r["question_id"].clone()]
        })
        .collect();
    hardest.sort();
    let want: Vec<[String; 2]> = serde_json::from_value(facts["hardest"].clone()).unwrap();
    assert!(!want.is_empty());
    assert_eq!(hardest, want);
    let diff = query(&inputs, "run-diff");
    assert_eq!(diff.len() as u64, facts["changed"].as_u64().unwrap());
    assert!(!diff.is_empty());
    // Keywords come from the linked checkpoints.
    assert!(query(&inputs, "pass-rate-by-keyword")
        .iter()
        .any(|r| r["keyword"] == "biology"));
}

#[test]
fn ambiguity_is_reported_and_for_binds_and_traces_are_kept_only_when_asked() {
    let run = corpus().join("results/res-docs__notebooks__test_checkpoint.full.json");
    let a = corpus().join("loads/docs__notebooks__test_checkpoint.jsonld");
    let b = corpus().join("loads/docs__notebooks__test_checkpoint@7c9617f2.jsonld");
    let bound = "SELECT ?c WHERE { ?r <urn:karenina:vocab:forBenchmark> ?c }";
    // Two loaded checkpoints hold all the run's question IDs: not bound, said.
    let out = kld()
        .args(["query", "--format", "tsv", "-e", bound])
        .arg(&a)
        .arg(&b)
        .arg(&run)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("results match 2 loaded checkpoints"));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().count(),
        1,
        "no binding"
    );
    // --for chooses.
    let out = stdout_of(
        kld()
            .args(["query", "--format", "tsv", "-e", bound, "--for"])
            .arg(&b)
            .arg(&a)
            .arg(&b)
            .arg(&run),
    );
    assert!(out.contains("test_checkpoint@7c9617f2.jsonld"), "{out}");
    // Traces are dropped unless --with-traces.
    let traces = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?r <urn:karenina:vocab:rest> ?x FILTER(CONTAINS(STR(?x), \"trace_messages\")) } }";
    let without = stdout_of(
        kld()
            .args(["query", "--format", "csv", "-e", traces])
            .arg(&run),
    );
    let with = stdout_of(
        kld()
            .args(["query", "--format", "csv", "--with-traces", "-e", traces])
            .arg(&run),
    );
    assert_eq!(without.lines().nth(1), Some("0"));
    assert_eq!(with.lines().nth(1), Some("30"));
}

#[test]
fn info_summarises_a_run_like_karenina_s_facts() {
    for (file, _, expect) in runs() {
        let out = stdout_of(kld().args(["info", "--format", "json"]).arg(&file));
        let s: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(s["results"], expect["results_count"], "{}", file.display());
        assert_eq!(
            s["questions"].as_u64().unwrap() as usize,
            expect["question_ids_covered"].as_array().unwrap().len()
        );
        assert_eq!(s["job_id"], expect["job_id"]);
        for m in expect["facts"]["per_answering_model"]
            .as_object()
            .into_iter()
            .flat_map(|o| o.values())
        {
            let id = &m["identity"];
            let key = format!(
                "{}:{}",
                id["interface"].as_str().unwrap(),
                id["model_name"].as_str().unwrap()
            );
            let got = &s["models"][&key];
            assert_eq!(got["results"], m["results"], "{key}");
            assert_eq!(got["verified_true"], m["verify_result"]["true"], "{key}");
            assert_eq!(got["verified_false"], m["verify_result"]["false"], "{key}");
            assert_eq!(got["verified_null"], m["verify_result"]["null"], "{key}");
            assert_eq!(got["verified_false_or_null"], 0, "{key}");
            assert_eq!(got["failures"], m["failure"], "{key}");
        }
    }
    // Text for people names each model's pass rate as Karenina's
    // aggregate_pass_rate(by="answering_model") has it: verified true over
    // the results with a verdict (this run has null verdicts, which are not
    // in the denominator), with its n and the definition's name.
    let file = corpus().join("results/res-docs__notebooks__test_checkpoint.full.json");
    let expect: Value = serde_json::from_slice(&read_fixture(
        &corpus().join("results/res-docs__notebooks__test_checkpoint.full.expect.json"),
    ))
    .unwrap();
    let out = stdout_of(kld().arg("info").arg(&file));
    let lines: Vec<&str> = out.lines().collect();
    for (name, m) in expect["facts"]["per_answering_model"].as_object().unwrap() {
        let t = m["verify_result"]["true"].as_u64().unwrap();
        let judged = t + m["verify_result"]["false"].as_u64().unwrap();
        assert!(m["verify_result"]["null"].as_u64().unwrap() > 0);
        let model = name
            .split(" (")
            .next()
            .unwrap()
            .split(" +[")
            .next()
            .unwrap();
        let at = lines
            .iter()
            .position(|l| l.trim_start().starts_with(&format!("{model}:")))
            .unwrap();
        let rate = lines[at + 1];
        assert!(
            rate.contains(&format!(
                "pass rate {:.1}% ({t} of {judged} with a verdict",
                100.0 * t as f64 / judged as f64
            )) && rate.contains("aggregate_pass_rate(by=\"answering_model\")"),
            "{rate}"
        );
    }
    // Karenina's template pass rate per combo, each with its n.
    let json: Value = serde_json::from_str(&stdout_of(
        kld().args(["info", "--format", "json"]).arg(&file),
    ))
    .unwrap();
    for (combo, t) in json["summary"]["template_pass_by_combo"]
        .as_object()
        .unwrap()
    {
        let (p, n) = (t["passed"].as_u64().unwrap(), t["total"].as_u64().unwrap());
        // Then its 95% Wilson interval (issue 46).
        let want = format!(
            "  {combo}: {:.1}% ({p} of {n}, 95% Wilson [",
            100.0 * p as f64 / n as f64
        );
        assert!(lines.iter().any(|l| l.starts_with(&want)), "{want}\n{out}");
    }
    assert!(out.contains("Karenina template_pass_by_combo"), "{out}");
}
