//! Quads of one checkpoint graph (lossless reading) → the typed checkpoint.
//!
//! The inverse of [`super::lossless`]: follows schema.org links from the
//! `schema:DataFeed` node, orders members by `karenina:position`, restores IDs
//! from `karenina:id`, free-form values from `rdf:JSON` literals and scalars from
//! their datatypes. The result goes through the same canonical writer as
//! `kld canon`, so both give identical bytes.

use crate::json::{self, Json, Number, Object};
use crate::model::*;
use crate::vocab::{self, RDF_JSON, RDF_TYPE, XSD_BOOLEAN, XSD_DOUBLE, XSD_INTEGER};
use oxigraph::model::{NamedOrBlankNode, Quad, Term};
use std::collections::HashMap;

type Props = Vec<(String, Term)>;

/// An index of one graph: subject → (predicate IRI, object).
pub struct GraphIndex {
    by_subject: HashMap<NamedOrBlankNode, Props>,
}

type R<T> = Result<T, String>;

impl GraphIndex {
    /// Indexes quads (their graph name is ignored).
    pub fn new(quads: impl IntoIterator<Item = Quad>) -> Self {
        let mut by_subject: HashMap<NamedOrBlankNode, Props> = HashMap::new();
        for q in quads {
            by_subject
                .entry(q.subject)
                .or_default()
                .push((q.predicate.into_string(), q.object));
        }
        GraphIndex { by_subject }
    }

    fn props(&self, s: &NamedOrBlankNode) -> &[(String, Term)] {
        self.by_subject.get(s).map(Vec::as_slice).unwrap_or(&[])
    }

    fn objects<'a, 'p>(
        &'a self,
        s: &NamedOrBlankNode,
        p: &'p str,
    ) -> impl Iterator<Item = &'a Term> + use<'a, 'p> {
        self.props(s)
            .iter()
            .filter(move |(q, _)| q == p)
            .map(|(_, o)| o)
    }

    fn literal<'a>(
        &'a self,
        s: &NamedOrBlankNode,
        p: &str,
    ) -> Option<&'a oxigraph::model::Literal> {
        self.objects(s, p).find_map(|t| match t {
            Term::Literal(l) => Some(l),
            _ => None,
        })
    }

    fn opt_str(&self, s: &NamedOrBlankNode, local: &str) -> Option<String> {
        self.literal(s, &vocab::schema(local))
            .map(|l| l.value().to_string())
    }

    fn req_str(&self, s: &NamedOrBlankNode, local: &str, what: &str) -> R<String> {
        self.opt_str(s, local)
            .ok_or_else(|| format!("{what} has no schema:{local}"))
    }

    fn k_str(&self, s: &NamedOrBlankNode, local: &str) -> Option<String> {
        self.literal(s, &vocab::karenina(local))
            .map(|l| l.value().to_string())
    }

    fn double(&self, s: &NamedOrBlankNode, local: &str) -> Option<f64> {
        self.literal(s, &vocab::schema(local))
            .and_then(|l| l.value().parse().ok())
    }

    fn json_of(&self, s: &NamedOrBlankNode, iri: &str) -> R<Option<Json>> {
        match self.literal(s, iri) {
            None => Ok(None),
            Some(l) => literal_json(l).map(Some),
        }
    }

    fn json(&self, s: &NamedOrBlankNode, local: &str) -> R<Option<Json>> {
        self.json_of(s, &vocab::schema(local))
    }

    fn has_type(&self, s: &NamedOrBlankNode, ty: &str) -> bool {
        self.objects(s, RDF_TYPE)
            .any(|t| matches!(t, Term::NamedNode(n) if n.as_str() == ty))
    }

    /// Linked nodes ordered by `karenina:position`.
    fn children(&self, s: &NamedOrBlankNode, iri: &str) -> Vec<NamedOrBlankNode> {
        let pos_iri = vocab::karenina(vocab::k::POSITION);
        let mut v: Vec<(i64, NamedOrBlankNode)> = self
            .objects(s, iri)
            .filter_map(|t| match t {
                Term::BlankNode(b) => Some(NamedOrBlankNode::BlankNode(b.clone())),
                Term::NamedNode(n) => Some(NamedOrBlankNode::NamedNode(n.clone())),
                _ => None,
            })
            .map(|n| {
                let p = self
                    .literal(&n, &pos_iri)
                    .and_then(|l| l.value().parse().ok())
                    .unwrap_or(i64::MAX);
                (p, n)
            })
            .collect();
        v.sort_by_key(|(p, _)| *p);
        v.into_iter().map(|(_, n)| n).collect()
    }

    fn child(&self, s: &NamedOrBlankNode, local: &str, what: &str) -> R<NamedOrBlankNode> {
        self.children(s, &vocab::schema(local))
            .into_iter()
            .next()
            .ok_or_else(|| format!("{what} has no schema:{local}"))
    }

    fn is_empty_list(&self, s: &NamedOrBlankNode, name: &str) -> bool {
        self.objects(s, &vocab::karenina(vocab::k::EMPTY_LIST))
            .any(|t| matches!(t, Term::Literal(l) if l.value() == name))
    }

    /// A list member (by its JSON term): `None` when absent, `Some(vec![])`
    /// when marked empty.
    fn list<T>(
        &self,
        s: &NamedOrBlankNode,
        term: &str,
        f: impl Fn(&Self, &NamedOrBlankNode) -> R<T>,
    ) -> R<Option<Vec<T>>> {
        // The canonical context maps the `rating` term to schema:contentRating.
        let local = if term == "rating" {
            "contentRating"
        } else {
            term
        };
        let kids = self.children(s, &vocab::schema(local));
        if kids.is_empty() {
            return Ok(self.is_empty_list(s, term).then(Vec::new));
        }
        kids.iter()
            .map(|k| f(self, k))
            .collect::<R<Vec<T>>>()
            .map(Some)
    }

    fn extra(&self, s: &NamedOrBlankNode) -> R<Extra> {
        match self.json_of(s, &vocab::karenina(vocab::k::EXTRA))? {
            None => Ok(Vec::new()),
            Some(Json::Object(o)) => Ok(o.0),
            Some(_) => Err("karenina:extra is not a JSON object".into()),
        }
    }

    /// All subjects typed `schema:DataFeed`.
    pub fn roots(&self) -> Vec<NamedOrBlankNode> {
        let feed = vocab::schema("DataFeed");
        self.by_subject
            .keys()
            .filter(|s| self.has_type(s, &feed))
            .cloned()
            .collect()
    }
}

fn literal_json(l: &oxigraph::model::Literal) -> R<Json> {
    let dt = l.datatype().as_str();
    let v = l.value();
    Ok(match dt {
        RDF_JSON => {
            json::parse(v.as_bytes()).map_err(|e| format!("bad rdf:JSON literal: {}", e.message))?
        }
        XSD_BOOLEAN => Json::Bool(v == "true" || v == "1"),
        XSD_INTEGER => match json::parse(v.as_bytes())
            .ok()
            .and_then(|j| j.as_number().cloned())
        {
            Some(n) if n.is_integer() => Json::Number(n),
            _ => return Err(format!("integer literal {v:?} is not a JSON integer")),
        },
        // Stores may rewrite a double's lexical form ("1.0" -> "1"): keep the
        // value and its float-ness, which is all Python's json.dump looks at.
        XSD_DOUBLE => match v.parse::<f64>() {
            Ok(f) if f.is_finite() => Json::Number(Number::from_f64(f)),
            _ => return Err(format!("double literal {v:?} is not a finite number")),
        },
        _ => Json::String(v.to_string()),
    })
}

/// Rebuilds the checkpoint stored in `index` (which must hold exactly one).
pub fn checkpoint(index: &GraphIndex) -> R<Checkpoint> {
    let roots = index.roots();
    let root = match roots.as_slice() {
        [r] => r.clone(),
        [] => return Err("no schema:DataFeed node in the graph".into()),
        _ => {
            return Err(format!(
                "{} schema:DataFeed nodes in one graph",
                roots.len()
            ))
        }
    };
    let g = index;
    let creator = if let Some(s) = g.opt_str(&root, "creator") {
        Some(Creator::Name(s))
    } else if let Some(p) = g
        .children(&root, &vocab::schema("creator"))
        .into_iter()
        .next()
    {
        Some(Creator::Person(Person {
            name: g.req_str(&p, "name", "creator")?,
            url: g.opt_str(&p, "url"),
            email: g.opt_str(&p, "email"),
            extra: g.extra(&p)?,
        }))
    } else {
        None
    };
    let items = g
        .children(&root, &vocab::schema("dataFeedElement"))
        .iter()
        .map(|n| item(g, n))
        .collect::<R<Vec<_>>>()?;
    Ok(Checkpoint {
        context: crate::context::canonical().clone(),
        id: g.k_str(&root, vocab::k::ID),
        name: g.req_str(&root, "name", "DataFeed")?,
        description: g.opt_str(&root, "description"),
        version: g.opt_str(&root, "version"),
        creator,
        date_created: g.req_str(&root, "dateCreated", "DataFeed")?,
        date_modified: g.req_str(&root, "dateModified", "DataFeed")?,
        rating: g.list(&root, "rating", rating)?,
        items,
        scenarios: g.list(&root, "hasPart", scenario)?,
        additional_property: g.list(&root, "additionalProperty", property)?,
        extra: g.extra(&root)?,
    })
}

fn item(g: &GraphIndex, n: &NamedOrBlankNode) -> R<Item> {
    let q = g.child(n, "item", "DataFeedItem")?;
    Ok(Item {
        id: g.k_str(n, vocab::k::ID),
        date_created: g.req_str(n, "dateCreated", "DataFeedItem")?,
        date_modified: g.req_str(n, "dateModified", "DataFeedItem")?,
        keywords: None,
        question: question(g, &q)?,
        extra: g.extra(n)?,
    })
}

fn question(g: &GraphIndex, n: &NamedOrBlankNode) -> R<Question> {
    let a = g.child(n, "acceptedAnswer", "Question")?;
    let c = g.child(n, "hasPart", "Question")?;
    let keywords = match g.json_of(n, &vocab::karenina(vocab::k::KEYWORD_LIST))? {
        None => None,
        Some(Json::Array(a)) => Some(
            a.into_iter()
                .map(|k| {
                    k.as_str()
                        .map(str::to_string)
                        .ok_or("keyword is not a string")
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(_) => return Err("karenina:keywordList is not an array".into()),
    };
    Ok(Question {
        id: g.k_str(n, vocab::k::ID),
        text: g.req_str(n, "text", "Question")?,
        accepted_answer: Answer {
            id: g.k_str(&a, vocab::k::ID),
            text: g.req_str(&a, "text", "Answer")?,
            extra: g.extra(&a)?,
        },
        template: SourceCode {
            id: g.k_str(&c, vocab::k::ID),
            name: g.req_str(&c, "name", "SoftwareSourceCode")?,
            text: g.req_str(&c, "text", "SoftwareSourceCode")?,
            code_repository: g.opt_str(&c, "codeRepository"),
            extra: g.extra(&c)?,
        },
        rating: g.list(n, "rating", rating)?,
        additional_property: g.list(n, "additionalProperty", property)?,
        keywords,
        extra: g.extra(n)?,
    })
}

fn rating(g: &GraphIndex, n: &NamedOrBlankNode) -> R<Rating> {
    let t = g.req_str(n, "additionalType", "Rating")?;
    Ok(Rating {
        id: g.k_str(n, vocab::k::ID),
        name: g.req_str(n, "name", "Rating")?,
        description: g.opt_str(n, "description"),
        best: g
            .double(n, "bestRating")
            .ok_or("Rating has no schema:bestRating")?,
        worst: g
            .double(n, "worstRating")
            .ok_or("Rating has no schema:worstRating")?,
        rating_value: g.double(n, "ratingValue"),
        rating_explanation: g.opt_str(n, "ratingExplanation"),
        kind: TraitType::parse(&t).ok_or_else(|| format!("unknown additionalType {t:?}"))?,
        additional_property: g.list(n, "additionalProperty", property)?,
        extra: g.extra(n)?,
    })
}

fn property(g: &GraphIndex, n: &NamedOrBlankNode) -> R<Property> {
    let value = match g.literal(n, &vocab::schema("value")) {
        None => None,
        Some(l) => Some(literal_json(l)?),
    };
    Ok(Property {
        name: g.req_str(n, "name", "PropertyValue")?,
        value,
        extra: g.extra(n)?,
    })
}

fn scenario(g: &GraphIndex, n: &NamedOrBlankNode) -> R<Scenario> {
    let nodes = g
        .children(n, &vocab::karenina(vocab::k::NODE))
        .iter()
        .map(|m| {
            let q = g.child(m, "question", "ScenarioNode")?;
            let key = g
                .k_str(m, vocab::k::KEY)
                .ok_or("scenario node has no karenina:key")?;
            Ok((
                key,
                ScenarioNode {
                    node_id: g.req_str(m, "nodeId", "ScenarioNode")?,
                    question: question(g, &q)?,
                    model_override: g.json(m, "modelOverride")?,
                    tool_filter: g.json(m, "toolFilter")?,
                    state_update_source: g.opt_str(m, "stateUpdateSource"),
                    question_data: g.json(m, "questionData")?,
                    agent_identity: g.json(m, "agentIdentity")?,
                    metadata: g
                        .json(m, "metadata")?
                        .unwrap_or(Json::Object(Object::new())),
                    extra: g.extra(m)?,
                },
            ))
        })
        .collect::<R<Vec<_>>>()?;
    let edges = g
        .children(n, &vocab::schema("edges"))
        .iter()
        .map(|e| {
            Ok(Edge {
                source: g.req_str(e, "source", "edge")?,
                target: g.req_str(e, "target", "edge")?,
                condition: g.json(e, "condition")?,
                condition_source: g.opt_str(e, "conditionSource"),
                handover: g.json(e, "handover")?,
                extra: g.extra(e)?,
            })
        })
        .collect::<R<Vec<_>>>()?;
    let outcome_criteria = g
        .children(n, &vocab::schema("outcomeCriteria"))
        .iter()
        .map(|o| {
            Ok(Outcome {
                name: g.req_str(o, "name", "outcome")?,
                description: g.opt_str(o, "description").unwrap_or_default(),
                check: g.json(o, "check")?,
                evaluate_source: g.opt_str(o, "evaluateSource"),
                extra: g.extra(o)?,
            })
        })
        .collect::<R<Vec<_>>>()?;
    Ok(Scenario {
        name: g.req_str(n, "name", "Scenario")?,
        description: g.opt_str(n, "description").unwrap_or_default(),
        entry_node: g.req_str(n, "entryNode", "Scenario")?,
        nodes,
        edges,
        outcome_criteria,
        metadata: g
            .json(n, "metadata")?
            .unwrap_or(Json::Object(Object::new())),
        extra: g.extra(n)?,
    })
}
