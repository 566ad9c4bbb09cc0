//! Karenina's results database (`karenina.storage`, SQLAlchemy on SQLite):
//! every verification run becomes a results graph like an export's.
//!
//! The file is told by its content (the SQLite header) and opened read-only
//! as any SQLite reader opens it: with SQLite's locks and its write-ahead log,
//! so kld reads what is committed, never a write under way nor values later
//! rolled back. Each connection reads in one read transaction (one snapshot
//! of the database however long the read takes); a lock held by a writer
//! committing is waited for (`busy_wait`), then reported
//! ([`Error::DatabaseLocked`]). The file's bytes and mtime never change (in
//! WAL mode SQLite's reader may create the `-wal` and `-shm` files beside
//! it, as any reader does). It must hold
//! Karenina's tables (`benchmarks`, `verification_runs`,
//! `verification_results`). A result row's flattened columns
//! (`metadata_*`, `template_*`, `rubric_*`, `dj_*`, `djr_*`, Karenina's
//! `FLATTEN_CONFIG`) are folded back into the export's row shape
//! (`metadata.answering.interface`, …; `JSON` columns parsed, `BOOLEAN`
//! columns as booleans: `cells`) and mapped by the export's [`RowMapper`],
//! so the result IRIs and every query answer as for the export. A value
//! Karenina would refuse is a [`BadValue`], left out and returned.

use crate::error::{Error, Result};
use crate::rdf::verification::{ResultsOptions, RowMapper};
use crate::vocab;
use oxigraph::model::{GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term};
use rusqlite::{types::ValueRef, Connection, OpenFlags};
use serde_json::Value;
use std::path::Path;

pub mod benchmark;
mod cells;
mod defensive;
mod run_meta;
pub use cells::BadValue;
pub use run_meta::{recorded_differs, Counts, Import};

/// SQLite's file header.
const HEADER: &[u8] = b"SQLite format 3\0";

/// True when `head` (a file's first bytes) is a SQLite database.
pub fn sniff(head: &[u8]) -> bool {
    head.starts_with(HEADER)
}

/// [`sniff`] on a file.
pub fn sniff_file(file: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 16];
    crate::fsutil::open_regular(file).is_ok_and(|mut f| f.read_exact(&mut head).is_ok())
        && sniff(&head)
}

/// One benchmark of the database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Benchmark {
    /// Row id.
    pub id: i64,
    /// Its name (unique; the checkpoint's `schema:name`).
    pub name: String,
    /// The checkpoint file it was saved from, if recorded.
    pub checkpoint_path: Option<String>,
    /// Set when it is a placeholder Karenina auto-created for a run
    /// ([`crate::model::placeholder`]).
    pub placeholder: Option<crate::model::placeholder::Placeholder>,
}

/// One verification run of the database.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The run id (a UUID).
    pub id: String,
    /// Its name.
    pub name: String,
    /// running / completed / failed …
    pub status: String,
    /// The benchmark it ran.
    pub benchmark: Option<Benchmark>,
    /// The configuration (JSON).
    pub config: Value,
    /// Start and end times, as stored.
    pub start_time: Option<String>,
    /// See `start_time`.
    pub end_time: Option<String>,
    /// Counts as Karenina recorded them: total questions, processed,
    /// successful, failed (see `counted` for what the rows hold).
    pub counts: [Option<i64>; 4],
    /// Counts recomputed from its result rows (with `results`).
    pub counted: Counts,
    /// Where it was imported from, for a run imported from an export (its
    /// `end_time` is then the import's time).
    pub import: Option<Import>,
    /// The error of a failed run.
    pub error_message: Option<String>,
    /// Result rows.
    pub results: u64,
    /// Result rows whose question is in no `questions` row.
    pub missing_questions: u64,
    /// Values of its `verification_runs` row that Karenina refuses (left
    /// out: a malformed `config` is read as none).
    pub bad_values: Vec<BadValue>,
}

fn db_err(file: &Path, e: impl std::fmt::Display + 'static) -> Error {
    let mut reason = e.to_string();
    let sqlite = (&e as &dyn std::any::Any)
        .downcast_ref::<rusqlite::Error>()
        .and_then(|e| match e {
            rusqlite::Error::SqliteFailure(f, _) => Some(*f),
            _ => None,
        });
    match sqlite.map(|f| (f.code, f.extended_code)) {
        Some((rusqlite::ErrorCode::OperationInterrupted, _)) => {
            reason = format!(
                "reading stopped after the {} s limit ({DEADLINE_ENV} sets it): a view or query that does not end?",
                deadline().as_secs_f64()
            );
        }
        Some((rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked, _)) => {
            return Error::DatabaseLocked {
                path: file.to_path_buf(),
                waited_secs: busy_wait().as_secs_f64(),
            }
        }
        // SQLITE_READONLY_ROLLBACK: a hot journal.
        // The authorizer refused a column the file computes ([`guard`]).
        Some((rusqlite::ErrorCode::AuthorizationForStatementDenied, _)) => {
            reason = format!("{reason} (a column the database computes itself: kld runs no SQL a database defines; Karenina's tables have none)");
        }
        Some((_, 776)) => {
            reason = "a write was interrupted (its rollback journal is left beside the file, \
                      hot): SQLite must roll it back before anyone reads, which a read-only \
                      reader cannot; open the database once with Karenina or sqlite3"
                .to_string();
        }
        _ => {}
    }
    Error::NotAResultsDatabase {
        path: file.to_path_buf(),
        reason,
    }
}

/// The environment variable that sets how long to wait, in seconds, for a
/// lock another process holds on a database (a write being committed).
pub(crate) const BUSY_ENV: &str = "KLD_SQLITE_BUSY";

/// How long [`open`]'s connection waits for a lock another process holds
/// before the read fails with [`Error::DatabaseLocked`]: `KLD_SQLITE_BUSY`
/// seconds, default 5 (Python's sqlite3 waits as long).
pub(crate) fn busy_wait() -> std::time::Duration {
    let secs = std::env::var(BUSY_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0 && *s <= 86_400.0)
        .unwrap_or(5.0);
    std::time::Duration::from_secs_f64(secs)
}

/// The environment variable that sets how long reading one database may
/// take, in seconds.
pub(crate) const DEADLINE_ENV: &str = "KLD_SQLITE_DEADLINE";

/// How long reading one database may take (from [`open`]): `KLD_SQLITE_DEADLINE`
/// seconds, default 300. Past it every statement of the connection is
/// interrupted (SQLite's progress handler) and the read ends with an error.
pub(crate) fn deadline() -> std::time::Duration {
    crate::duration::from_env(DEADLINE_ENV, false).unwrap_or(std::time::Duration::from_secs(300))
}

/// Puts every statement of `c` under a deadline of `limit` from now.
pub(crate) fn set_deadline(c: &Connection, limit: std::time::Duration) {
    let end = std::time::Instant::now() + limit;
    // (Called every 10,000 virtual-machine instructions: microseconds.)
    c.progress_handler(10_000, Some(move || std::time::Instant::now() >= end));
}

/// The tables kld reads; each must be a table: a view could recurse
/// without end (a recursive common table expression).
const TABLES: [&str; 4] = [
    "benchmarks",
    "verification_runs",
    "verification_results",
    "questions",
];

/// Opens the database read-only, with SQLite's locking and WAL, under the
/// `deadline` and the `busy_wait`, in one read transaction (every read
/// through the connection sees the snapshot its first read took, until the
/// connection is dropped), and checks its tables (tables, not views).
pub fn open(file: &Path) -> Result<Connection> {
    use rusqlite::OptionalExtension;
    let canon = std::fs::canonicalize(file).map_err(|e| Error::io(file, e))?;
    // Only a regular file: SQLite would block opening a FIFO.
    drop(crate::fsutil::open_regular(&canon)?);
    let uri = url::Url::from_file_path(&canon)
        .map_err(|()| db_err(file, "no file URL"))?
        .to_string()
        + "?mode=ro";
    let c = Connection::open_with_flags(
        uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| db_err(file, e))?;
    c.busy_timeout(busy_wait()).map_err(|e| db_err(file, e))?;
    set_deadline(&c, deadline());
    // (Deferred: the snapshot is taken, and the shared lock or WAL read
    // mark held, from the first read below to the connection's end.)
    c.execute_batch("BEGIN").map_err(|e| db_err(file, e))?;
    // (In the read transaction: the schema it looks at is the one read.)
    defensive::harden(&c).map_err(|e| db_err(file, e))?;
    for t in TABLES {
        let kind: Option<(String, String)> = c
            .query_row(
                "SELECT type, COALESCE(sql, '') FROM sqlite_master
                 WHERE name = ?1 AND type IN ('table', 'view')",
                [t],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| db_err(file, e))?;
        let virtual_table = kind.as_ref().is_some_and(|(_, sql)| {
            sql.split_whitespace()
                .nth(1)
                .is_some_and(|w| w.eq_ignore_ascii_case("VIRTUAL"))
        });
        match kind.as_ref().map(|(k, _)| k.as_str()) {
            Some("table") if virtual_table => {
                return Err(db_err(
                    file,
                    format!(
                        "`{t}` is a virtual table, not a table (kld runs no SQL a database \
                         defines, nor a module's code)"
                    ),
                ))
            }
            Some("table") => {}
            Some(_) => {
                return Err(db_err(
                    file,
                    format!("`{t}` is a view, not a table (kld reads Karenina's tables only)"),
                ))
            }
            // (Older databases may lack `questions`: no result is then "missing".)
            None if t == "questions" => {}
            None => return Err(db_err(file, format!("no table `{t}`"))),
        }
    }
    Ok(c)
}

/// The database's benchmarks.
pub(crate) fn benchmarks(file: &Path, c: &Connection) -> Result<Vec<Benchmark>> {
    let placeholders = run_meta::placeholders(c, file)?;
    let mut st = c
        .prepare("SELECT id, name, checkpoint_path FROM benchmarks ORDER BY id")
        .map_err(|e| db_err(file, e))?;
    let rows = st
        .query_map([], |r| {
            let id: i64 = r.get(0)?;
            Ok(Benchmark {
                id,
                name: r.get(1)?,
                checkpoint_path: r.get(2)?,
                placeholder: placeholders.get(&id).cloned(),
            })
        })
        .map_err(|e| db_err(file, e))?;
    rows.collect::<std::result::Result<_, _>>()
        .map_err(|e| db_err(file, e))
}

/// The `checkpoint_path` of run `run_id`'s benchmark, if recorded.
pub(crate) fn checkpoint_path_of(
    file: &Path,
    c: &Connection,
    run_id: &str,
) -> Result<Option<String>> {
    use rusqlite::OptionalExtension;
    c.query_row(
        "SELECT b.checkpoint_path FROM verification_runs r JOIN benchmarks b ON b.id = r.benchmark_id
         WHERE r.id = ?1",
        [run_id],
        |r| r.get::<_, Option<String>>(0),
    )
    .optional()
    .map(Option::flatten)
    .map_err(|e| db_err(file, e))
}

/// The database's runs, in creation order.
pub fn runs(file: &Path, c: &Connection) -> Result<Vec<Run>> {
    runs_where(file, c, None)
}

/// Run `id` of the database, if it has one: [`runs`] for one run, its
/// counts read through the `run_id` index (loading reads each run so).
pub fn run(file: &Path, c: &Connection, id: &str) -> Result<Option<Run>> {
    Ok(runs_where(file, c, Some(id))?.into_iter().next())
}

fn runs_where(file: &Path, c: &Connection, only: Option<&str>) -> Result<Vec<Run>> {
    let bs = benchmarks(file, c)?;
    let counted = run_meta::counts(c, file, only)?;
    let imports = run_meta::imports(c, file)?;
    let mut st = c
        .prepare(
            "SELECT r.id, r.run_name, r.status, r.config, r.benchmark_id, r.start_time, r.end_time,
                    r.total_questions, r.processed_count, r.successful_count, r.failed_count,
                    r.error_message,
                    (SELECT COUNT(*) FROM verification_results v WHERE v.run_id = r.id),
                    (SELECT COUNT(*) FROM verification_results v WHERE v.run_id = r.id
                       AND NOT EXISTS (SELECT 1 FROM questions q WHERE q.id = v.question_id))
             FROM verification_runs r WHERE ?1 IS NULL OR r.id = ?1 ORDER BY r.created_at, r.id",
        )
        .map_err(|e| db_err(file, e))?;
    let rows = st
        .query_map([only], |r| {
            let id: String = r.get(0)?;
            let mut bad_values = Vec::new();
            let config = cells::cell(r.get_ref(3)?, "JSON").unwrap_or_else(|reason| {
                bad_values.push(BadValue {
                    table: "verification_runs",
                    row: id.clone(),
                    column: "config".into(),
                    reason,
                });
                Value::Null
            });
            let bid: Option<i64> = r.get(4)?;
            Ok(Run {
                name: r.get(1)?,
                status: r.get(2)?,
                config,
                benchmark: bs.iter().find(|b| Some(b.id) == bid).cloned(),
                start_time: text(r.get_ref(5)?),
                end_time: text(r.get_ref(6)?),
                counts: [r.get(7)?, r.get(8)?, r.get(9)?, r.get(10)?],
                error_message: r.get(11)?,
                results: r.get::<_, i64>(12)? as u64,
                missing_questions: r.get::<_, i64>(13)? as u64,
                counted: counted.get(&id).copied().unwrap_or_default(),
                import: imports.get(&id).cloned(),
                id,
                bad_values,
            })
        })
        .map_err(|e| db_err(file, e))?;
    rows.collect::<std::result::Result<_, _>>()
        .map_err(|e| db_err(file, e))
}

impl Run {
    /// Its answering models as `interface:name`, from its configuration.
    pub fn answering_models(&self) -> Vec<String> {
        config_models(&self.config, "answering_models")
    }
}

/// The models of a verification configuration's `key` (`answering_models`,
/// `parsing_models`) as `interface:name`.
pub fn config_models(config: &serde_json::Value, key: &str) -> Vec<String> {
    config[key]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            format!(
                "{}:{}",
                m["interface"].as_str().unwrap_or("?"),
                m["name"]
                    .as_str()
                    .or(m["model_name"].as_str())
                    .unwrap_or("?")
            )
        })
        .collect()
}

/// What binding looks for in one result of a run: its question ID, and for
/// a scenario turn its scenario name and node.
pub(crate) type RunKey = (String, Option<String>, Option<String>);

/// The distinct [`RunKey`]s of run `run_id`: what binds it, without mapping
/// its results.
pub(crate) fn run_keys(file: &Path, c: &Connection, run_id: &str) -> Result<Vec<RunKey>> {
    let has = |col: &str| -> Result<bool> {
        let n: i64 = c
            .query_row(
                "SELECT COUNT(*) FROM pragma_table_info('verification_results') WHERE name = ?1",
                [col],
                |r| r.get(0),
            )
            .map_err(|e| db_err(file, e))?;
        Ok(n > 0)
    };
    let col = |name: &str, or: &str| -> Result<String> {
        Ok(if has(name)? { name } else { or }.to_string())
    };
    let q = format!(
        "SELECT DISTINCT {}, {}, {} FROM verification_results WHERE run_id = ?1",
        col("metadata_question_id", "question_id")?,
        col("metadata_scenario_id", "NULL")?,
        col("metadata_scenario_node", "NULL")?,
    );
    let mut st = c.prepare(&q).map_err(|e| db_err(file, e))?;
    let rows = st
        .query_map([run_id], |r| {
            Ok((
                text(r.get_ref(0)?).unwrap_or_default(),
                text(r.get_ref(1)?),
                text(r.get_ref(2)?),
            ))
        })
        .map_err(|e| db_err(file, e))?;
    rows.collect::<std::result::Result<_, _>>()
        .map_err(|e| db_err(file, e))
}

fn text(v: ValueRef<'_>) -> Option<String> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i.to_string()),
        ValueRef::Real(f) => Some(f.to_string()),
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(String::from_utf8_lossy(t).into_owned()),
    }
}

use crate::vocab::term as k;

/// Hands each result row of `run` to `each`, in the export's row shape, in
/// the order Karenina inserted them (what [`map_run`] maps). Returns the
/// values Karenina would refuse, left out of the rows (as nulls).
pub(crate) fn read_run(
    file: &Path,
    c: &Connection,
    run: &Run,
    each: &mut dyn FnMut(Value) -> std::result::Result<(), crate::results::RowError>,
) -> Result<Vec<BadValue>> {
    // (Named columns, never `*`: a column the file computes is never read.)
    let cols = defensive::plain_columns(file, c, "verification_results")?;
    let names: Vec<String> = cols.iter().map(|(n, _)| defensive::quoted(n)).collect();
    let mut st = c
        .prepare(&format!(
            "SELECT {} FROM verification_results WHERE run_id = ?1 ORDER BY id",
            names.join(", ")
        ))
        .map_err(|e| db_err(file, e))?;
    let mut rows = st.query([&run.id]).map_err(|e| db_err(file, e))?;
    let id_col = cols.iter().position(|(name, _)| name == "id");
    let mut bad = Vec::new();
    let mut n = 0usize;
    while let Some(r) = rows.next().map_err(|e| db_err(file, e))? {
        let r_id = |c: usize| r.get_ref(c).ok().and_then(text);
        let mut values = Vec::with_capacity(cols.len());
        for (i, (name, decl)) in cols.iter().enumerate() {
            let v = r.get_ref(i).map_err(|e| db_err(file, e))?;
            values.push(cells::cell(v, decl).unwrap_or_else(|reason| {
                bad.push(BadValue {
                    table: "verification_results",
                    row: id_col
                        .and_then(|c| r.get_ref(c).ok())
                        .and_then(text)
                        .unwrap_or_else(|| format!("#{n}")),
                    column: name.clone(),
                    reason,
                });
                Value::Null
            }));
        }
        // Values of the right column type Karenina's models still refuse
        // (`verify_result` text "maybe"), left out; those they coerce, coerced.
        let mut row = cells::row_of(&cols, &values);
        crate::results::coerce::row_leaving_out(&mut row, &mut |r| {
            bad.push(BadValue {
                table: "verification_results",
                row: id_col.and_then(&r_id).unwrap_or_else(|| format!("#{n}")),
                column: cells::column_of(&r.path),
                reason: r.reason,
            })
        });
        each(row).map_err(|m| {
            db_err(
                file,
                format!("run {} result {n} (verification_results): {m}", run.id),
            )
        })?;
        n += 1;
    }
    Ok(bad)
}

/// Maps one run of the database into `graph`: its results as an export's,
/// and on the run node `runSource "database"`, `runId`, `manifestRunName`,
/// `runStatus` (as recorded), `createdAt` / `completedAt` (start and end
/// times; an imported run's end time is `importedAt`),
/// `configuration` (`rdf:JSON`), `runFailureMessage`, `benchmarkName`,
/// `benchmarkPath`, and the counts and import source of
/// [`run_meta::facts`]. Returns the values Karenina would refuse, left out.
pub(crate) fn map_run(
    file: &Path,
    c: &Connection,
    run: &Run,
    graph: &GraphName,
    opts: ResultsOptions,
    sink: &mut dyn FnMut(Quad),
) -> Result<Vec<BadValue>> {
    let mut mapper = RowMapper::new(graph.clone(), opts);
    mapper.run(&run_meta::header(run), sink);
    let bad = read_run(file, c, run, &mut |row| mapper.row(row, sink))?;
    let node = NamedOrBlankNode::BlankNode(mapper.run_node().clone());
    let s = |v: &str| Term::Literal(Literal::new_simple_literal(v));
    let mut facts = vec![
        ("runSource", s("database")),
        ("runId", s(&run.id)),
        ("manifestRunName", s(&run.name)),
        ("runStatus", s(&run.status)),
        (
            "configuration",
            Term::Literal(Literal::new_typed_literal(
                run.config.to_string(),
                NamedNode::new_unchecked(vocab::RDF_JSON),
            )),
        ),
    ];
    let time = |t: &str| {
        let iso = t.replacen(' ', "T", 1);
        match chrono::NaiveDateTime::parse_from_str(&iso, "%Y-%m-%dT%H:%M:%S%.f") {
            Ok(_) => Term::Literal(Literal::new_typed_literal(
                format!("{iso}Z"),
                NamedNode::new_unchecked(vocab::XSD_DATETIME),
            )),
            Err(_) => s(t),
        }
    };
    if let Some(t) = &run.start_time {
        facts.push(("createdAt", time(t)));
    }
    facts.extend(run_meta::facts(run, &time));
    if let Some(m) = &run.error_message {
        facts.push(("runFailureMessage", s(m)));
    }
    if let Some(b) = &run.benchmark {
        facts.push(("benchmarkName", s(&b.name)));
        if let Some(p) = &b.checkpoint_path {
            facts.push(("benchmarkPath", s(p)));
        }
    }
    for (p, o) in facts {
        sink(Quad::new(node.clone(), k(p), o, graph.clone()));
    }
    Ok(bad)
}

#[cfg(test)]
mod deadline_tests {
    use super::*;

    /// A database holding Karenina's three tables and `questions` as given.
    fn db_with_questions(dir: &Path, questions: &str) -> std::path::PathBuf {
        let f = dir.join("k.db");
        let c = Connection::open(&f).unwrap();
        c.execute_batch(&format!(
            "CREATE TABLE benchmarks (id INTEGER PRIMARY KEY, name TEXT, checkpoint_path TEXT);
             CREATE TABLE verification_runs (id TEXT PRIMARY KEY);
             CREATE TABLE verification_results (id INTEGER PRIMARY KEY, run_id TEXT);
             {questions}"
        ))
        .unwrap();
        f
    }

    #[test]
    fn a_recursive_view_is_refused_and_a_query_that_does_not_end_is_stopped() {
        let d = tempfile::tempdir().unwrap();
        let f = db_with_questions(
            d.path(),
            "CREATE VIEW questions AS WITH RECURSIVE n(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM n) SELECT id FROM n;",
        );
        let e = open(&f).unwrap_err().to_string();
        assert!(
            e.contains("`questions` is a view") && e.contains("KLD-E202"),
            "{e}"
        );
        // The deadline itself, on a query that never ends.
        let c = Connection::open(&f).unwrap();
        set_deadline(&c, std::time::Duration::from_millis(300));
        let t = std::time::Instant::now();
        let r: rusqlite::Result<i64> =
            c.query_row("SELECT COUNT(*) FROM questions", [], |r| r.get(0));
        let e = db_err(&f, r.unwrap_err()).to_string();
        assert!(t.elapsed() < std::time::Duration::from_secs(30));
        assert!(
            e.contains("reading stopped after") && e.contains(DEADLINE_ENV),
            "{e}"
        );
    }
}
