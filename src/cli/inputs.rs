//! Reading inputs, shared by every command: expanding FILE|DIR arguments,
//! opening the store a reading command works on, telling a file given to
//! the wrong command what it is, and saying what binding did.
//!
//! Why a file of its own: these lived in `rdf.rs` and `checkpoint.rs`, and
//! every command that reads inputs imported those, which imported others
//! back (a circle of four files).

use super::{INVALID, OK};
use anyhow::{bail, Context};
use karenina_ld::kind::Kind;
use karenina_ld::store::CheckpointStore;
use std::path::{Path, PathBuf};

/// Expands inputs (in directories: checkpoints, and `.json`/`.csv` files
/// that are results exports); prints I/O problems; returns files and whether
/// any failed.
pub(super) fn files_of(inputs: &[PathBuf]) -> (Vec<PathBuf>, bool) {
    use karenina_ld::kind::Kind;
    // Karenina's results database comes back as one input per run.
    let found = karenina_ld::store::input_files(inputs);
    super::note_skipped(&found.skipped);
    let mut failed = !found.failed.is_empty();
    for e in &found.failed {
        eprintln!("kld: {e}");
    }
    let mut files = Vec::new();
    for f in found.files {
        // A named preset (or another non-checkpoint Karenina file) is a
        // usage error of one line; broken files go on to the reader.
        match wrong_kind(&f, &[Kind::Checkpoint, Kind::Results]) {
            Some(m) => {
                eprintln!("kld: {m}");
                failed = true;
            }
            None => files.push(f),
        }
    }
    (files, failed)
}

/// [`files_of`] for commands that write one answer: a missing or unreadable
/// input, or inputs holding no checkpoint and no results export, stop the
/// command before anything is loaded or written (exit 2).
pub(super) fn files_of_strict(inputs: &[PathBuf], store: bool) -> anyhow::Result<Vec<PathBuf>> {
    let (files, failed) = files_of(inputs);
    if failed {
        bail!("nothing was run (fix the inputs above)");
    }
    if files.is_empty() && !inputs.is_empty() && !store {
        bail!(
            "no checkpoints or results exports in {}",
            inputs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(files)
}

/// The store a reading command works on: an existing store directory opened
/// read-only (files named beside it are loaded in memory only), or an empty
/// in-memory store. Only `kld load` writes a store.
pub(super) fn open_store(dir: Option<&Path>) -> anyhow::Result<CheckpointStore> {
    Ok(match dir {
        Some(d) => match CheckpointStore::open_dir_read_only(d) {
            Err(e @ karenina_ld::Error::NotAStore { .. }) => {
                bail!("{e}; create one with `kld load --store DIR FILES`")
            }
            r => r.with_context(|| format!("opening store {}", d.display()))?,
        },
        None => CheckpointStore::in_memory()?,
    })
}

/// One line saying what `path` is and which command reads it, when it is
/// a Karenina file of a kind not in `wanted` (None otherwise: a broken or
/// unknown file goes on to the reader, which locates its errors).
pub(super) fn wrong_kind(path: &Path, wanted: &[Kind]) -> Option<String> {
    let k = karenina_ld::kind::of_file(path).ok()?;
    if wanted.contains(&k) {
        return None;
    }
    let readers = match k {
        Kind::Results => "kld info and kld query read it",
        Kind::Preset => "kld preset show and kld preset validate read it",
        Kind::Checkpoint => "kld validate, canon, info and query read it",
        Kind::Other => return None,
    };
    Some(format!("{} is {}: {readers}", path.display(), k.describe()))
}

/// Says what binding did, when there is something to say.
pub(super) fn report_binding(b: &karenina_ld::store::Bound) {
    use karenina_ld::store::binding::link::Link;
    if let Some(m) = b.message() {
        // The library names no flags; the CLI says which one chooses.
        match &b.link {
            Link::Ambiguous(_) | Link::NotItsBenchmark { .. } => {
                eprintln!("kld: {m} (use --for CHECKPOINT)")
            }
            // The checkpoint the user named with --for: say so in its terms.
            Link::Refused(c) => eprintln!(
                "kld: {}: {}--for {}: the checkpoint does not hold {} of the run's {} question IDs (e.g. {}); not bound",
                b.source,
                if b.requested { "" } else { "no longer bound: " },
                c.checkpoint,
                c.missing,
                c.total,
                c.examples.join(", ")
            ),
            _ => eprintln!("kld: {m}"),
        }
    }
}

/// Prints the errors of an input read with values left out
/// ([`karenina_ld::store::GraphInfo::errors`]) and what was done with the
/// rest (`done`: "loaded", "exported", …): exit 1 when there are any.
pub(super) fn report_partial(file: &Path, errors: &[String], done: &str) -> u8 {
    for e in errors {
        eprintln!("{e}");
    }
    if errors.is_empty() {
        return OK;
    }
    eprintln!(
        "{}: {done} without the {} value(s) above",
        file.display(),
        errors.len()
    );
    INVALID
}
