//! The manual's git recipes (docs/git.md; issue 18), run verbatim in real repositories:
//! every changed checkpoint is named, and a merge conflict or a file that
//! does not parse never stops `git diff`.

use crate::common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// docs/git.md's `.gitattributes` line and `git config diff.karenina.…` commands.
fn readme_recipes() -> (String, Vec<String>) {
    let manual =
        std::fs::read_to_string(Path::new(env!("KLD_SOURCE_ROOT")).join("docs/git.md")).unwrap();
    let section = &manual[manual.find("## Git's diff driver and textconv").unwrap()..];
    let attributes = section
        .lines()
        .find(|l| l.starts_with("*.jsonld diff="))
        .expect("docs/git.md's .gitattributes line")
        .to_string();
    let configs: Vec<String> = section
        .lines()
        .take_while(|l| !l.starts_with("**`kld hash"))
        .filter(|l| l.starts_with("git config diff.karenina."))
        .map(str::to_string)
        .collect();
    assert!(
        configs.iter().any(|c| c.contains(".command"))
            && configs.iter().any(|c| c.contains(".textconv")),
        "docs/git.md gives a diff driver and a textconv: {configs:?}"
    );
    (attributes, configs)
}

/// A temporary git repository with the manual's recipes configured and the
/// built `kld` first on PATH; no user or system git configuration.
pub(crate) struct Repo {
    dir: tempfile::TempDir,
    path_env: String,
}

impl Repo {
    pub(crate) fn new() -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let bin = assert_cmd::cargo::cargo_bin("kld");
        let path_env = format!(
            "{}:{}",
            bin.parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let r = Repo { dir, path_env };
        r.ok(&["init", "-q", "-b", "main"]);
        r.ok(&["config", "user.email", "test@example.org"]);
        r.ok(&["config", "user.name", "test"]);
        let (attributes, configs) = readme_recipes();
        std::fs::write(r.file(".gitattributes"), format!("{attributes}\n")).unwrap();
        for c in configs {
            let out = r.env(Command::new("sh").args(["-c", &c])).output().unwrap();
            assert!(out.status.success(), "{c}: {out:?}");
        }
        r
    }

    pub(crate) fn env<'c>(&self, c: &'c mut Command) -> &'c mut Command {
        c.current_dir(self.dir.path())
            .env("PATH", &self.path_env)
            .env("HOME", self.dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_PAGER", "cat")
            .env_remove("GIT_DIR")
    }

    pub(crate) fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub(crate) fn git(&self, args: &[&str]) -> Output {
        self.env(&mut Command::new("git"))
            .args(args)
            .output()
            .unwrap()
    }

    /// Runs git, which must exit 0; returns stdout.
    pub(crate) fn ok(&self, args: &[&str]) -> String {
        let out = self.git(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "git {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

fn write_json(p: &Path, v: &Value) {
    std::fs::write(p, serde_json::to_string_pretty(v).unwrap() + "\n").unwrap();
}

fn set_answer(p: &Path, answer: &str) {
    let mut j = read_json(p);
    j["dataFeedElement"][0]["item"]["acceptedAnswer"]["text"] = json!(answer);
    write_json(p, &j);
}

#[test]
fn the_readme_recipes_name_every_changed_checkpoint() {
    let r = Repo::new();
    let loads = corpus().join("loads");
    std::fs::copy(
        loads.join("karenina-output__probe_default.jsonld"),
        r.file("a.jsonld"),
    )
    .unwrap();
    std::fs::copy(
        loads.join("karenina-output__probe_dj.jsonld"),
        r.file("b.jsonld"),
    )
    .unwrap();
    r.ok(&["add", "."]);
    r.ok(&["commit", "-qm", "two checkpoints"]);
    set_answer(&r.file("a.jsonld"), "an answer edited in a");
    set_answer(&r.file("b.jsonld"), "an answer edited in b");

    // The diff driver: each file under its own header, with its change.
    let text = r.ok(&["diff"]);
    let (ha, hb) = (
        text.find("diff --kld a/a.jsonld b/a.jsonld").expect(&text),
        text.find("diff --kld a/b.jsonld b/b.jsonld").expect(&text),
    );
    let (ca, cb) = (
        text.find("an answer edited in a").unwrap(),
        text.find("an answer edited in b").unwrap(),
    );
    assert!(ha < ca && ca < hb && hb < cb, "{text}");
    // The textconv (no external diff): git's own headers, canonical lines.
    let text = r.ok(&["diff", "--no-ext-diff"]);
    assert!(text.contains("diff --git a/a.jsonld b/a.jsonld"), "{text}");
    assert!(text.contains("diff --git a/b.jsonld b/b.jsonld"), "{text}");
    assert!(
        text.contains("+          \"text\": \"an answer edited in b\""),
        "{text}"
    );
    // Only the edited lines: the reformatting by serde_json is not shown.
    let changed = text
        .lines()
        .filter(|l| (l.starts_with('+') || l.starts_with('-')) && !l.starts_with("+++"))
        .filter(|l| !l.starts_with("---"))
        .count();
    assert_eq!(changed, 4, "{text}");
    r.ok(&["commit", "-qam", "edit both"]);
    let log = r.ok(&["log", "-p", "-1"]);
    assert!(log.contains("an answer edited in a") && log.contains("an answer edited in b"));

    // A new checkpoint and a rename.
    std::fs::copy(
        loads.join("tests__fixtures__checkpoints__minimal.jsonld"),
        r.file("c.jsonld"),
    )
    .unwrap();
    r.ok(&["add", "c.jsonld"]);
    let text = r.ok(&["diff", "--cached"]);
    assert!(
        text.contains("diff --kld a/c.jsonld b/c.jsonld\nnew file mode"),
        "{text}"
    );
    assert!(text.contains("+ question"), "{text}");
    r.ok(&["commit", "-qm", "c"]);
    r.ok(&["mv", "c.jsonld", "d.jsonld"]);
    let text = r.ok(&["diff", "--cached", "-M"]);
    assert!(
        text.contains("rename from c.jsonld\nrename to d.jsonld"),
        "{text}"
    );
}

#[test]
fn a_merge_conflict_never_stops_git_diff() {
    let r = Repo::new();
    let base = read_json(&corpus().join("loads/tests__fixtures__checkpoints__minimal.jsonld"));
    let f = r.file("bench.jsonld");
    write_json(&f, &base);
    r.ok(&["add", "."]);
    r.ok(&["commit", "-qm", "base"]);
    let rename = |name: &str| {
        let mut j = base.clone();
        j["name"] = json!(name);
        write_json(&f, &j);
    };
    r.ok(&["checkout", "-qb", "other"]);
    rename("renamed on other");
    r.ok(&["commit", "-qam", "other"]);
    r.ok(&["checkout", "-q", "main"]);
    rename("renamed on main");
    r.ok(&["commit", "-qam", "main"]);
    let merge = r.git(&["merge", "other"]);
    assert_eq!(merge.status.code(), Some(1), "a real conflict: {merge:?}");
    assert!(std::fs::read_to_string(&f).unwrap().contains("<<<<<<<"));

    let conflict_lines = |text: &str| {
        [
            "<<<<<<<",
            "renamed on main",
            "=======",
            "renamed on other",
            ">>>>>>>",
        ]
        .iter()
        .all(|s| text.contains(s))
    };
    // The combined diff of the conflict (textconv), the worktree against
    // HEAD (the diff driver), and the same without the driver (textconv).
    for args in [
        vec!["diff"],
        vec!["diff", "HEAD"],
        vec!["diff", "--no-ext-diff", "HEAD"],
    ] {
        let out = r.git(&args);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(out.status.code(), Some(0), "git {args:?}: {stdout}{stderr}");
        assert!(conflict_lines(&stdout), "git {args:?}: {stdout}");
        let warnings: Vec<&str> = stderr
            .lines()
            .filter(|l| l.contains("does not parse as a checkpoint"))
            .collect();
        assert!(!warnings.is_empty(), "git {args:?}: {stderr}");
        assert!(
            warnings.iter().all(|w| w.contains("bench.jsonld")),
            "{stderr}"
        );
    }
    let text = r.ok(&["diff", "HEAD"]);
    assert!(
        text.starts_with(
            "diff --kld a/bench.jsonld b/bench.jsonld\n--- a/bench.jsonld\n+++ b/bench.jsonld\n"
        ),
        "{text}"
    );
}
