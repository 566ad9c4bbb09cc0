//! Warnings for what Karenina accepts but silently mishandles (codes in `docs/diagnostics.md`).
//!
//! Runs on a checkpoint that read without errors; each finding has a stable
//! `KLD-W…` code and points at the JSON path it concerns.

use super::qid::{check_id, current_id, question_id, IdCheck};
use super::traits::{self, Family, Problem};
use super::types::*;
use crate::error::Diagnostic;
use crate::json::{Json, JsonPath};
use std::collections::HashMap;

/// All warnings for a checkpoint.
pub fn lint(cp: &Checkpoint) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let root = JsonPath::root();
    let (mut global, mut dynamic) = (Vec::new(), Vec::new());
    if let Some(rs) = &cp.rating {
        for (i, r) in rs.iter().enumerate() {
            match lint_rating(r, &root.key("rating").index(i), false, &mut out) {
                Some((f, false)) => global.push((r, f)),
                Some((f, true)) => dynamic.push((r, f)),
                None => {}
            }
        }
    }
    for (traits, step) in [
        (&global, Step::GlobalRubric),
        (&dynamic, Step::DynamicRubric),
    ] {
        for p in traits::rubric_problems(traits, step == Step::DynamicRubric) {
            out.push(Diagnostic::warning(
                "KLD-W031",
                root.key("rating"),
                format!("{p}; {}", step.describe()),
            ));
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
    if let Some(p) = super::placeholder::of_checkpoint(cp) {
        out.push(Diagnostic::warning(
            "KLD-W033",
            root.key("dataFeedElement"),
            format!(
                "{}; results bound to it by name are bound to a stand-in: load the benchmark itself",
                p.describe()
            ),
        ));
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
            let mut own = Vec::new();
            for (j, r) in rs.iter().enumerate() {
                if let Some((f, _)) = lint_rating(r, &qp.key("rating").index(j), true, &mut out) {
                    own.push((r, f));
                }
            }
            let merged = traits::rubric_problems(&own, false)
                .into_iter()
                .chain(traits::merge_conflicts(&global, &own));
            for p in merged {
                out.push(Diagnostic::warning("KLD-W031", qp.key("rating"), format!("{p}; Karenina loads the file, but `get_merged_rubric_for_question` raises when verification reads this question's rubric")));
            }
        }
        if let Some(ps) = &q.additional_property {
            // Karenina's reader lets the last `finished` win.
            let last_finished = ps.iter().rposition(|p| p.name == "finished");
            for (j, p) in ps.iter().enumerate() {
                let path = qp.key("additionalProperty").index(j);
                lint_question_property(p, &path, Some(j) == last_finished, &mut out);
            }
        }
    }
    out
}

fn lint_question_property(p: &Property, path: &JsonPath, is_last: bool, out: &mut Vec<Diagnostic>) {
    if p.name.starts_with("custom_") && p.name.matches("custom_").count() > 1 {
        out.push(Diagnostic::warning(
            "KLD-W023",
            path.key("name"),
            format!("`{}`: Karenina strips every `custom_` (str.replace), so the custom metadata key becomes {:?}", p.name, p.name.replace("custom_", "")),
        ));
    }
    if p.name == "finished" && is_last && !matches!(p.value, Some(Json::Bool(_))) {
        // `QuestionRegistryEntry.finished: bool`, validated by `Benchmark.load`.
        let shown = p
            .value
            .as_ref()
            .map_or_else(|| "null".to_string(), crate::model::show);
        match p.value.as_ref().map(super::lax::boolean) {
            Some(Ok(b)) => out.push(Diagnostic::warning(
                "KLD-W027",
                path.key("value"),
                format!("`finished` is {shown}, not a boolean: Karenina's pydantic model coerces it to {}", if b { "True" } else { "False" }),
            )),
            _ => out.push(Diagnostic::error(
                "KLD-E022",
                path.key("value"),
                format!("`finished` is {shown}: Karenina's QuestionRegistryEntry needs a boolean (or \"true\"/\"yes\"/1…), so `Benchmark.load` fails"),
            )),
        }
    }
}

fn prop_int(r: &Rating, name: &str) -> Option<f64> {
    r.prop_value(name)
        .and_then(Json::as_number)
        .map(|n| n.as_f64())
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

/// Where Karenina converts a trait: `Load` for a question-specific trait
/// (`Benchmark.load`), else the later step of verification that reads it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Load,
    GlobalRubric,
    DynamicRubric,
}

impl Step {
    fn describe(self) -> &'static str {
        match self {
            Step::Load => "`Benchmark.load` fails on this question-specific trait",
            Step::GlobalRubric => "Karenina loads the file, but `get_global_rubric` raises when verification reads the global rubric",
            Step::DynamicRubric => "Karenina loads the file, but `get_global_dynamic_rubric` raises when verification reads the dynamic rubric",
        }
    }
}

/// Reports `problems` of one trait: errors (`KLD-E022`) when `Benchmark.load`
/// converts it, else warnings naming the step that raises.
fn report_problems(
    r: &Rating,
    path: &JsonPath,
    step: Step,
    problems: Vec<Problem>,
    out: &mut Vec<Diagnostic>,
) {
    for p in problems {
        let at = match p.prop {
            Some(name) => prop_path(r, path, name),
            None => path.clone(),
        };
        let msg = format!("trait `{}`: {}; {}", r.name, p.msg, step.describe());
        out.push(if step == Step::Load {
            Diagnostic::error("KLD-E022", at, msg)
        } else {
            Diagnostic::warning(p.code, at, msg)
        });
    }
}

/// Lints one trait; returns the model Karenina converts it to, when it does
/// (with whether it is a dynamic rubric member).
fn lint_rating(
    r: &Rating,
    path: &JsonPath,
    in_question: bool,
    out: &mut Vec<Diagnostic>,
) -> Option<(Family, bool)> {
    let t = r.kind;
    let warn = |out: &mut Vec<Diagnostic>, code, p: JsonPath, m: String| {
        out.push(Diagnostic::warning(code, p, m))
    };
    if in_question && t.scope == Scope::Global {
        warn(out, "KLD-W010", path.key("additionalType"), format!("global trait type {} inside a question: Karenina silently ignores it (kept in the file)", t.as_curie()));
        return None;
    }
    if in_question && t.class == TraitClass::Dynamic {
        warn(out, "KLD-W011", path.key("additionalType"), "dynamic trait inside a question: Karenina only reads dynamic traits at dataset level and ignores this one".into());
        return None;
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
    let dynamic = t.class == TraitClass::Dynamic;
    let family = if dynamic {
        match r.prop("dynamic_trait_type").map(|p| p.value.as_ref()) {
            None => {
                warn(out, "KLD-W015", path.clone(), "dynamic trait without `dynamic_trait_type`: Karenina reads it as an LLM trait (its dynamic-rubric reader defaults the type to `llm`)".into());
                Family::Llm
            }
            Some(Some(Json::String(s))) if s == "llm" => Family::Llm,
            Some(Some(Json::String(s))) if s == "regex" => Family::Regex,
            Some(Some(Json::String(s))) if s == "callable" => Family::Callable,
            Some(Some(Json::String(s))) if s == "metric" => Family::Metric,
            Some(Some(Json::String(s))) if s == "agentic" => Family::Agentic,
            Some(other) => {
                let shown = other.map_or_else(|| "null".to_string(), crate::model::show);
                warn(out, "KLD-W015", prop_path(r, path, "dynamic_trait_type"), format!("unknown `dynamic_trait_type` {shown}: Karenina drops this trait with a warning"));
                return None;
            }
        }
    } else {
        match t.class {
            TraitClass::Regex => Family::Regex,
            TraitClass::Callable => Family::Callable,
            TraitClass::Metric => Family::Metric,
            TraitClass::Agentic => Family::Agentic,
            _ => Family::Llm,
        }
    };
    let step = if in_question {
        Step::Load
    } else if dynamic {
        Step::DynamicRubric
    } else {
        Step::GlobalRubric
    };
    report_problems(r, path, step, traits::problems(r, family, dynamic), out);
    match family {
        Family::Llm => lint_llm(r, path, out),
        Family::Metric => {
            for name in ["metrics", "tp_instructions", "tn_instructions"] {
                if let Some(Json::String(_)) = r.prop_value(name) {
                    warn(out, "KLD-W025", prop_path(r, path, name), format!("`{name}` is stored as a JSON string (2025-10/11 format); Karenina still reads it, `kld canon --upgrade` stores the array natively"));
                }
            }
        }
        _ => {}
    }
    Some((family, dynamic))
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
                out.push(Diagnostic::warning("KLD-W013", path.clone(), format!("score trait `{}` has its range {}..{} only in worstRating/bestRating: current Karenina ignores them and uses 1..5", r.name, crate::json::py::float_repr(r.worst), crate::json::py::float_repr(r.best))));
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
            "KLD-W032",
            prop_path(r, path, "kind"),
            format!(
                "LLM trait kind {} is not boolean, score, literal or a template object: Karenina's reader takes it as a score trait",
                crate::model::show(other)
            ),
        )),
    }
}
