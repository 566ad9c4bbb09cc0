//! Library-level integration tests: the corpus, the generator, diagnostics,
//! the manual (links, the diagnostics table, the query catalogue).

#[path = "../common/mod.rs"]
mod common;

mod architecture;
mod corpus;
mod diagnostics;
mod docs;
mod fresh_clone;
mod import_fuzz;
mod load;
mod merge;
mod merge_siege;
mod params;
mod preset;
mod properties;
mod public_surface;
mod rdf;
mod release_profile;
mod source_rules;
mod sparql_fuzz;
mod table;
mod table_sparql;
mod tiers;
