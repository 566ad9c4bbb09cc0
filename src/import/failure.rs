//! What can go wrong in an import, each error located (file, sheet, row,
//! column) so the user can fix the cell; nothing is written when any occurs.

use std::fmt;
use std::path::PathBuf;

/// Where in an input a problem is.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Location {
    /// The input file.
    pub file: PathBuf,
    /// The sheet of a workbook.
    pub sheet: Option<String>,
    /// The row: the line of a CSV record or JSON Lines sample, the sheet's
    /// own row number (the header is row 1 of a sheet starting at A1).
    pub row: Option<usize>,
    /// The column (or JSON member).
    pub column: Option<String>,
}

impl Location {
    /// The file alone.
    pub fn file(file: impl Into<PathBuf>) -> Self {
        Location {
            file: file.into(),
            ..Default::default()
        }
    }

    /// This location at `row`.
    pub fn at_row(&self, row: usize) -> Self {
        Location {
            row: Some(row),
            ..self.clone()
        }
    }

    /// This location in `column`.
    pub fn in_column(&self, column: &str) -> Self {
        Location {
            column: Some(column.to_string()),
            ..self.clone()
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        // A name read from the file is cut: a message never quotes a file.
        if let Some(s) = &self.sheet {
            write!(f, " [sheet {:?}]", super::quota::bounded(s, 80))?;
        }
        if let Some(r) = self.row {
            write!(f, ": row {r}")?;
        }
        if let Some(c) = &self.column {
            write!(f, ", column {:?}", super::quota::bounded(c, 80))?;
        }
        Ok(())
    }
}

/// An import that cannot go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// Reading the input (or the checkpoint to add to) failed.
    #[error(transparent)]
    Io(Box<crate::Error>),
    /// A column the options name is not in the file (Karenina's
    /// `Missing columns in file`).
    #[error(
        "{at}: missing columns in file: {}; the file has: {}",
        quoted(missing),
        quoted(existing)
    )]
    MissingColumns {
        /// The file (and sheet).
        at: Box<Location>,
        /// The columns asked for and absent.
        missing: Vec<String>,
        /// The columns the file has, in order.
        existing: Vec<String>,
    },
    /// A table read without the question and answer columns named.
    #[error(
        "{at}: the question and answer columns are not named; the file has: {}",
        quoted(existing)
    )]
    ColumnsNotNamed {
        /// The file (and sheet).
        at: Box<Location>,
        /// The columns the file has, in order.
        existing: Vec<String>,
    },
    /// A workbook without the sheet asked for.
    #[error("{at}: no sheet {sheet:?}; the workbook has: {}", quoted(sheets))]
    NoSuchSheet {
        /// The file.
        at: Box<Location>,
        /// The sheet asked for.
        sheet: String,
        /// The sheets it has.
        sheets: Vec<String>,
    },
    /// The input is not a table (or dataset) of the kind read.
    #[error("{at}: not a {expected}: {looks_like}")]
    NotATable {
        /// The file.
        at: Box<Location>,
        /// What was expected (`CSV table`, `JSON Lines dataset`, …).
        expected: &'static str,
        /// What the file looks like instead.
        looks_like: String,
    },
    /// A malformed record or a value that cannot become a Karenina question.
    #[error("{at}: {message}")]
    Bad {
        /// Where.
        at: Box<Location>,
        /// What is wrong, and why.
        message: String,
    },
    /// A file whose format neither its name nor its first bytes tell.
    #[error("{}: cannot tell the format from the name or the content (csv, tsv, xlsx, xls, jsonl or inspect)", file.display())]
    UnknownFormat {
        /// The file.
        file: PathBuf,
    },
    /// Options that do not go together, or a bad option value.
    #[error("{0}")]
    Usage(String),
    /// An input past one of the import's [`super::bounds::Limits`]: refused
    /// before it is read into memory.
    #[error(
        "{at}: {what} holds {n} {limit}, past the limit of {max} (raise it with {}=N if the file is what you meant to import)",
        limit.var()
    )]
    TooLarge {
        /// Where.
        at: Box<Location>,
        /// What holds that many (the grid `A1:Z1000000`, the sheet's XML…).
        what: String,
        /// How many.
        n: u64,
        /// The limit.
        max: u64,
        /// Which limit.
        limit: super::quota::Limit,
    },
}

impl ImportError {
    /// A damaged or unreadable input at `at`, saying what is wrong.
    pub(crate) fn bad(at: &Location, message: impl Into<String>) -> Self {
        ImportError::Bad {
            at: at.clone().into(),
            message: message.into(),
        }
    }

    /// Whether the error is the user's input (exit 1) rather than I/O.
    pub fn is_input(&self) -> bool {
        match self {
            ImportError::Io(e) => !matches!(**e, crate::Error::Io { .. }),
            ImportError::Usage(_) | ImportError::UnknownFormat { .. } => false,
            _ => true,
        }
    }
}

impl From<crate::Error> for ImportError {
    fn from(e: crate::Error) -> Self {
        ImportError::Io(Box::new(e))
    }
}

/// The names, quoted: at most 20 of them, each cut to 80 characters, so a
/// message never quotes a whole file (a header opened by an unclosed quote
/// is one name holding the file).
fn quoted(names: &[String]) -> String {
    const SHOWN: usize = 20;
    if names.is_empty() {
        return "no columns".into();
    }
    let mut s = names
        .iter()
        .take(SHOWN)
        .map(|n| format!("{:?}", super::quota::bounded(n, 80)))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    s
}

/// Results of this module.
pub type Result<T> = std::result::Result<T, ImportError>;
