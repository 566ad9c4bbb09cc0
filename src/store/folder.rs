//! Karenina's runs that are not an export file, into the store: run folders
//! ([`crate::results::run_folder`]), the progressive-save sidecars of an
//! unfinished run ([`crate::results::progress`]), and database runs
//! ([`super::database`]).

use super::{Content, GraphInfo, Prepared};
use crate::error::{Error, Result};
use crate::rdf;
use crate::rdf::verification::{map_progress, map_run_folder, ResultsOptions};
use crate::results::{progress, run_folder};
use oxigraph::model::GraphName;
use std::path::Path;

/// The checkpoint graph a run names itself, from its source (as the store
/// and the provenance record it): a run folder's or a `.state` sidecar's
/// `benchmark_path`, a database run's `checkpoint_path`; none when the
/// source is gone, is an export, or names no existing file. How a store
/// directory reopened, or a server, binds a run as it was bound when read.
pub fn benchmark_named_by(source: &str) -> Option<String> {
    let path = Path::new(source);
    if let Some((db, run)) = crate::kind::database_run(path) {
        return super::database::named_checkpoint(&db, &run).ok().flatten();
    }
    let cwd = std::env::current_dir().ok()?;
    let file = if path.is_dir() && run_folder::is_run_folder(path) {
        match run_folder::read(path, &cwd).ok()?.benchmark {
            run_folder::Benchmark::File(f) => f,
            run_folder::Benchmark::Missing(_) => return None,
        }
    } else if progress::is_state_input(path, true) {
        let state = progress::read_state(path).ok()?;
        progress::benchmark_of(path, &state, &cwd)?
    } else {
        return None;
    };
    rdf::file_url(&file).ok()
}

/// An unfinished run's sidecars: one results graph named after its `.state`
/// file; `benchmark` is the checkpoint its `benchmark_path` names.
pub(super) fn prepare_state(file: &Path, opts: ResultsOptions) -> Result<Prepared> {
    let state = progress::read_state(file)?;
    let cwd = std::env::current_dir().map_err(|e| Error::io(file, e))?;
    let canon = std::fs::canonicalize(file).map_err(|e| Error::io(file, e))?;
    let mut info = GraphInfo::results(rdf::file_url(&canon)?, canon.display().to_string());
    let tasks = |n: Option<u64>| n.map_or("?".to_string(), |n| n.to_string());
    info.notes.push(format!(
        "an unfinished run (its progressive-save sidecars): {} of {} tasks done",
        tasks(state.completed_count),
        tasks(state.total_tasks)
    ));
    info.notes.extend(progress::lacks(file, &state));
    match progress::benchmark_of(&canon, &state, &cwd) {
        Some(f) => info.benchmark = Some(rdf::file_url(&f)?),
        None => info.notes.push(format!(
            "benchmark_path {:?} not found; looking for its checkpoint by the run's question IDs instead",
            state.benchmark_path
        )),
    }
    let g = GraphName::NamedNode(crate::error::named_node(info.graph.clone())?);
    let mut quads = Vec::new();
    info.sha256 = map_progress(&canon, &state, &g, opts, &mut |q| quads.push(q))?;
    info.quads = quads.len();
    Ok(Prepared {
        info,
        content: Content::Quads(quads),
    })
}

/// A run folder: one results graph named after the folder, holding its
/// results and its manifest; `benchmark` is the checkpoint its manifest names.
pub(super) fn prepare(dir: &Path, opts: ResultsOptions) -> Result<Prepared> {
    let cwd = std::env::current_dir().map_err(|e| Error::io(dir, e))?;
    let run = run_folder::read(dir, &cwd)?;
    let canon = std::fs::canonicalize(dir).map_err(|e| Error::io(dir, e))?;
    let mut info = GraphInfo::results(rdf::file_url(&canon)?, canon.display().to_string());
    let status = run.manifest.status;
    if status != run_folder::RunStatus::Completed {
        let mut note = format!("run status {}", status.as_str());
        if let Some(t) = &run.manifest.failure_type {
            note.push_str(&format!(
                " ({t}: {})",
                run.manifest.failure_message.as_deref().unwrap_or("")
            ));
        }
        note.push_str(match (&run.results, &run.sidecar) {
            (Some(_), _) => "",
            (None, Some(_)) => "; results read from its progressive-save sidecar",
            (None, None) => "; no results",
        });
        info.notes.push(note);
    }
    if let Some(f) = &run.sidecar {
        if crate::results::progress::ends_partial(f)? {
            info.notes.push(format!(
                "{} ends in a partial line (a write cut short): skipped, as Karenina skips it",
                f.display()
            ));
        }
    }
    match &run.benchmark {
        run_folder::Benchmark::File(f) => info.benchmark = Some(rdf::file_url(f)?),
        run_folder::Benchmark::Missing(why) => info.notes.push(format!(
            "{why}; looking for its checkpoint by the run's question IDs instead"
        )),
    }
    let g = GraphName::NamedNode(crate::error::named_node(info.graph.clone())?);
    let mut quads = Vec::new();
    let mapped = map_run_folder(&run, &g, opts, &mut |q| quads.push(q))?;
    info.sha256 = mapped.sha256;
    info.notes.extend(mapped.warnings);
    info.quads = quads.len();
    Ok(Prepared {
        info,
        content: Content::Quads(quads),
    })
}
