//! `kld export --table OUT`: the results table (one row per verification
//! result, `docs/results.md`) of the inputs and a store directory, as
//! Parquet (`.parquet`) or CSV (`.csv`).

use super::super::{INVALID, OK, USAGE};
use anyhow::bail;
use karenina_ld::table::{self, Table};
use std::path::{Path, PathBuf};

/// The format `--table`'s file names.
fn format_of(out: &Path) -> Option<&'static str> {
    match out.extension().and_then(|e| e.to_str()) {
        Some("parquet" | "pq") => Some("parquet"),
        Some("csv") => Some("csv"),
        _ => None,
    }
}

/// Writes the table of `store` (a store directory) and `files` to `out`.
pub(super) fn export(out: &Path, store: Option<&PathBuf>, files: &[PathBuf]) -> anyhow::Result<u8> {
    let Some(format) = format_of(out) else {
        eprintln!(
            "kld: --table {}: name a .parquet or a .csv file",
            out.display()
        );
        return Ok(USAGE);
    };
    if store.is_none() && files.is_empty() {
        bail!("--table: give results exports, run folders or --store DIR");
    }
    let mut status = OK;
    let mut t = Table::default();
    let mut notes = Vec::new();
    if let Some(dir) = store {
        let s = super::open_store(Some(dir))?;
        let (part, n) = table::stored::of_dir(dir, &s);
        t.append(&part);
        notes.extend(n);
    }
    if !files.is_empty() {
        let b = karenina_ld::store::read_inputs(files, Default::default(), &|_, _| {})?;
        b.runs.iter().for_each(super::super::inputs::report_binding);
        for (f, e) in &b.failed {
            eprintln!("kld: {}: {e}", f.display());
            status = status.max(INVALID);
        }
        let (part, n) = table::stored::of_store(&b.store, None);
        t.append(&part);
        notes.extend(n);
    }
    for n in &notes {
        eprintln!("kld: {n}");
        status = status.max(INVALID);
    }
    match format {
        "parquet" => table::parquet::write(&t, out)?,
        _ => table::csv::write(&t, out)?,
    }
    eprintln!(
        "kld: {}: {} results of {} runs",
        out.display(),
        t.len(),
        t.runs.len()
    );
    Ok(status)
}
