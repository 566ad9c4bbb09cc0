//! The rubric traits a checkpoint defines, as the trait-score queries
//! (`scores-by-trait`, `scores-by-trait-and-judge`) join them: so that the
//! results table answers those queries without the quads, it keeps each
//! bound checkpoint's ratings (global: the DataFeed's
//! `schema:contentRating`; question-specific: per item's `karenina:id`, its
//! `schema:item`'s `schema:contentRating`), each as the pairs (name, type)
//! its `schema:name` and `schema:additionalType` give.

use crate::store::CheckpointStore;
use crate::vocab;
use oxigraph::model::vocab::{rdf, xsd};
use oxigraph::model::{GraphNameRef, NamedNode, NamedNodeRef, NamedOrBlankNode, Term};
use oxigraph::store::Store;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A rating as the queries match it: (its `schema:name`, its
/// `schema:additionalType` in N-Triples: an IRI, or a literal where the
/// checkpoint's context did not type it `@id`), one pair per name and type
/// it has.
pub type Rating = (String, String);

/// The ratings of one checkpoint graph.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ratings {
    /// The benchmark's global traits (its DataFeed's ratings), each pair
    /// as often as the quads give it.
    pub global: Vec<Rating>,
    /// Question-specific traits by question ID (`karenina:id` of an item:
    /// every item of that ID adds its question's ratings).
    pub question: BTreeMap<String, Vec<Rating>>,
}

fn p(iri: &str) -> NamedNode {
    NamedNode::new_unchecked(iri)
}

/// A term as a subject (none for a literal).
fn subject(t: &Term) -> Option<NamedOrBlankNode> {
    match t {
        Term::NamedNode(n) => Some(n.clone().into()),
        Term::BlankNode(b) => Some(b.clone().into()),
        _ => None,
    }
}

/// A plain string literal's value: what equals a results graph's
/// `karenina:traitName` or `karenina:questionId` (both plain strings).
fn plain(t: &Term) -> Option<&str> {
    match t {
        Term::Literal(l) if l.datatype() == xsd::STRING && l.language().is_none() => {
            Some(l.value())
        }
        _ => None,
    }
}

struct Reader<'s> {
    store: &'s Store,
    graph: GraphNameRef<'s>,
}

impl Reader<'_> {
    fn objects(&self, s: &NamedOrBlankNode, pred: NamedNodeRef<'_>) -> Vec<Term> {
        self.store
            .quads_for_pattern(Some(s.as_ref()), Some(pred), None, Some(self.graph))
            .flatten()
            .map(|q| q.object)
            .collect()
    }

    fn typed(&self, class: NamedNodeRef<'_>) -> Vec<NamedOrBlankNode> {
        self.store
            .quads_for_pattern(None, Some(rdf::TYPE), Some(class.into()), Some(self.graph))
            .flatten()
            .map(|q| q.subject)
            .collect()
    }

    /// The (name, type) pairs of a rating node; `None` when a type is a
    /// blank node (the store's own label: the quads answer then).
    fn pairs(&self, rating: &Term, out: &mut Vec<Rating>) -> Option<()> {
        let Some(r) = subject(rating) else {
            return Some(());
        };
        let names: Vec<Term> = self.objects(&r, p(&vocab::schema("name")).as_ref());
        let types: Vec<Term> = self.objects(&r, p(&vocab::schema("additionalType")).as_ref());
        for ty in &types {
            if let Term::BlankNode(_) = ty {
                return None;
            }
            // (A name that is not a plain string matches no trait name.)
            for name in names.iter().filter_map(plain) {
                out.push((name.to_string(), ty.to_string()));
            }
        }
        Some(())
    }
}

/// The ratings of checkpoint graph `graph` in `store`; `None` when the
/// graph's shape is not one the table mirrors (not exactly one DataFeed
/// with one plain-string name, or a rating typed by a blank node): then the
/// trait-score queries are the quads'.
pub fn read(store: &CheckpointStore, graph: &str) -> Option<Ratings> {
    let g = NamedNode::new(graph).ok()?;
    let r = Reader {
        store: store.store(),
        graph: GraphNameRef::NamedNode(g.as_ref()),
    };
    let feeds = r.typed(p(&vocab::schema("DataFeed")).as_ref());
    let [feed] = feeds.as_slice() else {
        return None;
    };
    // (The table's benchmark name is a plain string.)
    match r
        .objects(feed, p(&vocab::schema("name")).as_ref())
        .as_slice()
    {
        [name] if plain(name).is_some() => {}
        _ => return None,
    }
    let rating = p(&vocab::schema("contentRating"));
    let mut out = Ratings::default();
    for t in r.objects(feed, rating.as_ref()) {
        r.pairs(&t, &mut out.global)?;
    }
    let id = p(&vocab::karenina("id"));
    let item = p(&vocab::schema("item"));
    for it in r.typed(p(&vocab::schema("DataFeedItem")).as_ref()) {
        let ids: Vec<String> = r
            .objects(&it, id.as_ref())
            .iter()
            .filter_map(plain)
            .map(str::to_string)
            .collect();
        if ids.is_empty() {
            continue;
        }
        let mut pairs = Vec::new();
        for q in r.objects(&it, item.as_ref()) {
            let Some(q) = subject(&q) else { continue };
            for t in r.objects(&q, rating.as_ref()) {
                r.pairs(&t, &mut pairs)?;
            }
        }
        if pairs.is_empty() {
            continue;
        }
        for qid in ids {
            out.question
                .entry(qid)
                .or_default()
                .extend(pairs.iter().cloned());
        }
    }
    Some(out)
}
