//! A query's answer as typed terms rather than bytes, for embedders that
//! hand values on (the Python package turns them into Python values).
//!
//! The answer is produced by [`run_parsed`] itself (in SPARQL JSON for
//! solutions and booleans, N-Triples for graphs) and read back with
//! Oxigraph's parsers, so that the union default graph, the predefined
//! prefixes, the depth bound, the time limit, the byte limit and
//! cancellation are exactly those of `kld query` and the endpoint: one code
//! path, not a second evaluator loop to keep in step.

use super::{run_parsed, Parsed, QueryForm, QueryOptions, ResultFormat};
use crate::error::{Error, Result};
use crate::export::ExportFormat;
use oxigraph::io::{RdfFormat, RdfParser};
use oxigraph::model::{Term, Triple};
use oxigraph::sparql::results::{
    QueryResultsFormat, QueryResultsParser, SliceQueryResultsParserOutput,
};
use oxigraph::store::Store;

/// A query's answer, typed.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// SELECT: the projected variables (without `?`) and one row per
    /// solution, `None` where a variable is unbound.
    Solutions {
        /// Variable names, in projection order.
        variables: Vec<String>,
        /// Rows, each as long as `variables`.
        rows: Vec<Vec<Option<Term>>>,
    },
    /// ASK.
    Boolean(bool),
    /// CONSTRUCT and DESCRIBE.
    Graph(Vec<Triple>),
}

/// Runs `parsed` as [`run_parsed`] does (same dataset, limits and
/// cancellation) and returns its answer as terms.
pub fn answer(store: &Store, parsed: &Parsed, opts: &QueryOptions) -> Result<Answer> {
    let mut buf = Vec::new();
    if parsed.form.is_graph() {
        run_parsed(
            store,
            parsed,
            opts,
            ResultFormat::Rdf(ExportFormat::NTriples),
            &mut buf,
        )?;
        let triples = RdfParser::from_format(RdfFormat::NTriples)
            .for_slice(&buf)
            .map(|q| q.map(Triple::from))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| Error::Internal(format!("re-reading an answer: {e}")))?;
        return Ok(Answer::Graph(triples));
    }
    run_parsed(store, parsed, opts, ResultFormat::Json, &mut buf)?;
    let reread = |e: &dyn std::fmt::Display| Error::Internal(format!("re-reading an answer: {e}"));
    match QueryResultsParser::from_format(QueryResultsFormat::Json)
        .for_slice(&buf)
        .map_err(|e| reread(&e))?
    {
        SliceQueryResultsParserOutput::Boolean(b) => Ok(Answer::Boolean(b)),
        SliceQueryResultsParserOutput::Solutions(solutions) => {
            let variables = solutions
                .variables()
                .iter()
                .map(|v| v.as_str().to_string())
                .collect();
            let rows = solutions
                .map(|s| s.map(|s| s.values().to_vec()))
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|e| reread(&e))?;
            debug_assert_eq!(parsed.form, QueryForm::Select);
            Ok(Answer::Solutions { variables, rows })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxigraph::model::{GraphNameRef, Literal, NamedNodeRef, QuadRef};

    fn store() -> Store {
        let s = Store::new().unwrap();
        for i in 0..3 {
            s.insert(QuadRef::new(
                NamedNodeRef::new_unchecked("urn:s"),
                NamedNodeRef::new_unchecked("urn:p"),
                &Literal::from(i),
                // A named graph: the union default graph must see it.
                GraphNameRef::NamedNode(NamedNodeRef::new_unchecked("urn:g")),
            ))
            .unwrap();
        }
        s
    }

    #[test]
    fn every_form_answers_in_terms_over_the_union_graph() {
        let s = store();
        let opts = QueryOptions::default();
        let q = |text: &str| answer(&s, &super::super::parse(text).unwrap(), &opts).unwrap();
        let Answer::Solutions { variables, rows } =
            q("SELECT ?o ?none WHERE { ?s ?p ?o } ORDER BY ?o")
        else {
            panic!("not solutions")
        };
        assert_eq!(variables, ["o", "none"]);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[2][0], Some(Term::from(Literal::from(2))));
        assert_eq!(rows[2][1], None);
        assert_eq!(q("ASK { ?s ?p 1 }"), Answer::Boolean(true));
        let Answer::Graph(g) = q("CONSTRUCT { ?s <urn:q> ?o } WHERE { ?s ?p ?o }") else {
            panic!("not a graph")
        };
        assert_eq!(g.len(), 3);
    }

    #[test]
    fn limits_and_cancellation_are_those_of_run() {
        let s = store();
        let opts = QueryOptions {
            max_result_bytes: Some(10),
            ..QueryOptions::default()
        };
        let parsed = super::super::parse("SELECT * WHERE { ?s ?p ?o }").unwrap();
        let e = answer(&s, &parsed, &opts).unwrap_err();
        assert!(matches!(e, Error::ResultTooLarge { limit: 10 }), "{e}");
        let opts = QueryOptions::default();
        opts.control.cancel();
        let e = answer(&s, &parsed, &opts).unwrap_err();
        assert!(matches!(e, Error::Cancelled), "{e}");
    }
}
