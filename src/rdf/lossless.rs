//! The lossless JSON-LD reading of a checkpoint.
//!
//! A plain JSON-LD reading of Karenina's file loses data (design.md, "The
//! lossless RDF mapping"). Instead of a private RDF shape, we write a second
//! JSON-LD document from the typed model that uses only standard JSON-LD 1.1 and
//! Karenina's canonical `@context`, and let a JSON-LD processor turn it into
//! quads:
//! - every node is a blank node; the `@id` it had is the string `karenina:id`
//!   (IDs with tabs, quotes or `<` are not IRIs, and a 32-hex ID would resolve
//!   against the file's location);
//! - array members carry `karenina:position` (0-based), so order survives `@set`;
//! - free-form values (objects, arrays) are `rdf:JSON` literals whose lexical
//!   form is the exact JSON text (key order, nulls, number forms); scalars are
//!   plain typed literals (`xsd:string`, `xsd:boolean`, and `xsd:integer` /
//!   `xsd:double` with the number's lexical form as written);
//! - keywords are `schema:keywords` literals plus a `karenina:keywordList` JSON
//!   literal (order and duplicates); a present-but-empty list is named by
//!   `karenina:emptyList`; members Karenina does not know are one
//!   `karenina:extra` JSON object literal.
//!
//! `rdf:JSON` literals are written as typed value objects rather than `@json`
//! because `@json` canonicalizes (JCS) and so would sort keys and rewrite numbers.

use crate::context;
use crate::json::{Json, Object};
use crate::model::*;
use crate::vocab::{RDF_JSON, XSD_DOUBLE, XSD_INTEGER};

fn typed(value: String, datatype: &str) -> Json {
    let mut o = Object::new();
    o.push("@value", Json::String(value));
    o.push("@type", Json::String(datatype.into()));
    Json::Object(o)
}

fn json_literal(j: &Json) -> Json {
    typed(j.to_compact(), RDF_JSON)
}

fn double(v: f64) -> Json {
    typed(crate::pyjson::float_repr(v), XSD_DOUBLE)
}

fn position(i: usize) -> Json {
    typed(i.to_string(), XSD_INTEGER)
}

/// A free-form value: scalars as typed literals, structures as JSON literals.
fn value(j: &Json) -> Json {
    match j {
        Json::String(s) => Json::String(s.clone()),
        Json::Bool(b) => Json::Bool(*b),
        Json::Number(n) if n.is_integer() => typed(n.lexical().into(), XSD_INTEGER),
        Json::Number(n) => typed(n.lexical().into(), XSD_DOUBLE),
        Json::Null | Json::Array(_) | Json::Object(_) => json_literal(j),
    }
}

/// Builds one node object.
struct Node(Object, Vec<&'static str>);

impl Node {
    fn new(ty: &str) -> Self {
        let mut o = Object::new();
        o.push("@type", Json::String(ty.into()));
        Node(o, Vec::new())
    }
    fn untyped() -> Self {
        Node(Object::new(), Vec::new())
    }
    fn set(&mut self, k: &str, v: Json) {
        self.0.push(k, v);
    }
    fn str(&mut self, k: &str, v: &str) {
        self.0.push(k, Json::String(v.into()));
    }
    fn opt_str(&mut self, k: &str, v: &Option<String>) {
        if let Some(s) = v {
            self.str(k, s);
        }
    }
    fn opt_json(&mut self, k: &str, v: &Option<Json>) {
        if let Some(j) = v {
            self.set(k, json_literal(j));
        }
    }
    fn id(&mut self, v: &Option<String>) {
        self.opt_str("karenina:id", v);
    }
    fn pos(&mut self, i: usize) {
        self.set("karenina:position", position(i));
    }
    fn list<T>(&mut self, k: &'static str, items: &Option<Vec<T>>, f: impl Fn(usize, &T) -> Json) {
        match items {
            None => {}
            Some(v) if v.is_empty() => self.1.push(k),
            Some(v) => self.set(
                k,
                Json::Array(v.iter().enumerate().map(|(i, x)| f(i, x)).collect()),
            ),
        }
    }
    fn extra(&mut self, extra: &Extra) {
        if !extra.is_empty() {
            self.set(
                "karenina:extra",
                json_literal(&Json::Object(Object(extra.clone()))),
            );
        }
    }
    fn done(mut self) -> Json {
        if !self.1.is_empty() {
            let names = self.1.iter().map(|s| Json::String((*s).into())).collect();
            self.0.push("karenina:emptyList", Json::Array(names));
        }
        Json::Object(self.0)
    }
}

/// The lossless JSON-LD document of a checkpoint (canonical `@context`).
pub fn document(cp: &Checkpoint) -> Json {
    let mut n = Node(Object::new(), Vec::new());
    n.set("@context", Json::Object(context::canonical().clone()));
    n.str("@type", "DataFeed");
    n.id(&cp.id);
    n.str("name", &cp.name);
    n.opt_str("description", &cp.description);
    n.opt_str("version", &cp.version);
    match &cp.creator {
        None => {}
        Some(Creator::Name(s)) => n.str("creator", s),
        Some(Creator::Person(p)) => {
            let mut pn = Node::new("Person");
            pn.str("name", &p.name);
            pn.opt_str("url", &p.url);
            pn.opt_str("email", &p.email);
            pn.extra(&p.extra);
            n.set("creator", pn.done());
        }
    }
    n.str("dateCreated", &cp.date_created);
    n.str("dateModified", &cp.date_modified);
    n.list("rating", &cp.rating, rating);
    n.set(
        "dataFeedElement",
        Json::Array(
            cp.items
                .iter()
                .enumerate()
                .map(|(i, it)| item(i, it))
                .collect(),
        ),
    );
    n.list("hasPart", &cp.scenarios, scenario);
    n.list("additionalProperty", &cp.additional_property, property);
    n.extra(&cp.extra);
    n.done()
}

fn item(i: usize, it: &Item) -> Json {
    let mut n = Node::new("DataFeedItem");
    n.id(&it.id);
    n.pos(i);
    n.str("dateCreated", &it.date_created);
    n.str("dateModified", &it.date_modified);
    n.set("item", question(&it.question));
    n.extra(&it.extra);
    n.done()
}

fn question(q: &Question) -> Json {
    let mut n = Node::new("Question");
    n.id(&q.id);
    n.str("text", &q.text);
    let a = &q.accepted_answer;
    let mut an = Node::new("Answer");
    an.id(&a.id);
    an.str("text", &a.text);
    an.extra(&a.extra);
    n.set("acceptedAnswer", an.done());
    let c = &q.template;
    let mut cn = Node::new("SoftwareSourceCode");
    cn.id(&c.id);
    cn.str("name", &c.name);
    cn.str("text", &c.text);
    cn.str("programmingLanguage", "Python");
    cn.opt_str("codeRepository", &c.code_repository);
    cn.extra(&c.extra);
    n.set("hasPart", cn.done());
    n.list("rating", &q.rating, rating);
    n.list("additionalProperty", &q.additional_property, property);
    if let Some(kw) = &q.keywords {
        if !kw.is_empty() {
            n.set(
                "keywords",
                Json::Array(kw.iter().map(|k| Json::String(k.clone())).collect()),
            );
        }
        let list = Json::Array(kw.iter().map(|k| Json::String(k.clone())).collect());
        n.set("karenina:keywordList", json_literal(&list));
    }
    n.extra(&q.extra);
    n.done()
}

fn rating(i: usize, r: &Rating) -> Json {
    let mut n = Node::new("Rating");
    n.id(&r.id);
    n.pos(i);
    n.str("name", &r.name);
    n.opt_str("description", &r.description);
    n.set("bestRating", double(r.best));
    n.set("worstRating", double(r.worst));
    if let Some(v) = r.rating_value {
        n.set("ratingValue", double(v));
    }
    n.opt_str("ratingExplanation", &r.rating_explanation);
    n.str("additionalType", &r.kind.as_curie());
    n.list("additionalProperty", &r.additional_property, property);
    n.extra(&r.extra);
    n.done()
}

fn property(i: usize, p: &Property) -> Json {
    let mut n = Node::new("PropertyValue");
    n.pos(i);
    n.str("name", &p.name);
    if let Some(v) = &p.value {
        n.set("value", value(v));
    }
    n.extra(&p.extra);
    n.done()
}

fn scenario(i: usize, s: &Scenario) -> Json {
    let mut n = Node::new("karenina:Scenario");
    n.pos(i);
    n.str("name", &s.name);
    n.str("description", &s.description);
    n.str("entryNode", &s.entry_node);
    let nodes = s
        .nodes
        .iter()
        .enumerate()
        .map(|(j, (key, sn))| {
            let mut m = Node::new("karenina:ScenarioNode");
            m.str("karenina:key", key);
            m.pos(j);
            m.str("nodeId", &sn.node_id);
            m.set("question", question(&sn.question));
            m.opt_json("modelOverride", &sn.model_override);
            m.opt_json("toolFilter", &sn.tool_filter);
            m.opt_str("stateUpdateSource", &sn.state_update_source);
            m.opt_json("questionData", &sn.question_data);
            m.opt_json("agentIdentity", &sn.agent_identity);
            m.set("metadata", json_literal(&sn.metadata));
            m.extra(&sn.extra);
            m.done()
        })
        .collect();
    n.set("karenina:node", Json::Array(nodes));
    let edges = s
        .edges
        .iter()
        .enumerate()
        .map(|(j, e)| {
            let mut m = Node::untyped();
            m.pos(j);
            m.str("source", &e.source);
            m.str("target", &e.target);
            m.opt_json("condition", &e.condition);
            m.opt_str("conditionSource", &e.condition_source);
            m.opt_json("handover", &e.handover);
            m.extra(&e.extra);
            m.done()
        })
        .collect();
    n.set("edges", Json::Array(edges));
    let outcomes = s
        .outcome_criteria
        .iter()
        .enumerate()
        .map(|(j, o)| {
            let mut m = Node::untyped();
            m.pos(j);
            m.str("name", &o.name);
            m.str("description", &o.description);
            m.opt_json("check", &o.check);
            m.opt_str("evaluateSource", &o.evaluate_source);
            m.extra(&o.extra);
            m.done()
        })
        .collect();
    n.set("outcomeCriteria", Json::Array(outcomes));
    n.set("metadata", json_literal(&s.metadata));
    n.extra(&s.extra);
    n.done()
}
