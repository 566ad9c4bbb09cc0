//! The statistics layer against the field's reference implementations
//! (issue 46): every number `kld compare --format json` prints is compared,
//! within 1e-9, with `tests/scripts/stats_reference.py` (statsmodels,
//! scipy, krippendorff, scikit-learn at the versions `.ci/run` pins) on
//! runs Karenina's own pipeline made (`karenina_paper_run.py`, several
//! seeds and sizes; `karenina_runs.py`), on generated runs that reach every
//! edge case (n < 2, one cluster, rates of 0 and 1, no discordant pairs,
//! one category, judges missing on some answers, null verdicts, unequal
//! replicates), and the published vectors. Where the reference gives no
//! number, kld must print `null` with its reason. The count of compared
//! values goes to `target/differential-reports/stats-vs-references.txt`.

use crate::common::*;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn script() -> PathBuf {
    Path::new(env!("KLD_SOURCE_ROOT")).join("tests/scripts/stats_reference.py")
}

/// The references of every file, from one Python process.
fn references(files: &[(String, PathBuf)]) -> Map<String, Value> {
    let out = Command::new("python3")
        .arg(script())
        .args(files.iter().map(|f| &f.1))
        .output()
        .expect("python3 with statsmodels, scipy, krippendorff, scikit-learn");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn compare_json(file: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_kld"))
        .args(["compare", "--format", "json", "--resamples", "50"])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kld compare {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn s(v: &Value) -> String {
    v.as_str().map_or("*".to_string(), str::to_string)
}

/// kld's JSON as the reference script's flat keys.
fn flatten(k: &Value) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    let mut put = |prefix: String, row: &Value| {
        for (f, v) in row.as_object().unwrap() {
            out.insert(format!("{prefix}{f}"), v.clone());
        }
    };
    for r in k["rates"]
        .as_array()
        .unwrap()
        .iter()
        .chain(k["combos"].as_array().unwrap())
    {
        put(format!("rates|{}|{}|", s(&r["model"]), s(&r["judge"])), r);
    }
    for p in k["pairs"].as_array().unwrap() {
        put(
            format!("pairs|{}|{}|{}|", s(&p["a"]), s(&p["b"]), s(&p["judge"])),
            p,
        );
    }
    for a in k["agreement"].as_array().unwrap() {
        put(format!("agreement|{}|", s(&a["model"])), a);
    }
    for c in k["cohen_kappa"].as_array().unwrap() {
        put(
            format!("cohen|{}|{}|", s(&c["judge_a"]), s(&c["judge_b"])),
            c,
        );
    }
    for b in k["judge_bias"]["judges"].as_array().unwrap() {
        put(format!("bias|{}|", s(&b["judge"])), b);
    }
    for q in k["questions"].as_array().unwrap() {
        put(format!("questions|{}|", s(&q["question"])), q);
    }
    let r = &k["replicates"];
    for c in r["by_combo"].as_array().unwrap() {
        put(
            format!("replicates_combo|{}|{}|", s(&c["model"]), s(&c["judge"])),
            c,
        );
    }
    for c in r["by_question"].as_array().unwrap() {
        put(format!("replicates_question|{}|", s(&c["question"])), c);
    }
    for c in r["sd_by_model"].as_array().unwrap() {
        put(format!("replicates_sd|{}|", s(&c["model"])), c);
    }
    out
}

#[derive(Default)]
struct Tally {
    values: usize,
    files: usize,
    bad: Vec<String>,
}

impl Tally {
    fn check(&mut self, what: &str, file: &Path, theirs: &Map<String, Value>) {
        let ours = flatten(&compare_json(file));
        self.files += 1;
        for (key, want) in theirs {
            self.values += 1;
            let got = ours.get(key);
            let ok = match (want, got) {
                (Value::Null, Some(Value::Null)) => true,
                (Value::Number(a), Some(Value::Number(b))) => {
                    close(a.as_f64().unwrap(), b.as_f64().unwrap())
                }
                _ => false,
            };
            if !ok && self.bad.len() < 40 {
                self.bad
                    .push(format!("{what} {key}: reference {want} / kld {got:?}"));
            }
        }
    }
}

/// A row in the shape of Karenina's JSON export.
fn row(q: &str, a: &str, j: &str, rep: Option<i64>, verdict: Option<bool>) -> Value {
    json!({
        "metadata": {
            "question_id": q,
            "answering": {"interface": "langchain", "model_name": a, "tools": []},
            "parsing": {"interface": "langchain", "model_name": j, "tools": []},
            "replicate": rep,
            "run_name": "r",
        },
        "template": {"template_verification_performed": true, "verify_result": verdict},
    })
}

fn write_export(dir: &Path, name: &str, rows: Vec<Value>) -> PathBuf {
    let p = dir.join(format!("{name}.json"));
    let doc = json!({"format_version": "2.2", "metadata": {}, "results": rows});
    std::fs::write(&p, serde_json::to_vec(&doc).unwrap()).unwrap();
    p
}

/// A small deterministic generator (test data only).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The edge cases, each as a small export.
fn edge_cases(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut cases: Vec<(&str, Vec<Value>)> = Vec::new();
    // n < 2: one question, two models, one judge, one replicate.
    cases.push((
        "one-question",
        vec![
            row("q1", "a", "j1", Some(1), Some(true)),
            row("q1", "b", "j1", Some(1), Some(false)),
        ],
    ));
    // One cluster with replicates: the clustered SE is not defined.
    cases.push((
        "one-cluster",
        (1..=3)
            .flat_map(|r| {
                [
                    row("q1", "a", "j1", Some(r), Some(r != 2)),
                    row("q1", "b", "j1", Some(r), Some(false)),
                ]
            })
            .collect(),
    ));
    // Rates of 0 and 1; the difference the same on every question.
    cases.push((
        "rates-0-and-1",
        (1..=5)
            .flat_map(|q| {
                let q = format!("q{q}");
                [
                    row(&q, "a", "j1", Some(1), Some(true)),
                    row(&q, "b", "j1", Some(1), Some(false)),
                ]
            })
            .collect(),
    ));
    // No discordant pairs: two models with the same verdicts.
    cases.push((
        "no-discordant",
        (1..=6)
            .flat_map(|q| {
                let n = format!("q{q}");
                [
                    row(&n, "a", "j1", Some(1), Some(q % 2 == 0)),
                    row(&n, "b", "j1", Some(1), Some(q % 2 == 0)),
                ]
            })
            .collect(),
    ));
    // One category: every judge passes everything.
    cases.push((
        "one-category",
        (1..=4)
            .flat_map(|q| {
                let n = format!("q{q}");
                ["j1", "j2", "j3"]
                    .into_iter()
                    .flat_map(move |j| ["a", "b"].map(|a| row(&n, a, j, Some(1), Some(true))))
                    .collect::<Vec<_>>()
            })
            .collect(),
    ));
    // Judges missing on some answers, null verdicts, unequal replicates.
    let mut g = Lcg(46);
    let mut rows = Vec::new();
    for q in 1..=9 {
        for a in ["a", "b", "c"] {
            let reps = 1 + (g.next() * 3.0) as i64;
            for r in 1..=reps {
                for j in ["j1", "j2", "j3"] {
                    let x = g.next();
                    if x < 0.15 {
                        continue;
                    }
                    let verdict = if x < 0.22 { None } else { Some(g.next() < 0.6) };
                    rows.push(row(&format!("q{q}"), a, j, Some(r), verdict));
                }
            }
        }
    }
    cases.push(("missing-judges-unequal-replicates", rows));
    // Generated runs of every size: many models, judges, replicates.
    for seed in 1..=12u64 {
        let mut g = Lcg(seed);
        let (nq, nm, nj, nr) = (
            2 + (g.next() * 30.0) as usize,
            2 + (g.next() * 4.0) as usize,
            1 + (g.next() * 4.0) as usize,
            1 + (g.next() * 3.0) as usize,
        );
        let mut rows = Vec::new();
        for q in 0..nq {
            let hard = g.next();
            for m in 0..nm {
                let skill = 0.3 + 0.1 * m as f64;
                for r in 1..=nr {
                    for j in 0..nj {
                        let x = g.next();
                        let verdict = if x < 0.03 {
                            None
                        } else {
                            Some(g.next() < skill * (1.2 - hard) + 0.05 * j as f64)
                        };
                        rows.push(row(
                            &format!("q{q}"),
                            &format!("m{m}"),
                            &format!("j{j}"),
                            Some(r as i64),
                            verdict,
                        ));
                    }
                }
            }
        }
        cases.push((
            Box::leak(format!("generated-{seed}").into_boxed_str()),
            rows,
        ));
    }
    cases
        .into_iter()
        .map(|(name, rows)| (name.to_string(), write_export(dir, name, rows)))
        .collect()
}

#[test]
#[ignore = "interop: needs python3 with statsmodels, scipy, krippendorff, scikit-learn (.ci/run) and Karenina's venv ($KLD_KARENINA_VENV) with ../shared/tools"]
fn every_statistic_equals_the_reference_implementations() {
    let tmp = tempfile::tempdir().unwrap();
    let mut t = Tally::default();
    // Published vectors, by the reference libraries (kld's own unit tests
    // hold the same vectors: stats::agreement).
    let out = Command::new("python3")
        .arg(script())
        .arg("--vectors")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for (k, want) in [
        ("krippendorff_docstring", 0.691358),
        ("fleiss_wikipedia", 0.210),
        ("cohen_sklearn", 0.9315),
    ] {
        t.values += 1;
        let got = v[k].as_f64().unwrap();
        if (got - want).abs() > 5e-4 {
            t.bad.push(format!("published vector {k}: {got} / {want}"));
        }
    }
    let mut files = edge_cases(tmp.path());
    // Runs made by Karenina's own pipeline.
    let tools = shared_tools();
    for (n, seed) in [("6", "1"), ("9", "2"), ("12", "3")] {
        let out = tmp.path().join(format!("paper-{n}-{seed}"));
        let st = Command::new(karenina_python())
            .env("PYTHONHASHSEED", "0")
            .arg(tools.join("karenina_paper_run.py"))
            .arg(&out)
            .args([n, seed])
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(st.success(), "karenina_paper_run.py {n} {seed}");
        files.push((
            format!("paper run N={n} seed={seed}"),
            out.join("res-paper.json"),
        ));
    }
    for f in karenina_runs("1", &tmp.path().join("runs")) {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        files.push((name, f));
    }
    let theirs = references(&files);
    for (name, file) in &files {
        let key = file.to_string_lossy();
        let want = theirs[key.as_ref()].as_object().unwrap();
        t.check(name, file, want);
    }
    report_differential(
        "stats-vs-references",
        t.values,
        t.bad.len(),
        &format!(" ({} runs and edge cases, 3 published vectors)", t.files),
    );
    assert!(t.bad.is_empty(), "{}", t.bad.join("\n"));
    assert!(t.values > 1000, "{} values compared", t.values);
}
