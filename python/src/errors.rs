//! Library errors as Python exceptions (classes in `karenina_ld/_errors.py`):
//! a file that is not JSON is a `SyntaxError` subclass at its line and
//! column, an invalid file a `ValueError` subclass carrying its diagnostics,
//! a SPARQL syntax error a `SyntaxError` subclass at the query's line and
//! column, a time limit a `TimeoutError` subclass, I/O errors `OSError`.

use karenina_ld::error::{Error, Report, Severity};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::path::Path;

/// One finding about one place in a file: `code` (`KLD-E004`), `severity`
/// (`"error"` or `"warning"`), `message`, `file`, 1-based `line` and
/// `column` (None when not located), and `json_path` (`/dataFeedElement/0`).
#[pyclass(frozen, get_all, module = "karenina_ld")]
#[derive(Clone)]
pub struct Diagnostic {
    code: String,
    severity: String,
    message: String,
    file: String,
    line: Option<usize>,
    column: Option<usize>,
    json_path: String,
    rendered: String,
}

#[pymethods]
impl Diagnostic {
    fn __repr__(&self) -> String {
        format!(
            "<Diagnostic {} {} at {}:{}:{}>",
            self.code,
            self.severity,
            self.file,
            self.line.unwrap_or(1),
            self.column.unwrap_or(1)
        )
    }

    /// `file:line:col: error[CODE] at /path: message`, as `kld validate`
    /// prints it.
    fn __str__(&self) -> String {
        self.rendered.clone()
    }

    /// True for errors (Karenina refuses the file).
    #[getter]
    fn is_error(&self) -> bool {
        self.severity == "error"
    }
}

impl Diagnostic {
    fn new(file: &Path, d: &karenina_ld::Diagnostic) -> Self {
        Diagnostic {
            code: d.code.to_string(),
            severity: match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            }
            .to_string(),
            message: d.message.clone(),
            file: file.display().to_string(),
            line: d.location.map(|l| l.line),
            column: d.location.map(|l| l.column),
            json_path: d.path.to_string(),
            rendered: karenina_ld::error::render(file, d),
        }
    }

    /// Every diagnostic of `report`.
    pub fn all(report: &Report) -> Vec<Diagnostic> {
        report
            .diagnostics
            .iter()
            .map(|d| Diagnostic::new(&report.file, d))
            .collect()
    }
}

/// The JSON reader's codes: the file is not JSON (or not UTF-8, or empty).
fn is_json_code(code: &str) -> bool {
    matches!(
        code,
        "KLD-E001"
            | "KLD-E002"
            | "KLD-E003"
            | "KLD-E004"
            | "KLD-E005"
            | "KLD-E006"
            | "KLD-E007"
            | "KLD-E008"
    )
}

fn class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("karenina_ld._errors")?.getattr(name)
}

/// A `SyntaxError` subclass `name` at `file`:`line`:`column`.
fn syntax<'py>(
    py: Python<'py>,
    name: &str,
    message: String,
    file: &str,
    line: usize,
    column: usize,
    text: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let details = PyTuple::new(
        py,
        [
            file.into_pyobject(py)?.into_any(),
            line.into_pyobject(py)?.into_any(),
            column.into_pyobject(py)?.into_any(),
            text.into_pyobject(py)?.into_any(),
        ],
    )?;
    class(py, name)?.call1((message, details))
}

fn build(py: Python<'_>, e: Error, query: Option<&str>) -> PyResult<PyErr> {
    let message = e.to_string();
    let err = match e {
        Error::Io { path, source } => {
            let errno = source.raw_os_error().unwrap_or(0);
            // Python's own words ("[Errno 2] No such file or directory:
            // 'x'"), without Rust's " (os error 2)" after them.
            let text = source.to_string();
            let text = text
                .strip_suffix(&format!(" (os error {errno})"))
                .unwrap_or(&text);
            return Ok(PyOSError::new_err((
                errno,
                text.to_string(),
                path.display().to_string(),
            )));
        }
        Error::Invalid(report) => {
            let diagnostics = Diagnostic::all(&report);
            let first = report.errors().next().cloned();
            let exc = match first {
                Some(d) if is_json_code(d.code) => {
                    let (l, c) = d.location.map(|l| (l.line, l.column)).unwrap_or((1, 1));
                    syntax(
                        py,
                        "JsonSyntaxError",
                        report.render(&d),
                        &report.file.display().to_string(),
                        l,
                        c,
                        None,
                    )?
                }
                _ => class(py, "InvalidFileError")?.call1((message,))?,
            };
            exc.setattr("diagnostics", diagnostics)?;
            exc
        }
        Error::Located {
            file,
            line,
            column,
            code,
            ..
        } if is_json_code(code) => syntax(
            py,
            "JsonSyntaxError",
            message,
            &file.display().to_string(),
            line,
            column,
            None,
        )?,
        Error::Located { .. } | Error::NotAResultsDatabase { .. } | Error::StoreIndex { .. } => {
            class(py, "InvalidFileError")?.call1((message,))?
        }
        Error::SparqlSyntax { line, column, .. } => syntax(
            py,
            "QuerySyntaxError",
            message,
            "<query>",
            line,
            column,
            query.and_then(|q| q.lines().nth(line.saturating_sub(1)).map(str::to_string)),
        )?,
        Error::EmptyQuery => syntax(py, "QuerySyntaxError", message, "<query>", 1, 1, None)?,
        Error::Timeout { .. } => class(py, "QueryTimeoutError")?.call1((message,))?,
        Error::ResultTooLarge { .. } => class(py, "ResultTooLargeError")?.call1((message,))?,
        Error::UpdateRefused | Error::TooComplex { .. } | Error::WrongFormat { .. } => {
            class(py, "QueryError")?.call1((message,))?
        }
        Error::Usage(_) => return Ok(pyo3::exceptions::PyValueError::new_err(message)),
        _ => class(py, "KldError")?.call1((message,))?,
    };
    Ok(PyErr::from_value(err))
}

/// `e` as the Python exception to raise.
pub fn to_py(e: Error) -> PyErr {
    Python::attach(|py| build(py, e, None).unwrap_or_else(|failed| failed))
}

/// [`to_py`] for an error of the query `sparql`: a syntax error's `text` is
/// the query's line.
pub fn query_to_py(e: Error, sparql: &str) -> PyErr {
    Python::attach(|py| build(py, e, Some(sparql)).unwrap_or_else(|failed| failed))
}
