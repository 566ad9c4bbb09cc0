//! `validate`, `canon`, `info`, `qid`.

use super::inputs::wrong_kind;
use super::{ReportFormat, INVALID, OK, USAGE};
use anyhow::{bail, Context};
use karenina_ld::error::{Diagnostic, Report, Severity};
use karenina_ld::kind::Kind;
use karenina_ld::model::{self, qid, ReadOptions};
use karenina_ld::save::{self, WriteOptions};
use karenina_ld::terminal::escape_controls as esc;
use karenina_ld::{contents, fsutil, Error};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

fn print_diags(report: &Report, errors_too: bool) {
    let mut err = std::io::stderr().lock();
    for l in diag_lines(report, errors_too) {
        let _ = writeln!(err, "{}", esc(&l));
    }
}

fn diag_json(d: &Diagnostic) -> serde_json::Value {
    serde_json::json!({
        "code": d.code,
        "severity": match d.severity { Severity::Error => "error", Severity::Warning => "warning" },
        "path": d.path.to_string(),
        "line": d.location.map(|l| l.line),
        "column": d.location.map(|l| l.column),
        "message": d.message,
    })
}

/// What processing one file produced, emitted in input order after the
/// (parallel) work is done.
struct Outcome {
    stderr: Vec<String>,
    stdout: Option<String>,
    json: Option<serde_json::Value>,
    status: u8,
    failed: bool,
}

impl Outcome {
    fn io(e: impl std::fmt::Display, file: Option<&Path>) -> Self {
        Outcome {
            stderr: vec![format!("kld: {e}")],
            stdout: None,
            json: Some(
                serde_json::json!({"file": file, "status": "io-error", "message": e.to_string()}),
            ),
            status: USAGE,
            failed: true,
        }
    }
}

fn diag_lines(report: &Report, errors_too: bool) -> Vec<String> {
    report
        .diagnostics
        .iter()
        .filter(|d| errors_too || d.severity == Severity::Warning)
        .map(|d| esc(&report.render(d)).into_owned())
        .collect()
}

/// The checkpoints among the inputs (directories searched by content): a
/// named file of another kind is a one-line usage error, and inputs that
/// hold no checkpoint at all are one too.
fn checkpoints_of(inputs: &[PathBuf]) -> anyhow::Result<(Vec<PathBuf>, Vec<Outcome>)> {
    let found = karenina_ld::kind::find(inputs, &[Kind::Checkpoint]);
    super::note_skipped(&found.skipped);
    let mut refused = Vec::new();
    let mut files = Vec::new();
    for f in found.files {
        match wrong_kind(&f, &[Kind::Checkpoint]) {
            Some(m) => refused.push(Outcome {
                stderr: vec![format!("kld: {m}")],
                stdout: None,
                json: None,
                status: USAGE,
                failed: true,
            }),
            None => files.push(f),
        }
    }
    refused.extend(found.failed.iter().map(|e| Outcome::io(e, None)));
    if files.is_empty() && refused.is_empty() {
        let mut others: Vec<String> = Vec::new();
        for k in [Kind::Results, Kind::Preset] {
            let n = found.skipped.iter().filter(|(_, s)| *s == k).count();
            if n > 0 {
                others.push(super::plural(n, k.describe().trim_start_matches("a ")));
            }
        }
        anyhow::bail!(
            "no checkpoints in {}{}",
            inputs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            if others.is_empty() {
                String::new()
            } else {
                format!(" (found {})", others.join(", "))
            }
        );
    }
    Ok((files, refused))
}

/// [`checkpoints_of`] for commands that print their own lines: the refused
/// inputs are said on stderr; the status they call for.
pub(super) fn checkpoint_files(inputs: &[PathBuf]) -> anyhow::Result<(Vec<PathBuf>, u8)> {
    let (files, refused) = checkpoints_of(inputs)?;
    let mut status = OK;
    for o in refused {
        o.stderr.iter().for_each(|l| eprintln!("{l}"));
        status = status.max(o.status);
    }
    Ok((files, status))
}

/// Runs `work` on every input on all cores, then prints in input order.
fn for_each_input(
    inputs: &[PathBuf],
    work: impl Fn(&Path) -> Outcome + Sync,
) -> anyhow::Result<Vec<Outcome>> {
    use rayon::prelude::*;
    let (files, mut outcomes) = checkpoints_of(inputs)?;
    outcomes.extend(files.par_iter().map(|p| work(p)).collect::<Vec<Outcome>>());
    let mut err = std::io::stderr().lock();
    let mut out = std::io::stdout().lock();
    for o in &outcomes {
        for l in &o.stderr {
            let _ = writeln!(err, "{}", esc(l));
        }
        if let Some(s) = &o.stdout {
            let _ = out.write_all(s.as_bytes());
        }
    }
    let _ = out.flush();
    Ok(outcomes)
}

pub fn validate(
    inputs: &[PathBuf],
    format: ReportFormat,
    deny_warnings: bool,
    upgrade: bool,
) -> anyhow::Result<u8> {
    let outcomes = for_each_input(inputs, |path| {
        let a = match model::analyze_file(path, ReadOptions { upgrade }) {
            Ok(a) => a,
            Err(e) => return Outcome::io(e, Some(path)),
        };
        let r = &a.report;
        let failed = r.has_errors() || (deny_warnings && r.warnings().next().is_some());
        let (e, w) = (r.errors().count(), r.warnings().count());
        let text = format == ReportFormat::Text;
        Outcome {
            stderr: if text {
                diag_lines(r, true)
            } else {
                Vec::new()
            },
            stdout: text.then(|| {
                format!(
                    "{}: {} ({e} error{}, {w} warning{})\n",
                    esc(&path.display().to_string()),
                    if failed { "INVALID" } else { "ok" },
                    plural(e),
                    plural(w)
                )
            }),
            json: Some(serde_json::json!({
                "file": path,
                "status": if failed { "invalid" } else { "valid" },
                "diagnostics": r.diagnostics.iter().map(diag_json).collect::<Vec<_>>(),
            })),
            status: if failed { INVALID } else { OK },
            failed,
        }
    })?;
    let status = outcomes.iter().map(|o| o.status).max().unwrap_or(OK);
    match format {
        ReportFormat::Text => {
            if outcomes.len() > 1 {
                let bad = outcomes.iter().filter(|o| o.failed).count();
                outln!("{} valid, {bad} invalid", outcomes.len() - bad);
            }
        }
        ReportFormat::Json => {
            let files: Vec<_> = outcomes.into_iter().filter_map(|o| o.json).collect();
            outln!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({ "files": files }))?
            );
        }
    }
    Ok(status)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Arguments of `kld canon`.
#[derive(clap::Args, Debug)]
pub struct CanonArgs {
    /// Checkpoint files or directories.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Do not write; print a diff and exit 1 when a file is not canonical.
    #[arg(long, conflicts_with_all = ["in_place", "output"])]
    pub check: bool,
    /// Rewrite each file in place (atomically).
    #[arg(long, short = 'i', conflicts_with = "output")]
    pub in_place: bool,
    /// Output file (one input) or directory (several inputs).
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Convert the 2025-08 `Dataset` format and JSON-string metric arrays.
    #[arg(long)]
    pub upgrade: bool,
    /// Drop deep-judgment settings from LLM traits, as Karenina's save() does by default.
    #[arg(long)]
    pub strip_deep_judgment: bool,
    /// Drop members Karenina does not know, as Karenina does (kept by default).
    #[arg(long)]
    pub drop_unknown: bool,
    /// Set dateModified to now (local time, Karenina's format).
    #[arg(long)]
    pub touch: bool,
    /// Do not print warnings.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Python's `datetime.now().isoformat()`: naive local time, microseconds unless 0.
fn python_now() -> String {
    let now = chrono::Local::now().naive_local();
    if now.and_utc().timestamp_subsec_micros() == 0 {
        now.format("%Y-%m-%dT%H:%M:%S").to_string()
    } else {
        now.format("%Y-%m-%dT%H:%M:%S%.6f").to_string()
    }
}

pub fn canon(mut a: CanonArgs) -> anyhow::Result<u8> {
    a.output = super::output_file(a.output);
    let many = a.inputs.len() > 1 || a.inputs.iter().any(|p| p.is_dir());
    if many && !a.check && !a.in_place && a.output.is_none() {
        bail!("several inputs: use --in-place, --check or -o DIR (stdout takes one file)");
    }
    let out_dir = match (&a.output, many) {
        (Some(o), true) => {
            std::fs::create_dir_all(o).with_context(|| format!("creating {}", o.display()))?;
            Some(o.clone())
        }
        // One input and an existing directory: write into it.
        (Some(o), false) if o.is_dir() => Some(o.clone()),
        _ => None,
    };
    let read = ReadOptions { upgrade: a.upgrade };
    let write = WriteOptions {
        strip_deep_judgment: a.strip_deep_judgment,
        drop_unknown: a.drop_unknown,
        date_modified: a.touch.then(python_now),
    };
    let outcomes = for_each_input(&a.inputs, |path| {
        if a.in_place {
            // What a killed run left beside this file goes, written or not.
            if let Ok(f) = fsutil::through_symlinks(path) {
                let dir = f.parent().filter(|d| !d.as_os_str().is_empty());
                fsutil::sweep_temporaries_once(dir.unwrap_or(Path::new(".")));
            }
        }
        let bytes = match fsutil::read_input(path) {
            Ok(b) => b,
            Err(e) => return Outcome::io(e, Some(path)),
        };
        let (text, report) = match save::canonicalize(path, &bytes, read, &write) {
            Ok(x) => x,
            Err(Error::Invalid(r)) => {
                let mut stderr = diag_lines(&r, true);
                stderr.push(format!(
                    "{}: not written: the file has errors",
                    path.display()
                ));
                return Outcome {
                    stderr,
                    stdout: None,
                    json: None,
                    status: INVALID,
                    failed: true,
                };
            }
            Err(e) => return Outcome::io(e, Some(path)),
        };
        let mut o = Outcome {
            stderr: if a.quiet {
                Vec::new()
            } else {
                diag_lines(&report, false)
            },
            stdout: None,
            json: None,
            status: OK,
            failed: false,
        };
        if a.check {
            if text.as_bytes() != bytes.as_slice() {
                o.stdout = Some(diff_text(path, &String::from_utf8_lossy(&bytes), &text));
                o.status = INVALID;
                o.failed = true;
            }
            return o;
        }
        let target = if a.in_place {
            Some(path.to_path_buf())
        } else if let Some(d) = &out_dir {
            Some(d.join(path.file_name().unwrap_or_default()))
        } else {
            a.output.clone()
        };
        match target {
            None => o.stdout = Some(text),
            Some(_) if a.in_place && text.as_bytes() == bytes.as_slice() => {}
            Some(t) => match fsutil::replace(&t, text.as_bytes()) {
                Ok(r) if r.split_links > 0 => o.stderr.push(format!(
                    "kld: {}: written as a new file: its {} keep the old content",
                    r.file.display(),
                    super::plural(r.split_links as usize, "other hard link")
                )),
                Ok(_) => {}
                Err(e) => {
                    o.stderr.push(format!("kld: {e}"));
                    o.status = USAGE;
                    o.failed = true;
                }
            },
        }
        o
    })?;
    Ok(outcomes.iter().map(|o| o.status).max().unwrap_or(OK))
}

/// The line diff `canon --check` prints (bounded in time), control
/// characters escaped.
fn diff_text(path: &Path, old: &str, new: &str) -> String {
    let shown = path.display().to_string();
    let d = karenina_ld::diff::unified(old, new, &shown, &format!("{shown} (canonical)"), 3);
    esc(&d).into_owned()
}

pub fn info(input: &Path, format: ReportFormat, with: &[PathBuf]) -> anyhow::Result<u8> {
    if karenina_ld::sqlite::sniff_file(input) {
        return super::run_info::database_info(input, format, with);
    }
    if karenina_ld::results::progress::is_state_input(input, true) {
        return super::run_info::state_info(input, format);
    }
    if !with.is_empty() {
        anyhow::bail!("--with applies to Karenina's results database only");
    }
    if input.is_dir() && karenina_ld::results::run_folder::is_run_folder(input) {
        return super::run_info::run_folder_info(input, format);
    }
    if input.is_dir() {
        anyhow::bail!(
            "{} is a directory: kld info summarizes one file (kld query DIR --named benchmark-stats covers a directory)",
            input.display()
        );
    }
    if let Some(m) = wrong_kind(input, &[Kind::Checkpoint, Kind::Results]) {
        anyhow::bail!(m);
    }
    if karenina_ld::results::sniff_file(input)?.is_some() {
        let s = match karenina_ld::numbers::tally::summarize(input) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{e}");
                return Ok(INVALID);
            }
        };
        match format {
            ReportFormat::Json => outln!("{}", serde_json::to_string_pretty(&s)?),
            ReportFormat::Text => out!("{}", esc(&s.to_text())),
        }
        return Ok(OK);
    }
    let a = model::analyze_file(input, ReadOptions::default())?;
    let Some(cp) = a.checkpoint else {
        print_diags(&a.report, true);
        return Ok(INVALID);
    };
    let s = contents::count(&cp);
    match format {
        ReportFormat::Json => outln!("{}", serde_json::to_string_pretty(&s.to_json())?),
        ReportFormat::Text => {
            outln!("name:       {}", esc(&s.name));
            outln!("version:    {}", esc(s.version.as_deref().unwrap_or("-")));
            outln!("questions:  {} ({} finished)", s.questions, s.finished);
            outln!(
                "templates:  {} ({} default placeholder)",
                s.templates,
                s.default_templates
            );
            if s.scenarios > 0 {
                outln!("scenarios:  {}", s.scenarios);
            }
            let total: usize = s.traits.values().sum();
            outln!("traits:     {total}");
            for ((scope, family, kind), n) in &s.traits {
                outln!("  {scope:<9} {family:<9} {kind:<9} {n}");
            }
            outln!("keywords:   {}", s.keywords.len());
            for (k, n) in &s.keywords {
                outln!("  {} ({n})", esc(k));
            }
        }
    }
    Ok(OK)
}

pub fn qid(texts: Vec<String>, md5: bool, sequence: bool, json: bool) -> anyhow::Result<u8> {
    let mut all = Vec::new();
    for t in texts {
        if t == "-" {
            for line in std::io::stdin().lock().lines() {
                all.push(line?);
            }
        } else {
            all.push(t);
        }
    }
    let ids: Vec<String> = if md5 {
        all.iter().map(|t| qid::md5_hex(t)).collect()
    } else if sequence {
        qid::question_ids(all.iter().map(String::as_str))
    } else {
        all.iter().map(|t| qid::question_id(t)).collect()
    };
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string(&ids)?)?;
    } else {
        for id in ids {
            writeln!(out, "{id}")?;
        }
    }
    Ok(OK)
}
