//! Cell values as pandas hands them to Karenina's extractor, and the two
//! ways Karenina turns them into checkpoint text: Python's `str()` (the
//! question, answer, author, URL, notes and keywords columns) and the value
//! itself (custom metadata, written by `json.dump`).

use crate::json::{Json, Number};
use chrono::{NaiveDateTime, NaiveTime, Timelike};

/// One cell after pandas' typing of its column.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Missing: an empty cell or one of pandas' NA strings (`pd.isna`).
    Na,
    /// A Python `int` (an `int64` column, or an int in an object column).
    Int(i128),
    /// A Python `float` (a `float64` column: ints of a column with an empty
    /// cell are floats, `3` → `3.0`).
    Float(f64),
    /// A Python `bool`.
    Bool(bool),
    /// A Python `str`, as written in the file.
    Str(String),
    /// A date and time (a spreadsheet's date cell; a pandas `Timestamp` in a
    /// date column, a `datetime` in a mixed one).
    DateTime(NaiveDateTime),
    /// A time of day (a spreadsheet's time cell: a `datetime.time`).
    Time(NaiveTime),
    /// A JSON value of a JSON dataset that is none of the above (an array,
    /// an object, an integer past 128 bits): kept as it is.
    Json(Json),
}

/// How a column's dates print under `str()`: pandas formats a whole
/// `datetime64` column at one precision, Python each `datetime` alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateStyle {
    /// `datetime.__str__`: `2024-01-02 00:00:00`, microseconds when not 0.
    Python,
    /// Every value of the column is midnight: `2024-01-02`.
    Day,
    /// Whole seconds: `2024-01-02 10:05:00`.
    Seconds,
    /// Milliseconds: `2024-01-02 10:05:00.500`.
    Millis,
    /// Microseconds: `2024-01-02 10:05:00.500001`.
    Micros,
}

impl DateStyle {
    /// The style pandas picks for a `datetime64` column holding `dates`.
    pub fn of_column<'a>(dates: impl Iterator<Item = &'a NaiveDateTime>) -> Self {
        let mut style = DateStyle::Day;
        for d in dates {
            let micros = d.nanosecond() / 1000;
            let s = if micros % 1000 != 0 {
                DateStyle::Micros
            } else if micros != 0 {
                DateStyle::Millis
            } else if d.time() != NaiveTime::MIN {
                DateStyle::Seconds
            } else {
                DateStyle::Day
            };
            style = style.max_with(s);
        }
        style
    }

    fn rank(self) -> u8 {
        match self {
            DateStyle::Day => 0,
            DateStyle::Seconds => 1,
            DateStyle::Millis => 2,
            DateStyle::Micros | DateStyle::Python => 3,
        }
    }

    fn max_with(self, other: Self) -> Self {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }

    fn format(self, d: &NaiveDateTime) -> String {
        match self {
            DateStyle::Day => d.format("%Y-%m-%d").to_string(),
            DateStyle::Seconds => d.format("%Y-%m-%d %H:%M:%S").to_string(),
            DateStyle::Millis => d.format("%Y-%m-%d %H:%M:%S%.3f").to_string(),
            DateStyle::Micros => d.format("%Y-%m-%d %H:%M:%S%.6f").to_string(),
            DateStyle::Python => python_datetime(d, ' '),
        }
    }
}

/// `datetime.isoformat(sep)`: microseconds only when not 0.
fn python_datetime(d: &NaiveDateTime, sep: char) -> String {
    let fmt = if d.nanosecond() / 1000 == 0 {
        format!("%Y-%m-%d{sep}%H:%M:%S")
    } else {
        format!("%Y-%m-%d{sep}%H:%M:%S%.6f")
    };
    d.format(&fmt).to_string()
}

fn python_time(t: &NaiveTime) -> String {
    if t.nanosecond() / 1000 == 0 {
        t.format("%H:%M:%S").to_string()
    } else {
        t.format("%H:%M:%S%.6f").to_string()
    }
}

impl Cell {
    /// `pd.notna(value)`.
    pub fn is_na(&self) -> bool {
        match self {
            Cell::Na => true,
            Cell::Float(f) => f.is_nan(),
            _ => false,
        }
    }

    /// Python's `str(value)` (`astype(str)` for the question and answer
    /// columns, `str(row[col])` for the others); dates as `style` prints them.
    pub fn py_str(&self, style: DateStyle) -> String {
        match self {
            Cell::Na => "nan".into(),
            Cell::Int(i) => i.to_string(),
            Cell::Float(f) => crate::json::py::float_repr(*f)
                .replace("Infinity", "inf")
                .replace("NaN", "nan"),
            Cell::Bool(b) => if *b { "True" } else { "False" }.into(),
            Cell::Str(s) => s.clone(),
            Cell::DateTime(d) => style.format(d),
            Cell::Time(t) => python_time(t),
            Cell::Json(j) => crate::json::py::dumps(j, false),
        }
    }

    /// The value `json.dump` writes for a custom metadata cell. `Err` names
    /// what Karenina cannot save: a non-finite float (Python writes
    /// `Infinity`, which is not JSON). Dates and times, on which Karenina's
    /// `save()` fails (`Timestamp is not JSON serializable`), are written as
    /// their ISO 8601 text.
    pub fn to_json(&self) -> Result<Json, &'static str> {
        Ok(match self {
            Cell::Na => Json::Null,
            Cell::Int(i) => Json::Number(Number::from_lexical(&i.to_string())),
            Cell::Float(f) if f.is_finite() => Json::Number(Number::from_f64(*f)),
            Cell::Float(_) => {
                return Err("an infinite number, which Python's json writes as Infinity (not JSON)")
            }
            Cell::Bool(b) => Json::Bool(*b),
            Cell::Str(s) => Json::String(s.clone()),
            Cell::DateTime(d) => Json::String(python_datetime(d, 'T')),
            Cell::Time(t) => Json::String(python_time(t)),
            Cell::Json(j) => j.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn dt(h: u32, us: u32) -> NaiveDateTime {
        NaiveDate::from_ymd_opt(2024, 1, 2)
            .unwrap()
            .and_hms_micro_opt(h, 5, 0, us)
            .unwrap()
    }

    #[test]
    fn str_is_pythons() {
        assert_eq!(Cell::Float(3.0).py_str(DateStyle::Python), "3.0");
        assert_eq!(Cell::Float(1e-5).py_str(DateStyle::Python), "1e-05");
        assert_eq!(Cell::Float(f64::INFINITY).py_str(DateStyle::Python), "inf");
        assert_eq!(Cell::Bool(true).py_str(DateStyle::Python), "True");
        assert_eq!(Cell::Int(-7).py_str(DateStyle::Python), "-7");
        assert_eq!(
            Cell::DateTime(dt(10, 0)).py_str(DateStyle::Python),
            "2024-01-02 10:05:00"
        );
        assert_eq!(
            Cell::DateTime(dt(10, 500_000)).py_str(DateStyle::Python),
            "2024-01-02 10:05:00.500000"
        );
    }

    #[test]
    fn a_date_column_prints_at_one_precision() {
        let midnight = NaiveDate::from_ymd_opt(2024, 1, 2)
            .unwrap()
            .and_hms_opt(0, 0, 0)
            .unwrap();
        assert_eq!(DateStyle::of_column([midnight].iter()), DateStyle::Day);
        let both = [midnight, dt(4, 500_000)];
        let s = DateStyle::of_column(both.iter());
        assert_eq!(s, DateStyle::Millis);
        assert_eq!(
            Cell::DateTime(midnight).py_str(s),
            "2024-01-02 00:00:00.000"
        );
    }

    #[test]
    fn custom_metadata_values() {
        let num = |c: Cell| match c.to_json().unwrap() {
            Json::Number(n) => n.lexical().to_string(),
            other => panic!("{other:?}"),
        };
        assert_eq!(num(Cell::Float(7.0)), "7.0");
        assert_eq!(num(Cell::Int(7)), "7");
        assert!(Cell::Float(f64::NEG_INFINITY).to_json().is_err());
        assert_eq!(
            Cell::DateTime(dt(10, 0)).to_json().unwrap(),
            Json::String("2024-01-02T10:05:00".into())
        );
    }
}
