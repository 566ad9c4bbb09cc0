//! Semantic diff of two checkpoints: what a reviewer asks of a change.
//!
//! Both sides are read through the normal reader into the typed model, so
//! formatting, escapes, key order and legacy contexts never show up: only
//! benchmark metadata, questions added / removed / changed / moved (by ID)
//! and rubric traits (by name, settings compared by value). `dateModified`
//! is left out: Karenina stamps it on every save. The result serializes to
//! JSON for machines; [`Diff::render`] writes the text for people.

use crate::json::Json;
use crate::model::{Checkpoint, Creator, Item, Property, Rating};
use serde::Serialize;
use std::collections::BTreeMap;

mod render;
mod text;
pub use render::Style;
pub use text::{unified, DIFF_DEADLINE};

/// One field whose value changed (values as JSON).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldChange {
    /// Field name (`name`, `answer`, a metadata property name, a trait setting …).
    pub field: String,
    /// Value in A (`null` when absent).
    pub old: serde_json::Value,
    /// Value in B (`null` when absent).
    pub new: serde_json::Value,
}

/// A question named by its ID, with its text.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QuestionRef {
    /// The item's `@id` (or `#N` for an item without one).
    pub id: String,
    /// The question text.
    pub text: String,
}

/// Traits added, removed and changed, by name.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TraitChanges {
    /// Names of traits only in B.
    pub added: Vec<String>,
    /// Names of traits only in A.
    pub removed: Vec<String>,
    /// Traits in both whose settings differ.
    pub changed: Vec<TraitChange>,
}

impl TraitChanges {
    /// True when nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// One trait whose settings changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraitChange {
    /// Trait name.
    pub name: String,
    /// The settings that differ.
    pub fields: Vec<FieldChange>,
}

/// A question present in both whose content changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QuestionChange {
    /// The item's `@id`.
    pub id: String,
    /// The question text in B.
    pub text: String,
    /// Changed fields: `text`, `answer`, `keywords`, `finished`, metadata properties.
    pub fields: Vec<FieldChange>,
    /// The template as a unified diff, when it changed.
    pub template: Option<String>,
    /// Question-specific traits.
    pub traits: TraitChanges,
}

/// A question whose place in the benchmark changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Moved {
    /// The item's `@id`.
    pub id: String,
    /// 0-based position in A.
    pub from: usize,
    /// 0-based position in B.
    pub to: usize,
}

/// Everything that differs between two checkpoints.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Diff {
    /// Benchmark metadata (name, description, version, creator, dateCreated,
    /// dataset properties).
    pub metadata: Vec<FieldChange>,
    /// Questions only in B.
    pub added: Vec<QuestionRef>,
    /// Questions only in A.
    pub removed: Vec<QuestionRef>,
    /// Questions in both whose content changed.
    pub changed: Vec<QuestionChange>,
    /// Questions in both whose order changed.
    pub moved: Vec<Moved>,
    /// Global rubric traits.
    pub global_traits: TraitChanges,
}

impl Diff {
    /// True when the two checkpoints hold the same benchmark.
    pub fn is_empty(&self) -> bool {
        self.metadata.is_empty()
            && self.added.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
            && self.moved.is_empty()
            && self.global_traits.is_empty()
    }
}

fn json(j: &Json) -> serde_json::Value {
    serde_json::from_str(&j.to_compact()).unwrap_or(serde_json::Value::Null)
}

fn opt_str(s: &Option<String>) -> serde_json::Value {
    s.as_ref().map_or(serde_json::Value::Null, |s| {
        serde_json::Value::String(s.clone())
    })
}

fn change(out: &mut Vec<FieldChange>, field: &str, old: serde_json::Value, new: serde_json::Value) {
    if old != new {
        out.push(FieldChange {
            field: field.to_string(),
            old,
            new,
        });
    }
}

/// Properties by name (a repeated name keeps the last value, as Karenina reads them).
fn props(p: &Option<Vec<Property>>) -> BTreeMap<String, serde_json::Value> {
    p.iter()
        .flatten()
        .map(|p| {
            (
                p.name.clone(),
                p.value.as_ref().map_or(serde_json::Value::Null, json),
            )
        })
        .collect()
}

fn prop_changes(
    out: &mut Vec<FieldChange>,
    a: &Option<Vec<Property>>,
    b: &Option<Vec<Property>>,
    skip: &[&str],
) {
    let (pa, pb) = (props(a), props(b));
    let mut names: Vec<&String> = pa.keys().chain(pb.keys()).collect();
    names.sort();
    names.dedup();
    for n in names.into_iter().filter(|n| !skip.contains(&n.as_str())) {
        let get = |m: &BTreeMap<String, serde_json::Value>| m.get(n).cloned();
        let (old, new) = (get(&pa), get(&pb));
        if old != new {
            out.push(FieldChange {
                field: n.clone(),
                old: old.unwrap_or(serde_json::Value::Null),
                new: new.unwrap_or(serde_json::Value::Null),
            });
        }
    }
}

fn creator(c: &Option<Creator>) -> serde_json::Value {
    match c {
        None => serde_json::Value::Null,
        Some(Creator::Name(s)) => serde_json::Value::String(s.clone()),
        Some(Creator::Person(p)) => {
            serde_json::json!({"name": p.name, "url": p.url, "email": p.email})
        }
    }
}

/// A trait's settings by name, compared by value.
fn trait_settings(r: &Rating) -> Vec<(String, serde_json::Value)> {
    let mut v = vec![
        (
            "additionalType".to_string(),
            serde_json::Value::String(r.kind.as_curie()),
        ),
        ("description".to_string(), opt_str(&r.description)),
        ("bestRating".to_string(), serde_json::json!(r.best)),
        ("worstRating".to_string(), serde_json::json!(r.worst)),
        ("ratingValue".to_string(), serde_json::json!(r.rating_value)),
        (
            "ratingExplanation".to_string(),
            opt_str(&r.rating_explanation),
        ),
    ];
    v.extend(props(&r.additional_property));
    v
}

fn traits(a: &Option<Vec<Rating>>, b: &Option<Vec<Rating>>) -> TraitChanges {
    let by_name = |x: &Option<Vec<Rating>>| -> BTreeMap<String, Rating> {
        x.iter()
            .flatten()
            .map(|r| (r.name.clone(), r.clone()))
            .collect()
    };
    let (ma, mb) = (by_name(a), by_name(b));
    let mut t = TraitChanges::default();
    for (name, ra) in &ma {
        match mb.get(name) {
            None => t.removed.push(name.clone()),
            Some(rb) => {
                let (sa, sb): (BTreeMap<_, _>, BTreeMap<_, _>) = (
                    trait_settings(ra).into_iter().collect(),
                    trait_settings(rb).into_iter().collect(),
                );
                let mut fields = Vec::new();
                let mut keys: Vec<&String> = sa.keys().chain(sb.keys()).collect();
                keys.sort();
                keys.dedup();
                for k in keys {
                    let get = |m: &BTreeMap<String, serde_json::Value>| {
                        m.get(k).cloned().unwrap_or(serde_json::Value::Null)
                    };
                    change(&mut fields, k, get(&sa), get(&sb));
                }
                if !fields.is_empty() {
                    t.changed.push(TraitChange {
                        name: name.clone(),
                        fields,
                    });
                }
            }
        }
    }
    t.added = mb
        .keys()
        .filter(|n| !ma.contains_key(*n))
        .cloned()
        .collect();
    t
}

fn item_id(it: &Item, i: usize) -> String {
    it.id.clone().unwrap_or_else(|| format!("#{i}"))
}

fn keywords(it: &Item) -> serde_json::Value {
    let mut k: Vec<String> = it
        .question
        .keywords
        .iter()
        .chain(it.keywords.iter())
        .flatten()
        .cloned()
        .collect();
    k.sort();
    k.dedup();
    serde_json::json!(k)
}

/// A unified diff of two template sources (`None` when equal).
pub(crate) fn template_diff(a: &str, b: &str) -> Option<String> {
    (a != b).then(|| unified(a, b, "A", "B", 2))
}

fn question_change(a: &Item, b: &Item, id: String) -> Option<QuestionChange> {
    let (qa, qb) = (&a.question, &b.question);
    let mut fields = Vec::new();
    change(
        &mut fields,
        "text",
        qa.text.clone().into(),
        qb.text.clone().into(),
    );
    change(
        &mut fields,
        "answer",
        qa.accepted_answer.text.clone().into(),
        qb.accepted_answer.text.clone().into(),
    );
    change(&mut fields, "keywords", keywords(a), keywords(b));
    change(
        &mut fields,
        "dateCreated",
        a.date_created.clone().into(),
        b.date_created.clone().into(),
    );
    prop_changes(
        &mut fields,
        &qa.additional_property,
        &qb.additional_property,
        &[],
    );
    let template = template_diff(&qa.template.text, &qb.template.text);
    let traits = traits(&qa.rating, &qb.rating);
    (!fields.is_empty() || template.is_some() || !traits.is_empty()).then(|| QuestionChange {
        id,
        text: qb.text.clone(),
        fields,
        template,
        traits,
    })
}

/// Compares checkpoint `a` (before) with `b` (after).
pub fn diff(a: &Checkpoint, b: &Checkpoint) -> Diff {
    let mut d = Diff::default();
    let m = &mut d.metadata;
    change(m, "name", a.name.clone().into(), b.name.clone().into());
    change(
        m,
        "description",
        opt_str(&a.description),
        opt_str(&b.description),
    );
    change(m, "version", opt_str(&a.version), opt_str(&b.version));
    change(m, "creator", creator(&a.creator), creator(&b.creator));
    change(
        m,
        "dateCreated",
        a.date_created.clone().into(),
        b.date_created.clone().into(),
    );
    change(m, "@id", opt_str(&a.id), opt_str(&b.id));
    prop_changes(m, &a.additional_property, &b.additional_property, &[]);
    d.global_traits = traits(&a.rating, &b.rating);

    let ids_a: Vec<String> = a
        .items
        .iter()
        .enumerate()
        .map(|(i, it)| item_id(it, i))
        .collect();
    let ids_b: Vec<String> = b
        .items
        .iter()
        .enumerate()
        .map(|(i, it)| item_id(it, i))
        .collect();
    let pos_a: BTreeMap<&str, usize> = ids_a
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let pos_b: BTreeMap<&str, usize> = ids_b
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    for (i, id) in ids_a.iter().enumerate() {
        if !pos_b.contains_key(id.as_str()) {
            d.removed.push(QuestionRef {
                id: id.clone(),
                text: a.items[i].question.text.clone(),
            });
        }
    }
    for (i, id) in ids_b.iter().enumerate() {
        match pos_a.get(id.as_str()) {
            None => d.added.push(QuestionRef {
                id: id.clone(),
                text: b.items[i].question.text.clone(),
            }),
            Some(&j) => {
                if let Some(c) = question_change(&a.items[j], &b.items[i], id.clone()) {
                    d.changed.push(c);
                }
            }
        }
    }
    // Moved: the common questions outside a longest common subsequence of
    // their order (so one question moved is one move, not a shifted block).
    let common_a: Vec<&str> = ids_a
        .iter()
        .map(String::as_str)
        .filter(|s| pos_b.contains_key(s))
        .collect();
    let common_b: Vec<&str> = ids_b
        .iter()
        .map(String::as_str)
        .filter(|s| pos_a.contains_key(s))
        .collect();
    let deadline = Some(std::time::Instant::now() + DIFF_DEADLINE);
    for op in similar::capture_diff_slices_deadline(
        similar::Algorithm::Myers,
        &common_a,
        &common_b,
        deadline,
    ) {
        if let similar::DiffOp::Delete {
            old_index, old_len, ..
        } = op
        {
            for id in &common_a[old_index..old_index + old_len] {
                d.moved.push(Moved {
                    id: id.to_string(),
                    from: pos_a[id],
                    to: pos_b[id],
                });
            }
        }
        if let similar::DiffOp::Replace {
            old_index, old_len, ..
        } = op
        {
            for id in &common_a[old_index..old_index + old_len] {
                d.moved.push(Moved {
                    id: id.to_string(),
                    from: pos_a[id],
                    to: pos_b[id],
                });
            }
        }
    }
    d.moved.sort_by_key(|m| m.to);
    d
}
