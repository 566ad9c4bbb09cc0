//! The checkpoint as Karenina's Pydantic models see it (Karenina `schemas/checkpoint.py`, `utils/checkpoint_trait_converters.py`; the RDF side in `docs/mapping.md`).
//!
//! Field order here is serialization order. Every struct keeps the members it
//! does not know in `extra`, in input order, so nothing a user wrote is lost.

use crate::json::{Json, Object};

/// Unknown members of an object, in input order.
pub type Extra = Vec<(String, Json)>;

/// The root `DataFeed`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Checkpoint {
    /// The `@context` as read (always replaced by the canonical one on write).
    pub context: Object,
    /// `@id` of the benchmark.
    pub id: Option<String>,
    /// `name` (required, non-empty).
    pub name: String,
    /// `description`.
    pub description: Option<String>,
    /// `version` (benchmark content version).
    pub version: Option<String>,
    /// `creator`: a string or a `Person`.
    pub creator: Option<Creator>,
    /// `dateCreated` (opaque string).
    pub date_created: String,
    /// `dateModified` (opaque string).
    pub date_modified: String,
    /// Global rubric traits (`rating`; JSON-LD `schema:contentRating`).
    pub rating: Option<Vec<Rating>>,
    /// The questions.
    pub items: Vec<Item>,
    /// Scenarios (`hasPart`).
    pub scenarios: Option<Vec<Scenario>>,
    /// Dataset-level properties.
    pub additional_property: Option<Vec<Property>>,
    /// Unknown members.
    pub extra: Extra,
}

/// `creator`: Karenina accepts a plain string or a `Person`.
#[derive(Clone, Debug, PartialEq)]
pub enum Creator {
    /// A plain name.
    Name(String),
    /// A `schema:Person`.
    Person(Person),
}

/// A `schema:Person`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Person {
    /// `name` (required).
    pub name: String,
    /// `url`.
    pub url: Option<String>,
    /// `email`.
    pub email: Option<String>,
    /// Unknown members.
    pub extra: Extra,
}

/// A `DataFeedItem` wrapping one question.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Item {
    /// The question ID (`@id`).
    pub id: Option<String>,
    /// `dateCreated`.
    pub date_created: String,
    /// `dateModified`.
    pub date_modified: String,
    /// Legacy keyword location (read, never written).
    pub keywords: Option<Vec<String>>,
    /// The question.
    pub question: Question,
    /// Unknown members.
    pub extra: Extra,
}

/// A `schema:Question`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Question {
    /// `@id` (the GUI writes one; Python never does).
    pub id: Option<String>,
    /// The question text (required, non-empty).
    pub text: String,
    /// The expected answer.
    pub accepted_answer: Answer,
    /// The answer template.
    pub template: SourceCode,
    /// Question-specific rubric traits.
    pub rating: Option<Vec<Rating>>,
    /// Question metadata.
    pub additional_property: Option<Vec<Property>>,
    /// Keywords.
    pub keywords: Option<Vec<String>>,
    /// Unknown members.
    pub extra: Extra,
}

/// A `schema:Answer`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Answer {
    /// `@id`.
    pub id: Option<String>,
    /// The expected answer text (required, may be empty).
    pub text: String,
    /// Unknown members.
    pub extra: Extra,
}

/// A `schema:SoftwareSourceCode`: the Python answer template.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SourceCode {
    /// `@id`.
    pub id: Option<String>,
    /// `name` (required).
    pub name: String,
    /// The Python source (required).
    pub text: String,
    /// `codeRepository` (legacy default `karenina-benchmarks`).
    pub code_repository: Option<String>,
    /// Unknown members.
    pub extra: Extra,
}

/// A `schema:Rating`: one rubric trait.
#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    /// `@id`.
    pub id: Option<String>,
    /// Trait name (required).
    pub name: String,
    /// `description`.
    pub description: Option<String>,
    /// `bestRating` (a float in Python).
    pub best: f64,
    /// `worstRating` (a float in Python).
    pub worst: f64,
    /// `ratingValue` (old GUI samples).
    pub rating_value: Option<f64>,
    /// `ratingExplanation`.
    pub rating_explanation: Option<String>,
    /// The trait type (`additionalType`).
    pub kind: TraitType,
    /// Trait configuration.
    pub additional_property: Option<Vec<Property>>,
    /// Unknown members.
    pub extra: Extra,
}

/// A `schema:PropertyValue`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Property {
    /// `name` (required; not unique).
    pub name: String,
    /// `value`: any JSON; `None` (absent or null) is written without a `value` key.
    pub value: Option<Json>,
    /// Unknown members.
    pub extra: Extra,
}

/// A `karenina:Scenario` in the root `hasPart`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Scenario {
    /// `name` (required).
    pub name: String,
    /// `description` (default `""`).
    pub description: String,
    /// `entryNode` (required).
    pub entry_node: String,
    /// `nodes`, keyed by node id, in input order.
    pub nodes: Vec<(String, ScenarioNode)>,
    /// `edges`.
    pub edges: Vec<Edge>,
    /// `outcomeCriteria` (default `[]`).
    pub outcome_criteria: Vec<Outcome>,
    /// `metadata` (default `{}`).
    pub metadata: Json,
    /// Unknown members.
    pub extra: Extra,
}

/// A `karenina:ScenarioNode`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ScenarioNode {
    /// `nodeId`.
    pub node_id: String,
    /// The node's question.
    pub question: Question,
    /// `modelOverride` (free-form).
    pub model_override: Option<Json>,
    /// `toolFilter` (free-form).
    pub tool_filter: Option<Json>,
    /// `stateUpdateSource` (Python source).
    pub state_update_source: Option<String>,
    /// `questionData` (free-form Question entity dump).
    pub question_data: Option<Json>,
    /// `agentIdentity` (free-form).
    pub agent_identity: Option<Json>,
    /// `metadata` (default `{}`).
    pub metadata: Json,
    /// Unknown members.
    pub extra: Extra,
}

/// A scenario edge.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Edge {
    /// `source` node.
    pub source: String,
    /// `target` node (`__end__` for terminal).
    pub target: String,
    /// `condition` (object or list).
    pub condition: Option<Json>,
    /// `conditionSource`.
    pub condition_source: Option<String>,
    /// `handover`.
    pub handover: Option<Json>,
    /// Unknown members.
    pub extra: Extra,
}

/// A scenario outcome criterion.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Outcome {
    /// `name`.
    pub name: String,
    /// `description` (default `""`).
    pub description: String,
    /// `check`.
    pub check: Option<Json>,
    /// `evaluateSource`.
    pub evaluate_source: Option<String>,
    /// Unknown members.
    pub extra: Extra,
}

/// Global or question-specific.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Applies to every question (`Global…`).
    Global,
    /// Applies to one question (`QuestionSpecific…`).
    QuestionSpecific,
}

/// The trait family encoded in `additionalType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TraitClass {
    /// LLM trait, kind boolean or score (`…RubricTrait`).
    Rubric,
    /// LLM trait, kind literal or template (`…LLMRubricTrait`).
    Llm,
    /// `…RegexTrait`.
    Regex,
    /// `…CallableTrait`.
    Callable,
    /// `…MetricRubricTrait`.
    Metric,
    /// `…AgenticRubricTrait`.
    Agentic,
    /// `…DynamicRubricTrait`.
    Dynamic,
}

/// One of the 14 `additionalType` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TraitType {
    /// Global or question-specific.
    pub scope: Scope,
    /// Family.
    pub class: TraitClass,
}

const CLASSES: [(TraitClass, &str); 7] = [
    (TraitClass::Rubric, "RubricTrait"),
    (TraitClass::Llm, "LLMRubricTrait"),
    (TraitClass::Regex, "RegexTrait"),
    (TraitClass::Callable, "CallableTrait"),
    (TraitClass::Metric, "MetricRubricTrait"),
    (TraitClass::Agentic, "AgenticRubricTrait"),
    (TraitClass::Dynamic, "DynamicRubricTrait"),
];

impl TraitType {
    /// All 14 types, global first.
    pub fn all() -> impl Iterator<Item = TraitType> {
        [Scope::Global, Scope::QuestionSpecific]
            .into_iter()
            .flat_map(|scope| {
                CLASSES.iter().map(move |(class, _)| TraitType {
                    scope,
                    class: *class,
                })
            })
    }

    /// The local name, e.g. `GlobalRegexTrait`.
    pub(crate) fn local_name(&self) -> String {
        let scope = match self.scope {
            Scope::Global => "Global",
            Scope::QuestionSpecific => "QuestionSpecific",
        };
        let class = CLASSES
            .iter()
            .find(|(c, _)| *c == self.class)
            .map(|(_, n)| *n)
            .unwrap_or("RubricTrait");
        format!("{scope}{class}")
    }

    /// The written form, e.g. `karenina:GlobalRegexTrait`.
    pub(crate) fn as_curie(&self) -> String {
        format!("karenina:{}", self.local_name())
    }

    /// Parses a prefixed or bare local name.
    pub fn parse(s: &str) -> Option<TraitType> {
        let local = s.strip_prefix("karenina:").unwrap_or(s);
        let (scope, rest) = if let Some(r) = local.strip_prefix("Global") {
            (Scope::Global, r)
        } else if let Some(r) = local.strip_prefix("QuestionSpecific") {
            (Scope::QuestionSpecific, r)
        } else {
            return None;
        };
        CLASSES
            .iter()
            .find(|(_, n)| *n == rest)
            .map(|(class, _)| TraitType {
                scope,
                class: *class,
            })
    }

    /// Short lowercase family name for reports (`llm`, `regex`, ...).
    pub fn family(&self) -> &'static str {
        match self.class {
            TraitClass::Rubric | TraitClass::Llm => "llm",
            TraitClass::Regex => "regex",
            TraitClass::Callable => "callable",
            TraitClass::Metric => "metric",
            TraitClass::Agentic => "agentic",
            TraitClass::Dynamic => "dynamic",
        }
    }
}

impl Rating {
    /// The last property named `name` (Karenina's readers let the last one win).
    pub fn prop(&self, name: &str) -> Option<&Property> {
        self.additional_property
            .as_deref()
            .and_then(|ps| ps.iter().rev().find(|p| p.name == name))
    }

    /// The value of the last property named `name`, `None` if absent or null.
    pub fn prop_value(&self, name: &str) -> Option<&Json> {
        self.prop(name).and_then(|p| p.value.as_ref())
    }
}

impl Question {
    /// The value of the first property named `name`.
    pub fn prop_value(&self, name: &str) -> Option<&Json> {
        self.additional_property
            .as_deref()
            .and_then(|ps| ps.iter().find(|p| p.name == name))
            .and_then(|p| p.value.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fourteen_types_round_trip() {
        let all: Vec<_> = TraitType::all().collect();
        assert_eq!(all.len(), 14);
        for t in all {
            assert_eq!(TraitType::parse(&t.as_curie()), Some(t));
            assert_eq!(TraitType::parse(&t.local_name()), Some(t));
        }
        assert_eq!(TraitType::parse("karenina:GlobalManualRubricTrait"), None);
    }
}
