//! Fits the ecosystem (issue 30): `-` is stdin and `-o -` stdout as ripgrep
//! and jq take them, JSON for scripts, and help texts that show an example
//! and the exit codes. The endpoint's manners: `manners_endpoint.rs`.

use crate::kld;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

pub(crate) fn example(name: &str) -> PathBuf {
    Path::new(env!("KLD_SOURCE_ROOT"))
        .join("examples")
        .join(name)
}

/// The stdout of a command that must succeed.
fn ok_out(cmd: &mut assert_cmd::Command) -> Vec<u8> {
    crate::stdout_of(cmd).into_bytes()
}

fn stdout_of_args(args: &[&str]) -> Vec<u8> {
    ok_out(kld().args(args))
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
        ok_out(kld().current_dir(dir.path()).args(args).write_stdin(stdin))
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
    assert_eq!(run_in(&["extract", "-", "-o", "-"], &bytes), bytes);
    // diff: stdin against the file it was read from is no difference.
    assert_eq!(run_in(&["diff", "-", path], &bytes), b"");
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
            "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }",
            "--timeout",
            "0.5",
            "--format",
            "tsv",
        ])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("time limit"));
    // The same query without the failing part answers, header first.
    let ok = stdout_of_args(&[
        "query",
        file.to_str().unwrap(),
        "-e",
        "SELECT ?x WHERE { BIND(1 AS ?x) }",
        "--format",
        "tsv",
    ]);
    assert_eq!(String::from_utf8(ok).unwrap(), "?x\n1\n");
}

fn json_of(args: &[&str]) -> serde_json::Value {
    serde_json::from_slice(&stdout_of_args(args)).expect("one JSON document")
}

/// `--format json` on hash, load and queries: one JSON document holding what
/// the text lines hold (the schemas of docs/usage.md).
#[test]
fn hash_load_and_queries_print_json_for_scripts() {
    let probe = example("probe.jsonld");
    let notebook = example("notebook.jsonld");
    let (p, n) = (probe.to_str().unwrap(), notebook.to_str().unwrap());

    // hash: the same hashes as the `HASH  FILE` lines.
    let text = String::from_utf8(stdout_of_args(&["hash", p, n])).unwrap();
    let doc = json_of(&["hash", p, n, "--format", "json"]);
    assert_eq!(doc["algorithm"], "RDFC-1.0 SHA-256");
    assert_eq!(doc["reading"], "lossless");
    let from_json: Vec<String> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}  {}",
                f["sha256"].as_str().unwrap(),
                f["file"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(from_json, text.lines().collect::<Vec<_>>());
    assert_eq!(from_json.len(), 2);
    let plain = json_of(&["hash", p, "--plain", "--format", "json"]);
    assert_eq!(plain["reading"], "plain");
    assert_ne!(plain["files"][0]["sha256"], doc["files"][0]["sha256"]);

    // load: the graphs of the GRAPH<TAB>FILE lines, with their kind.
    let dir = tempfile::tempdir().unwrap();
    let (s1, s2) = (dir.path().join("s1"), dir.path().join("s2"));
    let run = example("runs/notebook.verification.json");
    let r = run.to_str().unwrap();
    let lines = String::from_utf8(stdout_of_args(&[
        "load",
        "--store",
        s1.to_str().unwrap(),
        n,
        r,
    ]))
    .unwrap();
    let doc = json_of(&[
        "load",
        "--store",
        s2.to_str().unwrap(),
        n,
        r,
        "--format",
        "json",
    ]);
    assert_eq!(doc["store"], s2.to_str().unwrap());
    let graphs = doc["graphs"].as_array().unwrap();
    let from_json: Vec<String> = graphs
        .iter()
        .map(|g| {
            format!(
                "{}\t{}",
                g["graph"].as_str().unwrap(),
                g["file"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(from_json, lines.lines().collect::<Vec<_>>());
    assert_eq!(graphs[0]["kind"], "checkpoint");
    assert_eq!(graphs[1]["kind"], "results");
    assert!(graphs.iter().all(|g| g["quads"].as_u64().unwrap() > 0));

    // queries: the catalogue's names in order, and one query's text as
    // `kld queries NAME` prints it.
    let listing = String::from_utf8(stdout_of_args(&["queries"])).unwrap();
    let doc = json_of(&["queries", "--format", "json"]);
    let names: Vec<&str> = doc["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["name"].as_str().unwrap())
        .collect();
    let listed: Vec<&str> = listing
        .lines()
        .step_by(2)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(names, listed);
    let one = json_of(&["queries", "benchmark-stats", "--format", "json"]);
    assert_eq!(
        one["text"].as_str().unwrap(),
        String::from_utf8(stdout_of_args(&["queries", "benchmark-stats"])).unwrap()
    );
    assert!(!one["returns"].as_str().unwrap().is_empty());
}

/// `kld push --format json`, with and without --dry-run, against a real
/// Oxigraph server: the plan, then what was done, then nothing left to send.
#[test]
#[ignore = "interop: needs the Oxigraph server (pip oxigraph): cargo test -- --include-ignored"]
fn push_prints_json_with_and_without_dry_run() {
    let dir = tempfile::tempdir().unwrap();
    let o = crate::remote::Oxigraph::start(dir.path());
    let probe = example("probe.jsonld");
    let push_json = |extra: &[&str]| {
        let out = crate::remote::push(&o, &[&["--format", "json"], extra].concat(), &[&probe]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("one JSON document")
    };
    let plan = push_json(&["--dry-run"]);
    assert_eq!(plan["dry_run"], true);
    assert_eq!(plan["sent"], 1);
    assert_eq!(plan["graphs"][0]["action"], "send");
    assert_eq!(plan["graphs"][0]["ok"], serde_json::Value::Null);
    let graph = plan["graphs"][0]["graph"].as_str().unwrap().to_string();
    assert!(graph.starts_with("file://"), "{graph}");

    let done = push_json(&[]);
    assert_eq!(done["dry_run"], false);
    assert_eq!(
        (done["sent"].clone(), done["failed"].clone()),
        (1.into(), 0.into())
    );
    assert_eq!(done["graphs"][0]["graph"], graph.as_str());
    assert_eq!(done["graphs"][0]["ok"], true);

    let again = push_json(&["--dry-run"]);
    assert_eq!(
        (again["sent"].clone(), again["unchanged"].clone()),
        (0.into(), 1.into())
    );
    assert_eq!(again["graphs"][0]["action"], "unchanged");
}

/// The triples of an RDF document, blank nodes as `_`, sorted.
fn commands_of(help: &str) -> Vec<String> {
    help.split("Commands:\n")
        .nth(1)
        .map(|rest| {
            rest.lines()
                .take_while(|l| l.starts_with("  "))
                .filter_map(|l| l.split_whitespace().next())
                .filter(|c| *c != "help")
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// `kld <cmd> --help` for every command and subcommand that `kld --help`
/// lists (walked, not a sample) shows an example of itself and the exit
/// codes, as README.md says.
#[test]
fn every_command_help_has_an_example_and_the_exit_codes() {
    let help = |path: &[String]| {
        let out = kld().args(path).arg("--help").output().unwrap();
        assert!(out.status.success(), "kld {path:?} --help");
        String::from_utf8(out.stdout).unwrap()
    };
    let top = help(&[]);
    let mut todo: Vec<Vec<String>> = commands_of(&top).into_iter().map(|c| vec![c]).collect();
    assert!(todo.len() >= 18, "kld --help lists {todo:?}");
    let mut seen = 0;
    let mut missing = Vec::new();
    while let Some(path) = todo.pop() {
        let text = help(&path);
        seen += 1;
        // The examples (up to the blank line) run the command itself,
        // directly or as the git config line that has git run it.
        let examples = text
            .split("Examples:\n")
            .nth(1)
            .and_then(|e| e.split("\n\n").next())
            .unwrap_or("");
        let invoked = format!("kld {}", path.join(" "));
        let shows_itself = examples.lines().any(|l| {
            l.split(&invoked)
                .nth(1)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\'']))
        });
        if !shows_itself || !text.contains("Exit codes: 0") {
            missing.push(invoked);
        }
        for sub in commands_of(&text) {
            todo.push([path.clone(), vec![sub]].concat());
        }
    }
    assert!(seen >= 23, "walked only {seen} commands (with preset's)");
    assert!(
        missing.is_empty(),
        "no example or no exit codes in the help of {missing:?}"
    );
}

/// An unclosed `(` gets a hint, as docs/usage.md says (the parser alone
/// said "expected one of STRLANGDIR, hasLangDir").
#[test]
fn an_unclosed_bracket_is_hinted() {
    kld()
        .arg("query")
        .arg(example("probe.jsonld"))
        .args([
            "-e",
            "SELECT ?q WHERE { ?q a schema:Question FILTER(?q != 1 }",
        ])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(
            "hint: the `(` at 1:46 is not closed: the `}` at 1:55 comes first (a `)` is missing)",
        ));
}
