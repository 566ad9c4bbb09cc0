//! Karenina's results database into the store ([`crate::results::database`]):
//! each run is one input, `DB#run=<run id>`, and one results graph named
//! `<the database's file URL>#run=<run id>`.

use super::{rdf_err, Content, GraphInfo, Prepared};
use crate::error::{Error, Result};
use crate::rdf;
use crate::results::{database, ResultsOptions};
use oxigraph::model::{GraphName, NamedNode};
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

/// The graph IRI of run `run_id` of database `db`:
/// `<the database's file URL>#run=<run id, form-encoded>`.
pub fn graph_name(db: &Path, run_id: &str) -> Result<String> {
    let canon = std::fs::canonicalize(db).map_err(|e| Error::io(db, e))?;
    let id_enc: String = url::form_urlencoded::byte_serialize(run_id.as_bytes()).collect();
    Ok(format!("{}{RUN}{id_enc}", rdf::file_url(&canon)?))
}

/// The SHA-256 of a database file's bytes (read streaming).
pub fn file_digest(db: &Path) -> Result<String> {
    let mut h = <sha2::Sha256 as sha2::Digest>::new();
    let mut f = std::fs::File::open(db).map_err(|e| Error::io(db, e))?;
    std::io::copy(&mut f, &mut h).map_err(|e| Error::io(db, e))?;
    Ok(format!("{:x}", sha2::Digest::finalize(h)))
}

/// A run's digest from its database's ([`file_digest`]) and its id: two runs
/// of one database are never "the same bytes", and any write to the
/// database is a change of every run.
pub fn run_digest(file_digest: &str, run_id: &str) -> String {
    let mut h = <sha2::Sha256 as sha2::Digest>::new();
    sha2::Digest::update(&mut h, file_digest.as_bytes());
    sha2::Digest::update(&mut h, run_id.as_bytes());
    format!("{:x}", sha2::Digest::finalize(h))
}

/// The checkpoint file a benchmark's `checkpoint_path` leads to (canonical):
/// as Karenina stored it, tried against the current directory, then the
/// database's directory.
pub fn checkpoint_at(db: &Path, checkpoint_path: &str) -> Option<PathBuf> {
    let dir = std::fs::canonicalize(db).ok()?.parent()?.to_path_buf();
    let cwd = std::env::current_dir().ok();
    cwd.map(|c| c.join(checkpoint_path))
        .into_iter()
        .chain([dir.join(checkpoint_path)])
        .find(|t| t.is_file())
        .and_then(|f| std::fs::canonicalize(f).ok())
}

/// The checkpoint graph the run `run_id` of `db` names by its benchmark's
/// `checkpoint_path`, if that file exists.
pub fn named_checkpoint(db: &Path, run_id: &str) -> Result<Option<String>> {
    let c = database::open(db)?;
    let run = database::runs(db, &c)?.into_iter().find(|r| r.id == run_id);
    let path = run
        .and_then(|r| r.benchmark)
        .and_then(|b| b.checkpoint_path);
    match path.and_then(|p| checkpoint_at(db, &p)) {
        Some(f) => Ok(Some(rdf::file_url(&f)?)),
        None => Ok(None),
    }
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
    let mut info = GraphInfo::results(
        graph_name(db, run_id)?,
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
            match checkpoint_at(db, p) {
                Some(f) => info.benchmark = Some(rdf::file_url(&f)?),
                None => info.notes.push(format!(
                    "benchmark {:?}: checkpoint_path {p:?} not found",
                    b.name
                )),
            }
        }
    }
    let g = GraphName::NamedNode(NamedNode::new(info.graph.clone()).map_err(rdf_err)?);
    let mut quads = Vec::new();
    database::map_run(db, &c, run, &g, opts, &mut |q| quads.push(q))?;
    info.quads = quads.len();
    info.sha256 = run_digest(&file_digest(db)?, run_id);
    Ok(Prepared {
        info,
        content: Content::Quads(quads),
    })
}
