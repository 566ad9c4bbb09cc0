//! `kld import`: spreadsheets and other harnesses' datasets → Karenina
//! checkpoints, without Python.
//!
//! Karenina users start a benchmark from a sheet: `extract_questions_from_file`
//! (pandas) reads it, and `Benchmark.add_question` + `save` write the
//! checkpoint. This module does the same in the library, with the same
//! results: `delimited` reads CSV/TSV and `sheet` XLSX/XLS (calamine),
//! `infer` types each column as pandas does, [`extract`] is Karenina's
//! extractor and `build` its `add_question`. `jsonl` reads a plain JSON
//! Lines file through the same column options and `inspect_dataset` an Inspect AI
//! dataset (so that `kld export -f inspect` round-trips). `plan` gathers
//! the rows of every input, the questions taken, the rows dropped and why,
//! and the duplicates (by question ID) refused; `Plan::apply` adds them to
//! a checkpoint. Errors ([`ImportError`]) are located; nothing is written
//! when any occurs.

mod biff;
pub(crate) mod bounds;
pub(crate) mod build;
pub(crate) mod delimited;
pub mod extract;
pub(crate) mod failure;
pub(crate) mod grid;
pub(crate) mod infer;
pub(crate) mod inspect_dataset;
pub(crate) mod jsonl;
pub mod output;
pub(crate) mod precheck;
pub mod quota;
pub(crate) mod sheet;
mod unwind;
pub(crate) mod value;

pub use bounds::Limits;
pub use build::{BenchmarkMeta, Stamp};
pub use failure::{ImportError, Location, Result};

use crate::json::Json;
use crate::model::{qid, Checkpoint};
use extract::RowOutcome;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// `--keywords-column COL[:SEP]`: a keywords column and its separator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeywordColumn {
    /// The column.
    pub column: String,
    /// What separates its keywords (default `,`).
    pub separator: String,
}

impl std::str::FromStr for KeywordColumn {
    type Err = ImportError;

    /// `COL` or `COL:SEP` (split at the first `:`; SEP may itself be `:`).
    fn from_str(s: &str) -> Result<Self> {
        let (column, separator) = match s.split_once(':') {
            Some((c, sep)) => (c, sep),
            None => (s, ","),
        };
        if separator.is_empty() {
            return Err(ImportError::Usage(format!(
                "keywords column {s:?}: empty separator (Python's str.split refuses one); write COL or COL:SEP"
            )));
        }
        if column.is_empty() {
            return Err(ImportError::Usage(format!(
                "keywords column {s:?}: no column name; write COL or COL:SEP"
            )));
        }
        Ok(KeywordColumn {
            column: column.to_string(),
            separator: separator.to_string(),
        })
    }
}

/// Karenina's column options (`extract_questions_from_file`'s arguments).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    /// `question_column` (required for tables).
    pub question: Option<String>,
    /// `answer_column` (required for tables).
    pub answer: Option<String>,
    /// `author_name_column`.
    pub author_name: Option<String>,
    /// `author_email_column`.
    pub author_email: Option<String>,
    /// `author_affiliation_column`.
    pub author_affiliation: Option<String>,
    /// `url_column` (stored as custom metadata `url`).
    pub url: Option<String>,
    /// `keywords_columns`.
    pub keywords: Vec<KeywordColumn>,
    /// `answer_notes_column`.
    pub answer_notes: Option<String>,
    /// `custom_metadata_columns`.
    pub custom_metadata: Vec<String>,
}

impl Columns {
    /// Whether any column option was given.
    pub(crate) fn any(&self) -> bool {
        *self != Columns::default()
    }
}

/// What an input is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// Comma-separated values (`pd.read_csv`).
    Csv,
    /// Tab-separated values (`.tsv`, `.txt`).
    Tsv,
    /// An Office Open XML workbook.
    Xlsx,
    /// A legacy Excel workbook.
    Xls,
    /// JSON Lines, one object a row, mapped by the column options.
    Jsonl,
    /// An Inspect AI dataset (JSON, JSON Lines or CSV samples).
    Inspect,
}

impl InputFormat {
    /// The format a file's extension names (`.txt` is TSV, as in Karenina).
    pub(crate) fn from_extension(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "csv" => InputFormat::Csv,
            "tsv" | "txt" | "tab" => InputFormat::Tsv,
            "xlsx" | "xlsm" => InputFormat::Xlsx,
            "xls" => InputFormat::Xls,
            "jsonl" | "ndjson" | "json" => InputFormat::Jsonl,
            _ => return None,
        })
    }

    /// The format of `path`: its extension; for JSON, Inspect when the first
    /// record has `input` and `target` and no column option was given; by
    /// content when the extension says nothing.
    pub(crate) fn detect(path: &Path, head: &[u8], columns: &Columns) -> Option<Self> {
        let looks_inspect = || inspect_dataset::looks_like_samples(head) && !columns.any();
        match Self::from_extension(path) {
            Some(InputFormat::Jsonl) if looks_inspect() => Some(InputFormat::Inspect),
            Some(f) => Some(f),
            None if head.starts_with(b"PK\x03\x04") => Some(InputFormat::Xlsx),
            None if head.starts_with(&[0xD0, 0xCF, 0x11, 0xE0]) => Some(InputFormat::Xls),
            None if head.trim_ascii_start().starts_with(b"{")
                || head.trim_ascii_start().starts_with(b"[") =>
            {
                Some(if looks_inspect() {
                    InputFormat::Inspect
                } else {
                    InputFormat::Jsonl
                })
            }
            None => None,
        }
    }

    /// The format's name as `--format` takes it.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Csv => "csv",
            InputFormat::Tsv => "tsv",
            InputFormat::Xlsx => "xlsx",
            InputFormat::Xls => "xls",
            InputFormat::Jsonl => "jsonl",
            InputFormat::Inspect => "inspect",
        }
    }
}

/// One question as Karenina would add it.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// An explicit question ID (an Inspect sample's `id`); `None`: the MD5
    /// of the text (Karenina's `Question.id`).
    pub id: Option<String>,
    /// The question text (stripped).
    pub question: String,
    /// The expected answer (stripped).
    pub answer: String,
    /// Keywords, sorted and unique.
    pub keywords: Vec<String>,
    /// Answer notes.
    pub answer_notes: Option<String>,
    /// The author's members (`name`, `email`, `affiliation`), in that order.
    pub author: Vec<(String, String)>,
    /// Custom metadata, in column order (`url` first).
    pub custom: Vec<(String, Json)>,
    /// `finished` (Karenina's default for an added question: true).
    pub finished: bool,
}

impl Imported {
    /// The question ID Karenina gives it.
    pub fn question_id(&self) -> String {
        self.id
            .clone()
            .unwrap_or_else(|| qid::md5_hex(&self.question))
    }
}

/// How the inputs are read.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// The input format (detected from each file when `None`).
    pub format: Option<InputFormat>,
    /// The sheet of a workbook (the first when `None`).
    pub sheet: Option<String>,
    /// The column options.
    pub columns: Columns,
    /// How much any input may hold ([`Limits::default`]; the CLI and
    /// Python take [`Limits::from_env`]).
    pub limits: Limits,
}

/// What became of one row.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// Taken as a question with this ID.
    Take {
        /// The question ID.
        id: String,
        /// The question.
        question: Box<Imported>,
    },
    /// Dropped, as Karenina's extractor drops it.
    Drop {
        /// Why.
        reason: String,
    },
    /// Refused: a question with this ID is already there.
    Duplicate {
        /// The question ID.
        id: String,
        /// Where the first one is (a row, or the checkpoint).
        first: String,
    },
}

/// One input row and what became of it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedRow {
    /// File, sheet and row.
    pub at: Location,
    /// Taken, dropped or a duplicate.
    pub status: Status,
}

/// Every input row and what an import does with it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// The rows, inputs in order.
    pub rows: Vec<PlannedRow>,
    /// The benchmark name an input suggests (an Inspect dataset's
    /// `metadata.benchmark`, when its samples agree).
    pub suggested_name: Option<String>,
}

impl Plan {
    /// The rows taken.
    pub(crate) fn taken(&self) -> impl Iterator<Item = (&str, &Imported)> {
        self.rows.iter().filter_map(|r| match &r.status {
            Status::Take { id, question } => Some((id.as_str(), &**question)),
            _ => None,
        })
    }

    /// How many rows are taken, dropped and refused as duplicates.
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for r in &self.rows {
            match r.status {
                Status::Take { .. } => c.0 += 1,
                Status::Drop { .. } => c.1 += 1,
                Status::Duplicate { .. } => c.2 += 1,
            }
        }
        c
    }

    /// The plan as `kld import --dry-run --output-format json` prints it
    /// (and Python's `import_questions(…, dry_run=True)` returns it): the counts, and each row
    /// with its file, sheet and row number, its status (`take`, `drop`,
    /// `duplicate`) and what goes with it.
    pub fn to_json(&self) -> serde_json::Value {
        let (taken, dropped, dups) = self.counts();
        let rows: Vec<serde_json::Value> = (self.rows.iter())
            .map(|r| {
                let mut v = serde_json::json!({
                    "file": r.at.file.display().to_string(),
                    "sheet": r.at.sheet,
                    "row": r.at.row,
                });
                match &r.status {
                    Status::Take { id, question } => {
                        v["status"] = "take".into();
                        v["id"] = id.as_str().into();
                        v["question"] = question.question.as_str().into();
                        v["answer"] = question.answer.as_str().into();
                        v["keywords"] = serde_json::json!(question.keywords);
                    }
                    Status::Drop { reason } => {
                        v["status"] = "drop".into();
                        v["reason"] = reason.as_str().into();
                    }
                    Status::Duplicate { id, first } => {
                        v["status"] = "duplicate".into();
                        v["id"] = id.as_str().into();
                        v["first"] = first.as_str().into();
                    }
                }
                v
            })
            .collect();
        serde_json::json!({
            "taken": taken, "dropped": dropped, "duplicates": dups, "rows": rows,
        })
    }

    /// Appends the questions taken to `cp`, each stamped by `clock` (as
    /// each `add_question` reads the clock), and sets `dateModified` to the
    /// last reading (`save()`'s).
    pub(crate) fn apply(&self, cp: &mut Checkpoint, clock: &mut dyn FnMut() -> Stamp) {
        for (id, q) in self.taken() {
            let now = clock();
            cp.items.push(build::item(q, id.to_string(), &now.iso));
        }
        cp.date_modified = clock().iso;
    }
}

/// Reads one input's rows: where each is and what Karenina's extractor
/// (or the dataset's mapping) makes of it.
pub fn read_rows(file: &Path, opts: &ImportOptions) -> Result<Rows> {
    let at = Location::file(file);
    let limits = &opts.limits;
    // A regular file's size is checked before it is read; standard input
    // and pipes once read.
    if let Ok(m) = std::fs::metadata(file) {
        if m.is_file() {
            limits.check(&at, bounds::Limit::Bytes, m.len(), "the file")?;
        }
    }
    let bytes = crate::fsutil::read_input(file)?;
    limits.check(&at, bounds::Limit::Bytes, bytes.len() as u64, "the file")?;
    let format = match opts.format {
        Some(f) => f,
        None => InputFormat::detect(file, &bytes[..bytes.len().min(65536)], &opts.columns)
            .ok_or_else(|| ImportError::UnknownFormat {
                file: file.to_path_buf(),
            })?,
    };
    let tabular = |t: grid::Table| -> Result<Rows> {
        let outcomes = extract::extract(&t, &opts.columns)?;
        let rows = t
            .rows
            .iter()
            .zip(outcomes)
            .map(|(&r, o)| (t.at.at_row(r), o))
            .collect();
        Ok(Rows {
            rows,
            suggested_name: None,
        })
    };
    match format {
        InputFormat::Csv => tabular(need_columns(
            delimited::read(&at, &bytes, b',', limits)?,
            opts,
        )?),
        InputFormat::Tsv => tabular(need_columns(
            delimited::read(&at, &bytes, b'\t', limits)?,
            opts,
        )?),
        InputFormat::Xlsx | InputFormat::Xls => tabular(need_columns(
            sheet::read(&at, bytes, opts.sheet.as_deref(), limits)?,
            opts,
        )?),
        InputFormat::Jsonl => tabular(need_columns(jsonl::read(&at, &bytes)?, opts)?),
        InputFormat::Inspect => inspect_dataset::read(&at, &bytes, &opts.columns, limits),
    }
}

/// Tables need the question and answer columns named.
fn need_columns(t: grid::Table, opts: &ImportOptions) -> Result<grid::Table> {
    if opts.columns.question.is_none() || opts.columns.answer.is_none() {
        return Err(ImportError::ColumnsNotNamed {
            at: t.at.clone().into(),
            existing: t.names(),
        });
    }
    Ok(t)
}

/// One input's rows.
#[derive(Clone, Debug, Default)]
pub struct Rows {
    /// Each row's place and outcome.
    pub rows: Vec<(Location, RowOutcome)>,
    /// A benchmark name the input suggests.
    pub suggested_name: Option<String>,
}

/// The plan for importing `files` (in order) into `existing` (or a new
/// checkpoint): every row taken, dropped or refused as a duplicate of an
/// earlier row or of a question already in `existing`. The first error
/// stops it.
pub(crate) fn plan(
    files: &[PathBuf],
    opts: &ImportOptions,
    existing: Option<&Checkpoint>,
) -> Result<Plan> {
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut texts: HashMap<String, String> = HashMap::new();
    if let Some(cp) = existing {
        for it in &cp.items {
            let id = it
                .id
                .clone()
                .unwrap_or_else(|| qid::question_id(&it.question.text));
            seen.insert(id.clone(), format!("question {id} of the checkpoint"));
            texts.insert(
                it.question.text.clone(),
                format!("question {id} of the checkpoint (same text)"),
            );
        }
    }
    // `--sheet` names a sheet of the workbooks among the inputs; the other
    // inputs ignore it, as Karenina's extractor ignores `sheet_name` for a
    // CSV. Without a workbook (or a file whose extension says nothing) it
    // cannot apply to anything.
    let workbook = |f: &PathBuf| {
        opts.format
            .or_else(|| InputFormat::from_extension(f))
            .is_none_or(|x| matches!(x, InputFormat::Xlsx | InputFormat::Xls))
    };
    if opts.sheet.is_some() && !files.iter().any(workbook) {
        return Err(ImportError::Usage(
            "--sheet applies to workbooks (xlsx, xls), and no input is one".to_string(),
        ));
    }
    let mut plan = Plan::default();
    let mut names = Vec::new();
    for file in files {
        let rows = read_rows(file, opts)?;
        names.extend(rows.suggested_name);
        for (at, outcome) in rows.rows {
            let status = match outcome {
                RowOutcome::Drop(reason) => Status::Drop { reason },
                RowOutcome::Take(q) => {
                    let id = q.question_id();
                    // Same text counts only for a row without its own ID
                    // (a sheet row, whose ID is its text's hash): samples
                    // with their own IDs may share a text, as Karenina's
                    // `-1` IDs for a repeated question do.
                    let same_text = || q.id.is_none().then(|| texts.get(&q.question)).flatten();
                    let first = seen.get(&id).or_else(same_text).cloned();
                    match first {
                        Some(first) => Status::Duplicate { id, first },
                        None => {
                            seen.insert(id.clone(), at.to_string());
                            texts.insert(q.question.clone(), at.to_string());
                            Status::Take { id, question: q }
                        }
                    }
                }
            };
            plan.rows.push(PlannedRow { at, status });
        }
    }
    names.dedup();
    if names.len() == 1 {
        plan.suggested_name = names.pop();
    }
    Ok(plan)
}

/// What describes a new checkpoint: Karenina's defaults where `None`. The
/// name falls back to the name the inputs suggest (an Inspect dataset's
/// benchmark), then to the caller's default (`kld import`: the output's
/// file stem), then to the first input's file stem.
#[derive(Clone, Debug, Default)]
pub struct NewBenchmark {
    /// `name`.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `version`.
    pub version: Option<String>,
    /// `creator`.
    pub creator: Option<String>,
}

/// The checkpoint to add to, and the file it came from (for messages).
pub struct Existing<'a> {
    /// Where it was read from.
    pub file: &'a Path,
    /// The checkpoint.
    pub checkpoint: Checkpoint,
}

impl Existing<'_> {
    /// Refuses a scenario benchmark: Karenina adds no standalone question
    /// to one.
    pub(crate) fn accepts_questions(&self) -> Result<()> {
        if (self.checkpoint.scenarios.as_ref()).is_some_and(|s| !s.is_empty()) {
            return Err(ImportError::bad(
                &Location::file(self.file),
                "a scenario benchmark: Karenina does not add standalone questions to one",
            ));
        }
        Ok(())
    }
}

/// A file's stem as a benchmark name: none for `-` (standard input) or a
/// name without one.
pub fn file_stem(p: &Path) -> Option<String> {
    (p.file_stem())
        .map(|s| s.to_string_lossy().to_string())
        .filter(|s| !s.is_empty() && s != "-")
}

/// The `plan` for importing `files` into `existing` (or a new
/// checkpoint), what a dry run shows; a scenario benchmark is refused, as
/// [`import`] refuses it.
pub fn plan_into(
    files: &[PathBuf],
    opts: &ImportOptions,
    existing: Option<&Existing<'_>>,
) -> Result<Plan> {
    if let Some(e) = existing {
        e.accepts_questions()?;
    }
    plan(files, opts, existing.map(|e| &e.checkpoint))
}

/// Imports `files` into `existing`, or into a new checkpoint described by
/// `new` (named by `default_name` when neither `new` nor the inputs name
/// it, else by the first input's file stem), as Karenina's
/// `Benchmark.create` (or `load`) + `add_question` per row + `save` would:
/// the checkpoint, each question and `dateModified` stamped by `clock`, and
/// the plan (every row taken, dropped or refused). A scenario benchmark is
/// refused: Karenina adds no standalone question to one.
pub fn import(
    files: &[PathBuf],
    opts: &ImportOptions,
    existing: Option<Existing<'_>>,
    new: &NewBenchmark,
    default_name: Option<String>,
    clock: &mut dyn FnMut() -> Stamp,
) -> Result<(Checkpoint, Plan)> {
    let plan = plan_into(files, opts, existing.as_ref())?;
    let mut cp = match existing {
        Some(e) => e.checkpoint,
        None => {
            let d = BenchmarkMeta::default();
            let meta = BenchmarkMeta {
                name: (new.name.clone())
                    .or_else(|| plan.suggested_name.clone())
                    .or(default_name)
                    .or_else(|| files.first().and_then(|f| file_stem(f)))
                    .unwrap_or_else(|| "imported".into()),
                description: new.description.clone().unwrap_or(d.description),
                version: new.version.clone().unwrap_or(d.version),
                creator: new.creator.clone().unwrap_or(d.creator),
            };
            build::new_checkpoint(&meta, &clock())
        }
    };
    plan.apply(&mut cp, clock);
    Ok((cp, plan))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_columns() {
        let k: KeywordColumn = "Area".parse().unwrap();
        assert_eq!((k.column.as_str(), k.separator.as_str()), ("Area", ","));
        let k: KeywordColumn = "Tags:;".parse().unwrap();
        assert_eq!(k.separator, ";");
        let k: KeywordColumn = "Tags::".parse().unwrap();
        assert_eq!(k.separator, ":");
        assert!("Tags:".parse::<KeywordColumn>().is_err());
    }
}
