//! What a checkpoint holds, counted: questions, templates, traits by kind
//! and scope, keywords (what `kld info` and the page's benchmark view show).

use crate::json::Json;
use crate::model::{Checkpoint, Rating, Scope, TraitClass};
use std::collections::BTreeMap;

/// Counts describing one checkpoint.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Summary {
    /// Benchmark name.
    pub name: String,
    /// Content version.
    pub version: Option<String>,
    /// Number of questions.
    pub questions: usize,
    /// Questions marked `finished`.
    pub finished: usize,
    /// Questions with a non-empty answer template.
    pub templates: usize,
    /// Of those, Karenina's default placeholder template.
    pub default_templates: usize,
    /// Scenarios.
    pub scenarios: usize,
    /// Traits by (scope, family, kind) → count.
    pub traits: BTreeMap<(String, String, String), usize>,
    /// Keyword → number of questions carrying it.
    pub keywords: BTreeMap<String, usize>,
}

/// The evaluation kind of a trait: `boolean`, `score`, `literal`, `template`,
/// `regex` or `metric` (dynamic traits report their member's kind).
pub(crate) fn trait_kind(r: &Rating) -> String {
    let kind_prop = r.prop_value("kind");
    let named = |default: &str| match kind_prop {
        Some(Json::String(s)) => s.clone(),
        Some(Json::Object(_)) => "template".into(),
        _ => default.to_string(),
    };
    let class = if r.kind.class == TraitClass::Dynamic {
        match r.prop_value("dynamic_trait_type").and_then(Json::as_str) {
            Some("regex") => TraitClass::Regex,
            Some("callable") => TraitClass::Callable,
            Some("metric") => TraitClass::Metric,
            Some("agentic") => TraitClass::Agentic,
            _ => TraitClass::Rubric,
        }
    } else {
        r.kind.class
    };
    match class {
        TraitClass::Rubric | TraitClass::Llm => match kind_prop {
            Some(_) => named("score"),
            None if r.best == 1.0 && r.worst == 0.0 => "boolean".into(),
            None => "score".into(),
        },
        TraitClass::Regex => "regex".into(),
        TraitClass::Metric => "metric".into(),
        TraitClass::Callable | TraitClass::Agentic | TraitClass::Dynamic => named("boolean"),
    }
}

const DEFAULT_TEMPLATE_MARK: &str =
    "# Default template: returns False to indicate custom verification needed";

/// Summarizes a checkpoint.
pub fn count(cp: &Checkpoint) -> Summary {
    let mut s = Summary {
        name: cp.name.clone(),
        version: cp.version.clone(),
        questions: cp.items.len(),
        scenarios: cp.scenarios.as_ref().map_or(0, Vec::len),
        ..Default::default()
    };
    let mut count = |r: &Rating| {
        let scope = match r.kind.scope {
            Scope::Global => "global",
            Scope::QuestionSpecific => "question",
        };
        *s.traits
            .entry((
                scope.to_string(),
                r.kind.family().to_string(),
                trait_kind(r),
            ))
            .or_default() += 1;
    };
    for r in cp.rating.iter().flatten() {
        count(r);
    }
    for it in &cp.items {
        for r in it.question.rating.iter().flatten() {
            count(r);
        }
    }
    for it in &cp.items {
        let q = &it.question;
        if q.prop_value("finished").and_then(Json::as_bool) == Some(true) {
            s.finished += 1;
        }
        if !q.template.text.trim().is_empty() {
            s.templates += 1;
            if q.template.text.contains(DEFAULT_TEMPLATE_MARK) {
                s.default_templates += 1;
            }
        }
        let mut kws: Vec<&String> = q.keywords.iter().flatten().collect();
        kws.sort();
        kws.dedup();
        for k in kws {
            *s.keywords.entry(k.clone()).or_default() += 1;
        }
    }
    s
}

impl Summary {
    /// The summary as a JSON value (for `--format json`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "name": self.name,
            "version": self.version,
            "questions": self.questions,
            "finished": self.finished,
            "templates": self.templates,
            "default_templates": self.default_templates,
            "scenarios": self.scenarios,
            "traits": self.traits.iter().map(|((scope, family, kind), n)| serde_json::json!({
                "scope": scope, "family": family, "kind": kind, "count": n
            })).collect::<Vec<_>>(),
            "keywords": self.keywords,
        })
    }
}
