//! One value as pydantic v2's lax mode reads it into a `bool`, `int`,
//! `float` or `str` field of Karenina's models: coerced where pydantic's
//! rules allow (`"1"` or `true` is the int 1, `"yes"` is true), refused with
//! pydantic's message otherwise.
//!
//! Why a module of its own: the walk over a row's scalar fields
//! ([`super::coerce`]), the walk over its score dictionaries
//! ([`super::score_dicts`]) and the CSV cells ([`super::csv_cells`]) all read
//! values by these rules; each uses this one and none the other.

use crate::json::nan::{NAN, NEG_INF, POS_INF};
use serde_json::{Number, Value};

/// A scalar type of Karenina's models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// `bool`.
    Bool,
    /// `int`.
    Int,
    /// `float`.
    Float,
    /// `str`.
    Str,
}

/// A value as a message shows it (short).
pub(crate) fn shown(v: &Value) -> String {
    let s = match v.as_str() {
        Some(NAN) => "NaN".to_string(),
        Some(POS_INF) => "Infinity".to_string(),
        Some(NEG_INF) => "-Infinity".to_string(),
        _ => v.to_string(),
    };
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s
    }
}

/// A JSON value as Python's `json.load` gives it, for the scalar rules.
enum Py<'a> {
    Bool(bool),
    /// An int literal, its digits (with a sign).
    Int(&'a str),
    Float(f64),
    Str(&'a str),
    Other,
}

fn py(v: &Value) -> Py<'_> {
    match v {
        Value::Bool(b) => Py::Bool(*b),
        Value::Number(n) => {
            let s = n.as_str();
            if s.contains(['.', 'e', 'E']) {
                Py::Float(s.parse().unwrap_or(f64::NAN))
            } else {
                Py::Int(s)
            }
        }
        Value::String(s) => match s.as_str() {
            NAN => Py::Float(f64::NAN),
            POS_INF => Py::Float(f64::INFINITY),
            NEG_INF => Py::Float(f64::NEG_INFINITY),
            s => Py::Str(s),
        },
        _ => Py::Other,
    }
}

/// A float as kld holds it (the sentinels for NaN and the infinities).
pub(crate) fn float(f: f64) -> Value {
    match Number::from_f64(f) {
        Some(n) => Value::Number(n),
        None if f.is_nan() => Value::from(NAN),
        None if f > 0.0 => Value::from(POS_INF),
        None => Value::from(NEG_INF),
    }
}

/// An int's digits as a JSON number.
pub(crate) fn int(digits: &str) -> Value {
    match digits.parse::<i64>() {
        Ok(i) => Value::from(i),
        // (Past 64 bits: Python's int keeps every digit, and so does kld.)
        Err(_) => digits
            .parse::<Number>()
            .map(Value::Number)
            .unwrap_or(Value::Null),
    }
}

/// `v` as pydantic's lax mode validates it into `ty`: `Ok(None)` when it is
/// already that, `Ok(Some(coerced))`, or pydantic's reason for refusing it.
pub(crate) fn coerce(v: &Value, ty: Ty) -> Result<Option<Value>, String> {
    let p = py(v);
    match ty {
        Ty::Bool => match p {
            Py::Bool(_) => Ok(None),
            Py::Int(s) => match s.trim_start_matches(['-', '+']).trim_start_matches('0') {
                "" => Ok(Some(Value::Bool(false))),
                "1" if !s.starts_with('-') => Ok(Some(Value::Bool(true))),
                _ => Err("Input should be a valid boolean, unable to interpret input".into()),
            },
            Py::Float(0.0) => Ok(Some(Value::Bool(false))),
            Py::Float(1.0) => Ok(Some(Value::Bool(true))),
            Py::Str(s) => match s.to_lowercase().as_str() {
                "0" | "off" | "f" | "false" | "n" | "no" => Ok(Some(Value::Bool(false))),
                "1" | "on" | "t" | "true" | "y" | "yes" => Ok(Some(Value::Bool(true))),
                _ => Err("Input should be a valid boolean, unable to interpret input".into()),
            },
            _ => Err("Input should be a valid boolean".into()),
        },
        Ty::Int => match p {
            Py::Int(_) => Ok(None),
            Py::Bool(b) => Ok(Some(Value::from(i64::from(b)))),
            Py::Float(f) if !f.is_finite() => Err("Input should be a finite number".into()),
            Py::Float(f) if f.fract() != 0.0 => {
                Err("Input should be a valid integer, got a number with a fractional part".into())
            }
            // (pydantic takes a float into an int within 64 bits only.)
            Py::Float(f)
                if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) =>
            {
                Ok(Some(Value::from(f as i64)))
            }
            Py::Float(_) => {
                Err("Unable to parse input string as an integer, exceeded maximum size".into())
            }
            Py::Str(s) => int_str(s).map(|d| Some(int(&d))).ok_or_else(|| {
                "Input should be a valid integer, unable to parse string as an integer".into()
            }),
            Py::Other => Err("Input should be a valid integer".into()),
        },
        Ty::Float => match p {
            Py::Int(_) | Py::Float(_) => Ok(None),
            Py::Bool(b) => Ok(Some(float(f64::from(u8::from(b))))),
            Py::Str(s) => float_str(s).map(|f| Some(float(f))).ok_or_else(|| {
                "Input should be a valid number, unable to parse string as a number".into()
            }),
            Py::Other => Err("Input should be a valid number".into()),
        },
        Ty::Str => match p {
            Py::Str(_) => Ok(None),
            _ => Err("Input should be a valid string".into()),
        },
    }
}

/// ASCII digits with single underscores between them (Python's and
/// pydantic's grouping), without the underscores.
fn digits(s: &str) -> Option<String> {
    let b = s.as_bytes();
    if b.is_empty() || !b[0].is_ascii_digit() || !b[b.len() - 1].is_ascii_digit() {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'0'..=b'9' => out.push(c as char),
            b'_' if b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit() => {}
            _ => return None,
        }
    }
    Some(out)
}

/// A string pydantic reads as an int: trimmed, an optional sign, digits
/// (underscores between them), optionally `.` and zeros; its digits.
pub(crate) fn int_str(s: &str) -> Option<String> {
    let t = s.trim();
    let (sign, rest) = match t.as_bytes().first()? {
        b'-' => ("-", &t[1..]),
        b'+' => ("", &t[1..]),
        _ => ("", t),
    };
    let whole = match rest.split_once('.') {
        Some((w, zeros)) if !zeros.is_empty() && zeros.bytes().all(|c| c == b'0') => w,
        Some(_) => return None,
        None => rest,
    };
    let d = digits(whole)?;
    let d = d.trim_start_matches('0');
    Some(match d {
        "" => "0".to_string(),
        d => format!("{sign}{d}"),
    })
}

/// A string pydantic reads as a float: trimmed, `nan` / `inf` / `infinity`
/// (any case, signed), or a decimal number (underscores between digits).
pub(crate) fn float_str(s: &str) -> Option<f64> {
    let t = s.trim();
    let unsigned = t.trim_start_matches(['-', '+']);
    if t.len() - unsigned.len() > 1 {
        return None;
    }
    let word = unsigned.to_ascii_lowercase();
    if matches!(word.as_str(), "nan" | "inf" | "infinity") {
        return t.parse().ok();
    }
    // Underscores only between two digits; then Rust's parse (which takes
    // `1.`, `.5`, `1e5`, and overflows to infinity as Python does).
    let b = t.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c == b'_'
            && !(i > 0 && i + 1 < b.len() && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit())
        {
            return None;
        }
    }
    if !t
        .bytes()
        .all(|c| c.is_ascii_digit() || b"+-._eE".contains(&c))
    {
        return None;
    }
    t.replace('_', "").parse().ok()
}
