//! Every command that takes directories finds its inputs by content and
//! reports each bad input while the batch goes on (issue 26).

use crate::common::*;
use crate::{copy_to, kld};

#[test]
fn hash_finds_checkpoints_by_content_as_validate_does() {
    let d = tempfile::tempdir().unwrap();
    let c = corpus();
    let json = d.path().join("bench.json");
    std::fs::copy(
        c.join("loads/docs__notebooks__test_checkpoint.jsonld"),
        &json,
    )
    .unwrap();
    copy_to(
        d.path(),
        &c.join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld"),
    );
    copy_to(
        d.path(),
        &c.join("results/golden__results_export_full.json"),
    );
    let listed = |cmd: &str| -> Vec<String> {
        let out = kld().arg(cmd).arg(d.path()).output().unwrap();
        assert!(
            out.status.success(),
            "{cmd}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut v: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter_map(|l| l.split(d.path().to_str().unwrap()).nth(1))
            .map(|p| p.split(':').next().unwrap().to_string())
            .collect();
        v.sort();
        v
    };
    let hashed = listed("hash");
    assert_eq!(
        hashed,
        [
            "/bench.json",
            "/tests__fixtures__checkpoints__with_rubrics.jsonld"
        ]
    );
    assert_eq!(listed("validate"), hashed);
    // The duplicate finder of docs/git.md sees a copy saved as *.json.
    std::fs::copy(&json, d.path().join("copy.jsonld")).unwrap();
    let out = kld().arg("hash").arg(d.path()).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let hash_of = |name: &str| {
        text.lines()
            .find(|l| l.ends_with(name))
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(hash_of("/bench.json"), hash_of("/copy.jsonld"));
}

#[test]
fn an_unreadable_database_is_one_reported_input_and_the_batch_goes_on() {
    let d = tempfile::tempdir().unwrap();
    let c = corpus();
    copy_to(
        d.path(),
        &c.join("loads/docs__notebooks__test_checkpoint.jsonld"),
    );
    let db = read_fixture(&data("runs/karenina.db"));
    std::fs::write(d.path().join("db-truncated.db"), &db[..20_000]).unwrap();
    let foreign = rusqlite::Connection::open(d.path().join("foreign.db")).unwrap();
    foreign
        .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        .unwrap();
    drop(foreign);
    for args in [
        vec!["query", "--named", "benchmark-stats"],
        vec!["load", "--store"],
    ] {
        let mut cmd = kld();
        cmd.args(&args);
        if args[0] == "load" {
            cmd.arg(d.path().join("store"));
        }
        let out = cmd.arg(d.path()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        // Each bad database is reported, located, and the rest is done.
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        for f in ["db-truncated.db", "foreign.db"] {
            assert!(
                err.lines()
                    .any(|l| l.contains(f) && l.contains("error[KLD-E202]")),
                "{args:?}: {err}"
            );
        }
        assert!(!err.contains("nothing was run"), "{err}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("docs__notebooks__test_checkpoint.jsonld"),
            "{args:?}: {stdout}"
        );
    }
}

#[test]
fn a_wrong_typed_manifest_field_is_located_with_its_json_path_and_name() {
    let d = tempfile::tempdir().unwrap();
    let src = data("runs/root/completed_20261122T080100Z/run_manifest.json");
    let folder = d.path().join("run");
    std::fs::create_dir(&folder).unwrap();
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(src).unwrap()).unwrap();
    m["selected_question_count"] = "many".into();
    let text = serde_json::to_string_pretty(&m).unwrap();
    std::fs::write(folder.join("run_manifest.json"), &text).unwrap();
    let out = kld().arg("info").arg(&folder).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // The line and column of the value, its JSON path and its name.
    let line = text
        .lines()
        .position(|l| l.contains("\"selected_question_count\""))
        .unwrap()
        + 1;
    assert!(
        err.contains(&format!("run_manifest.json:{line}:"))
            && err.contains("at /selected_question_count:")
            && err.contains("`selected_question_count`: invalid type"),
        "{err}"
    );
}
