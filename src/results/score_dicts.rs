//! The values inside a row's score dictionaries, as Karenina's models read
//! them.
//!
//! Why: [`super::coerce`] checks a row's scalar fields, but the rubric's
//! scores sit one level down, in dictionaries whose value type Karenina's
//! models declare (`regex_trait_scores: dict[str, bool]`,
//! `callable_trait_scores: dict[str, bool | int | float]`,
//! `metric_trait_scores: dict[str, dict[str, float]]`, the deep-judgment
//! rubric's `dict[str, int | bool]`, …, in
//! `src/karenina/schemas/verification/result_components.py`). pydantic
//! validates each value in lax mode, and a union in its smart mode: a value
//! already of one of the members is kept as it is; otherwise the members
//! are tried in order and the first that coerces it wins (`"1"` into
//! `bool | int | float` is `True`, `"2"` is `2`, `"nan"` is NaN). A value
//! none takes is refused, which fails the whole file in Karenina's loader,
//! and here is a located KLD-E201 at the value (`/rubric/regex_trait_scores/
//! HasCitations`). A `null` is kept as it is, though none of these value
//! types is optional and Karenina's loader refuses it: Karenina itself
//! writes one, for a NaN score, into a run's `.results.jsonl` sidecar
//! (pydantic's `model_dump_json` turns NaN into null), and kld reads those
//! rows as the run's export would hold them. The table of cases in the
//! tests below is pydantic 2.14's answer, taken from Karenina's venv.

use super::pydantic::{coerce, Ty};
use serde_json::Value;

/// The value type of one dictionary.
#[derive(Clone, Copy, Debug)]
enum Of {
    /// `dict[str, Any]`: any value.
    Any,
    /// One scalar type.
    One(Ty),
    /// A union of scalar types, in the order the model declares them.
    Union(&'static [Ty]),
    /// `int | bool | float | str | list[Any] | None`: anything but an
    /// object.
    NotObject,
    /// `dict[str, T]`: a nested dictionary (metric traits' metrics).
    Dict(Ty),
}

/// Section, dictionary, value type.
const DICTS: &[(&str, &str, Of)] = &[
    ("rubric", "llm_trait_scores", Of::Any),
    ("rubric", "llm_trait_labels", Of::One(Ty::Str)),
    ("rubric", "regex_trait_scores", Of::One(Ty::Bool)),
    (
        "rubric",
        "callable_trait_scores",
        Of::Union(&[Ty::Bool, Ty::Int, Ty::Float]),
    ),
    ("rubric", "metric_trait_scores", Of::Dict(Ty::Float)),
    ("rubric", "agentic_trait_scores", Of::NotObject),
    ("rubric", "trait_provenance", Of::One(Ty::Str)),
    (
        "deep_judgment_rubric",
        "deep_judgment_rubric_scores",
        Of::Union(&[Ty::Int, Ty::Bool]),
    ),
    (
        "deep_judgment_rubric",
        "standard_rubric_scores",
        Of::Union(&[Ty::Int, Ty::Bool]),
    ),
];

/// Whether `v` is already of type `ty` (pydantic's exact match).
fn exact(v: &Value, ty: Ty) -> bool {
    matches!(coerce(v, ty), Ok(None))
}

/// `v` validated into `of`: `Ok(None)` kept, `Ok(Some(c))` coerced, or the
/// reason it is refused.
fn validate(v: &Value, of: Of) -> Result<Option<Value>, String> {
    match of {
        Of::Any => Ok(None),
        Of::NotObject if v.is_object() => {
            Err("Input should be a valid integer, boolean, number, string or list".into())
        }
        Of::NotObject => Ok(None),
        // (See the module's docs: Karenina's sidecars write a NaN as null.)
        _ if v.is_null() => Ok(None),
        Of::One(ty) => coerce(v, ty),
        Of::Union(tys) => {
            if tys.iter().any(|&t| exact(v, t)) {
                return Ok(None);
            }
            tys.iter().find_map(|&t| coerce(v, t).ok()).ok_or_else(|| {
                let names: Vec<&str> = tys.iter().map(|t| name(*t)).collect();
                format!("Input should be a valid {}", names.join(" or "))
            })
        }
        // (`each` walks a nested dictionary; its values are `ty`.)
        Of::Dict(ty) => coerce(v, ty),
    }
}

fn name(ty: Ty) -> &'static str {
    match ty {
        Ty::Bool => "boolean",
        Ty::Int => "integer",
        Ty::Float => "number",
        Ty::Str => "string",
    }
}

/// JSON pointer escaping of one key.
fn escaped(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Walks the score dictionaries of `row`, coercing in place; each refused
/// value is set to `null` and handed to `refused(pointer, reason)`, which
/// decides whether to stop (`Err`) or go on.
pub(super) fn each<E>(
    row: &mut Value,
    refused: &mut dyn FnMut(String, String) -> Result<(), E>,
) -> Result<(), E> {
    for (section, dict, of) in DICTS {
        let Some(d) = row.get_mut(*section).and_then(|s| s.get_mut(*dict)) else {
            continue;
        };
        let at = format!("/{section}/{dict}");
        if d.is_null() {
            continue;
        }
        let Some(d) = d.as_object_mut() else {
            let reason = format!(
                "Input should be a valid dictionary (Karenina's model refuses {})",
                super::pydantic::shown(d)
            );
            *d = Value::Null;
            refused(at, reason)?;
            continue;
        };
        for (key, v) in d.iter_mut() {
            let at = format!("{at}/{}", escaped(key));
            if let Of::Dict(ty) = of {
                let Some(inner) = v.as_object_mut() else {
                    let reason = format!(
                        "Input should be a valid dictionary (Karenina's model refuses {})",
                        super::pydantic::shown(v)
                    );
                    *v = Value::Null;
                    refused(at, reason)?;
                    continue;
                };
                for (k, x) in inner.iter_mut() {
                    check(x, Of::One(*ty), format!("{at}/{}", escaped(k)), refused)?;
                }
                continue;
            }
            check(v, *of, at, refused)?;
        }
    }
    Ok(())
}

fn check<E>(
    v: &mut Value,
    of: Of,
    at: String,
    refused: &mut dyn FnMut(String, String) -> Result<(), E>,
) -> Result<(), E> {
    match validate(v, of) {
        Ok(Some(c)) => *v = c,
        Ok(None) => {}
        Err(reason) => {
            let reason = format!(
                "{reason} (Karenina's model refuses {})",
                super::pydantic::shown(v)
            );
            *v = Value::Null;
            refused(at, reason)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::nan::{NAN, POS_INF};
    use serde_json::json;

    /// What each dictionary makes of a value: pydantic 2.14's answers
    /// (Karenina's venv), `None` for refused.
    fn read(dict: &str, v: Value) -> Option<Value> {
        let section = if dict.ends_with("rubric_scores") {
            "deep_judgment_rubric"
        } else {
            "rubric"
        };
        let wrap = |v: Value| {
            if dict == "metric_trait_scores" {
                json!({"t": {"p": v}})
            } else {
                json!({"t": v})
            }
        };
        let mut row = json!({ section: { dict: wrap(v) } });
        let mut bad = false;
        let _ = each::<()>(&mut row, &mut |_, _| {
            bad = true;
            Ok(())
        });
        let d = &row[section][dict]["t"];
        (!bad).then(|| {
            if dict == "metric_trait_scores" {
                d["p"].clone()
            } else {
                d.clone()
            }
        })
    }

    #[test]
    fn score_values_as_pydantic_reads_them() {
        let r = "regex_trait_scores";
        assert_eq!(read(r, json!(1)), Some(json!(true)));
        assert_eq!(read(r, json!("yes")), Some(json!(true)));
        assert_eq!(read(r, json!(1.0)), Some(json!(true)));
        for v in [json!(2), json!("maybe"), json!(""), json!("1.0")] {
            assert_eq!(read(r, v.clone()), None, "{v}");
        }
        let c = "callable_trait_scores";
        for (v, want) in [
            (json!(true), json!(true)),
            (json!(1), json!(1)),
            (json!(1.0), json!(1.0)),
            (json!("1"), json!(true)),
            (json!("2"), json!(2)),
            (json!("1.5"), json!(1.5)),
            (json!("1.0"), json!(1)),
            (json!(" 3 "), json!(3)),
            (json!("1_0"), json!(10)),
            (json!("yes"), json!(true)),
            (json!("nan"), json!(NAN)),
            (json!("inf"), json!(POS_INF)),
        ] {
            assert_eq!(read(c, v.clone()), Some(want), "{v}");
        }
        for v in [json!("maybe"), json!([]), json!({})] {
            assert_eq!(read(c, v.clone()), None, "{v}");
        }
        // (Kept, unlike Karenina's loader: see the module's docs.)
        for d in [r, c, "metric_trait_scores", "deep_judgment_rubric_scores"] {
            assert_eq!(read(d, json!(null)), Some(json!(null)), "{d}");
        }
        let m = "metric_trait_scores";
        assert_eq!(read(m, json!(true)), Some(json!(1.0)));
        assert_eq!(read(m, json!("2")), Some(json!(2.0)));
        assert_eq!(read(m, json!("yes")), None);
        for dj in ["deep_judgment_rubric_scores", "standard_rubric_scores"] {
            for (v, want) in [
                (json!(1.0), json!(1)),
                (json!("1"), json!(1)),
                (json!("yes"), json!(true)),
                (json!(true), json!(true)),
                (json!("1.0"), json!(1)),
            ] {
                assert_eq!(read(dj, v.clone()), Some(want), "{v}");
            }
            for v in [json!(1.5), json!("1.5"), json!(NAN), json!(9.3e18)] {
                assert_eq!(read(dj, v.clone()), None, "{v}");
            }
        }
        let a = "agentic_trait_scores";
        for v in [json!("maybe"), json!(null), json!([1]), json!(1.5)] {
            assert_eq!(read(a, v.clone()), Some(v.clone()), "{v}");
        }
        assert_eq!(read(a, json!({"a": 1})), None);
        assert_eq!(
            read("llm_trait_scores", json!({"a": 1})),
            Some(json!({"a": 1}))
        );
        assert_eq!(read("llm_trait_labels", json!(1)), None);
        assert_eq!(
            read("trait_provenance", json!("global")),
            Some(json!("global"))
        );
    }

    #[test]
    fn a_refused_score_is_located_below_its_dictionary() {
        let mut row = json!({"rubric": {"regex_trait_scores": {"a/b": "maybe"},
            "metric_trait_scores": {"m": {"precision": "high"}}, "callable_trait_scores": 3}});
        let mut seen = Vec::new();
        let _ = each::<()>(&mut row, &mut |p, _| {
            seen.push(p);
            Ok(())
        });
        assert_eq!(
            seen,
            [
                "/rubric/regex_trait_scores/a~1b",
                "/rubric/callable_trait_scores",
                "/rubric/metric_trait_scores/m/precision",
            ]
        );
    }
}
