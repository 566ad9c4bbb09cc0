//! `kld validate` against Karenina itself: 2,000 mutated checkpoints (property
//! types and ranges, missing and extra fields at every level, trait kinds and
//! types, regexes, agentic traits' `model_override` at the global, question
//! and dynamic levels), generated and judged by `tests/scripts/karenina_judge.py`
//! in the Karenina venv (`Benchmark.load`, then reading every rubric as
//! verification does), then validated by one `kld validate` run over the
//! directory. Verdicts must agree file by file: an error where Karenina's load
//! raises, a "raises later" warning where only reading a rubric raises,
//! neither where Karenina accepts.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

/// Warnings that say a later step of Karenina raises (the rest say Karenina
/// mishandles something silently, or that kld changed something): the
/// library's list, which the merge driver also refuses by.
use karenina_ld::model::RAISES_LATER;

#[test]
#[ignore = "interop: needs the Karenina venv (tests/scripts/karenina-venv.sh; $KLD_KARENINA_VENV): cargo test -- --include-ignored"]
fn validate_agrees_with_karenina_on_mutated_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let seed = std::env::var("KLD_DIFF_SEED").unwrap_or_else(|_| "26".into());
    let script = concat!(env!("KLD_SOURCE_ROOT"), "/tests/scripts/karenina_judge.py");
    let out = Command::new(crate::common::karenina_python())
        .arg(script)
        .arg(dir.path())
        .args(["--seed", &seed, "--cases", "2000"])
        .output()
        .expect("the Karenina venv's python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let verdicts = std::fs::read_to_string(dir.path().join("verdicts.jsonl")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kld"))
        .args(["validate", "--format", "json"])
        .arg(dir.path())
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("kld's JSON report");
    let mut ours: HashMap<String, (&str, String)> = HashMap::new();
    for f in report["files"].as_array().unwrap() {
        let name = PathBuf::from(f["file"].as_str().unwrap())
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let diags = f["diagnostics"].as_array().unwrap();
        let first = |pred: &dyn Fn(&serde_json::Value) -> bool| {
            diags.iter().find(|d| pred(d)).map(|d| {
                format!(
                    "{} {}",
                    d["code"].as_str().unwrap_or(""),
                    d["message"].as_str().unwrap_or("")
                )
            })
        };
        let verdict = if let Some(m) = first(&|d| d["severity"] == "error") {
            ("error", m)
        } else if let Some(m) = first(&|d| RAISES_LATER.contains(&d["code"].as_str().unwrap_or("")))
        {
            ("later", m)
        } else {
            ("ok", String::new())
        };
        ours.insert(name, verdict);
    }
    let (mut cases, mut counts, mut disagreements) = (0, HashMap::new(), Vec::new());
    // model_override mutants per level: (cases, refused by Karenina).
    let mut overrides: HashMap<String, (usize, usize)> = HashMap::new();
    for line in verdicts.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let file = v["file"].as_str().unwrap();
        let theirs = v["verdict"].as_str().unwrap();
        let (mine, why) = ours
            .get(file)
            .cloned()
            .unwrap_or(("missing", String::new()));
        cases += 1;
        *counts.entry(theirs.to_string()).or_insert(0) += 1;
        let mutation = v["mutation"].as_str().unwrap_or("");
        for m in mutation
            .split("; ")
            .filter(|m| m.contains(": model_override "))
        {
            let level = m.split(' ').next().unwrap_or("").to_string();
            let e = overrides.entry(level).or_insert((0, 0));
            e.0 += 1;
            e.1 += usize::from(theirs != "ok");
        }
        if mine != theirs {
            disagreements.push(format!(
                "{file} [{}]: Karenina {theirs} ({}) / kld {mine} ({why})",
                v["mutation"].as_str().unwrap_or(""),
                v["error"].as_str().unwrap_or("").replace('\n', " ")
            ));
        }
    }
    eprintln!(
        "karenina differential: {cases} checkpoints (Karenina: {} load errors, {} later errors, {} accepted), {} disagreements",
        counts.get("error").unwrap_or(&0),
        counts.get("later").unwrap_or(&0),
        counts.get("ok").unwrap_or(&0),
        disagreements.len()
    );
    for d in &disagreements {
        eprintln!("  {d}");
    }
    let per_level = ["global", "question", "dynamic"]
        .iter()
        .map(|l| {
            let (n, refused) = overrides.get(*l).copied().unwrap_or_default();
            format!("{l} {n} ({refused} refused)")
        })
        .collect::<Vec<_>>()
        .join(", ");
    crate::common::report_differential(
        "validate-vs-karenina",
        cases,
        disagreements.len(),
        &format!(
            " (mutated checkpoints; Karenina: {} load errors, {} later errors, {} accepted; agentic model_override mutants: {per_level})",
            counts.get("error").unwrap_or(&0),
            counts.get("later").unwrap_or(&0),
            counts.get("ok").unwrap_or(&0)
        ),
    );
    assert!(cases >= 2000, "only {cases} cases");
    for level in ["global", "question", "dynamic"] {
        let (n, refused) = overrides.get(level).copied().unwrap_or_default();
        assert!(
            n >= 50 && refused >= 20 && refused < n,
            "model_override mutants at the {level} level: {n} ({refused} refused)"
        );
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements",
        disagreements.len()
    );
}
