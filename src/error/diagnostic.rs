//! Diagnostics: every problem the library finds in a file, with a stable
//! code, the JSON path it concerns and, once located against the source, its
//! line and column; and the report of one file's diagnostics. Kept apart
//! from [`super::Error`], the error type that carries a report.

use crate::json::{self, JsonPath};
use std::fmt;
use std::path::{Path, PathBuf};

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Karenina silently mishandles this, or we changed something: the file still loads.
    Warning,
    /// Karenina refuses this file (or so would we).
    Error,
}

/// A located position in a source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// Byte offset.
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// One finding about one place in a file.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Stable code, e.g. `KLD-E012` or `KLD-W004`.
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// Where in the JSON tree.
    pub path: JsonPath,
    /// What is wrong and, for errors, what was expected.
    pub message: String,
    /// Line and column, once [`locate`] has run.
    pub location: Option<Location>,
}

impl Diagnostic {
    /// An error at `path`.
    pub fn error(code: &'static str, path: JsonPath, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Error,
            path,
            message: message.into(),
            location: None,
        }
    }

    /// A warning at `path`.
    pub fn warning(code: &'static str, path: JsonPath, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Warning,
            path,
            message: message.into(),
            location: None,
        }
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Fills in line:column for every diagnostic that has none: one scan of `src`
/// for the paths (a missing member is reported at its nearest present
/// ancestor), one forward pass for the lines.
pub fn locate(src: &str, diags: &mut [Diagnostic]) {
    let todo: Vec<usize> = (0..diags.len())
        .filter(|&i| diags[i].location.is_none())
        .collect();
    if todo.is_empty() {
        return;
    }
    let mut wanted: Vec<JsonPath> = Vec::new();
    for &i in &todo {
        let mut p = diags[i].path.clone();
        loop {
            wanted.push(p.clone());
            if p.0.pop().is_none() {
                break;
            }
        }
    }
    wanted.sort();
    wanted.dedup();
    let offsets = json::locate_paths(src, &wanted);
    let found: std::collections::HashMap<&JsonPath, usize> = wanted
        .iter()
        .zip(offsets)
        .filter_map(|(p, o)| o.map(|o| (p, o)))
        .collect();
    let mut at: Vec<(usize, usize)> = todo
        .iter()
        .map(|&i| {
            let mut p = diags[i].path.clone();
            loop {
                if let Some(&o) = found.get(&p) {
                    break (i, o);
                }
                if p.0.pop().is_none() {
                    break (i, 0);
                }
            }
        })
        .collect();
    at.sort_by_key(|&(_, o)| o);
    let offs: Vec<usize> = at.iter().map(|&(_, o)| o).collect();
    for (&(i, offset), (line, column)) in at.iter().zip(json::line_cols(src, &offs)) {
        diags[i].location = Some(Location {
            offset,
            line,
            column,
        });
    }
}

impl Diagnostic {
    /// The located error for a JSON parse failure of `src`.
    pub(crate) fn from_parse_failure(f: json::ParseFailure, src: &str) -> Self {
        let (line, column) = json::line_col(src, f.offset);
        let mut d = Diagnostic::error(f.code, json::path_at_offset(src, f.offset), f.message);
        d.location = Some(Location {
            offset: f.offset,
            line,
            column,
        });
        d
    }
}

/// Locates the diagnostics about `bytes` (only when some lack a location) and
/// returns them as a report in document order.
pub fn report(file: &Path, bytes: &[u8], mut diags: Vec<Diagnostic>) -> Report {
    if diags.iter().any(|d| d.location.is_none()) {
        locate(&String::from_utf8_lossy(bytes), &mut diags);
    }
    diags.sort_by_key(|d| d.location.map(|l| l.offset).unwrap_or(0));
    Report {
        file: file.to_path_buf(),
        diagnostics: diags,
    }
}

/// The diagnostics of one file, ready to print.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The file as the user named it.
    pub file: PathBuf,
    /// Findings, errors and warnings, in document order.
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The errors only.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }

    /// The warnings only.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| !d.is_error())
    }

    /// One diagnostic rendered as `file:line:col: error[CODE] at /path: message`.
    pub fn render(&self, d: &Diagnostic) -> String {
        render(&self.file, d)
    }

    /// The first error, rendered, on one line (for one-line notes such as
    /// "does not parse (…); showing a line diff").
    pub(crate) fn first_error_line(&self) -> Option<String> {
        self.errors().next().map(|d| {
            self.render(d)
                .lines()
                .next()
                .unwrap_or_default()
                .to_string()
        })
    }
}

/// Renders one diagnostic as `file:line:col: error[CODE] at /path: message`.
pub fn render(file: &Path, d: &Diagnostic) -> String {
    let (l, c) = d.location.map(|l| (l.line, l.column)).unwrap_or((1, 1));
    let sev = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    format!(
        "{}:{l}:{c}: {sev}[{}] at {}: {}",
        file.display(),
        d.code,
        d.path,
        d.message
    )
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for d in self.errors() {
            if !first {
                writeln!(f)?;
            }
            first = false;
            f.write_str(&self.render(d))?;
        }
        Ok(())
    }
}
