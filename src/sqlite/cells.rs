//! One result row of the database back into an export's row: each column's
//! value read by its declared type as Karenina's SQLAlchemy models read it,
//! and the flattened columns folded back into the export's sections. A value
//! Karenina would refuse is not guessed at: it is left out and returned as a
//! [`BadValue`], located by table, row and column.

use crate::json::nan::{NAN, NEG_INF, POS_INF};
use rusqlite::types::ValueRef;
use serde_json::{Map, Value};

pub use crate::error::BadValue;

/// A double as the export's reading has it: non-finite values as the
/// sentinels [`map`] turns into `xsd:double` NaN / INF (SQLite stores
/// `inf`; JSON has no number for it).
fn double(f: f64) -> Value {
    match serde_json::Number::from_f64(f) {
        Some(n) => Value::Number(n),
        None if f.is_nan() => Value::from(NAN),
        None if f > 0.0 => Value::from(POS_INF),
        None => Value::from(NEG_INF),
    }
}

/// A column's value as JSON, by its declared type (upper case), or why
/// Karenina would refuse it.
pub(super) fn cell(v: ValueRef<'_>, decl: &str) -> Result<Value, String> {
    let numeric = ["INT", "FLOA", "REAL", "DOUB", "NUMERIC"]
        .iter()
        .any(|t| decl.contains(t));
    Ok(match (v, decl) {
        (ValueRef::Null, _) => Value::Null,
        (ValueRef::Integer(i), "BOOLEAN") => Value::Bool(i != 0),
        // (SQLAlchemy's JSON type runs json.loads on text and on bytes.)
        (ValueRef::Text(t) | ValueRef::Blob(t), "JSON") => {
            let t = std::str::from_utf8(t)
                .map_err(|e| format!("JSON that is not UTF-8 ({e}): json.loads refuses it"))?;
            serde_json::from_str(&crate::json::nan::replace_tokens(t)).map_err(|e| {
                format!("malformed JSON ({e}): Karenina's json.loads raises JSONDecodeError on it")
            })?
        }
        (ValueRef::Integer(i), _) => Value::from(i),
        (ValueRef::Real(f), _) => double(f),
        // Text in a number column is text SQLite could not read as a number
        // (else its type affinity had stored a number); a number written
        // past what SQLite holds keeps its digits.
        (ValueRef::Text(t), _) if numeric => {
            let t = String::from_utf8_lossy(t);
            match serde_json::from_str::<serde_json::Number>(t.trim()) {
                Ok(n) => Value::Number(n),
                Err(_) => {
                    return Err(format!(
                        "text {:?} in a {decl} column: not a number, Karenina's model refuses it",
                        t.chars().take(60).collect::<String>()
                    ))
                }
            }
        }
        (ValueRef::Text(t) | ValueRef::Blob(t), _) => {
            Value::String(String::from_utf8_lossy(t).into_owned())
        }
    })
}

/// Karenina's `FLATTEN_CONFIG`: column prefix → the row's section.
const SECTIONS: &[(&str, &str)] = &[
    ("metadata_", "metadata"),
    ("template_", "template"),
    ("rubric_", "rubric"),
    ("djr_", "deep_judgment_rubric"),
    ("dj_", "deep_judgment"),
];

/// Nested metadata objects flattened as `metadata_<object>_<field>`.
const NESTED: &[&str] = &["answering", "parsing", "failure"];

/// Folds one result row's columns back into the export's row shape.
pub(super) fn row_of(cols: &[(String, String)], values: &[Value]) -> Value {
    let mut row = Map::new();
    let mut sections: Map<String, Value> = Map::new();
    for ((name, _), v) in cols.iter().zip(values) {
        if ["id", "run_id", "question_id", "created_at"].contains(&name.as_str()) {
            continue;
        }
        match SECTIONS.iter().find(|(p, _)| name.starts_with(p)) {
            Some((p, section)) => {
                let field = &name[p.len()..];
                let s = sections
                    .entry(section.to_string())
                    .or_insert_with(|| Value::Object(Map::new()));
                let nested = (*section == "metadata")
                    .then(|| {
                        NESTED.iter().find_map(|n| {
                            field
                                .strip_prefix(n)
                                .and_then(|f| f.strip_prefix('_'))
                                .map(|f| (*n, f))
                        })
                    })
                    .flatten();
                match nested {
                    Some((obj, f)) => {
                        let o = s
                            .as_object_mut()
                            .map(|m| m.entry(obj).or_insert_with(|| Value::Object(Map::new())));
                        if let Some(Value::Object(o)) = o {
                            o.insert(f.to_string(), v.clone());
                        }
                    }
                    None => {
                        if let Some(m) = s.as_object_mut() {
                            m.insert(field.to_string(), v.clone());
                        }
                    }
                }
            }
            None => {
                row.insert(name.clone(), v.clone());
            }
        }
    }
    for (name, s) in sections {
        // An optional section whose every column is null was not there.
        let empty = s
            .as_object()
            .is_some_and(|m| m.values().all(Value::is_null));
        let mut s = s;
        if let Some(f) = s.pointer_mut("/failure") {
            if f.as_object()
                .is_some_and(|m| m.values().all(Value::is_null))
            {
                *f = Value::Null;
            }
        }
        row.insert(
            name.clone(),
            if empty && name != "metadata" {
                Value::Null
            } else {
                s
            },
        );
    }
    Value::Object(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_karenina_refuses_are_errors_and_the_others_kept_exactly() {
        let e = cell(ValueRef::Text(b"{\"a\": tru"), "JSON").unwrap_err();
        assert!(
            e.contains("malformed JSON") && e.contains("JSONDecodeError"),
            "{e}"
        );
        assert_eq!(
            cell(ValueRef::Text(b"{\"a\": NaN}"), "JSON").unwrap()["a"],
            NAN
        );
        assert_eq!(
            cell(ValueRef::Real(f64::INFINITY), "FLOAT").unwrap(),
            POS_INF
        );
        assert_eq!(
            cell(ValueRef::Real(f64::NEG_INFINITY), "FLOAT").unwrap(),
            NEG_INF
        );
        let big = cell(ValueRef::Text(b"100000000000000000000000"), "INTEGER").unwrap();
        assert_eq!(big.to_string(), "100000000000000000000000");
        let e = cell(ValueRef::Text(b"fast"), "FLOAT").unwrap_err();
        assert!(e.contains("\"fast\"") && e.contains("FLOAT"), "{e}");
        assert_eq!(cell(ValueRef::Text(b"x"), "VARCHAR(32)").unwrap(), "x");
        assert_eq!(cell(ValueRef::Integer(1), "BOOLEAN").unwrap(), true);
    }
}
