//! The classes and predicates the page's editor offers as completions,
//! computed once per store generation and kept.
//!
//! Why it exists: the editor used to ask for them with a SPARQL query that
//! reads every quad, sent when it was first focused (about 1 s on 629k
//! quads, each time a page opened) and kept nowhere but that page. Now the
//! warm-up ([`super::warm`]) computes them after loading and after every
//! reload, `GET /vocabulary` answers from what it kept, and only a request
//! that comes before the warm-up got to it computes them (and keeps them).

use super::{Answer, SparqlRequest, State};
use axum::body::Bytes;

/// The query: up to 2,000 classes and 2,000 predicates, in the default
/// graph and every named graph, as `?kind` ("class" or "predicate") and
/// `?term`.
pub const QUERY: &str = "SELECT ?kind ?term WHERE {
  {
    { SELECT DISTINCT ?term WHERE { { ?s a ?term } UNION { GRAPH ?g { ?s a ?term } } } LIMIT 2000 }
    BIND(\"class\" AS ?kind)
  } UNION {
    { SELECT DISTINCT ?term WHERE { { ?s ?term ?o } UNION { GRAPH ?g { ?s ?term ?o } } } LIMIT 2000 }
    BIND(\"predicate\" AS ?kind)
  }
}";

/// The vocabulary of one store generation: SPARQL JSON results.
#[derive(Clone, Debug)]
pub(super) struct Kept {
    generation: u64,
    body: Bytes,
}

impl State {
    /// The vocabulary of the current store (SPARQL JSON), as kept, or
    /// computed now and kept for this generation.
    pub fn vocabulary(&self) -> Answer {
        let generation = self.generation();
        let body = match self.kept_vocabulary(generation) {
            Some(b) => b,
            None => match self.compute_vocabulary(generation, None) {
                Ok(b) => b,
                Err(a) => return a,
            },
        };
        Answer {
            status: 200,
            content_type: "application/sparql-results+json".into(),
            body: body.to_vec(),
        }
    }

    /// The generation whose vocabulary is kept, if any (for `/cache`).
    pub(super) fn vocabulary_generation(&self) -> Option<u64> {
        self.vocabulary
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|k| k.generation)
    }

    fn kept_vocabulary(&self, generation: u64) -> Option<Bytes> {
        self.vocabulary
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .filter(|k| k.generation == generation)
            .map(|k| k.body.clone())
    }

    /// Computes the vocabulary at `generation` and keeps it, unless the
    /// store changed meanwhile (then it is returned, not kept). `control`
    /// receives the query's control before it runs (the warm-up's, which a
    /// change of the store cancels).
    pub(super) fn compute_vocabulary(
        &self,
        generation: u64,
        control: Option<&dyn Fn(crate::sparql::Control)>,
    ) -> Result<Bytes, Answer> {
        let req = SparqlRequest {
            query: Some(QUERY.to_string()),
            format: Some("json".into()),
            ..SparqlRequest::default()
        };
        let prepared = self.prepare(&req, None)?;
        if let Some(c) = control {
            c(prepared.control());
        }
        let mut body = Vec::new();
        self.run_prepared(&prepared, &mut body)?;
        let body = Bytes::from(body);
        if self.generation() == generation {
            *self.vocabulary.lock().unwrap_or_else(|e| e.into_inner()) = Some(Kept {
                generation,
                body: body.clone(),
            });
        }
        Ok(body)
    }
}
