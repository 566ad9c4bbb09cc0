//! pandas' typing of a column, so that every value is the Python object
//! Karenina's extractor sees: `read_csv`'s C parser for CSV and TSV text,
//! `read_excel`'s Python parser over openpyxl's cell values for sheets.
//!
//! The rules, as pandas 3 applies them by default (`na_values`,
//! `keep_default_na`, `true_values`/`false_values` unset):
//! - the NA strings ([`NA_VALUES`]) and empty cells are missing;
//! - a column of integers is `int64`, but `float64` as soon as a cell is
//!   missing (`3` becomes `3.0`);
//! - a column of numbers is `float64`; in a sheet, numeric text counts;
//! - `True`/`False` text (and a sheet's booleans) make a `bool` column; with a
//!   missing cell, CSV keeps the booleans (an object column) and a sheet
//!   makes them `1.0`/`0.0`;
//! - a sheet's whole-number float cell is an `int` (openpyxl through pandas);
//! - a sheet column of dates is `datetime64`, printed at one precision;
//! - anything else is an object column: each value as it was.

use super::value::{Cell, DateStyle};
use chrono::{NaiveDateTime, NaiveTime};

/// pandas' default NA strings (`pandas._libs.parsers.STR_NA_VALUES`).
pub const NA_VALUES: [&str; 19] = [
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
];

/// Whether pandas reads this text as missing.
pub fn is_na_text(s: &str) -> bool {
    NA_VALUES.contains(&s)
}

fn trim_ws(s: &str) -> &str {
    s.trim_matches(|c: char| c == ' ' || c == '\t')
}

/// An integer as pandas parses one: optional sign, ASCII digits, spaces
/// around.
pub fn parse_int(s: &str) -> Option<i128> {
    let t = trim_ws(s);
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse::<i128>().ok()
}

/// A float as pandas' parser reads one: decimal or exponent form, or an
/// infinity (`inf`, `Infinity`, any case, signed); spaces around.
pub fn parse_float(s: &str) -> Option<f64> {
    let t = trim_ws(s);
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    if unsigned.eq_ignore_ascii_case("inf") || unsigned.eq_ignore_ascii_case("infinity") {
        let inf = f64::INFINITY;
        return Some(if t.starts_with('-') { -inf } else { inf });
    }
    // Rust also reads `nan` and `infinity` spellings pandas does not: only
    // digits, one dot and an exponent get through.
    let ok = unsigned
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && unsigned.bytes().any(|b| b.is_ascii_digit());
    if !ok {
        return None;
    }
    t.parse::<f64>().ok()
}

fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "True" | "TRUE" | "true" => Some(true),
        "False" | "FALSE" | "false" => Some(false),
        _ => None,
    }
}

/// A typed column: its cells and how its dates print.
#[derive(Clone, Debug, PartialEq)]
pub struct Typed {
    /// One cell per row.
    pub cells: Vec<Cell>,
    /// How `str()` prints its dates.
    pub dates: DateStyle,
}

impl Typed {
    fn plain(cells: Vec<Cell>) -> Self {
        Typed {
            cells,
            dates: DateStyle::Python,
        }
    }
}

/// A CSV/TSV column (`None`: the row had no such field) typed as
/// `read_csv` types it.
pub fn text_column(tokens: Vec<Option<String>>) -> Typed {
    let na = |t: &Option<String>| t.as_deref().is_none_or(is_na_text);
    let any_na = tokens.iter().any(na);
    let present = || {
        tokens
            .iter()
            .filter(|t| !na(t))
            .map(|t| t.as_deref().unwrap_or(""))
    };
    if present().all(|t| parse_int(t).is_some()) {
        let cells = tokens
            .iter()
            .map(|t| match t.as_deref() {
                Some(s) if !is_na_text(s) => {
                    let i = parse_int(s).expect("checked");
                    if any_na {
                        Cell::Float(i as f64)
                    } else {
                        Cell::Int(i)
                    }
                }
                _ if any_na => Cell::Float(f64::NAN),
                _ => Cell::Na,
            })
            .collect();
        return Typed::plain(cells);
    }
    if present().all(|t| parse_float(t).is_some()) {
        let cells = tokens
            .iter()
            .map(|t| match t.as_deref() {
                Some(s) if !is_na_text(s) => Cell::Float(parse_float(s).expect("checked")),
                _ => Cell::Float(f64::NAN),
            })
            .collect();
        return Typed::plain(cells);
    }
    let as_bool = present().all(|t| parse_bool(t).is_some());
    let cells = tokens
        .into_iter()
        .map(|t| match t {
            Some(s) if !is_na_text(&s) => match as_bool {
                true => Cell::Bool(parse_bool(&s).expect("checked")),
                false => Cell::Str(s),
            },
            _ => Cell::Na,
        })
        .collect();
    Typed::plain(cells)
}

/// A spreadsheet cell as openpyxl gives it to pandas.
#[derive(Clone, Debug, PartialEq)]
pub enum Raw {
    /// No value (pandas makes it `""`, then missing).
    Empty,
    /// Text.
    Str(String),
    /// A number.
    Float(f64),
    /// An integer (some readers type them).
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// A date-formatted number.
    DateTime(NaiveDateTime),
    /// A time-formatted number below one day.
    Time(NaiveTime),
    /// An error value (`#DIV/0!`): missing.
    Error,
}

/// A sheet column typed as `read_excel` types it.
pub fn sheet_column(raw: Vec<Raw>) -> Typed {
    // openpyxl → pandas: empty → "", whole floats → int; then NA strings.
    let vals: Vec<Cell> = raw
        .into_iter()
        .map(|r| match r {
            Raw::Empty | Raw::Error => Cell::Na,
            Raw::Str(s) if is_na_text(&s) => Cell::Na,
            Raw::Str(s) => Cell::Str(s),
            Raw::Float(f) if f.fract() == 0.0 && f.abs() < 1e38 => Cell::Int(f as i128),
            Raw::Float(f) => Cell::Float(f),
            Raw::Int(i) => Cell::Int(i as i128),
            Raw::Bool(b) => Cell::Bool(b),
            Raw::DateTime(d) => Cell::DateTime(d),
            Raw::Time(t) => Cell::Time(t),
        })
        .collect();
    let any_na = vals.iter().any(Cell::is_na);
    let present = || vals.iter().filter(|c| !c.is_na());
    // lib.maybe_convert_numeric: numbers, booleans and numeric text.
    let numeric = |c: &Cell| -> Option<Cell> {
        match c {
            Cell::Int(_) | Cell::Float(_) | Cell::Bool(_) => Some(c.clone()),
            Cell::Str(s) => parse_int(s)
                .map(Cell::Int)
                .or_else(|| parse_float(s).map(Cell::Float)),
            _ => None,
        }
    };
    if present().all(|c| numeric(c).is_some()) {
        let conv: Vec<Option<Cell>> = vals.iter().map(numeric).collect();
        let all_bool = conv.iter().flatten().all(|c| matches!(c, Cell::Bool(_)));
        let any_float = conv.iter().flatten().any(|c| matches!(c, Cell::Float(_)));
        if all_bool && !any_na && !vals.is_empty() {
            return Typed::plain(vals);
        }
        let float = any_na || any_float;
        let cells = conv
            .into_iter()
            .map(|c| {
                let n = match c {
                    None => return Cell::Float(f64::NAN),
                    Some(Cell::Bool(b)) => Cell::Int(b as i128),
                    Some(n) => n,
                };
                match (n, float) {
                    (Cell::Int(i), true) => Cell::Float(i as f64),
                    (n, _) => n,
                }
            })
            .collect();
        return Typed::plain(cells);
    }
    // libops.maybe_convert_bool: booleans and True/False text (missing
    // cells stay missing), tried only when the first cell is not a Python
    // int (a bool is one).
    let boolish = |c: &Cell| match c {
        Cell::Bool(b) => Some(*b),
        Cell::Str(s) => parse_bool(s),
        _ => None,
    };
    let first_is_int = matches!(vals.first(), Some(Cell::Int(_) | Cell::Bool(_)));
    if !first_is_int && present().all(|c| boolish(c).is_some()) {
        let cells = vals
            .iter()
            .map(|c| boolish(c).map_or(Cell::Na, Cell::Bool))
            .collect();
        return Typed::plain(cells);
    }
    // A column of dates (and missing cells) becomes datetime64.
    if present().all(|c| matches!(c, Cell::DateTime(_))) {
        let dates = DateStyle::of_column(present().filter_map(|c| match c {
            Cell::DateTime(d) => Some(d),
            _ => None,
        }));
        return Typed { cells: vals, dates };
    }
    Typed::plain(vals)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(ts: &[&str]) -> Vec<Cell> {
        text_column(ts.iter().map(|t| Some(t.to_string())).collect()).cells
    }

    #[test]
    fn csv_columns_as_pandas_types_them() {
        assert_eq!(
            col(&["3", " 4", "+5"]),
            [Cell::Int(3), Cell::Int(4), Cell::Int(5)]
        );
        assert_eq!(col(&["1", "", "3"])[0], Cell::Float(1.0));
        assert!(col(&["1", "", "3"])[1].is_na());
        assert_eq!(col(&["3.", ".5", "1e5"])[2], Cell::Float(100000.0));
        assert_eq!(
            col(&["inf", "1", "-Infinity"])[2],
            Cell::Float(f64::NEG_INFINITY)
        );
        assert_eq!(col(&["True", "", "false"])[0], Cell::Bool(true));
        assert_eq!(col(&["True", "", "false"])[1], Cell::Na);
        assert_eq!(col(&["1", "a"])[0], Cell::Str("1".into()));
        assert_eq!(col(&["NA", "x"])[0], Cell::Na);
        assert_eq!(col(&["NAN", "1"])[0], Cell::Str("NAN".into()));
        assert_eq!(col(&["1_000", "2"])[0], Cell::Str("1_000".into()));
        assert_eq!(col(&["yes", "True"])[1], Cell::Str("True".into()));
    }

    #[test]
    fn sheet_columns_as_pandas_types_them() {
        let c = |r: Vec<Raw>| sheet_column(r).cells;
        assert_eq!(
            c(vec![Raw::Float(4.0), Raw::Str("x".into())])[0],
            Cell::Int(4)
        );
        assert_eq!(
            c(vec![Raw::Str("42".into()), Raw::Str(" 43".into())]),
            [Cell::Int(42), Cell::Int(43)]
        );
        assert_eq!(c(vec![Raw::Bool(true), Raw::Empty])[0], Cell::Float(1.0));
        assert_eq!(
            c(vec![Raw::Bool(true), Raw::Bool(false)])[1],
            Cell::Bool(false)
        );
        assert_eq!(c(vec![Raw::Bool(true), Raw::Float(2.0)])[0], Cell::Int(1));
        assert_eq!(c(vec![Raw::Float(1.0), Raw::Empty])[0], Cell::Float(1.0));
        assert_eq!(
            c(vec![Raw::Str("True".into()), Raw::Str("False".into())])[0],
            Cell::Bool(true)
        );
        assert_eq!(
            c(vec![Raw::Str("NA".into()), Raw::Str("x".into())])[0],
            Cell::Na
        );
    }
}
