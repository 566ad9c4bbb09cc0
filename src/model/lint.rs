//! Warnings for what Karenina accepts but silently mishandles (codes in `docs/diagnostics.md`).
//!
//! Runs on a checkpoint that read without errors; each finding has a stable
//! `KLD-W…` code and points at the JSON path it concerns.

use super::qid::{check_id, current_id, question_id, IdCheck};
use super::types::*;
use crate::error::Diagnostic;
use crate::json::{Json, JsonPath};
use base64::Engine;
use std::collections::HashMap;

/// All warnings for a checkpoint.
pub fn lint(cp: &Checkpoint) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let root = JsonPath::root();
    if let Some(rs) = &cp.rating {
        for (i, r) in rs.iter().enumerate() {
            lint_rating(r, &root.key("rating").index(i), false, &mut out);
        }
    }
    if let Some(ps) = &cp.additional_property {
        for (i, p) in ps.iter().enumerate() {
            let path = root.key("additionalProperty").index(i);
            match p.name.as_str() {
                "global_rubric_traits" => out.push(Diagnostic::warning(
                    "KLD-W024",
                    path,
                    "GUI-era `global_rubric_traits` property: Karenina does not read it, so these LLM traits are not part of the benchmark",
                )),
                "global_regex_rubric_traits" | "global_callable_rubric_traits" | "global_metric_rubric_traits" => {
                    out.push(Diagnostic::warning(
                        "KLD-W028",
                        path,
                        format!("legacy GUI property `{}`: Karenina reads it as global traits only when the global rubric is first used, and an unexpected key in it fails then", p.name),
                    ))
                }
                _ => {}
            }
        }
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, item) in cp.items.iter().enumerate() {
        let ip = root.key("dataFeedElement").index(i);
        let q = &item.question;
        let qp = ip.key("item");
        let id = match &item.id {
            Some(id) => {
                match check_id(id, &q.text) {
                    IdCheck::Stale => out.push(Diagnostic::warning(
                        "KLD-W021",
                        ip.key("@id"),
                        format!(
                            "question ID {id:?} was derived from an earlier text; Karenina keeps it on load and save, but for the current text it would write {:?}. Keep the ID (results recorded under it stay bound) or set `@id` to the new one (see docs/diagnostics.md, \"Question IDs\")",
                            current_id(id, &q.text)
                        ),
                    )),
                    IdCheck::Readable | IdCheck::Md5 | IdCheck::Other => {}
                }
                id.clone()
            }
            None => {
                let computed = question_id(&q.text);
                out.push(Diagnostic::warning(
                    "KLD-W022",
                    ip.clone(),
                    format!("DataFeedItem has no `@id`: Karenina computes {computed:?} at load time but the file keeps none"),
                ));
                computed
            }
        };
        if let Some(first) = seen.insert(id.clone(), i) {
            out.push(Diagnostic::warning(
                "KLD-W020",
                ip.key("@id"),
                format!("duplicate question ID {id:?} (also item {first}): Karenina keeps only the last one in its question cache"),
            ));
        }
        if let Some(rs) = &q.rating {
            for (j, r) in rs.iter().enumerate() {
                lint_rating(r, &qp.key("rating").index(j), true, &mut out);
            }
        }
        if let Some(ps) = &q.additional_property {
            for (j, p) in ps.iter().enumerate() {
                lint_question_property(p, &qp.key("additionalProperty").index(j), &mut out);
            }
        }
    }
    out
}

fn lint_question_property(p: &Property, path: &JsonPath, out: &mut Vec<Diagnostic>) {
    if p.name.starts_with("custom_") && p.name.matches("custom_").count() > 1 {
        out.push(Diagnostic::warning(
            "KLD-W023",
            path.key("name"),
            format!("`{}`: Karenina strips every `custom_` (str.replace), so the custom metadata key becomes {:?}", p.name, p.name.replace("custom_", "")),
        ));
    }
    if p.name == "finished" && !matches!(p.value, Some(Json::Bool(_))) {
        out.push(Diagnostic::warning(
            "KLD-W027",
            path.key("value"),
            format!(
                "`finished` is {}, not a boolean: Karenina coerces it with Python truthiness",
                p.value
                    .as_ref()
                    .map(crate::model::show)
                    .unwrap_or_else(|| "missing".into())
            ),
        ));
    }
}

fn prop_str<'a>(r: &'a Rating, name: &str) -> Option<&'a str> {
    r.prop_value(name).and_then(Json::as_str)
}

fn prop_int(r: &Rating, name: &str) -> Option<f64> {
    r.prop_value(name)
        .and_then(Json::as_number)
        .map(|n| n.as_f64())
}

/// A list property Karenina accepts as an array or a JSON string of one.
fn string_list(
    r: &Rating,
    name: &str,
    path: &JsonPath,
    out: &mut Vec<Diagnostic>,
) -> Option<Vec<String>> {
    let v = r.prop_value(name)?;
    let parsed;
    let arr = match v {
        Json::Array(a) => a.as_slice(),
        Json::String(s) => {
            out.push(Diagnostic::warning(
                "KLD-W025",
                path.clone(),
                format!("`{name}` is stored as a JSON string (2025-10/11 format); Karenina still reads it, `kld canon --upgrade` stores the array natively"),
            ));
            parsed = crate::json::parse(s.as_bytes()).ok()?;
            parsed.as_array()?
        }
        _ => return None,
    };
    Some(
        arr.iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect(),
    )
}

fn prop_path(r: &Rating, base: &JsonPath, name: &str) -> JsonPath {
    match r
        .additional_property
        .as_deref()
        .and_then(|ps| ps.iter().rposition(|p| p.name == name))
    {
        Some(i) => base.key("additionalProperty").index(i).key("value"),
        None => base.clone(),
    }
}

fn lint_rating(r: &Rating, path: &JsonPath, in_question: bool, out: &mut Vec<Diagnostic>) {
    let t = r.kind;
    let warn = |out: &mut Vec<Diagnostic>, code, p: JsonPath, m: String| {
        out.push(Diagnostic::warning(code, p, m))
    };
    if in_question && t.scope == Scope::Global {
        warn(out, "KLD-W010", path.key("additionalType"), format!("global trait type {} inside a question: Karenina silently ignores it (kept in the file)", t.as_curie()));
    }
    if in_question && t.class == TraitClass::Dynamic {
        warn(out, "KLD-W011", path.key("additionalType"), "dynamic trait inside a question: Karenina only reads dynamic traits at dataset level and ignores this one".into());
    }
    // Duplicate property names: the last one wins (dynamic traits repeat `summary` by design).
    if let Some(ps) = &r.additional_property {
        let mut seen = HashMap::new();
        for (i, p) in ps.iter().enumerate() {
            if let Some(first) = seen.insert(p.name.as_str(), i) {
                if !(t.class == TraitClass::Dynamic && p.name == "summary") {
                    warn(out, "KLD-W026", path.key("additionalProperty").index(i), format!("property `{}` repeats (first at index {first}): Karenina uses the last one", p.name));
                }
            }
        }
    }
    let class = if t.class == TraitClass::Dynamic {
        match prop_str(r, "dynamic_trait_type") {
            None => {
                warn(out, "KLD-W015", path.clone(), "dynamic trait without `dynamic_trait_type`: Karenina reads it as an LLM trait (its dynamic-rubric reader defaults the type to `llm`)".into());
                TraitClass::Rubric
            }
            Some("llm") => {
                if r.prop_value("kind").is_some() {
                    TraitClass::Llm
                } else {
                    TraitClass::Rubric
                }
            }
            Some("regex") => TraitClass::Regex,
            Some("callable") => TraitClass::Callable,
            Some("metric") => TraitClass::Metric,
            Some("agentic") => TraitClass::Agentic,
            Some(other) => {
                warn(out, "KLD-W015", prop_path(r, path, "dynamic_trait_type"), format!("unknown `dynamic_trait_type` {other:?}: Karenina drops this trait with a warning"));
                return;
            }
        }
    } else {
        t.class
    };
    match class {
        TraitClass::Rubric | TraitClass::Llm => lint_llm(r, path, out),
        TraitClass::Regex => {
            let pattern = prop_str(r, "pattern").unwrap_or("");
            if let Some(msg) = regex_error(pattern) {
                warn(out, "KLD-W019", prop_path(r, path, "pattern"), format!("regex {pattern:?} does not compile in Python's `re` ({msg}); Karenina's RegexRubricTrait refuses it"));
            }
        }
        TraitClass::Callable => {
            if let Some(Json::String(code)) = r.prop_value("callable_code") {
                // Python's non-strict b64decode discards characters outside the alphabet.
                let filtered: String = code
                    .chars()
                    .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '='))
                    .collect();
                if base64::engine::general_purpose::STANDARD
                    .decode(filtered.as_bytes())
                    .is_err()
                {
                    warn(out, "KLD-W016", prop_path(r, path, "callable_code"), "`callable_code` is not valid base64: Karenina fails with binascii.Error when it loads this trait".into());
                }
            }
            if let Some(k) = prop_str(r, "kind") {
                if !matches!(k, "boolean" | "score" | "literal") {
                    warn(out, "KLD-W018", prop_path(r, path, "kind"), format!("callable trait kind {k:?} is not boolean, score or literal; Karenina rejects it"));
                }
            }
        }
        TraitClass::Metric => lint_metric(r, path, out),
        TraitClass::Agentic => lint_agentic(r, path, out),
        TraitClass::Dynamic => {}
    }
}

fn lint_llm(r: &Rating, path: &JsonPath, out: &mut Vec<Diagnostic>) {
    let kind = r.prop_value("kind");
    let (min, max) = (prop_int(r, "min_score"), prop_int(r, "max_score"));
    match kind {
        None => {
            let boolean = r.best == 1.0 && r.worst == 0.0;
            if boolean && min == Some(0.0) && max == Some(1.0) {
                out.push(Diagnostic::warning("KLD-W012", path.clone(), format!("trait `{}` is a score trait with range 0..1: Karenina infers the kind from best/worst and reloads it as boolean", r.name)));
            }
            if !boolean && min.is_none() && max.is_none() && (r.best, r.worst) != (5.0, 1.0) {
                out.push(Diagnostic::warning("KLD-W013", path.clone(), format!("score trait `{}` has its range {}..{} only in worstRating/bestRating: current Karenina ignores them and uses 1..5", r.name, crate::pyjson::float_repr(r.worst), crate::pyjson::float_repr(r.best))));
            }
        }
        Some(Json::Object(o)) => {
            if o.get("type").and_then(Json::as_str) == Some("template")
                && ((min.is_some() && min != Some(1.0)) || (max.is_some() && max != Some(5.0)))
            {
                out.push(Diagnostic::warning("KLD-W014", path.clone(), format!("template-kind trait `{}` sets min_score/max_score: Karenina does not restore them for template kinds (they reset to 1..5)", r.name)));
            }
        }
        Some(Json::String(k)) if matches!(k.as_str(), "boolean" | "score" | "literal") => {
            if k == "literal" {
                if let Some(Json::String(_)) = r.prop_value("classes") {
                    out.push(Diagnostic::warning("KLD-W025", prop_path(r, path, "classes"), "`classes` is stored as a JSON string (older format); Karenina still reads it".to_string()));
                }
            }
        }
        Some(other) => out.push(Diagnostic::warning(
            "KLD-W018",
            prop_path(r, path, "kind"),
            format!(
                "LLM trait kind {} is not boolean, score, literal or a template object",
                crate::model::show(other)
            ),
        )),
    }
}

/// Compiles `pattern` once per process and pattern (benchmarks reuse a few).
fn regex_error(pattern: &str) -> Option<String> {
    use std::sync::{Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<HashMap<String, Option<String>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(r) = cache.lock().ok().and_then(|c| c.get(pattern).cloned()) {
        return r;
    }
    let r = crate::pyre::check(pattern).err().map(|e| e.to_string());
    if let Ok(mut c) = cache.lock() {
        if c.len() < 4096 {
            c.insert(pattern.to_string(), r.clone());
        }
    }
    r
}

const METRICS: [&str; 5] = ["precision", "recall", "f1", "specificity", "accuracy"];

fn lint_metric(r: &Rating, path: &JsonPath, out: &mut Vec<Diagnostic>) {
    let mut problems = Vec::new();
    let metrics =
        string_list(r, "metrics", &prop_path(r, path, "metrics"), out).unwrap_or_default();
    let tp = string_list(
        r,
        "tp_instructions",
        &prop_path(r, path, "tp_instructions"),
        out,
    )
    .unwrap_or_default();
    let tn = string_list(
        r,
        "tn_instructions",
        &prop_path(r, path, "tn_instructions"),
        out,
    )
    .unwrap_or_default();
    let mode = prop_str(r, "evaluation_mode").unwrap_or("tp_only");
    if metrics.is_empty() {
        problems.push("at least one metric is required".to_string());
    }
    for m in &metrics {
        if !METRICS.contains(&m.as_str()) {
            problems.push(format!(
                "unknown metric {m:?} (allowed: {})",
                METRICS.join(", ")
            ));
        }
    }
    if !matches!(mode, "tp_only" | "full_matrix") {
        problems.push(format!(
            "evaluation_mode {mode:?} is not tp_only or full_matrix"
        ));
    }
    if tp.is_empty() {
        problems.push("tp_instructions must not be empty".into());
    }
    if mode == "full_matrix" && tn.is_empty() {
        problems.push("full_matrix needs tn_instructions".into());
    }
    if mode != "full_matrix" {
        for m in metrics
            .iter()
            .filter(|m| matches!(m.as_str(), "specificity" | "accuracy"))
        {
            problems.push(format!("{m} needs evaluation_mode full_matrix"));
        }
    }
    for p in problems {
        out.push(Diagnostic::warning(
            "KLD-W017",
            path.clone(),
            format!(
                "metric trait `{}`: {p}; Karenina's model validation fails on it",
                r.name
            ),
        ));
    }
}

fn lint_agentic(r: &Rating, path: &JsonPath, out: &mut Vec<Diagnostic>) {
    let mut problems = Vec::new();
    if r.description.as_deref().unwrap_or("").is_empty() {
        problems.push("has no description (Karenina requires one and fails the load)".to_string());
    }
    if let Some(m) = prop_str(r, "context_mode") {
        if !matches!(m, "workspace_only" | "trace_and_workspace" | "trace_only") {
            problems.push(format!(
                "context_mode {m:?} is not workspace_only, trace_and_workspace or trace_only"
            ));
        }
    }
    match r.prop_value("kind") {
        None | Some(Json::Object(_)) => {}
        Some(Json::String(k)) if matches!(k.as_str(), "boolean" | "score" | "literal") => {}
        Some(other) => problems.push(format!(
            "kind {} is not boolean, score, literal or a template object",
            crate::model::show(other)
        )),
    }
    for p in problems {
        out.push(Diagnostic::warning(
            "KLD-W018",
            path.clone(),
            format!("agentic trait `{}` {p}", r.name),
        ));
    }
}
