//! Karenina's CSV results export (`export_verification_results_csv`), read
//! into the same row shape as the JSON export so one mapping serves both.
//!
//! The CSV holds less than the JSON (`docs/results.md`, "What a CSV cannot hold"),
//! and the reading says so rather than guessing:
//! - `verify_result` false and null are both an empty cell: only `true` is
//!   kept, so a CSV row is "verified true" or "not known to be true";
//! - failures keep their reason (`error`) but no category;
//! - a `rubric_<T>` column does not say which kind of trait `T` is, so its
//!   scores carry no trait family; a global metric trait's cell is a Python
//!   dict repr (`{'precision': 1.0}`), read as one score per metric;
//! - `answering_model` / `parsing_model` are display strings
//!   (`interface:model (config) +[tool, …]`), split the way Karenina's own
//!   reader splits them;
//! - `result_id` is not written: it is recomputed with Karenina's recipe
//!   (Karenina `compute_result_id`), which gives the JSON export's IDs for non-scenario rows (the CSV
//!   drops the scenario fields that scenario rows' IDs include).
//!
//! The run node lists the columns; every non-empty cell that no triple holds
//! is kept, as written, in the row's `rest` literal.

use super::{located, nan_tokens, Visit};
use crate::error::{Error, Result};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

/// Columns whose cells become triples (and so are not repeated in `rest`).
const MAPPED: &[&str] = &[
    "question_id",
    "answering_model",
    "parsing_model",
    "replicate",
    "execution_time",
    "timestamp",
    "run_name",
    "verify_result",
    "verify_granular_result",
    "embedding_similarity_score",
    "embedding_override_applied",
    "question_specific_rubrics",
];

/// Where the raw cells travel inside a synthesized row (see [`super::map`]).
pub(crate) const RAW_CELLS: &str = "\u{0}csv";
/// The score dictionary of CSV trait columns (trait family unknown).
pub(super) const CSV_SCORES: &str = "\u{0}csv_trait_scores";

/// Reads a CSV export, handing a header built from the first row's run
/// columns and then each row, in the JSON row shape.
pub(super) fn read(file: &Path, r: &mut dyn Read, visit: &mut dyn Visit) -> Result<()> {
    let mut last = LastByte {
        inner: r,
        last: None,
    };
    let mut rdr = ::csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(&mut last);
    let headers: Vec<String> = rdr
        .headers()
        .map_err(|e| csv_err(file, &e))?
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}').to_string())
        .collect();
    if headers.first().map(String::as_str) == Some("row_index") {
        return Err(located(
            file,
            1,
            1,
            "",
            "this is the deprecated frontend CSV flavour (row_index, rubric_summary …); \
             kld reads the exports `karenina verify --output FILE.json|.csv` writes",
        ));
    }
    let columns = Columns::new(headers);
    for required in ["question_id", "success"] {
        if columns.of(required).is_none() {
            return Err(located(
                file,
                1,
                1,
                "",
                format!("no `{required}` column: not a Karenina results CSV"),
            ));
        }
    }
    let mut record = ::csv::StringRecord::new();
    let mut first = true;
    let mut index = 0usize;
    let mut record_line = 1;
    loop {
        match rdr.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(csv_err(file, &e)),
        }
        let line = record.position().map_or(0, |p| p.line() as usize);
        record_line = line;
        let cells = Cells {
            columns: &columns,
            record: &record,
        };
        if first {
            visit.header(&header(&cells));
            first = false;
        }
        let path = format!("/rows/{index}");
        let row = to_row(&cells)
            .map_err(|(column, m)| located(file, line, 1, &format!("{path}/{column}"), m))?;
        visit
            .row(row)
            .map_err(|m| located(file, line, 1, &path, m))?;
        index += 1;
    }
    if first {
        visit.header(&bare_header(&columns.names));
    }
    drop(rdr);
    // Karenina ends every record with `\r\n`: a file that does not end in a
    // line break was cut off (the csv reader takes an unclosed quoted cell
    // at the end of the file as complete).
    if last.last.is_some_and(|b| b != b'\n') {
        return Err(located(
            file,
            record_line,
            1,
            &format!("/rows/{}", index.saturating_sub(1)),
            "truncated: the file ends inside a record (no final line break)",
        ));
    }
    Ok(())
}

/// Remembers the last byte read (to tell a cut-off file).
struct LastByte<'a> {
    inner: &'a mut dyn Read,
    last: Option<u8>,
}

impl Read for LastByte<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            self.last = Some(buf[n - 1]);
        }
        Ok(n)
    }
}

fn csv_err(file: &Path, e: &::csv::Error) -> Error {
    let (line, rec) = e
        .position()
        .map_or((0, 0), |p| (p.line() as usize, p.record() as usize));
    let m = match e.kind() {
        ::csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("{len} cells where the header has {expected_len}"),
        ::csv::ErrorKind::Utf8 { err, .. } => format!("not UTF-8: {err}"),
        _ => e.to_string(),
    };
    located(
        file,
        line.max(1),
        1,
        &format!("/rows/{}", rec.saturating_sub(1)),
        m,
    )
}

/// The header, worked out once per file: where each column is, which are
/// trait columns, and which cells become triples (not kept in `rest`).
struct Columns {
    names: Vec<String>,
    index: HashMap<String, usize>,
    /// Trait columns: the `rubric_<T>` columns between `keywords` and
    /// `question_specific_rubrics` (or `answering_model`), whatever `T` is.
    traits: Vec<usize>,
    /// Per column: its cells are held by triples.
    held: Vec<bool>,
}

impl Columns {
    fn new(names: Vec<String>) -> Self {
        let mut index = HashMap::new();
        for (i, n) in names.iter().enumerate() {
            index.entry(n.clone()).or_insert(i);
        }
        let of = |name: &str| index.get(name).copied();
        let traits: Vec<usize> = match (of("keywords"), of("answering_model")) {
            (Some(k), Some(a)) => {
                let end = of("question_specific_rubrics").unwrap_or(a);
                (k + 1..end)
                    .filter(|&i| names[i].starts_with("rubric_"))
                    .collect()
            }
            _ => Vec::new(),
        };
        let held = (0..names.len())
            .map(|i| traits.contains(&i) || MAPPED.contains(&names[i].as_str()))
            .collect();
        Columns {
            names,
            index,
            traits,
            held,
        }
    }

    fn of(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }
}

/// One record, its cells by column name.
struct Cells<'a> {
    columns: &'a Columns,
    record: &'a ::csv::StringRecord,
}

impl<'a> Cells<'a> {
    /// The cell of `column`, empty when the column is absent.
    fn get(&self, column: &str) -> &'a str {
        self.columns
            .of(column)
            .and_then(|i| self.record.get(i))
            .unwrap_or("")
    }
}

fn header(cells: &Cells) -> Value {
    let mut h = bare_header(&cells.columns.names);
    let mut m = Map::new();
    for key in ["export_timestamp", "karenina_version", "job_id"] {
        if !cells.get(key).is_empty() {
            m.insert(key.into(), Value::String(cells.get(key).into()));
        }
    }
    h["metadata"] = Value::Object(m);
    h
}

fn bare_header(columns: &[String]) -> Value {
    json!({"source_format": "csv", "columns": columns})
}

type CellError = (String, String);

fn bool_cell(s: &str) -> Option<bool> {
    match s {
        "True" | "true" => Some(true),
        "False" | "false" => Some(false),
        _ => None,
    }
}

/// A Python `str()` of a number, as a JSON number (NaN/inf as the reader's
/// sentinels); `None` for an empty cell.
fn number_cell(column: &str, s: &str) -> std::result::Result<Option<Value>, CellError> {
    if s.is_empty() {
        return Ok(None);
    }
    if let Ok(i) = s.parse::<i64>() {
        return Ok(Some(Value::from(i)));
    }
    match s.parse::<f64>() {
        Ok(f) if f.is_nan() => Ok(Some(Value::String(super::NAN.into()))),
        Ok(f) if f.is_infinite() && f > 0.0 => Ok(Some(Value::String(super::POS_INF.into()))),
        Ok(f) if f.is_infinite() => Ok(Some(Value::String(super::NEG_INF.into()))),
        Ok(_) => Ok(Some(serde_json::from_str(s).unwrap_or_else(|_| json!(s)))),
        Err(_) => Err((column.into(), format!("`{s}` is not a number"))),
    }
}

/// A JSON cell (`json.dumps`, NaN tokens allowed); `None` for an empty cell
/// (Karenina writes every falsy value as empty).
fn json_cell(column: &str, s: &str) -> std::result::Result<Option<Value>, CellError> {
    if s.is_empty() {
        return Ok(None);
    }
    serde_json::from_str(&nan_tokens(s))
        .map(Some)
        .map_err(|e| (column.into(), format!("invalid JSON cell: {e}")))
}

/// A `rubric_<T>` cell: Python `str(value)`: `True`, `4`, `3.5`, `nan`, or a
/// metric trait's dict repr `{'precision': 1.0, 'recall': nan}`.
fn trait_cell(column: &str, s: &str) -> std::result::Result<Option<Value>, CellError> {
    // (Karenina's reader: `value.lower() in ("true", "false")`.)
    match s.to_ascii_lowercase().as_str() {
        "true" => return Ok(Some(Value::Bool(true))),
        "false" => return Ok(Some(Value::Bool(false))),
        _ => {}
    }
    if s.starts_with('{') {
        return py_dict(s)
            .map(Some)
            .ok_or_else(|| (column.into(), format!("`{s}` is not a metric dict")));
    }
    match number_cell(column, s) {
        Ok(v) => Ok(v),
        // Any other text (a trait returning a string) is kept as text.
        Err(_) => Ok(Some(Value::String(s.into()))),
    }
}

/// A Python dict repr of `str` keys and float values, as JSON.
fn py_dict(s: &str) -> Option<Value> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                out.push('"');
                for c in chars.by_ref() {
                    match c {
                        '\'' => break,
                        '"' => out.push_str("\\\""),
                        c => out.push(c),
                    }
                }
                out.push('"');
            }
            c if c.is_ascii_alphabetic() => {
                let mut word = String::from(c);
                while let Some(&n) = chars.peek() {
                    if !n.is_ascii_alphanumeric() {
                        break;
                    }
                    word.push(n);
                    chars.next();
                }
                out.push_str(match word.as_str() {
                    "nan" => "NaN",
                    "inf" => "Infinity",
                    "True" => "true",
                    "False" => "false",
                    "None" => "null",
                    _ => return None,
                });
            }
            c => out.push(c),
        }
    }
    serde_json::from_str::<Value>(&nan_tokens(&out))
        .ok()
        .filter(Value::is_object)
}

/// Splits a `ModelIdentity.display_string` the way Karenina's
/// `_parse_model_identity` does: tools after ` +[`, then a trailing
/// ` (config_id)`, then interface before the first `:`.
fn model_identity(display: &str) -> Value {
    let (rest, tools) = match display.split_once(" +[") {
        Some((r, t)) => (
            r,
            t.trim_end_matches(']')
                .split(", ")
                .filter(|t| !t.is_empty())
                .map(|t| Value::String(t.into()))
                .collect(),
        ),
        None => (display, Vec::new()),
    };
    let (rest, config) = match rest.strip_suffix(')').and_then(|r| r.rsplit_once(" (")) {
        Some((r, c)) => (r, Value::String(c.into())),
        None => (rest, Value::Null),
    };
    let (interface, name) = rest.split_once(':').unwrap_or(("unknown", rest));
    json!({"interface": interface, "model_name": name, "tools": tools, "config_id": config})
}

/// A string as Python's `json.dumps(ensure_ascii=True)` writes it.
fn py_json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
    }
    out.push('"');
}

/// `VerificationResultMetadata.compute_result_id` without scenario fields.
pub(super) fn result_id(
    answering: &Value,
    parsing: &Value,
    question_id: &str,
    replicate: Option<i64>,
    timestamp: &str,
) -> String {
    let mut s = String::from("{\"answering\": ");
    py_json_string(&super::outcome::canonical_key(answering), &mut s);
    s.push_str(", \"parsing\": ");
    py_json_string(&super::outcome::canonical_key(parsing), &mut s);
    s.push_str(", \"question_id\": ");
    py_json_string(question_id, &mut s);
    s.push_str(", \"replicate\": ");
    s.push_str(&replicate.map_or("null".into(), |r| r.to_string()));
    s.push_str(", \"scenario_id\": null, \"scenario_node\": null, \"scenario_turn\": null, \"timestamp\": ");
    py_json_string(timestamp, &mut s);
    s.push('}');
    format!("{:x}", Sha256::digest(s.as_bytes()))[..16].to_string()
}

fn to_row(cells: &Cells) -> std::result::Result<Value, CellError> {
    let (columns, record) = (cells.columns, cells.record);
    let headers = &columns.names;
    let cell = |name: &str| cells.get(name);
    let failed = bool_cell(cell("success")) == Some(false);
    let opt = |s: &str| (!s.is_empty()).then(|| Value::String(s.into()));
    let answering = model_identity(cell("answering_model"));
    let parsing = model_identity(cell("parsing_model"));
    let typed = |column: &str, r: super::csv_cells::Cell| r.map_err(|m| (column.to_string(), m));
    let replicate = typed("replicate", super::csv_cells::int(cell("replicate")))?;
    let qid = cell("question_id");
    let timestamp = cell("timestamp");
    let rid = result_id(
        &answering,
        &parsing,
        qid,
        replicate.as_ref().and_then(Value::as_i64),
        timestamp,
    );
    let failure = if failed {
        json!({"reason": cell("error")})
    } else {
        Value::Null
    };
    let mut scores = Map::new();
    for &i in &columns.traits {
        let name = &headers[i]["rubric_".len()..];
        let s = record.get(i).unwrap_or("");
        if let Some(v) = if s.is_empty() {
            None
        } else {
            trait_cell(&headers[i], s)?
        } {
            scores.insert(name.to_string(), v);
        }
    }
    if let Some(Value::Object(qs)) = json_cell(
        "question_specific_rubrics",
        cell("question_specific_rubrics"),
    )? {
        scores.extend(qs);
    }
    let rubric_performed = bool_cell(cell("rubric_evaluation_performed"));
    let rubric = if rubric_performed == Some(true) || !scores.is_empty() {
        json!({
            "rubric_evaluation_performed": rubric_performed,
            CSV_SCORES: scores,
        })
    } else {
        Value::Null
    };
    let mut template = Map::new();
    if let Some(b) = bool_cell(cell("template_verification_performed")) {
        template.insert("template_verification_performed".into(), Value::Bool(b));
    }
    let verdict = super::csv_cells::verdict(cell("verify_result"))
        .map_err(|m| ("verify_result".to_string(), m))?;
    if verdict == Some(true) {
        template.insert("verify_result".into(), Value::Bool(true));
    }
    for (key, v) in [
        (
            "verify_granular_result",
            json_cell("verify_granular_result", cell("verify_granular_result"))?,
        ),
        (
            "embedding_similarity_score",
            typed(
                "embedding_similarity_score",
                super::csv_cells::float(cell("embedding_similarity_score")),
            )?,
        ),
        (
            "embedding_override_applied",
            bool_cell(cell("embedding_override_applied")).map(Value::Bool),
        ),
        (
            "usage_metadata",
            json_cell("usage_metadata", cell("usage_metadata"))?,
        ),
        // (Kept in `rest` as written too: their lists and details are
        // there, the triples hold the counts and the servers; a cell that is
        // not JSON stays only there.)
        (
            "agent_metrics",
            json_cell("agent_metrics", cell("agent_metrics"))
                .ok()
                .flatten(),
        ),
        (
            "answering_mcp_servers",
            json_cell("answering_mcp_servers", cell("answering_mcp_servers"))
                .ok()
                .flatten(),
        ),
    ] {
        if let Some(v) = v {
            template.insert(key.into(), v);
        }
    }
    // The rest: non-empty cells no triple holds (the run node lists the
    // columns, so empty cells need not be kept).
    let raw: Map<String, Value> = headers
        .iter()
        .zip(record.iter())
        .zip(&columns.held)
        .filter(|((h, c), held)| {
            // A failed row's `error` is its failure reason, a triple.
            let reason = failed && h.as_str() == "error";
            !(c.is_empty() || **held || reason)
        })
        .map(|((h, c), _)| (h.clone(), Value::String(c.into())))
        .collect();
    Ok(json!({
        "metadata": {
            "question_id": qid,
            "question_text": cell("question_text"),
            "answering": answering,
            "parsing": parsing,
            "replicate": replicate,
            "execution_time": typed("execution_time", super::csv_cells::float(cell("execution_time")))?,
            "timestamp": timestamp,
            "run_name": opt(cell("run_name")),
            "result_id": rid,
            "failure": failure,
        },
        "template": template,
        "rubric": rubric,
        RAW_CELLS: raw,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_id_follows_karenina_s_worked_example() {
        // Karenina's `compute_result_id`: the worked example from the corpus.
        let a = model_identity("openrouter:mistralai/ministral-8b (ministral-ünï)");
        let p = model_identity("langchain:gpt-4.1-nano");
        assert_eq!(
            result_id(
                &a,
                &p,
                "urn:karenina:test:rq001",
                Some(1),
                "2026-11-22 14:17:09"
            ),
            "e6c053dfefcc39c5"
        );
    }

    #[test]
    fn display_strings_split_like_karenina() {
        let id =
            model_identity("openai_endpoint:Qwen/Qwen3-8B (qwen-local) +[brave_search, pubmed]");
        assert_eq!(id["interface"], "openai_endpoint");
        assert_eq!(id["model_name"], "Qwen/Qwen3-8B");
        assert_eq!(id["config_id"], "qwen-local");
        assert_eq!(id["tools"], json!(["brave_search", "pubmed"]));
        let id = model_identity("langchain:gpt-4o");
        assert_eq!(id["config_id"], Value::Null);
        assert_eq!(id["tools"], json!([]));
    }

    #[test]
    fn python_reprs_read_as_scores() {
        assert_eq!(trait_cell("c", "True").unwrap(), Some(json!(true)));
        assert_eq!(trait_cell("c", "-1").unwrap(), Some(json!(-1)));
        assert_eq!(
            trait_cell("c", "nan").unwrap(),
            Some(json!(super::super::NAN))
        );
        let m = trait_cell("c", "{'precision': 1.0, 'recall': nan}")
            .unwrap()
            .unwrap();
        assert_eq!(m["precision"], json!(1.0));
        assert_eq!(m["recall"], json!(super::super::NAN));
        assert!(py_dict("{'a': __import__}").is_none());
    }
}
