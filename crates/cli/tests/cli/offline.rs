//! kld contacts only the servers its user names (issue 30): a query's
//! `SERVICE` clause is refused by `kld query` and `kld serve`, with why and
//! what to do instead, before any answer is written.

use crate::kld;
use crate::serve::{client, serve};
use predicates::prelude::*;
use std::path::Path;

const FEDERATED: &str =
    "SELECT ?q ?x WHERE { ?q a schema:Question . SERVICE <http://127.0.0.1:9/sparql> { ?q ?p ?x } }";

#[test]
fn query_refuses_service_saying_why_and_what_to_do() {
    let probe = Path::new(env!("KLD_SOURCE_ROOT")).join("examples/probe.jsonld");
    kld()
        .arg("query")
        .arg(&probe)
        .args(["-e", FEDERATED])
        .assert()
        .code(1)
        .stdout("")
        .stderr(
            predicate::str::contains("SERVICE <http://127.0.0.1:9/sparql> is refused")
                .and(predicate::str::contains("offline"))
                .and(predicate::str::contains("federates"))
                .and(predicate::str::contains("kld push --server")),
        );
}

#[test]
fn serve_answers_service_with_400_and_the_reason() {
    let probe = Path::new(env!("KLD_SOURCE_ROOT")).join("examples/probe.jsonld");
    let s = serve(&[probe], &[]);
    let r = client()
        .get(format!("{}/sparql", s.base))
        .query(&[("query", FEDERATED)])
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let body = r.text().unwrap();
    assert!(
        body.contains("is refused") && body.contains("federates"),
        "{body}"
    );
    // The server contacted nothing and goes on answering.
    let ok = client()
        .get(format!("{}/sparql", s.base))
        .query(&[("query", "ASK { ?s ?p ?o }")])
        .header("Accept", "application/sparql-results+json")
        .send()
        .unwrap();
    assert_eq!(ok.status().as_u16(), 200);
}
