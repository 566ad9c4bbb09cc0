//! `kld export -f inspect|croissant|eee`: the formats the field shares
//! (`karenina_ld::interop`).

use super::super::{INVALID, OK};
use super::ExportArgs;
use anyhow::{bail, Context};
use karenina_ld::terminal::escape_controls as esc;
use karenina_ld::{fsutil, interop, model};
use std::path::{Path, PathBuf};

/// Options of `kld export -f croissant` and `-f eee`.
#[derive(clap::Args, Debug, Default)]
pub struct InteropArgs {
    /// With -f croissant: the benchmark's licence, an SPDX identifier (e.g.
    /// CC-BY-4.0), a URL, or `unknown` for an explicit note that it is not
    /// known (checkpoints do not carry one; Croissant requires it).
    #[arg(long, value_name = "SPDX")]
    pub license: Option<String>,
    /// With -f croissant: where the checkpoint file is published (default: its
    /// path relative to the output file).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// With -f eee: the checkpoint the results exports are bound to (default:
    /// the one .jsonld among the inputs).
    #[arg(long = "for", value_name = "CHECKPOINT")]
    pub for_checkpoint: Option<PathBuf>,
}

/// An interop format of `kld export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interop {
    /// Inspect AI JSON Lines samples.
    Inspect,
    /// An MLCommons Croissant 1.1 description.
    Croissant,
    /// Every Eval Ever aggregate and instance-level files.
    Eee,
}

impl Interop {
    /// From `-f`'s value.
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "inspect" | "inspect-ai" => Some(Self::Inspect),
            "croissant" => Some(Self::Croissant),
            "eee" | "every-eval-ever" => Some(Self::Eee),
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
        Interop::Croissant => croissant(&a),
        Interop::Eee => eee(&a),
    }
}

fn eee(a: &ExportArgs) -> anyhow::Result<u8> {
    let Some(dir) = &a.output else {
        bail!("-f eee writes a directory tree: give -o DIR");
    };
    // Told apart by content, as every command tells inputs apart; the
    // checkpoint named by --for may be among the inputs too (as `kld query
    // … --for` takes it).
    use karenina_ld::kind::{of_file, Kind};
    let same = |x: &Path, y: &Path| match (std::fs::canonicalize(x), std::fs::canonicalize(y)) {
        (Ok(x), Ok(y)) => x == y,
        _ => x == y,
    };
    let mut checkpoints = Vec::new();
    let mut results = Vec::new();
    for p in &a.inputs {
        if a.interop
            .for_checkpoint
            .as_deref()
            .is_some_and(|c| same(c, p))
        {
            continue;
        }
        match of_file(p)? {
            Kind::Results => results.push(p),
            _ => checkpoints.push(p),
        }
    }
    let checkpoint = match (&a.interop.for_checkpoint, checkpoints.as_slice()) {
        (Some(c), []) => c.clone(),
        (None, [c]) => (*c).clone(),
        _ => {
            bail!(
                "-f eee needs one checkpoint: --for CHECKPOINT, or one checkpoint among the inputs"
            )
        }
    };
    if results.is_empty() {
        bail!("-f eee needs results exports (RESULTS…)");
    }
    let Some(cp) = read(&checkpoint)? else {
        return Ok(INVALID);
    };
    let mut status = OK;
    // One run, one count: a run given twice (its JSON and CSV exports, a
    // copy) is written once, from the copy `kld query` keeps.
    if results.len() > 1 {
        let mut all: Vec<PathBuf> = results.iter().map(|p| (*p).clone()).collect();
        all.push(checkpoint.clone());
        let batch = karenina_ld::store::read_inputs(&all, Default::default(), &|_, _| {})?;
        let skipped: Vec<PathBuf> = batch
            .runs
            .iter()
            .filter(|b| {
                matches!(
                    b.link,
                    karenina_ld::store::binding::link::Link::Duplicate { .. }
                )
            })
            .map(|b| {
                super::super::inputs::report_binding(b);
                PathBuf::from(&b.source)
            })
            .collect();
        results.retain(|r| {
            let canon = std::fs::canonicalize(r).unwrap_or_else(|_| (*r).clone());
            !skipped.contains(&canon)
        });
    }
    for r in results {
        match interop::eee::export(&cp, &checkpoint, r) {
            Ok(files) => {
                for f in files {
                    let path = dir.join(&f.path);
                    if let Some(parent) = path.parent() {
                        std::fs::create_dir_all(parent)
                            .with_context(|| format!("creating {}", parent.display()))?;
                    }
                    fsutil::write_atomic(&path, f.text.as_bytes())?;
                    println!("{}", esc(&path.display().to_string()));
                }
            }
            Err(e) => {
                eprintln!("kld: {e}");
                status = INVALID;
            }
        }
    }
    Ok(status)
}

fn croissant(a: &ExportArgs) -> anyhow::Result<u8> {
    let Some(license) = &a.interop.license else {
        bail!("-f croissant needs --license SPDX (e.g. --license CC-BY-4.0, a URL, or --license unknown for an explicit note that it is not known): Croissant requires a licence and checkpoints do not carry one");
    };
    let (cp, out) = one_checkpoint(a, "croissant")?;
    let Some(cp) = cp else { return Ok(INVALID) };
    let file = &a.inputs[0];
    let bytes = karenina_ld::fsutil::read_regular(file)?;
    let content_url = match &a.interop.url {
        Some(u) => u.clone(),
        None => relative_url(file, out.as_deref())?,
    };
    let opts = interop::croissant::CroissantOptions {
        license: license.clone(),
        content_url,
        url: a.interop.url.clone(),
        fallback_name: file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "checkpoint".into()),
    };
    let doc = interop::croissant::describe(&cp, &bytes, &opts)?;
    let mut text = serde_json::to_string_pretty(&doc)?;
    text.push('\n');
    write_out(out.as_deref(), text.as_bytes())
}

/// The checkpoint's path relative to the directory of the output file (the
/// current directory for stdout), with `/` separators, as a relative URL:
/// only `%`, `#`, `?` and whitespace are escaped, since mlcroissant joins the
/// reference to its folder as a path, undecoded.
fn relative_url(file: &Path, out: Option<&Path>) -> anyhow::Result<String> {
    let canon = |p: &Path| -> anyhow::Result<PathBuf> {
        std::fs::canonicalize(p).with_context(|| format!("resolving {}", p.display()))
    };
    let file = canon(file)?;
    let base = match out.map(|o| o.parent().unwrap_or(Path::new(""))) {
        Some(d) if d.as_os_str().is_empty() => canon(Path::new("."))?,
        Some(d) => canon(d)?,
        None => canon(Path::new("."))?,
    };
    let (f, b): (Vec<_>, Vec<_>) = (file.components().collect(), base.components().collect());
    let common = f.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".into(); b.len() - common];
    parts.extend(
        f[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    let escape = |p: &String| -> String {
        p.chars()
            .map(|c| match c {
                '%' | '#' | '?' => format!("%{:02X}", c as u32),
                c if c.is_whitespace() || c.is_control() => {
                    let mut buf = [0; 4];
                    c.encode_utf8(&mut buf)
                        .bytes()
                        .map(|b| format!("%{b:02X}"))
                        .collect()
                }
                c => c.to_string(),
            })
            .collect()
    };
    Ok(parts.iter().map(escape).collect::<Vec<_>>().join("/"))
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
    let bytes = karenina_ld::fsutil::read_regular(file)?;
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
