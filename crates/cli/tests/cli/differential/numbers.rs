//! The catalogue's numbers against Karenina's own: runs made now by
//! Karenina's pipeline (`../shared/tools/karenina_runs.py`, four seeds over
//! the corpus checkpoints: several answering and parsing models,
//! replicates, every failure group, MCP servers, rubric-only, scenario and
//! deep-judgment runs), summarised by Karenina
//! (`load_result_set_from_json` + `get_summary()`,
//! `tests/scripts/karenina_numbers.py`) and by kld's catalogue
//! (`results-by-model`, `replicate-pass-rates`, `tokens-by-combo`,
//! `outcome-classes`, `run-summary`) over the JSON exports, and the
//! template pass rates again over the CSV exports. Every number must agree
//! (rates within 1e-9).

use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

type Row = Map<String, Value>;

/// A `file://` graph IRI back to its path.
fn path_of(iri: &str) -> String {
    let p = iri.trim_start_matches("file://");
    let bytes = p.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&p[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

/// A catalogue query's rows over `files` (one `kld query`).
fn rows(files: &[PathBuf], name: &str) -> Vec<Row> {
    let out = Command::new(env!("CARGO_BIN_EXE_kld"))
        .args(["query", "--format", "json", "--named", name])
        .args(files)
        .output()
        .unwrap();
    assert!(
        out.status.code().unwrap_or(2) <= 1,
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    crate::queries::json_rows(&serde_json::from_slice(&out.stdout).expect("JSON results"))
}

fn text(r: &Row, k: &str) -> String {
    r.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

fn num(r: &Row, k: &str) -> Option<f64> {
    r.get(k)
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
}

/// Compares numbers, counting cases and recording disagreements.
struct Judge {
    cases: usize,
    wrong: Vec<String>,
}

impl Judge {
    fn eq(&mut self, what: String, kld: Option<f64>, karenina: Option<f64>) {
        self.cases += 1;
        let same = match (kld, karenina) {
            (Some(a), Some(b)) => crate::common::close(a, b),
            (None, None) => true,
            _ => false,
        };
        if !same {
            self.wrong
                .push(format!("{what}: kld {kld:?}, Karenina {karenina:?}"));
        }
    }
}

fn f(v: &Value) -> Option<f64> {
    v.as_f64()
}

#[test]
#[ignore = "interop: needs Karenina's venv (tests/scripts/karenina-venv.sh; $KLD_KARENINA_VENV): cargo test -- --include-ignored"]
fn catalogue_numbers_equal_karenina_s_summary() {
    let dir = tempfile::tempdir().unwrap();
    // (The tools sit beside the corpus: `../shared/tools`.)
    let mut json = Vec::new();
    let mut csv = Vec::new();
    // (Seeds 2 and 11 stop inside Karenina's EmbeddingCheckStage in the tool.)
    for seed in ["1", "3", "7", "26"] {
        let out_dir = dir.path().join(format!("seed{seed}"));
        for f in crate::common::karenina_runs(seed, &out_dir) {
            csv.push(f.with_extension("csv"));
            json.push(std::fs::canonicalize(&f).unwrap());
        }
    }
    assert!(json.len() >= 40, "only {} runs", json.len());
    // Karenina's summaries.
    let sums = dir.path().join("summaries.jsonl");
    let out = Command::new(crate::common::karenina_python())
        .arg(concat!(
            env!("KLD_SOURCE_ROOT"),
            "/tests/scripts/karenina_numbers.py"
        ))
        .arg(&sums)
        .args(&json)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut karenina: BTreeMap<String, Value> = BTreeMap::new();
    for line in std::fs::read_to_string(&sums).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let file = std::fs::canonicalize(v["file"].as_str().unwrap()).unwrap();
        karenina.insert(file.display().to_string(), v["summary"].clone());
    }
    // kld's catalogue, by results graph.
    let by_graph = |rows: Vec<Row>, key: &str| {
        let mut m: BTreeMap<String, Vec<Row>> = BTreeMap::new();
        for r in rows {
            m.entry(path_of(&text(&r, key))).or_default().push(r);
        }
        m
    };
    let by_model = by_graph(rows(&json, "results-by-model"), "graph");
    let replicates = by_graph(rows(&json, "replicate-pass-rates"), "results_graph");
    let tokens = by_graph(rows(&json, "tokens-by-combo"), "results_graph");
    let outcomes = by_graph(rows(&json, "outcome-classes"), "results_graph");
    let summary = by_graph(rows(&json, "run-summary"), "results_graph");
    let none = Vec::new();
    let mut j = Judge {
        cases: 0,
        wrong: Vec::new(),
    };
    let mut seen_combos = BTreeSet::new();
    let mut two_judges = 0;
    for (file, s) in &karenina {
        let name = Path::new(file).file_name().unwrap().to_string_lossy();
        // template_pass_by_combo and template_pass_overall.
        let ours = by_model.get(file).unwrap_or(&none);
        let want = s["template_pass_by_combo"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let parsers: BTreeSet<String> = ours.iter().map(|r| text(r, "parsing_model")).collect();
        if parsers.len() > 1 {
            two_judges += 1;
        }
        for r in ours.iter().filter(|r| num(r, "n") != Some(0.0)) {
            let combo = text(r, "combo");
            seen_combos.insert(combo.clone());
            let Some(w) = want.get(&combo) else {
                j.eq(
                    format!("{name} {combo}: a combo Karenina lacks"),
                    Some(1.0),
                    None,
                );
                continue;
            };
            j.eq(format!("{name} {combo} total"), num(r, "n"), f(&w["total"]));
            j.eq(
                format!("{name} {combo} passed"),
                num(r, "passed"),
                f(&w["passed"]),
            );
            j.eq(
                format!("{name} {combo} pass_pct"),
                num(r, "pass_rate").map(|x| x * 100.0),
                f(&w["pass_pct"]),
            );
        }
        for combo in want.keys() {
            if !ours.iter().any(|r| text(r, "combo") == *combo) {
                j.eq(format!("{name} {combo}: missing"), None, Some(1.0));
            }
        }
        let sum = summary.get(file).and_then(|v| v.first());
        let get = |k: &str| sum.and_then(|r| num(r, k));
        let overall = &s["template_pass_overall"];
        if overall.is_object() {
            j.eq(
                format!("{name} overall total"),
                get("num_with_template"),
                f(&overall["total"]),
            );
            j.eq(
                format!("{name} overall passed"),
                get("passed"),
                f(&overall["passed"]),
            );
            j.eq(
                format!("{name} overall pass_pct"),
                get("pass_rate").map(|x| x * 100.0),
                f(&overall["pass_pct"]),
            );
        }
        for k in [
            "num_results",
            "num_completed",
            "num_with_template",
            "num_with_rubric",
            "num_with_judgment",
            "num_questions",
            "num_models",
            "num_parsing_models",
            "num_replicates",
            "total_execution_time",
        ] {
            // (A run without results has no row: every count is 0.)
            let ours = if sum.is_none() { Some(0.0) } else { get(k) };
            j.eq(format!("{name} {k}"), ours, f(&s[k]));
        }
        let tok = &s["tokens"];
        j.eq(
            format!("{name} tokens total_input"),
            get("input_tokens").or(Some(0.0)),
            f(&tok["total_input"]),
        );
        j.eq(
            format!("{name} tokens total_output"),
            get("output_tokens").or(Some(0.0)),
            f(&tok["total_output"]),
        );
        // replicate_stats.
        let reps = replicates.get(file).unwrap_or(&none);
        match s["replicate_stats"].as_object() {
            None => {
                let distinct: BTreeSet<String> =
                    reps.iter().map(|r| text(r, "replicate")).collect();
                j.eq(
                    format!("{name} replicate_stats none"),
                    Some((distinct.len() > 1) as u8 as f64),
                    Some(0.0),
                );
            }
            Some(rs) => {
                let rates = rs["replicate_pass_rates"].as_object().unwrap();
                j.eq(
                    format!("{name} replicates"),
                    Some(reps.len() as f64),
                    Some(rates.len() as f64),
                );
                for (rep, w) in rates {
                    let r = reps.iter().find(|r| text(r, "replicate") == *rep);
                    let g = |k: &str| r.and_then(|r| num(r, k));
                    j.eq(format!("{name} rep {rep} total"), g("n"), f(&w["total"]));
                    j.eq(
                        format!("{name} rep {rep} passed"),
                        g("passed"),
                        f(&w["passed"]),
                    );
                    j.eq(
                        format!("{name} rep {rep} pass_rate"),
                        g("pass_rate"),
                        f(&w["pass_rate"]),
                    );
                }
                let first = reps.first();
                let g = |k: &str| first.and_then(|r| num(r, k));
                j.eq(
                    format!("{name} replicate mean"),
                    g("mean"),
                    f(&rs["replicate_summary"]["mean"]),
                );
                j.eq(
                    format!("{name} replicate std"),
                    g("std"),
                    f(&rs["replicate_summary"]["std"]),
                );
            }
        }
        // tokens_by_combo (stage "total").
        let toks = tokens.get(file).unwrap_or(&none);
        if let Some(want) = s["tokens_by_combo"].as_object() {
            for (combo, w) in want {
                let r = toks
                    .iter()
                    .find(|r| text(r, "combo") == *combo && text(r, "stage") == "total");
                let g = |k: &str| r.and_then(|r| num(r, k)).or(Some(0.0));
                for (ours, theirs) in [("input", "input"), ("output", "output"), ("total", "total")]
                {
                    j.eq(
                        format!("{name} {combo} tokens {theirs}"),
                        g(ours),
                        f(&w[theirs]),
                    );
                }
            }
        }
        // completion_by_combo: completed = outcome passed + no_verdict.
        let outs = outcomes.get(file).unwrap_or(&none);
        if let Some(want) = s["completion_by_combo"].as_object() {
            for (combo, w) in want {
                let count = |o: &[&str]| {
                    outs.iter()
                        .filter(|r| {
                            text(r, "combo") == *combo && o.contains(&text(r, "outcome").as_str())
                        })
                        .filter_map(|r| num(r, "results"))
                        .sum::<f64>()
                };
                j.eq(
                    format!("{name} {combo} total"),
                    Some(count(&[
                        "passed",
                        "content",
                        "abstained",
                        "autofail",
                        "retry",
                        "system",
                        "no_verdict",
                        "unclassified",
                    ])),
                    f(&w["total"]),
                );
                j.eq(
                    format!("{name} {combo} completed"),
                    Some(count(&["passed", "no_verdict"])),
                    f(&w["completed"]),
                );
            }
        }
    }
    // The CSV exports: the same template pass rates (the CSV holds
    // template_verification_performed and a true verify_result).
    let csv_rows = by_graph(rows(&csv, "results-by-model"), "graph");
    for (file, s) in &karenina {
        let c = Path::new(file).with_extension("csv").display().to_string();
        let name = Path::new(&c)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let ours = csv_rows.get(&c).unwrap_or(&none);
        let want = s["template_pass_by_combo"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        for (combo, w) in &want {
            let r = ours.iter().find(|r| text(r, "combo") == *combo);
            let g = |k: &str| r.and_then(|r| num(r, k));
            j.eq(format!("{name} {combo} total"), g("n"), f(&w["total"]));
            j.eq(
                format!("{name} {combo} passed"),
                g("passed"),
                f(&w["passed"]),
            );
            j.eq(
                format!("{name} {combo} pass_pct"),
                g("pass_rate").map(|x| x * 100.0),
                f(&w["pass_pct"]),
            );
        }
    }
    for w in &j.wrong {
        eprintln!("  {w}");
    }
    crate::common::report_differential(
        "catalogue-numbers-vs-karenina",
        j.cases,
        j.wrong.len(),
        &format!(
            " ({} runs, JSON and CSV; {} combos, {} runs with two judges)",
            karenina.len(),
            seen_combos.len(),
            two_judges
        ),
    );
    assert!(two_judges > 0, "no run with two parsing models");
    assert!(j.cases > 1000, "only {} cases", j.cases);
    assert!(j.wrong.is_empty(), "{} disagreements", j.wrong.len());
}
