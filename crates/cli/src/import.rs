//! `kld import`: sheets and datasets → a canonical checkpoint (the logic is
//! `karenina_ld::import`; this file parses flags, prints and writes).

use super::{INVALID, OK, USAGE};
use anyhow::Context;
use clap::ValueEnum;
use karenina_ld::import::{
    self, Columns, ImportError, ImportOptions, InputFormat, KeywordColumn, Plan, Stamp, Status,
};
use karenina_ld::model::{self, Checkpoint, ReadOptions};
use karenina_ld::save::{write_checkpoint, WriteOptions};
use karenina_ld::terminal::escape_controls as esc;
use std::path::{Path, PathBuf};

/// `--format`: what the inputs are.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum FormatArg {
    /// Comma-separated values.
    Csv,
    /// Tab-separated values.
    Tsv,
    /// An Excel workbook (Office Open XML).
    Xlsx,
    /// A legacy Excel workbook.
    Xls,
    /// JSON Lines (or a JSON array), mapped by the column flags.
    Jsonl,
    /// An Inspect AI dataset (JSON Lines, JSON or CSV samples).
    Inspect,
}

impl From<FormatArg> for InputFormat {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Csv => InputFormat::Csv,
            FormatArg::Tsv => InputFormat::Tsv,
            FormatArg::Xlsx => InputFormat::Xlsx,
            FormatArg::Xls => InputFormat::Xls,
            FormatArg::Jsonl => InputFormat::Jsonl,
            FormatArg::Inspect => InputFormat::Inspect,
        }
    }
}

/// `--output-format` of `--dry-run`.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum PreviewFormat {
    /// One tab-separated line a row.
    #[value(alias = "table")]
    Text,
    /// One JSON document.
    Json,
}

/// `kld import` arguments.
#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// Sheets or datasets (CSV, TSV, XLSX, XLS, JSON Lines, Inspect), read in order.
    #[arg(required = true, value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
    /// Write a new checkpoint here (`-` for standard output).
    #[arg(short = 'o', long = "output", value_name = "CHECKPOINT")]
    pub output: Option<PathBuf>,
    /// Add the questions to this checkpoint (rewritten in place, or written to -o).
    #[arg(long, value_name = "EXISTING")]
    pub into: Option<PathBuf>,
    /// What the inputs are (default: from each file's extension, then its content).
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// The sheet of a workbook (default: the first).
    #[arg(long, value_name = "NAME")]
    pub sheet: Option<String>,
    /// The column of question texts (an Inspect dataset's field; default `input`).
    #[arg(long, value_name = "COL")]
    pub question_column: Option<String>,
    /// The column of expected answers (an Inspect dataset's field; default `target`).
    #[arg(long, value_name = "COL")]
    pub answer_column: Option<String>,
    /// The column of author names (Question.author's name).
    #[arg(long, value_name = "COL")]
    pub author_name_column: Option<String>,
    /// The column of author emails (merged into Question.author).
    #[arg(long, value_name = "COL")]
    pub author_email_column: Option<String>,
    /// The column of author affiliations (merged into Question.author).
    #[arg(long, value_name = "COL")]
    pub author_affiliation_column: Option<String>,
    /// The column of URLs (custom metadata `url`).
    #[arg(long, value_name = "COL")]
    pub url_column: Option<String>,
    /// A keywords column and its separator (default `,`); repeatable.
    #[arg(long, value_name = "COL[:SEP]")]
    pub keywords_column: Vec<String>,
    /// The column of answer notes.
    #[arg(long, value_name = "COL")]
    pub answer_notes_column: Option<String>,
    /// A column kept as custom metadata, typed as pandas reads it; repeatable.
    #[arg(long, value_name = "COL")]
    pub custom_metadata_column: Vec<String>,
    /// The new benchmark's name (default: an Inspect dataset's benchmark, else the output's file stem).
    #[arg(long)]
    pub name: Option<String>,
    /// The new benchmark's description.
    #[arg(long)]
    pub description: Option<String>,
    /// The new benchmark's version (Karenina's default 0.1.0).
    #[arg(long = "version", value_name = "VERSION")]
    pub bench_version: Option<String>,
    /// The new benchmark's creator (Karenina's default "Karenina Benchmarking System").
    #[arg(long)]
    pub creator: Option<String>,
    /// Write nothing: list the rows taken, the rows dropped and why, and the duplicates.
    #[arg(long)]
    pub dry_run: bool,
    /// Format of the --dry-run listing.
    #[arg(long, value_enum, default_value = "text")]
    pub output_format: PreviewFormat,
}

fn options(a: &ImportArgs) -> Result<ImportOptions, ImportError> {
    let keywords = a
        .keywords_column
        .iter()
        .map(|k| k.parse::<KeywordColumn>())
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ImportOptions {
        format: a.format.map(Into::into),
        sheet: a.sheet.clone(),
        columns: Columns {
            question: a.question_column.clone(),
            answer: a.answer_column.clone(),
            author_name: a.author_name_column.clone(),
            author_email: a.author_email_column.clone(),
            author_affiliation: a.author_affiliation_column.clone(),
            url: a.url_column.clone(),
            keywords,
            answer_notes: a.answer_notes_column.clone(),
            custom_metadata: a.custom_metadata_column.clone(),
        },
        limits: import::Limits::from_env()?,
    })
}

/// The flags that fix a typed import error.
fn hint(e: &ImportError) -> Option<&'static str> {
    match e {
        ImportError::ColumnsNotNamed { .. } => {
            Some("name them with --question-column and --answer-column")
        }
        ImportError::MissingColumns { .. } => Some("check the column flags"),
        ImportError::NoSuchSheet { .. } => Some("choose one with --sheet"),
        ImportError::NotATable { .. } | ImportError::UnknownFormat { .. } => {
            Some("choose the format with --format")
        }
        _ => None,
    }
}

fn fail(e: &ImportError) -> u8 {
    match hint(e) {
        Some(h) => eprintln!("kld: error: {e} ({h})"),
        None => eprintln!("kld: error: {e}"),
    }
    if e.is_input() {
        INVALID
    } else {
        USAGE
    }
}

fn read_existing(path: &Path) -> anyhow::Result<Result<Checkpoint, u8>> {
    let bytes = karenina_ld::fsutil::read_input(path)?;
    match model::read_checkpoint(path, &bytes, ReadOptions::default()) {
        Ok(cp) => Ok(Ok(cp)),
        Err(e) => Ok(Err(super::report_failure(
            path,
            &e,
            "not a valid checkpoint",
        ))),
    }
}

/// `kld import …`
pub fn import(a: ImportArgs) -> anyhow::Result<u8> {
    let output = a.output.clone();
    if !a.dry_run && output.is_none() && a.into.is_none() {
        anyhow::bail!("give -o CHECKPOINT (a new checkpoint), --into EXISTING, or --dry-run");
    }
    if a.into.is_some()
        && (a.name.is_some()
            || a.description.is_some()
            || a.bench_version.is_some()
            || a.creator.is_some())
    {
        anyhow::bail!("--name, --description, --version and --creator describe a new checkpoint; --into keeps the existing one's");
    }
    let opts = match options(&a) {
        Ok(o) => o,
        Err(e) => return Ok(fail(&e)),
    };
    // Nothing the user gave is overwritten; --into is read and written
    // under its writer lock (held to the end of this function).
    let outputs = [(output.as_deref(), "-o"), (a.into.as_deref(), "--into")];
    for (out, flag) in outputs {
        if let Some(Err(e)) = out.map(|o| import::output::check_output(o, &a.inputs, flag)) {
            return Ok(fail(&e));
        }
    }
    let _lock = match &a.into {
        Some(p) if !a.dry_run => match import::output::lock_into(p) {
            Ok(l) => Some(l),
            Err(e) => return Ok(fail(&e)),
        },
        _ => None,
    };
    let existing = match &a.into {
        Some(p) => match read_existing(p)? {
            Ok(cp) => Some(import::Existing {
                file: p,
                checkpoint: cp,
            }),
            Err(code) => return Ok(code),
        },
        None => None,
    };
    if a.dry_run {
        let plan = match import::plan_into(&a.inputs, &opts, existing.as_ref()) {
            Ok(p) => p,
            Err(e) => return Ok(fail(&e)),
        };
        preview(&plan, a.output_format)?;
        return Ok(OK);
    }
    let new = import::NewBenchmark {
        name: a.name.clone(),
        description: a.description.clone(),
        version: a.bench_version.clone(),
        creator: a.creator.clone(),
    };
    let default_name = output.as_deref().and_then(import::file_stem);
    let (cp, plan) = match import::import(
        &a.inputs,
        &opts,
        existing,
        &new,
        default_name,
        &mut Stamp::now,
    ) {
        Ok(done) => done,
        Err(e) => return Ok(fail(&e)),
    };
    let (taken, dropped, dups) = plan.counts();
    // At most MAX_WARNINGS duplicate lines (a sheet of one row repeated
    // 6 million times wrote 636 MB of them); --dry-run lists every row.
    const MAX_WARNINGS: usize = 20;
    let mut warned = 0;
    for r in &plan.rows {
        if let Status::Duplicate { id, first } = &r.status {
            warned += 1;
            if warned == MAX_WARNINGS + 1 {
                eprintln!(
                    "kld: … and {} more questions already there (--dry-run lists every row)",
                    dups - MAX_WARNINGS
                );
            }
            if warned > MAX_WARNINGS {
                continue;
            }
            eprintln!(
                "kld: {}: question {id} is already there ({first}): not added",
                r.at
            );
        }
        if let Status::Drop { reason } = &r.status {
            if super::VERBOSE.load(std::sync::atomic::Ordering::Relaxed) {
                eprintln!("kld: {}: dropped: {reason}", r.at);
            }
        }
    }
    let text = write_checkpoint(&cp, &WriteOptions::default());
    let target = output.or(a.into.clone()).expect("checked above");
    let shown = match super::output_file(Some(target)) {
        None => {
            out!("{text}");
            "standard output".to_string()
        }
        Some(t) => {
            let r = karenina_ld::fsutil::replace(&t, text.as_bytes())
                .with_context(|| format!("writing {}", t.display()))?;
            if r.split_links > 0 {
                eprintln!(
                    "kld: {}: written as a new file: its {} keep the old content",
                    r.file.display(),
                    super::plural(r.split_links as usize, "other hard link")
                );
            }
            t.display().to_string()
        }
    };
    eprintln!(
        "kld: {} into {shown} ({} dropped, {} refused as duplicates)",
        super::plural(taken, "question"),
        super::plural(dropped, "row"),
        dups
    );
    Ok(OK)
}

fn preview(plan: &Plan, format: PreviewFormat) -> anyhow::Result<()> {
    let (taken, dropped, dups) = plan.counts();
    match format {
        PreviewFormat::Json => {
            outln!("{}", serde_json::to_string_pretty(&plan.to_json())?);
        }
        PreviewFormat::Text => {
            outln!("where\tstatus\tid\tdetail");
            for r in &plan.rows {
                let line = match &r.status {
                    Status::Take { id, question } => {
                        let q: String = question.question.chars().take(60).collect();
                        format!("{}\ttake\t{id}\t{}", r.at, q.replace(['\t', '\n'], " "))
                    }
                    Status::Drop { reason } => format!("{}\tdrop\t\t{reason}", r.at),
                    Status::Duplicate { id, first } => {
                        format!("{}\tduplicate\t{id}\talready there: {first}", r.at)
                    }
                };
                outln!("{}", esc(&line));
            }
            eprintln!(
                "kld: dry run: {} would be added, {} dropped, {} refused as duplicates; nothing written",
                super::plural(taken, "question"),
                super::plural(dropped, "row"),
                dups
            );
        }
    }
    Ok(())
}
