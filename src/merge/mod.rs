//! Three-way merge of checkpoints (and presets) as benchmarks: `kld git-merge`.
//!
//! Why: Karenina stamps the root `dateModified` on every save, so a text merge
//! of two branches that touched different questions always conflicts, and a
//! real conflict inside one question leaves a JSON file Karenina refuses to
//! load. Here the three versions are read through the normal reader, written
//! as Karenina's canonical bytes and merged as trees: questions by ID, traits
//! and properties by name, keywords by value, timestamps to the later one
//! ([`tree`]). The result is Karenina's exact bytes; a true conflict is
//! confined to the lines that differ between the merge taking our value and
//! the merge taking theirs, with git-style markers around just those lines,
//! and comes back as a typed [`Conflict`] (question, field, both values).
//! A side that is not a checkpoint (or a preset, merged by config key)
//! is refused with a typed [`Refusal`], so the caller falls back to a text
//! merge. Nothing here prints.

mod tree;

use crate::canonical::{write_checkpoint, WriteOptions};
use crate::json::{self, Json};
use crate::kind::{self, Kind};
pub use crate::model::markers::{MARKER_OURS, MARKER_SEP, MARKER_THEIRS};
use crate::model::{self, ReadOptions};
use std::path::Path;
use tree::{Merger, Prefer, RawConflict, Schema, Step};

/// One conflict the merge could not resolve.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    /// The question's ID, when the conflict is inside one (or is one).
    pub question: Option<String>,
    /// What conflicts, relative to the question (or to the root): `item.acceptedAnswer.text`,
    /// `item.rating[clarity].description`, `additionalProperty[finished].value`,
    /// `(the question)` for an edit/delete, `dataFeedElement (question order)`
    /// for two reorderings (then the values are the orders, as lists of IDs).
    pub field: String,
    /// The common ancestor's value (`None`: absent).
    pub base: Option<Json>,
    /// Our value (`None`: removed or absent).
    pub ours: Option<Json>,
    /// Their value (`None`: removed or absent).
    pub theirs: Option<Json>,
}

/// A finished merge.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    /// What kind of file was merged.
    pub kind: Kind,
    /// The merged file: Karenina's bytes, with conflict markers when
    /// `conflicts` is not empty.
    pub text: String,
    /// The conflicts, in document order (empty for a clean merge).
    pub conflicts: Vec<Conflict>,
}

/// Why a three-way merge was not attempted: the caller falls back to a text merge.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// The three versions are not all checkpoints or all presets.
    #[error("the {side} version is {}", .kind.describe())]
    Kind {
        /// `base`, `ours` or `theirs`.
        side: &'static str,
        /// What it is.
        kind: Kind,
    },
    /// One version does not read (its first error, on one line).
    #[error("the {side} version does not read: {reason}")]
    Unreadable {
        /// `base`, `ours` or `theirs`.
        side: &'static str,
        /// The first error.
        reason: String,
    },
    /// The merged tree does not read back (two edits that are each fine but
    /// not together).
    #[error("the merged {what} does not read: {reason}")]
    Unmergeable {
        /// `checkpoint` or `preset`.
        what: &'static str,
        /// The first error.
        reason: String,
    },
}

/// Merges the three versions git hands a merge driver: `base` (`%O`, empty
/// when the file is new on both sides), `ours` (`%A`) and `theirs` (`%B`);
/// `path` (`%P`) names them in messages.
pub fn merge(path: &Path, base: &[u8], ours: &[u8], theirs: &[u8]) -> Result<Merged, Refusal> {
    let sides = [("base", base), ("ours", ours), ("theirs", theirs)];
    let kinds: Vec<Kind> = sides
        .iter()
        .map(|(_, b)| {
            if b.iter().all(u8::is_ascii_whitespace) {
                Kind::Other
            } else {
                kind::sniff(b)
            }
        })
        .collect();
    let want = match kinds[1] {
        k @ (Kind::Checkpoint | Kind::Preset) => k,
        other => {
            return Err(Refusal::Kind {
                side: "ours",
                kind: other,
            })
        }
    };
    for (i, (side, bytes)) in sides.iter().enumerate() {
        let empty_base = i == 0 && bytes.iter().all(u8::is_ascii_whitespace);
        if kinds[i] != want && !empty_base {
            return Err(Refusal::Kind {
                side,
                kind: kinds[i],
            });
        }
    }
    match want {
        Kind::Checkpoint => merge_checkpoints(path, base, ours, theirs),
        _ => merge_presets(path, base, ours, theirs),
    }
}

/// One version as the JSON of its canonical bytes (`None` for an empty base).
fn canonical_json(path: &Path, side: &'static str, bytes: &[u8]) -> Result<Option<Json>, Refusal> {
    if side == "base" && bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    // A 2025-08 `Dataset` file only reads upgraded; every other file reads as
    // Karenina reads it.
    let cp = model::read_checkpoint(path, bytes, ReadOptions::default())
        .or_else(|e| {
            model::read_checkpoint(path, bytes, ReadOptions { upgrade: true }).map_err(|_| e)
        })
        .map_err(|e| Refusal::Unreadable {
            side,
            reason: e.first_reason(),
        })?;
    let text = write_checkpoint(&cp, &WriteOptions::default());
    json::parse(text.as_bytes())
        .map(Some)
        .map_err(|f| Refusal::Unreadable {
            side,
            reason: f.message,
        })
}

fn merge_checkpoints(
    path: &Path,
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
) -> Result<Merged, Refusal> {
    // The three reads are independent: in parallel.
    let (b, (o, t)) = rayon::join(
        || canonical_json(path, "base", base),
        || {
            rayon::join(
                || canonical_json(path, "ours", ours),
                || canonical_json(path, "theirs", theirs),
            )
        },
    );
    let (b, o, t) = (b?, o?, t?);
    let render = |prefer| -> Result<(String, Vec<RawConflict>), Refusal> {
        let mut m = Merger::new(Schema::Checkpoint, prefer);
        let tree = m
            .value(&mut Vec::new(), b.as_ref(), o.as_ref(), t.as_ref())
            .unwrap_or_default();
        let bytes = crate::pyjson::dumps(&tree, false);
        let cp = model::read_checkpoint(path, bytes.as_bytes(), ReadOptions::default()).map_err(
            |e| Refusal::Unmergeable {
                what: "checkpoint",
                reason: e.first_reason(),
            },
        )?;
        Ok((write_checkpoint(&cp, &WriteOptions::default()), m.conflicts))
    };
    finish(Kind::Checkpoint, render)
}

/// Renders the merge taking our side of every conflict; when there are
/// conflicts, renders it again taking theirs and marks the lines that differ.
fn finish(
    kind: Kind,
    render: impl Fn(Prefer) -> Result<(String, Vec<RawConflict>), Refusal>,
) -> Result<Merged, Refusal> {
    let (ours_text, raw) = render(Prefer::Ours)?;
    if raw.is_empty() {
        return Ok(Merged {
            kind,
            text: ours_text,
            conflicts: Vec::new(),
        });
    }
    let (theirs_text, _) = render(Prefer::Theirs)?;
    Ok(Merged {
        kind,
        text: mark(&ours_text, &theirs_text),
        conflicts: raw.into_iter().map(named).collect(),
    })
}

/// Why `bytes` is not a valid preset (its first error), or `None` when it is.
fn preset_error(path: &Path, bytes: &[u8]) -> Option<String> {
    let (preset, report) = crate::preset::read(path, bytes, false);
    match preset {
        Some(_) if !report.has_errors() => None,
        _ => Some(report.first_error_line().unwrap_or_default()),
    }
}

fn merge_presets(path: &Path, base: &[u8], ours: &[u8], theirs: &[u8]) -> Result<Merged, Refusal> {
    let read = |side: &'static str, bytes: &[u8]| -> Result<Option<Json>, Refusal> {
        if side == "base" && bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        if let Some(reason) = preset_error(path, bytes) {
            return Err(Refusal::Unreadable { side, reason });
        }
        json::parse(bytes)
            .map(Some)
            .map_err(|f| Refusal::Unreadable {
                side,
                reason: f.message,
            })
    };
    let (b, o, t) = (
        read("base", base)?,
        read("ours", ours)?,
        read("theirs", theirs)?,
    );
    let render = |prefer| -> Result<(String, Vec<RawConflict>), Refusal> {
        let mut m = Merger::new(Schema::Preset, prefer);
        let tree = m
            .value(&mut Vec::new(), b.as_ref(), o.as_ref(), t.as_ref())
            .unwrap_or_default();
        // Karenina's `save_preset` bytes: indent=2, ASCII-escaped.
        let text = crate::pyjson::dumps(&tree, true);
        if let Some(reason) = preset_error(path, text.as_bytes()) {
            return Err(Refusal::Unmergeable {
                what: "preset",
                reason,
            });
        }
        Ok((text, m.conflicts))
    };
    finish(Kind::Preset, render)
}

/// Names a conflict by question and field.
fn named(c: RawConflict) -> Conflict {
    let mut steps = c.path.iter().peekable();
    let mut question = None;
    let mut field = String::new();
    if let (Some(Step::Key(k)), Some(Step::Elem(_))) = (c.path.first(), c.path.get(1)) {
        if k == "dataFeedElement" {
            steps.next();
            if let Some(Step::Elem(id)) = steps.next() {
                question = Some(id.clone());
            }
        }
    }
    for s in steps {
        match s {
            Step::Key(k) => {
                if !field.is_empty() {
                    field.push('.');
                }
                field.push_str(k);
            }
            Step::Elem(e) => field.push_str(&format!("[{e}]")),
        }
    }
    if field.is_empty() {
        field = if question.is_some() {
            "(the question)".to_string()
        } else {
            "(the file)".to_string()
        };
    } else if question.is_none() && field == "dataFeedElement" {
        field = "dataFeedElement (question order)".to_string();
    }
    Conflict {
        question,
        field,
        base: c.base,
        ours: c.ours,
        theirs: c.theirs,
    }
}

/// `ours` with git-style markers around each run of lines that differs from
/// `theirs` (both are the same merge, taking a different side of each conflict).
/// Patience diff: it anchors on unique lines (IDs, texts), so a question
/// moved or removed is one block, not fragments aligned on shared `{` lines.
pub fn mark(ours: &str, theirs: &str) -> String {
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Patience)
        .diff_lines(ours, theirs);
    let (a, b) = (diff.old_slices(), diff.new_slices());
    let mut out = String::with_capacity(ours.len() + 256);
    let line = |out: &mut String, l: &str| {
        out.push_str(l);
        if !l.ends_with('\n') {
            out.push('\n');
        }
    };
    let mut hunk: Option<(Vec<&str>, Vec<&str>)> = None;
    let flush = |out: &mut String, hunk: &mut Option<(Vec<&str>, Vec<&str>)>| {
        if let Some((x, y)) = hunk.take() {
            out.push_str(MARKER_OURS);
            out.push('\n');
            x.iter().for_each(|l| line(out, l));
            out.push_str(MARKER_SEP);
            out.push('\n');
            y.iter().for_each(|l| line(out, l));
            out.push_str(MARKER_THEIRS);
            out.push('\n');
        }
    };
    for op in diff.ops() {
        match *op {
            similar::DiffOp::Equal { old_index, len, .. } => {
                flush(&mut out, &mut hunk);
                a[old_index..old_index + len]
                    .iter()
                    .for_each(|l| out.push_str(l));
            }
            similar::DiffOp::Delete {
                old_index, old_len, ..
            } => {
                let h = hunk.get_or_insert_with(Default::default);
                h.0.extend(&a[old_index..old_index + old_len]);
            }
            similar::DiffOp::Insert {
                new_index, new_len, ..
            } => {
                let h = hunk.get_or_insert_with(Default::default);
                h.1.extend(&b[new_index..new_index + new_len]);
            }
            similar::DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                let h = hunk.get_or_insert_with(Default::default);
                h.0.extend(&a[old_index..old_index + old_len]);
                h.1.extend(&b[new_index..new_index + new_len]);
            }
        }
    }
    flush(&mut out, &mut hunk);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_go_around_the_differing_lines_only() {
        let m = mark("a\nb\nc\nd", "a\nB\nc\nd");
        assert_eq!(
            m,
            format!("a\n{MARKER_OURS}\nb\n{MARKER_SEP}\nB\n{MARKER_THEIRS}\nc\nd")
        );
    }
}
