//! `validate`, `canon`, `info`, `qid`.

use super::{ReportFormat, INVALID, OK, USAGE};
use anyhow::{bail, Context};
use karenina_ld::canonical::{self, WriteOptions};
use karenina_ld::error::{Diagnostic, Report, Severity};
use karenina_ld::model::{self, qid, ReadOptions};
use karenina_ld::{fsutil, info, Error};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

const CHECKPOINT_EXTS: &[&str] = &[".jsonld"];

fn print_diags(report: &Report, errors_too: bool) {
    let mut err = std::io::stderr().lock();
    for d in &report.diagnostics {
        if errors_too || d.severity == Severity::Warning {
            let _ = writeln!(err, "{}", report.render(d));
        }
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

pub fn validate(inputs: &[PathBuf], format: ReportFormat, deny_warnings: bool, upgrade: bool) -> anyhow::Result<u8> {
    let mut status = OK;
    let mut files_json = Vec::new();
    let (mut n_ok, mut n_bad) = (0usize, 0usize);
    for input in fsutil::collect_inputs(inputs, CHECKPOINT_EXTS) {
        let path = match input {
            Ok(p) => p,
            Err(e) => {
                eprintln!("kld: {e}");
                files_json.push(serde_json::json!({"file": null, "status": "io-error", "message": e.to_string()}));
                status = status.max(USAGE);
                continue;
            }
        };
        let a = match model::analyze_file(&path, ReadOptions { upgrade }) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("kld: {e}");
                files_json.push(serde_json::json!({"file": path, "status": "io-error", "message": e.to_string()}));
                status = status.max(USAGE);
                continue;
            }
        };
        let r = &a.report;
        let failed = r.has_errors() || (deny_warnings && r.warnings().next().is_some());
        if failed {
            n_bad += 1;
            status = status.max(INVALID);
        } else {
            n_ok += 1;
        }
        match format {
            ReportFormat::Text => {
                print_diags(r, true);
                let (e, w) = (r.errors().count(), r.warnings().count());
                println!("{}: {} ({e} error{}, {w} warning{})", path.display(), if failed { "INVALID" } else { "ok" }, plural(e), plural(w));
            }
            ReportFormat::Json => files_json.push(serde_json::json!({
                "file": path,
                "status": if failed { "invalid" } else { "valid" },
                "diagnostics": r.diagnostics.iter().map(diag_json).collect::<Vec<_>>(),
            })),
        }
    }
    match format {
        ReportFormat::Text => {
            if n_ok + n_bad > 1 {
                println!("{n_ok} valid, {n_bad} invalid");
            }
        }
        ReportFormat::Json => println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "files": files_json }))?),
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

pub struct CanonArgs {
    pub inputs: Vec<PathBuf>,
    pub check: bool,
    pub in_place: bool,
    pub output: Option<PathBuf>,
    pub upgrade: bool,
    pub strip_deep_judgment: bool,
    pub drop_unknown: bool,
    pub touch: bool,
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

pub fn canon(a: CanonArgs) -> anyhow::Result<u8> {
    let files: Vec<_> = fsutil::collect_inputs(&a.inputs, CHECKPOINT_EXTS);
    let many = files.len() > 1 || a.inputs.iter().any(|p| p.is_dir());
    if many && !a.check && !a.in_place && a.output.is_none() {
        bail!("several inputs: use --in-place, --check or -o DIR (stdout takes one file)");
    }
    let out_dir = match (&a.output, many) {
        (Some(o), true) => {
            std::fs::create_dir_all(o).with_context(|| format!("creating {}", o.display()))?;
            Some(o.clone())
        }
        _ => None,
    };
    let read = ReadOptions { upgrade: a.upgrade };
    let write = WriteOptions {
        strip_deep_judgment: a.strip_deep_judgment,
        drop_unknown: a.drop_unknown,
        date_modified: a.touch.then(python_now),
    };
    let mut status = OK;
    for f in files {
        let path = match f {
            Ok(p) => p,
            Err(e) => {
                eprintln!("kld: {e}");
                status = status.max(USAGE);
                continue;
            }
        };
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("kld: {}", Error::io(&path, e));
                status = status.max(USAGE);
                continue;
            }
        };
        let (text, report) = match canonical::canonicalize(&path, &bytes, read, &write) {
            Ok(x) => x,
            Err(Error::Invalid(r)) => {
                print_diags(&r, true);
                eprintln!("{}: not written: the file has errors", path.display());
                status = status.max(INVALID);
                continue;
            }
            Err(e) => {
                eprintln!("kld: {e}");
                status = status.max(USAGE);
                continue;
            }
        };
        if !a.quiet {
            print_diags(&report, false);
        }
        if a.check {
            if text.as_bytes() != bytes.as_slice() {
                print_diff(&path, &String::from_utf8_lossy(&bytes), &text);
                status = status.max(INVALID);
            }
            continue;
        }
        let target: Option<PathBuf> = if a.in_place {
            Some(path.clone())
        } else if let Some(d) = &out_dir {
            Some(d.join(path.file_name().unwrap_or_default()))
        } else {
            a.output.clone()
        };
        match target {
            None => {
                let mut out = std::io::stdout().lock();
                out.write_all(text.as_bytes())?;
                out.flush()?;
            }
            Some(t) => {
                if a.in_place && text.as_bytes() == bytes.as_slice() {
                    continue;
                }
                if let Err(e) = fsutil::write_atomic(&t, text.as_bytes()) {
                    eprintln!("kld: {e}");
                    status = status.max(USAGE);
                }
            }
        }
    }
    Ok(status)
}

fn print_diff(path: &Path, old: &str, new: &str) {
    let diff = similar::TextDiff::from_lines(old, new);
    let shown = path.display().to_string();
    let mut out = std::io::stdout().lock();
    let _ = write!(
        out,
        "{}",
        diff.unified_diff()
            .context_radius(3)
            .header(&shown, &format!("{shown} (canonical)"))
    );
    if !old.ends_with('\n') || !new.ends_with('\n') {
        let _ = writeln!(out);
    }
}

pub fn info(input: &Path, format: ReportFormat) -> anyhow::Result<u8> {
    let a = model::analyze_file(input, ReadOptions::default())?;
    let Some(cp) = a.checkpoint else {
        print_diags(&a.report, true);
        return Ok(INVALID);
    };
    let s = info::summarize(&cp);
    match format {
        ReportFormat::Json => println!("{}", serde_json::to_string_pretty(&s.to_json())?),
        ReportFormat::Text => {
            println!("name:       {}", s.name);
            println!("version:    {}", s.version.as_deref().unwrap_or("-"));
            println!("questions:  {} ({} finished)", s.questions, s.finished);
            println!("templates:  {} ({} default placeholder)", s.templates, s.default_templates);
            if s.scenarios > 0 {
                println!("scenarios:  {}", s.scenarios);
            }
            let total: usize = s.traits.values().sum();
            println!("traits:     {total}");
            for ((scope, family, kind), n) in &s.traits {
                println!("  {scope:<9} {family:<9} {kind:<9} {n}");
            }
            println!("keywords:   {}", s.keywords.len());
            for (k, n) in &s.keywords {
                println!("  {k} ({n})");
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

