//! JSON records (JSON Lines, or a JSON array of objects) as a table: each
//! object is a row, its members the columns (in first-seen order), read
//! through the same column options as a sheet. Values keep their JSON types
//! (no pandas reading: `3` stays an int, only `null` and absent members are
//! missing).

use super::failure::{ImportError, Location, Result};
use super::grid::{Column, Table};
use super::infer::Typed;
use super::value::{Cell, DateStyle};
use crate::json::{self, Json, Object, PyNumber};

/// The records of a JSON Lines file or JSON array, each with its row (the
/// line of a JSON Lines record, the position of an array element).
pub fn records(
    at: &Location,
    bytes: &[u8],
    expected: &'static str,
) -> Result<Vec<(usize, Object)>> {
    if let Some(looks_like) = super::delimited::not_text(bytes) {
        return Err(ImportError::NotATable {
            at: at.clone().into(),
            expected,
            looks_like,
        });
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = bytes.trim_ascii_start();
    if start.starts_with(b"[") {
        let doc = json::parse(bytes).map_err(|e| bad_json(at, bytes, e))?;
        let Json::Array(items) = doc else {
            unreachable!("starts with [")
        };
        return items
            .into_iter()
            .enumerate()
            .map(|(i, v)| match v {
                Json::Object(o) => Ok((i + 1, o)),
                other => Err(ImportError::bad(
                    &at.at_row(i + 1),
                    format!(
                        "element {} is a JSON {}, not an object",
                        i + 1,
                        other.kind()
                    ),
                )),
            })
            .collect();
    }
    if !start.starts_with(b"{") {
        let looks_like = if start.is_empty() {
            "an empty file".to_string()
        } else if bytes.contains(&b',') || bytes.contains(&b'\t') {
            "delimited text (a CSV or TSV table? give its format)".to_string()
        } else {
            "text that is not JSON".to_string()
        };
        return Err(ImportError::NotATable {
            at: at.clone().into(),
            expected,
            looks_like,
        });
    }
    let mut out = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = line.trim_ascii();
        if line.is_empty() {
            continue;
        }
        match json::parse(line) {
            Ok(Json::Object(o)) => out.push((i + 1, o)),
            Ok(other) => {
                return Err(ImportError::bad(
                    &at.at_row(i + 1),
                    format!("line {} is a JSON {}, not an object", i + 1, other.kind()),
                ))
            }
            Err(e) => {
                // A pretty-printed document (a checkpoint?) fails on its
                // first line: say what the whole file is.
                if let Ok(Json::Object(doc)) = json::parse(bytes) {
                    let looks_like = if doc.get("dataFeedElement").is_some() {
                        "a Karenina checkpoint (JSON-LD), not a dataset".to_string()
                    } else {
                        "one JSON object over several lines, not one object a line".to_string()
                    };
                    return Err(ImportError::NotATable {
                        at: at.clone().into(),
                        expected,
                        looks_like,
                    });
                }
                return Err(ImportError::bad(
                    &at.at_row(i + 1),
                    format!("not JSON: {}", e.message),
                ));
            }
        }
    }
    Ok(out)
}

fn bad_json(at: &Location, bytes: &[u8], e: json::ParseFailure) -> ImportError {
    let text = String::from_utf8_lossy(bytes);
    let line = text[..e.offset.min(text.len())].matches('\n').count() + 1;
    ImportError::bad(&at.at_row(line), format!("not JSON: {}", e.message))
}

/// A JSON value as a cell.
pub fn cell(v: &Json) -> Cell {
    match v {
        Json::Null => Cell::Na,
        Json::Bool(b) => Cell::Bool(*b),
        Json::String(s) => Cell::Str(s.clone()),
        Json::Number(n) => match n.to_py() {
            PyNumber::Int(digits) => digits
                .parse::<i128>()
                .map_or_else(|_| Cell::Json(v.clone()), Cell::Int),
            PyNumber::Float(f) => Cell::Float(f),
        },
        other => Cell::Json(other.clone()),
    }
}

/// Reads JSON records as a table.
pub fn read(at: &Location, bytes: &[u8]) -> Result<Table> {
    let recs = records(at, bytes, "JSON Lines dataset")?;
    let mut names: Vec<String> = Vec::new();
    for (_, o) in &recs {
        for (k, _) in o.iter() {
            if !names.iter().any(|n| n == k) {
                names.push(k.to_string());
            }
        }
    }
    let columns = names
        .into_iter()
        .map(|name| {
            let cells = recs
                .iter()
                .map(|(_, o)| o.get(&name).map_or(Cell::Na, cell))
                .collect();
            Column {
                name,
                typed: Typed {
                    cells,
                    dates: DateStyle::Python,
                },
                named_by_value: false,
            }
        })
        .collect();
    Ok(Table {
        at: at.clone(),
        columns,
        rows: recs.iter().map(|(r, _)| *r).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_become_rows() {
        let at = Location::file("d.jsonl");
        let t = read(
            &at,
            b"{\"q\": \"a\", \"n\": 3}\n\n{\"q\": \"b\", \"x\": [1]}\n",
        )
        .unwrap();
        assert_eq!(t.names(), ["q", "n", "x"]);
        assert_eq!(t.rows, [1, 3]);
        assert_eq!(t.columns[1].typed.cells, [Cell::Int(3), Cell::Na]);
        let e = read(&at, b"{\"q\": 1}\n[2]\n").unwrap_err().to_string();
        assert!(e.contains("row 2: line 2 is a JSON array"), "{e}");
        let e = read(&at, b"{\n  \"dataFeedElement\": []\n}\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("a Karenina checkpoint"), "{e}");
    }
}
