//! A result row's values as Karenina reads them. Karenina's loader
//! (`load_result_set_from_json`) validates each row with its pydantic models
//! (`VerificationResult` and its sections), in pydantic v2's lax mode: a
//! value of another type is coerced when pydantic's rules allow it
//! (`"replicate": "1"` or `true` is replicate 1, `"verify_result": "yes"` is
//! true) and refused otherwise (`"maybe"`, `2`, `1.5`, `{}`), which fails the
//! whole file. Every kld reader hands its rows through [`row`] before reading
//! them, so that each number counts what Karenina counts and a value
//! Karenina refuses is a located error, not a row read otherwise.
//!
//! The fields checked are the scalar fields of Karenina's models
//! (`bool`, `int`, `float`, `str`, optional or not: [`FIELDS`], taken from
//! `src/karenina/schemas/verification/result_components.py`,
//! `model_identity.py` and `result.py` at 9851a770) and the sections, which
//! must be objects. A `null` is read as Karenina's default even where its
//! model requires a value: kld reads rows other writers left incomplete
//! (docs/results.md, "What a file lacks"). The values inside the score
//! dictionaries are checked by [`super::score_dicts`].

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

/// The scalar fields of Karenina's `VerificationResult`: section path (empty:
/// the row itself), field, type.
pub const FIELDS: &[(&[&str], &str, Ty)] = &[
    (&[], "evaluation_input", Ty::Str),
    (&[], "used_full_trace", Ty::Bool),
    (&[], "trace_extraction_error", Ty::Str),
    (&["metadata"], "question_id", Ty::Str),
    (&["metadata"], "template_id", Ty::Str),
    (&["metadata"], "partial_content", Ty::Str),
    (&["metadata"], "question_text", Ty::Str),
    (&["metadata"], "raw_answer", Ty::Str),
    (&["metadata"], "answering_system_prompt", Ty::Str),
    (&["metadata"], "parsing_system_prompt", Ty::Str),
    (&["metadata"], "execution_time", Ty::Float),
    (&["metadata"], "timestamp", Ty::Str),
    (&["metadata"], "result_id", Ty::Str),
    (&["metadata"], "run_name", Ty::Str),
    (&["metadata"], "replicate", Ty::Int),
    (&["metadata"], "few_shot_enabled", Ty::Bool),
    (&["metadata"], "few_shot_example_count", Ty::Int),
    (&["metadata"], "evaluation_mode", Ty::Str),
    (&["metadata"], "scenario_id", Ty::Str),
    (&["metadata"], "scenario_node", Ty::Str),
    (&["metadata"], "scenario_turn", Ty::Int),
    (&["metadata", "answering"], "interface", Ty::Str),
    (&["metadata", "answering"], "model_name", Ty::Str),
    (&["metadata", "answering"], "config_id", Ty::Str),
    (&["metadata", "parsing"], "interface", Ty::Str),
    (&["metadata", "parsing"], "model_name", Ty::Str),
    (&["metadata", "parsing"], "config_id", Ty::Str),
    (&["template"], "raw_llm_response", Ty::Str),
    (&["template"], "template_verification_performed", Ty::Bool),
    (&["template"], "verify_result", Ty::Bool),
    (&["template"], "field_verification_error", Ty::Str),
    (&["template"], "composition_strategy", Ty::Str),
    (&["template"], "embedding_check_performed", Ty::Bool),
    (&["template"], "embedding_similarity_score", Ty::Float),
    (&["template"], "embedding_override_applied", Ty::Bool),
    (&["template"], "embedding_model_used", Ty::Str),
    (&["template"], "regex_validations_performed", Ty::Bool),
    (&["template"], "regex_overall_success", Ty::Bool),
    (&["template"], "recursion_limit_reached", Ty::Bool),
    (&["template"], "response_timeout_partial", Ty::Bool),
    (&["template"], "usage_unavailable", Ty::Bool),
    (&["template"], "investigation_trace", Ty::Str),
    (&["template"], "agentic_parsing_performed", Ty::Bool),
    (&["template"], "agentic_extraction_recovery", Ty::Str),
    (&["template"], "agentic_extraction_error", Ty::Str),
    (&["template"], "dynamic_parsing_performed", Ty::Bool),
    (&["template"], "dynamic_parse_decision", Ty::Str),
    (&["template"], "dynamic_decision_reasoning", Ty::Str),
    (&["template"], "abstention_check_performed", Ty::Bool),
    (&["template"], "abstention_detected", Ty::Bool),
    (&["template"], "abstention_override_applied", Ty::Bool),
    (&["template"], "abstention_reasoning", Ty::Str),
    (&["template"], "sufficiency_check_performed", Ty::Bool),
    (&["template"], "sufficiency_detected", Ty::Bool),
    (&["template"], "sufficiency_override_applied", Ty::Bool),
    (&["template"], "sufficiency_reasoning", Ty::Str),
    (&["rubric"], "rubric_evaluation_performed", Ty::Bool),
    (&["rubric"], "rubric_evaluation_strategy", Ty::Str),
    (&["deep_judgment"], "deep_judgment_mode", Ty::Str),
    (&["deep_judgment"], "deep_judgment_performed", Ty::Bool),
    (&["deep_judgment"], "deep_judgment_model_calls", Ty::Int),
    (
        &["deep_judgment"],
        "deep_judgment_excerpt_retry_count",
        Ty::Int,
    ),
    (&["deep_judgment"], "deep_judgment_search_enabled", Ty::Bool),
    (
        &["deep_judgment_rubric"],
        "deep_judgment_rubric_performed",
        Ty::Bool,
    ),
    (
        &["deep_judgment_rubric"],
        "total_deep_judgment_model_calls",
        Ty::Int,
    ),
    (&["deep_judgment_rubric"], "total_traits_evaluated", Ty::Int),
    (&["deep_judgment_rubric"], "total_excerpt_retries", Ty::Int),
];

/// The sections of a row, each an object (or null) in Karenina's model.
const SECTIONS: &[&[&str]] = &[
    &["metadata"],
    &["metadata", "answering"],
    &["metadata", "parsing"],
    &["template"],
    &["rubric"],
    &["deep_judgment"],
    &["deep_judgment_rubric"],
];

/// A value Karenina's model refuses: where (a JSON pointer below the row,
/// `/metadata/replicate`) and pydantic's reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The value's JSON pointer below the row.
    pub path: String,
    /// Why, in pydantic's words, with the value.
    pub reason: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.reason)
    }
}

fn pointer(section: &[&str], field: &str) -> String {
    let mut p = String::new();
    for s in section.iter().chain([&field]) {
        p.push('/');
        p.push_str(s);
    }
    p
}

/// Coerces the scalar values of `row` (a result row, the export's shape) as
/// Karenina's models do, in place; the first value they refuse, if any (the
/// row is then left part coerced).
pub fn row(row: &mut Value) -> Result<(), Refused> {
    each(row, &mut |p, reason| Err(Refused { path: p, reason }))
}

/// [`row`], but a refused value is set to `null` and handed to `refused`
/// (a database row: the value left out, the rest of the run read).
pub fn row_leaving_out(row: &mut Value, refused: &mut dyn FnMut(Refused)) {
    let _ = each(row, &mut |p, reason| {
        refused(Refused { path: p, reason });
        Ok(())
    });
}

/// Walks the sections and fields; `refused(path, reason)` decides whether to
/// stop (`Err`) or go on with the value set to null (`Ok`).
fn each(
    row: &mut Value,
    refused: &mut dyn FnMut(String, String) -> Result<(), Refused>,
) -> Result<(), Refused> {
    if !row.is_object() {
        return Ok(());
    }
    for section in SECTIONS {
        let Some(v) = walk(row, section) else {
            continue;
        };
        if !(v.is_object() || v.is_null()) {
            let reason = format!(
                "Input should be a valid dictionary (Karenina's model refuses {})",
                shown(v)
            );
            *v = Value::Null;
            refused(
                pointer(&section[..section.len() - 1], section[section.len() - 1]),
                reason,
            )?;
        }
    }
    // (FIELDS holds each section's fields together: one walk a section.)
    let mut i = 0;
    while i < FIELDS.len() {
        let section = FIELDS[i].0;
        let end = i + FIELDS[i..].iter().take_while(|f| f.0 == section).count();
        let fields = &FIELDS[i..end];
        i = end;
        let Some(obj) = walk(row, section).and_then(Value::as_object_mut) else {
            continue;
        };
        for (_, field, ty) in fields {
            let Some(v) = obj.get_mut(*field) else {
                continue;
            };
            if v.is_null() {
                continue;
            }
            match coerce(v, *ty) {
                Ok(Some(c)) => *v = c,
                Ok(None) => {}
                Err(reason) => {
                    let reason = format!("{reason} (Karenina's model refuses {})", shown(v));
                    *v = Value::Null;
                    refused(pointer(section, field), reason)?;
                }
            }
        }
    }
    // The values inside the score dictionaries.
    super::score_dicts::each(row, refused)
}

/// The section at `path`, if the row has it.
fn walk<'a>(row: &'a mut Value, path: &[&str]) -> Option<&'a mut Value> {
    let mut v = row;
    for p in path {
        v = v.as_object_mut()?.get_mut(*p)?;
    }
    Some(v)
}

/// A value as a message shows it (short).
pub(super) fn shown(v: &Value) -> String {
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
pub(super) fn float(f: f64) -> Value {
    match Number::from_f64(f) {
        Some(n) => Value::Number(n),
        None if f.is_nan() => Value::from(NAN),
        None if f > 0.0 => Value::from(POS_INF),
        None => Value::from(NEG_INF),
    }
}

/// An int's digits as a JSON number.
pub(super) fn int(digits: &str) -> Value {
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
pub fn coerce(v: &Value, ty: Ty) -> Result<Option<Value>, String> {
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
pub(super) fn int_str(s: &str) -> Option<String> {
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
pub(super) fn float_str(s: &str) -> Option<f64> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn c(v: Value, ty: Ty) -> Result<Value, ()> {
        match coerce(&v, ty) {
            Ok(Some(x)) => Ok(x),
            Ok(None) => Ok(v),
            Err(_) => Err(()),
        }
    }

    #[test]
    fn bools_as_pydantic_lax_mode_takes_them() {
        for (v, want) in [
            (json!("yes"), true),
            (json!("YES"), true),
            (json!("off"), false),
            (json!("t"), true),
            (json!(1), true),
            (json!(0), false),
            (json!(1.0), true),
            (json!("0"), false),
        ] {
            assert_eq!(c(v.clone(), Ty::Bool), Ok(Value::Bool(want)), "{v}");
        }
        for v in [
            json!("maybe"),
            json!(2),
            json!(-1),
            json!(1.5),
            json!(" yes"),
            json!("00"),
            json!({}),
            json!([]),
            json!(NAN),
        ] {
            assert_eq!(c(v.clone(), Ty::Bool), Err(()), "{v}");
        }
    }

    #[test]
    fn ints_as_pydantic_lax_mode_takes_them() {
        for (v, want) in [
            (json!("1"), json!(1)),
            (json!(true), json!(1)),
            (json!(" 1 "), json!(1)),
            (json!("1.0"), json!(1)),
            (json!("1_000"), json!(1000)),
            (json!("+01"), json!(1)),
            (json!("-0"), json!(0)),
            (json!(2.0), json!(2)),
            (json!("\u{a0}7"), json!(7)),
        ] {
            assert_eq!(c(v.clone(), Ty::Int), Ok(want), "{v}");
        }
        let big = c(json!("99999999999999999999999"), Ty::Int).unwrap();
        assert_eq!(big.to_string(), "99999999999999999999999");
        for v in [
            json!("one"),
            json!(1.5),
            json!({}),
            json!("1e2"),
            json!("1."),
            json!("_1"),
            json!("1__0"),
            json!("1.0_0"),
            json!(9.3e18),
            json!(POS_INF),
            json!("١"),
            json!(""),
        ] {
            assert_eq!(c(v.clone(), Ty::Int), Err(()), "{v}");
        }
    }

    #[test]
    fn floats_and_strings_as_pydantic_lax_mode_takes_them() {
        assert_eq!(c(json!("1.5"), Ty::Float), Ok(json!(1.5)));
        assert_eq!(c(json!(" 1_0.0_1 "), Ty::Float), Ok(json!(10.01)));
        assert_eq!(c(json!("-Infinity"), Ty::Float), Ok(json!(NEG_INF)));
        assert_eq!(c(json!("nan"), Ty::Float), Ok(json!(NAN)));
        assert_eq!(c(json!(".5"), Ty::Float), Ok(json!(0.5)));
        assert_eq!(c(json!(true), Ty::Float), Ok(json!(1.0)));
        for v in [
            json!("fast"),
            json!("0x1"),
            json!("--1"),
            json!("."),
            json!([]),
        ] {
            assert_eq!(c(v.clone(), Ty::Float), Err(()), "{v}");
        }
        assert_eq!(c(json!(3), Ty::Str), Err(()));
        assert_eq!(c(json!(NAN), Ty::Str), Err(()));
        assert_eq!(c(json!("3"), Ty::Str), Ok(json!("3")));
    }

    #[test]
    fn a_row_is_coerced_in_place_and_a_refusal_is_located() {
        let mut r = json!({"metadata": {"replicate": "2", "execution_time": "1.5",
            "answering": {"interface": "x", "model_name": "m"}},
            "template": {"verify_result": "yes", "template_verification_performed": 1}});
        row(&mut r).unwrap();
        assert_eq!(r["metadata"]["replicate"], 2);
        assert_eq!(r["metadata"]["execution_time"], 1.5);
        assert_eq!(r["template"]["verify_result"], true);
        assert_eq!(r["template"]["template_verification_performed"], true);
        let mut r = json!({"metadata": {"replicate": "one"}});
        let e = row(&mut r).unwrap_err();
        assert_eq!(e.path, "/metadata/replicate");
        assert!(
            e.reason.contains("valid integer") && e.reason.contains("\"one\""),
            "{e}"
        );
        let mut r = json!({"metadata": {}, "template": 3});
        assert_eq!(row(&mut r).unwrap_err().path, "/template");
        let mut r = json!({"metadata": {"replicate": 1.5, "run_name": 3}});
        let mut seen = Vec::new();
        row_leaving_out(&mut r, &mut |e| seen.push(e.path));
        assert_eq!(seen, ["/metadata/run_name", "/metadata/replicate"]);
        assert!(r["metadata"]["replicate"].is_null());
    }
}
