//! `kld export -f inspect|croissant|eee`: the formats the field shares
//! (`karenina_ld::interop`).

use super::rdf::ExportArgs;
use super::{INVALID, OK};
use anyhow::{bail, Context};
use karenina_ld::{fsutil, interop, model};
use std::path::{Path, PathBuf};

/// An interop format of `kld export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interop {
    /// Inspect AI JSON Lines samples.
    Inspect,
}

impl Interop {
    /// From `-f`'s value.
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "inspect" | "inspect-ai" => Some(Self::Inspect),
            _ => None,
        }
    }
}

/// Runs an interop export.
pub fn export(kind: Interop, a: ExportArgs) -> anyhow::Result<u8> {
    if a.store.is_some() || a.plain || a.union || a.expanded || a.canonical {
        bail!("--store, --plain, --union, --expanded and --canonical are for RDF formats");
    }
    match kind {
        Interop::Inspect => {
            let (cp, out) = one_checkpoint(&a, "inspect")?;
            let Some(cp) = cp else { return Ok(INVALID) };
            write_out(
                out.as_deref(),
                interop::inspect::samples_jsonl(&cp).as_bytes(),
            )
        }
    }
}

/// The one checkpoint a benchmark format describes; `None` when it has
/// errors (reported).
fn one_checkpoint(
    a: &ExportArgs,
    what: &str,
) -> anyhow::Result<(Option<model::Checkpoint>, Option<PathBuf>)> {
    let [file] = a.inputs.as_slice() else {
        bail!("-f {what} describes one checkpoint: give exactly one CHECKPOINT file");
    };
    Ok((read(file)?, a.output.clone()))
}

/// Reads a checkpoint, printing its errors.
pub(super) fn read(file: &Path) -> anyhow::Result<Option<model::Checkpoint>> {
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    match model::read_checkpoint(file, &bytes, model::ReadOptions::default()) {
        Ok(cp) => Ok(Some(cp)),
        Err(karenina_ld::Error::Invalid(report)) => {
            for d in report.errors() {
                eprintln!("{}", report.render(d));
            }
            eprintln!("{}: not exported: the file has errors", file.display());
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// Writes to `out` atomically, or to stdout.
fn write_out(out: Option<&Path>, bytes: &[u8]) -> anyhow::Result<u8> {
    match out {
        Some(o) => fsutil::write_atomic(o, bytes)?,
        None => {
            use std::io::Write;
            let mut so = std::io::stdout().lock();
            so.write_all(bytes)?;
            so.flush()?;
        }
    }
    Ok(OK)
}
