//! Ingest: reading one input (a checkpoint, a results export, a run folder,
//! a database run, a store directory's graph file), telling what it is by its
//! content, and mapping it to quads in its named graph, all before the store
//! is touched, so a bad file never changes the store.

use super::stream::{stream_chunks, stream_threshold};
use super::{database, folder, GraphInfo, GraphKind};
use crate::error::{Error, Result};
use crate::kind::Input;
use crate::model::{self, Checkpoint, ReadOptions};
use crate::rdf::verification::ResultsOptions;
use crate::rdf::{self, Processor};
use oxigraph::model::{GraphName, NamedNode, Quad};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// A checkpoint read and ready for the store, not yet in it.
pub struct Prepared {
    /// Provenance of the graph.
    pub info: GraphInfo,
    pub(super) content: Content,
}

/// Small files arrive as quads (mapped on a worker thread, so the inserting
/// thread only inserts); big ones as the model, streamed into the store at
/// insert time so their quads never all exist at once.
pub(super) enum Content {
    Quads(Vec<Quad>),
    Model(Box<Checkpoint>),
    /// A big results export: read and mapped on a second thread while the
    /// inserting thread inserts, in bounded chunks.
    ResultsFile(PathBuf, ResultsOptions),
    /// A big graph file of a store directory, parsed the same way.
    NQuadsFile(PathBuf),
}

impl Prepared {
    /// The quads, in `info.graph` (a big results export is read now).
    pub fn into_quads(self) -> Result<Vec<Quad>> {
        let g = || GraphName::NamedNode(NamedNode::new_unchecked(self.info.graph.clone()));
        Ok(match self.content {
            Content::Quads(q) => q,
            Content::Model(cp) => rdf::lossless::direct_quads(&cp, &g()),
            c @ (Content::ResultsFile(..) | Content::NQuadsFile(_)) => {
                let mut quads = Vec::new();
                stream_chunks(&c, &g(), &mut None, |chunk| quads.extend(chunk))?;
                quads
            }
        })
    }
}

/// The graph IRI for a checkpoint file: its canonical path as a `file://` URL
/// (for a database run `DB#run=<id>`, `database::graph_name`).
pub fn graph_name_for(path: &Path) -> Result<String> {
    if let Some((db, run)) = crate::kind::database_run(path) {
        return database::graph_name(&db, &run);
    }
    if let Some((db, name)) = crate::kind::database_benchmark(path) {
        return database::benchmark_graph_name(&db, &name);
    }
    rdf::file_url(&crate::fsutil::canonical_input(path)?)
}

pub(super) fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

pub(super) fn now_utc() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// Reads a checkpoint and maps it to quads in its graph (no store involved), so
/// that a bad file never touches the store.
pub fn prepare(path: &Path, processor: Processor) -> Result<Prepared> {
    prepare_with(path, processor, ResultsOptions::default())
}

/// [`prepare`] with options for results exports (which are told from
/// checkpoints by their content).
pub fn prepare_with(
    path: &Path,
    processor: Processor,
    results_opts: ResultsOptions,
) -> Result<Prepared> {
    // What the input is, in the one order of `crate::kind::recognise`.
    let export = match crate::kind::recognise(path)? {
        Input::DatabaseRun { db, run } => return database::prepare(&db, &run, results_opts),
        Input::DatabaseBenchmark { db, name } => {
            return database::prepare_benchmark(&db, &name, Processor::Direct)
        }
        Input::RunFolder => return folder::prepare(path, results_opts),
        Input::Unfinished => return folder::prepare_state(path, results_opts),
        // A whole database is read run by run (`DB#run=ID`, listed by
        // `database::run_inputs`); one that comes here whole could not be
        // listed: its error, located like any bad input's.
        Input::Database => {
            return Err(match super::database::run_inputs(path) {
                Err(e) => e,
                Ok(runs) => Error::Usage(format!(
                    "{}: a results database is read run by run ({} runs: DB#run=ID)",
                    path.display(),
                    runs.len()
                )),
            })
        }
        Input::Export(_) => true,
        Input::File => false,
    };
    if export {
        // Results exports are streamed from disk: never held whole; big ones
        // are mapped only at insert time, straight into the store.
        let canon = crate::fsutil::canonical_input(path)?;
        let mut info = GraphInfo::results(rdf::file_url(&canon)?, canon.display().to_string());
        let size = crate::fsutil::input_len(path)?;
        // A repaired export is mapped whole with its repairs (never big
        // enough to stream: repairs are of finished runs' few bad rows).
        let repaired = !crate::results::repair::sidecars(path).is_empty();
        // (A run mapped to its keys, about 11 quads a result, is small
        // enough to map on a reading thread while another run is inserted.)
        if !repaired && !results_opts.keys_only && size >= stream_threshold() {
            let content = Content::ResultsFile(path.to_path_buf(), results_opts);
            return Ok(Prepared { info, content });
        }
        let g = GraphName::NamedNode(crate::error::named_node(info.graph.clone())?);
        let mut quads = Vec::new();
        let (sha, notes) = crate::rdf::verification::map_path_noting(
            path,
            &g,
            results_opts,
            &mut |q| quads.push(q),
            repaired,
        )?;
        info.sha256 = if repaired {
            crate::results::repair::digest_with_sidecars(path, sha)
        } else {
            sha
        };
        info.notes.extend(notes);
        info.quads = quads.len();
        let content = Content::Quads(quads);
        return Ok(Prepared { info, content });
    }
    let bytes = crate::fsutil::read_input(path)?;
    let cp = model::read_checkpoint(path, &bytes, ReadOptions::default())?;
    let sha256 = sha256_hex(&bytes);
    let big = bytes.len() as u64 >= stream_threshold();
    drop(bytes);
    let canon = crate::fsutil::canonical_input(path)?;
    let graph = rdf::file_url(&canon)?;
    let source = canon.display().to_string();
    let mut info = GraphInfo {
        graph: graph.clone(),
        source,
        sha256,
        loaded_at: now_utc(),
        quads: 0,
        kind: GraphKind::Checkpoint,
        binding: None,
        unbound: None,
        benchmark: None,
        notes: Vec::new(),
        errors: Vec::new(),
        benchmark_name: None,
        keys_only: false,
    };
    let content = if big && processor == Processor::Direct {
        Content::Model(Box::new(cp))
    } else {
        let g = GraphName::NamedNode(crate::error::named_node(graph)?);
        let quads = rdf::lossless_quads(&cp, &g, processor)?;
        info.quads = quads.len();
        Content::Quads(quads)
    };
    Ok(Prepared { info, content })
}
