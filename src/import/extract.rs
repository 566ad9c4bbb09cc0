//! Karenina's `extract_questions_from_file` over a typed table: which rows
//! become questions (an empty or blank question or answer drops the row),
//! and each question's text, answer, keywords, author, answer notes and
//! custom metadata, built as Karenina builds them.

use super::failure::{ImportError, Result};
use super::grid::{Column, Table};
use super::value::{Cell, DateStyle};
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
pub(crate) fn py_strip(s: &str) -> &str {
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
pub(crate) fn extract(t: &Table, c: &Columns) -> Result<Vec<RowOutcome>> {
    let p = pick(t, c)?;
    // `astype(str)` of the question and answer columns after
    // `dropna(subset=[question, answer])`: a column of dates prints at the
    // precision of the rows kept, not of the whole column.
    let kept = |i: &usize| !p.question.typed.cells[*i].is_na() && !p.answer.typed.cells[*i].is_na();
    let style = |col: &Column| match col.typed.dates {
        DateStyle::Python => DateStyle::Python,
        _ => DateStyle::of_column((0..t.rows.len()).filter(kept).filter_map(|i| {
            match &col.typed.cells[i] {
                Cell::DateTime(d) => Some(d),
                _ => None,
            }
        })),
    };
    let styles = (style(p.question), style(p.answer));
    let mut out = Vec::with_capacity(t.rows.len());
    for (i, &row) in t.rows.iter().enumerate() {
        out.push(one_row(t, &p, styles, i, row)?);
    }
    Ok(out)
}

/// `str(value)`, dates as `style` prints them: the other columns are read
/// value by value (`str(row[col])`), a date as `str()` of a `Timestamp`.
fn str_of(col: &Column, style: DateStyle, i: usize) -> Option<String> {
    let v = &col.typed.cells[i];
    (!v.is_na()).then(|| v.py_str(style))
}

fn one_row(
    t: &Table,
    p: &Picked<'_>,
    (q_style, a_style): (DateStyle, DateStyle),
    i: usize,
    row: usize,
) -> Result<RowOutcome> {
    // dropna(subset=[question, answer]), then astype(str).str.strip() and
    // the empty ones dropped.
    let q = str_of(p.question, q_style, i);
    let a = str_of(p.answer, a_style, i);
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
    let stripped =
        |col: &Column| str_of(col, DateStyle::Python, i).map(|s| py_strip(&s).to_string());
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
            v.to_json().map_err(|why| {
                ImportError::bad(
                    &t.at.at_row(row).in_column(&col.name),
                    format!(
                        "custom metadata {:?} is {why}: Karenina cannot save it",
                        col.name
                    ),
                )
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `astype(str)` after `dropna`: a dates column prints at the precision
    /// of the rows kept (pandas 3 in Karenina's venv: `2020-02-29`), the
    /// other columns as `str(Timestamp)` (`2020-02-29 00:00:00`).
    #[test]
    fn dates_print_at_the_precision_of_the_rows_kept() {
        use super::super::failure::Location;
        use super::super::infer::{sheet_column, Raw};
        let day = |d: u32, s: u32| {
            chrono::NaiveDate::from_ymd_opt(2020, 2, d)
                .unwrap()
                .and_hms_opt(0, 0, s)
                .unwrap()
        };
        let col = |name: &str, raw: Vec<Raw>| Column {
            name: name.into(),
            typed: sheet_column(raw),
            named_by_value: false,
        };
        let t = Table {
            at: Location::file("t.xlsx"),
            columns: vec![
                col("q", vec![Raw::Empty, Raw::Str("a".into())]),
                col(
                    "d",
                    vec![Raw::DateTime(day(1, 59)), Raw::DateTime(day(29, 0))],
                ),
            ],
            rows: vec![2, 3],
        };
        let cols = Columns {
            question: Some("q".into()),
            answer: Some("d".into()),
            answer_notes: Some("d".into()),
            ..Default::default()
        };
        let out = extract(&t, &cols).unwrap();
        assert!(matches!(&out[0], RowOutcome::Drop(_)));
        let RowOutcome::Take(q) = &out[1] else {
            panic!("{out:?}")
        };
        assert_eq!(q.answer, "2020-02-29");
        assert_eq!(q.answer_notes.as_deref(), Some("2020-02-29 00:00:00"));
    }

    #[test]
    fn python_strip_includes_the_separators() {
        assert_eq!(py_strip("\x1c a\u{a0}\u{3000}"), "a");
        assert_eq!(py_strip("\u{200b}a"), "\u{200b}a");
    }
}
