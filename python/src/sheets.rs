//! `import_questions`: sheets and datasets to a `Checkpoint`, as `kld
//! import` makes them ([`karenina_ld::import`]), under the argument names
//! of Karenina's `extract_questions_from_file`.

use crate::checkpoint::{with_pipes, Checkpoint};
use crate::errors::to_py;
use crate::store::Paths;
use crate::values::json;
use karenina_ld::import::{
    self, Columns, Existing, ImportError, ImportOptions, InputFormat, KeywordColumn, NewBenchmark,
    Stamp, Status,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A keywords column: its name (split on `,`), or Karenina's
/// `{"column": …, "separator": …}`.
#[derive(FromPyObject)]
pub enum KeywordsArg {
    /// The column, split on `,`.
    Column(String),
    /// Karenina's dict.
    Config(HashMap<String, String>),
}

impl KeywordsArg {
    fn into_column(self) -> PyResult<KeywordColumn> {
        match self {
            KeywordsArg::Column(column) => Ok(KeywordColumn {
                column,
                separator: ",".into(),
            }),
            KeywordsArg::Config(mut d) => {
                let column = d.remove("column").ok_or_else(|| {
                    PyValueError::new_err(
                        "keywords_columns: each dict needs a \"column\" (and may give a \"separator\")",
                    )
                })?;
                let separator = d.remove("separator").unwrap_or_else(|| ",".into());
                if separator.is_empty() {
                    return Err(PyValueError::new_err(format!(
                        "keywords_columns: the separator of {column:?} is empty"
                    )));
                }
                Ok(KeywordColumn { column, separator })
            }
        }
    }
}

fn format_of(name: &str) -> PyResult<InputFormat> {
    Ok(match name {
        "csv" => InputFormat::Csv,
        "tsv" => InputFormat::Tsv,
        "xlsx" => InputFormat::Xlsx,
        "xls" => InputFormat::Xls,
        "jsonl" => InputFormat::Jsonl,
        "inspect" => InputFormat::Inspect,
        other => {
            let known = "\"csv\", \"tsv\", \"xlsx\", \"xls\", \"jsonl\", \"inspect\"";
            return Err(PyValueError::new_err(format!(
                "format {other:?}: one of {known}"
            )));
        }
    })
}

fn import_error(e: ImportError) -> PyErr {
    match e {
        ImportError::Io(e) => to_py(*e),
        other => PyValueError::new_err(other.to_string()),
    }
}

/// Questions from sheets (CSV, TSV, XLSX, XLS) or datasets (JSON Lines,
/// Inspect AI) as a checkpoint: what Karenina's
/// `extract_questions_from_file` + `Benchmark.create` (or the checkpoint
/// `into`) + `add_question` per question + `save` make of them, and what
/// `kld import` writes (the same code). The column arguments are
/// `extract_questions_from_file`'s; `keywords_columns` takes its dicts
/// (`{"column": "Tags", "separator": ";"}`) or column names (split on
/// `,`). A question already there (earlier in the inputs, or in `into`) is
/// not added and a `UserWarning` lists them; a missing column, sheet or
/// malformed row raises `ValueError` naming the file, row and column; a
/// missing file `FileNotFoundError`. `name` defaults to an Inspect
/// dataset's benchmark, else the first input's file stem. `dry_run=True`
/// builds nothing and returns what `kld import --dry-run --output-format
/// json` prints: `{"taken", "dropped", "duplicates", "rows": [...]}`, each
/// row with its `file`, `sheet`, `row` and `status` (`take`, `drop` with
/// its `reason`, `duplicate` with the `first` place of the question).
///
/// >>> cp = import_questions("questions.csv", question_column="Question", answer_column="Answer")
/// >>> cp.save("questions.jsonld")
#[pyfunction]
#[pyo3(signature = (
    paths, *, question_column=None, answer_column=None, sheet_name=None, format=None,
    author_name_column=None, author_email_column=None, author_affiliation_column=None,
    url_column=None, keywords_columns=None, answer_notes_column=None,
    custom_metadata_columns=None, into=None, name=None, description=None, version=None,
    creator=None, dry_run=false,
))]
#[allow(clippy::too_many_arguments)]
pub fn import_questions(
    py: Python<'_>,
    paths: Paths,
    question_column: Option<String>,
    answer_column: Option<String>,
    sheet_name: Option<String>,
    format: Option<String>,
    author_name_column: Option<String>,
    author_email_column: Option<String>,
    author_affiliation_column: Option<String>,
    url_column: Option<String>,
    keywords_columns: Option<Vec<KeywordsArg>>,
    answer_notes_column: Option<String>,
    custom_metadata_columns: Option<Vec<String>>,
    into: Option<PyRef<'_, Checkpoint>>,
    name: Option<String>,
    description: Option<String>,
    version: Option<String>,
    creator: Option<String>,
    dry_run: bool,
) -> PyResult<Py<PyAny>> {
    let files: Vec<PathBuf> = paths.into_vec();
    if files.is_empty() {
        return Err(PyValueError::new_err("import_questions: no input given"));
    }
    if into.is_some()
        && (name.is_some() || description.is_some() || version.is_some() || creator.is_some())
    {
        return Err(PyValueError::new_err(
            "name, description, version and creator describe a new checkpoint; into keeps its own",
        ));
    }
    let keywords = (keywords_columns.unwrap_or_default().into_iter())
        .map(KeywordsArg::into_column)
        .collect::<PyResult<Vec<_>>>()?;
    let opts = ImportOptions {
        format: format.as_deref().map(format_of).transpose()?,
        sheet: sheet_name,
        columns: Columns {
            question: question_column,
            answer: answer_column,
            author_name: author_name_column,
            author_email: author_email_column,
            author_affiliation: author_affiliation_column,
            url: url_column,
            keywords,
            answer_notes: answer_notes_column,
            custom_metadata: custom_metadata_columns.unwrap_or_default(),
        },
        limits: import::Limits::from_env().map_err(import_error)?,
    };
    // The checkpoint to add to, owned (a PyRef stays on this thread), and
    // its file for messages.
    let (into_cp, into_file) = match &into {
        Some(c) => {
            let (cp, path) = c.model();
            let file = path.map_or_else(|| PathBuf::from("into"), Path::to_path_buf);
            (Some(cp.clone()), file)
        }
        None => (None, PathBuf::new()),
    };
    let new = NewBenchmark {
        name,
        description,
        version,
        creator,
    };
    let done = with_pipes(py, &files, || {
        let existing = into_cp.map(|checkpoint| Existing {
            file: &into_file,
            checkpoint,
        });
        if dry_run {
            return import::plan_into(&files, &opts, existing.as_ref()).map(|plan| (None, plan));
        }
        import::import(&files, &opts, existing, &new, None, &mut Stamp::now)
            .map(|(cp, plan)| (Some(cp), plan))
    })?;
    let (cp, plan) = done.map_err(import_error)?;
    let Some(cp) = cp else {
        return Ok(json(py, &plan.to_json())?.unbind());
    };
    let dups: Vec<String> = (plan.rows.iter())
        .filter_map(|r| match &r.status {
            Status::Duplicate { id, first } => Some(format!("{}: {id} ({first})", r.at)),
            _ => None,
        })
        .collect();
    if !dups.is_empty() {
        let msg = format!(
            "karenina_ld.import_questions: {} question(s) already there, not added: {}",
            dups.len(),
            dups.join("; ")
        );
        py.import("warnings")?.getattr("warn")?.call1((msg,))?;
    }
    Ok(Py::new(py, Checkpoint::built(cp))?.into_any())
}
