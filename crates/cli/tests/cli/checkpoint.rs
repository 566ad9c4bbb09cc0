//! validate, canon, info, qid: exit codes, batch behaviour, output formats.

use crate::common::*;
use crate::{copy_to, kld};
use predicates::prelude::*;
use std::path::Path;

#[test]
fn validate_accepts_every_loadable_corpus_file() {
    let out = kld()
        .arg("validate")
        .arg(corpus().join("loads"))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert_eq!(stdout.matches(": ok (").count(), 20, "{stdout}");
    assert!(stdout.contains("20 valid, 0 invalid"));
}

#[test]
fn validate_reports_every_reject_and_goes_on() {
    let out = kld()
        .arg("validate")
        .arg(corpus().join("rejects"))
        .assert()
        .code(1);
    let o = out.get_output();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(stdout.matches("INVALID").count(), 5, "{stdout}");
    assert!(stdout.contains("0 valid, 5 invalid"));
    // file:line:col: error[CODE] at /json/path: reason
    let re = regex_lite(&stderr);
    assert!(re >= 5, "{stderr}");
}

fn regex_lite(stderr: &str) -> usize {
    stderr
        .lines()
        .filter(|l| {
            let Some((file, rest)) = l.split_once(".jsonld:") else {
                return false;
            };
            let mut parts = rest.splitn(3, ':');
            let line = parts.next().unwrap_or("");
            let col = parts.next().unwrap_or("");
            !file.is_empty()
                && line.parse::<usize>().is_ok()
                && col.parse::<usize>().is_ok()
                && parts
                    .next()
                    .is_some_and(|m| m.starts_with(" error[KLD-E") && m.contains("] at /"))
        })
        .count()
}

#[test]
fn validate_missing_file_is_an_io_error_but_the_batch_goes_on() {
    let good = corpus().join("loads/karenina-output__dyn.jsonld");
    let out = kld()
        .arg("validate")
        .arg("/nonexistent/x.jsonld")
        .arg(&good)
        .assert()
        .code(2);
    let o = out.get_output();
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/x.jsonld"));
    assert!(String::from_utf8_lossy(&o.stdout).contains("karenina-output__dyn.jsonld: ok"));
}

#[test]
fn validate_json_format_and_deny_warnings() {
    let legacy = corpus().join("loads/example_benchmark.jsonld");
    let out = kld()
        .args(["validate", "--format", "json"])
        .arg(&legacy)
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let f = &v["files"][0];
    assert_eq!(f["status"], "valid");
    let codes: Vec<&str> = f["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(
        codes.contains(&"KLD-W002") && codes.contains(&"KLD-W003"),
        "{codes:?}"
    );
    assert!(f["diagnostics"][0]["line"].as_u64().unwrap() >= 1);
    kld()
        .args(["validate", "--deny-warnings"])
        .arg(&legacy)
        .assert()
        .code(1);
    kld()
        .args(["validate", "--deny-warnings"])
        .arg(corpus().join("loads/karenina-output__dyn.jsonld"))
        .assert()
        .success();
}

#[test]
fn validate_of_an_empty_directory_says_there_is_nothing_to_validate() {
    // It used to print nothing and exit 0, so a mistyped folder passed a
    // check unnoticed (issue 19).
    let d = tempfile::tempdir().unwrap();
    kld()
        .arg("validate")
        .arg(d.path())
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("no checkpoints in"));
}

#[test]
fn canon_to_stdout_is_byte_identical_for_karenina_output() {
    for p in corpus_files("loads")
        .into_iter()
        .filter(|p| karenina_written(p))
    {
        let out = kld().arg("canon").arg(&p).assert().success();
        assert!(
            out.get_output().stdout == std::fs::read(&p).unwrap(),
            "{}",
            p.display()
        );
    }
}

#[test]
fn canon_needs_a_mode_for_several_inputs() {
    kld()
        .arg("canon")
        .arg(corpus().join("loads"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--in-place"));
}

#[test]
fn canon_check_prints_a_diff_and_fails_only_when_not_canonical() {
    kld()
        .args(["canon", "--check"])
        .arg(corpus().join("loads/karenina-output__probe_dj.jsonld"))
        .assert()
        .success()
        .stdout("");
    let legacy = corpus().join("loads/tests__fixtures__checkpoints__minimal@9cd690d3.jsonld");
    let out = kld()
        .args(["canon", "--check", "-q"])
        .arg(&legacy)
        .assert()
        .code(1);
    let diff = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        diff.contains("+++ ") && diff.contains("(canonical)"),
        "{diff}"
    );
    assert!(
        diff.contains("+    \"@vocab\": \"https://schema.org/\","),
        "{diff}"
    );
}

#[test]
fn canon_in_place_rewrites_atomically_and_is_idempotent() {
    let d = tempfile::tempdir().unwrap();
    let name = "tests__fixtures__checkpoints__multi_question@9cd690d3.jsonld";
    let f = copy_to(d.path(), &corpus().join("loads").join(name));
    kld().args(["canon", "-i", "-q"]).arg(&f).assert().success();
    assert_eq!(
        std::fs::read(&f).unwrap(),
        read_fixture(&data(&format!("expected/{name}")))
    );
    kld().args(["canon", "--check"]).arg(&f).assert().success();
    let entries = std::fs::read_dir(d.path()).unwrap().count();
    assert_eq!(entries, 1, "no temp file left behind");
}

#[test]
fn canon_never_touches_an_invalid_file() {
    let d = tempfile::tempdir().unwrap();
    let f = copy_to(
        d.path(),
        &corpus().join("rejects/src__sample-checkpoint.jsonld"),
    );
    let before = std::fs::read(&f).unwrap();
    kld()
        .args(["canon", "-i"])
        .arg(&f)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not written"));
    assert_eq!(std::fs::read(&f).unwrap(), before);
}

#[test]
fn canon_output_directory_for_a_batch() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    kld()
        .args(["canon", "-q", "-o"])
        .arg(&out)
        .arg(corpus().join("loads"))
        .assert()
        .success();
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 20);
    let name = "example_benchmark.jsonld";
    assert_eq!(
        std::fs::read(out.join(name)).unwrap(),
        read_fixture(&data(&format!("expected/{name}")))
    );
}

#[test]
fn canon_upgrade_and_touch() {
    let old = corpus().join("rejects/example_benchmark@439a051e.jsonld");
    kld()
        .arg("canon")
        .arg(&old)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("KLD-E015"));
    let out = kld()
        .args(["canon", "--upgrade", "-q"])
        .arg(&old)
        .assert()
        .success();
    assert!(
        out.get_output().stdout
            == read_fixture(&data("expected/example_benchmark@439a051e.upgraded.jsonld"))
    );
    let p = corpus().join("loads/karenina-output__dyn.jsonld");
    let out = kld().args(["canon", "--touch"]).arg(&p).assert().success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let stamp = v["dateModified"].as_str().unwrap();
    assert_ne!(stamp, "2026-11-22T01:46:34.880515");
    assert!(
        chrono::NaiveDateTime::parse_from_str(stamp, "%Y-%m-%dT%H:%M:%S%.f").is_ok(),
        "{stamp}"
    );
}

#[test]
fn info_counts_questions_traits_and_keywords() {
    let p = corpus().join("loads/karenina-output__probe_default.jsonld");
    let out = kld()
        .args(["info", "--format", "json"])
        .arg(&p)
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["questions"], 3);
    assert_eq!(v["name"], "Spec Probe");
    let traits = v["traits"].as_array().unwrap();
    let total: u64 = traits.iter().map(|t| t["count"].as_u64().unwrap()).sum();
    let src = std::fs::read_to_string(&p).unwrap();
    assert_eq!(total as usize, src.matches("\"@type\": \"Rating\"").count());
    assert!(traits
        .iter()
        .any(|t| t["family"] == "llm" && t["kind"] == "literal"));
    assert!(traits
        .iter()
        .any(|t| t["scope"] == "question" && t["family"] == "agentic"));
    assert!(!v["keywords"].as_object().unwrap().is_empty());
    kld()
        .arg("info")
        .arg(&p)
        .assert()
        .success()
        .stdout(predicate::str::contains("questions:  3"));
}

#[test]
fn qid_prints_karenina_ids() {
    kld()
        .args(["qid", "What is the capital of France?", "What is 6 multiplied by 7?"])
        .assert()
        .success()
        .stdout("urn:uuid:question-what-is-the-capital-of-france-cb0b4aaf\nurn:uuid:question-what-is-6-multiplied-by-7-aba99ec8\n");
    kld()
        .args(["qid", "--sequence", "--json", "Q?", "Q?"])
        .assert()
        .success()
        .stdout("[\"urn:uuid:question-q-7a48af14\",\"urn:uuid:question-q-7a48af14-1\"]\n");
    kld()
        .args(["qid", "--md5", "Is 17 prime?"])
        .assert()
        .success()
        .stdout("20c3dace73540ab37a66637ea4b8518c\n");
    kld()
        .args(["qid", "-"])
        .write_stdin("What is 6 multiplied by 7?\n")
        .assert()
        .success()
        .stdout("urn:uuid:question-what-is-6-multiplied-by-7-aba99ec8\n");
}

#[test]
fn bad_usage_exits_2() {
    kld().arg("frobnicate").assert().code(2);
    kld()
        .args(["canon", "--check", "--in-place", "x.jsonld"])
        .assert()
        .code(2);
}

#[test]
fn upgrade_stores_json_string_metric_arrays_natively() {
    let d = tempfile::tempdir().unwrap();
    let mut j: serde_json::Value = serde_json::from_slice(&read_fixture(
        &corpus().join("loads/karenina-output__probe_default.jsonld"),
    ))
    .unwrap();
    // Find the question-level metric trait and store its arrays as JSON strings,
    // as Karenina did in 2025-10/11.
    let mut changed = 0;
    for it in j["dataFeedElement"].as_array_mut().unwrap() {
        for r in it["item"]["rating"].as_array_mut().into_iter().flatten() {
            if r["additionalType"]
                .as_str()
                .unwrap()
                .ends_with("MetricRubricTrait")
            {
                for p in r["additionalProperty"].as_array_mut().unwrap() {
                    if matches!(p["name"].as_str(), Some("metrics" | "tp_instructions")) {
                        p["value"] = serde_json::Value::String(p["value"].to_string());
                        changed += 1;
                    }
                }
            }
        }
    }
    assert_eq!(changed, 2);
    let f = d.path().join("old.jsonld");
    std::fs::write(&f, serde_json::to_string_pretty(&j).unwrap()).unwrap();
    kld()
        .arg("validate")
        .arg(&f)
        .assert()
        .success()
        .stderr(predicate::str::contains("KLD-W025"));
    let plain = kld().args(["canon", "-q"]).arg(&f).output().unwrap().stdout;
    assert!(
        String::from_utf8_lossy(&plain).contains("\"value\": \"[\\\""),
        "without --upgrade the strings stay"
    );
    let upgraded = kld()
        .args(["canon", "-q", "--upgrade"])
        .arg(&f)
        .output()
        .unwrap()
        .stdout;
    let original = read_fixture(&corpus().join("loads/karenina-output__probe_default.jsonld"));
    assert!(
        upgraded == original,
        "--upgrade restores the native arrays Karenina writes today"
    );
}

#[cfg(unix)]
#[test]
fn new_files_get_the_umask_s_mode_and_in_place_keeps_the_original_s() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("KLD_SOURCE_ROOT")).join("examples/probe.jsonld");
    let kld = assert_cmd::cargo::cargo_bin("kld");
    let run = |umask: &str, args: &str| {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("umask {umask}; '{}' {args}", kld.display()))
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{args}: {out:?}");
    };
    let s = src.display();
    run("022", &format!("canon '{s}' -o canon.jsonld"));
    run("022", &format!("export '{s}' -f nt -o plain.nt"));
    run("022", &format!("load --store store '{s}'"));
    run("027", &format!("canon '{s}' -o group.jsonld"));
    let mode = |p: &str| {
        std::fs::metadata(dir.path().join(p))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode("canon.jsonld"), 0o644);
    assert_eq!(mode("plain.nt"), 0o644);
    assert_eq!(mode("store/index.tsv"), 0o644);
    for g in std::fs::read_dir(dir.path().join("store/graphs"))
        .unwrap()
        .flatten()
    {
        assert_eq!(g.metadata().unwrap().permissions().mode() & 0o777, 0o644);
    }
    assert_eq!(mode("group.jsonld"), 0o640);
    // --in-place keeps the original's mode, whatever the umask.
    std::fs::copy(&src, dir.path().join("mine.jsonld")).unwrap();
    std::fs::set_permissions(
        dir.path().join("mine.jsonld"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    run("022", "canon --in-place --touch mine.jsonld");
    assert_eq!(mode("mine.jsonld"), 0o600);
}
