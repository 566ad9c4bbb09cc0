//! Karenina's `extract_questions_from_file` over a typed table: which rows
//! become questions (an empty or blank question or answer drops the row),
//! and each question's text, answer, keywords, author, answer notes and
//! custom metadata, built as Karenina builds them.

use super::error::{ImportError, Result};
use super::table::{Column, Table};
use super::value::Cell;
use super::{Columns, Imported};
use crate::json::Json;

/// What became of one row.
#[derive(Clone, Debug, PartialEq)]
pub enum RowOutcome {
    /// The row is a question.
    Take(Box<Imported>),
    /// The row is dropped, and why.
    Drop(String),
}

/// Python's `str.strip()`: Unicode whitespace and the ASCII separators
/// `\x1c`–`\x1f`, which Python counts as whitespace and Rust does not.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c))
}

struct Picked<'t> {
    question: &'t Column,
    answer: &'t Column,
    author: Vec<(&'static str, &'t Column)>,
    url: Option<&'t Column>,
    notes: Option<&'t Column>,
    keywords: Vec<(&'t Column, &'t str)>,
    custom: Vec<&'t Column>,
}

fn pick<'t>(t: &'t Table, c: &'t Columns) -> Result<Picked<'t>> {
    let mut missing = Vec::new();
    let mut get = |name: &str| {
        let col = t.column(name);
        if col.is_none() && !missing.iter().any(|m| m == name) {
            missing.push(name.to_string());
        }
        col
    };
    let question = get(c.question.as_deref().unwrap_or_default());
    let answer = get(c.answer.as_deref().unwrap_or_default());
    let mut author = Vec::new();
    for (key, name) in [
        ("name", &c.author_name),
        ("email", &c.author_email),
        ("affiliation", &c.author_affiliation),
    ] {
        if let Some(col) = name.as_deref().and_then(&mut get) {
            author.push((key, col));
        }
    }
    let url = c.url.as_deref().and_then(&mut get);
    let notes = c.answer_notes.as_deref().and_then(&mut get);
    let keywords = c
        .keywords
        .iter()
        .filter_map(|k| get(&k.column).map(|col| (col, k.separator.as_str())))
        .collect();
    let custom = c.custom_metadata.iter().filter_map(|n| get(n)).collect();
    match (question, answer) {
        (Some(question), Some(answer)) if missing.is_empty() => Ok(Picked {
            question,
            answer,
            author,
            url,
            notes,
            keywords,
            custom,
        }),
        _ => Err(ImportError::MissingColumns {
            at: t.at.clone().into(),
            missing,
            existing: t.names(),
        }),
    }
}

/// The rows of `t` as Karenina's extractor takes or drops them, in order.
/// A column the options name that the table lacks is an error (Karenina
/// requires the question and answer columns and silently ignores the
/// others; kld names them all, so that a typo is not a silent loss).
pub fn extract(t: &Table, c: &Columns) -> Result<Vec<RowOutcome>> {
    let p = pick(t, c)?;
    let mut out = Vec::with_capacity(t.rows.len());
    for (i, &row) in t.rows.iter().enumerate() {
        out.push(one_row(t, &p, i, row)?);
    }
    Ok(out)
}

fn str_of(col: &Column, i: usize) -> Option<String> {
    let v = &col.typed.cells[i];
    (!v.is_na()).then(|| v.py_str(col.typed.dates))
}

fn one_row(t: &Table, p: &Picked<'_>, i: usize, row: usize) -> Result<RowOutcome> {
    // dropna(subset=[question, answer]), then astype(str).str.strip() and
    // the empty ones dropped.
    let q = str_of(p.question, i);
    let a = str_of(p.answer, i);
    let (q, a) = match (q, a) {
        (None, _) => return Ok(RowOutcome::Drop("empty question".into())),
        (_, None) => return Ok(RowOutcome::Drop("empty answer".into())),
        (Some(q), Some(a)) => (py_strip(&q).to_string(), py_strip(&a).to_string()),
    };
    if q.is_empty() {
        return Ok(RowOutcome::Drop("blank question (only whitespace)".into()));
    }
    if a.is_empty() {
        return Ok(RowOutcome::Drop("blank answer (only whitespace)".into()));
    }
    let stripped = |col: &Column| str_of(col, i).map(|s| py_strip(&s).to_string());
    let answer_notes = p.notes.and_then(stripped).filter(|s| !s.is_empty());
    let mut keywords: Vec<String> = Vec::new();
    for (col, sep) in &p.keywords {
        if let Some(v) = stripped(col).filter(|s| !s.is_empty()) {
            keywords.extend(
                v.split(sep)
                    .map(py_strip)
                    .filter(|k| !k.is_empty())
                    .map(str::to_string),
            );
        }
    }
    keywords.sort();
    keywords.dedup();
    let author: Vec<(String, String)> = p
        .author
        .iter()
        .filter_map(|(key, col)| {
            stripped(col)
                .filter(|s| !s.is_empty())
                .map(|v| (key.to_string(), v))
        })
        .collect();
    let mut custom: Vec<(String, Json)> = Vec::new();
    let mut set = |k: &str, v: Json| match custom.iter_mut().find(|(n, _)| n == k) {
        Some(slot) => slot.1 = v,
        None => custom.push((k.to_string(), v)),
    };
    if let Some(url) = p.url.and_then(stripped).filter(|s| !s.is_empty()) {
        set("url", Json::String(url));
    }
    for col in &p.custom {
        let v = &col.typed.cells[i];
        if v.is_na() {
            continue;
        }
        // The question and answer columns were replaced by their stripped
        // text before the row was read.
        let value = if std::ptr::eq(*col, p.question) {
            Json::String(q.clone())
        } else if std::ptr::eq(*col, p.answer) {
            Json::String(a.clone())
        } else {
            v.to_json().map_err(|why| ImportError::Bad {
                at: t.at.at_row(row).in_column(&col.name).into(),
                message: format!(
                    "custom metadata {:?} is {why}: Karenina cannot save it",
                    col.name
                ),
            })?
        };
        set(&col.name, value);
    }
    Ok(RowOutcome::Take(Box::new(Imported {
        id: None,
        question: q,
        answer: a,
        keywords,
        answer_notes,
        author,
        custom,
        finished: true,
    })))
}

/// A cell's Python `str()` after `strip()`, for callers outside a table.
pub fn cell_text(c: &Cell) -> Option<String> {
    (!c.is_na()).then(|| py_strip(&c.py_str(super::value::DateStyle::Python)).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_strip_includes_the_separators() {
        assert_eq!(py_strip("\x1c a\u{a0}\u{3000}"), "a");
        assert_eq!(py_strip("\u{200b}a"), "\u{200b}a");
    }
}
