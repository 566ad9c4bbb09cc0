//! Benchmarks that live in Karenina's database (`benchmarks`, `questions`,
//! `benchmark_questions`), rebuilt as `Benchmark.load_from_db(url, name)`
//! rebuilds them (Karenina `storage/operations.py` `load_benchmark`), so a
//! run against a benchmark that has no checkpoint file binds to it as to one.
//!
//! Why here and not in `model`: the rebuilding is a reading of the database
//! (its rows, its JSON columns, its timestamps); what it produces is a
//! checkpoint in Karenina's save format, which `model` then reads like any
//! file and `canonical` writes as Karenina's `save()` does.
//!
//! Karenina's loader, row by row (in `created_at` order, with Karenina's
//! own statement, `ORDER BY created_at` and nothing more: `save_to_db`
//! inserts a benchmark's rows a microsecond or less apart, so equal times are
//! common, and SQLite then returns them in the order of the index it reads,
//! `idx_benchmark_finished`, unfinished questions first; a tie-break of kld's
//! own put questions in another order than Karenina's): `Question(...)` from
//! the `questions` row (keywords from the association row if any, else the
//! question's), `add_question(question, question_id, answer_template,
//! finished, few_shot_examples)` (the metadata as `PropertyValue`s, author,
//! sources and few-shot examples as `json.dumps` strings, a missing template
//! as Karenina's default one), `set_question_rubric` from
//! `benchmark_questions.question_rubric` and `set_global_rubric` from
//! `benchmarks.metadata_json["global_rubric"]`, each trait through
//! `deserialize_rubric_from_dict` (its defaults) and
//! `convert_rubric_trait_to_rating`. Timestamps and the root `@id` are
//! Karenina's clock at load time; kld writes the database's own instead
//! (`created_at`, `updated_at`), so the same database gives the same bytes.
//!
//! Several rows of one question (one per template version: `save_to_db` of an
//! edited template adds a row keyed by the new `template_id` and keeps the
//! old one) make Karenina's loader raise ("Question with ID … already
//! exists"). kld keeps the newest version (latest `updated_at`) at the place
//! of the question's first row, says so ([`DbBenchmark::karenina_refuses`]),
//! and keeps every version as [`TemplateVersion`]s.

use super::db_err;
use crate::error::{Error, Result};
use crate::json::{self, Json, Number, Object};
use crate::model::{self, Checkpoint, ReadOptions};
use rusqlite::{types::ValueRef, Connection};
use std::path::Path;

/// One row of `benchmark_questions`: a version of a question's template.
#[derive(Clone, Debug, PartialEq)]
pub struct TemplateVersion {
    /// The question ID (the checkpoint item's `@id`).
    pub question_id: String,
    /// MD5 of the normalised template (`generate_template_id`), or `no_template`.
    pub template_id: String,
    /// The template's code (none: Karenina's default template is used).
    pub template: Option<String>,
    /// `finished` as stored.
    pub finished: bool,
    /// When the row was created (ISO 8601, as Python's `isoformat`).
    pub created_at: String,
    /// When the row was last saved.
    pub updated_at: String,
    /// The version the rebuilt checkpoint holds (the newest of its question).
    pub current: bool,
}

/// A database benchmark rebuilt as a checkpoint.
#[derive(Clone, Debug)]
pub struct DbBenchmark {
    /// Its name.
    pub name: String,
    /// The checkpoint file it was saved from, if recorded.
    pub checkpoint_path: Option<String>,
    /// The bytes `Benchmark.load_from_db(url, name).save(path)` writes, with
    /// the database's timestamps for Karenina's clock.
    pub bytes: String,
    /// Those bytes read back.
    pub checkpoint: Checkpoint,
    /// Every template version of every question, in row order.
    pub history: Vec<TemplateVersion>,
    /// Why Karenina's `load_from_db` raises on this benchmark, if it does
    /// (questions with several template versions): the bytes are then what
    /// it would write keeping each question's newest version.
    pub karenina_refuses: Option<String>,
}

/// The names of the database's benchmarks, in row order.
pub fn names(file: &Path, c: &Connection) -> Result<Vec<String>> {
    let mut st = c
        .prepare("SELECT name FROM benchmarks ORDER BY id")
        .map_err(|e| db_err(file, e))?;
    let rows = st
        .query_map([], |r| r.get::<_, String>(0))
        .map_err(|e| db_err(file, e))?;
    rows.collect::<std::result::Result<_, _>>()
        .map_err(|e| db_err(file, e))
}

/// True when the database has the tables a benchmark is rebuilt from.
pub(crate) fn has_questions(c: &Connection) -> bool {
    ["questions", "benchmark_questions"].iter().all(|t| {
        c.query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [t],
            |r| r.get::<_, i64>(0),
        )
        .is_ok_and(|n| n > 0)
    })
}

fn bad(file: &Path, name: &str, reason: impl Into<String>) -> Error {
    Error::DatabaseBenchmark {
        path: file.to_path_buf(),
        benchmark: name.to_string(),
        reason: reason.into(),
    }
}

/// A text cell (TEXT or BLOB as UTF-8), none for NULL.
fn text(v: ValueRef<'_>) -> Option<String> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i.to_string()),
        ValueRef::Real(f) => Some(f.to_string()),
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(String::from_utf8_lossy(t).into_owned()),
    }
}

/// A `JSON` column as Python's `json.loads` reads it (none for NULL or JSON `null`).
fn json_cell(v: ValueRef<'_>, what: &str) -> std::result::Result<Option<Json>, String> {
    match text(v) {
        None => Ok(None),
        Some(t) => match json::parse(t.as_bytes()) {
            Ok(Json::Null) => Ok(None),
            Ok(j) => Ok(Some(j)),
            Err(e) => Err(format!("{what}: malformed JSON ({})", e.message)),
        },
    }
}

/// SQLAlchemy's SQLite `DateTime` text (`2026-11-28 04:13:37.048065`) as
/// Python's `datetime.isoformat()` writes it (`T`, no `.000000`).
pub(crate) fn isoformat(stored: &str) -> String {
    let iso = stored.replacen(' ', "T", 1);
    match iso.strip_suffix(".000000") {
        Some(s) => s.to_string(),
        None => iso,
    }
}

/// Python's truthiness of a JSON value (`if author:`).
fn truthy(v: &Option<Json>) -> bool {
    match v {
        None | Some(Json::Null) => false,
        Some(Json::Bool(b)) => *b,
        Some(Json::Number(n)) => n.as_f64() != 0.0,
        Some(Json::String(s)) => !s.is_empty(),
        Some(Json::Array(a)) => !a.is_empty(),
        Some(Json::Object(o)) => !o.is_empty(),
    }
}

/// `json.dumps(v)`: Python's default separators (`, ` and `: `), ASCII only.
pub(crate) fn py_dumps(v: &Json) -> String {
    let mut out = String::new();
    dumps_into(&mut out, v);
    out
}

fn dumps_into(out: &mut String, v: &Json) {
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(&json::py::number_repr(n)),
        Json::String(s) => json::py::escape_into(out, s, true),
        Json::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                dumps_into(out, x);
            }
            out.push(']');
        }
        Json::Object(o) => {
            out.push('{');
            for (i, (k, x)) in o.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                json::py::escape_into(out, k, true);
                out.push_str(": ");
                dumps_into(out, x);
            }
            out.push('}');
        }
    }
}

fn s(v: &str) -> Json {
    Json::String(v.to_string())
}

fn float(v: f64) -> Json {
    Json::Number(Number::from_f64(v))
}

fn obj(members: Vec<(&str, Json)>) -> Json {
    let mut o = Object::new();
    for (k, v) in members {
        o.push(k, v);
    }
    Json::Object(o)
}

/// A `PropertyValue`; a `None` value is left out, as `exclude_none` does.
fn prop(name: &str, value: Option<Json>) -> Json {
    let mut o = Object::new();
    o.push("@type", s("PropertyValue"));
    o.push("name", s(name));
    if let Some(v) = value.filter(|v| *v != Json::Null) {
        o.push("value", v);
    }
    Json::Object(o)
}

/// Karenina's default template for a question without one
/// (`QuestionManager._create_default_template`).
pub(crate) fn default_template(question: &str) -> String {
    let head: String = question.chars().take(50).collect();
    format!(
        "class Answer(BaseAnswer):\n    \"\"\"Answer template for: {head}...\"\"\"\n\n    response: str = Field(description=\"The answer response\")\n\n    def verify(self) -> bool:\n        # Default template: returns False to indicate custom verification needed\n        return False\n"
    )
}

mod trait_rows;

/// A row of `benchmark_questions` with its `questions` row.
struct Row {
    question_id: String,
    template_id: String,
    template: Option<String>,
    finished: bool,
    keywords: Option<Json>,
    rubric: Option<Json>,
    created_at: String,
    updated_at: String,
    id: i64,
}

/// Rebuilds benchmark `name` of the database as `load_from_db` does.
pub fn read(file: &Path, c: &Connection, name: &str) -> Result<DbBenchmark> {
    use rusqlite::OptionalExtension;
    let head = c
        .query_row(
            "SELECT id, description, version, creator, checkpoint_path, metadata_json,
                    created_at, updated_at FROM benchmarks WHERE name = ?1",
            [name],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    text(r.get_ref(1)?),
                    text(r.get_ref(2)?),
                    text(r.get_ref(3)?),
                    text(r.get_ref(4)?),
                    json_cell(r.get_ref(5)?, "benchmarks.metadata_json"),
                    text(r.get_ref(6)?).unwrap_or_default(),
                    text(r.get_ref(7)?).unwrap_or_default(),
                ))
            },
        )
        .optional()
        .map_err(|e| db_err(file, e))?
        .ok_or_else(|| bad(file, name, "no benchmark of that name in the database"))?;
    let (bid, description, version, creator, checkpoint_path, metadata, created, updated) = head;
    let metadata = metadata.map_err(|m| bad(file, name, m))?;
    let mut st = c
        .prepare(
            "SELECT question_id, template_id, answer_template, finished, keywords,
                    question_rubric, created_at, updated_at, id
             FROM benchmark_questions WHERE benchmark_id = ?1 ORDER BY created_at",
        )
        .map_err(|e| db_err(file, e))?;
    let rows: Vec<std::result::Result<Row, String>> = st
        .query_map([bid], |r| {
            let id: i64 = r.get(8)?;
            let at = |col: &str| format!("benchmark_questions row id {id} column {col}");
            Ok((|| {
                Ok(Row {
                    question_id: text(r.get_ref(0).map_err(|e| e.to_string())?).unwrap_or_default(),
                    template_id: text(r.get_ref(1).map_err(|e| e.to_string())?).unwrap_or_default(),
                    template: text(r.get_ref(2).map_err(|e| e.to_string())?),
                    finished: matches!(r.get_ref(3), Ok(ValueRef::Integer(i)) if i != 0),
                    keywords: json_cell(r.get_ref(4).map_err(|e| e.to_string())?, &at("keywords"))?,
                    rubric: json_cell(
                        r.get_ref(5).map_err(|e| e.to_string())?,
                        &at("question_rubric"),
                    )?,
                    created_at: isoformat(
                        &text(r.get_ref(6).map_err(|e| e.to_string())?).unwrap_or_default(),
                    ),
                    updated_at: isoformat(
                        &text(r.get_ref(7).map_err(|e| e.to_string())?).unwrap_or_default(),
                    ),
                    id,
                })
            })())
        })
        .map_err(|e| db_err(file, e))?
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| db_err(file, e))?;
    let rows: Vec<Row> = rows
        .into_iter()
        .collect::<std::result::Result<_, _>>()
        .map_err(|m| bad(file, name, m))?;
    // The newest row of each question is its current version.
    let mut newest: std::collections::HashMap<&str, &Row> = std::collections::HashMap::new();
    for r in &rows {
        let e = newest.entry(&r.question_id).or_insert(r);
        if (r.updated_at.as_str(), r.id) > (e.updated_at.as_str(), e.id) {
            *e = r;
        }
    }
    let mut refuses = Vec::new();
    let mut items = Vec::new();
    let mut placed = std::collections::HashSet::new();
    for r in &rows {
        if !placed.insert(r.question_id.as_str()) {
            if refuses.len() < 3 {
                refuses.push(r.question_id.clone());
            }
            continue;
        }
        let cur = newest[r.question_id.as_str()];
        items.push(item(file, c, name, cur)?);
    }
    let history = rows
        .iter()
        .map(|r| TemplateVersion {
            question_id: r.question_id.clone(),
            template_id: r.template_id.clone(),
            template: r.template.clone(),
            finished: r.finished,
            created_at: r.created_at.clone(),
            updated_at: r.updated_at.clone(),
            current: std::ptr::eq(newest[r.question_id.as_str()], r),
        })
        .collect();
    let karenina_refuses = (!refuses.is_empty()).then(|| {
        format!(
            "Karenina's load_from_db raises \"Question with ID {} already exists\" (several template versions of {}); kld keeps each question's newest version",
            refuses[0],
            refuses.join(", ")
        )
    });
    let global = match metadata.as_ref().and_then(|m| match m {
        Json::Object(o) => o.get("global_rubric").cloned(),
        _ => None,
    }) {
        Some(g) if truthy(&Some(g.clone())) => {
            trait_rows::ratings(&g, true).map_err(|m| bad(file, name, m))?
        }
        _ => None,
    };
    let mut root = Object::new();
    root.push(
        "@context",
        Json::Object(crate::context::canonical().clone()),
    );
    root.push("@type", s("DataFeed"));
    root.push("@id", s(&checkpoint_id(&created)));
    root.push("name", s(name));
    let description = description.filter(|d| !d.is_empty());
    root.push(
        "description",
        s(description
            .as_deref()
            .unwrap_or("Benchmark containing questions")),
    );
    root.push("version", s(version.as_deref().unwrap_or("")));
    root.push(
        "creator",
        s(creator
            .as_deref()
            .filter(|c| !c.is_empty())
            .unwrap_or("Unknown")),
    );
    root.push("dateCreated", s(&isoformat(&created)));
    root.push("dateModified", s(&isoformat(&updated)));
    if let Some(g) = global {
        root.push("rating", Json::Array(g));
    }
    root.push("dataFeedElement", Json::Array(items));
    root.push(
        "additionalProperty",
        Json::Array(vec![prop(
            "benchmark_format_version",
            Some(s("3.0.0-jsonld")),
        )]),
    );
    let draft = json::py::dumps(&Json::Object(root), false);
    let label = Path::new(name);
    let cp =
        model::read_checkpoint(label, draft.as_bytes(), ReadOptions::default()).map_err(|e| {
            bad(
                file,
                name,
                format!("Karenina would refuse the rebuilt benchmark: {e}"),
            )
        })?;
    let bytes = crate::save::write_checkpoint(
        &cp,
        &crate::save::WriteOptions {
            strip_deep_judgment: true,
            ..Default::default()
        },
    );
    let checkpoint = model::read_checkpoint(label, bytes.as_bytes(), ReadOptions::default())
        .map_err(|e| bad(file, name, e.to_string()))?;
    Ok(DbBenchmark {
        name: name.to_string(),
        checkpoint_path,
        bytes,
        checkpoint,
        history,
        karenina_refuses,
    })
}

/// `urn:uuid:karenina-checkpoint-<POSIX time>` of the benchmark's creation
/// (Karenina writes its clock's at load time).
fn checkpoint_id(created: &str) -> String {
    let t = chrono::NaiveDateTime::parse_from_str(
        &created.replacen(' ', "T", 1),
        "%Y-%m-%dT%H:%M:%S%.f",
    )
    .map(|d| d.and_utc())
    .map(|d| d.timestamp() as f64 + f64::from(d.timestamp_subsec_micros()) / 1e6)
    .unwrap_or(0.0);
    format!("urn:uuid:karenina-checkpoint-{}", json::py::float_repr(t))
}

/// One `DataFeedItem` from a row and its question, as `add_question` builds it.
fn item(file: &Path, c: &Connection, name: &str, r: &Row) -> Result<Json> {
    use rusqlite::OptionalExtension;
    type Q = (
        Option<String>,
        Option<String>,
        Option<String>,
        [std::result::Result<Option<Json>, String>; 5],
    );
    let q: Option<Q> = c
        .query_row(
            "SELECT question_text, raw_answer, answer_notes, keywords, few_shot_examples,
                    author, sources, custom_metadata FROM questions WHERE id = ?1",
            [&r.question_id],
            |row| {
                let at = |col: &str| format!("questions row id {} column {col}", r.question_id);
                Ok((
                    text(row.get_ref(0)?),
                    text(row.get_ref(1)?),
                    text(row.get_ref(2)?),
                    [
                        json_cell(row.get_ref(3)?, &at("keywords")),
                        json_cell(row.get_ref(4)?, &at("few_shot_examples")),
                        json_cell(row.get_ref(5)?, &at("author")),
                        json_cell(row.get_ref(6)?, &at("sources")),
                        json_cell(row.get_ref(7)?, &at("custom_metadata")),
                    ],
                ))
            },
        )
        .optional()
        .map_err(|e| db_err(file, e))?;
    let Some((text_, raw, notes, cells)) = q else {
        return Err(bad(
            file,
            name,
            format!(
                "question {:?} (benchmark_questions row id {}) has no questions row: Karenina's loader raises NoResultFound",
                r.question_id, r.id
            ),
        ));
    };
    let [kw, few, author, sources, custom] = cells.map(|c| c.map_err(|m| bad(file, name, m)));
    let (kw, few, author, sources, custom) = (kw?, few?, author?, sources?, custom?);
    let qtext = text_.unwrap_or_default();
    let raw = raw.unwrap_or_default();
    let qerr = |m: &str| {
        bad(
            file,
            name,
            format!(
                "question {:?}: {m} (Karenina's Question refuses it)",
                r.question_id
            ),
        )
    };
    if qtext.is_empty() {
        return Err(qerr("empty question text"));
    }
    if raw.is_empty() {
        return Err(qerr("empty raw_answer"));
    }
    // Keywords: the association's if any, else the question's (nulls dropped).
    let keywords: Vec<Json> = [&r.keywords, &kw]
        .into_iter()
        .find(|k| truthy(k))
        .and_then(|k| k.as_ref().and_then(|k| k.as_array().map(<[Json]>::to_vec)))
        .unwrap_or_default()
        .into_iter()
        .filter(|k| *k != Json::Null)
        .collect();
    if keywords.iter().any(|k| k.as_str().is_none()) {
        return Err(qerr("a keyword that is not a string"));
    }
    for (v, want, what) in [
        (&author, "object", "author"),
        (&custom, "object", "custom_metadata"),
        (&sources, "array", "sources"),
        (&few, "array", "few_shot_examples"),
    ] {
        if let Some(v) = v {
            if v.kind() != want {
                return Err(qerr(&format!("{what} is not a JSON {want}")));
            }
        }
    }
    let mut props = vec![prop("finished", Some(Json::Bool(r.finished)))];
    if truthy(&author) {
        props.push(prop("author", author.as_ref().map(|a| s(&py_dumps(a)))));
    }
    if truthy(&sources) {
        props.push(prop("sources", sources.as_ref().map(|a| s(&py_dumps(a)))));
    }
    if let Some(Json::Object(o)) = &custom {
        for (k, v) in o.iter() {
            props.push(prop(&format!("custom_{k}"), Some(v.clone())));
        }
    }
    if truthy(&few) {
        props.push(prop(
            "few_shot_examples",
            few.as_ref().map(|a| s(&py_dumps(a))),
        ));
    }
    if let Some(n) = notes.filter(|n| !n.is_empty()) {
        props.push(prop("answer_notes", Some(s(&n))));
    }
    let template = r
        .template
        .clone()
        .unwrap_or_else(|| default_template(&qtext));
    let head: String = qtext.chars().take(30).collect();
    let mut question = Object::new();
    question.push("@type", s("Question"));
    question.push("text", s(&qtext));
    question.push(
        "acceptedAnswer",
        obj(vec![("@type", s("Answer")), ("text", s(&raw))]),
    );
    question.push(
        "hasPart",
        obj(vec![
            ("@type", s("SoftwareSourceCode")),
            ("name", s(&format!("{head}... Answer Template"))),
            ("text", s(&template)),
            ("programmingLanguage", s("Python")),
        ]),
    );
    if let Some(rubric) = &r.rubric {
        let ratings = trait_rows::ratings(rubric, false)
            .map_err(|m| bad(file, name, format!("question {:?}: {m}", r.question_id)))?;
        if let Some(rs) = ratings {
            question.push("rating", Json::Array(rs));
        }
    }
    question.push("additionalProperty", Json::Array(props));
    if !keywords.is_empty() {
        question.push("keywords", Json::Array(keywords));
    }
    Ok(obj(vec![
        ("@type", s("DataFeedItem")),
        ("@id", s(&r.question_id)),
        ("dateCreated", s(&r.created_at)),
        ("dateModified", s(&r.updated_at)),
        ("item", Json::Object(question)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_forms() {
        assert_eq!(
            isoformat("2026-11-28 04:13:37.048065"),
            "2026-11-28T04:13:37.048065"
        );
        assert_eq!(
            isoformat("2026-11-28 04:13:37.000000"),
            "2026-11-28T04:13:37"
        );
        let v = json::parse(br#"{"name": "Ad\u00e9", "n": [1, 2.0, 1e5], "x": null}"#).unwrap();
        assert_eq!(
            py_dumps(&v),
            r#"{"name": "Ad\u00e9", "n": [1, 2.0, 100000.0], "x": null}"#
        );
        assert!(default_template("Why?").contains("Answer template for: Why?..."));
    }
}
