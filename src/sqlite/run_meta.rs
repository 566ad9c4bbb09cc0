//! What a run of the database is, beside what Karenina recorded of it: its
//! counts recomputed from its result rows (Karenina records `completed` and
//! the counts once, and `DBSink`, saving results as they come, leaves
//! `processed_count = 1` after five), and where an imported run came from
//! (`import_metadata`: its `end_time` is the import's time, not the run's).

use super::{db_err, text, Run};
use crate::error::Result;
use oxigraph::model::{Literal, NamedNode, Term};
use rusqlite::{Connection, OptionalExtension};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// Counts recomputed from a run's result rows, as Karenina computes the ones
/// it records (`save_verification_results`, `import_verification_results`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Distinct question IDs (Karenina's `total_questions`).
    pub questions: u64,
    /// Results with no failure (`successful_count`); `None` when the table
    /// has no failure columns.
    pub successful: Option<u64>,
    /// Results with a failure (`failed_count`).
    pub failed: Option<u64>,
}

/// Where an imported run came from: its `import_metadata` row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Import {
    /// `json_file`, …
    pub source: String,
    /// The export's `format_version`.
    pub format_version: Option<String>,
    /// The export's file name, as given to the import.
    pub filename: Option<String>,
    /// The export's job id: the run's own.
    pub job_id: Option<String>,
    /// The export's timestamp.
    pub export_timestamp: Option<String>,
    /// The Karenina version that wrote the export.
    pub karenina_version: Option<String>,
    /// The results imported, as recorded.
    pub results_count: Option<i64>,
    /// When it was imported.
    pub imported_at: Option<String>,
}

fn has_table(c: &Connection, file: &Path, name: &str) -> Result<bool> {
    let kind: Option<String> = c
        .query_row(
            "SELECT type FROM sqlite_master WHERE name = ?1",
            [name],
            |r| r.get(0),
        )
        .optional()
        .map_err(|e| db_err(file, e))?;
    Ok(kind.as_deref() == Some("table"))
}

fn columns(c: &Connection, file: &Path, table: &str) -> Result<Vec<String>> {
    let mut st = c
        .prepare("SELECT name FROM pragma_table_info(?1)")
        .map_err(|e| db_err(file, e))?;
    let names = st
        .query_map([table], |r| r.get::<_, String>(0))
        .map_err(|e| db_err(file, e))?;
    names
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| db_err(file, e))
}

/// Every run's [`Counts`], by run id (`only`: that run's alone, read through
/// the `run_id` index instead of a scan of every result).
pub(super) fn counts(
    c: &Connection,
    file: &Path,
    only: Option<&str>,
) -> Result<HashMap<String, Counts>> {
    let cols = columns(c, file, "verification_results")?;
    let quoted = |n: &str| format!("\"{}\"", n.replace('"', "\"\""));
    let question = if cols.iter().any(|n| n == "metadata_question_id") {
        "metadata_question_id"
    } else {
        "question_id"
    };
    // A result has no failure when every `metadata_failure_*` column is
    // null (SQL NULL, or JSON null as Karenina's JSON columns write it).
    let failure: Vec<String> = cols
        .iter()
        .filter(|n| n.starts_with("metadata_failure_"))
        .map(|n| format!("({0} IS NULL OR {0} = 'null')", quoted(n)))
        .collect();
    let ok = match failure.is_empty() {
        true => "NULL".to_string(),
        false => format!("SUM(CASE WHEN {} THEN 1 ELSE 0 END)", failure.join(" AND ")),
    };
    let mut st = c
        .prepare(&format!(
            "SELECT run_id, COUNT(DISTINCT {}), COUNT(*), {ok} FROM verification_results
             WHERE ?1 IS NULL OR run_id = ?1 GROUP BY run_id",
            quoted(question)
        ))
        .map_err(|e| db_err(file, e))?;
    let rows = st
        .query_map([only], |r| {
            let id = text(r.get_ref(0)?).unwrap_or_default();
            let total = r.get::<_, i64>(2)? as u64;
            let ok = r.get::<_, Option<i64>>(3)?.map(|n| n as u64);
            Ok((
                id,
                Counts {
                    questions: r.get::<_, i64>(1)? as u64,
                    successful: ok,
                    failed: ok.map(|n| total - n),
                },
            ))
        })
        .map_err(|e| db_err(file, e))?;
    rows.collect::<std::result::Result<_, _>>()
        .map_err(|e| db_err(file, e))
}

/// Every imported run's [`Import`], by run id (the first row of a run).
pub(super) fn imports(c: &Connection, file: &Path) -> Result<HashMap<String, Import>> {
    if !has_table(c, file, "import_metadata")? {
        return Ok(HashMap::new());
    }
    let cols = columns(c, file, "import_metadata")?;
    let col = |n: &str| match cols.iter().any(|c| c == n) {
        true => n.to_string(),
        false => "NULL".to_string(),
    };
    let mut st = c
        .prepare(&format!(
            "SELECT run_id, {}, {}, {}, {}, {}, {}, {}, {} FROM import_metadata ORDER BY id DESC",
            col("import_source"),
            col("source_format_version"),
            col("source_filename"),
            col("source_job_id"),
            col("source_export_timestamp"),
            col("source_karenina_version"),
            col("results_count"),
            col("created_at"),
        ))
        .map_err(|e| db_err(file, e))?;
    let rows = st
        .query_map([], |r| {
            let t = |i: usize| r.get_ref(i).map(text);
            Ok((
                t(0)?.unwrap_or_default(),
                Import {
                    source: t(1)?.unwrap_or_default(),
                    format_version: t(2)?,
                    filename: t(3)?,
                    job_id: t(4)?,
                    export_timestamp: t(5)?,
                    karenina_version: t(6)?,
                    results_count: t(7)?.and_then(|n| n.parse().ok()),
                    imported_at: t(8)?,
                },
            ))
        })
        .map_err(|e| db_err(file, e))?;
    // (Newest first: a run's oldest row, inserted last, is the one kept.)
    rows.collect::<std::result::Result<HashMap<_, _>, _>>()
        .map_err(|e| db_err(file, e))
}

/// The export header [`crate::rdf::verification::RowMapper::run`] reads for `run`:
/// its id as `jobId`, or for an imported run its export's job id, Karenina
/// version (`kareninaVersion`), timestamp (`exportTime`) and format version
/// (`formatVersion`), as the export itself gives them.
pub(super) fn header(run: &Run) -> Value {
    let mut metadata = serde_json::json!({
        "job_id": run.id,
        "verification_config": run.config,
    });
    let mut header = serde_json::json!({"source_format": "json"});
    if let Some(i) = &run.import {
        for (key, v) in [
            ("job_id", &i.job_id),
            ("karenina_version", &i.karenina_version),
            ("export_timestamp", &i.export_timestamp),
        ] {
            if let Some(v) = v {
                metadata[key] = Value::from(v.as_str());
            }
        }
        if let Some(v) = &i.format_version {
            header["format_version"] = Value::from(v.as_str());
        }
    }
    header["metadata"] = metadata;
    header
}

/// The run node's facts about its end, counts and source: `completedAt`
/// (its end time), or for an imported run `importedAt` (the end time
/// Karenina gave it: the import's) with `importSource`, `importedFrom` (the
/// export's file name) and `recordedImportCount`; the counts its rows hold
/// (`resultCount`, `questionCount`, `successfulCount`, `failedCount`) and
/// those Karenina recorded (`recordedQuestionCount`,
/// `recordedProcessedCount`, `recordedSuccessfulCount`,
/// `recordedFailedCount`).
pub(super) fn facts(run: &Run, time: &dyn Fn(&str) -> Term) -> Vec<(&'static str, Term)> {
    let s = |v: &str| Term::Literal(Literal::new_simple_literal(v));
    let int = |n: i64| {
        Term::Literal(Literal::new_typed_literal(
            n.to_string(),
            NamedNode::new_unchecked(crate::vocab::XSD_INTEGER),
        ))
    };
    let mut facts = Vec::new();
    match (&run.import, &run.end_time) {
        (None, Some(t)) => facts.push(("completedAt", time(t))),
        (Some(_), Some(t)) => facts.push(("importedAt", time(t))),
        _ => {}
    }
    if let Some(i) = &run.import {
        facts.push(("importSource", s(&i.source)));
        if let Some(f) = &i.filename {
            facts.push(("importedFrom", s(f)));
        }
        if let Some(n) = i.results_count {
            facts.push(("recordedImportCount", int(n)));
        }
    }
    let c = &run.counted;
    facts.push(("resultCount", int(run.results as i64)));
    facts.push(("questionCount", int(c.questions as i64)));
    if let (Some(ok), Some(failed)) = (c.successful, c.failed) {
        facts.push(("successfulCount", int(ok as i64)));
        facts.push(("failedCount", int(failed as i64)));
    }
    for (p, n) in [
        "recordedQuestionCount",
        "recordedProcessedCount",
        "recordedSuccessfulCount",
        "recordedFailedCount",
    ]
    .into_iter()
    .zip(run.counts)
    {
        if let Some(n) = n {
            facts.push((p, int(n)));
        }
    }
    facts
}

/// What Karenina recorded of `run` that its rows contradict, said plainly
/// (`None` when the recorded counts are the rows'): a run saved as it went
/// (`DBSink`) or cut short keeps the counts of its first save.
pub fn recorded_differs(run: &Run) -> Option<String> {
    let c = &run.counted;
    let now = [
        Some(c.questions as i64),
        Some(run.results as i64),
        c.successful.map(|n| n as i64),
        c.failed.map(|n| n as i64),
    ];
    let names = ["questions", "processed", "successful", "failed"];
    let differ: Vec<String> = names
        .iter()
        .zip(run.counts.iter().zip(now))
        .filter_map(|(name, (rec, now))| match (rec, now) {
            (Some(r), Some(n)) if *r != n => Some(format!("{name} {r} (its rows: {n})")),
            _ => None,
        })
        .collect();
    (!differ.is_empty()).then(|| {
        format!(
            "Karenina recorded {} for this run; kld counts its rows",
            differ.join(", ")
        )
    })
}

/// The placeholder benchmarks of the database, by benchmark id: every
/// question's `raw_answer` Karenina's placeholder.
pub(super) fn placeholders(
    c: &Connection,
    file: &Path,
) -> Result<HashMap<i64, crate::model::placeholder::Placeholder>> {
    use crate::model::placeholder::{Placeholder, ANSWER};
    if !(has_table(c, file, "benchmark_questions")? && has_table(c, file, "questions")?) {
        return Ok(HashMap::new());
    }
    let description = match columns(c, file, "benchmarks")?
        .iter()
        .any(|n| n == "description")
    {
        true => "b.description",
        false => "NULL",
    };
    let mut st = c
        .prepare(&format!(
            "SELECT b.id, {description},
                    COUNT(DISTINCT bq.question_id),
                    COUNT(DISTINCT CASE WHEN q.raw_answer = ?1 THEN bq.question_id END)
             FROM benchmarks b JOIN benchmark_questions bq ON bq.benchmark_id = b.id
             JOIN questions q ON q.id = bq.question_id GROUP BY b.id"
        ))
        .map_err(|e| db_err(file, e))?;
    let rows = st
        .query_map([ANSWER], |r| {
            let d = text(r.get_ref(1)?);
            Ok((
                r.get::<_, i64>(0)?,
                Placeholder::of(
                    r.get::<_, i64>(3)? as usize,
                    r.get::<_, i64>(2)? as usize,
                    d.as_deref(),
                ),
            ))
        })
        .map_err(|e| db_err(file, e))?;
    let mut out = HashMap::new();
    for row in rows {
        if let (id, Some(p)) = row.map_err(|e| db_err(file, e))? {
            out.insert(id, p);
        }
    }
    Ok(out)
}
