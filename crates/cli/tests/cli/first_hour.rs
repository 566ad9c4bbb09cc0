//! The first hour of a new user (issue 19): reads that never write, inputs
//! that are missing or of the wrong kind told in one line, no partial output.

use crate::common::*;
use crate::{kld, stdout_of};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn examples() -> PathBuf {
    Path::new(env!("KLD_SOURCE_ROOT")).join("examples")
}

/// Every file under `dir` with its bytes, sorted.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(snapshot(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn only_load_writes_a_store_and_a_missing_store_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nostore");
    kld()
        .args(["query", "--store"])
        .arg(&missing)
        .args(["--named", "graphs"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            predicate::str::contains("not a kld store")
                .and(predicate::str::contains("kld load --store")),
        );
    assert!(!missing.exists(), "a read created the store directory");
    // A plain directory is not a store either, and stays as it was.
    let plain = dir.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    for cmd in [
        &["query", "--named", "graphs"][..],
        &["export", "-f", "nq"][..],
    ] {
        kld().args(cmd).arg("--store").arg(&plain).assert().code(2);
    }
    assert!(
        std::fs::read_dir(&plain).unwrap().next().is_none(),
        "files written into a plain directory"
    );
    // A real store: a query with a file beside it loads the file in memory
    // only; the store's files are byte for byte as before.
    let store = dir.path().join("store");
    run_ok(
        std::process::Command::new(assert_cmd::cargo::cargo_bin("kld"))
            .args(["load", "--store"])
            .arg(&store)
            .arg(examples().join("probe.jsonld")),
    );
    let before = snapshot(&store);
    let out = stdout_of(
        kld()
            .args(["query", "--format", "tsv", "--named", "graphs", "--store"])
            .arg(&store)
            .arg(examples().join("notebook.jsonld")),
    );
    assert!(
        out.contains("notebook.jsonld") && out.contains("probe.jsonld"),
        "{out}"
    );
    assert_eq!(snapshot(&store), before, "kld query changed the store");
    let out = stdout_of(
        kld()
            .args(["query", "--format", "tsv", "--named", "graphs", "--store"])
            .arg(&store),
    );
    assert!(
        !out.contains("notebook.jsonld"),
        "the file beside --store stayed in the store: {out}"
    );
}

#[test]
fn missing_or_empty_inputs_stop_before_any_output() {
    let dir = tempfile::tempdir().unwrap();
    kld()
        .args(["query", "exampels/", "--named", "benchmark-stats"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("exampels/"));
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    kld()
        .arg("query")
        .arg(&empty)
        .args(["--named", "benchmark-stats"])
        .assert()
        .code(2)
        .stdout("");
    kld()
        .arg("validate")
        .arg(&empty)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no checkpoints"));
    kld()
        .args(["canon", "--check"])
        .arg(examples().join("runs"))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("no checkpoints")
                .and(predicate::str::contains("2 results exports")),
        );
}

#[test]
fn files_are_told_by_content_whatever_their_extension() {
    let dir = tempfile::tempdir().unwrap();
    // A checkpoint named .json in a directory is loaded; a results summary
    // and a preset beside it are neither loaded nor reported as broken.
    std::fs::copy(
        examples().join("probe.jsonld"),
        dir.path().join("probe.json"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("run.expect.json"),
        r#"{"questions": 3, "format_version_seen": "2.2"}"#,
    )
    .unwrap();
    std::fs::copy(
        corpus().join("presets/karenina-output__preset__my-test-config.json"),
        dir.path().join("preset.json"),
    )
    .unwrap();
    let out = stdout_of(
        kld()
            .args(["query", "--format", "tsv", "--named", "graphs"])
            .arg(dir.path()),
    );
    assert!(out.contains("probe.json"), "{out}");
    assert_eq!(out.lines().count(), 2, "{out}");
    kld()
        .arg("validate")
        .arg(dir.path())
        .assert()
        .success()
        .stderr("");
    // -v says what was skipped and why.
    kld()
        .args(["validate", "-v"])
        .arg(dir.path())
        .assert()
        .success()
        .stderr(
            predicate::str::contains("preset.json: a verification preset").and(
                predicate::str::contains("run.expect.json: not a Karenina file"),
            ),
        );
    // Named files of the wrong kind: one line saying what it is and which
    // command reads it.
    let results = examples().join("runs/notebook.verification.json");
    for cmd in ["canon", "validate"] {
        let out = kld().arg(cmd).arg(&results).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{cmd}: {err}");
        assert!(
            err.contains("is a results export: kld info and kld query read it"),
            "{err}"
        );
    }
    kld()
        .arg("info")
        .arg(dir.path().join("preset.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a verification preset"));
    kld().arg("info").arg(examples()).assert().code(2).stderr(
        predicate::str::contains("is a directory").and(predicate::str::contains("os error").not()),
    );
    kld()
        .arg("query")
        .arg(dir.path().join("preset.json"))
        .args(["--named", "graphs"])
        .assert()
        .code(2)
        .stdout("");
}

#[test]
fn every_command_s_output_can_be_cut_short_by_head() {
    for args in [
        vec!["queries".to_string()],
        vec![
            "export".into(),
            examples().display().to_string(),
            "-f".into(),
            "nq".into(),
        ],
        vec!["man".into()],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let err = dir.path().join("err");
        let cmd = format!(
            "set -o pipefail; '{}' {} 2>'{}' | head -1 >/dev/null",
            assert_cmd::cargo::cargo_bin("kld").display(),
            args.iter()
                .map(|a| format!("'{a}'"))
                .collect::<Vec<_>>()
                .join(" "),
            err.display()
        );
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(&cmd)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        assert_eq!(std::fs::read_to_string(&err).unwrap(), "", "{args:?}");
    }
}

#[test]
fn the_examples_pass_the_project_s_own_hooks() {
    kld()
        .args(["canon", "--check"])
        .arg(examples())
        .assert()
        .success();
    kld()
        .args(["validate", "--deny-warnings"])
        .arg(examples())
        .assert()
        .success();
}

#[test]
fn the_server_logs_why_it_refused_and_a_results_graph_is_no_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("serve.log");
    let s = crate::serve::serve_logged(&[examples()], &[], Some(&log));
    let c = crate::serve::client();
    let r = c
        .get(format!("{}/sparql?query=ASK%7B%7D", s.base))
        .header("Accept", "image/png")
        .send()
        .unwrap();
    assert_eq!(r.status(), 406);
    let run = examples()
        .join("runs/notebook.verification.json")
        .canonicalize()
        .unwrap();
    let r = c
        .get(format!("{}/checkpoint", s.base))
        .query(&[("graph", run.display().to_string())])
        .send()
        .unwrap();
    assert_eq!(r.status(), 400);
    assert!(r.text().unwrap().contains("results export"));
    std::thread::sleep(std::time::Duration::from_millis(300));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("GET /sparql 406 ") && l.contains("cannot answer")),
        "{text}"
    );
}

/// The second walk (issue 20): hash and diff tell a results export in one
/// line as validate and canon do (they printed five KLD-E011 errors), and the
/// hints name flags the command has.
#[test]
fn hash_and_diff_name_a_results_export_and_hints_name_real_flags() {
    let run = examples().join("runs/notebook.verification.json");
    let cp = examples().join("notebook.jsonld");
    for args in [vec!["hash"], vec!["diff"]] {
        let mut c = kld();
        c.args(&args).arg(&run);
        if args[0] == "diff" {
            c.arg(&cp);
        }
        let out = c.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("is a results export"), "{args:?}: {err}");
        assert!(!err.contains("KLD-E011"), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
    // A format that does not fit the query form: the hint names --format,
    // which `kld query` has (it has no -f).
    let out = kld()
        .args(["query"])
        .arg(examples())
        .args(["-e", "CONSTRUCT WHERE { ?s ?p ?o }", "--format", "csv"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("CONSTRUCT answers in") && err.contains("--format"),
        "{err}"
    );
    // Several graphs in a one-graph format: the advice is given once.
    let out = kld()
        .args(["export", "-f", "ttl"])
        .arg(examples())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.matches("merge them").count(), 1, "{err}");
    assert!(err.contains("--union"), "{err}");
    // A missing presets directory names the ways to give one.
    let d = tempfile::tempdir().unwrap();
    kld()
        .current_dir(d.path())
        .env_remove("KARENINA_PRESETS_DIR")
        .args(["preset", "list"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("--dir").and(predicate::str::contains("KARENINA_PRESETS_DIR")),
        );
}

/// `kld man` holds a page for kld and one for each command (the top page
/// refers to `kld-query(1)` and the others).
#[test]
fn the_man_page_has_every_command() {
    let roff = stdout_of(kld().arg("man"));
    let help = stdout_of(kld().arg("--help"));
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() > 10, "{commands:?}");
    for c in &commands {
        assert!(roff.contains(&format!(".TH kld-{c} 1")), "no page for {c}");
    }
    assert_eq!(roff.matches(".TH ").count(), commands.len() + 1);
}

/// `kld info` of an export without run names says so rather than printing
/// an empty `runs:` line.
#[test]
fn info_of_an_export_without_run_names_says_so() {
    let csv = corpus().join("results/golden__results_export_full.csv");
    let out = stdout_of(kld().arg("info").arg(&csv));
    let runs = out.lines().find(|l| l.starts_with("runs:")).unwrap();
    assert!(runs.trim_end().len() > "runs:".len(), "{out}");
    assert!(runs.contains("no run name"), "{runs}");
}
