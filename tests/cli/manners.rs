//! Fits the ecosystem (issue 30): `-` is stdin and `-o -` stdout as ripgrep
//! and jq take them, JSON for scripts, the endpoint's service description
//! and charsets, and help texts that show an example and the exit codes.

use crate::kld;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

fn stdout_with_stdin(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let out = kld().args(args).write_stdin(stdin).output().unwrap();
    assert!(
        out.status.success(),
        "kld {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn stdout_of_args(args: &[&str]) -> Vec<u8> {
    let out = kld().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "kld {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `-` reads stdin and `-o -` writes stdout in every command that reads or
/// writes a file: the same answer as with the file named, no file named `-`.
#[test]
fn dash_is_stdin_and_dash_o_is_stdout() {
    let file = example("probe.jsonld");
    let path = file.to_str().unwrap();
    let bytes = std::fs::read(&file).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run_in = |args: &[&str], stdin: &[u8]| {
        let out = kld()
            .current_dir(dir.path())
            .args(args)
            .write_stdin(stdin)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "kld {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };

    // canon: stdin to stdout is the file's canonical bytes (it is canonical).
    assert_eq!(run_in(&["canon", "-", "-o", "-"], &bytes), bytes);
    // validate, info, hash: the same verdicts as with the file named.
    let v = String::from_utf8(run_in(&["validate", "-"], &bytes)).unwrap();
    assert_eq!(v, "-: ok (0 errors, 0 warnings)\n");
    assert_eq!(
        run_in(&["info", "-", "--format", "json"], &bytes),
        stdout_of_args(&["info", path, "--format", "json"])
    );
    let h = String::from_utf8(run_in(&["hash", "-"], &bytes)).unwrap();
    let named = String::from_utf8(stdout_of_args(&["hash", path])).unwrap();
    assert_eq!(
        h.split_whitespace().next(),
        named.split_whitespace().next(),
        "{h} vs {named}"
    );
    assert!(h.trim_end().ends_with("  -"), "{h}");
    // export and extract: -o - is stdout.
    // Triples (no graph name): the same, up to blank node labels.
    let ground = |nt: Vec<u8>| {
        let text = String::from_utf8(nt).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let n = lines.len();
        lines.retain(|l| !l.contains("_:"));
        lines.sort();
        (n, lines)
    };
    let from_stdin = ground(run_in(&["export", "-", "-f", "nt", "-o", "-"], &bytes));
    assert!(from_stdin.0 > 50, "{from_stdin:?}");
    assert_eq!(
        from_stdin,
        ground(stdout_of_args(&["export", path, "-f", "nt"]))
    );
    assert_eq!(run_in(&["extract", path, "-o", "-"], b""), bytes);
    // query: stdin as the checkpoint, -o - as the answer.
    let q = String::from_utf8(run_in(
        &[
            "query",
            "-",
            "-n",
            "benchmark-stats",
            "-o",
            "-",
            "--format",
            "csv",
        ],
        &bytes,
    ))
    .unwrap();
    assert!(q.contains("Spec Probe"), "{q}");
    // No command wrote a file named `-`.
    assert!(!dir.path().join("-").exists(), "a file named - was written");

    // A results export on stdin is told by its content, as a named one.
    let run = std::fs::read(example("runs/notebook.verification.json")).unwrap();
    assert_eq!(
        run_in(&["info", "-", "--format", "json"], &run),
        stdout_of_args(&[
            "info",
            example("runs/notebook.verification.json").to_str().unwrap(),
            "--format",
            "json"
        ])
    );

    // Bad input on stdin is located as `-`.
    kld()
        .args(["validate", "-"])
        .write_stdin("{bad")
        .assert()
        .code(1)
        .stdout("-: INVALID (1 error, 0 warnings)\n")
        .stderr(predicate::str::starts_with("-:1:2: error[KLD-E004]"));
}

/// A query that fails while it runs writes nothing on stdout (its TSV
/// header came before the error).
#[test]
fn a_failing_query_writes_no_partial_output() {
    let file = example("probe.jsonld");
    kld()
        .arg("query")
        .arg(&file)
        .args([
            "-e",
            "SELECT ?x WHERE { { BIND(1 AS ?x) } UNION { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } } }",
            "--format",
            "tsv",
        ])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("service"));
    // The same query without the failing part answers, header first.
    let ok = stdout_with_stdin(
        &[
            "query",
            file.to_str().unwrap(),
            "-e",
            "SELECT ?x WHERE { BIND(1 AS ?x) }",
            "--format",
            "tsv",
        ],
        b"",
    );
    assert_eq!(String::from_utf8(ok).unwrap(), "?x\n1\n");
}
