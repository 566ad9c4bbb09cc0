//! Three-way merge of checkpoints (and presets) as benchmarks: `kld git-merge`.
//!
//! Why: Karenina stamps the root `dateModified` on every save, so a text merge
//! of two branches that touched different questions always conflicts, and a
//! real conflict inside one question leaves a JSON file Karenina refuses to
//! load. Here the three versions are read through the normal reader, written
//! as Karenina's canonical bytes and merged as trees: questions by ID, traits
//! and properties by name, keywords by value, timestamps to the later one
//! (`tree`). The result is Karenina's exact bytes; a true conflict is
//! confined to the lines that differ between the merge taking our value and
//! the merge taking theirs, with git-style markers around just those lines
//! ([`mark`], question by question), and comes back as a typed [`Conflict`]
//! (question, field, why, both values). A merge that Karenina would refuse
//! though neither side was refused is redone with the trait, rubric or
//! question at fault in conflict (`gate`), so no clean merge is one
//! Karenina cannot load and run. A side that is not a checkpoint (or a preset, merged by config key)
//! is refused with a typed [`Refusal`], so the caller falls back to a text
//! merge. Nothing here prints.

mod gate;
mod mark;
mod tree;

use crate::json::{self, Json};
use crate::kind::{self, Kind};
use crate::model::{self, ReadOptions};
use crate::save::{write_checkpoint, WriteOptions};
use gate::ProblemKey;
pub use mark::{mark, MARKER_OURS, MARKER_SEP, MARKER_THEIRS};
use std::collections::{HashMap, HashSet};
use std::path::Path;
pub use tree::ConflictKind;
use tree::{Merger, Prefer, RawConflict, Schema, Step};

/// One conflict the merge could not resolve.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    /// The question's ID, when the conflict is inside one (or is one).
    pub question: Option<String>,
    /// What conflicts, relative to the question (or to the root): `item.acceptedAnswer.text`,
    /// `item.rating[clarity].description`, `additionalProperty[finished].value`,
    /// `(the question)` for an edit/delete, `dataFeedElement (question order)`
    /// for two reorderings (then the values are the orders, as lists of IDs),
    /// `dataFeedElement (question ID … repeated on ours)` for a list that
    /// cannot be merged question by question, `(the file)` for the whole file.
    pub field: String,
    /// Why it is a conflict.
    pub kind: ConflictKind,
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
    /// not together, in a preset; a checkpoint's become conflicts).
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

/// One version as the JSON of its canonical bytes, with the problems
/// Karenina refuses in it (`None` for an empty base).
type Side = Option<(Json, HashSet<ProblemKey>)>;

/// Reads one version: as the JSON of its canonical bytes and what Karenina refuses in it.
fn canonical_json(path: &Path, side: &'static str, bytes: &[u8]) -> Result<Side, Refusal> {
    if side == "base" && bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    // A 2025-08 `Dataset` file only reads upgraded; every other file reads as
    // Karenina reads it.
    let first = model::analyze(path, bytes, ReadOptions::default());
    let (cp, first_report) = match first.checkpoint {
        Some(cp) if !first.report.has_errors() => (cp, Some(first.report)),
        _ => {
            let upgraded = model::read_checkpoint(path, bytes, ReadOptions { upgrade: true })
                .map_err(|_| Refusal::Unreadable {
                    side,
                    reason: crate::error::Error::Invalid(Box::new(first.report)).first_reason(),
                })?;
            (upgraded, None)
        }
    };
    let text = write_checkpoint(&cp, &WriteOptions::default());
    drop(cp);
    let tree = json::parse(text.as_bytes()).map_err(|f| Refusal::Unreadable {
        side,
        reason: f.message,
    })?;
    // A side already in Karenina's bytes (as a checkpoint kept in git is)
    // was just analyzed as written: its report is reused, not read again
    // (a third of a 20,000-question merge's work).
    let report = match first_report {
        Some(r) if text.as_bytes() == bytes => r,
        _ => model::analyze(path, text.as_bytes(), ReadOptions::default()).report,
    };
    let found = gate::problems(&tree, &report)
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    Ok(Some((tree, found)))
}

/// One rendering of the merge.
struct Rendering {
    /// Karenina's bytes, when the merged tree reads without errors.
    text: Option<String>,
    conflicts: Vec<RawConflict>,
    /// What Karenina refuses in it that no side had: (units, cause).
    new: Vec<(Vec<Vec<Step>>, String)>,
}

/// How many times a merge is redone with more of it in conflict before the
/// whole file is.
const ROUNDS: usize = 4;

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
    fn tree(s: &Side) -> Option<&Json> {
        s.as_ref().map(|(j, _)| j)
    }
    let none = HashSet::new();
    let sides = [&o, &t].map(|s| s.as_ref().map_or(&none, |(_, p)| p));
    let render = |prefer, forced: &HashMap<Vec<Step>, String>| -> Rendering {
        let mut m = Merger::new(Schema::Checkpoint, prefer, forced);
        let merged = m
            .value(&mut Vec::new(), tree(&b), tree(&o), tree(&t))
            .unwrap_or_default();
        let bytes = crate::json::py::dumps(&merged, false);
        let a = model::analyze(path, bytes.as_bytes(), ReadOptions::default());
        let new = gate::new_problems(gate::problems(&merged, &a.report), &sides);
        let text = match a.checkpoint {
            Some(cp) if !a.report.has_errors() => {
                Some(write_checkpoint(&cp, &WriteOptions::default()))
            }
            _ => None,
        };
        Rendering {
            text,
            conflicts: m.conflicts,
            new,
        }
    };
    // A merge Karenina would refuse is redone with the units that hold each
    // new problem in conflict, until both renderings are free of them.
    let mut forced: HashMap<Vec<Step>, String> = HashMap::new();
    for round in 0..=ROUNDS {
        let (r_ours, r_theirs) = if forced.is_empty() {
            let r = render(Prefer::Ours, &forced);
            if r.conflicts.is_empty() {
                (r, None)
            } else {
                let t = render(Prefer::Theirs, &forced);
                (r, Some(t))
            }
        } else {
            let (x, y) = rayon::join(
                || render(Prefer::Ours, &forced),
                || render(Prefer::Theirs, &forced),
            );
            (x, Some(y))
        };
        let new: Vec<_> = r_ours
            .new
            .iter()
            .chain(r_theirs.iter().flat_map(|r| r.new.iter()))
            .cloned()
            .collect();
        if new.is_empty() {
            if let (Some(text), r_theirs) = (r_ours.text, r_theirs) {
                return Ok(match r_theirs {
                    None => Merged {
                        kind: Kind::Checkpoint,
                        text,
                        conflicts: Vec::new(),
                    },
                    Some(Rendering {
                        text: Some(theirs_text),
                        ..
                    }) => Merged {
                        kind: Kind::Checkpoint,
                        text: mark(&text, &theirs_text),
                        conflicts: r_ours.conflicts.into_iter().map(named).collect(),
                    },
                    Some(_) => break,
                });
            }
            break;
        }
        let mut added = false;
        for (units, cause) in new {
            for u in units {
                if let std::collections::hash_map::Entry::Vacant(e) = forced.entry(u) {
                    e.insert(cause.clone());
                    added = true;
                }
            }
        }
        if !added || round + 1 == ROUNDS {
            if forced.contains_key(&Vec::new()) {
                break;
            }
            // The whole file: each side of the conflict is one side's file.
            let cause = forced.values().next().cloned().unwrap_or_default();
            forced.insert(Vec::new(), cause);
        }
    }
    // Unreachable for sides that read (a conflict on the whole file renders each side as it is).
    Err(Refusal::Unmergeable {
        what: "checkpoint",
        reason: "no merge of the two sides reads".into(),
    })
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
        let mut m = Merger::new(Schema::Preset, prefer, tree::nothing_forced());
        let tree = m
            .value(&mut Vec::new(), b.as_ref(), o.as_ref(), t.as_ref())
            .unwrap_or_default();
        // Karenina's `save_preset` bytes: indent=2, ASCII-escaped.
        let text = crate::json::py::dumps(&tree, true);
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
    }
    let questions = question.is_none() && field == "dataFeedElement";
    match &c.kind {
        ConflictKind::Order if questions => field.push_str(" (question order)"),
        ConflictKind::Order => field.push_str(" (order)"),
        ConflictKind::RepeatedKey { side, key } if questions => {
            field.push_str(&format!(" (question ID {key} repeated on {side})"))
        }
        ConflictKind::RepeatedKey { side, key } => {
            field.push_str(&format!(" (name {key} repeated on {side})"))
        }
        ConflictKind::Unkeyed { side } => {
            field.push_str(&format!(" (an element without a key on {side})"))
        }
        ConflictKind::Changed | ConflictKind::Refused { .. } => {}
    }
    Conflict {
        question,
        field,
        kind: c.kind,
        base: c.base,
        ours: c.ours,
        theirs: c.theirs,
    }
}
