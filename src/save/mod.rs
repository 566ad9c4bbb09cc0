//! Canonical checkpoint files: the exact bytes Karenina's own `save()` writes.
//!
//! `kld canon` goes file → typed model → [`write_checkpoint`]; the store round
//! trip (RDF → model) ends in the same writer, so both give identical bytes.

mod writer;

pub use writer::{write_checkpoint, WriteOptions};

use crate::error::{Error, Report, Result};
use crate::model::{self, ReadOptions};
use std::path::Path;

/// Reads `bytes` (the contents of `file`) and writes the canonical form.
/// Returns the canonical text and the report (warnings); errors are `Err`.
pub fn canonicalize(
    file: &Path,
    bytes: &[u8],
    read: ReadOptions,
    write: &WriteOptions,
) -> Result<(String, Report)> {
    let a = model::analyze(file, bytes, read);
    match a.checkpoint {
        Some(cp) if !a.report.has_errors() => Ok((write_checkpoint(&cp, write), a.report)),
        _ => Err(Error::Invalid(Box::new(a.report))),
    }
}
