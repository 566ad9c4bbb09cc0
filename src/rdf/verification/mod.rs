//! Karenina's verification results → quads: the results vocabulary
//! (`karenina:`, documented in docs/results.md), beside the checkpoint
//! mapping of [`crate::rdf`].
//!
//! [`crate::results`] reads what Karenina wrote into rows; this room maps
//! them, one at a time as a reader hands them on (`Mapping` is a
//! `Visit`or), so a 1 GB export never becomes one tree. One node for the
//! run (job id, export time, Karenina version, format version, job summary
//! and configured models as JSON) and one per result (IRI
//! `urn:karenina:result:<result_id>` when the ID is unique in the file) with
//! its question ID (and `karenina:question <id>` when the ID is an IRI),
//! answering and parsing model, replicate, timestamp, evaluation mode,
//! failure category, verdicts, check outcomes, tokens, execution time, one
//! `karenina:score` node per score key (pointing to one
//! `karenina:ScoredTrait` node per trait), what Karenina's summary counts by
//! (model display strings, combo, MCP servers, template verification
//! performed, failure group and stage, outcome class, per-stage usage, agent
//! metrics: see [`crate::results::outcome`]), and everything no triple holds
//! in one `rdf:JSON` literal (`karenina:rest`). Bare `NaN` / `Infinity` are
//! kept as `xsd:double` NaN / INF. Raw responses and traces are dropped
//! unless asked for ([`ResultsOptions`]): they are most of a file's size and
//! rarely queried.
//!
//! - `rows`: one row (or the run header) → quads ([`RowMapper`]);
//! - `prov`: a run's provenance as PROV-O (workspace captures, repairs);
//! - `run_node`: what a run folder's manifest and an unfinished run's
//!   state say about the run, on its node.
//!
//! ```
//! use karenina_ld::rdf::verification::{map_path, ResultsOptions};
//! use oxigraph::model::{GraphName, NamedNode};
//! # let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
//! let file = root.join("examples/runs/notebook.verification.json");
//! # if !file.exists() { return; }
//! let graph = GraphName::NamedNode(NamedNode::new("urn:run:example").unwrap());
//! let mut quads = Vec::new();
//! let sha256 = map_path(&file, &graph, ResultsOptions::default(), &mut |q| quads.push(q)).unwrap();
//! assert_eq!(sha256.len(), 64);
//! assert!(!quads.is_empty());
//! ```

pub(crate) mod prov;
pub(crate) mod rows;
pub(crate) mod run_node;

pub use rows::{RowMapper, CSV_RESULT_ID};
pub(crate) use run_node::{map_progress, map_run_folder};

use crate::error::Result;
use crate::results::lacks::Lacks;
use crate::results::{read_path, RowError, Visit};
use crate::vocab::{RDF_JSON, XSD_DATETIME, XSD_INTEGER};
use oxigraph::model::{GraphName, Literal, NamedNode, Quad, Term};
use std::path::Path;

/// Options for mapping results.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResultsOptions {
    /// Keep raw responses and traces (in `karenina:rest`).
    pub with_traces: bool,
    /// Map each result to its keys only (`KEYS`): what binding a run to
    /// its benchmark, telling one run from another and the `runs` view
    /// read. Every number is then the results table's, and SPARQL over a
    /// result's other fields finds nothing: for a server past one
    /// machine's memory whose quads go to a SPARQL server (`kld push`).
    pub keys_only: bool,
}

/// The properties of a result [`ResultsOptions::keys_only`] keeps (local
/// names of `karenina:` terms, and `rdf:type`): about 11 quads a result
/// instead of about 84.
pub(crate) const KEYS: [&str; 10] = [
    "run",
    "questionId",
    "question",
    "scenarioId",
    "scenarioNode",
    "resultId",
    CSV_RESULT_ID,
    "runName",
    "answeringInterface",
    "answeringModelName",
];

/// A `karenina:` term.
pub(crate) use crate::vocab::term as k;

/// A timestamp: `xsd:dateTime` when RFC 3339, else a plain literal.
pub(crate) fn time(s: &str) -> Term {
    if chrono::DateTime::parse_from_rfc3339(s).is_ok() {
        Term::Literal(Literal::new_typed_literal(
            s,
            NamedNode::new_unchecked(XSD_DATETIME),
        ))
    } else {
        Term::Literal(Literal::new_simple_literal(s))
    }
}

/// A value as an `rdf:JSON` literal.
pub(crate) fn json(v: &impl serde::Serialize) -> Term {
    Term::Literal(Literal::new_typed_literal(
        serde_json::to_string(v).unwrap_or_default(),
        NamedNode::new_unchecked(RDF_JSON),
    ))
}

/// An `xsd:integer`.
pub(crate) fn int(n: u64) -> Term {
    Term::Literal(Literal::new_typed_literal(
        n.to_string(),
        NamedNode::new_unchecked(XSD_INTEGER),
    ))
}

/// A [`Visit`]or that maps what a reader hands it into quads: an export
/// read from a file, a run folder's results, a database run's rows.
pub(crate) struct Mapping<'a> {
    pub(crate) mapper: RowMapper,
    pub(crate) sink: &'a mut dyn FnMut(Quad),
    /// Whether a header was seen (a run folder's sidecar may have none).
    pub(crate) header_seen: bool,
    /// What the rows lack for Karenina's numbers.
    pub(crate) lacks: Lacks,
}

impl<'a> Mapping<'a> {
    /// Maps into `graph`, calling `sink` for each quad.
    pub(crate) fn new(
        graph: &GraphName,
        opts: ResultsOptions,
        sink: &'a mut dyn FnMut(Quad),
    ) -> Self {
        Mapping {
            mapper: RowMapper::new(graph.clone(), opts),
            sink,
            header_seen: false,
            lacks: Lacks::default(),
        }
    }
}

impl Visit for Mapping<'_> {
    fn header(&mut self, header: &serde_json::Value) {
        self.header_seen = true;
        self.lacks.columns = header["source_format"] == "gui-csv";
        self.mapper.run(header, self.sink);
    }
    fn row(&mut self, row: serde_json::Value) -> std::result::Result<(), RowError> {
        self.mapper.row(row, self.sink)
    }
    fn row_at(&mut self, path: &str, row: serde_json::Value) -> std::result::Result<(), RowError> {
        self.lacks.check(path, &row);
        self.mapper.row(row, self.sink)
    }
    fn step(&mut self, step: Option<&str>) {
        self.mapper.set_step(step);
    }
}

/// Reads a results export and maps it into `graph`, calling `sink` for each
/// quad (rows are read and mapped one at a time). Returns the SHA-256 of the
/// file's bytes.
pub fn map_path(
    file: &Path,
    graph: &GraphName,
    opts: ResultsOptions,
    sink: &mut dyn FnMut(Quad),
) -> Result<String> {
    Ok(map_path_noting(file, graph, opts, sink, false)?.0)
}

/// [`map_path`], also returning the file's notes: what it lacks for
/// Karenina's numbers ([`Lacks::messages`]: `at /results/0/metadata: lacks
/// …`, for a message that names the file first; empty for a file Karenina's
/// Python wrote). With `repairs`, for an export with `karenina repair`
/// sidecars beside it ([`crate::results::repair::sidecars`]), its repairs are
/// mapped too (its rows are held until then) and their located warnings
/// (`KLD-W202`) follow the lacks.
pub(crate) fn map_path_noting(
    file: &Path,
    graph: &GraphName,
    opts: ResultsOptions,
    sink: &mut dyn FnMut(Quad),
    repairs: bool,
) -> Result<(String, Vec<String>)> {
    let mut m = Mapping::new(graph, opts, sink);
    if repairs {
        m.mapper.record_rows();
    }
    let sha = read_path(file, &mut m)?;
    let mut notes = m.lacks.messages();
    if repairs {
        if !m.header_seen {
            m.mapper.run(&serde_json::json!({}), m.sink);
        }
        let run = oxigraph::model::NamedOrBlankNode::BlankNode(m.mapper.run_node().clone());
        let rows = m.mapper.take_recorded();
        let repaired = prov::map_repairs(file, &run, &rows, graph, &mut *m.sink);
        notes.extend(repaired.warnings);
    }
    Ok((sha, notes))
}
