//! The regex lint (KLD-W019) against Python's own `re.compile`: every pattern
//! literal of CPython's `test_re.py` plus generated hard cases, judged by
//! `tests/scripts/re_judge.py` with the system python3 (3.11) and by
//! `karenina_ld::pyre::check`; they must agree on every accept/refuse.

use std::process::Command;

#[test]
#[ignore = "interop: needs python3 3.11 (its re module and test.test_re): cargo test -- --include-ignored"]
fn regex_lint_agrees_with_python_re() {
    let script = concat!(env!("KLD_SOURCE_ROOT"), "/tests/scripts/re_judge.py");
    // KLD_DIFF_SEED explores other seeds; CI runs the fixed one.
    let seed = std::env::var("KLD_DIFF_SEED").unwrap_or_else(|_| "26".into());
    let out = Command::new("python3")
        .args([script, "--seed", &seed, "--generated", "1500"])
        .output()
        .expect("python3 must be installed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut cases = 0;
    let mut accepted = 0;
    let mut disagreements = Vec::new();
    for line in String::from_utf8(out.stdout).expect("utf-8").lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("one JSON case per line");
        let pattern = v["pattern"].as_str().expect("pattern");
        let python_ok = v["ok"].as_bool().expect("ok");
        let ours = karenina_ld::pyre::check(pattern);
        cases += 1;
        accepted += usize::from(python_ok);
        if ours.is_ok() != python_ok {
            disagreements.push(format!(
                "{pattern:?}: python {} / kld {}",
                v["error"].as_str().unwrap_or("accepts"),
                ours.err().map_or("accepts".to_string(), |e| e.to_string())
            ));
        }
    }
    eprintln!(
        "regex differential: {cases} patterns ({accepted} accepted by Python), {} disagreements",
        disagreements.len()
    );
    for d in &disagreements {
        eprintln!("  {d}");
    }
    crate::common::report_differential(
        "regex-lint-vs-python-re",
        cases,
        disagreements.len(),
        &format!(" (patterns; {accepted} accepted by Python 3.11's re.compile)"),
    );
    assert!(cases >= 500, "only {cases} cases");
    assert!(
        disagreements.is_empty(),
        "{} disagreements",
        disagreements.len()
    );
}
