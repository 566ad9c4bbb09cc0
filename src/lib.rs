//! karenina-ld: a linked-data processor for Karenina benchmark checkpoints.
//!
//! Data flows one way: bytes → [`json`] (ordered tree, located errors) →
//! [`model`] (typed checkpoint, Karenina's load rules, lints) → [`canonical`]
//! (Karenina's exact bytes). The RDF side (expansion, store, SPARQL, export)
//! builds on the same model. The library never prints or exits; `kld` is a thin
//! command-line front end over it.
//!
//! ```
//! use karenina_ld::model::qid::question_id;
//! assert_eq!(
//!     question_id("What is the capital of France?"),
//!     "urn:uuid:question-what-is-the-capital-of-france-cb0b4aaf"
//! );
//! ```

#![warn(missing_docs)]

pub mod c14n;
pub mod canonical;
pub mod context;
pub mod diagnostics;
pub mod diff;
pub mod error;
pub mod export;
pub mod fsutil;
pub mod info;
pub mod interop;
pub mod json;
pub mod kind;
pub mod model;
pub mod preset;
pub mod pyjson;
pub mod rdf;
#[cfg(feature = "remote")]
pub mod remote;
pub mod results;
#[cfg(feature = "serve")]
pub mod serve;
pub mod sparql;
pub mod store;
pub mod vocab;

pub use error::{Diagnostic, Error, Report, Result, Severity};

/// The former name of [`sparql`].
pub use sparql as query;
