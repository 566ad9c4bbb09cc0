//! `kld git-diff` and `kld git-textconv`: what git runs for `*.jsonld
//! diff=karenina` (`docs/git.md`). Both must work on whatever git
//! hands them (a file mid-edit, a merge conflict, a new or deleted file), so
//! a side that does not parse as a checkpoint falls back to its bytes as
//! written (a line diff) with a one-line warning, and the exit status is
//! the one git expects (0), never a failure that stops `git diff`.
//! `kld git-merge` is git's merge driver (`merge=karenina`): the library's
//! three-way merge of benchmarks, or git's text merge when a version is not
//! a checkpoint or a preset.

use super::{INVALID, OK, USAGE};
use karenina_ld::diff::{self, Style};
use karenina_ld::merge;
use karenina_ld::model::{self, Checkpoint, ReadOptions};
use karenina_ld::save::{self, WriteOptions};
use karenina_ld::terminal::escape_controls as escape;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// Arguments of `kld git-diff` (git's external diff: `diff.<driver>.command`).
#[derive(clap::Args, Debug)]
pub struct GitDiffArgs {
    /// Colour: auto (on a terminal), always, never.
    #[arg(long, default_value = "auto", value_parser = ["auto", "always", "never"])]
    pub color: String,
    /// The path in the repository.
    pub path: String,
    /// The old version (a temporary file, or /dev/null for a new file).
    pub old_file: PathBuf,
    /// Its blob hash.
    pub old_hex: String,
    /// Its mode.
    pub old_mode: String,
    /// The new version (/dev/null for a deleted file).
    pub new_file: PathBuf,
    /// Its blob hash.
    pub new_hex: String,
    /// Its mode.
    pub new_mode: String,
    /// For a rename: the new path and git's rename information.
    #[arg(num_args = 0..=2)]
    pub rename: Vec<String>,
}

/// Arguments of `kld git-textconv` (`diff.<driver>.textconv`).
#[derive(clap::Args, Debug)]
pub struct TextconvArgs {
    /// The file git wants as text.
    pub file: PathBuf,
}

/// One side of a change, as git hands it.
enum Side {
    /// `/dev/null`: the file is new, or deleted.
    Absent,
    /// A checkpoint.
    Checkpoint(Box<Checkpoint>, Vec<u8>),
    /// Bytes that do not read as a checkpoint, and the first reason why.
    Unparsed(Vec<u8>, String),
}

impl Side {
    /// Reads `file` (git's temporary copy), naming it `shown` in messages.
    fn read(file: &Path, shown: &str) -> std::io::Result<Side> {
        if file == Path::new("/dev/null") {
            return Ok(Side::Absent);
        }
        let bytes = karenina_ld::fsutil::read_input(file).map_err(std::io::Error::other)?;
        Ok(
            match model::read_checkpoint(Path::new(shown), &bytes, ReadOptions::default()) {
                Ok(cp) => Side::Checkpoint(Box::new(cp), bytes),
                Err(e) => Side::Unparsed(bytes, e.first_reason()),
            },
        )
    }

    /// The checkpoint to compare (an absent side is an empty benchmark).
    fn checkpoint<'a>(&'a self, empty: &'a Checkpoint) -> Option<&'a Checkpoint> {
        match self {
            Side::Absent => Some(empty),
            Side::Checkpoint(cp, _) => Some(cp),
            Side::Unparsed(..) => None,
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Side::Absent => &[],
            Side::Checkpoint(_, b) | Side::Unparsed(b, _) => b,
        }
    }
}

fn color(choice: &str) -> bool {
    match choice {
        "always" => true,
        "never" => false,
        _ => std::io::stdout().is_terminal(),
    }
}

/// A unified line diff of two byte strings, with git's `a/` `b/` headers.
pub fn line_diff(a: &[u8], b: &[u8], a_name: &str, b_name: &str) -> String {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    similar::TextDiff::from_lines(a.as_ref(), b.as_ref())
        .unified_diff()
        .context_radius(3)
        .header(a_name, b_name)
        .to_string()
}

pub fn git_diff(a: GitDiffArgs) -> anyhow::Result<u8> {
    let new_path = a.rename.first().cloned().unwrap_or_else(|| a.path.clone());
    let (old, new) = match (
        Side::read(&a.old_file, &a.path),
        Side::read(&a.new_file, &new_path),
    ) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("kld: {}: {e}", a.path);
            return Ok(USAGE);
        }
    };
    let st = Style {
        color: color(&a.color),
    };
    let mut out = String::new();
    // Paths and a line diff's raw lines are data, escaped for the terminal
    // git shows them on (the checkpoint diff escapes its own text).
    let (path, new_path) = (escape(&a.path), escape(&new_path));
    // The header git writes for its own diffs, so each file is named.
    out.push_str(&format!("diff --kld a/{path} b/{new_path}\n"));
    match (&old, &new) {
        (Side::Absent, _) => out.push_str(&format!("new file mode {}\n", a.new_mode)),
        (_, Side::Absent) => out.push_str(&format!("deleted file mode {}\n", a.old_mode)),
        _ if new_path != path => {
            out.push_str(&format!("rename from {path}\nrename to {new_path}\n"))
        }
        _ => {}
    }
    let empty = Checkpoint::default();
    match (old.checkpoint(&empty), new.checkpoint(&empty)) {
        (Some(x), Some(y)) => {
            let d = diff::diff(x, y);
            if d.is_empty() && old.bytes() != new.bytes() {
                out.push_str("(the same benchmark: only the formatting changed)\n");
            } else {
                out.push_str(&d.render(st));
            }
        }
        _ => {
            // One line, whichever sides do not parse.
            let failed = match (&old, &new) {
                (Side::Unparsed(..), Side::Unparsed(_, why)) => Some(("either side", why)),
                (Side::Unparsed(_, why), _) => Some(("the old side", why)),
                (_, Side::Unparsed(_, why)) => Some(("the new side", why)),
                _ => None,
            };
            if let Some((which, why)) = failed {
                eprintln!(
                    "kld: {new_path} does not parse as a checkpoint on {which} ({why}); showing a line diff"
                );
            }
            let a_name = match old {
                Side::Absent => "/dev/null".to_string(),
                _ => format!("a/{path}"),
            };
            let b_name = match new {
                Side::Absent => "/dev/null".to_string(),
                _ => format!("b/{new_path}"),
            };
            out.push_str(&escape(&line_diff(
                old.bytes(),
                new.bytes(),
                &a_name,
                &b_name,
            )));
        }
    }
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(OK)
}

pub fn git_textconv(a: TextconvArgs) -> anyhow::Result<u8> {
    let bytes = match karenina_ld::fsutil::read_input(&a.file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("kld: {}: {e}", a.file.display());
            return Ok(USAGE);
        }
    };
    let text = match save::canonicalize(
        &a.file,
        &bytes,
        ReadOptions::default(),
        &WriteOptions::default(),
    ) {
        // Display text: a final newline (Karenina writes none) keeps git
        // from flagging the last line of every change.
        Ok((text, _warnings)) => (text + "\n").into_bytes(),
        Err(e) => {
            eprintln!(
                "kld: {} does not parse as a checkpoint ({}); shown as written",
                a.file.display(),
                e.first_reason()
            );
            bytes
        }
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&text)?;
    stdout.flush()?;
    Ok(OK)
}

/// Arguments of `kld git-merge` (git's merge driver: `merge.<driver>.driver`).
#[derive(clap::Args, Debug)]
pub struct GitMergeArgs {
    /// The common ancestor's version (`%O`; empty when the file is new on both sides).
    pub base: PathBuf,
    /// Our version (`%A`): the merged file is written here.
    pub ours: PathBuf,
    /// Their version (`%B`).
    pub theirs: PathBuf,
    /// The path in the repository (`%P`), for messages.
    pub path: String,
}

/// A value for a one-line conflict report: JSON, cut at 80 characters.
fn shown(v: &Option<karenina_ld::json::Json>) -> String {
    match v {
        None => "(removed)".to_string(),
        Some(j) => {
            let s = j.to_compact();
            if s.chars().count() > 80 {
                format!("{}…", s.chars().take(80).collect::<String>())
            } else {
                s
            }
        }
    }
}

pub fn git_merge(a: GitMergeArgs) -> anyhow::Result<u8> {
    let read = |p: &Path| {
        karenina_ld::fsutil::read_input(p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))
    };
    // Paths, question IDs and values come from the repository: escaped for the terminal.
    let path = escape(&a.path);
    let (base, ours, theirs) = match (read(&a.base), read(&a.ours), read(&a.theirs)) {
        (Ok(x), Ok(y), Ok(z)) => (x, y, z),
        (Err(e), ..) | (_, Err(e), _) | (.., Err(e)) => {
            eprintln!("kld: {path}: {}", escape(&e.to_string()));
            return Ok(USAGE);
        }
    };
    match merge::merge(Path::new(&a.path), &base, &ours, &theirs) {
        Ok(m) => {
            karenina_ld::fsutil::write_atomic(&a.ours, m.text.as_bytes())?;
            for c in &m.conflicts {
                let at = match &c.question {
                    Some(q) => format!("question {q}, {}", c.field),
                    None => c.field.clone(),
                };
                let why = match &c.kind {
                    merge::ConflictKind::Refused { cause } => {
                        format!(" (each side is fine, the merge is not: {cause})")
                    }
                    _ => String::new(),
                };
                eprintln!(
                    "kld: {path}: conflict in {}{}: ours {} / theirs {}",
                    escape(&at),
                    escape(&why),
                    escape(&shown(&c.ours)),
                    escape(&shown(&c.theirs))
                );
            }
            Ok(if m.conflicts.is_empty() { OK } else { INVALID })
        }
        Err(why) => {
            // git's own text merge, as the diff driver falls back to a line diff.
            eprintln!("kld: {path}: {}; merging as text", escape(&why.to_string()));
            let status = std::process::Command::new("git")
                .args(["merge-file", "-L", "ours", "-L", "base", "-L", "theirs"])
                .arg(&a.ours)
                .arg(&a.base)
                .arg(&a.theirs)
                .status()?;
            Ok(match status.code() {
                Some(0) => OK,
                Some(n) if n > 0 => INVALID,
                _ => USAGE,
            })
        }
    }
}
