//! Inspect AI datasets (`json_dataset`, `csv_dataset` with the default
//! `FieldSpec`): samples with `input`, `target`, `id`, `choices` and
//! `metadata`, as JSON Lines, a JSON array or CSV, and what `kld export -f
//! inspect` writes, so that the export round-trips.
//!
//! A sample becomes a question: `input` (a string, or the text of its user
//! messages) is the question, `target` (a string, or a list joined by new
//! lines) the answer, `id` the question ID (Karenina's MD5 of the text
//! without one). `metadata.keywords`, `metadata.author` and
//! `metadata.finished` (what the export writes) go back where they came
//! from; `metadata.benchmark` suggests the benchmark's name;
//! `metadata.has_template` is dropped; every other metadata member and
//! `choices` become custom metadata.

use super::extract::{py_strip, RowOutcome};
use super::failure::{ImportError, Location, Result};
use super::{Columns, Imported, Rows};
use crate::json::{Json, Object};

/// Whether `head` (a file's first bytes) looks like Inspect samples: its
/// first record has `input` and `target`.
pub fn looks_like_samples(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = head.trim_ascii_start();
    if start.starts_with(b"[") {
        let text = String::from_utf8_lossy(&start[..start.len().min(4096)]);
        return text.contains("\"input\"") && text.contains("\"target\"");
    }
    let first = start.split(|&b| b == b'\n').next().unwrap_or_default();
    match crate::json::parse(first) {
        Ok(Json::Object(o)) => o.get("input").is_some() && o.get("target").is_some(),
        _ => false,
    }
}

/// Reads an Inspect dataset (JSON Lines, JSON array or CSV).
pub fn read(
    at: &Location,
    bytes: &[u8],
    columns: &Columns,
    limits: &super::Limits,
) -> Result<Rows> {
    let input = columns.question.as_deref().unwrap_or("input");
    let target = columns.answer.as_deref().unwrap_or("target");
    let start = bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(bytes)
        .trim_ascii_start();
    let records = if start.starts_with(b"{") || start.starts_with(b"[") {
        super::jsonl::records(at, bytes, "Inspect dataset")?
    } else {
        csv_records(at, bytes, limits)?
    };
    let mut rows = Vec::with_capacity(records.len());
    let mut names: Vec<String> = Vec::new();
    for (row, rec) in records {
        let here = at.at_row(row);
        for f in [input, target] {
            if rec.get(f).is_none() {
                return Err(ImportError::MissingColumns {
                    at: here.into(),
                    missing: vec![f.to_string()],
                    existing: rec.iter().map(|(k, _)| k.to_string()).collect(),
                });
            }
        }
        if let Some(Json::Object(m)) = rec.get("metadata") {
            if let Some(Json::String(b)) = m.get("benchmark") {
                if !names.contains(b) {
                    names.push(b.clone());
                }
            }
        }
        rows.push((here.clone(), sample(&here, &rec, input, target)?));
    }
    Ok(Rows {
        rows,
        suggested_name: (names.len() == 1).then(|| names.remove(0)),
    })
}

/// CSV samples: each row a record of strings; a `metadata` cell holding a
/// JSON object is that object.
fn csv_records(
    at: &Location,
    bytes: &[u8],
    limits: &super::Limits,
) -> Result<Vec<(usize, Object)>> {
    let t = super::delimited::read(at, bytes, b',', limits)?;
    let mut out = Vec::with_capacity(t.rows.len());
    for (i, &row) in t.rows.iter().enumerate() {
        let mut o = Object::new();
        for c in &t.columns {
            let v = &c.typed.cells[i];
            if v.is_na() {
                continue;
            }
            let text = v.py_str(c.typed.dates);
            let value = match (c.name.as_str(), crate::json::parse(text.as_bytes())) {
                ("metadata" | "choices", Ok(j @ (Json::Object(_) | Json::Array(_)))) => j,
                _ => Json::String(text),
            };
            o.push(c.name.clone(), value);
        }
        out.push((row, o));
    }
    Ok(out)
}

fn text_of(v: &Json) -> Option<String> {
    match v {
        Json::String(s) => Some(s.clone()),
        Json::Number(n) => Some(n.lexical().to_string()),
        Json::Bool(b) => Some(if *b { "True" } else { "False" }.into()),
        _ => None,
    }
}

/// The text of a chat message's `content` (a string, or text parts).
fn content_text(c: &Json) -> Option<String> {
    match c {
        Json::String(s) => Some(s.clone()),
        Json::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| match p {
                    Json::Object(o) => o.get("text").and_then(Json::as_str),
                    _ => None,
                })
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

fn input_text(here: &Location, v: &Json) -> Result<Option<String>> {
    match v {
        Json::Null => Ok(None),
        Json::Array(msgs) => {
            let texts: Vec<String> = msgs
                .iter()
                .filter_map(|m| match m {
                    Json::Object(o) if o.get("role").and_then(Json::as_str) == Some("user") => {
                        o.get("content").and_then(content_text)
                    }
                    _ => None,
                })
                .collect();
            if texts.is_empty() {
                return Err(ImportError::bad(here, "input is a list of chat messages without user text: a Karenina question is one text"));
            }
            Ok(Some(texts.join("\n\n")))
        }
        other => text_of(other).map(Some).ok_or_else(|| {
            ImportError::bad(
                here,
                format!(
                    "input is a JSON {}: a Karenina question is a text",
                    other.kind()
                ),
            )
        }),
    }
}

fn sample(here: &Location, rec: &Object, input: &str, target: &str) -> Result<RowOutcome> {
    let q = input_text(
        &here.in_column(input),
        rec.get(input).unwrap_or(&Json::Null),
    )?;
    let mut custom: Vec<(String, Json)> = Vec::new();
    let a = match rec.get(target).unwrap_or(&Json::Null) {
        Json::Null => None,
        Json::Array(ts) => {
            let texts: Option<Vec<String>> = ts.iter().map(text_of).collect();
            let texts = texts.ok_or_else(|| {
                ImportError::bad(
                    &here.in_column(target),
                    "target is a list with a value that is not a text",
                )
            })?;
            if texts.len() > 1 {
                custom.push(("targets".into(), Json::Array(ts.clone())));
            }
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        other => Some(text_of(other).ok_or_else(|| {
            ImportError::bad(
                &here.in_column(target),
                format!(
                    "target is a JSON {}: a Karenina answer is a text",
                    other.kind()
                ),
            )
        })?),
    };
    let (q, a) = match (q.as_deref().map(py_strip), a.as_deref().map(py_strip)) {
        (None | Some(""), _) => return Ok(RowOutcome::Drop("empty input".into())),
        (_, None | Some("")) => return Ok(RowOutcome::Drop("empty target".into())),
        (Some(q), Some(a)) => (q.to_string(), a.to_string()),
    };
    let id = match rec.get("id") {
        None | Some(Json::Null) => None,
        Some(v) => Some(text_of(v).ok_or_else(|| {
            ImportError::bad(
                &here.in_column("id"),
                format!(
                    "id is a JSON {}: a question ID is a text or a number",
                    v.kind()
                ),
            )
        })?),
    };
    if let Some(ch) = rec.get("choices").filter(|c| !matches!(c, Json::Null)) {
        custom.push(("choices".into(), ch.clone()));
    }
    let mut keywords = Vec::new();
    let mut author = Vec::new();
    let mut finished = true;
    if let Some(Json::Object(m)) = rec.get("metadata") {
        for (k, v) in m.iter() {
            match (k, v) {
                ("keywords", Json::Array(ks)) if ks.iter().all(|k| k.as_str().is_some()) => {
                    keywords = ks
                        .iter()
                        .filter_map(|k| k.as_str().map(String::from))
                        .collect();
                }
                ("author", Json::String(name)) => author = vec![("name".into(), name.clone())],
                ("author", Json::Object(o)) => {
                    author = ["name", "email", "affiliation"]
                        .iter()
                        .filter_map(|f| {
                            o.get(f)
                                .and_then(Json::as_str)
                                .map(|v| (f.to_string(), v.to_string()))
                        })
                        .collect();
                }
                ("finished", Json::Bool(b)) => finished = *b,
                ("has_template" | "benchmark", _) => {}
                _ => custom.push((k.to_string(), v.clone())),
            }
        }
    }
    Ok(RowOutcome::Take(Box::new(Imported {
        id,
        question: q,
        answer: a,
        keywords,
        answer_notes: None,
        author,
        custom,
        finished,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_become_questions() {
        let at = Location::file("s.jsonl");
        let data = br#"{"id": "q1", "input": " What? ", "target": "A", "choices": ["A", "B"], "metadata": {"keywords": ["b", "a"], "finished": false, "benchmark": "B", "level": 2}}
{"input": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "Why?"}], "target": ["x", "y"]}
{"input": "", "target": "z"}
"#;
        assert!(looks_like_samples(data));
        let rows = read(&at, data, &Columns::default(), &Default::default()).unwrap();
        assert_eq!(rows.suggested_name.as_deref(), Some("B"));
        let RowOutcome::Take(q) = &rows.rows[0].1 else {
            panic!()
        };
        assert_eq!(
            (q.id.as_deref(), q.question.as_str()),
            (Some("q1"), "What?")
        );
        assert_eq!(q.keywords, ["b", "a"]);
        assert!(!q.finished);
        assert_eq!(q.custom[0].0, "choices");
        assert_eq!(q.custom[1].0, "level");
        let RowOutcome::Take(q) = &rows.rows[1].1 else {
            panic!()
        };
        assert_eq!((q.question.as_str(), q.answer.as_str()), ("Why?", "x\ny"));
        assert_eq!(rows.rows[2].1, RowOutcome::Drop("empty input".into()));
    }

    #[test]
    fn csv_and_json_array_samples() {
        let csv = b"id,input,target,choices\n7,Pick one,A,\"[\"\"A\"\", \"\"B\"\"]\"\n";
        let rows = read(
            &Location::file("s.csv"),
            csv,
            &Columns::default(),
            &Default::default(),
        )
        .unwrap();
        let RowOutcome::Take(q) = &rows.rows[0].1 else {
            panic!("{rows:?}")
        };
        assert_eq!((q.id.as_deref(), q.answer.as_str()), (Some("7"), "A"));
        assert_eq!(q.custom[0].1, crate::json::parse(br#"["A", "B"]"#).unwrap());
        let arr = br#"[{"input": "Q?", "target": 3}]"#;
        let rows = read(
            &Location::file("s.json"),
            arr,
            &Columns::default(),
            &Default::default(),
        )
        .unwrap();
        let RowOutcome::Take(q) = &rows.rows[0].1 else {
            panic!("{rows:?}")
        };
        assert_eq!(
            (q.question.as_str(), q.answer.as_str(), q.id.as_ref()),
            ("Q?", "3", None)
        );
        let e = read(
            &Location::file("s.jsonl"),
            br#"{"input": "Q?"}"#,
            &Columns::default(),
            &Default::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("row 1: missing columns in file: \"target\"; the file has: \"input\""),
            "{e}"
        );
    }
}
