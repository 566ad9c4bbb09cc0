//! Names from the data reach the terminal escaped on every command (issue
//! 38, "Terminal safety"): `kld git-merge` messages (question IDs, paths),
//! `kld info` on results exports, run folders and databases (model, run
//! and benchmark names), `validate`'s summary line, `load`'s and `hash`'s
//! lines and every message on stderr go through the escaping helper the
//! checkpoint names already use (`karenina_ld::terminal`).

use crate::kld;
use crate::manners::example;
use std::path::{Path, PathBuf};

/// An OSC 52 clipboard write and a screen clear, as hostile data holds them.
const HOSTILE: &str = "\u{1b}]52;c;aGk=\u{7}\u{1b}[2J";
/// How it is shown once escaped.
const SHOWN: &str = "\\x1b]52;c;aGk=\\x07\\x1b[2J";
/// Hostile characters a file name can hold and a file:// IRI takes (no
/// brackets): a terminal reset, a bell and a C1 control sequence.
const IN_NAME: &str = "\u{1b}c\u{7}\u{9b}K";
/// How that is shown once escaped.
const NAME_SHOWN: &str = "\\x1bc\\x07\\u{9b}K";

fn unsafe_chars(s: &str) -> usize {
    s.chars()
        .filter(|c| karenina_ld::terminal::is_unsafe(*c))
        .count()
}

/// Runs kld; returns (exit code, stdout, stderr), all three checked to
/// hold no character a terminal acts on.
fn run(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let out = kld()
        .args(args)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert_eq!(unsafe_chars(&o), 0, "{args:?} stdout: {o:?}");
    assert_eq!(unsafe_chars(&e), 0, "{args:?} stderr: {e:?}");
    assert!(!e.contains("panicked"), "{e}");
    (out.status.code().unwrap(), o, e)
}

fn os<S: AsRef<std::ffi::OsStr> + ?Sized>(s: &S) -> &std::ffi::OsStr {
    s.as_ref()
}

/// `src`'s text with every `from` replaced by `to` (JSON-escaped: the
/// control characters are written as `\u001b` in the file).
fn rewrite(src: &Path, dst: &Path, from: &str, to: &str) {
    let json_to = serde_json::to_string(to).unwrap();
    let json_to = json_to.trim_matches('"');
    let text = std::fs::read_to_string(src).unwrap();
    assert!(text.contains(from), "{from} not in {}", src.display());
    std::fs::write(dst, text.replace(from, json_to)).unwrap();
}

#[test]
fn file_names_in_validate_hash_load_and_error_lines_are_escaped() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join(format!("bench{IN_NAME}.jsonld"));
    std::fs::copy(example("probe.jsonld"), &file).unwrap();
    let other = d.path().join("other.jsonld");
    std::fs::copy(example("probe.jsonld"), &other).unwrap();
    // validate: the summary line of each file.
    let (code, out, _) = run(&[os("validate"), os(&file), os(&other)]);
    assert_eq!(code, 0);
    assert!(
        out.contains(&format!("bench{NAME_SHOWN}.jsonld: ok")),
        "{out}"
    );
    // hash and load name the file.
    let (_, out, _) = run(&[os("hash"), os(&file)]);
    assert!(out.contains(NAME_SHOWN), "{out}");
    let store = d.path().join("store");
    let (code, out, _) = run(&[os("load"), os("--store"), os(&store), os(&file)]);
    assert_eq!(code, 0);
    assert!(out.contains(NAME_SHOWN), "{out}");
    // A file that does not read: its name in the error.
    let broken = d.path().join(format!("broken{IN_NAME}.jsonld"));
    std::fs::write(&broken, b"{").unwrap();
    let (code, _, err) = run(&[os("validate"), os(&broken)]);
    assert_eq!(code, 1);
    assert!(err.contains(NAME_SHOWN), "{err}");
    // A missing one (an I/O error through anyhow).
    let missing = d.path().join(format!("missing{IN_NAME}.jsonld"));
    let (code, _, err) = run(&[os("info"), os(&missing)]);
    assert_eq!(code, 2);
    assert!(err.contains(NAME_SHOWN), "{err}");
}

#[test]
fn model_and_run_names_of_a_results_export_are_escaped_by_info() {
    let d = tempfile::tempdir().unwrap();
    let export = d.path().join("r.verification.json");
    let src = example("runs/notebook.verification.json");
    rewrite(&src, &export, "gpt-4.1-mini", &format!("gpt{HOSTILE}"));
    let text = std::fs::read_to_string(&export).unwrap();
    std::fs::write(
        &export,
        text.replace(
            "cli-verification",
            serde_json::to_string(&format!("run{HOSTILE}"))
                .unwrap()
                .trim_matches('"'),
        ),
    )
    .unwrap();
    let (code, out, _) = run(&[os("info"), os(&export)]);
    assert_eq!(code, 0);
    assert!(out.contains(&format!("gpt{SHOWN}")), "{out}");
    assert!(out.contains(&format!("run{SHOWN}")), "{out}");
    // JSON keeps the data as it is (serde_json escapes what JSON must).
    let (_, out, _) = run(&[os("info"), os(&export), os("--format"), os("json")]);
    assert!(out.contains("\\u001b]52"), "{out}");
}

/// A copy of the run folder fixture with hostile model and run names.
fn hostile_run_folder(dir: &Path) -> PathBuf {
    let src =
        Path::new(env!("KLD_SOURCE_ROOT")).join("tests/data/runs/root/missing_20261122T080400Z");
    let dst = dir.join("missing_20261122T080400Z");
    std::fs::create_dir(&dst).unwrap();
    for entry in std::fs::read_dir(&src).unwrap().flatten() {
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), dst.join(entry.file_name())).unwrap();
        }
    }
    let manifest = dst.join("run_manifest.json");
    rewrite(
        &manifest.clone(),
        &manifest,
        "gpt-4.1-mini",
        &format!("gpt{HOSTILE}"),
    );
    rewrite(
        &manifest.clone(),
        &manifest,
        "nightly \\ud83e\\uddea",
        &format!("nightly{HOSTILE}"),
    );
    let results = dst.join("results.json");
    rewrite(
        &results.clone(),
        &results,
        "gpt-4.1-mini",
        &format!("gpt{HOSTILE}"),
    );
    dst
}

#[test]
fn names_in_a_run_folder_are_escaped_by_info() {
    let d = tempfile::tempdir().unwrap();
    let run_dir = hostile_run_folder(d.path());
    let (code, out, _) = run(&[os("info"), os(&run_dir)]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(&format!("gpt{SHOWN}")), "{out}");
    assert!(out.contains(&format!("nightly{SHOWN}")), "{out}");
}

#[test]
fn run_and_benchmark_names_in_a_database_are_escaped_by_info() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("karenina.db");
    std::fs::copy(
        Path::new(env!("KLD_SOURCE_ROOT")).join("tests/data/runs/karenina.db"),
        &db,
    )
    .unwrap();
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute(
            "UPDATE verification_runs SET run_name = run_name || ?1",
            [HOSTILE],
        )
        .unwrap();
        c.execute("UPDATE benchmarks SET name = name || ?1", [HOSTILE])
            .unwrap();
    }
    let (code, out, _) = run(&[os("info"), os(&db)]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.matches(SHOWN).count() >= 5,
        "run and benchmark names: {out}"
    );
}

#[test]
fn git_merge_messages_escape_question_ids_and_paths() {
    let d = tempfile::tempdir().unwrap();
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(example("probe.jsonld")).unwrap()).unwrap();
    v["dataFeedElement"][0]["@id"] = format!("urn:uuid:question-x{HOSTILE}").into();
    let write = |name: &str, v: &serde_json::Value| {
        let p = d.path().join(name);
        std::fs::write(&p, serde_json::to_vec_pretty(v).unwrap()).unwrap();
        p
    };
    let base = write("base.jsonld", &v);
    let mut ours = v.clone();
    ours["dataFeedElement"][0]["item"]["acceptedAnswer"]["text"] = "ours".into();
    let ours = write("ours.jsonld", &ours);
    let mut theirs = v.clone();
    theirs["dataFeedElement"][0]["item"]["acceptedAnswer"]["text"] = "theirs".into();
    let theirs = write("theirs.jsonld", &theirs);
    let path = format!("bench{HOSTILE}.jsonld");
    let (code, _, err) = run(&[
        os("git-merge"),
        os(&base),
        os(&ours),
        os(&theirs),
        os(&path),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&format!("bench{SHOWN}.jsonld")), "{err}");
    assert!(err.contains(&format!("question-x{SHOWN}")), "{err}");
}
