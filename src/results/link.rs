//! Binding a results graph to the checkpoint it ran. The export names no
//! benchmark and a question ID can be in several checkpoints, so a results
//! graph is bound to the checkpoint the user names (`--for`), else to the one
//! loaded checkpoint that holds every question ID of the run; no match (an
//! orphan run) and several matches are reported. The binding is the triple
//! `<results graph> karenina:forBenchmark <checkpoint graph>` in the default
//! graph.

use crate::error::{Error, Result};
use crate::vocab;
use oxigraph::model::{GraphNameRef, NamedNode, Quad, Term};
use oxigraph::sparql::{QueryResults, SparqlEvaluator};
use oxigraph::store::Store;

/// How a results graph was bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Link {
    /// Bound to this checkpoint graph.
    Bound(String),
    /// No loaded checkpoint holds all of the run's question IDs.
    Orphan {
        /// Distinct question IDs in the run.
        questions: usize,
    },
    /// Several checkpoints hold them all; `--for` must choose.
    Ambiguous(Vec<String>),
}

fn count_rows(store: &Store, q: &str) -> Result<Vec<(String, usize)>> {
    let sparql_err = |e: &dyn std::fmt::Display| Error::Sparql(e.to_string());
    let results = SparqlEvaluator::new()
        .parse_query(q)
        .map_err(|e| sparql_err(&e))?
        .on_store(store)
        .execute()
        .map_err(|e| sparql_err(&e))?;
    let QueryResults::Solutions(sols) = results else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for s in sols {
        let s = s.map_err(|e| sparql_err(&e))?;
        let c = match s.get("c") {
            Some(Term::NamedNode(n)) => n.as_str().to_string(),
            _ => String::new(),
        };
        let n = match s.get("n") {
            Some(Term::Literal(l)) => l.value().parse().unwrap_or(0),
            _ => 0,
        };
        out.push((c, n));
    }
    Ok(out)
}

/// Binds `results` (a results graph) to `explicit` or to the one loaded
/// checkpoint holding all its question IDs, replacing an earlier binding.
pub fn link(store: &Store, results: &str, explicit: Option<&str>) -> Result<Link> {
    let k = |l: &str| format!("<{}>", vocab::karenina(l));
    let total = count_rows(
        store,
        &format!(
            "SELECT (COUNT(DISTINCT ?qid) AS ?n) WHERE {{ GRAPH <{results}> {{ ?r {} ?qid }} }}",
            k("questionId")
        ),
    )?
    .first()
    .map_or(0, |r| r.1);
    let link = match explicit {
        Some(c) => Link::Bound(c.to_string()),
        None => {
            let rows = count_rows(
                store,
                &format!(
                    "SELECT ?c (COUNT(DISTINCT ?qid) AS ?n) WHERE {{
                       GRAPH <{results}> {{ ?r {qid} ?qid }}
                       ?c a {cg} .
                       GRAPH ?c {{ ?item a <{item}> ; {id} ?qid }}
                     }} GROUP BY ?c",
                    qid = k("questionId"),
                    cg = k(vocab::k::CHECKPOINT_GRAPH),
                    item = vocab::schema("DataFeedItem"),
                    id = k(vocab::k::ID),
                ),
            )?;
            let mut full: Vec<String> = rows
                .into_iter()
                .filter(|(_, n)| *n == total && total > 0)
                .map(|(c, _)| c)
                .collect();
            full.sort();
            match full.len() {
                0 => Link::Orphan { questions: total },
                1 => Link::Bound(full.remove(0)),
                _ => Link::Ambiguous(full),
            }
        }
    };
    let r = NamedNode::new(results).map_err(|e| Error::Rdf(e.to_string()))?;
    let p = NamedNode::new_unchecked(vocab::karenina("forBenchmark"));
    let old: Vec<Quad> = store
        .quads_for_pattern(
            Some(r.as_ref().into()),
            Some(p.as_ref()),
            None,
            Some(GraphNameRef::DefaultGraph),
        )
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| Error::Rdf(e.to_string()))?;
    for q in &old {
        store.remove(q).map_err(|e| Error::Rdf(e.to_string()))?;
    }
    if let Link::Bound(c) = &link {
        let c = NamedNode::new(c.as_str()).map_err(|e| Error::Rdf(e.to_string()))?;
        store
            .insert(&Quad::new(r, p, c, GraphNameRef::DefaultGraph))
            .map_err(|e| Error::Rdf(e.to_string()))?;
    }
    Ok(link)
}
