//! `kld git-merge` as git's merge driver (issue 29), with the recipe read
//! verbatim from docs/git.md, in real repositories: `git merge`, `git rebase`
//! and `git cherry-pick` of two branches edited from one base.
//!
//! The branches' edits and the expected results are hand-written in
//! tests/data/merge/scenarios.json; tests/data/merge/goldens.py applied the
//! expected edits to base.jsonld with Python's json (Karenina's own writer),
//! giving the `*.expected.jsonld` files the merges must equal byte for byte.

use crate::common::*;
use crate::git_recipes::Repo;
use crate::kld;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// docs/git.md's merge section: its `.gitattributes` line and `git config merge.…` commands.
fn merge_recipes() -> (String, Vec<String>) {
    let manual =
        std::fs::read_to_string(Path::new(env!("KLD_SOURCE_ROOT")).join("docs/git.md")).unwrap();
    let start = manual.find("## Merging: `kld git-merge`").unwrap();
    let end = start + manual[start..].find("\n## Content hashes").unwrap();
    let section = &manual[start..end];
    let attributes = section
        .lines()
        .find(|l| l.starts_with("*.jsonld ") && l.contains("merge=karenina"))
        .expect("docs/git.md's merge .gitattributes line")
        .to_string();
    let configs: Vec<String> = section
        .lines()
        .filter(|l| l.starts_with("git config merge.karenina."))
        .map(str::to_string)
        .collect();
    assert!(
        configs.iter().any(|c| c.contains(".driver")),
        "docs/git.md gives a merge driver: {configs:?}"
    );
    (attributes, configs)
}

/// The attribute docs/git.md suggests for presets.
const PRESET_ATTRIBUTE: &str = "presets/*.json merge=karenina";

/// A repository with the diff and merge recipes configured (and the
/// manual's preset attribute).
pub(crate) fn repo() -> Repo {
    let r = Repo::new();
    let (attributes, configs) = merge_recipes();
    let manual =
        std::fs::read_to_string(Path::new(env!("KLD_SOURCE_ROOT")).join("docs/git.md")).unwrap();
    assert!(manual.contains(&format!("`{PRESET_ATTRIBUTE}`")));
    std::fs::write(
        r.file(".gitattributes"),
        format!("{attributes}\n{PRESET_ATTRIBUTE}\n"),
    )
    .unwrap();
    for c in configs {
        let out = r.env(Command::new("sh").args(["-c", &c])).output().unwrap();
        assert!(out.status.success(), "{c}: {out:?}");
    }
    r
}

pub(crate) fn merge_data(name: &str) -> PathBuf {
    data("merge").join(name)
}

fn scenario(name: &str) -> Value {
    let all: Value = serde_json::from_slice(&read_fixture(&merge_data("scenarios.json"))).unwrap();
    all[name].clone()
}

/// Applies one hand-written edit (as goldens.py does).
fn apply(doc: &mut Value, op: &Value) {
    let path = op["path"].as_array().unwrap();
    let mut parent = &mut *doc;
    for p in &path[..path.len() - 1] {
        parent = match p {
            Value::String(k) => &mut parent[k.as_str()],
            n => &mut parent[n.as_u64().unwrap() as usize],
        };
    }
    let last = &path[path.len() - 1];
    match (op["op"].as_str().unwrap(), last) {
        ("set", Value::String(k)) => {
            parent[k.as_str()] = op["value"].clone();
        }
        ("set", n) => parent[n.as_u64().unwrap() as usize] = op["value"].clone(),
        ("remove", Value::String(k)) => {
            parent.as_object_mut().unwrap().shift_remove(k.as_str());
        }
        ("remove", n) => {
            parent
                .as_array_mut()
                .unwrap()
                .remove(n.as_u64().unwrap() as usize);
        }
        ("append", Value::String(k)) => parent[k.as_str()]
            .as_array_mut()
            .unwrap()
            .push(op["value"].clone()),
        ("move", Value::String(k)) => {
            let xs = parent[k.as_str()].as_array_mut().unwrap();
            let x = xs.remove(op["from"].as_u64().unwrap() as usize);
            xs.insert(op["to"].as_u64().unwrap() as usize, x);
        }
        other => panic!("unknown edit {other:?}"),
    }
}

/// Writes `start` edited by `ops` to `to`, as a hand edit would (pretty JSON).
fn edit(start: &Path, ops: &Value, to: &Path) {
    let mut doc: Value = serde_json::from_slice(&std::fs::read(start).unwrap()).unwrap();
    for op in ops.as_array().unwrap() {
        apply(&mut doc, op);
    }
    std::fs::write(to, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
}

/// The legacy file a branch upgrades (the base of the legacy scenario).
fn legacy() -> PathBuf {
    corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld")
}

/// The file a scenario merges, in the repository.
fn merged_file(name: &str) -> &'static str {
    match name {
        "preset" => "presets/config.json",
        _ => "bench.jsonld",
    }
}

/// A repository where `main` has the base then our edits, and branch
/// `theirs` has the base then their edits, in the scenario's file.
fn branches(name: &str) -> Repo {
    let s = scenario(name);
    let r = repo();
    let base = match s["base"].as_str() {
        Some("legacy") => legacy(),
        Some(file) => merge_data(file),
        None => merge_data("base.jsonld"),
    };
    let bench = r.file(merged_file(name));
    std::fs::create_dir_all(bench.parent().unwrap()).unwrap();
    std::fs::copy(&base, &bench).unwrap();
    r.ok(&["add", "."]);
    r.ok(&["commit", "-qm", "base"]);
    r.ok(&["checkout", "-qb", "theirs"]);
    edit(&base, &s["theirs"], &bench);
    r.ok(&["commit", "-qam", "their edits"]);
    r.ok(&["checkout", "-q", "main"]);
    if s["ours"] == "canon" {
        let out = r
            .env(&mut Command::new(assert_cmd::cargo::cargo_bin("kld")))
            .args(["canon", "--in-place", "bench.jsonld"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    } else {
        edit(&base, &s["ours"], &bench);
    }
    r.ok(&["commit", "-qam", "our edits"]);
    r
}

pub(crate) fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The merged file equals the scenario's expected file, byte for byte, and
/// is canonical (a checkpoint) or valid (a preset).
fn assert_expected(r: &Repo, name: &str) {
    let file = r.file(merged_file(name));
    let got = std::fs::read_to_string(&file).unwrap();
    let expected = match name {
        "preset" => "preset.expected.json".to_string(),
        _ => format!("{name}.expected.jsonld"),
    };
    let want = read_fixture_string(&merge_data(&expected));
    assert!(!got.contains("<<<<<<<"), "{name}: markers in a clean merge");
    assert!(
        got == want,
        "{name}: the merge differs from the expected file:\n{got}"
    );
    let check: &[&str] = match name {
        "preset" => &["preset", "validate"],
        _ => &["canon", "--check"],
    };
    kld().args(check).arg(&file).assert().success();
}

/// Runs one clean scenario with `how` (merge, rebase, cherry-pick) and checks the result.
fn clean(name: &str, how: &str) -> Repo {
    let r = branches(name);
    let out = match how {
        "merge" => r.git(&["merge", "--no-edit", "theirs"]),
        "rebase" => r.git(&["rebase", "theirs"]),
        "cherry-pick" => r.git(&["cherry-pick", "theirs"]),
        _ => unreachable!(),
    };
    assert_eq!(out.status.code(), Some(0), "{name} ({how}): {}", text(&out));
    assert!(
        r.ok(&["status", "--porcelain"]).trim().is_empty(),
        "{name} ({how}): the work tree is not clean"
    );
    assert_expected(&r, name);
    r
}

#[test]
fn two_branches_editing_different_questions_merge_cleanly() {
    clean("different-questions", "merge");
    // Rebasing our commit onto theirs replays it through the same driver.
    clean("different-questions", "rebase");
}

#[test]
fn questions_added_on_both_sides_are_all_kept_ours_first() {
    clean("add-add", "merge");
}

#[test]
fn a_question_removed_on_one_side_and_unchanged_on_the_other_is_removed() {
    clean("edit-delete", "merge");
}

#[test]
fn trait_edits_and_a_new_question_trait_merge() {
    clean("trait-edits", "merge");
}

#[test]
fn metadata_edits_and_keywords_from_both_sides_merge() {
    clean("metadata-edits", "merge");
}

#[test]
fn one_side_s_reordering_and_the_other_s_edit_cherry_pick() {
    clean("reorder", "cherry-pick");
}

#[test]
fn a_branch_that_upgrades_a_legacy_file_merges_with_an_edit_of_the_old_one() {
    clean("legacy-upgrade", "merge");
}

#[test]
fn presets_merge_by_config_key_with_the_attribute_the_manual_gives() {
    clean("preset", "merge");
}

/// One conflict block of a file.
#[derive(Debug)]
struct Block {
    /// The 1-based line of its `<<<<<<<`.
    line: usize,
    /// Our lines.
    ours: Vec<String>,
    /// Their lines.
    theirs: Vec<String>,
}

/// The conflict blocks of a file.
fn blocks(t: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let lines: Vec<&str> = t.lines().collect();
    let owned = |ls: &[&str]| ls.iter().map(|l| l.to_string()).collect();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].starts_with("<<<<<<<") {
            let sep = i + lines[i..].iter().position(|l| *l == "=======").unwrap();
            let end = sep
                + lines[sep..]
                    .iter()
                    .position(|l| l.starts_with(">>>>>>>"))
                    .unwrap();
            out.push(Block {
                line: i + 1,
                ours: owned(&lines[i + 1..sep]),
                theirs: owned(&lines[sep + 1..end]),
            });
            i = end;
        }
        i += 1;
    }
    out
}

/// `t` with each conflict resolved to our side.
fn take_ours(t: &str) -> String {
    let mut out = Vec::new();
    let mut side = 0; // 0 outside, 1 ours, 2 theirs
    for l in t.lines() {
        if l.starts_with("<<<<<<<") {
            side = 1;
        } else if l == "=======" && side == 1 {
            side = 2;
        } else if l.starts_with(">>>>>>>") && side == 2 {
            side = 0;
        } else if side < 2 {
            out.push(l);
        }
    }
    out.join("\n")
}

/// Merges a conflicting scenario: git reports the conflict, stderr names it,
/// `kld validate` names it by line and question, and taking our side of
/// every block gives the expected file.
fn conflicted(name: &str) -> Vec<Block> {
    let s = scenario(name);
    let r = branches(name);
    let out = r.git(&["merge", "--no-edit", "theirs"]);
    assert_ne!(out.status.code(), Some(0), "{name}: {}", text(&out));
    let said = text(&out);
    let (q, field) = (
        s["conflict"]["question"].as_str().unwrap(),
        s["conflict"]["field"].as_str().unwrap(),
    );
    assert!(
        said.contains(&format!("conflict in question {q}, {field}")),
        "{name}: the conflict is not named: {said}"
    );
    assert!(said.contains("CONFLICT"), "git reports it: {said}");
    let got = std::fs::read_to_string(r.file("bench.jsonld")).unwrap();
    let want = read_fixture_string(&merge_data(&format!("{name}.expected.jsonld")));
    assert_eq!(take_ours(&got), want, "{name}: outside the markers");
    let found = blocks(&got);
    let v = kld()
        .arg("validate")
        .arg(r.file("bench.jsonld"))
        .output()
        .unwrap();
    assert_eq!(v.status.code(), Some(1));
    for b in &found {
        let msg = format!(
            "unresolved merge conflict at line {} (question {q})",
            b.line
        );
        assert!(text(&v).contains(&msg), "{msg}: {}", text(&v));
    }
    found
}

#[test]
fn an_answer_edited_differently_on_both_sides_is_one_conflict_around_that_answer() {
    let found = conflicted("answer-conflict");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].ours,
        [r#"          "text": "100 degrees Celsius""#]
    );
    assert_eq!(
        found[0].theirs,
        [r#"          "text": "212 degrees Fahrenheit""#]
    );
}

#[test]
fn a_question_removed_on_one_side_and_edited_on_the_other_conflicts_as_a_whole() {
    let found = conflicted("edit-delete-conflict");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].ours.is_empty(), "{found:?}");
    let theirs = found[0].theirs.join("\n");
    assert!(
        theirs.contains(r#""@id": "urn:karenina:test:rq002""#)
            && theirs.contains("212 degrees Fahrenheit"),
        "{theirs}"
    );
}

#[test]
fn a_side_that_is_not_a_checkpoint_falls_back_to_git_s_text_merge() {
    let r = repo();
    let notes = r.file("notes.jsonld");
    let lines = |a: &str, z: &str| {
        format!(
            "{{\n  \"a\": \"{a}\",\n  \"m\": 1,\n  \"n\": 2,\n  \"o\": 3,\n  \"z\": \"{z}\"\n}}\n"
        )
    };
    std::fs::write(&notes, lines("a", "z")).unwrap();
    r.ok(&["add", "."]);
    r.ok(&["commit", "-qm", "base"]);
    r.ok(&["checkout", "-qb", "theirs"]);
    std::fs::write(&notes, lines("a", "Z")).unwrap();
    r.ok(&["commit", "-qam", "theirs"]);
    r.ok(&["checkout", "-q", "main"]);
    std::fs::write(&notes, lines("A", "z")).unwrap();
    r.ok(&["commit", "-qam", "ours"]);
    let out = r.git(&["merge", "--no-edit", "theirs"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("merging as text"), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), lines("A", "Z"));
}

#[test]
fn a_checkpoint_mid_edit_that_does_not_parse_falls_back_to_git_s_text_merge() {
    let r = repo();
    let bench = r.file("bench.jsonld");
    let base = read_fixture_string(&merge_data("base.jsonld"));
    std::fs::write(&bench, &base).unwrap();
    r.ok(&["add", "."]);
    r.ok(&["commit", "-qm", "base"]);
    r.ok(&["checkout", "-qb", "theirs"]);
    let theirs = base.replacen("\"Paris\"", "\"Paris, France\"", 1);
    assert_ne!(theirs, base);
    std::fs::write(&bench, &theirs).unwrap();
    r.ok(&["commit", "-qam", "theirs"]);
    r.ok(&["checkout", "-q", "main"]);
    // A stray comma on the description line: not JSON any more.
    let ours = base.replacen("testing\",", "testing\",,", 1);
    assert_ne!(ours, base);
    std::fs::write(&bench, &ours).unwrap();
    r.ok(&["commit", "-qam", "ours, mid-edit"]);
    let out = r.git(&["merge", "--no-edit", "theirs"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.contains("the ours version does not read") && said.contains("merging as text"),
        "{said}"
    );
    // git's text merge: both edits, as written.
    assert_eq!(
        std::fs::read_to_string(&bench).unwrap(),
        ours.replacen("\"Paris\"", "\"Paris, France\"", 1)
    );
}

/// The Karenina virtual environment's python (interop tier).
fn karenina_python() -> PathBuf {
    let venv = std::env::var_os("KLD_KARENINA_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("KLD_SOURCE_ROOT")).join("target/karenina-venv"));
    let py = venv.join("bin/python");
    assert!(py.exists(), "no Karenina venv at {}", venv.display());
    py
}

#[test]
#[ignore = "interop: needs the Karenina venv (tests/scripts/karenina-venv.sh)"]
fn clean_merges_load_in_karenina_with_the_merged_questions_and_answers() {
    let script = r#"
import json, sys
from karenina import Benchmark
for p in sys.argv[1:]:
    b = Benchmark.load(p)
    ids = b.get_question_ids()
    print(json.dumps([[i, b.get_question(i)["raw_answer"]] for i in ids]))
"#;
    for (name, how) in [
        ("different-questions", "rebase"),
        ("add-add", "merge"),
        ("edit-delete", "merge"),
        ("trait-edits", "merge"),
        ("metadata-edits", "merge"),
        ("reorder", "cherry-pick"),
        ("legacy-upgrade", "merge"),
    ] {
        let r = clean(name, how);
        let out = Command::new(karenina_python())
            .args(["-c", script])
            .arg(r.file("bench.jsonld"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {}", text(&out));
        let loaded: Value = serde_json::from_slice(&out.stdout).unwrap();
        let file: Value =
            serde_json::from_slice(&std::fs::read(r.file("bench.jsonld")).unwrap()).unwrap();
        let want: Vec<Value> = file["dataFeedElement"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| serde_json::json!([e["@id"], e["item"]["acceptedAnswer"]["text"]]))
            .collect();
        assert_eq!(loaded, Value::Array(want), "{name}");
    }
}
