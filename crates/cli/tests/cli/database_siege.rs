//! Karenina's results database under siege (issue 48): a database is data,
//! never code. A column the file computes (a generated column) is never
//! evaluated: one Karenina does not know is
//! not read (the real rows load), one kld needs is a located error; and
//! `kld info DB` reports the problems `kld query DB` reports.

use crate::common::*;
use crate::kld;
use std::path::{Path, PathBuf};

fn copy_of(dir: &Path, name: &str) -> PathBuf {
    let f = dir.join(name);
    std::fs::copy(data("runs/karenina.db"), &f).unwrap();
    f
}

/// Runs kld with `args`, to its end: exit code, stderr, stdout, seconds and
/// peak resident memory (MB).
fn measured(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String, f64, f64) {
    let d = tempfile::tempdir().unwrap();
    let (out, err) = (d.path().join("out"), d.path().join("err"));
    let t = std::time::Instant::now();
    // Reaped below by wait4 (which also gives the peak memory).
    #[allow(clippy::zombie_processes)]
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_kld"))
        .args(args)
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: reaps our own child (std's Child is never waited on).
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (
        code,
        std::fs::read_to_string(err).unwrap(),
        std::fs::read_to_string(out).unwrap(),
        t.elapsed().as_secs_f64(),
        usage.ru_maxrss as f64 / 1024.0,
    )
}

fn results_in(db: &Path) -> i64 {
    let c = rusqlite::Connection::open(db).unwrap();
    c.query_row("SELECT COUNT(*) FROM verification_results", [], |r| {
        r.get(0)
    })
    .unwrap()
}

/// `kld info --format json`'s result count over every run.
fn info_results(stdout: &str) -> i64 {
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap();
    v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["results"].as_i64().unwrap())
        .sum()
}

#[test]
fn a_generated_column_is_never_evaluated_and_the_real_rows_load() {
    let d = tempfile::tempdir().unwrap();
    let db = copy_of(d.path(), "hostile.db");
    let want = results_in(&db);
    let c = rusqlite::Connection::open(&db).unwrap();
    // 400 MB a row, 70 rows: evaluated, 3.5 GB and out of memory.
    c.execute_batch(
        "ALTER TABLE verification_results ADD COLUMN boom BLOB
           GENERATED ALWAYS AS (zeroblob(400000000)) VIRTUAL;",
    )
    .unwrap();
    drop(c);
    let (code, err, out, secs, mb) = measured(&[
        "info".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        db.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(secs < 30.0 && mb < 1024.0, "{secs} s, {mb} MB");
    assert_eq!(info_results(&out), want, "the real rows, every one");
    let (code, err, out, secs, mb) = measured(&[
        "query".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "-e".as_ref(),
        "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?r a <urn:karenina:vocab:VerificationResult> } }"
            .as_ref(),
        db.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(secs < 30.0 && mb < 1024.0, "{secs} s, {mb} MB");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["results"]["bindings"][0]["n"]["value"],
        want.to_string(),
        "{out}"
    );
    eprintln!("hostile database: info and query each under {secs:.1} s, {mb:.0} MB");
}

#[test]
fn a_karenina_column_the_file_computes_is_a_located_error() {
    let d = tempfile::tempdir().unwrap();
    let db = copy_of(d.path(), "computed.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(
        "ALTER TABLE verification_runs RENAME COLUMN run_name TO run_name_was;
         ALTER TABLE verification_runs ADD COLUMN run_name TEXT
           GENERATED ALWAYS AS (zeroblob(400000000)) VIRTUAL;",
    )
    .unwrap();
    drop(c);
    for cmd in [&["info"][..], &["query", "-n", "runs"]] {
        let mut args: Vec<&std::ffi::OsStr> = cmd.iter().map(|a| a.as_ref()).collect();
        args.push(db.as_os_str());
        let (code, err, _, secs, mb) = measured(&args);
        assert!(secs < 30.0 && mb < 1024.0, "{cmd:?}: {secs} s, {mb} MB");
        assert_eq!(code, Some(1), "{cmd:?}: {err}");
        assert!(
            err.contains(db.to_str().unwrap())
                && err.contains("KLD-E202")
                && err.contains("verification_runs.run_name")
                && err.contains("kld runs no SQL a database defines"),
            "{cmd:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn info_and_query_report_the_same_problems_of_one_database() {
    let d = tempfile::tempdir().unwrap();
    let db = copy_of(d.path(), "bad.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(
        "PRAGMA foreign_keys = OFF;
         UPDATE verification_results SET rubric_llm_trait_scores = '{\"conciseness\": 4'
           WHERE id = (SELECT MIN(id) FROM verification_results);
         UPDATE verification_results SET template_verify_result = 'maybe'
           WHERE id = (SELECT MAX(id) FROM verification_results);
         DELETE FROM questions WHERE id = (SELECT question_id FROM benchmark_questions
           WHERE benchmark_id = (SELECT MIN(id) FROM benchmarks) LIMIT 1);",
    )
    .unwrap();
    drop(c);
    let problems = |args: &[&str]| -> (Option<i32>, Vec<String>) {
        let out = kld().args(args).arg(&db).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(!err.contains("panicked"), "{err}");
        let mut lines: Vec<String> = err
            .lines()
            .filter(|l| l.contains("error[KLD-E20"))
            .map(str::to_string)
            .collect();
        lines.sort();
        (out.status.code(), lines)
    };
    let (info_code, info) = problems(&["info"]);
    let (query_code, query) = problems(&["query", "-n", "runs"]);
    assert_eq!(info_code, Some(1));
    assert_eq!(query_code, Some(1));
    assert_eq!(
        info, query,
        "kld info and kld query report the same problems"
    );
    let all = info.join("\n");
    for want in [
        "error[KLD-E203] at verification_results row id",
        "column rubric_llm_trait_scores: malformed JSON",
        "column template_verify_result: Input should be a valid boolean",
        "error[KLD-E205]",
    ] {
        assert!(all.contains(want), "{want}: {all}");
    }
}

#[test]
fn a_checkpoint_path_naming_any_file_is_read_never_echoed() {
    // A database names files kld reads: a benchmark's `checkpoint_path`
    // pointing at /etc/passwd is opened and found not to be a checkpoint,
    // and nothing of it is shown. docs/results.md says so.
    let secret = "kld-siege-secret-line:x:0:0";
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("passwd");
    std::fs::write(&target, format!("{secret}:root:/root:/bin/bash\n")).unwrap();
    let db = copy_of(d.path(), "named.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    for path in [Path::new("/etc/passwd"), target.as_path()] {
        c.execute(
            "UPDATE benchmarks SET checkpoint_path = ?1",
            [path.to_str().unwrap()],
        )
        .unwrap();
        for args in [
            &["info"][..],
            &["info", "--format", "json"],
            &["query", "-n", "runs"],
        ] {
            let out = kld().args(args).arg(&db).output().unwrap();
            let all = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(!all.contains("panicked"), "{all}");
            assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?}: {all}");
            assert!(
                !all.contains(secret) && !all.contains("root:x:0:0"),
                "{args:?} echoed the named file: {all}"
            );
            if args.contains(&"json") && out.status.success() {
                // Every real row is still read.
                let stdout = String::from_utf8_lossy(&out.stdout);
                assert_eq!(info_results(&stdout), results_in(&db));
            }
        }
    }
    let doc = std::fs::read_to_string(Path::new(env!("KLD_SOURCE_ROOT")).join("docs/results.md"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        doc.contains("A database also names files that kld reads"),
        "docs/results.md no longer warns that a database names files kld reads"
    );
}
