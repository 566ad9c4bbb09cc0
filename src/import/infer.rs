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
//! - a sheet column of numbers with an integer past 2**63 beside a negative
//!   or missing cell keeps its cells as they were; with an integer past 64
//!   bits (and no missing or fractional cell) it is an object column of
//!   ints, its booleans missing;
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
    let raw_na = |r: &Raw| match r {
        Raw::Empty => Some(Cell::Str(String::new())),
        Raw::Str(s) if is_na_text(s) => Some(Cell::Str(s.clone())),
        _ => None,
    };
    // The cells before NA strings are read as missing.
    let before_na: Vec<Option<Cell>> = raw.iter().map(raw_na).collect();
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
        let ints = || {
            conv.iter().flatten().filter_map(|c| match c {
                Cell::Int(i) => Some(*i),
                _ => None,
            })
        };
        let (i64_min, i64_max, u64_max) = (i64::MIN as i128, i64::MAX as i128, u64::MAX as i128);
        let uint = ints().any(|i| i > i64_max && i <= u64_max);
        let sint = ints().any(|i| (i64_min..0).contains(&i));
        // No dtype holds a number past 2**63 beside a negative or missing
        // one: pandas keeps the cells as they were, an empty cell as "" and
        // NA text as text (Seen.check_uint64_conflict).
        if uint && (any_na || sint) {
            let cells = vals
                .into_iter()
                .zip(before_na)
                .map(|(c, b)| b.unwrap_or(c))
                .collect();
            return Typed::plain(cells);
        }
        // An integer past 64 bits, with no missing or fractional cell: an
        // object column of Python ints, numeric text as its int, and each
        // boolean None (pandas 3's maybe_convert_numeric).
        if !any_na && !any_float && ints().any(|i| i > u64_max || i < i64_min) {
            let cells = conv
                .into_iter()
                .map(|c| match c {
                    Some(Cell::Int(i)) => Cell::Int(i),
                    _ => Cell::Na,
                })
                .collect();
            return Typed::plain(cells);
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

    /// What `lib.maybe_convert_numeric` of pandas 3.1.1 returns for these
    /// object columns (run in Karenina's venv; `big` is 1.5e20 read from a
    /// sheet, `u` is 2**63).
    #[test]
    fn sheet_columns_with_integers_past_64_bits_as_pandas_types_them() {
        let big = Raw::Float(1.5e20);
        let u = Raw::Float(9223372036854775808.0);
        let c = |r: Vec<Raw>| sheet_column(r).cells;
        let s = |t: &str| Raw::Str(t.into());
        let bi = Cell::Int(150_000_000_000_000_000_000);
        let ui = Cell::Int(1 << 63);
        // [big, False] -> object [big, None]
        assert_eq!(
            c(vec![big.clone(), Raw::Bool(false)]),
            [bi.clone(), Cell::Na]
        );
        // [big, True, 3] -> object [big, None, 3]
        assert_eq!(
            c(vec![big.clone(), Raw::Bool(true), Raw::Float(3.0)]),
            [bi.clone(), Cell::Na, Cell::Int(3)]
        );
        // [big, " 7"] -> object [big, 7]
        assert_eq!(c(vec![big.clone(), s(" 7")]), [bi.clone(), Cell::Int(7)]);
        // [big, "7.5"] -> float64; [big, None] -> float64
        assert_eq!(c(vec![big.clone(), s("7.5")])[1], Cell::Float(7.5));
        assert!(matches!(
            c(vec![big.clone(), Raw::Empty])[0],
            Cell::Float(_)
        ));
        // [big, True, None] -> float64 [1.5e20, 1.0, nan]
        assert_eq!(
            c(vec![big.clone(), Raw::Bool(true), Raw::Empty])[1],
            Cell::Float(1.0)
        );
        // [2**63, False] -> uint64 [2**63, 0]
        assert_eq!(
            c(vec![u.clone(), Raw::Bool(false)]),
            [ui.clone(), Cell::Int(0)]
        );
        // [2**63, -1, True, " 5"] -> the cells as they were
        assert_eq!(
            c(vec![u.clone(), Raw::Float(-1.0), Raw::Bool(true), s(" 5")]),
            [
                ui.clone(),
                Cell::Int(-1),
                Cell::Bool(true),
                Cell::Str(" 5".into())
            ]
        );
        // [2**63, None, False] -> the cells as they were
        assert_eq!(
            c(vec![u.clone(), Raw::Empty, Raw::Bool(false)]),
            [ui.clone(), Cell::Str("".into()), Cell::Bool(false)]
        );
        // read_excel of [2**63, "NA", None, -1] -> [2**63, "NA", "", -1]
        assert_eq!(
            c(vec![u.clone(), s("NA"), Raw::Empty, Raw::Float(-1.0)]),
            [
                ui,
                Cell::Str("NA".into()),
                Cell::Str("".into()),
                Cell::Int(-1)
            ]
        );
        // [big, 2**63, -1, True] -> the cells as they were
        assert_eq!(
            c(vec![big, u, Raw::Float(-1.0), Raw::Bool(true)])[3],
            Cell::Bool(true)
        );
    }
}
