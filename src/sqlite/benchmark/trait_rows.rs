//! A rubric as the database stores it (`serialize_rubric`: each trait's
//! `model_dump()`, grouped as `llm_traits`, `regex_traits`,
//! `callable_traits`, `metric_traits`, `agentic_traits`) → the checkpoint's
//! `Rating`s, through Karenina's `deserialize_rubric_from_dict` (its
//! defaults, the trait models' validators that change values) and
//! `convert_rubric_trait_to_rating` (Karenina
//! `storage/rubric_serializer.py`, `utils/checkpoint_trait_converters.py`).

use super::{float, prop, s};
use crate::json::{Json, Number, Object};

type R<T> = std::result::Result<T, String>;

/// `trait_data.get(key, default)`: a member present as `null` is `None`.
fn get_or(d: &Object, key: &str, default: Json) -> Option<Json> {
    match d.get(key) {
        None => Some(default),
        Some(Json::Null) => None,
        Some(v) => Some(int_if_integral(v.clone())),
    }
}

/// `trait_data.get(key)`.
fn get(d: &Object, key: &str) -> Option<Json> {
    match d.get(key) {
        None | Some(Json::Null) => None,
        Some(v) => Some(int_if_integral(v.clone())),
    }
}

/// Pydantic's `int` fields take `5.0` as `5`.
fn int_if_integral(v: Json) -> Json {
    match &v {
        Json::Number(n) if !n.is_integer() => {
            let f = n.as_f64();
            if f.fract() == 0.0 && f.abs() < 1e15 {
                Json::Number(Number::from_i64(f as i64))
            } else {
                v
            }
        }
        _ => v,
    }
}

fn int(v: i64) -> Json {
    Json::Number(Number::from_i64(v))
}

fn num(v: &Option<Json>) -> Option<f64> {
    v.as_ref().and_then(Json::as_number).map(Number::as_f64)
}

/// The `Rating` of a trait: `(best, worst)` its range, `kind` the
/// `additionalType` after its scope.
fn rating(
    name: &str,
    description: Option<Json>,
    (best, worst): (f64, f64),
    global: bool,
    kind: &str,
    props: Vec<Json>,
) -> Json {
    let mut o = Object::new();
    o.push("@type", s("Rating"));
    o.push("name", s(name));
    if let Some(d) = description {
        o.push("description", d);
    }
    o.push("bestRating", float(best));
    o.push("worstRating", float(worst));
    let scope = if global { "Global" } else { "QuestionSpecific" };
    o.push("additionalType", s(&format!("karenina:{scope}{kind}")));
    o.push("additionalProperty", Json::Array(props));
    Json::Object(o)
}

fn name_of(d: &Object, what: &str) -> R<String> {
    match d.get("name") {
        Some(Json::String(n)) if !n.is_empty() => Ok(n.clone()),
        _ => Err(format!("a {what} trait without a name")),
    }
}

fn is_template(kind: &Option<Json>) -> bool {
    matches!(kind, Some(Json::Object(o)) if o.get("type").and_then(Json::as_str) == Some("template"))
}

fn classes_len(classes: &Option<Json>, name: &str) -> R<i64> {
    match classes {
        Some(Json::Object(o)) if o.len() >= 2 && o.len() <= 20 => Ok(o.len() as i64),
        Some(Json::Object(_)) => Err(format!(
            "trait {name:?}: a literal trait has 2 to 20 classes"
        )),
        _ => Err(format!(
            "trait {name:?}: classes field is required when kind='literal'"
        )),
    }
}

/// A literal trait's score range, 0 to its classes' count less one (the
/// trait models' validator); `None` for other kinds.
fn literal_range(kind: &str, classes: &Option<Json>, name: &str) -> R<Option<(Json, Json)>> {
    if kind != "literal" {
        return Ok(None);
    }
    let n = classes_len(classes, name)?;
    Ok(Some((int(0), int(n - 1))))
}

/// A template-kind trait has no direction (the trait models' validator).
fn no_direction_for_template(name: &str, template: bool, higher: &Option<Json>) -> R<()> {
    if template && higher.is_some() {
        return Err(format!(
            "trait {name:?}: higher_is_better must be None for template kind"
        ));
    }
    Ok(())
}

/// A score trait's (best, worst): its bounds, Karenina's 5 and 1 by default.
fn score_range(min: &Option<Json>, max: &Option<Json>) -> (f64, f64) {
    (num(max).unwrap_or(5.0), num(min).unwrap_or(1.0))
}

/// `key` as a property with `trait_data.get(key, default)`'s value.
fn defaulted(d: &Object, key: &str, default: Json) -> Json {
    prop(key, get_or(d, key, default))
}

/// `key` as a property, only when `value` is set (the converters' `if x is
/// not None` checks).
fn push_set(props: &mut Vec<Json>, key: &str, value: Option<Json>) {
    if value.is_some() {
        props.push(prop(key, value));
    }
}

fn llm(d: &Object, global: bool) -> R<Json> {
    let name = name_of(d, "LLM")?;
    let kind = get_or(d, "kind", s("score"));
    let score = kind.as_ref().and_then(Json::as_str) == Some("score");
    let mut min = if score {
        get_or(d, "min_score", int(1))
    } else {
        None
    };
    let mut max = if score {
        get_or(d, "max_score", int(5))
    } else {
        None
    };
    let classes = get(d, "classes");
    let higher = get_or(d, "higher_is_better", Json::Bool(true));
    let template = is_template(&kind);
    no_direction_for_template(&name, template, &higher)?;
    let kind_str = kind.as_ref().and_then(Json::as_str).unwrap_or("");
    if let Some((lo, hi)) = literal_range(kind_str, &classes, &name)? {
        min = Some(lo);
        max = Some(hi);
    }
    let mut props = vec![
        defaulted(d, "deep_judgment_enabled", Json::Bool(false)),
        defaulted(d, "deep_judgment_excerpt_enabled", Json::Bool(false)),
        defaulted(d, "deep_judgment_search_enabled", Json::Bool(false)),
    ];
    for k in [
        "deep_judgment_max_excerpts",
        "deep_judgment_fuzzy_match_threshold",
        "deep_judgment_excerpt_retry_attempts",
    ] {
        push_set(&mut props, k, get(d, k));
    }
    props.push(prop("higher_is_better", higher));
    push_set(&mut props, "summary", get(d, "summary"));
    push_set(&mut props, "min_score", min.clone());
    push_set(&mut props, "max_score", max.clone());
    let description = get(d, "description");
    if template {
        props.push(prop("kind", kind));
        return Ok(rating(
            &name,
            description,
            (0.0, 0.0),
            global,
            "LLMRubricTrait",
            props,
        ));
    }
    Ok(match kind_str {
        "boolean" => rating(&name, description, (1.0, 0.0), global, "RubricTrait", props),
        "literal" => {
            props.push(prop("kind", Some(s("literal"))));
            push_set(&mut props, "classes", classes);
            let range = (num(&max).unwrap_or(0.0), num(&min).unwrap_or(0.0));
            rating(&name, description, range, global, "LLMRubricTrait", props)
        }
        "score" => {
            let range = score_range(&min, &max);
            rating(&name, description, range, global, "RubricTrait", props)
        }
        other => return Err(format!("trait {name:?}: unknown kind {other:?}")),
    })
}

fn regex(d: &Object, global: bool) -> R<Json> {
    let name = name_of(d, "regex")?;
    let pattern = get_or(d, "pattern", s(".*"));
    if let Some(Json::String(p)) = &pattern {
        if let Err(e) = crate::pyre::check(p) {
            return Err(format!("trait {name:?}: Invalid regex pattern: {e}"));
        }
    }
    let mut props = vec![
        prop("pattern", pattern),
        defaulted(d, "case_sensitive", Json::Bool(true)),
        defaulted(d, "invert_result", Json::Bool(false)),
        defaulted(d, "higher_is_better", Json::Bool(true)),
    ];
    push_set(&mut props, "summary", get(d, "summary"));
    Ok(rating(
        &name,
        get(d, "description"),
        (1.0, 0.0),
        global,
        "RegexTrait",
        props,
    ))
}

fn callable(d: &Object, global: bool) -> R<Json> {
    let name = name_of(d, "callable")?;
    let kind = get(d, "kind").ok_or_else(|| format!("trait {name:?}: no kind"))?;
    let code =
        get(d, "callable_code").ok_or_else(|| format!("trait {name:?}: no callable_code"))?;
    let kind_str = kind.as_str().unwrap_or("").to_string();
    let classes = get(d, "classes");
    let mut min = get(d, "min_score");
    let mut max = get(d, "max_score");
    if let Some((lo, hi)) = literal_range(&kind_str, &classes, &name)? {
        min.get_or_insert(lo);
        max.get_or_insert(hi);
    }
    let mut props = vec![
        prop("callable_code", Some(code)),
        prop("kind", Some(kind)),
        defaulted(d, "invert_result", Json::Bool(false)),
        defaulted(d, "higher_is_better", Json::Bool(true)),
    ];
    if kind_str == "score" {
        push_set(&mut props, "min_score", min.clone());
        push_set(&mut props, "max_score", max.clone());
    }
    push_set(&mut props, "summary", get(d, "summary"));
    push_set(&mut props, "classes", classes);
    let range = if kind_str == "boolean" {
        (1.0, 0.0)
    } else {
        score_range(&min, &max)
    };
    Ok(rating(
        &name,
        get(d, "description"),
        range,
        global,
        "CallableTrait",
        props,
    ))
}

fn metric(d: &Object, global: bool) -> R<Json> {
    let name = name_of(d, "metric")?;
    let list = |k: &str| get_or(d, k, Json::Array(Vec::new()));
    let nonempty = |v: &Option<Json>| {
        v.as_ref()
            .and_then(Json::as_array)
            .is_some_and(|a| !a.is_empty())
    };
    let metrics = list("metrics");
    let tp = list("tp_instructions");
    let tn = list("tn_instructions");
    if !nonempty(&metrics) {
        return Err(format!(
            "trait {name:?}: At least one metric must be specified"
        ));
    }
    if !nonempty(&tp) {
        return Err(format!("trait {name:?}: TP instructions must be provided"));
    }
    let mut props = vec![
        prop("metrics", metrics),
        defaulted(d, "repeated_extraction", Json::Bool(true)),
        defaulted(d, "evaluation_mode", s("tp_only")),
        prop("higher_is_better", get(d, "higher_is_better")),
    ];
    if nonempty(&tp) {
        props.push(prop("tp_instructions", tp));
    }
    if nonempty(&tn) {
        props.push(prop("tn_instructions", tn));
    }
    push_set(&mut props, "summary", get(d, "summary"));
    Ok(rating(
        &name,
        get(d, "description"),
        (1.0, 0.0),
        global,
        "MetricRubricTrait",
        props,
    ))
}

fn agentic(d: &Object, global: bool) -> R<Json> {
    let name = name_of(d, "agentic")?;
    let description = get(d, "description").filter(|v| v.as_str() != Some(""));
    if description.is_none() {
        return Err(format!(
            "trait {name:?}: an agentic trait needs a description"
        ));
    }
    let kind = get_or(d, "kind", s("boolean"));
    let template = is_template(&kind);
    let higher = get_or(d, "higher_is_better", Json::Bool(true));
    no_direction_for_template(&name, template, &higher)?;
    let kind_str = kind
        .as_ref()
        .and_then(Json::as_str)
        .unwrap_or("")
        .to_string();
    let classes = get(d, "classes");
    let mut min = get_or(d, "min_score", int(1));
    let mut max = get_or(d, "max_score", int(5));
    if let Some((lo, hi)) = literal_range(&kind_str, &classes, &name)? {
        min = Some(lo);
        max = Some(hi);
    }
    let mut props = vec![
        prop("kind", kind),
        prop("higher_is_better", higher),
        defaulted(d, "context_mode", s("trace_and_workspace")),
        defaulted(d, "materialize_trace", Json::Bool(false)),
        defaulted(d, "persist_trace", Json::Bool(false)),
        defaulted(d, "max_turns", int(15)),
        defaulted(d, "timeout_seconds", int(120)),
    ];
    push_set(&mut props, "classes", classes);
    push_set(&mut props, "model_override", get(d, "model_override"));
    push_set(&mut props, "summary", get(d, "summary"));
    push_set(&mut props, "min_score", min.clone());
    push_set(&mut props, "max_score", max.clone());
    let range = if template {
        (0.0, 0.0)
    } else if kind_str == "boolean" {
        (1.0, 0.0)
    } else {
        score_range(&min, &max)
    };
    Ok(rating(
        &name,
        description,
        range,
        global,
        "AgenticRubricTrait",
        props,
    ))
}

/// The ratings of a stored rubric (`global`: the benchmark's), in Karenina's
/// order (LLM, regex, callable, metric, agentic); none when it holds no
/// trait, as `deserialize_rubric_from_dict` returns `None`.
pub(super) fn ratings(rubric: &Json, global: bool) -> R<Option<Vec<Json>>> {
    let Json::Object(o) = rubric else {
        return Err(format!(
            "a rubric that is a JSON {}, not an object",
            rubric.kind()
        ));
    };
    if o.get("manual_traits").is_some() {
        return Err(
            "Rubric contains unsupported 'manual_traits' (Karenina asks for a migration)".into(),
        );
    }
    let group = |k: &str| -> Vec<Json> {
        o.get(k)
            .and_then(Json::as_array)
            .map(<[Json]>::to_vec)
            .unwrap_or_default()
    };
    let mut llm_traits = group("llm_traits");
    if llm_traits.is_empty() {
        llm_traits = group("traits");
    }
    type Conv = fn(&Object, bool) -> R<Json>;
    let groups: [(Vec<Json>, Conv); 5] = [
        (llm_traits, llm),
        (group("regex_traits"), regex),
        (group("callable_traits"), callable),
        (group("metric_traits"), metric),
        (group("agentic_traits"), agentic),
    ];
    let mut out = Vec::new();
    for (traits, conv) in groups {
        for t in traits {
            let Json::Object(d) = &t else {
                return Err(format!("a rubric trait that is a JSON {}", t.kind()));
            };
            out.push(conv(d, global)?);
        }
    }
    Ok((!out.is_empty()).then_some(out))
}
