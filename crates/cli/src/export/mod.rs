//! `kld export`: checkpoints and results as RDF, or in the formats the field
//! shares (Inspect, Croissant, Every Eval Ever).

mod interop;

use super::{INVALID, OK, USAGE};
use anyhow::{bail, Context};
use karenina_ld::export::{self, ExportFormat};
use karenina_ld::rdf::{self, Processor};
use karenina_ld::{fsutil, Error};
use std::io::Write;
use std::path::PathBuf;

use super::inputs::{files_of_strict, open_store};

/// Arguments of `kld export`.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// Checkpoints, results exports or directories.
    pub inputs: Vec<PathBuf>,
    /// Also export every graph of this store directory.
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// The plain JSON-LD reading of each file as written (what any JSON-LD processor gives).
    #[arg(long)]
    pub plain: bool,
    /// Base IRI for --plain (default: the file's file:// URL).
    #[arg(long, requires = "plain")]
    pub base: Option<String>,
    /// nt, nq, ttl, trig, rdfxml or jsonld (default: from -o's extension, else nq);
    /// inspect, croissant or eee for the formats the field shares (docs/interop.md).
    #[arg(long, short = 'f')]
    pub format: Option<String>,
    /// Output file (atomic write); stdout if absent.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Merge all graphs (needed for triple formats with several checkpoints).
    #[arg(long)]
    pub union: bool,
    /// With jsonld: the expanded form as Oxigraph writes it, not compacted with Karenina's context.
    #[arg(long)]
    pub expanded: bool,
    /// RDFC-1.0 canonical N-Quads (sorted; equal files mean isomorphic datasets).
    #[arg(long)]
    pub canonical: bool,
    /// Options of -f croissant and -f eee.
    #[command(flatten)]
    pub interop: interop::InteropArgs,
}

pub fn export(mut a: ExportArgs) -> anyhow::Result<u8> {
    a.output = super::output_file(a.output);
    if let Some(kind) = a.format.as_deref().and_then(interop::Interop::parse) {
        return interop::export(kind, a);
    }
    let format = match (&a.format, &a.output) {
        (Some(f), _) => ExportFormat::parse(f)
            .with_context(|| format!("unknown format {f:?} (nt, nq, ttl, trig, rdfxml, jsonld)"))?,
        (None, Some(o)) => {
            let ext = o.extension().and_then(|e| e.to_str()).unwrap_or("");
            ExportFormat::parse(ext).with_context(|| {
                format!("cannot tell the format from {}: pass --format", o.display())
            })?
        }
        (None, None) => ExportFormat::NQuads,
    };
    let format = match (a.expanded, format) {
        (false, f) => f,
        (true, ExportFormat::JsonLd) => ExportFormat::JsonLdExpanded,
        (true, _) => bail!("--expanded is for JSON-LD: use --format jsonld"),
    };
    if a.canonical && format != ExportFormat::NQuads {
        bail!("--canonical writes RDFC-1.0 canonical N-Quads: use --format nq");
    }
    if a.plain && a.store.is_some() {
        bail!("--plain reads files as written; a store holds the lossless reading");
    }
    let files = files_of_strict(&a.inputs, a.store.is_some())?;
    let mut status = OK;
    let mut quads = Vec::new();
    if let Some(dir) = &a.store {
        let s = open_store(Some(dir))?;
        for info in s.graphs() {
            quads.extend(s.graph_quads(&info.graph)?);
        }
    }
    // The lossless reading: the inputs read as `kld query` reads them, so a
    // run that reaches kld twice (JSON and CSV exports, a renamed copy, a
    // database row) is written once, as it counts once there.
    let mut batch = if a.plain {
        None
    } else {
        let b = karenina_ld::store::read_inputs(&files, Default::default(), &|_, _| {})?;
        b.runs.iter().for_each(super::inputs::report_binding);
        for (f, errors) in &b.partial {
            status = status.max(super::inputs::report_partial(f, errors, "exported"));
        }
        Some(b)
    };
    for f in &files {
        let r = if let Some(b) = &mut batch {
            match b.failed.iter().position(|(g, _)| g == f) {
                Some(i) => Err(b.failed.remove(i).1),
                None => match karenina_ld::store::graph_name_for(f) {
                    Ok(g) if b.store.resolve(&g).is_some() => b.store.graph_quads(&g),
                    // Left out as a copy of a run (said above).
                    Ok(_) => Ok(Vec::new()),
                    Err(e) => Err(e),
                },
            }
        } else {
            fsutil::read_input(f)
                .and_then(|b| rdf::plain_quads(f, &b, a.base.as_deref(), Processor::JsonLdCrate))
                .map(|qs| {
                    if files.len() == 1 {
                        qs
                    } else {
                        let g = karenina_ld::store::graph_name_for(f)
                            .ok()
                            .and_then(|u| oxigraph::model::NamedNode::new(u).ok());
                        qs.into_iter()
                            .map(|q| match &g {
                                Some(g) => oxigraph::model::Quad::new(
                                    q.subject,
                                    q.predicate,
                                    q.object,
                                    g.clone(),
                                ),
                                None => q,
                            })
                            .collect()
                    }
                })
        };
        match r {
            Ok(qs) => quads.extend(qs),
            Err(Error::Invalid(report)) => {
                for d in report.errors() {
                    eprintln!("{}", report.render(d));
                }
                eprintln!("{}: not exported: the file has errors", f.display());
                status = status.max(INVALID);
            }
            Err(e) => {
                eprintln!("kld: {e}");
                status = status.max(INVALID);
            }
        }
    }
    let mut buf = Vec::new();
    if a.canonical {
        // RDFC-1.0 by sophia_c14n, which refuses datasets too tangled to
        // canonicalize instead of running for hours.
        match karenina_ld::rdfc::canonical_nquads(&quads) {
            Ok(text) => buf = text.into_bytes(),
            Err(e) => {
                eprintln!("kld: {e}");
                return Ok(INVALID);
            }
        }
    } else if let Err(e) = export::write(&quads, format, a.union, &mut buf) {
        eprintln!("kld: {}", super::explain(&e));
        return Ok(USAGE);
    }
    match &a.output {
        Some(o) => fsutil::write_atomic(o, &buf)?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(&buf)?;
            out.flush()?;
        }
    }
    Ok(status)
}
