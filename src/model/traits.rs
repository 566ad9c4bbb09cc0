//! Karenina's rubric trait models, as its checkpoint reader builds them: which
//! traits `LLMRubricTrait`, `RegexRubricTrait`, `CallableRubricTrait`,
//! `MetricRubricTrait`, `AgenticRubricTrait`, `Rubric` and `DynamicRubric`
//! refuse (Karenina `utils/checkpoint_trait_converters.py`,
//! `schemas/entities/rubric.py`).
//!
//! The converters walk a rating's properties in order (the last of a name
//! wins), pass most values through unchanged and let pydantic judge them in
//! lax mode ([`super::lax`]); a few parse JSON strings or swallow bad values.
//! The lint ([`super::lint`]) decides what a problem means where: a
//! question-specific trait is converted by `Benchmark.load` (an error), a
//! global one only when verification reads the rubric (a warning).

use super::lax;
use super::types::Rating;
use crate::json::{self, Json};

/// The model a trait is converted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// `LLMRubricTrait` (rubric and LLM trait types, dynamic `llm`).
    Llm,
    /// `RegexRubricTrait`.
    Regex,
    /// `CallableRubricTrait`.
    Callable,
    /// `MetricRubricTrait`.
    Metric,
    /// `AgenticRubricTrait`.
    Agentic,
}

/// One reason Karenina's model refuses a trait.
#[derive(Debug)]
pub struct Problem {
    /// The property concerned, when one is.
    pub prop: Option<&'static str>,
    /// The warning code used when the trait is read only later (global or
    /// dynamic traits): `KLD-W019` for regexes, `W016` for callable code,
    /// `W017` for metric rules, `W018` for kinds, `W031` for the rest.
    pub code: &'static str,
    /// What fails, in pydantic's terms.
    pub msg: String,
}

struct Judge<'a> {
    r: &'a Rating,
    out: Vec<Problem>,
}

impl<'a> Judge<'a> {
    /// `None`: no such property; `Some(None)`: present with a null value.
    fn get(&self, name: &str) -> Option<Option<&'a Json>> {
        self.r.prop(name).map(|p| p.value.as_ref())
    }
    fn fail(&mut self, prop: Option<&'static str>, code: &'static str, msg: String) {
        self.out.push(Problem { prop, code, msg });
    }
    /// A field the converter always passes: `optional` when `None` is allowed.
    fn field<T>(
        &mut self,
        name: &'static str,
        optional: bool,
        check: fn(&Json) -> Result<T, lax::Refused>,
    ) -> Option<T> {
        match self.get(name) {
            None => None,
            Some(None) if optional => None,
            Some(None) => {
                self.fail(
                    Some(name),
                    "KLD-W031",
                    format!("`{name}` is null; the field is required"),
                );
                None
            }
            Some(Some(v)) => match check(v) {
                Ok(t) => Some(t),
                Err(e) => {
                    self.fail(Some(name), "KLD-W031", format!("`{name}`: {e}"));
                    None
                }
            },
        }
    }
    fn bools(&mut self, names: &[&'static str]) {
        for n in names {
            self.field(n, false, lax::boolean);
        }
    }
    fn literal(
        &mut self,
        name: &'static str,
        default: &'a str,
        allowed: &[&str],
        code: &'static str,
    ) -> &'a str {
        match self.get(name) {
            None => default,
            Some(Some(Json::String(s))) if allowed.contains(&s.as_str()) => s,
            Some(v) => {
                let shown = v.map_or_else(|| "null".to_string(), crate::model::show);
                self.fail(
                    Some(name),
                    code,
                    format!("`{name}` is {shown}, not one of {}", allowed.join(", ")),
                );
                ""
            }
        }
    }
    /// `classes` as the converters read it, walking the properties in order:
    /// a dict replaces it, a JSON string replaces it with its parse (an
    /// unparseable one resets it to None for LLM traits, `reset_on_bad_json`,
    /// and is skipped by the others); any other value is skipped.
    fn classes(&self, reset_on_bad_json: bool) -> Option<Json> {
        let mut classes = None;
        for p in self
            .r
            .additional_property
            .iter()
            .flatten()
            .filter(|p| p.name == "classes")
        {
            match &p.value {
                Some(v @ Json::Object(_)) => classes = Some(v.clone()),
                Some(Json::String(s)) => match json::parse(s.as_bytes()) {
                    Ok(v) => classes = Some(v),
                    Err(_) if reset_on_bad_json => classes = None,
                    Err(_) => {}
                },
                _ => {}
            }
        }
        classes
    }
    fn name_and_summary(&mut self, dynamic: bool) {
        if self.r.name.is_empty() {
            self.fail(
                None,
                "KLD-W031",
                "`name` is empty; trait names need at least 1 character".into(),
            );
        }
        if !dynamic {
            self.field("summary", true, |v| lax::string(v).map(|_| ()));
        }
    }
}

/// Why Karenina's model refuses the trait `r` converted as `family`
/// (`dynamic`: a dynamic rubric member, whose `summary` is set unchecked).
pub fn problems(r: &Rating, family: Family, dynamic: bool) -> Vec<Problem> {
    let mut j = Judge { r, out: Vec::new() };
    j.name_and_summary(dynamic);
    match family {
        Family::Llm => llm(&mut j),
        Family::Regex => {
            match j.get("pattern") {
                None => {}
                Some(None) => j.fail(
                    Some("pattern"),
                    "KLD-W019",
                    "`pattern` is null; a regex trait needs a string".into(),
                ),
                Some(Some(Json::String(p))) => {
                    if let Err(e) = crate::pyre::check(p) {
                        j.fail(
                            Some("pattern"),
                            "KLD-W019",
                            format!("regex {p:?} does not compile in Python's `re` ({e})"),
                        );
                    }
                }
                Some(Some(v)) => j.fail(
                    Some("pattern"),
                    "KLD-W019",
                    format!("`pattern` is {}, not a string", v.kind()),
                ),
            }
            j.bools(&["case_sensitive", "invert_result"]);
            j.field("higher_is_better", true, lax::boolean);
        }
        Family::Callable => callable(&mut j),
        Family::Metric => metric(&mut j),
        Family::Agentic => agentic(&mut j),
    }
    j.out
}

fn scores(j: &mut Judge) {
    j.field("min_score", true, lax::int);
    j.field("max_score", true, lax::int);
}

/// `validate_classes` of LLM traits (`strict`: also blank and repeated names).
fn check_classes(j: &mut Judge, classes: Option<&Json>, strict: bool) {
    let Some(v) = classes else { return };
    match lax::string_map(v) {
        Err(e) => j.fail(Some("classes"), "KLD-W018", format!("`classes`: {e}")),
        Ok(map) => {
            if map.len() < 2 || map.len() > 20 {
                j.fail(
                    Some("classes"),
                    "KLD-W018",
                    format!("a literal trait has 2 to 20 classes, found {}", map.len()),
                );
            } else if strict {
                let mut seen = std::collections::HashSet::new();
                for (k, d) in &map {
                    if k.trim().is_empty() || d.trim().is_empty() {
                        j.fail(
                            Some("classes"),
                            "KLD-W018",
                            "class names and descriptions cannot be empty".into(),
                        );
                        return;
                    }
                    if !seen.insert(k.to_lowercase()) {
                        j.fail(
                            Some("classes"),
                            "KLD-W018",
                            format!("duplicate class name (case-insensitive) {k:?}"),
                        );
                        return;
                    }
                }
            }
        }
    }
}

fn template(j: &mut Judge, kind: &Json) -> bool {
    let Json::Object(o) = kind else { return false };
    if o.get("type").and_then(Json::as_str) != Some("template") {
        j.fail(
            Some("kind"),
            "KLD-W018",
            "a `kind` object must be {\"type\": \"template\", \"schema\": …}".into(),
        );
    } else if matches!(o.get("schema"), None | Some(Json::Null)) {
        j.fail(
            Some("kind"),
            "KLD-W018",
            "the template `kind` has no `schema`".into(),
        );
    }
    true
}

fn llm(j: &mut Judge) {
    let kind = j.get("kind").flatten();
    if let Some(k) = kind {
        if template(j, k) {
            return;
        }
    }
    j.bools(&[
        "deep_judgment_enabled",
        "deep_judgment_excerpt_enabled",
        "deep_judgment_search_enabled",
    ]);
    j.field("deep_judgment_max_excerpts", true, lax::int);
    j.field("deep_judgment_fuzzy_match_threshold", true, lax::float);
    j.field("deep_judgment_excerpt_retry_attempts", true, lax::int);
    j.field("higher_is_better", true, lax::boolean);
    scores(j);
    let literal = match kind {
        Some(Json::String(k)) => k == "literal",
        // Inferred from best/worst: boolean or score, never literal.
        _ => false,
    };
    if literal {
        let classes = j.classes(true);
        match classes {
            None | Some(Json::Null) => j.fail(
                Some("classes"),
                "KLD-W018",
                "a literal trait needs `classes` (an object of class name → description)".into(),
            ),
            Some(c) => check_classes(j, Some(&c), true),
        }
    }
}

fn callable(j: &mut Judge) {
    match j.get("callable_code") {
        None => {}
        Some(Some(Json::String(code))) => {
            // Python's non-strict b64decode discards characters outside the alphabet.
            use base64::engine::{
                general_purpose, DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig,
            };
            use base64::Engine;
            let filtered: String = code
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '='))
                .collect();
            let python = GeneralPurpose::new(
                &base64::alphabet::STANDARD,
                GeneralPurposeConfig::new()
                    .with_decode_allow_trailing_bits(true)
                    .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
            );
            let _ = general_purpose::STANDARD;
            if python.decode(filtered.as_bytes()).is_err() {
                j.fail(
                    Some("callable_code"),
                    "KLD-W016",
                    "`callable_code` is not valid base64 (binascii.Error)".into(),
                );
            }
        }
        Some(v) => {
            let shown = v.map_or("null", Json::kind);
            j.fail(
                Some("callable_code"),
                "KLD-W016",
                format!("`callable_code` is {shown}, not a base64 string (TypeError)"),
            );
        }
    }
    let kind = j.literal(
        "kind",
        "boolean",
        &["boolean", "score", "literal"],
        "KLD-W018",
    );
    j.bools(&["invert_result"]);
    j.field("higher_is_better", true, lax::boolean);
    scores(j);
    let classes = j.classes(false);
    if kind == "literal" && !has_classes(j, &classes) {
        return;
    }
    if let Some(c) = classes.filter(|c| !matches!(c, Json::Null)) {
        check_classes(j, Some(&c), false);
    }
}

/// The literal-kind rule of the callable and agentic models, `not classes`
/// (Python truthiness): false, with the problem reported, when it fails.
fn has_classes(j: &mut Judge, classes: &Option<Json>) -> bool {
    let truthy = match classes {
        None | Some(Json::Null) => false,
        Some(Json::Object(o)) => !o.is_empty(),
        Some(Json::Array(a)) => !a.is_empty(),
        Some(Json::String(s)) => !s.is_empty(),
        Some(Json::Number(n)) => n.as_f64() != 0.0,
        Some(Json::Bool(b)) => *b,
    };
    if !truthy {
        j.fail(
            Some("classes"),
            "KLD-W018",
            "a literal trait needs `classes`".into(),
        );
    }
    truthy
}

/// A metric list as the converter reads it: JSON-string → parsed, array →
/// itself, unparseable string or other type → empty.
fn metric_list(j: &Judge, name: &str) -> Option<Json> {
    match j.get(name)? {
        Some(Json::String(s)) => Some(json::parse(s.as_bytes()).unwrap_or(Json::Array(Vec::new()))),
        Some(v @ Json::Array(_)) => Some(v.clone()),
        _ => Some(Json::Array(Vec::new())),
    }
}

const TP_ONLY: [&str; 3] = ["precision", "recall", "f1"];
const FULL: [&str; 5] = ["precision", "recall", "specificity", "accuracy", "f1"];

fn metric(j: &mut Judge) {
    let mut lists = Vec::new();
    for name in ["metrics", "tp_instructions", "tn_instructions"] {
        let v = metric_list(j, name).unwrap_or(Json::Array(Vec::new()));
        match lax::strings(&v) {
            Ok(items) => lists.push(items.into_iter().map(str::to_string).collect::<Vec<_>>()),
            Err(e) => {
                j.fail(Some(name), "KLD-W017", format!("`{name}`: {e}"));
                lists.push(vec!["?".into()]);
            }
        }
    }
    j.bools(&["repeated_extraction"]);
    let mode = j.literal(
        "evaluation_mode",
        "tp_only",
        &["tp_only", "full_matrix"],
        "KLD-W017",
    );
    j.field("higher_is_better", true, lax::boolean);
    let (metrics, tp, tn) = (&lists[0], &lists[1], &lists[2]);
    if metrics.is_empty() {
        j.fail(
            Some("metrics"),
            "KLD-W017",
            "at least one metric is required".into(),
        );
        return;
    }
    if let Some(m) = metrics
        .iter()
        .find(|m| !FULL.contains(&m.as_str()) && *m != "?")
    {
        j.fail(
            Some("metrics"),
            "KLD-W017",
            format!("unknown metric {m:?} (valid: {})", FULL.join(", ")),
        );
        return;
    }
    if j.out.iter().any(|p| p.code == "KLD-W017") || mode.is_empty() {
        return;
    }
    if tp.is_empty() {
        j.fail(
            Some("tp_instructions"),
            "KLD-W017",
            "`tp_instructions` must not be empty".into(),
        );
    } else if mode == "tp_only" {
        if let Some(m) = metrics.iter().find(|m| !TP_ONLY.contains(&m.as_str())) {
            j.fail(
                Some("metrics"),
                "KLD-W017",
                format!("{m} needs evaluation_mode full_matrix"),
            );
        }
    } else if tn.is_empty() {
        j.fail(
            Some("tn_instructions"),
            "KLD-W017",
            "full_matrix needs `tn_instructions`".into(),
        );
    }
}

fn agentic(j: &mut Judge) {
    if j.r.description.as_deref().unwrap_or("").is_empty() {
        j.fail(
            None,
            "KLD-W018",
            "an agentic trait needs a non-empty description".into(),
        );
    }
    let kind = match j.get("kind") {
        None => Some(Json::String("boolean".into())),
        Some(v) => v.cloned(),
    };
    let is_template = match &kind {
        Some(k @ Json::Object(_)) => template(j, k),
        Some(Json::String(s)) => {
            if !matches!(s.as_str(), "boolean" | "score" | "literal") {
                j.fail(
                    Some("kind"),
                    "KLD-W018",
                    format!("`kind` {s:?} is not boolean, score, literal or a template"),
                );
            }
            false
        }
        other => {
            let shown = other
                .as_ref()
                .map_or_else(|| "null".to_string(), crate::model::show);
            j.fail(
                Some("kind"),
                "KLD-W018",
                format!("`kind` is {shown}, not a string or a template"),
            );
            false
        }
    };
    let hib_null = matches!(j.get("higher_is_better"), Some(None));
    j.field("higher_is_better", true, lax::boolean);
    if is_template && !hib_null {
        j.fail(Some("higher_is_better"), "KLD-W018", "a template-kind agentic trait needs `higher_is_better` null (the converter defaults it to true)".into());
    }
    let mode = j.literal(
        "context_mode",
        "trace_and_workspace",
        &["workspace_only", "trace_and_workspace", "trace_only"],
        "KLD-W018",
    );
    let materialize = j.field("materialize_trace", false, lax::boolean);
    j.bools(&["persist_trace"]);
    for name in ["max_turns", "timeout_seconds"] {
        if let Some(n) = j.field(name, false, lax::int) {
            if n <= 0 {
                j.fail(
                    Some(name),
                    "KLD-W018",
                    format!("`{name}` must be greater than 0"),
                );
            }
        }
    }
    scores(j);
    if materialize == Some(true) && mode == "workspace_only" {
        j.fail(
            Some("materialize_trace"),
            "KLD-W018",
            "materialize_trace needs a trace, but context_mode is workspace_only".into(),
        );
    }
    // The converter builds `ModelConfig(**value)` from every object-valued
    // `model_override` as it walks the properties (others are skipped).
    if let Some(e) =
        j.r.additional_property
            .iter()
            .flatten()
            .filter(|p| p.name == "model_override")
            .filter_map(|p| p.value.as_ref().filter(|v| matches!(v, Json::Object(_))))
            .find_map(super::model_config::override_problem)
    {
        j.fail(Some("model_override"), "KLD-W018", e);
    }
    let classes = j.classes(false);
    if matches!(&kind, Some(Json::String(s)) if s == "literal") && !has_classes(j, &classes) {
        return;
    }
    if let Some(c) = classes.filter(|c| !matches!(c, Json::Null)) {
        if let Err(e) = lax::string_map(&c) {
            j.fail(Some("classes"), "KLD-W018", format!("`classes`: {e}"));
        }
    }
}

/// `Rubric` / `DynamicRubric` validators over converted traits: names unique
/// within a family and across families, no `.` in names; a dynamic member
/// also needs a summary or a description.
pub(crate) fn rubric_problems(traits: &[(&Rating, Family)], dynamic: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut per_family = std::collections::HashSet::new();
    let mut all = std::collections::HashSet::new();
    for (r, f) in traits {
        if !per_family.insert((r.name.as_str(), *f)) {
            out.push(format!("trait name {:?} repeats within its type", r.name));
        } else if !all.insert(r.name.as_str()) {
            out.push(format!(
                "trait name {:?} is used by two trait types",
                r.name
            ));
        }
        if r.name.contains('.') {
            out.push(format!("trait name {:?} contains '.'", r.name));
        }
        if dynamic && r.prop_value("summary").is_none() && r.description.is_none() {
            out.push(format!(
                "dynamic trait {:?} has neither summary nor description",
                r.name
            ));
        }
    }
    out
}

/// `merge_rubrics`: a question trait with the name and family of a global one.
pub(crate) fn merge_conflicts(
    global: &[(&Rating, Family)],
    question: &[(&Rating, Family)],
) -> Vec<String> {
    question
        .iter()
        .filter(|(q, f)| global.iter().any(|(g, gf)| g.name == q.name && gf == f))
        .map(|(q, _)| {
            format!(
                "question trait {:?} has the name and type of a global trait",
                q.name
            )
        })
        .collect()
}
