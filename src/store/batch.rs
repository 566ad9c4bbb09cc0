//! A batch of inputs read as every command reads them: loaded into an
//! in-memory store, runs reconciled (one run, one count) and bound. `kld
//! push` and `kld export` take what they send or write from it, so they
//! agree with `kld query` over the same inputs.

use super::{Bound, CheckpointStore};
use crate::error::{Error, Result};
use crate::rdf::verification::ResultsOptions;
use crate::rdf::Processor;
use crate::store::binding::link::Link;
use std::path::PathBuf;

/// A batch of inputs, read as a local load reads them.
pub struct Local {
    /// The in-memory store of what was read, runs reconciled and bound.
    pub store: CheckpointStore,
    /// Inputs that could not be read, with their error.
    pub failed: Vec<(PathBuf, Error)>,
    /// Copies of a run left out (`Link::Duplicate`), partial overlaps, and
    /// database copies of a benchmark whose file is loaded (`Link::Shadowed`).
    pub runs: Vec<Bound>,
    /// Inputs read with values left out, with the errors that say which
    /// ([`super::GraphInfo::errors`]).
    pub partial: Vec<(PathBuf, Vec<String>)>,
}

/// Reads `files` into an in-memory store and binds their runs, as `kld
/// query` does; `progress(done, total)` after each file.
pub fn read_inputs(
    files: &[PathBuf],
    opts: ResultsOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Local> {
    let mut store = CheckpointStore::in_memory()?;
    store.set_results_options(opts);
    let (mut failed, mut partial) = (Vec::new(), Vec::new());
    for (f, r) in store.load_files(files, Processor::Direct, progress) {
        match r {
            Err(e) => failed.push((f, e)),
            Ok(info) if !info.errors.is_empty() => partial.push((f, info.errors)),
            Ok(_) => {}
        }
    }
    let runs = store
        .bind(&[])?
        .into_iter()
        .filter(|b| {
            matches!(
                b.link,
                Link::Duplicate { .. } | Link::Overlap { .. } | Link::Shadowed { .. }
            )
        })
        .collect();
    Ok(Local {
        store,
        failed,
        runs,
        partial,
    })
}
