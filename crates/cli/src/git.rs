//! `kld diff`, `kld hash`: checkpoints under git.

use super::{ReportFormat, INVALID, OK, USAGE};
use karenina_ld::diff::{self, Style};
use karenina_ld::model::{self, ReadOptions};
use karenina_ld::rdf::{self, Processor};
use karenina_ld::terminal::escape_controls as esc;
use karenina_ld::{rdfc, Error};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `kld diff`.
#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// The checkpoint before.
    pub a: PathBuf,
    /// The checkpoint after.
    pub b: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ReportFormat,
    /// Colour the text output: auto (on a terminal), always, never.
    #[arg(long, value_enum, default_value_t = clap::ColorChoice::Auto)]
    pub color: clap::ColorChoice,
}

/// Arguments of `kld hash`.
#[derive(clap::Args, Debug)]
pub struct HashArgs {
    /// Checkpoint files or directories.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Hash the plain JSON-LD reading (base IRI https://karenina-ld.invalid/) instead of the lossless graph.
    #[arg(long)]
    pub plain: bool,
    /// Output format: `HASH  FILE` lines (as sha256sum), or one JSON document.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ReportFormat,
}

/// The base IRI of the plain reading when hashing: fixed, so that a file's
/// hash does not depend on where it lies.
pub const PLAIN_BASE: &str = "https://karenina-ld.invalid/";

fn read(p: &Path) -> Result<model::Checkpoint, u8> {
    if let Some(m) = super::inputs::wrong_kind(p, &[karenina_ld::kind::Kind::Checkpoint]) {
        eprintln!("kld: {m}");
        return Err(USAGE);
    }
    let bytes = match karenina_ld::fsutil::read_input(p) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("kld: {e}");
            return Err(USAGE);
        }
    };
    model::read_checkpoint(p, &bytes, ReadOptions::default()).map_err(|e| {
        match &e {
            Error::Invalid(report) => {
                for d in report.errors() {
                    eprintln!("{}", report.render(d));
                }
            }
            other => eprintln!("kld: {other}"),
        }
        USAGE
    })
}

pub fn diff(a: DiffArgs) -> anyhow::Result<u8> {
    let (ca, cb) = match (read(&a.a), read(&a.b)) {
        (Ok(x), Ok(y)) => (x, y),
        _ => return Ok(USAGE),
    };
    let d = diff::diff(&ca, &cb);
    let mut out = std::io::stdout().lock();
    match a.format {
        ReportFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &d)?;
            writeln!(out)?;
        }
        ReportFormat::Text => {
            let color = super::color_choice(a.color);
            out.write_all(d.render(Style { color }).as_bytes())?;
        }
    }
    Ok(if d.is_empty() { OK } else { INVALID })
}

/// The hash of one file: lossless graph (default graph, so the file's
/// location does not matter) or plain reading.
fn hash_file(p: &Path, plain: bool) -> Result<String, Error> {
    let bytes = karenina_ld::fsutil::read_input(p)?;
    let quads = if plain {
        rdf::plain_quads(p, &bytes, Some(PLAIN_BASE), Processor::Oxigraph)?
    } else {
        let cp = model::read_checkpoint(p, &bytes, ReadOptions::default())?;
        return rdfc::hash_checkpoint(&cp);
    };
    rdfc::hash(&quads)
}

pub fn hash(a: HashArgs) -> anyhow::Result<u8> {
    // Inputs found by content, as validate, canon and query find them (a
    // checkpoint named `*.json` included); a named file of another kind is
    // a one-line usage error.
    let (files, mut status) = super::checkpoint::checkpoint_files(&a.inputs)?;
    let hashes: Vec<Result<String, Error>> =
        files.par_iter().map(|p| hash_file(p, a.plain)).collect();
    let mut out = std::io::stdout().lock();
    let mut listed = Vec::new();
    for (p, h) in files.iter().zip(hashes) {
        match h {
            Ok(h) if a.format == ReportFormat::Json => {
                listed.push(serde_json::json!({ "file": p, "sha256": h }))
            }
            Ok(h) => writeln!(out, "{h}  {}", esc(&p.display().to_string()))?,
            Err(e) => status = status.max(super::report_failure(p, &e, "not hashed")),
        }
    }
    if a.format == ReportFormat::Json {
        let doc = serde_json::json!({
            "algorithm": "RDFC-1.0 SHA-256",
            "reading": if a.plain { "plain" } else { "lossless" },
            "files": listed,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    }
    Ok(status)
}
