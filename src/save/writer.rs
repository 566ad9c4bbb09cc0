//! Typed checkpoint → the exact bytes of Karenina's `Benchmark.save()` (Karenina `benchmark/core/base.py`).
//!
//! `model_dump(by_alias=True, exclude_none=True)` then `json.dump(indent=2,
//! ensure_ascii=False)`: Pydantic field order, `None` members omitted at model
//! level (nulls inside free-form values kept), empty lists kept, floats in
//! `repr` form, no trailing newline. Unknown members follow the known ones.

use crate::context;
use crate::json::py::PyWriter;
use crate::json::Json;
use crate::model::*;

/// Choices that change the written bytes.
#[derive(Clone, Debug, Default)]
pub struct WriteOptions {
    /// Drop `deep_judgment_*` properties from LLM traits, as Karenina's default
    /// `save()` does (karenina-ld keeps them unless asked).
    pub strip_deep_judgment: bool,
    /// Drop members Karenina does not know, as Karenina does (kept by default).
    pub drop_unknown: bool,
    /// Set the root `dateModified` to this value (`--touch`).
    pub date_modified: Option<String>,
}

struct W<'o> {
    w: PyWriter,
    opts: &'o WriteOptions,
}

/// Writes a checkpoint in Karenina's byte format.
pub fn write_checkpoint(cp: &Checkpoint, opts: &WriteOptions) -> String {
    let mut w = W {
        w: PyWriter::new(false),
        opts,
    };
    w.checkpoint(cp);
    w.w.finish()
}

impl W<'_> {
    fn opt_str(&mut self, k: &str, v: &Option<String>) {
        if let Some(s) = v {
            self.w.field_str(k, s);
        }
    }

    fn opt_json(&mut self, k: &str, v: &Option<Json>) {
        if let Some(j) = v {
            self.w.field_json(k, j);
        }
    }

    fn extra(&mut self, extra: &Extra) {
        if self.opts.drop_unknown {
            return;
        }
        for (k, v) in extra {
            self.w.field_json(k, v);
        }
    }

    fn checkpoint(&mut self, cp: &Checkpoint) {
        self.w.begin_object();
        self.w.key("@context");
        self.w.json(&Json::Object(context::canonical().clone()));
        self.w.field_str("@type", "DataFeed");
        self.opt_str("@id", &cp.id);
        self.w.field_str("name", &cp.name);
        self.opt_str("description", &cp.description);
        self.opt_str("version", &cp.version);
        match &cp.creator {
            None => {}
            Some(Creator::Name(n)) => self.w.field_str("creator", n),
            Some(Creator::Person(p)) => {
                self.w.key("creator");
                self.w.begin_object();
                self.w.field_str("@type", "Person");
                self.w.field_str("name", &p.name);
                self.opt_str("url", &p.url);
                self.opt_str("email", &p.email);
                self.extra(&p.extra);
                self.w.end_object();
            }
        }
        self.w.field_str("dateCreated", &cp.date_created);
        let modified = self
            .opts
            .date_modified
            .clone()
            .unwrap_or_else(|| cp.date_modified.clone());
        self.w.field_str("dateModified", &modified);
        self.ratings(&cp.rating);
        self.w.key("dataFeedElement");
        self.w.begin_array();
        for item in &cp.items {
            self.w.element();
            self.item(item);
        }
        self.w.end_array();
        if let Some(sc) = &cp.scenarios {
            self.w.key("hasPart");
            self.w.begin_array();
            for s in sc {
                self.w.element();
                self.scenario(s);
            }
            self.w.end_array();
        }
        self.properties("additionalProperty", &cp.additional_property);
        self.extra(&cp.extra);
        self.w.end_object();
    }

    fn item(&mut self, it: &Item) {
        self.w.begin_object();
        self.w.field_str("@type", "DataFeedItem");
        self.opt_str("@id", &it.id);
        self.w.field_str("dateCreated", &it.date_created);
        self.w.field_str("dateModified", &it.date_modified);
        self.w.key("item");
        self.question(&it.question);
        self.extra(&it.extra);
        self.w.end_object();
    }

    fn question(&mut self, q: &Question) {
        self.w.begin_object();
        self.w.field_str("@type", "Question");
        self.opt_str("@id", &q.id);
        self.w.field_str("text", &q.text);
        self.w.key("acceptedAnswer");
        self.w.begin_object();
        self.w.field_str("@type", "Answer");
        self.opt_str("@id", &q.accepted_answer.id);
        self.w.field_str("text", &q.accepted_answer.text);
        self.extra(&q.accepted_answer.extra);
        self.w.end_object();
        self.w.key("hasPart");
        let c = &q.template;
        self.w.begin_object();
        self.w.field_str("@type", "SoftwareSourceCode");
        self.opt_str("@id", &c.id);
        self.w.field_str("name", &c.name);
        self.w.field_str("text", &c.text);
        self.w.field_str("programmingLanguage", "Python");
        self.opt_str("codeRepository", &c.code_repository);
        self.extra(&c.extra);
        self.w.end_object();
        self.ratings(&q.rating);
        self.properties("additionalProperty", &q.additional_property);
        if let Some(kw) = &q.keywords {
            self.w.key("keywords");
            self.w.begin_array();
            for k in kw {
                self.w.element();
                self.w.string(k);
            }
            self.w.end_array();
        }
        self.extra(&q.extra);
        self.w.end_object();
    }

    fn ratings(&mut self, rs: &Option<Vec<Rating>>) {
        let Some(rs) = rs else { return };
        self.w.key("rating");
        self.w.begin_array();
        for r in rs {
            self.w.element();
            self.rating(r);
        }
        self.w.end_array();
    }

    fn rating(&mut self, r: &Rating) {
        self.w.begin_object();
        self.w.field_str("@type", "Rating");
        self.opt_str("@id", &r.id);
        self.w.field_str("name", &r.name);
        self.opt_str("description", &r.description);
        self.w.key("bestRating");
        self.w.float(r.best);
        self.w.key("worstRating");
        self.w.float(r.worst);
        if let Some(v) = r.rating_value {
            self.w.key("ratingValue");
            self.w.float(v);
        }
        self.opt_str("ratingExplanation", &r.rating_explanation);
        self.w.field_str("additionalType", &r.kind.as_curie());
        let strip = self.opts.strip_deep_judgment
            && matches!(r.kind.class, TraitClass::Rubric | TraitClass::Llm);
        if strip {
            let kept: Vec<Property> = r
                .additional_property
                .iter()
                .flatten()
                .filter(|p| !p.name.starts_with("deep_judgment_"))
                .cloned()
                .collect();
            // Karenina turns an emptied list into None (not written).
            let kept = (!kept.is_empty()).then_some(kept);
            self.properties("additionalProperty", &kept);
        } else {
            self.properties("additionalProperty", &r.additional_property);
        }
        self.extra(&r.extra);
        self.w.end_object();
    }

    fn properties(&mut self, key: &str, ps: &Option<Vec<Property>>) {
        let Some(ps) = ps else { return };
        self.w.key(key);
        self.w.begin_array();
        for p in ps {
            self.w.element();
            self.w.begin_object();
            self.w.field_str("@type", "PropertyValue");
            self.w.field_str("name", &p.name);
            self.opt_json("value", &p.value);
            self.extra(&p.extra);
            self.w.end_object();
        }
        self.w.end_array();
    }

    fn scenario(&mut self, s: &Scenario) {
        self.w.begin_object();
        self.w.field_str("@type", "karenina:Scenario");
        self.w.field_str("name", &s.name);
        self.w.field_str("description", &s.description);
        self.w.field_str("entryNode", &s.entry_node);
        self.w.key("nodes");
        self.w.begin_object();
        for (k, n) in &s.nodes {
            self.w.key(k);
            self.w.begin_object();
            self.w.field_str("@type", "karenina:ScenarioNode");
            self.w.field_str("nodeId", &n.node_id);
            self.w.key("question");
            self.question(&n.question);
            self.opt_json("modelOverride", &n.model_override);
            self.opt_json("toolFilter", &n.tool_filter);
            self.opt_str("stateUpdateSource", &n.state_update_source);
            self.opt_json("questionData", &n.question_data);
            self.opt_json("agentIdentity", &n.agent_identity);
            self.w.field_json("metadata", &n.metadata);
            self.extra(&n.extra);
            self.w.end_object();
        }
        self.w.end_object();
        self.w.key("edges");
        self.w.begin_array();
        for e in &s.edges {
            self.w.element();
            self.w.begin_object();
            self.w.field_str("source", &e.source);
            self.w.field_str("target", &e.target);
            self.opt_json("condition", &e.condition);
            self.opt_str("conditionSource", &e.condition_source);
            self.opt_json("handover", &e.handover);
            self.extra(&e.extra);
            self.w.end_object();
        }
        self.w.end_array();
        self.w.key("outcomeCriteria");
        self.w.begin_array();
        for o in &s.outcome_criteria {
            self.w.element();
            self.w.begin_object();
            self.w.field_str("name", &o.name);
            self.w.field_str("description", &o.description);
            self.opt_json("check", &o.check);
            self.opt_str("evaluateSource", &o.evaluate_source);
            self.extra(&o.extra);
            self.w.end_object();
        }
        self.w.end_array();
        self.w.field_json("metadata", &s.metadata);
        self.extra(&s.extra);
        self.w.end_object();
    }
}
