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

pub use super::pydantic::Ty;
use super::pydantic::{coerce, shown};
use serde_json::Value;

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
pub(crate) fn row_leaving_out(row: &mut Value, refused: &mut dyn FnMut(Refused)) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::nan::{NAN, NEG_INF, POS_INF};
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
