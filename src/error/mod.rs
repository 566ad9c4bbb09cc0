//! Typed errors and diagnostics with file, line:column and JSON path.
//!
//! Every problem the library finds in a file is a [`Diagnostic`] with a stable
//! code (`KLD-E…` errors, `KLD-W…` warnings), the JSON path it concerns and, once
//! located against the source, its line and column. The library never prints:
//! the CLI renders diagnostics and picks exit codes.

mod diagnostic;

pub use diagnostic::{locate, render, report, Diagnostic, Location, Report, Severity};
use std::path::PathBuf;

/// Errors of the library.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A path kld would read is not a regular file (a FIFO, a device, a
    /// socket, a directory), after symlinks: refused, never opened for a
    /// blocking read.
    #[error("{}: {what}, not a regular file: kld reads regular files only", path.display())]
    NotRegularFile {
        /// The path.
        path: PathBuf,
        /// What it is ("a FIFO (named pipe)", "a character device", …).
        what: &'static str,
    },
    /// A file read whole is larger than the cap
    /// ([`crate::fsutil::max_file_size`]).
    #[error("{}: {size} bytes, over the limit of {limit} bytes for a file read whole (set KLD_MAX_FILE_SIZE to raise it)", path.display())]
    FileTooLarge {
        /// The file.
        path: PathBuf,
        /// Its size (or as much as was read past the limit).
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Another process holds a store directory's write lock.
    #[error("{}: store busy: another kld is writing this store (waited {waited_secs} s; KLD_STORE_WAIT sets how long to wait)", path.display())]
    StoreBusy {
        /// The store directory.
        path: PathBuf,
        /// How long this process waited for the lock, in seconds.
        waited_secs: u64,
    },
    /// The file has errors (the report holds them, located).
    #[error("{0}")]
    Invalid(Box<Report>),
    /// A JSON-LD processing failure (expansion, compaction, context).
    #[error("{}: JSON-LD: {message}", path.display())]
    JsonLd {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A context that would need the network, or is unknown.
    #[error("{}: refused remote or unknown @context {iri}: karenina-ld works offline and only knows the contexts in context/ (no network access is attempted)", path.display())]
    RemoteContext {
        /// The file.
        path: PathBuf,
        /// The context reference.
        iri: String,
    },
    /// A problem in a results export, run folder or manifest, located:
    /// `file:line:column: error[CODE] at PATH: message`.
    #[error("{}:{line}:{column}: error[{code}] at {at}: {message}", file.display())]
    Located {
        /// The file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The diagnostic code (see [`crate::codes`]).
        code: &'static str,
        /// Where in the file: a JSON path, or a CSV row and column.
        at: String,
        /// What is wrong.
        message: String,
    },
    /// A file that is not a readable Karenina results database.
    #[error("{}: error[KLD-E202]: not a readable Karenina results database: {reason}", path.display())]
    NotAResultsDatabase {
        /// The file.
        path: PathBuf,
        /// Why it was refused.
        reason: String,
    },
    /// A benchmark of a results database that cannot be rebuilt as Karenina's
    /// `load_from_db` rebuilds it (where Karenina's loader raises too).
    #[error("{}: error[KLD-E205]: benchmark {benchmark:?}: {reason}", path.display())]
    DatabaseBenchmark {
        /// The database file.
        path: PathBuf,
        /// The benchmark's name.
        benchmark: String,
        /// Why.
        reason: String,
    },
    /// A results database another process keeps locked (a write being
    /// committed) for longer than kld waits
    /// (`crate::sqlite::busy_wait`): nothing was read.
    #[error("{}: error[KLD-E204]: results database locked by another process (a write being committed) after waiting {waited_secs} s: nothing read; try again when the write ends (KLD_SQLITE_BUSY sets the wait in seconds)", path.display())]
    DatabaseLocked {
        /// The file.
        path: PathBuf,
        /// How long kld waited, in seconds.
        waited_secs: f64,
    },
    /// A value of a results database that Karenina refuses when it reads
    /// the row: left out of the graph, the rest of the run kept.
    #[error("{}: error[KLD-E203] at {value}; left out, the rest of the run kept", path.display())]
    DatabaseValue {
        /// The file.
        path: PathBuf,
        /// The value: table, row, column and why.
        value: BadValue,
    },
    /// The Oxigraph store failed (storage, loading).
    #[error("store: {0}")]
    Store(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// An RDF file (or a server's RDF answer) that does not parse.
    #[error("{}: {source}", path.display())]
    RdfSyntax {
        /// The file, or what was read.
        path: PathBuf,
        /// The parser's error, with its position.
        #[source]
        source: oxigraph::io::RdfParseError,
    },
    /// A string that had to be an IRI and is not one.
    #[error("{iri:?} is not an IRI: {source}")]
    Iri {
        /// The string.
        iri: String,
        /// Why not.
        #[source]
        source: oxigraph::model::IriParseError,
    },
    /// A graph that does not hold a checkpoint that can be rebuilt.
    #[error("graph {graph}: {reason}")]
    NotACheckpointGraph {
        /// The graph's name.
        graph: String,
        /// What is missing or wrong.
        reason: String,
    },
    /// No graph of that name is in the store.
    #[error("no graph {0} in the store")]
    NoSuchGraph(String),
    /// A run a Karenina results database does not hold (`DB#run=<id>`).
    #[error("{}: no run {run}", database.display())]
    NoSuchRun {
        /// The database file.
        database: PathBuf,
        /// The run ID asked for.
        run: String,
    },
    /// RDFC-1.0 refused a dataset whose blank nodes cannot be told apart
    /// without trying too many permutations.
    #[error("RDFC-1.0 canonicalization refused: the dataset has blank nodes that cannot be told apart without trying too many permutations ({0}); a free-form value holding a JSON-LD graph of interlinked blank nodes causes this")]
    TooManyPermutations(String),
    /// RDFC-1.0 canonicalization failed otherwise.
    #[error("RDFC-1.0 canonicalization failed: {0}")]
    Canonicalization(String),
    /// JSON-LD compaction of quads failed.
    #[error("JSON-LD compaction: {0}")]
    Compaction(String),
    /// A store directory's `index.tsv` that does not parse.
    #[error("{}:{line}: {reason}", path.display())]
    StoreIndex {
        /// The index file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A SPARQL query failed while it was parsed or run (other than the
    /// typed cases below).
    #[error("SPARQL: {0}")]
    Sparql(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// An empty query.
    #[error("SPARQL: the query is empty")]
    EmptyQuery,
    /// A request the library cannot carry out as given (a bad argument value,
    /// a wrong combination); the message says what to change.
    #[error("{0}")]
    Usage(String),
    /// A remote SPARQL server that never answered (after the retries).
    #[error("{what} {url}: server unreachable: {reason} (after {attempts} attempts)")]
    Unreachable {
        /// The request (`query`, `GET graph`, …).
        what: String,
        /// The URL.
        url: String,
        /// The connection error.
        reason: String,
        /// Attempts made.
        attempts: u32,
    },
    /// A remote SPARQL server answered with an error status.
    #[error("{what} {url}: HTTP {status}{}", if body.is_empty() { String::new() } else { format!(": {body}") })]
    HttpStatus {
        /// The request.
        what: String,
        /// The URL.
        url: String,
        /// The HTTP status code.
        status: u16,
        /// The start of the server's message (at most 500 characters).
        body: String,
    },
    /// A remote server's answer that is not what the protocol promises (does
    /// not parse, wrong form).
    #[error("{what}: the server's answer: {reason}")]
    RemoteAnswer {
        /// The request.
        what: String,
        /// What is wrong with the answer.
        reason: String,
    },
    /// A graph on a remote server that cannot be fetched as a checkpoint
    /// (absent, not pushed by kld, a results graph).
    #[error("graph {graph}: {reason}")]
    RemoteGraph {
        /// The graph's name.
        graph: String,
        /// Why.
        reason: String,
    },
    /// A remote server returns something other than what was pushed: no file
    /// is written.
    #[error("graph {graph}: the server does not return what was pushed ({detail}); not writing a different file")]
    ServerAltered {
        /// The graph's name.
        graph: String,
        /// The hashes and the first altered value.
        detail: String,
    },
    /// A Graph Store Protocol request with no Graph Store endpoint configured.
    #[error("this needs the server's Graph Store Protocol endpoint, and none is set")]
    NoGraphStore,
    /// Several graphs to write in a format that holds one.
    #[error("{graphs} graphs to write but {format} holds one graph: write one graph, merge them, or use a dataset format (nq, trig, jsonld)")]
    ManyGraphs {
        /// How many graphs.
        graphs: usize,
        /// The format.
        format: String,
    },
    /// A term the chosen format cannot hold (XML 1.0 forbids most control
    /// characters, so RDF/XML and SPARQL XML results cannot carry a literal
    /// holding U+000B): refused before anything is written.
    #[error("{term} holds U+{:04X}, which {format} cannot hold (XML 1.0 forbids the character); {formats} can", *ch as u32)]
    NotRepresentable {
        /// The term, shortened for a one-line message.
        term: String,
        /// The character.
        ch: char,
        /// The format asked for.
        format: &'static str,
        /// The formats that can hold it.
        formats: &'static str,
    },
    /// A result format that cannot carry the query form's answer.
    #[error("{form} answers in {formats}")]
    WrongFormat {
        /// The query form's keyword (`SELECT`, `ASK`, `CONSTRUCT`, `DESCRIBE`).
        form: &'static str,
        /// The formats that fit it.
        formats: &'static str,
    },
    /// A request not sent because the server had become unreachable during
    /// the batch.
    #[error("not sent: the server became unreachable")]
    NotSent,
    /// The graph was loaded but the store's index could not be saved (shared
    /// by every file of the batch).
    #[error("index not saved: {0}")]
    IndexNotSaved(#[source] std::sync::Arc<Error>),
    /// A file the load did not insert: it was stopped first (Ctrl-C).
    #[error("not loaded: the load was stopped")]
    LoadStopped,
    /// A state that should not happen (a worker thread panicked, a result
    /// missing); a bug to report.
    #[error("internal error: {0}")]
    Internal(String),
    /// A directory given as a store that is not one (no `index.tsv`).
    #[error("{}: not a kld store (it has no index.tsv)", path.display())]
    NotAStore {
        /// The directory.
        path: PathBuf,
    },
    /// A SPARQL syntax error, located, with the query's line and a caret
    /// under the position, and a hint for common mistakes.
    #[error("SPARQL syntax error at {line}:{column}: {message}\n{excerpt}{}", hint.as_ref().map(|h| format!("\nhint: {h}")).unwrap_or_default())]
    SparqlSyntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
        /// The line, and a caret under the column.
        excerpt: String,
        /// What to write instead, for the common mistakes.
        hint: Option<String>,
    },
    /// A SPARQL UPDATE where only queries are run.
    #[error("SPARQL: this is a SPARQL UPDATE; only read-only queries (SELECT, ASK, CONSTRUCT, DESCRIBE) are run")]
    UpdateRefused,
    /// A `SERVICE` clause (without `SILENT`): kld evaluates queries over its
    /// own store and contacts no server a query names.
    #[error("SPARQL: SERVICE {service} is refused: kld is offline and contacts only the servers you name, never one a query names; to join these benchmarks with another endpoint, push them to a SPARQL server that federates (Oxigraph, Fuseki, Virtuoso, QLever) and run the query there")]
    ServiceRefused {
        /// The endpoint the clause names (`<iri>` or `?var`).
        service: String,
    },
    /// A query past a complexity bound (nesting depth), refused before it ran.
    #[error("SPARQL: the query's {what} is over the limit of {limit}; simplify it (VALUES instead of long UNION chains, fewer nested groups)")]
    TooComplex {
        /// What is over the bound.
        what: String,
        /// The bound.
        limit: usize,
    },
    /// A query stopped at its time limit.
    #[error("SPARQL: query stopped after the {} s time limit", limit.as_secs_f64())]
    Timeout {
        /// The time limit.
        limit: std::time::Duration,
    },
    /// A query held more memory than its limit, or the running queries
    /// together more than theirs (`total`); it was stopped and its memory
    /// freed.
    #[error("SPARQL: the query was stopped at {}", if *total { format!("the memory limit of all running queries together ({})", crate::memory::show_size(*limit)) } else { format!("its memory limit of {}", crate::memory::show_size(*limit)) })]
    MemoryLimit {
        /// The limit in bytes.
        limit: u64,
        /// Whether the limit passed is the one of all queries together.
        total: bool,
    },
    /// A query's answer grew past the byte limit.
    #[error("SPARQL: the answer was stopped at the limit of {limit} bytes")]
    ResultTooLarge {
        /// The limit in bytes.
        limit: u64,
    },
    /// Writing an answer or a file's contents to the output failed (a closed
    /// pipe, a full disk).
    #[error("writing the answer: {0}")]
    Output(#[source] std::io::Error),
    /// A query stopped because its reader went away or the process is stopping.
    #[error("SPARQL: the query was cancelled")]
    Cancelled,
    /// A query evaluation panicked (a bug in the evaluator): the query failed,
    /// nothing else did.
    #[error("SPARQL: the query failed inside the evaluator: {0}")]
    QueryPanicked(String),
}

impl Error {
    /// A SPARQL failure from any error type.
    pub fn sparql(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Error::Sparql(e.into())
    }

    /// A store failure from any error type.
    pub fn store(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Error::Store(e.into())
    }

    /// An IRI that does not parse.
    pub fn iri(iri: &str, source: oxigraph::model::IriParseError) -> Self {
        Error::Iri {
            iri: iri.to_string(),
            source,
        }
    }

    /// True for a remote server that never answered: a batch should stop
    /// sending.
    pub fn is_unreachable(&self) -> bool {
        matches!(self, Error::Unreachable { .. } | Error::NotSent)
    }

    /// Why a read failed, on one line: the first located error of an
    /// invalid file, else the error itself.
    pub fn first_reason(&self) -> String {
        let text = match self {
            Error::Invalid(r) => r.first_error_line().unwrap_or_else(|| self.to_string()),
            other => other.to_string(),
        };
        text.lines().next().unwrap_or_default().to_string()
    }

    /// An I/O error about `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

/// Library result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `iri` as a named node, or [`Error::Iri`].
pub fn named_node(iri: impl Into<String>) -> Result<oxigraph::model::NamedNode> {
    let iri = iri.into();
    oxigraph::model::NamedNode::new(iri.clone()).map_err(|source| Error::Iri { iri, source })
}

/// A value of Karenina's results database that Karenina refuses when it reads the row
/// (malformed JSON raises `JSONDecodeError`, text in a number column fails
/// its model): left out of the graph, the rest of the row kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadValue {
    /// The table.
    pub table: &'static str,
    /// The row's `id`.
    pub row: String,
    /// The column.
    pub column: String,
    /// Why Karenina refuses it.
    pub reason: String,
}

impl std::fmt::Display for BadValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::terminal::escape_controls as esc;
        write!(
            f,
            "{} row id {} column {}: {}",
            self.table,
            esc(&self.row),
            esc(&self.column),
            esc(&self.reason)
        )
    }
}
