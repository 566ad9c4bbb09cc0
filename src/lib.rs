//! karenina-ld: a linked-data processor for Karenina benchmark checkpoints.
//!
//! The library holds all the logic; `kld` (crate `karenina-ld-cli`) is a
//! thin command-line front end, `karenina-ld-serve` a thin HTTP layer over
//! it and `karenina-ld-remote` its SPARQL-protocol client. The library never
//! prints or exits, and its errors are typed ([`Error`], [`Report`]).
//!
//! # Data flow
//!
//! Data flows one way, each stage owned by one module:
//!
//! ```text
//! file bytes ─► json ─► model ─────────────► canonical ─► Karenina's exact bytes
//!  (ordered tree,  (typed checkpoint,      ▲
//!   located errors) load rules, lints)     │ rdf::checkpoint_from_quads
//!                    │                     │
//!                    ▼ rdf (lossless quads; JSON-LD by the json-ld crate
//!                    │      against context/, cross-checked with Oxigraph's)
//! results exports,   ▼
//! run folders, ───► store (Oxigraph, one named graph per file, bindings)
//! databases          │      ▲ kind (what a file is, by content)
//!  (results)         ▼
//!                  sparql (catalogue, limits, deadlines, result formats)
//!                    │
//!                    ├─► export (N-Triples … JSON-LD), interop (Croissant, EEE, Inspect)
//!                    ├─► (crates/serve: SPARQL endpoint, page; crates/remote: push/fetch/query servers)
//!                    └─► rdfc (RDFC-1.0 hashes), diff (semantic diff)
//! ```
//!
//! # API entry points
//!
//! What the faces (the `kld` command line, `kld serve`, the SPARQL client,
//! the Python module) call, and what an embedder starts from:
//!
//! | to … | call |
//! |---|---|
//! | read a checkpoint (Karenina's load rules, lints) | [`model::read_checkpoint`], [`model::analyze`] |
//! | write Karenina's exact bytes | [`save::write_checkpoint`] |
//! | load files into a store, bind runs to checkpoints | [`store::CheckpointStore`] (`load_files`, `bind`) |
//! | tell what inputs are, by content | [`kind::find`] |
//! | run a bounded SPARQL query, find a catalogue query | [`sparql::run`], [`sparql::find`] |
//! | map checkpoints and results to quads | [`rdf::lossless_quads`], [`rdf::verification::map_path`] |
//! | Karenina's numbers of a run (`kld info RESULTS`) | [`numbers::tally::summarize`] |
//! | count what a checkpoint holds (`kld info CHECKPOINT`) | [`contents::count`] |
//! | the leaderboard and the matrix | [`board::read`] |
//! | import sheets and datasets as checkpoints | [`import::import`] |
//! | merge and diff checkpoints | [`merge::merge`], [`diff::diff`] |
//! | RDFC-1.0 hashes, RDF serializations | [`rdfc::hash_checkpoint`], [`export::write`] |
//! | Croissant, Every Eval Ever, Inspect AI | [`interop`] |
//! | intervals, paired comparisons, judge agreement | [`stats`] |
//!
//! What semver covers: these modules as listed below and their documented
//! public items; `pub(crate)` and `#[doc(hidden)]` items are internals
//! (ARCHITECTURE.md, "API boundary"). Modules such as [`json`], [`fsutil`],
//! [`terminal`] and [`vocab`] are public because the faces share them, not
//! as a general-purpose API.
//!
//! # Examples
//!
//! Read a checkpoint and write the bytes Karenina writes:
//!
//! ```
//! use karenina_ld::save::{write_checkpoint, WriteOptions};
//! use karenina_ld::model::{read_checkpoint, ReadOptions};
//! use std::path::Path;
//!
//! let file = Path::new("examples/notebook.jsonld");
//! let bytes = std::fs::read(file)?;
//! let checkpoint = read_checkpoint(file, &bytes, ReadOptions::default())?;
//! let canonical = write_checkpoint(&checkpoint, &WriteOptions::default());
//! // The bundled example is already canonical.
//! assert_eq!(canonical.as_bytes(), &bytes[..]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Load checkpoints into an in-memory store and run a catalogue query:
//!
//! ```
//! use karenina_ld::rdf::Processor;
//! use karenina_ld::sparql::{self, ResultFormat};
//! use karenina_ld::store::CheckpointStore;
//! use std::path::PathBuf;
//! use std::time::Duration;
//!
//! let mut store = CheckpointStore::in_memory()?;
//! let files = vec![PathBuf::from("examples/notebook.jsonld")];
//! for (file, loaded) in store.load_files(&files, Processor::Direct, &|_, _| ()) {
//!     let info = loaded?;
//!     println!("{} -> {} ({} quads)", file.display(), info.graph, info.quads);
//! }
//! let query = sparql::find("benchmark-stats").expect("in the catalogue");
//! let mut csv = Vec::new();
//! let rows = sparql::run(store.store(), query.text, Duration::from_secs(10), ResultFormat::Csv, &mut csv)?;
//! assert_eq!(rows, 1);
//! assert!(String::from_utf8(csv)?.starts_with("graph,"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Question IDs are computed as Karenina computes them:
//!
//! ```
//! use karenina_ld::model::qid::question_id;
//! assert_eq!(
//!     question_id("What is the capital of France?"),
//!     "urn:uuid:question-what-is-the-capital-of-france-cb0b4aaf"
//! );
//! ```
//!
//! A checkpoint's RDFC-1.0 hash (what `kld hash` prints) is stable under
//! reformatting and reordering:
//!
//! ```
//! use karenina_ld::model::{read_checkpoint, ReadOptions};
//! use std::path::Path;
//!
//! let file = Path::new("examples/notebook.jsonld");
//! let checkpoint = read_checkpoint(file, &std::fs::read(file)?, ReadOptions::default())?;
//! let hash = karenina_ld::rdfc::hash_checkpoint(&checkpoint)?;
//! assert_eq!(hash.len(), 64);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Results exports load beside their checkpoints; [`store::CheckpointStore::bind`]
//! then links each run to the checkpoint it ran (and folds duplicate exports
//! of one run), as every `kld` command does after loading. Without it, runs
//! are unbound and the per-benchmark queries answer nothing:
//!
//! ```
//! use karenina_ld::rdf::Processor;
//! use karenina_ld::sparql::{self, ResultFormat};
//! use karenina_ld::store::CheckpointStore;
//! use std::path::PathBuf;
//! use std::time::Duration;
//!
//! let mut store = CheckpointStore::in_memory()?;
//! let files = [
//!     PathBuf::from("examples/notebook.jsonld"),
//!     PathBuf::from("examples/runs/notebook.verification.json"),
//! ];
//! for (_, loaded) in store.load_files(&files, Processor::Direct, &|_, _| ()) {
//!     loaded?;
//! }
//! store.bind(&[])?;
//! let q = sparql::find("pass-rate-by-benchmark").expect("in the catalogue");
//! let rows = sparql::run(store.store(), q.text, Duration::from_secs(10), ResultFormat::Csv, &mut Vec::new())?;
//! assert!(rows > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Embedding
//!
//! The SPARQL time limits and the panic-free ORDER BY depend on the patched
//! evaluator in `vendor/spareval`. Cargo applies a `[patch]` section only in
//! the workspace that builds, so an application depending on karenina-ld
//! adds it to its own `Cargo.toml` (the build stops with this advice when
//! it is missing):
//!
//! ```toml
//! [patch.crates-io]
//! spareval = { path = "<path to karenina-ld>/vendor/spareval" }
//! ```

#![warn(missing_docs)]
// A type the API hands out is one a user can name (ARCHITECTURE.md, "API
// boundary"): demoting a module must not hide a type its public items return.
#![warn(unnameable_types)]
// One module-file style: a module with children is `foo/mod.rs`, never
// `foo.rs` beside `foo/` (ARCHITECTURE.md, "Cross-cutting concerns").
#![deny(clippy::self_named_module_files)]

pub mod board;
pub mod codes;
pub mod contents;
pub mod context;
pub mod diff;
pub mod duration;
pub mod error;
pub mod export;
pub mod fsutil;
pub mod import;
pub mod interop;
pub mod json;
pub mod kind;
pub mod manuscript;
pub mod memory;
pub mod merge;
pub mod model;
pub mod numbers;
pub mod preset;
pub mod pyre;
pub mod rdf;
pub mod rdfc;
pub mod results;
pub mod save;
pub mod search;
pub mod sparql;
pub mod sqlite;
pub mod stats;
pub mod store;
pub mod table;
pub mod terminal;
pub mod vocab;

pub use error::{Diagnostic, Error, Report, Result, Severity};

/// This library's version (what `kld --version` prints).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The Oxigraph crate this library builds on (its store, terms and formats
/// appear in this API), re-exported so embedders need not pin it themselves.
pub use oxigraph;
