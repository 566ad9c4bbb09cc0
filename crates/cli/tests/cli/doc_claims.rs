//! The manual stays true.
//!
//! - Every command example in README.md and docs/*.md (a line starting with
//!   `kld ` in a fenced `sh`/`shell`/`bash`/`console` or unlabelled block) is found by
//!   [`examples_in`], so a new one is picked up without touching this file.
//!   An example runs with `sh` in a scratch directory that holds the bundled
//!   examples under the names the manual uses ([`scratch`]) and must exit 0,
//!   unless [`EXCEPTIONS`] says otherwise and why. Examples that name a
//!   server (`--server oxigraph http://localhost:7878`) run against a real
//!   `oxigraph serve` on loopback in the interop tier; `kld serve` examples
//!   are started on a free port, asked `ASK {}`, and stopped by PID.
//! - A synopsis line (`kld validate FILE|DIR... [--format text|json]`) is not
//!   run: every `--flag` it shows must be in that command's `--help`.
//! - docs/serving.md's statuses and limits: `serving_claims.rs`.
//! - The checker itself fails on a tiny fake manual whose example or flag is
//!   not true ([`a_false_example_or_flag_in_a_manual_is_reported`]).

use crate::common::*;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One command example of the manual.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Example {
    /// The document, relative to the repository (`docs/usage.md`).
    pub(crate) doc: String,
    /// Its 1-based line.
    pub(crate) line: usize,
    /// The command line, continuation lines joined.
    pub(crate) command: String,
}

impl std::fmt::Display for Example {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.doc, self.line, self.command)
    }
}

/// Every `kld …` line in the fenced shell blocks of `text`.
pub(crate) fn examples_in(doc: &str, text: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut fence: Option<(String, bool)> = None;
    let mut pending: Option<Example> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_start();
        if let Some(marker) = ["```", "~~~"].iter().find(|m| line.starts_with(**m)) {
            match &fence {
                Some((open, _)) if line.starts_with(open.as_str()) => fence = None,
                Some(_) => {}
                None => {
                    let info = line.trim_start_matches(marker.chars().next().unwrap());
                    let lang = info.split_whitespace().next().unwrap_or("");
                    // An unlabelled fence holding `kld` lines is shell too
                    // (docs/interop.md's synopses).
                    let shell = matches!(lang, "" | "sh" | "shell" | "bash" | "console");
                    fence = Some((marker.to_string(), shell));
                }
            }
            continue;
        }
        if !matches!(fence, Some((_, true))) {
            continue;
        }
        if let Some(mut p) = pending.take() {
            p.command.push(' ');
            p.command.push_str(line.trim_end_matches('\\').trim());
            if line.ends_with('\\') {
                pending = Some(p);
            } else {
                out.push(p);
            }
            continue;
        }
        let cmd = line.strip_prefix("$ ").unwrap_or(line);
        if cmd.starts_with("kld ") {
            let e = Example {
                doc: doc.to_string(),
                line: i + 1,
                command: cmd.trim_end_matches('\\').trim().to_string(),
            };
            if cmd.ends_with('\\') {
                pending = Some(e);
            } else {
                out.push(e);
            }
        }
    }
    out
}

/// The words of a command line outside quotes, up to a `#` comment; a word
/// that was quoted comes back with its quote mark first (`'…`), so that
/// metavariable and bracket checks skip it.
fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    for c in cmd.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                if cur.is_empty() {
                    cur.push(c);
                }
                quote = Some(c);
            }
            None if c.is_whitespace() => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            None if c == '#' && cur.is_empty() => break,
            None => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A usage line rather than an example: it shows metavariables (`FILE`,
/// `DIR...`, `A B`), alternatives (`|`), optional parts (`[…]`) or an
/// ellipsis (`…`) outside quotes.
fn is_synopsis(cmd: &str) -> bool {
    words(cmd).iter().skip(1).any(|w| {
        if w.starts_with(['\'', '"']) {
            return false;
        }
        let head = w.trim_end_matches("...").trim_end_matches('…');
        let meta = head.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && head
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || "_.-".contains(c));
        meta || w.contains(['|', '[', ']', '(', ')']) || w == "…"
    })
}

/// The command path of a line (`preset list`): leading plain words that
/// `kld` knows as (sub)commands.
fn command_path(cmd: &str) -> Vec<String> {
    let mut path: Vec<String> = Vec::new();
    for w in words(cmd).into_iter().skip(1) {
        if w.starts_with('-') || !w.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
            break;
        }
        let mut next = path.clone();
        next.push(w);
        let out = crate::kld().args(&next).arg("--help").output().unwrap();
        let usage = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() || !usage.contains(&format!("kld {}", next.join(" "))) {
            break;
        }
        path = next;
    }
    path
}

/// Flags a synopsis shows that its command's `--help` does not list.
fn unknown_flags(cmd: &str) -> Vec<String> {
    let path = command_path(cmd);
    let help = crate::stdout_of(crate::kld().args(&path).arg("--help"));
    words(cmd)
        .iter()
        .filter(|w| !w.starts_with(['\'', '"']))
        .flat_map(|w| {
            w.split(['[', ']', '(', ')', '|', '='])
                .filter(|f| f.starts_with("--") && f.len() > 2)
                .map(|f| f.trim_end_matches("...").to_string())
                .collect::<Vec<_>>()
        })
        .filter(|f| !help.contains(&format!("{f} ")) && !help.contains(&format!("{f}\n")))
        .collect()
}

/// What an example is expected to do when it is not "exit 0".
#[derive(Clone, Copy, Debug)]
pub(crate) enum Outcome {
    /// Exits with this code (the manual says so).
    Exit(i32),
}

/// Examples that do not simply exit 0 in the scratch directory: (document,
/// the start of the command, outcome, why).
pub(crate) const EXCEPTIONS: &[(&str, &str, Outcome, &str)] = &[(
    "README.md",
    "kld diff old.jsonld new.jsonld",
    Outcome::Exit(1),
    "the scratch directory's new.jsonld changes an answer, and diff exits 1 when benchmarks differ (its comment and docs/usage.md say so)",
)];

fn exception(e: &Example) -> Option<(Outcome, &'static str)> {
    EXCEPTIONS
        .iter()
        .find(|(doc, start, _, _)| *doc == e.doc && e.command.starts_with(start))
        .map(|(_, _, o, why)| (*o, *why))
}

/// A scratch directory holding what the manual's examples name, made from
/// the bundled examples (and the corpus's presets and one CSV export):
/// `examples/`, `benchmarks/bench.jsonld`, `bench.jsonld`, `old.jsonld` and
/// `new.jsonld` (one answer changed), `runs/` (the notebook's run under the
/// file names docs/results.md uses), `presets/`, `config.json`, and a `home/`
/// for `~`.
pub(crate) fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let repo = Path::new(env!("KLD_SOURCE_ROOT"));
    copy_tree(&repo.join("examples"), &d.join("examples"));
    let notebook = repo.join("examples/notebook.jsonld");
    for (to, from) in [
        ("benchmarks/bench.jsonld", &notebook),
        ("bench.jsonld", &notebook),
        ("old.jsonld", &notebook),
    ] {
        std::fs::create_dir_all(d.join(to).parent().unwrap()).unwrap();
        std::fs::copy(from, d.join(to)).unwrap();
    }
    let text = std::fs::read_to_string(&notebook).unwrap();
    let changed = text.replacen("\"text\": \"Paris\"", "\"text\": \"Lyon\"", 1);
    assert_ne!(changed, text, "examples/notebook.jsonld answers Paris");
    std::fs::write(d.join("new.jsonld"), changed).unwrap();
    let run = "runs/verification_results_20261122_103510_langchain_gpt-4.1-mini_to_langchain_gpt-4.1-nano";
    std::fs::create_dir_all(d.join("runs")).unwrap();
    std::fs::copy(
        repo.join("examples/runs/notebook.verification.json"),
        d.join(format!("{run}.json")),
    )
    .unwrap();
    std::fs::copy(
        corpus().join("results/res-docs__notebooks__test_checkpoint.full.csv"),
        d.join(format!("{run}.csv")),
    )
    .unwrap();
    std::fs::create_dir_all(d.join("presets")).unwrap();
    for p in corpus_files("presets") {
        std::fs::copy(&p, d.join("presets").join(p.file_name().unwrap())).unwrap();
    }
    let preset: serde_json::Value = serde_json::from_slice(&read_fixture(
        &corpus().join("presets/karenina-output__preset__my-test-config.json"),
    ))
    .unwrap();
    std::fs::write(
        d.join("config.json"),
        serde_json::to_string_pretty(&preset["config"]).unwrap(),
    )
    .unwrap();
    for sub in ["bash-completion/completions", "man/man1"] {
        std::fs::create_dir_all(d.join("home/.local/share").join(sub)).unwrap();
    }
    dir
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_tree(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// `sh -c CMD` in `dir` with `kld` on the PATH and `HOME` in the scratch
/// directory, killed by PID past 120 s.
fn shell(dir: &Path, cmd: &str) -> Command {
    let kld = assert_cmd::cargo::cargo_bin("kld");
    let path = format!(
        "{}:{}",
        kld.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .env("PATH", path)
        .env("HOME", dir.join("home"))
        .env_remove("KARENINA_PRESETS_DIR")
        .stdin(Stdio::null());
    c
}

/// Runs `cmd`; its exit code and stderr, or why it has none.
fn run_bounded(dir: &Path, cmd: &str) -> Result<(i32, String), String> {
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut child = shell(dir, cmd)
        .stdout(Stdio::null())
        .stderr(log.reopen().unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            let err = std::fs::read_to_string(log.path()).unwrap_or_default();
            return st
                .code()
                .map(|c| (c, err))
                .ok_or_else(|| "killed by a signal".into());
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            return Err("still running after 120 s".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Starts a `kld serve` example on a free port (`--bind 127.0.0.1:0` added),
/// asks its endpoint `ASK {}`, and stops it by PID.
fn probe_serve(dir: &Path, cmd: &str) -> Result<(), String> {
    let cmd = cmd.replacen("kld serve", "exec kld serve --bind 127.0.0.1:0", 1);
    let log = tempfile::NamedTempFile::new().unwrap();
    let child = shell(dir, &cmd)
        .stdout(Stdio::null())
        .stderr(log.reopen().unwrap())
        .spawn()
        .unwrap();
    let _guard = ServerGuard(child);
    let start = Instant::now();
    let base = loop {
        let text = std::fs::read_to_string(log.path()).unwrap_or_default();
        if let Some(port) = crate::common::announced_port(&text) {
            break format!("http://127.0.0.1:{port}");
        }
        if start.elapsed() > Duration::from_secs(60) {
            return Err(format!("did not start: {text}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let r = reqwest::blocking::get(format!("{base}/sparql?query=ASK%7B%7D"))
        .map_err(|e| e.to_string())?;
    if r.status() != 200 {
        return Err(format!("ASK answered {}", r.status()));
    }
    Ok(())
}

/// What a server example is run against: `http://localhost:7878` becomes the
/// test's Oxigraph server, and the elided graph `file:///…/bench.jsonld` the
/// file URL `kld push` gave `benchmarks/bench.jsonld`.
fn for_server(cmd: &str, dir: &Path, oxigraph: &str) -> String {
    let graph_dir = format!(
        "file://{}/benchmarks/",
        dir.canonicalize().unwrap().display()
    );
    cmd.replace("http://localhost:7878", oxigraph)
        .replace("file:///…/", &graph_dir)
}

fn needs_server(cmd: &str) -> bool {
    cmd.contains("--server ") || cmd.contains("--endpoint ")
}

/// What [`check`] did: examples run (or served), synopses checked, and the
/// failures, one line each.
#[derive(Debug, Default)]
pub(crate) struct Checked {
    pub(crate) ran: Vec<String>,
    pub(crate) synopses: usize,
    pub(crate) failures: Vec<String>,
}

/// Runs the examples of one document in order in one scratch directory
/// (later examples use what earlier ones made: a store, a push).
pub(crate) fn check(examples: &[Example], oxigraph: Option<&str>) -> Checked {
    let dir = scratch();
    let mut done = Checked::default();
    let failures = &mut done.failures;
    for e in examples {
        let synopsis = is_synopsis(&e.command);
        if synopsis {
            done.synopses += 1;
            let unknown = unknown_flags(&e.command);
            if !unknown.is_empty() {
                failures.push(format!("{e}: `--help` does not list {unknown:?}"));
            }
            continue;
        }
        if needs_server(&e.command) != oxigraph.is_some() {
            continue;
        }
        let expected = match exception(e) {
            Some((Outcome::Exit(c), _)) => c,
            None => 0,
        };
        let cmd = match oxigraph {
            Some(base) => for_server(&e.command, dir.path(), base),
            None => e.command.clone(),
        };
        done.ran.push(cmd.clone());
        if cmd.starts_with("kld serve") {
            if let Err(why) = probe_serve(dir.path(), &cmd) {
                failures.push(format!("{e}: {why}"));
            }
            continue;
        }
        match run_bounded(dir.path(), &cmd) {
            Ok((c, _)) if c == expected => {}
            Ok((c, err)) => failures.push(format!("{e}: exit {c}, expected {expected}: {err}")),
            Err(why) => failures.push(format!("{e}: {why}")),
        }
    }
    done
}

/// README.md and docs/*.md, with their examples.
fn manual() -> Vec<(String, Vec<Example>)> {
    let repo = Path::new(env!("KLD_SOURCE_ROOT"));
    let mut docs = files_in(&repo.join("docs"), "md");
    docs.insert(0, repo.join("README.md"));
    docs.iter()
        .map(|p| {
            let rel = p.strip_prefix(repo).unwrap().display().to_string();
            let ex = examples_in(&rel, &std::fs::read_to_string(p).unwrap());
            (rel, ex)
        })
        .collect()
}

#[test]
fn every_example_of_the_manual_runs_and_every_synopsis_flag_exists() {
    let manual = manual();
    let total: usize = manual.iter().map(|(_, e)| e.len()).sum();
    assert!(total >= 60, "found only {total} examples");
    let (mut failures, mut ran, mut synopses) = (Vec::new(), 0, 0);
    for (_, examples) in &manual {
        let done = check(examples, None);
        ran += done.ran.len();
        synopses += done.synopses;
        failures.extend(done.failures);
    }
    eprintln!("{ran} examples run, {synopses} synopses checked");
    assert!(
        ran >= 30 && synopses >= 25,
        "{ran} run, {synopses} synopses"
    );
    // Every exception still names an example of the manual.
    for (doc, start, _, _) in EXCEPTIONS {
        assert!(
            manual
                .iter()
                .any(|(d, ex)| d == doc && ex.iter().any(|e| e.command.starts_with(start))),
            "stale exception: {doc}: {start}"
        );
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
#[ignore = "interop: needs the Oxigraph server (pip oxigraph): cargo test -- --include-ignored"]
fn every_server_example_of_the_manual_runs_against_oxigraph() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for (_, examples) in manual() {
        let server: Vec<Example> = examples
            .into_iter()
            .filter(|e| needs_server(&e.command) && !is_synopsis(&e.command))
            .collect();
        if server.is_empty() {
            continue;
        }
        ran += server.len();
        let db = tempfile::tempdir().unwrap();
        let port = free_port();
        let _oxigraph = oxigraph_server(db.path(), port);
        assert!(wait_for_port(port, Duration::from_secs(30)));
        let done = check(&server, Some(&format!("http://127.0.0.1:{port}")));
        assert_eq!(done.ran.len(), server.len(), "{:?}", done.ran);
        failures.extend(done.failures);
    }
    assert!(ran >= 6, "only {ran} server examples");
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn a_false_example_or_flag_in_a_manual_is_reported() {
    let fake = "# Fake\n\n```sh\nkld qid 'What is the capital of France?'\n\
                kld info no-such-file.jsonld     # says what it holds\n\
                kld hash FILE... [--format text|json] [--no-such-flag]\n```\n\n\
                ```text\nkld info not-a-shell-block.jsonld\n```\n";
    let examples = examples_in("fake.md", fake);
    assert_eq!(
        examples.iter().map(|e| e.line).collect::<Vec<_>>(),
        [4, 5, 6],
        "{examples:?}"
    );
    let done = check(&examples, None);
    assert_eq!(done.ran.len(), 2);
    assert_eq!(done.synopses, 1);
    let failures = done.failures;
    assert_eq!(failures.len(), 2, "{failures:#?}");
    assert!(
        failures[0].starts_with("fake.md:5: kld info no-such-file.jsonld"),
        "{failures:?}"
    );
    assert!(failures[1].contains("[\"--no-such-flag\"]"), "{failures:?}");
    // A new example added to a document is picked up, continuation and all.
    let more = fake.replace(
        "```\n\n```text",
        "kld validate \\\n  examples/\n```\n\n```text",
    );
    let examples = examples_in("fake.md", &more);
    assert_eq!(examples.len(), 4);
    assert_eq!(examples[3].command, "kld validate examples/");
    let done = check(&examples[3..], None);
    assert!(done.failures.is_empty() && done.ran.len() == 1, "{done:?}");
}
