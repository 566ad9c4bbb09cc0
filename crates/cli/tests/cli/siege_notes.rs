//! The notes kld attaches to a query's answer (a known trap its author fell
//! into: `http://schema.org/` over kld's `https://schema.org/` data, a
//! product of decimals left unbound) reach a `kld serve` client too (issue
//! 48's leftover): one `Kld-Note` header each, on the computed answer and on
//! the same answer from the cache; the body stays the protocol's SPARQL
//! JSON, and a query that fell into no trap has none.

use super::serve::{client, serve};
use serde_json::Value;
use std::path::Path;

const HTTP_SCHEMA: &str =
    "PREFIX schema: <http://schema.org/> SELECT ?q WHERE { ?q a schema:Question }";

const VARIANCE: &str = "SELECT (AVG((?x - ?m) * (?x - ?m)) AS ?var) WHERE {
   VALUES ?x { 1.5 2.25 3.125 }
   { SELECT (AVG(?y) AS ?m) WHERE { VALUES ?y { 1.5 2.25 3.125 } } } }";

#[test]
fn kld_serve_sends_a_query_s_notes_as_headers() {
    let probe = Path::new(env!("KLD_SOURCE_ROOT")).join("examples/probe.jsonld");
    let s = serve(&[probe], &[]);
    let c = client();
    let ask = |q: &str| {
        let r = c
            .post(format!("{}/sparql", s.base))
            .header("Accept", "application/sparql-results+json")
            .form(&[("query", q)])
            .send()
            .unwrap();
        assert_eq!(r.status(), 200);
        let notes: Vec<String> = r
            .headers()
            .get_all("kld-note")
            .iter()
            .map(|v| v.to_str().unwrap().to_string())
            .collect();
        let cache = r.headers()["x-kld-cache"].to_str().unwrap().to_string();
        let body: Value = serde_json::from_slice(&r.bytes().unwrap()).unwrap();
        (notes, cache, body)
    };
    for round in ["miss", "hit"] {
        let (notes, cache, body) = ask(HTTP_SCHEMA);
        assert_eq!(cache, round);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("<http://schema.org/Question>")
                && notes[0].contains("https://schema.org/"),
            "{notes:?}"
        );
        // The answer is SPARQL JSON as ever: no rows.
        assert_eq!(body["results"]["bindings"], serde_json::json!([]));
        let (notes, _, body) = ask(VARIANCE);
        assert!(
            notes.len() == 1 && notes[0].contains("?var in 1 of 1 rows"),
            "{notes:?}"
        );
        assert_eq!(body["head"]["vars"], serde_json::json!(["var"]));
    }
    let (notes, _, body) = ask("SELECT ?q WHERE { ?q a <https://schema.org/Question> }");
    assert!(notes.is_empty(), "{notes:?}");
    assert!(!body["results"]["bindings"].as_array().unwrap().is_empty());
}
