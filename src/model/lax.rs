//! Pydantic v2's lax-mode coercions, as Karenina's trait models apply them to
//! values read from a checkpoint (Python mode: `Model(**kwargs)`).
//!
//! Each function answers whether pydantic accepts a JSON value for a field of
//! that type, and returns Python's reading or pydantic's complaint. Measured
//! against pydantic 2.14 (the Karenina venv): `"3"`, `3.0`, `true` are ints;
//! `3.5`, `"3.5"`, `"1e3"` are not; `"yes"`, `"t"`, `1`, `0.0` are bools,
//! `2` and `"maybe"` are not; strings are never coerced from numbers.

use crate::json::Json;

/// Pydantic's complaint about a value, as kld words it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

/// An `int` field.
pub fn int(v: &Json) -> Result<i128, Refused> {
    match v {
        Json::Bool(b) => Ok(i128::from(*b)),
        Json::Number(n) if n.is_integer() => Ok(n.lexical().parse::<i128>().unwrap_or(i128::MAX)),
        Json::Number(n) => {
            let f = n.as_f64();
            if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.2e18 {
                Ok(f as i128)
            } else if f.is_finite() && f.fract() != 0.0 {
                Err(Refused(format!(
                    "{n} is not a valid integer (it has a fractional part)"
                )))
            } else {
                Err(Refused(format!("{n} is not a valid integer")))
            }
        }
        Json::String(s) => {
            int_str(s).ok_or_else(|| Refused(format!("{s:?} is not a valid integer")))
        }
        other => Err(Refused(format!("{} is not a valid integer", other.kind()))),
    }
}

fn int_str(s: &str) -> Option<i128> {
    let t = s.trim();
    let (neg, rest) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let digits = match rest.split_once('.') {
        Some((d, zeros)) if zeros.bytes().all(|b| b == b'0') => d,
        Some(_) => return None,
        None => rest,
    };
    let ok = !digits.is_empty()
        && digits
            .split('_')
            .all(|g| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit()));
    if !ok {
        return None;
    }
    let v = digits.replace('_', "").parse::<i128>().unwrap_or(i128::MAX);
    Some(if neg { -v } else { v })
}

/// A `bool` field.
pub fn boolean(v: &Json) -> Result<bool, Refused> {
    let bad = || {
        Err(Refused(format!(
            "{} is not a valid boolean",
            crate::model::show(v)
        )))
    };
    match v {
        Json::Bool(b) => Ok(*b),
        Json::Number(n) => {
            let x = n.as_f64();
            if x == 0.0 {
                Ok(false)
            } else if x == 1.0 {
                Ok(true)
            } else {
                bad()
            }
        }
        Json::String(s) => match s.to_ascii_lowercase().as_str() {
            "0" | "off" | "f" | "false" | "n" | "no" => Ok(false),
            "1" | "on" | "t" | "true" | "y" | "yes" => Ok(true),
            _ => bad(),
        },
        _ => bad(),
    }
}

/// A `float` field.
pub fn float(v: &Json) -> Result<f64, Refused> {
    match v {
        Json::Bool(b) => Ok(f64::from(u8::from(*b))),
        Json::Number(n) => Ok(n.as_f64()),
        Json::String(s) => {
            let t = s.trim().replace('_', "");
            t.parse::<f64>()
                .map_err(|_| Refused(format!("{s:?} is not a valid number")))
        }
        other => Err(Refused(format!("{} is not a valid number", other.kind()))),
    }
}

/// A `str` field.
pub fn string(v: &Json) -> Result<&str, Refused> {
    v.as_str()
        .ok_or_else(|| Refused(format!("{} is not a valid string", v.kind())))
}

/// A `list[str]` field.
pub fn strings(v: &Json) -> Result<Vec<&str>, Refused> {
    match v {
        Json::Array(a) => a
            .iter()
            .map(|x| {
                x.as_str().ok_or_else(|| {
                    Refused(format!(
                        "list item {} is not a string",
                        crate::model::show(x)
                    ))
                })
            })
            .collect(),
        other => Err(Refused(format!("{} is not a valid list", other.kind()))),
    }
}

/// A `dict[str, str]` field.
pub(crate) fn string_map(v: &Json) -> Result<Vec<(&str, &str)>, Refused> {
    match v {
        Json::Object(o) => {
            o.0.iter()
                .map(|(k, x)| {
                    x.as_str()
                        .map(|s| (k.as_str(), s))
                        .ok_or_else(|| Refused(format!("value of {k:?} is not a string")))
                })
                .collect()
        }
        other => Err(Refused(format!(
            "{} is not a valid dictionary",
            other.kind()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn j(s: &str) -> Json {
        parse(s.as_bytes()).unwrap()
    }

    #[test]
    fn pydantic_lax_readings() {
        // The table measured in the Karenina venv (pydantic 2.14).
        for (v, want) in [
            ("\"3\"", Some(3)),
            ("\" 3 \"", Some(3)),
            ("\"3.0\"", Some(3)),
            ("3.0", Some(3)),
            ("true", Some(1)),
            ("\"+3\"", Some(3)),
            ("\"1_000\"", Some(1000)),
            ("\"3.5\"", None),
            ("3.5", None),
            ("\"1e3\"", None),
            ("\"\"", None),
            ("1e300", None),
            ("null", None),
            ("\"one\"", None),
        ] {
            assert_eq!(int(&j(v)).ok(), want, "{v}");
        }
        for (v, want) in [
            ("\"yes\"", Some(true)),
            ("\"TRUE\"", Some(true)),
            ("\"t\"", Some(true)),
            ("\"0\"", Some(false)),
            ("1", Some(true)),
            ("0.0", Some(false)),
            ("2", None),
            ("\"maybe\"", None),
            ("\"3\"", None),
            ("null", None),
        ] {
            assert_eq!(boolean(&j(v)).ok(), want, "{v}");
        }
        assert!(string(&j("3")).is_err());
        assert!(string_map(&j("[\"a\"]")).is_err());
        assert_eq!(float(&j("\"1e3\"")), Ok(1000.0));
    }
}
