//! Karenina run folders into the store ([`crate::results::run_folder`]).

use super::{rdf_err, Content, GraphInfo, Prepared};
use crate::error::{Error, Result};
use crate::rdf;
use crate::results::{run_folder, ResultsOptions};
use oxigraph::model::{GraphName, NamedNode};
use std::path::Path;

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
        run_folder::Benchmark::Missing(why) => info
            .notes
            .push(format!("{why}; bound by question IDs instead")),
    }
    let g = GraphName::NamedNode(NamedNode::new(info.graph.clone()).map_err(rdf_err)?);
    let mut quads = Vec::new();
    info.sha256 = run_folder::map(&run, &g, opts, &mut |q| quads.push(q))?;
    info.quads = quads.len();
    Ok(Prepared {
        info,
        content: Content::Quads(quads),
    })
}
