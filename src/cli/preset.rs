//! `kld preset list|show|validate|save|diff`.

use super::{ReportFormat, INVALID, OK, USAGE};
use anyhow::{bail, Context};
use karenina_ld::json::Json;
use karenina_ld::preset;
use karenina_ld::terminal::escape_controls as esc;
use karenina_ld::{fsutil, Report};
use std::path::{Path, PathBuf};

fn dir_of(explicit: Option<&Path>) -> PathBuf {
    preset::presets_dir(
        explicit,
        std::env::var("KARENINA_PRESETS_DIR").ok().as_deref(),
    )
}

fn print_report(r: &Report) {
    for d in &r.diagnostics {
        eprintln!("{}", r.render(d));
    }
}

fn load(path: &Path) -> anyhow::Result<(Option<preset::Preset>, Report)> {
    let bytes = karenina_ld::fsutil::read_regular(path)?;
    Ok(preset::read(path, &bytes, false))
}

pub fn list(dir: Option<&Path>) -> anyhow::Result<u8> {
    let dir = dir_of(dir);
    if !dir.is_dir() {
        bail!(
            "Presets directory not found: {} (name one with --dir DIR or $KARENINA_PRESETS_DIR)",
            dir.display()
        );
    }
    let mut rows = Vec::new();
    for f in fsutil::collect_inputs(std::slice::from_ref(&dir), &[".json"]) {
        let f = f?;
        let (p, _) = load(&f)?;
        let stem = f
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let (name, desc, updated) = match &p {
            Some(p) => (
                p.name.clone().unwrap_or(stem),
                p.description.clone().unwrap_or_default(),
                p.updated_at.clone().unwrap_or_default(),
            ),
            None => (
                stem,
                "(invalid: run kld preset validate)".into(),
                String::new(),
            ),
        };
        rows.push((
            name,
            f.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string(),
            desc,
            updated,
        ));
    }
    rows.sort();
    outln!("name\tfile\tdescription\tupdated_at");
    for (n, f, d, u) in rows {
        let line = format!("{n}\t{f}\t{}\t{u}", d.replace(['\t', '\n'], " "));
        outln!("{}", esc(&line));
    }
    Ok(OK)
}

pub fn show(name: &str, dir: Option<&Path>) -> anyhow::Result<u8> {
    let path = preset::resolve(name, &dir_of(dir))?;
    let (p, r) = load(&path)?;
    print_report(&r);
    let Some(p) = p else { return Ok(INVALID) };
    outln!("file:        {}", esc(&path.display().to_string()));
    outln!("name:        {}", esc(p.name.as_deref().unwrap_or("-")));
    outln!(
        "description: {}",
        esc(p.description.as_deref().unwrap_or("-"))
    );
    outln!(
        "updated_at:  {}",
        esc(p.updated_at.as_deref().unwrap_or("-"))
    );
    outln!("config (defaults filled in):");
    outln!(
        "{}",
        esc(&karenina_ld::json::py::dumps(
            &Json::Object(p.config),
            false
        ))
    );
    Ok(OK)
}

pub fn validate(files: &[PathBuf], format: ReportFormat) -> anyhow::Result<u8> {
    let mut status = OK;
    let mut json_files = Vec::new();
    for f in fsutil::collect_inputs(files, &[".json"]) {
        let f = match f {
            Ok(f) => f,
            Err(e) => {
                eprintln!("kld: {e}");
                status = status.max(USAGE);
                continue;
            }
        };
        let (_, r) = match load(&f) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("kld: {e:#}");
                status = status.max(USAGE);
                continue;
            }
        };
        let bad = r.has_errors();
        if bad {
            status = status.max(INVALID);
        }
        match format {
            ReportFormat::Text => {
                print_report(&r);
                outln!(
                    "{}: {} ({}, {})",
                    esc(&f.display().to_string()),
                    if bad { "INVALID" } else { "ok" },
                    super::plural(r.errors().count(), "error"),
                    super::plural(r.warnings().count(), "warning")
                );
            }
            ReportFormat::Json => json_files.push(serde_json::json!({
                "file": f,
                "status": if bad { "invalid" } else { "valid" },
                "diagnostics": r.diagnostics.iter().map(|d| serde_json::json!({
                    "code": d.code, "path": d.path.to_string(), "message": d.message,
                    "line": d.location.map(|l| l.line), "column": d.location.map(|l| l.column),
                    "severity": if d.is_error() { "error" } else { "warning" },
                })).collect::<Vec<_>>(),
            })),
        }
    }
    if format == ReportFormat::Json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "files": json_files }))?
        );
    }
    Ok(status)
}

/// Arguments of `kld preset save`.
#[derive(clap::Args, Debug)]
pub struct SaveArgs {
    /// Preset name (the file name is derived from it).
    #[arg(long)]
    pub name: String,
    /// Description (at most 500 characters).
    #[arg(long)]
    pub description: Option<String>,
    /// A VerificationConfig JSON file (bare, or a preset whose `config` to use).
    #[arg(long)]
    pub config: PathBuf,
    /// Presets directory.
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Overwrite an existing preset file.
    #[arg(long)]
    pub force: bool,
    /// Write API keys (they are dropped with a warning by default).
    #[arg(long)]
    pub include_secrets: bool,
}

pub fn save(a: SaveArgs) -> anyhow::Result<u8> {
    let bytes = karenina_ld::fsutil::read_regular(&a.config)?;
    let id = uuid::Uuid::new_v4().to_string();
    let saved = match preset::build(
        &a.config,
        &bytes,
        &a.name,
        a.description.as_deref(),
        a.include_secrets,
        &id,
        &preset::utc_now_iso(),
    ) {
        Ok(s) => s,
        Err(r) => {
            print_report(&r);
            eprintln!("preset not saved: the configuration has errors");
            return Ok(INVALID);
        }
    };
    print_report(&saved.report);
    let dir = dir_of(a.dir.as_deref());
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let target = dir.join(&saved.file_name);
    if target.exists() && !a.force {
        eprintln!(
            "kld: {} already exists; pass --force to overwrite it",
            target.display()
        );
        return Ok(USAGE);
    }
    fsutil::write_atomic(&target, saved.bytes.as_bytes())?;
    outln!("{}", esc(&target.display().to_string()));
    Ok(OK)
}

pub fn diff(a: &str, b: &str, dir: Option<&Path>) -> anyhow::Result<u8> {
    let d = dir_of(dir);
    let mut configs = Vec::new();
    for n in [a, b] {
        let path = preset::resolve(n, &d)?;
        let (p, r) = load(&path)?;
        print_report(&r);
        match p {
            Some(p) => configs.push(p.config),
            None => return Ok(INVALID),
        }
    }
    let show = |v: &Option<Json>| {
        v.as_ref()
            .map(|j| j.to_compact())
            .unwrap_or_else(|| "(absent)".into())
    };
    let diffs = preset::diff(&configs[0], &configs[1]);
    for (path, x, y) in &diffs {
        outln!("{}", esc(&format!("{path}: {} -> {}", show(x), show(y))));
    }
    Ok(if diffs.is_empty() { OK } else { INVALID })
}
