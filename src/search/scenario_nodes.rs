//! Scenario nodes' questions for `kld find`: a scenario-based benchmark
//! keeps its questions in `hasPart[i].nodes`, not in `dataFeedElement`, and
//! Karenina loads each node's Question from its `questionData` when the
//! file has one, so that is what is searched.

use super::{Field, Scope, Search, TRAIT_TEXT};
use crate::json::{Json, JsonPath};
use crate::model::qid;
use crate::model::ScenarioNode;

/// The fields of a `questionData` (a Question as Karenina dumps it) that
/// `--field metadata` searches, as JSON values.
const QUESTION_METADATA: &[&str] = &[
    "keywords",
    "author",
    "sources",
    "few_shot_examples",
    "custom_metadata",
    "answer_notes",
    "workspace_path",
];

impl Search<'_, '_> {
    /// A scenario node's question: what Karenina loads, its `questionData`
    /// when the file has one (question, raw answer, template, rubric
    /// traits, metadata), else the node's `question` (text, answer,
    /// template). Labels start `scenario[NAME].node[KEY]`.
    pub(super) fn scenario_node(
        &mut self,
        scenario: &str,
        key: &str,
        node: &ScenarioNode,
        at: &JsonPath,
    ) {
        let data = node.question_data.as_ref().and_then(Json::as_object);
        let text = match data.and_then(|d| d.get("question")).and_then(Json::as_str) {
            Some(t) => t,
            None => &node.question.text,
        };
        let scope = Scope {
            question: Some(qid::md5_hex(text)),
            scenario: Some((scenario.to_string(), key.to_string())),
            path: at.clone(),
        };
        let prefix = format!("scenario[{scenario}].node[{key}].");
        let label = |what: &str| format!("{prefix}{what}");
        let Some(d) = data else {
            self.question(&scope, &node.question, &at.key("question"), &prefix);
            return;
        };
        let p = at.key("questionData");
        for (field, what, name) in [
            (Field::Question, "question", "question"),
            (Field::Answer, "answer", "raw_answer"),
            (Field::Template, "template", "answer_template"),
        ] {
            if let (true, Some(v)) = (self.m.wants(field), d.get(name).and_then(Json::as_str)) {
                self.text(&scope, field, &label(what), &p.key(name), v);
            }
        }
        if self.m.wants(Field::Trait) {
            // {"llm_traits": [{"name": …, "description": …, …}], …}
            for (kind, traits) in d
                .get("question_rubric")
                .and_then(Json::as_object)
                .into_iter()
                .flat_map(|r| r.0.iter())
            {
                for (j, t) in traits.as_array().into_iter().flatten().enumerate() {
                    let Some(t) = t.as_object() else { continue };
                    let tp = p.key("question_rubric").key(kind).index(j);
                    let name = t.get("name").and_then(Json::as_str).unwrap_or_default();
                    let tl = |what: &str| label(&format!("trait[{name}].{what}"));
                    for what in ["name", "description"].iter().chain(TRAIT_TEXT) {
                        if let Some(v) = t.get(what) {
                            self.json(&scope, Field::Trait, &tl(what), &tp.key(what), v);
                        }
                    }
                }
            }
        }
        if self.m.wants(Field::Metadata) {
            for name in QUESTION_METADATA {
                if let Some(v) = d.get(name) {
                    let l = label(&format!("metadata.{name}"));
                    self.json(&scope, Field::Metadata, &l, &p.key(name), v);
                }
            }
        }
    }
}
