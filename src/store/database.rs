//! Karenina's results database into the store ([`crate::results::database`]):
//! each run is one input, `DB#run=<run id>`, and one results graph named
//! `<the database's file URL>#run=<run id>`.

use super::{Content, GraphInfo, Prepared};
use crate::error::{Error, Result};
use crate::rdf;
use crate::results::{database, ResultsOptions};
use oxigraph::model::GraphName;
use std::path::{Path, PathBuf};

/// The separator between a database file and a run id in an input name.
pub const RUN: &str = "#run=";

/// The inputs of a database file: one per run (`DB#run=<id>`).
pub fn run_inputs(file: &Path) -> Result<Vec<PathBuf>> {
    let c = database::open(file)?;
    Ok(database::runs(file, &c)?
        .into_iter()
        .map(|r| PathBuf::from(format!("{}{RUN}{}", file.display(), r.id)))
        .collect())
}

/// Splits an input `DB#run=<id>` naming a database run.
pub fn split(path: &Path) -> Option<(PathBuf, String)> {
    let s = path.to_str()?;
    let (db, id) = s.rsplit_once(RUN)?;
    let db = PathBuf::from(db);
    (!path.exists() && database::sniff_file(&db)).then(|| (db, id.to_string()))
}

/// Reads one run of a database.
pub(super) fn prepare(db: &Path, run_id: &str, opts: ResultsOptions) -> Result<Prepared> {
    let c = database::open(db)?;
    let runs = database::runs(db, &c)?;
    let run = runs
        .iter()
        .find(|r| r.id == run_id)
        .ok_or_else(|| Error::Usage(format!("{}: no run {run_id}", db.display())))?;
    let canon = std::fs::canonicalize(db).map_err(|e| Error::io(db, e))?;
    let id_enc: String = url::form_urlencoded::byte_serialize(run_id.as_bytes()).collect();
    let mut info = GraphInfo::results(
        format!("{}{RUN}{id_enc}", rdf::file_url(&canon)?),
        format!("{}{RUN}{run_id}", canon.display()),
    );
    if run.status != "completed" {
        info.notes.push(format!("run status {}", run.status));
    }
    if run.missing_questions > 0 {
        info.notes.push(format!(
            "{} of its {} results reference a question the database does not hold",
            run.missing_questions, run.results
        ));
    }
    if let Some(b) = &run.benchmark {
        info.benchmark_name = Some(b.name.clone());
        if let Some(p) = &b.checkpoint_path {
            let cwd = std::env::current_dir().map_err(|e| Error::io(db, e))?;
            let tries = [
                cwd.join(p),
                canon.parent().map(|d| d.join(p)).unwrap_or_default(),
            ];
            match tries.iter().find(|t| t.is_file()) {
                Some(f) => {
                    let f = std::fs::canonicalize(f).map_err(|e| Error::io(f, e))?;
                    info.benchmark = Some(rdf::file_url(&f)?);
                }
                None => info.notes.push(format!(
                    "benchmark {:?}: checkpoint_path {p:?} not found",
                    b.name
                )),
            }
        }
    }
    let g = GraphName::NamedNode(crate::error::named_node(info.graph.clone())?);
    let mut quads = Vec::new();
    database::map_run(db, &c, run, &g, opts, &mut |q| quads.push(q))?;
    info.quads = quads.len();
    // The run's own digest (the database's bytes and the run id): two runs
    // of one database are never "the same bytes".
    let mut h = <sha2::Sha256 as sha2::Digest>::new();
    let mut f = std::fs::File::open(db).map_err(|e| Error::io(db, e))?;
    std::io::copy(&mut f, &mut h).map_err(|e| Error::io(db, e))?;
    sha2::Digest::update(&mut h, run_id.as_bytes());
    info.sha256 = format!("{:x}", sha2::Digest::finalize(h));
    Ok(Prepared {
        info,
        content: Content::Quads(quads),
    })
}
