//! Which nodes of the lossless graph are IRIs rather than blank nodes.
//!
//! Linked-data users expect the resources a plain JSON-LD reading names by IRI
//! to keep that IRI: `DESCRIBE <urn:uuid:question-…>` should find the question,
//! the same question in two benchmarks should be one resource, and results should
//! be able to point at it. So the `DataFeed` and each `DataFeedItem` whose `@id`
//! is a valid absolute IRI (as Oxigraph checks it, RFC 3987) and unique among the
//! IDs of its file become that IRI. Every other node stays blank: a relative or
//! bare 32-hex ID would resolve against the file's location, an invalid one is
//! no IRI at all, and a duplicated one would merge two nodes. `karenina:id`
//! keeps the exact ID string on every node either way.

use crate::json::Json;
use crate::model::*;
use oxigraph::model::NamedNode;
use std::collections::{HashMap, HashSet};

/// The IDs of the checkpoint's `DataFeed` and items that become IRI nodes.
pub(crate) fn iri_ids(cp: &Checkpoint) -> HashSet<&str> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    count_ids(cp, &mut counts);
    std::iter::once(&cp.id)
        .chain(cp.items.iter().map(|it| &it.id))
        .filter_map(|id| id.as_deref())
        .filter(|id| counts.get(id) == Some(&1) && NamedNode::new(*id).is_ok())
        .collect()
}

/// Counts every `@id` of the file: the nodes the model knows and any `@id`
/// inside free-form values and unknown members (a JSON-LD processor would
/// merge a node there with an item of the same ID).
fn count_ids<'a>(cp: &'a Checkpoint, c: &mut HashMap<&'a str, usize>) {
    let add = |id: &'a Option<String>, c: &mut HashMap<&'a str, usize>| {
        if let Some(s) = id {
            *c.entry(s.as_str()).or_default() += 1;
        }
    };
    add(&cp.id, c);
    extra_ids(&cp.extra, c);
    for r in cp.rating.iter().flatten() {
        rating_ids(r, c);
    }
    for p in cp.additional_property.iter().flatten() {
        property_ids(p, c);
    }
    for it in &cp.items {
        add(&it.id, c);
        extra_ids(&it.extra, c);
        question_ids(&it.question, c);
    }
    for s in cp.scenarios.iter().flatten() {
        for (_, n) in &s.nodes {
            question_ids(&n.question, c);
        }
    }
}

fn question_ids<'a>(q: &'a Question, c: &mut HashMap<&'a str, usize>) {
    for s in [&q.id, &q.accepted_answer.id, &q.template.id]
        .into_iter()
        .flatten()
    {
        *c.entry(s.as_str()).or_default() += 1;
    }
    extra_ids(&q.extra, c);
    extra_ids(&q.accepted_answer.extra, c);
    extra_ids(&q.template.extra, c);
    for r in q.rating.iter().flatten() {
        rating_ids(r, c);
    }
    for p in q.additional_property.iter().flatten() {
        property_ids(p, c);
    }
}

fn rating_ids<'a>(r: &'a Rating, c: &mut HashMap<&'a str, usize>) {
    if let Some(s) = &r.id {
        *c.entry(s.as_str()).or_default() += 1;
    }
    extra_ids(&r.extra, c);
    for p in r.additional_property.iter().flatten() {
        property_ids(p, c);
    }
}

fn property_ids<'a>(p: &'a Property, c: &mut HashMap<&'a str, usize>) {
    if let Some(v) = &p.value {
        json_ids(v, c);
    }
    extra_ids(&p.extra, c);
}

fn extra_ids<'a>(x: &'a Extra, c: &mut HashMap<&'a str, usize>) {
    for (k, v) in x {
        if k == "@id" {
            if let Json::String(s) = v {
                *c.entry(s.as_str()).or_default() += 1;
            }
        }
        json_ids(v, c);
    }
}

fn json_ids<'a>(j: &'a Json, c: &mut HashMap<&'a str, usize>) {
    match j {
        Json::Object(o) => extra_ids(&o.0, c),
        Json::Array(a) => a.iter().for_each(|v| json_ids(v, c)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cp(json: &str) -> Checkpoint {
        crate::model::read_checkpoint(
            std::path::Path::new("t.jsonld"),
            json.as_bytes(),
            ReadOptions::default(),
        )
        .unwrap()
    }

    #[test]
    fn valid_unique_absolute_ids_only() {
        let item = |id: &str| {
            format!(
                r#"{{"@type":"DataFeedItem","@id":"{id}","dateCreated":"d","dateModified":"d","item":{{"@type":"Question","text":"t{id}","acceptedAnswer":{{"@type":"Answer","text":"a"}},"hasPart":{{"@type":"SoftwareSourceCode","name":"n","text":"x","programmingLanguage":"Python"}}}}}}"#
            )
        };
        let doc = format!(
            r#"{{"@context":{{"@vocab":"http://schema.org/"}},"@type":"DataFeed","@id":"urn:x:root","name":"b","dateCreated":"d","dateModified":"d","dataFeedElement":[{},{},{},{},{}]}}"#,
            item("urn:uuid:question-a"),
            item("q001"),
            item("urn:dup"),
            item("urn:dup"),
            item("urn:has space")
        );
        let c = cp(&doc);
        let mut got: Vec<_> = iri_ids(&c).into_iter().collect();
        got.sort();
        assert_eq!(got, ["urn:uuid:question-a", "urn:x:root"]);
    }
}
