//! Karenina verification-results exports (JSON 2.x and CSV) as graphs next
//! to the checkpoints they ran, so "pass rate per model per benchmark" is a
//! query.
//!
//! Reading (Karenina `results_exporter.py`; `docs/results.md`): the v2.2 stream writes the
//! header on line 1 and one row per line after it, so rows are read and mapped
//! one at a time (a 1 GB export never becomes one tree); a CSV is read record
//! by record into the same row shape ([`csv`]); older JSON layouts (a bare
//! array, `{"results": …}`, `{"runs": …}`) are parsed whole. Karenina writes
//! bare `NaN` / `Infinity` tokens, which strict JSON readers refuse: they are
//! read here and kept as `xsd:double` NaN / INF.
//!
//! The mapping (vocabulary `karenina:`, documented in `docs/results.md`): one node for
//! the run (job id, export time, Karenina version, format version, job summary
//! and configured models as JSON) and one per result (IRI
//! `urn:karenina:result:<result_id>` when the ID is unique in the file) with
//! its question ID (and `karenina:question <id>` when the ID is an IRI),
//! answering and parsing model, replicate, timestamp, evaluation mode, failure
//! category, verdicts, check outcomes, tokens, execution time, one
//! `karenina:score` node per score key (pointing to one `karenina:ScoredTrait`
//! node per trait), what Karenina's summary counts by (model display
//! strings, combo, MCP servers, template verification performed, failure
//! group and stage, outcome class, per-stage usage, agent metrics: see
//! [`outcome`]), and everything no triple holds in one `rdf:JSON` literal
//! (`karenina:rest`). Raw responses and traces are dropped unless asked for:
//! they are most of a file's size and rarely queried.

pub mod coerce;
mod csv_cells;
pub(crate) mod csv_export;
pub mod gui_csv;
pub mod lacks;
pub mod outcome;
pub mod progress;
pub(crate) mod quads;
pub mod repair;
pub mod run_folder;
mod score_dicts;
pub mod task_eval;
pub mod workspace;

pub use quads::{RowMapper, CSV_RESULT_ID};

use crate::error::{Error, Result};
use crate::vocab::{RDF_JSON, XSD_DATETIME, XSD_INTEGER};
use oxigraph::model::{GraphName, Quad};
use oxigraph::model::{Literal, NamedNode, Term};
use sha2::{Digest, Sha256};
use std::io::{BufRead, Read};
use std::path::Path;

// The NaN-token scanner is JSON's (`crate::json::nan`); the readers here
// (and their children) use it under its old local names.
use crate::json::nan::{replace_tokens as nan_tokens, NAN, NEG_INF, POS_INF};

/// The manifest's file name in a run folder.
pub const MANIFEST: &str = "run_manifest.json";

/// True when `dir` is a run folder (a directory holding `run_manifest.json`).
pub fn is_run_folder(dir: &Path) -> bool {
    dir.join(MANIFEST).is_file()
}

/// A `karenina:` term.
pub(super) use crate::vocab::term as k;

/// A timestamp: `xsd:dateTime` when RFC 3339, else a plain literal.
pub(super) fn time(s: &str) -> Term {
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
pub(super) fn json(v: &impl serde::Serialize) -> Term {
    Term::Literal(Literal::new_typed_literal(
        serde_json::to_string(v).unwrap_or_default(),
        NamedNode::new_unchecked(RDF_JSON),
    ))
}

/// An `xsd:integer`.
pub(super) fn int(n: u64) -> Term {
    Term::Literal(Literal::new_typed_literal(
        n.to_string(),
        NamedNode::new_unchecked(XSD_INTEGER),
    ))
}

/// Why a row is not a verification result (its reader locates it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RowError(pub String);

impl From<&str> for RowError {
    fn from(m: &str) -> Self {
        RowError(m.to_string())
    }
}

/// Options for reading results.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResultsOptions {
    /// Keep raw responses and traces (in `karenina:rest`).
    pub with_traces: bool,
}

/// The two export formats Karenina writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// JSON (`format_version` 2.x, the v2.2 stream, or an older layout).
    Json,
    /// CSV (`export_verification_results_csv`).
    Csv,
    /// A TaskEval export (`TaskEvalResult.export_json()`): verification
    /// results grouped by step, no run header ([`task_eval`]).
    TaskEval,
    /// A karenina-gui CSV export, plain or custom ([`gui_csv`]).
    GuiCsv,
}

/// Which results export `head` (the first bytes of a file) starts, if any:
/// decided by content, not by file name.
pub fn sniff(head: &[u8]) -> Option<Layout> {
    let head = &head[..head.len().min(4096)];
    let text = String::from_utf8_lossy(head);
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if gui_csv::sniff(t.lines().next().unwrap_or("")) {
        return Some(Layout::GuiCsv);
    }
    if t.starts_with("question_id,success,") || t.starts_with("row_index,") {
        return Some(Layout::Csv);
    }
    if task_eval::sniff(t) {
        return Some(Layout::TaskEval);
    }
    if t.starts_with('[') {
        // A bare array of rows.
        return (t.contains("\"metadata\"") && t.contains("\"template\"")).then_some(Layout::Json);
    }
    // An object whose first key is one Karenina's exports start with
    // (`format_version` for 2.x; `results`, `runs`, `metadata` for older
    // layouts): other JSON that merely mentions `format_version` (a summary
    // of an export, a preset) is not one.
    let first_key = t
        .strip_prefix('{')
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix('"'))
        .and_then(|r| r.split_once('"'))
        .map(|(k, _)| k);
    let known = matches!(
        first_key,
        Some("format_version" | "results" | "runs" | "metadata")
    );
    (known
        && (t.contains("\"format_version\"") || first_key == Some("runs"))
        && !t.contains("\"@context\""))
    .then_some(Layout::Json)
}

/// [`sniff`] on the first 4 KiB of a file.
pub fn sniff_file(file: &Path) -> Result<Option<Layout>> {
    Ok(sniff(&crate::fsutil::input_head(file, 4096)?))
}

fn located(file: &Path, line: usize, col: usize, path: &str, m: impl std::fmt::Display) -> Error {
    Error::Located {
        file: file.to_path_buf(),
        line,
        column: col,
        code: "KLD-E201",
        at: path.to_string(),
        message: m.to_string(),
    }
}

/// A row as Karenina's models read it ([`coerce::row`]), or the value they
/// refuse, located (`file:line:col: error[KLD-E201] at /results/3/metadata/replicate`).
pub(crate) fn coerced(
    file: &Path,
    line: usize,
    path: &str,
    mut row: serde_json::Value,
) -> Result<serde_json::Value> {
    match coerce::row(&mut row) {
        Ok(()) => Ok(row),
        Err(r) => Err(located(
            file,
            line,
            1,
            &format!("{path}{}", r.path),
            r.reason,
        )),
    }
}

fn parse_value(file: &Path, text: &str, line0: usize, path: &str) -> Result<serde_json::Value> {
    serde_json::from_str(&nan_tokens(text)).map_err(|e| {
        located(
            file,
            line0 + e.line() - 1,
            e.column(),
            path,
            format!("invalid JSON: {e}"),
        )
    })
}

/// What a reader hands on: the run header once, then each row with its JSON
/// path; a row error message is located by the reader.
pub trait Visit {
    /// The header (`format_version`, `metadata`; `{}` for a bare array).
    fn header(&mut self, header: &serde_json::Value);
    /// One row.
    fn row(&mut self, row: serde_json::Value) -> std::result::Result<(), RowError>;
    /// One row with its JSON path in the file (`/results/3`): readers call
    /// this; visitors that report what a row lacks override it.
    fn row_at(&mut self, path: &str, row: serde_json::Value) -> std::result::Result<(), RowError> {
        let _ = path;
        self.row(row)
    }
    /// The rows after this call are of a TaskEval step (`Some(step)`) or of
    /// its global evaluation (`None`); never called for other files.
    fn step(&mut self, step: Option<&str>) {
        let _ = step;
    }
}

/// Reads a results export from disk, streamed (the file is never held
/// whole, except an old whole-document JSON layout), handing its header and
/// rows to `visit`. Returns the SHA-256 of the file's bytes.
pub fn read_path(file: &Path, visit: &mut dyn Visit) -> Result<String> {
    let f = crate::fsutil::open_input(file)?;
    let mut hashing = Hashing {
        inner: f,
        hasher: Sha256::new(),
    };
    // Whatever follows the rows (`scenario_results`, `}`) is hashed too.
    read_from(file, &mut hashing, visit, true)?;
    Ok(format!("{:x}", hashing.hasher.finalize()))
}

/// [`read_path`] without hashing the file's bytes, for readers that need
/// no hash (a summary): SHA-256 of a 100 MB export is a third of reading it.
pub fn read_path_unhashed(file: &Path, visit: &mut dyn Visit) -> Result<()> {
    let mut f = crate::fsutil::open_input(file)?;
    read_from(file, &mut f, visit, false)
}

fn read_from(file: &Path, inner: &mut dyn Read, visit: &mut dyn Visit, drain: bool) -> Result<()> {
    let mut r = std::io::BufReader::with_capacity(1 << 16, inner);
    // The layout from the buffered head (no second open).
    let head = r.fill_buf().map_err(|e| Error::io(file, e))?;
    match sniff(head) {
        Some(Layout::Csv) => csv_export::read(file, &mut r, visit)?,
        Some(Layout::TaskEval) => task_eval::read(file, &mut r, visit)?,
        Some(Layout::GuiCsv) => gui_csv::read(file, &mut r, visit)?,
        _ => read_json(file, &mut r, visit)?,
    }
    if drain {
        std::io::copy(&mut r, &mut std::io::sink()).map_err(|e| Error::io(file, e))?;
    }
    Ok(())
}

/// Hashes what passes through it.
struct Hashing<R> {
    inner: R,
    hasher: Sha256,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// Reads one `\n`-terminated line (without it); `None` at the end.
fn next_line(r: &mut dyn BufRead, buf: &mut Vec<u8>, file: &Path) -> Result<Option<()>> {
    buf.clear();
    let n = r.read_until(b'\n', buf).map_err(|e| Error::io(file, e))?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(()))
}

fn utf8<'a>(file: &Path, line: usize, bytes: &'a [u8]) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| {
        located(
            file,
            line,
            e.valid_up_to() + 1,
            "",
            format!("not UTF-8: {e}"),
        )
    })
}

const STREAM_HEADER_END: &str = ",\"results\":[";

fn read_json(file: &Path, r: &mut dyn BufRead, visit: &mut dyn Visit) -> Result<()> {
    let mut buf = Vec::new();
    if next_line(r, &mut buf, file)?.is_none() {
        return Err(located(file, 1, 1, "", "empty file"));
    }
    let first = utf8(file, 1, &buf)?
        .trim_start_matches('\u{feff}')
        .to_string();
    // The v2.2 stream: header line ending in `,"results":[`, then one row per line.
    if first.ends_with(STREAM_HEADER_END) && first.starts_with('{') {
        let header = format!("{}}}", &first[..first.len() - STREAM_HEADER_END.len()]);
        let header = parse_value(file, &header, 1, "")?;
        check_header(file, &header)?;
        visit.header(&header);
        let mut index = 0;
        let mut n = 1;
        let mut closed = false;
        while next_line(r, &mut buf, file)?.is_some() {
            n += 1;
            let line = utf8(file, n, &buf)?;
            let row = line.trim_end_matches(',');
            if row.is_empty() {
                continue;
            }
            if row.starts_with(']') {
                closed = true;
                break;
            }
            let path = format!("/results/{index}");
            let v = coerced(file, n, &path, parse_value(file, row, n, &path)?)?;
            visit
                .row_at(&path, v)
                .map_err(|m| located(file, n, 1, &path, m))?;
            index += 1;
        }
        if !closed {
            return Err(located(
                file,
                n + 1,
                1,
                "/results",
                "truncated: the results array is never closed",
            ));
        }
        return Ok(());
    }
    // Other layouts: the whole document.
    let mut text = first;
    text.push('\n');
    let mut rest = Vec::new();
    r.read_to_end(&mut rest).map_err(|e| Error::io(file, e))?;
    text.push_str(utf8(file, 2, &rest)?);
    read_document(file, &text, visit)
}

fn read_document(file: &Path, text: &str, visit: &mut dyn Visit) -> Result<()> {
    let v = parse_value(file, text, 1, "")?;
    let rows: Vec<(String, &serde_json::Value)> = match &v {
        serde_json::Value::Array(a) => {
            visit.header(&serde_json::json!({}));
            a.iter()
                .enumerate()
                .map(|(i, r)| (format!("/{i}"), r))
                .collect()
        }
        serde_json::Value::Object(o) => {
            check_header(file, &v)?;
            visit.header(&v);
            match (o.get("results"), o.get("runs")) {
                (Some(serde_json::Value::Array(a)), _) => a
                    .iter()
                    .enumerate()
                    .map(|(i, r)| (format!("/results/{i}"), r))
                    .collect(),
                (_, Some(serde_json::Value::Object(runs))) => runs
                    .iter()
                    .flat_map(|(name, rs)| {
                        rs.as_array()
                            .into_iter()
                            .flatten()
                            .enumerate()
                            .map(move |(i, r)| (format!("/runs/{name}/{i}"), r))
                    })
                    .collect(),
                _ => {
                    return Err(located(
                        file,
                        1,
                        1,
                        "/results",
                        "no `results` array and no `runs` object",
                    ))
                }
            }
        }
        _ => {
            return Err(located(
                file,
                1,
                1,
                "",
                "a results export is a JSON object or array",
            ))
        }
    };
    for (path, r) in rows {
        let r = coerced(file, 1, &path, r.clone())?;
        visit
            .row_at(&path, r)
            .map_err(|m| located(file, 1, 1, &path, m))?;
    }
    Ok(())
}

/// A [`Visit`]or that maps what a reader hands it into quads: an export
/// read from a file, a run folder's results, a database run's rows.
pub(crate) struct Mapping<'a> {
    pub(crate) mapper: RowMapper,
    pub(crate) sink: &'a mut dyn FnMut(Quad),
    /// Whether a header was seen (a run folder's sidecar may have none).
    pub(crate) header_seen: bool,
    /// What the rows lack for Karenina's numbers.
    pub(crate) lacks: lacks::Lacks,
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
            lacks: lacks::Lacks::default(),
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
    Ok(map_path_noting(file, graph, opts, sink)?.0)
}

/// [`map_path`], also returning what the file lacks for Karenina's numbers
/// ([`lacks::Lacks::messages`]: `at /results/0/metadata: lacks …`, for a
/// message that names the file first; empty for a file Karenina's Python
/// wrote).
pub fn map_path_noting(
    file: &Path,
    graph: &GraphName,
    opts: ResultsOptions,
    sink: &mut dyn FnMut(Quad),
) -> Result<(String, Vec<String>)> {
    let mut m = Mapping::new(graph, opts, sink);
    let sha = read_path(file, &mut m)?;
    Ok((sha, m.lacks.messages()))
}

/// [`map_path`] for an export with `karenina repair` sidecars beside it
/// ([`repair::sidecars`]): its repairs are mapped too. Returns the file's
/// SHA-256 and its notes: what it lacks for Karenina's numbers (as
/// [`map_path_noting`]) and the repairs' located warnings (`KLD-W202`).
pub fn map_path_with_repairs(
    file: &Path,
    graph: &GraphName,
    opts: ResultsOptions,
    sink: &mut dyn FnMut(Quad),
) -> Result<(String, Vec<String>)> {
    let mut m = Mapping::new(graph, opts, sink);
    m.mapper.record_rows();
    let sha = read_path(file, &mut m)?;
    if !m.header_seen {
        m.mapper.run(&serde_json::json!({}), m.sink);
    }
    let run = oxigraph::model::NamedOrBlankNode::BlankNode(m.mapper.run_node().clone());
    let rows = m.mapper.take_recorded();
    let repaired = repair::map(file, &run, &rows, graph, &mut *m.sink);
    let mut notes = m.lacks.messages();
    notes.extend(repaired.warnings);
    Ok((sha, notes))
}

fn check_header(file: &Path, v: &serde_json::Value) -> Result<()> {
    match v.get("format_version") {
        None => Ok(()),
        Some(serde_json::Value::String(s)) if s.starts_with("2.") => Ok(()),
        Some(other) => Err(located(
            file,
            1,
            1,
            "/format_version",
            format!("unknown format_version {other}: kld reads Karenina's 2.x exports"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniff_wants_an_export_s_first_key() {
        let export = br#"{"format_version": "2.2", "metadata": {"job_id": "x"},"results":["#;
        assert_eq!(sniff(export), Some(Layout::Json));
        assert_eq!(
            sniff(b"{\n  \"format_version\": \"2.1\",\n  \"results\": []}"),
            Some(Layout::Json)
        );
        assert_eq!(sniff(br#"{"runs": {}}"#), Some(Layout::Json));
        // A summary of an export, which mentions format_version further down.
        let summary = br#"{"file": "a.json", "csv": "a.csv", "format_version": "2.2"}"#;
        assert_eq!(sniff(summary), None);
    }

    #[test]
    fn nan_tokens_outside_strings_only() {
        let t = r#"{"a": NaN, "b": "NaN and Infinity", "c": [-Infinity, Infinity], "d": "é\"NaN"}"#;
        let out = nan_tokens(t);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["a"], NAN);
        assert_eq!(v["b"], "NaN and Infinity");
        assert_eq!(v["c"][0], NEG_INF);
        assert_eq!(v["c"][1], POS_INF);
        assert_eq!(v["d"], "é\"NaN");
    }
}
