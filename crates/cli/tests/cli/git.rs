//! `kld diff`, `kld hash`, pre-commit hooks (issue 10).

use crate::common::*;
use crate::{kld, stdout_of};
use karenina_ld::model::{read_checkpoint, ReadOptions};
use karenina_ld::rdf::{self, Processor};
use oxigraph::model::GraphName;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn scripts() -> PathBuf {
    Path::new(env!("KLD_SOURCE_ROOT")).join("tests/scripts")
}

fn hashes(files: &[&Path], plain: bool) -> Vec<String> {
    let mut cmd = kld();
    cmd.arg("hash").args(files);
    if plain {
        cmd.arg("--plain");
    }
    stdout_of(&mut cmd)
        .lines()
        .map(|l| l.split_once("  ").unwrap().0.to_string())
        .collect()
}

/// A reformatted copy: 4-space indent, ASCII escapes, root keys reversed and a
/// legacy context (written by Python's json module).
fn reformatted(src: &Path, dir: &Path) -> PathBuf {
    let out = dir.join("reformatted.jsonld");
    let legacy = Path::new(env!("KLD_SOURCE_ROOT")).join("context/legacy/python-2026-03-04.jsonld");
    run_ok(
        Command::new("python3")
            .args([
                "-c",
                "import json,sys\n\
d=json.load(open(sys.argv[1],encoding='utf-8'))\n\
ctx=json.load(open(sys.argv[2],encoding='utf-8'))\n\
d['@context']=ctx.get('@context',ctx)\n\
d=dict(reversed(list(d.items())))\n\
open(sys.argv[3],'w').write(json.dumps(d,indent=4,ensure_ascii=True))",
            ])
            .arg(src)
            .arg(&legacy)
            .arg(&out),
    );
    out
}

#[test]
#[ignore = "interop: needs python3 (an independent JSON reformatter): cargo test -- --include-ignored"]
fn a_reformatted_copy_diffs_equal_and_hashes_equal() {
    let d = tempfile::tempdir().unwrap();
    for name in [
        "docs__notebooks__test_checkpoint.jsonld",
        "karenina-output__probe_default.jsonld",
        "tests__fixtures__checkpoints__with_rubrics.jsonld",
    ] {
        let a = corpus().join("loads").join(name);
        let b = reformatted(&a, d.path());
        assert_ne!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        let out = kld().arg("diff").arg(&a).arg(&b).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(out.stdout.is_empty());
        let h = hashes(&[&a, &b], false);
        assert_eq!(h[0], h[1], "{name}");
        assert_eq!(h[0].len(), 64);
    }
    // Different benchmarks hash differently.
    let h = hashes(
        &[
            &corpus().join("loads/karenina-output__probe_default.jsonld"),
            &corpus().join("loads/karenina-output__probe_dj.jsonld"),
        ],
        false,
    );
    assert_ne!(h[0], h[1]);
}

fn diff_json(a: &Path, b: &Path) -> Value {
    let out = kld()
        .args(["diff", "--format", "json"])
        .arg(a)
        .arg(b)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn each_kind_of_change_is_reported_with_the_question_id() {
    let gen = generate(&["-n", "1", "-q", "8", "-s", "3", "--all-kinds"]);
    let a = jsonld_in(gen.path()).remove(0);
    let base: Value = serde_json::from_slice(&std::fs::read(&a).unwrap()).unwrap();
    let d = tempfile::tempdir().unwrap();
    let id = |j: &Value, i: usize| j["dataFeedElement"][i]["@id"].as_str().unwrap().to_string();
    let edit = |f: &dyn Fn(&mut Value)| -> PathBuf {
        let mut j = base.clone();
        f(&mut j);
        let p = d.path().join(format!("e{}.jsonld", rand_name()));
        std::fs::write(&p, serde_json::to_string_pretty(&j).unwrap()).unwrap();
        p
    };
    let q0 = id(&base, 0);
    let q1 = id(&base, 1);

    let v = diff_json(
        &a,
        &edit(&|j| {
            j["dataFeedElement"][0]["item"]["acceptedAnswer"]["text"] = json!("a new answer")
        }),
    );
    assert_eq!(v["changed"][0]["id"], q0);
    assert_eq!(v["changed"][0]["fields"][0]["field"], "answer");
    assert_eq!(v["changed"][0]["fields"][0]["new"], "a new answer");

    let v = diff_json(
        &a,
        &edit(&|j| {
            let t = j["dataFeedElement"][1]["item"]["hasPart"]["text"]
                .as_str()
                .unwrap()
                .to_string();
            j["dataFeedElement"][1]["item"]["hasPart"]["text"] =
                json!(format!("{t}\n# reviewed\n"));
        }),
    );
    assert_eq!(v["changed"][0]["id"], q1);
    let t = v["changed"][0]["template"].as_str().unwrap();
    assert!(t.contains("+# reviewed"), "{t}");

    let v = diff_json(
        &a,
        &edit(&|j| {
            let q = &mut j["dataFeedElement"][0]["item"];
            let mut k = q["keywords"].as_array().cloned().unwrap_or_default();
            k.push(json!("brand-new-keyword"));
            q["keywords"] = json!(k);
        }),
    );
    assert_eq!(v["changed"][0]["id"], q0);
    assert_eq!(v["changed"][0]["fields"][0]["field"], "keywords");

    // A question-specific trait added, then a setting of a global trait changed.
    let trait_node = json!({"@type": "Rating", "name": "new-trait", "bestRating": 1.0, "worstRating": 0.0,
        "additionalType": "karenina:QuestionSpecificRubricTrait",
        "description": "added in review"});
    let v = diff_json(
        &a,
        &edit(&|j| {
            let q = &mut j["dataFeedElement"][1]["item"];
            let mut r = q["rating"].as_array().cloned().unwrap_or_default();
            r.push(trait_node.clone());
            q["rating"] = json!(r);
        }),
    );
    assert_eq!(v["changed"][0]["id"], q1);
    assert_eq!(v["changed"][0]["traits"]["added"], json!(["new-trait"]));
    let global = base["rating"][0]["name"].as_str().unwrap().to_string();
    let v = diff_json(
        &a,
        &edit(&|j| j["rating"][0]["description"] = json!("reworded")),
    );
    assert_eq!(v["global_traits"]["changed"][0]["name"], global);
    assert_eq!(
        v["global_traits"]["changed"][0]["fields"][0]["field"],
        "description"
    );

    // Removed, added (a copy under a new ID), moved.
    let v = diff_json(
        &a,
        &edit(&|j| {
            j["dataFeedElement"].as_array_mut().unwrap().remove(1);
        }),
    );
    assert_eq!(v["removed"][0]["id"], q1);
    assert!(v["moved"].as_array().unwrap().is_empty());
    let v = diff_json(
        &a,
        &edit(&|j| {
            let mut it = j["dataFeedElement"][0].clone();
            it["@id"] = json!("urn:uuid:question-added-in-review-00000000");
            it["item"]["text"] = json!("A question added in review?");
            j["dataFeedElement"].as_array_mut().unwrap().push(it);
        }),
    );
    assert_eq!(
        v["added"][0]["id"],
        "urn:uuid:question-added-in-review-00000000"
    );
    assert_eq!(v["added"][0]["text"], "A question added in review?");
    let v = diff_json(
        &a,
        &edit(&|j| {
            let items = j["dataFeedElement"].as_array_mut().unwrap();
            let first = items.remove(0);
            items.push(first);
        }),
    );
    let moved = v["moved"].as_array().unwrap();
    assert_eq!(
        moved.len(),
        1,
        "one question moved, not a shifted block: {moved:?}"
    );
    assert_eq!(moved[0]["id"], q0);
    assert_eq!(moved[0]["from"], 0);
    // Text output names the question too.
    let text = stdout_of_code(
        kld().arg("diff").arg(&a).arg(edit(&|j| {
            j["dataFeedElement"][0]["item"]["acceptedAnswer"]["text"] = json!("x")
        })),
        1,
    );
    assert!(text.contains(&format!("~ question {q0}")), "{text}");
    // Unreadable input is exit 2.
    kld()
        .arg("diff")
        .arg(&a)
        .arg(d.path().join("missing.jsonld"))
        .assert()
        .code(2);
}

fn rand_name() -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    N.fetch_add(1, Ordering::SeqCst).to_string()
}

fn stdout_of_code(cmd: &mut assert_cmd::Command, code: i32) -> String {
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(code));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
#[ignore = "interop: needs node with jsonld.js and rdf-canonize: cargo test -- --include-ignored"]
fn sophia_equals_oxrdf_and_jsonld_js_and_refuses_a_poison_dataset() {
    // sophia_c14n and oxrdf give the same canonical N-Quads on every corpus
    // file, lossless and plain readings.
    for p in corpus_files("loads") {
        let bytes = std::fs::read(&p).unwrap();
        let cp = read_checkpoint(&p, &bytes, ReadOptions::default()).unwrap();
        let lossless =
            rdf::lossless_quads(&cp, &GraphName::DefaultGraph, Processor::Direct).unwrap();
        let plain = rdf::plain_quads(&p, &bytes, None, Processor::Oxigraph).unwrap();
        for quads in [lossless, plain] {
            assert_eq!(
                karenina_ld::rdfc::canonical_nquads(&quads).unwrap(),
                rdf::isomorphism_form(quads.clone()),
                "{}",
                p.display()
            );
        }
    }
    // The plain reading's canonical N-Quads equal jsonld.js + rdf-canonize's,
    // byte for byte, on generated files.
    let gen = generate(&["-n", "3", "-q", "10", "-s", "11", "--all-kinds"]);
    let base = "https://karenina-ld.invalid/";
    for f in jsonld_in(gen.path()) {
        let ours = stdout_of(
            kld()
                .args(["export", "--plain", "--canonical", "--base", base])
                .arg(&f),
        );
        let theirs = run_ok(
            Command::new("node")
                .arg(scripts().join("canonize.js"))
                .arg(base)
                .arg(&f),
        );
        assert_eq!(ours, theirs, "{}", f.display());
        // And `hash --plain` is the SHA-256 of exactly that text.
        let theirs_hash = run_ok(
            Command::new("node")
                .arg(scripts().join("canonize.js"))
                .args(["--hash", base])
                .arg(&f),
        );
        assert_eq!(
            hashes(&[&f], true)[0],
            theirs_hash.split_once("  ").unwrap().0
        );
    }
    // A checkpoint that validates but whose custom metadata value is a clique
    // of 12 indistinguishable blank nodes: refused within seconds.
    let mut j: Value = serde_json::from_slice(&read_fixture(
        &corpus().join("loads/tests__fixtures__checkpoints__minimal.jsonld"),
    ))
    .unwrap();
    let clique: Vec<Value> = (0..12)
        .map(|i| {
            json!({"@id": format!("_:b{i}"),
                   "urn:p": (0..12).filter(|k| *k != i).map(|k| json!({"@id": format!("_:b{k}")})).collect::<Vec<_>>()})
        })
        .collect();
    j["dataFeedElement"][0]["item"]["additionalProperty"] =
        json!([{"@type": "PropertyValue", "name": "custom_graph", "value": clique}]);
    let d = tempfile::tempdir().unwrap();
    let poison = d.path().join("poison.jsonld");
    std::fs::write(&poison, serde_json::to_string_pretty(&j).unwrap()).unwrap();
    kld().arg("validate").arg(&poison).assert().success();
    let t = std::time::Instant::now();
    for args in [
        vec!["export", "--plain", "--canonical"],
        vec!["hash", "--plain"],
    ] {
        kld()
            .args(&args)
            .arg(&poison)
            .assert()
            .code(1)
            .stderr(predicates::str::contains("refused"));
    }
    // Refused, not a runaway: a bound a loaded machine keeps.
    assert!(t.elapsed() < std::time::Duration::from_secs(60));
    // The lossless reading keeps the value as a JSON literal: it hashes.
    assert_eq!(hashes(&[&poison], false)[0].len(), 64);
}

#[test]
#[ignore = "interop: needs pre-commit (pip): cargo test -- --include-ignored"]
fn the_pre_commit_hooks_fail_on_a_non_canonical_checkpoint_and_pass_after_canon() {
    let repo = new_repo();
    let git = |args: &[&str]| git_in(repo.path(), args);
    let f = repo.path().join("bench.jsonld");
    // Valid, warning-free, but not in Karenina's bytes (re-indented).
    let src = corpus().join("loads/karenina-output__probe_default.jsonld");
    let j: Value = serde_json::from_slice(&std::fs::read(&src).unwrap()).unwrap();
    std::fs::write(&f, serde_json::to_string(&j).unwrap()).unwrap();
    let hooks = Path::new(env!("KLD_SOURCE_ROOT")).join(".pre-commit-hooks.yaml");
    let kld_bin = assert_cmd::cargo::cargo_bin("kld");
    run_ok(
        Command::new("python3")
            .arg(scripts().join("precommit_local_config.py"))
            .arg(&hooks)
            .arg(&kld_bin)
            .arg(repo.path().join(".pre-commit-config.yaml")),
    );
    git(&["add", "."]);
    let cache = repo.path().join(".cache");
    let pre_commit = |hook: &str| {
        Command::new("python3")
            .args(["-m", "pre_commit", "run", hook, "--all-files"])
            .current_dir(repo.path())
            .env("PRE_COMMIT_HOME", &cache)
            .output()
            .unwrap()
    };
    let out = pre_commit("kld-canon");
    assert!(
        !out.status.success(),
        "the canon hook must fail on a non-canonical file"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("bench.jsonld"));
    let out = pre_commit("kld-validate");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    kld()
        .args(["canon", "--in-place"])
        .arg(&f)
        .assert()
        .success();
    git(&["add", "."]);
    let out = pre_commit("kld-canon");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_long_answer_edited_at_its_end_shows_the_new_word() {
    let src = corpus().join("loads/docs__notebooks__test_checkpoint.jsonld");
    let base: Value = serde_json::from_slice(&std::fs::read(&src).unwrap()).unwrap();
    let d = tempfile::tempdir().unwrap();
    let filler = "The expected answer explains its reasoning at length ".repeat(9);
    let long_a = format!("{filler}and concludes that the sky is blue.");
    assert!(long_a.chars().count() >= 500, "{}", long_a.len());
    let long_b = long_a.replace("is blue.", "is turquoise.");
    let write = |name: &str, answer: &str| {
        let mut j = base.clone();
        j["dataFeedElement"][0]["item"]["acceptedAnswer"]["text"] = json!(answer);
        let p = d.path().join(name);
        std::fs::write(&p, serde_json::to_string_pretty(&j).unwrap()).unwrap();
        p
    };
    let (a, b) = (write("a.jsonld", &long_a), write("b.jsonld", &long_b));
    let text = stdout_of_code(kld().arg("diff").arg(&a).arg(&b), 1);
    assert!(text.contains("{+turquoise.+}"), "{text}");
    assert!(text.contains("[-blue.-]"), "{text}");
    // With context before the change, not the whole answer.
    assert!(text.contains("the sky is [-blue.-]"), "{text}");
    assert!(!text.contains(&filler), "{text}");
    // JSON keeps the full values.
    let v = diff_json(&a, &b);
    assert_eq!(v["changed"][0]["fields"][0]["old"], long_a.as_str());
    assert_eq!(v["changed"][0]["fields"][0]["new"], long_b.as_str());
}

#[test]
#[ignore = "interop: needs pre-commit and pre-commit-hooks (pip): cargo test -- --include-ignored"]
fn the_readme_s_local_pre_commit_config_passes_on_canonical_files_with_end_of_file_fixer() {
    // The manual's block (docs/git.md), verbatim, with `kld` on PATH as `cargo install`
    // leaves it; end-of-file-fixer from pip's pre-commit-hooks.
    let manual =
        std::fs::read_to_string(Path::new(env!("KLD_SOURCE_ROOT")).join("docs/git.md")).unwrap();
    let block = manual
        .split("<!-- kld-precommit-begin -->\n```yaml\n")
        .nth(1)
        .and_then(|r| r.split("```\n<!-- kld-precommit-end -->").next())
        .expect("docs/git.md's pre-commit block");
    let repo = new_repo();
    let git = |args: &[&str]| git_in(repo.path(), args);
    std::fs::write(repo.path().join(".pre-commit-config.yaml"), block).unwrap();
    std::fs::copy(
        Path::new(env!("KLD_SOURCE_ROOT")).join("examples/probe.jsonld"),
        repo.path().join("bench.jsonld"),
    )
    .unwrap();
    std::fs::write(repo.path().join("notes.md"), "no newline at the end").unwrap();
    git(&["add", "."]);
    let bin_dir = assert_cmd::cargo::cargo_bin("kld")
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = || {
        Command::new("python3")
            .args(["-m", "pre_commit", "run", "--all-files"])
            .current_dir(repo.path())
            .env("PATH", &path)
            .env("PRE_COMMIT_HOME", repo.path().join(".cache"))
            .output()
            .unwrap()
    };
    // First run: end-of-file-fixer fixes notes.md (and fails, as it does
    // when it changes a file); the checkpoint is left alone.
    let first = run();
    let text = String::from_utf8_lossy(&first.stdout);
    assert!(!first.status.success(), "{text}");
    assert!(text.contains("Fixing notes.md"), "{text}");
    let bench = std::fs::read(repo.path().join("bench.jsonld")).unwrap();
    assert_ne!(bench.last(), Some(&b'\n'), "the checkpoint got a newline");
    git(&["add", "."]);
    // Second run: every hook passes, kld-canon and end-of-file-fixer agree.
    let second = run();
    let text = String::from_utf8_lossy(&second.stdout);
    assert!(second.status.success(), "{text}");
    for hook in ["kld canon --check", "kld validate", "end in a newline"] {
        assert!(text.contains(hook), "{hook}: {text}");
    }
}

/// A fresh git repository with a committer set.
fn new_repo() -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    git_in(repo.path(), &["init", "-q"]);
    git_in(repo.path(), &["config", "user.email", "test@example.org"]);
    git_in(repo.path(), &["config", "user.name", "test"]);
    repo
}

/// Runs git in `dir`; it must succeed.
fn git_in(dir: &Path, args: &[&str]) {
    run_ok(Command::new("git").current_dir(dir).args(args));
}

#[test]
fn no_color_turns_the_diff_s_colour_off_on_a_terminal() {
    // `script` gives kld a terminal, where --color auto colours unless
    // NO_COLOR is set (https://no-color.org).
    if Command::new("script").arg("--version").output().is_err() {
        panic!("`script` (util-linux) is needed to give kld a terminal");
    }
    let ex = Path::new(env!("KLD_SOURCE_ROOT")).join("examples");
    let cmd = format!(
        "'{}' diff '{}' '{}'",
        assert_cmd::cargo::cargo_bin("kld").display(),
        ex.join("probe.jsonld").display(),
        ex.join("scenario.jsonld").display()
    );
    let on_tty = |no_color: Option<&str>| {
        let mut c = Command::new("script");
        c.args(["-qec", &cmd, "/dev/null"]);
        match no_color {
            Some(v) => c.env("NO_COLOR", v),
            None => c.env_remove("NO_COLOR"),
        };
        String::from_utf8_lossy(&c.output().unwrap().stdout).to_string()
    };
    assert!(on_tty(None).contains("\u{1b}["), "colour on a terminal");
    assert!(
        !on_tty(Some("1")).contains("\u{1b}["),
        "NO_COLOR=1 still coloured"
    );
}
