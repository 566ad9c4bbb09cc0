//! Library-level integration tests: the corpus, the generator, diagnostics.

#[path = "../common/mod.rs"]
mod common;

mod corpus;
mod diagnostics;
mod preset;
mod properties;
mod rdf;
mod source_rules;
mod sparql_fuzz;
