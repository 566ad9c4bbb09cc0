//! The endpoint's SPARQL 1.1 Service Description, answered at `GET /sparql`
//! without a query.
//!
//! Why: SPARQL clients (Comunica among them) fetch the endpoint's URL bare
//! to learn what it supports, and warned on the 400 kld answered there. The
//! description says what kld's endpoint is: SPARQL 1.1 Query only (updates
//! and `SERVICE` are refused), a default graph that is the union of the
//! named graphs, and the result formats [`super::negotiate`] offers. It is
//! RDF, so it is negotiated like any graph answer (Turtle unless the client
//! asks for JSON-LD or another RDF format).

use super::negotiate::negotiate_rdf;
use super::Answer;
use karenina_ld::export;
use oxigraph::model::{BlankNode, GraphName, NamedNode, NamedOrBlankNode, Quad, Term};

const SD: &str = "http://www.w3.org/ns/sparql-service-description#";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const FORMATS: &str = "http://www.w3.org/ns/formats/";

/// The result formats kld's endpoint writes, as W3C format IRIs.
const RESULT_FORMATS: &[&str] = &[
    "SPARQL_Results_JSON",
    "SPARQL_Results_XML",
    "SPARQL_Results_CSV",
    "SPARQL_Results_TSV",
    "Turtle",
    "N-Triples",
    "N-Quads",
    "TriG",
    "RDF_XML",
    "JSON-LD",
];

/// The description's triples for the endpoint at `endpoint`.
pub fn quads(endpoint: &str) -> Vec<Quad> {
    let node = |iri: String| NamedNode::new_unchecked(iri);
    let sd = |local: &str| node(format!("{SD}{local}"));
    let service = NamedOrBlankNode::from(BlankNode::default());
    let dataset = BlankNode::default();
    let default_graph = BlankNode::default();
    let mut out = Vec::new();
    let mut add = |s: NamedOrBlankNode, p: NamedNode, o: Term| {
        out.push(Quad::new(s, p, o, GraphName::DefaultGraph));
    };
    let a = || node(RDF_TYPE.into());
    add(service.clone(), a(), sd("Service").into());
    add(
        service.clone(),
        sd("endpoint"),
        node(endpoint.into()).into(),
    );
    add(
        service.clone(),
        sd("supportedLanguage"),
        sd("SPARQL11Query").into(),
    );
    add(
        service.clone(),
        sd("feature"),
        sd("UnionDefaultGraph").into(),
    );
    for f in RESULT_FORMATS {
        add(
            service.clone(),
            sd("resultFormat"),
            node(format!("{FORMATS}{f}")).into(),
        );
    }
    add(
        service.clone(),
        sd("defaultDataset"),
        dataset.clone().into(),
    );
    add(dataset.clone().into(), a(), sd("Dataset").into());
    add(
        dataset.into(),
        sd("defaultGraph"),
        default_graph.clone().into(),
    );
    add(default_graph.into(), a(), sd("Graph").into());
    out
}

/// The description negotiated by `Accept` / `format=` (Turtle by default);
/// 406 when the client accepts no RDF format.
pub fn answer(endpoint: &str, accept: Option<&str>, format: Option<&str>) -> Answer {
    let Some((f, media)) = negotiate_rdf(accept, format) else {
        return Answer::text(
            406,
            "the service description is RDF: accept text/turtle, application/ld+json or another RDF format",
        );
    };
    let mut body = Vec::new();
    match export::write(&quads(endpoint), f, false, &mut body) {
        Ok(()) => Answer {
            status: 200,
            content_type: media.into(),
            body,
        },
        Err(e) => super::error_answer(&e),
    }
}
