//! `kld info` of a run that is not an export file: a run folder, Karenina's
//! results database, an unfinished run's progressive-save sidecars.

use super::{ReportFormat, INVALID, OK};
use std::path::{Path, PathBuf};

/// `println!` for this module's text: every line shows names from the data
/// (labels, run, model and benchmark names, paths), escaped for a terminal
/// ([`karenina_ld::terminal::escape_controls`]); a reader that went away
/// (`kld info RUN | head`) ends the output quietly. JSON is printed with
/// `std::println!`: serde_json escapes what JSON must.
macro_rules! println {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let line = format!($($arg)*);
        let _ = writeln!(std::io::stdout(), "{}", karenina_ld::terminal::escape_controls(&line));
    }};
}

/// `print!`, escaped as [`println!`] is.
macro_rules! print {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($arg)*);
        let _ = write!(std::io::stdout(), "{}", karenina_ld::terminal::escape_controls(&text));
    }};
}

/// `kld info RUN_FOLDER`: the manifest, then the summary of its results.
pub(super) fn run_folder_info(dir: &Path, format: ReportFormat) -> anyhow::Result<u8> {
    use karenina_ld::results::run_folder::{self, Benchmark};
    let run = match run_folder::read(dir, &std::env::current_dir()?) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return Ok(INVALID);
        }
    };
    let m = &run.manifest;
    let results = match run.results.as_deref() {
        Some(f) => match karenina_ld::numbers::tally::summarize(f) {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("{e}");
                return Ok(INVALID);
            }
        },
        None => None,
    };
    let benchmark = match &run.benchmark {
        Benchmark::File(f) => f.display().to_string(),
        Benchmark::Missing(why) => why.clone(),
    };
    // What an agentic run's workspaces and `karenina repair` recorded.
    let mut warnings = Vec::new();
    let captures = match run_folder::workspaces_dir(&run) {
        Ok(d) => karenina_ld::results::workspace::read(&d).map(|m| {
            warnings.extend(m.warnings.iter().cloned());
            m.counts()
        }),
        Err(w) => {
            warnings.push(w.to_string());
            None
        }
    };
    let repairs = match run.results.as_deref() {
        Some(f) => {
            let (r, w) = karenina_ld::results::repair::infos(f);
            warnings.extend(w);
            r
        }
        None => Vec::new(),
    };
    for w in &warnings {
        eprintln!("kld: {}", karenina_ld::terminal::escape_controls(w));
    }
    let models = |ms: &[run_folder::ModelIdentity]| {
        ms.iter()
            .map(|m| format!("{}:{}", m.interface, m.model_name))
            .collect::<Vec<_>>()
    };
    match format {
        ReportFormat::Json => {
            let v = serde_json::json!({
                "run_folder": dir.display().to_string(),
                "status": m.status.as_str(), "label": m.label, "run_name": m.run_name,
                "created_at": m.created_at, "completed_at": m.completed_at,
                "benchmark_path": m.benchmark_path, "benchmark": benchmark,
                "replicate_count": m.replicate_count,
                "answering_models": models(&m.answering_models),
                "parsing_models": models(&m.parsing_models),
                "failure_type": m.failure_type, "failure_message": m.failure_message,
                "results_from": match (&run.results, &run.sidecar) {
                    (Some(_), _) => "export", (None, Some(_)) => "progressive-save sidecar", _ => "none",
                },
                "results": results,
                "workspace_captures": captures,
                "repairs": repairs,
            });
            std::println!("{}", serde_json::to_string_pretty(&v)?);
        }
        ReportFormat::Text => {
            println!("run folder: {}", dir.display());
            println!("status:     {}", m.status.as_str());
            if let Some(t) = &m.failure_type {
                println!(
                    "failure:    {t}: {}",
                    m.failure_message.as_deref().unwrap_or("")
                );
            }
            println!("label:      {} (run {})", m.label, m.run_name);
            println!(
                "when:       {} to {}",
                m.created_at,
                m.completed_at.as_deref().unwrap_or("-")
            );
            println!("benchmark:  {} ({benchmark})", m.benchmark_path);
            println!("replicates: {}", m.replicate_count);
            println!("answering:  {}", models(&m.answering_models).join(", "));
            println!("parsing:    {}", models(&m.parsing_models).join(", "));
            if let Some(c) = &captures {
                println!(
                    "captures:   {} (captured {}, with copy errors {}, skipped {}; {} copy errors; {} without files)",
                    c.entries, c.captured, c.captured_with_errors, c.skipped, c.copy_errors, c.without_files
                );
            }
            for r in &repairs {
                println!(
                    "repaired:   {} ({}, {} of {} selected replaced; source {})",
                    r.timestamp, r.mode, r.replaced, r.selected, r.source
                );
            }
            match (&results, &run.sidecar) {
                (Some(s), _) => print!("{}", s.to_text()),
                (None, Some(f)) => println!("results:    not exported; sidecar {}", f.display()),
                _ => println!("results:    none"),
            }
        }
    }
    Ok(OK)
}

/// `kld info DB`: the benchmarks and runs of Karenina's results database,
/// and the checkpoint each run binds to.
pub(super) fn database_info(
    file: &Path,
    format: ReportFormat,
    with: &[PathBuf],
) -> anyhow::Result<u8> {
    use karenina_ld::store::binding::link::Link;
    let (with, io_failed) = super::inputs::files_of(with);
    let (benchmarks, runs, failed) = match karenina_ld::store::database::bindings(file, &with) {
        Ok(b) => (b.benchmarks, b.runs, b.failed),
        Err(e) => {
            eprintln!("{e}");
            return Ok(INVALID);
        }
    };
    for (f, e) in &failed {
        eprintln!("kld: {}: {e}", f.display());
    }
    // Karenina's numbers, run by run (`docs/numbers.md`).
    let numbers = match karenina_ld::sqlite::open(file).and_then(|c| {
        runs.iter()
            .map(|b| karenina_ld::numbers::of_database_run(file, &c, &b.run))
            .collect::<karenina_ld::error::Result<Vec<_>>>()
    }) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("{e}");
            return Ok(INVALID);
        }
    };
    let note = |l: &Link| l.reason().unwrap_or_default();
    match format {
        ReportFormat::Json => {
            let v = serde_json::json!({
                "database": file.display().to_string(),
                "benchmarks": benchmarks.iter().map(|b| serde_json::json!({
                    "name": b.name, "checkpoint_path": b.checkpoint_path,
                    "placeholder": b.placeholder.as_ref().map(|p| p.describe()),
                })).collect::<Vec<_>>(),
                "runs": runs.iter().zip(&numbers).map(|(b, n)| { let r = &b.run; let mut v = serde_json::json!({
                    "id": r.id, "name": r.name, "status": r.status,
                    "benchmark": r.benchmark.as_ref().map(|b| &b.name),
                    "start_time": r.start_time, "end_time": r.end_time,
                    "answering_models": r.answering_models(), "results": r.results,
                    "results_without_question": r.missing_questions,
                    "counted": {
                        "questions": r.counted.questions, "results": r.results,
                        "successful": r.counted.successful, "failed": r.counted.failed,
                    },
                    "recorded": {
                        "status": r.status, "total_questions": r.counts[0],
                        "processed_count": r.counts[1], "successful_count": r.counts[2],
                        "failed_count": r.counts[3],
                    },
                    "imported": r.import.as_ref().map(|i| serde_json::json!({
                        "at": r.end_time, "source": i.source, "file": i.filename,
                        "job_id": i.job_id, "karenina_version": i.karenina_version,
                        "export_timestamp": i.export_timestamp,
                        "format_version": i.format_version, "results_count": i.results_count,
                    })),
                    "checkpoint": b.checkpoint_file,
                    "unbound_because": b.link.reason(),
                }); if let Some(o) = v.as_object_mut() { o.extend(n.to_json()); } v }).collect::<Vec<_>>(),
            });
            std::println!("{}", serde_json::to_string_pretty(&v)?);
        }
        ReportFormat::Text => {
            println!("Karenina results database: {}", file.display());
            println!("benchmarks: {}", benchmarks.len());
            for b in &benchmarks {
                println!(
                    "  {} ({})",
                    b.name,
                    b.checkpoint_path.as_deref().unwrap_or("-")
                );
                if let Some(p) = &b.placeholder {
                    println!("    {}", p.describe());
                }
            }
            println!("runs:       {}", runs.len());
            for (b, n) in runs.iter().zip(&numbers) {
                let r = &b.run;
                // (An imported run's end time is the import's.)
                let when = match &r.import {
                    Some(_) => format!("imported {}", r.end_time.as_deref().unwrap_or("-")),
                    None => format!(
                        "{} to {}",
                        r.start_time.as_deref().unwrap_or("-"),
                        r.end_time.as_deref().unwrap_or("-")
                    ),
                };
                println!(
                    "  {} [{}] {} results, {when}, benchmark {}",
                    r.name,
                    r.status,
                    r.results,
                    r.benchmark.as_ref().map_or("-", |b| b.name.as_str())
                );
                if let Some(i) = &r.import {
                    let or = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
                    println!(
                        "    imported from: {} (job {}, Karenina {}, exported {})",
                        or(&i.filename),
                        or(&i.job_id),
                        or(&i.karenina_version),
                        or(&i.export_timestamp)
                    );
                }
                if let Some(n) = karenina_ld::sqlite::recorded_differs(r) {
                    println!("    {n}");
                }
                if let Some(p) = r.benchmark.as_ref().and_then(|b| b.placeholder.as_ref()) {
                    println!("    its benchmark in the database is {}", p.describe());
                }
                println!("    models: {}", r.answering_models().join(", "));
                match &b.checkpoint_file {
                    Some(f) => println!("    bound to: {f}"),
                    None => println!("    not bound: {}", note(&b.link)),
                }
                print!(
                    "{}",
                    karenina_ld::numbers::printed::lines(&n.all().summary(), "    ")
                );
            }
        }
    }
    Ok(if !failed.is_empty() || io_failed {
        INVALID
    } else {
        OK
    })
}

/// `kld info OUT.state`: an unfinished run from its progressive-save state.
pub(super) fn state_info(file: &Path, format: ReportFormat) -> anyhow::Result<u8> {
    use karenina_ld::results::progress;
    let state = match progress::read_state(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return Ok(INVALID);
        }
    };
    let cwd = std::env::current_dir()?;
    let benchmark = progress::benchmark_of(file, &state, &cwd)
        .map_or_else(|| "not found".to_string(), |f| f.display().to_string());
    let models = |key: &str| -> Vec<String> {
        karenina_ld::sqlite::config_models(&state.header()["metadata"]["verification_config"], key)
    };
    let jsonl = progress::results_sidecar(file, &state);
    let lacks = progress::lacks(file, &state);
    match format {
        ReportFormat::Json => {
            let v = serde_json::json!({
                "state": file.display().to_string(),
                "status": "incomplete",
                "created_at": state.created_at, "updated_at": state.last_updated_at,
                "benchmark_path": state.benchmark_path, "benchmark": benchmark,
                "total_tasks": state.total_tasks, "completed_count": state.completed_count,
                "failed_count": state.failed_count,
                "answering_models": models("answering_models"),
                "parsing_models": models("parsing_models"),
                "results_jsonl": jsonl.is_file().then(|| jsonl.display().to_string()),
                "format_version": state.format_version,
                "lacks": lacks.iter().map(|l| format!("{} {l}", file.display())).collect::<Vec<_>>(),
            });
            std::println!("{}", serde_json::to_string_pretty(&v)?);
        }
        ReportFormat::Text => {
            let n = |n: Option<u64>| n.map_or("?".to_string(), |n| n.to_string());
            println!(
                "unfinished run (progressive-save state): {}",
                file.display()
            );
            println!(
                "tasks:      {} of {} done, {} failed",
                n(state.completed_count),
                n(state.total_tasks),
                n(state.failed_count)
            );
            println!(
                "when:       {} to {}",
                state.created_at.as_deref().unwrap_or("-"),
                state.last_updated_at.as_deref().unwrap_or("-")
            );
            println!("benchmark:  {} ({benchmark})", state.benchmark_path);
            println!("answering:  {}", models("answering_models").join(", "));
            println!("parsing:    {}", models("parsing_models").join(", "));
            match jsonl.is_file() {
                true => println!("results:    {}", jsonl.display()),
                false => println!("results:    none yet"),
            }
            for l in &lacks {
                println!(
                    "lacks:      {}",
                    karenina_ld::terminal::escape_controls(&format!("{} {l}", file.display()))
                );
            }
        }
    }
    Ok(OK)
}
