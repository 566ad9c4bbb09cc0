//! What Karenina wrote about a run, read into rows: verification-results
//! exports (JSON 2.x and CSV), TaskEval and GUI CSV exports, run folders,
//! progressive-save sidecars, workspace manifests and repair sidecars.
//!
//! Reading (Karenina `results_exporter.py`; `docs/results.md`): the v2.2 stream writes the
//! header on line 1 and one row per line after it, so rows are read and handed
//! on one at a time (`Visit`; a 1 GB export never becomes one tree); a CSV is
//! read record by record into the same row shape (`csv_export`); older JSON
//! layouts (a bare array, `{"results": …}`, `{"runs": …}`) are parsed whole.
//! Karenina writes bare `NaN` / `Infinity` tokens, which strict JSON readers
//! refuse: they are read here and kept as the JSON tokens of
//! `json::nan`.
//!
//! Nothing here makes RDF: the rows become quads in
//! [`crate::rdf::verification`] (the results vocabulary of docs/results.md),
//! beside the checkpoint mapping, and Karenina's numbers in
//! [`crate::numbers`].

pub(crate) mod coerce;
mod csv_cells;
pub(crate) mod csv_export;
pub(crate) mod gui_csv;
pub(crate) mod lacks;
pub mod outcome;
pub mod progress;
mod pydantic;
pub mod repair;
pub mod run_folder;
mod score_dicts;
pub(crate) mod task_eval;
pub mod workspace;

use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::io::{BufRead, Read};
use std::path::Path;

// The NaN-token scanner is JSON's (`crate::json::nan`); the readers here
// (and their children) use it under its old local names.
use crate::json::nan::{replace_tokens as nan_tokens, NAN, NEG_INF, POS_INF};

/// The score dictionaries of a row's `rubric`, with the trait family each
/// holds (`None`: a CSV export's trait columns, which do not say).
pub(crate) const SCORE_DICTS: &[(&str, Option<&str>)] = &[
    ("llm_trait_scores", Some("llm")),
    ("regex_trait_scores", Some("regex")),
    ("callable_trait_scores", Some("callable")),
    ("metric_trait_scores", Some("metric")),
    ("agentic_trait_scores", Some("agentic")),
    (csv_export::CSV_SCORES, None),
];

/// A located warning about a run's side file (a workspace manifest, a
/// repair sidecar): `file:line:column: warning[code] at pointer: message`,
/// the one shape `KLD-W201` and `KLD-W202` take; the run still loads.
pub(crate) fn located_warning(
    code: &str,
    file: &Path,
    line: usize,
    column: usize,
    at: &str,
    m: impl std::fmt::Display,
) -> String {
    format!(
        "{}:{line}:{column}: warning[{code}] at {at}: {m}",
        file.display()
    )
}

/// The manifest's file name in a run folder.
pub const MANIFEST: &str = "run_manifest.json";

/// True when `dir` is a run folder (a directory holding `run_manifest.json`).
pub fn is_run_folder(dir: &Path) -> bool {
    dir.join(MANIFEST).is_file()
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

/// The two export formats Karenina writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// JSON (`format_version` 2.x, the v2.2 stream, or an older layout).
    Json,
    /// CSV (`export_verification_results_csv`).
    Csv,
    /// A TaskEval export (`TaskEvalResult.export_json()`): verification
    /// results grouped by step, no run header (`task_eval`).
    TaskEval,
    /// A karenina-gui CSV export, plain or custom (`gui_csv`).
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
pub(crate) trait Visit {
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
pub(crate) fn read_path(file: &Path, visit: &mut dyn Visit) -> Result<String> {
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
pub(crate) fn read_path_unhashed(file: &Path, visit: &mut dyn Visit) -> Result<()> {
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
