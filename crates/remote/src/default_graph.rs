//! Whether a server's default graph is the union of its named graphs.
//!
//! Why: kld pushes each checkpoint into a named graph of its own, and the
//! catalogue's queries read the default graph (as kld's local store, whose
//! default graph is the union of all graphs). On a server whose default
//! graph is a graph of its own (Oxigraph without `--union-default-graph`,
//! Fuseki without `unionDefaultGraph`), every such query answers with a
//! header and no rows, which looks like "no data" rather than "wrong
//! setting". Two small queries tell the difference: a triple of some named
//! graph, then an `ASK` for it against the default graph.

use super::RemoteClient;
use karenina_ld::error::{Error, Result};

/// What a server's default graph holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DefaultGraph {
    /// A triple of a named graph is in the default graph too.
    Union,
    /// A triple of `graph` is not in the default graph: the default graph
    /// is a graph of its own.
    Separate {
        /// The named graph whose triple the default graph lacks.
        graph: String,
    },
    /// The server has no named graph holding a triple with an IRI subject,
    /// so there is nothing to tell by.
    Unknown,
}

/// How to make the default graph the union of the named graphs, server by
/// server (for a warning that follows [`DefaultGraph::Separate`]).
pub const UNION_FIXES: &str = "Oxigraph: start it with `oxigraph serve --union-default-graph`; \
Fuseki: set `tdb2:unionDefaultGraph true` on the TDB2 dataset (`tdb:unionDefaultGraph` for TDB1) in its configuration; \
Virtuoso: its default graph is the union of all graphs unless a `define input:default-graph-uri` or a default graph is configured for the endpoint: remove it; \
QLever: its default graph is the union of all graphs: rebuild the index if it was built otherwise";

/// Asks the server (two read-only queries) whether its default graph is
/// the union of its named graphs.
pub fn check(client: &RemoteClient) -> Result<DefaultGraph> {
    let find = "SELECT ?g ?s ?p WHERE { GRAPH ?g { ?s ?p ?o } FILTER(isIRI(?s)) } LIMIT 1";
    let body = json(client, find)?;
    let Some(row) = body["results"]["bindings"].get(0) else {
        return Ok(DefaultGraph::Unknown);
    };
    let value = |v: &str| row[v]["value"].as_str().map(str::to_string);
    let (Some(graph), Some(s), Some(p)) = (value("g"), value("s"), value("p")) else {
        return Ok(DefaultGraph::Unknown);
    };
    let (s, p) = (iri(&s)?, iri(&p)?);
    let ask = json(client, &format!("ASK {{ {s} {p} ?o }}"))?;
    match ask["boolean"].as_bool() {
        Some(true) => Ok(DefaultGraph::Union),
        Some(false) => Ok(DefaultGraph::Separate { graph }),
        None => Err(answer_error("its ASK answer has no boolean")),
    }
}

/// `<iri>`, checked (an answer is data from elsewhere: it must not end up
/// as query text of its own).
fn iri(v: &str) -> Result<String> {
    oxigraph::model::NamedNode::new(v)
        .map(|n| n.to_string())
        .map_err(|e| answer_error(&format!("{v:?} is not an IRI: {e}")))
}

fn json(client: &RemoteClient, sparql: &str) -> Result<serde_json::Value> {
    let body = client.query(sparql, "application/sparql-results+json")?;
    serde_json::from_slice(&body)
        .map_err(|e| answer_error(&format!("its SPARQL results do not parse: {e}")))
}

fn answer_error(reason: &str) -> Error {
    Error::RemoteAnswer {
        what: "default-graph check".into(),
        reason: reason.into(),
    }
}
