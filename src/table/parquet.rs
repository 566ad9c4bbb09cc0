//! The table as Parquet (arrow-rs), one row per verification result, so
//! that pandas, polars, DuckDB and Arrow open it without kld, and kld opens
//! it again without re-reading the exports.
//!
//! Columns: the run (`graph`, `run_name`, `source_format`, `labels`,
//! `benchmark`, `benchmark_name`), the result (`question_id`,
//! `answering_model`, `answering_interface`, `answering_model_name`,
//! `parsing_model`, `mcp_servers`, `combo`, `replicate`,
//! `scenario_id`, `scenario_node`, `in_benchmark`, `timestamp`,
//! `execution_time`), what Karenina counts
//! (`template_verification_performed`, `verify_result`,
//! `rubric_evaluation_performed`, `deep_judgment_performed`, `completed`),
//! the outcome (`outcome`, `failure_category`, `failure_group`,
//! `failure_stage`), tokens (`<stage>_input_tokens`, `<stage>_output_tokens`
//! for `total`, `answer_generation`, `parsing`, `rubric_evaluation`), agent
//! metrics (`agent_iterations`, `tool_call_counts` as JSON), then one
//! `score.<family>.<key>` column per score key (a boolean as 1 or 0), and a
//! `scored.<family>.<trait>` column where a trait was scored null, and a
//! `kinds.<family>.<trait>` column: per row that scored the trait, the
//! digits of its value's kind and then each metric's
//! (`table::ScoreKind::code`: 0 absent, 1 null, 2 boolean, 3 integer, 4
//! double, 5 other, 6 inexact). The runs' details (CSV or not, job, export
//! time) are in the file's key-value metadata under `kld.runs`, the bound
//! checkpoints' ratings under `kld.ratings` (JSON). A file without
//! `kld.score_kinds` (written before kld kept the kinds) reads with
//! `untyped_scores` set.

use super::{RunPart, ScoreKind, Table, TOKEN_STAGES};
use crate::error::{Error, Result};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray,
};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;

/// The key of the runs' details in the file's metadata.
const RUNS_KEY: &str = "kld.runs";
/// The key of the trait columns' layout in the file's metadata.
const TRAITS_KEY: &str = "kld.traits";
/// The key of the store state a store directory's table was written for
/// (`table::stored`: the SHA-256 of the directory's `index.tsv`).
const STAMP_KEY: &str = "kld.store_index";
/// The key saying the file has its scores' kinds (`kinds.…` columns).
const KINDS_KEY: &str = "kld.score_kinds";
/// The key of the bound checkpoints' ratings (`Table::ratings`).
const RATINGS_KEY: &str = "kld.ratings";

/// The table as one Arrow record batch.
pub(crate) fn to_batch(t: &Table) -> Result<RecordBatch> {
    let mut fields: Vec<Field> = Vec::new();
    let mut cols: Vec<ArrayRef> = Vec::new();
    let mut text = |name: &str, v: Vec<Option<&str>>, fields: &mut Vec<Field>| {
        fields.push(Field::new(name, DataType::Utf8, true));
        cols.push(Arc::new(StringArray::from(v)) as ArrayRef);
    };
    let n = t.len();
    let runs: Vec<&RunPart> = (0..n).map(|i| t.run_of(i)).collect();
    let labels: Vec<String> = t.runs.iter().map(|p| p.labels.join(",")).collect();
    text(
        "graph",
        runs.iter().map(|p| Some(p.graph.as_str())).collect(),
        &mut fields,
    );
    text(
        "run_name",
        t.run_name.iter().map(|s| t.opt_text(*s)).collect(),
        &mut fields,
    );
    text(
        "source_format",
        runs.iter()
            .map(|p| Some(p.source_format.as_str()))
            .collect(),
        &mut fields,
    );
    text(
        "labels",
        t.run
            .iter()
            .map(|r| Some(labels[*r as usize].as_str()).filter(|l| !l.is_empty()))
            .collect(),
        &mut fields,
    );
    text(
        "benchmark",
        runs.iter().map(|p| p.benchmark.as_deref()).collect(),
        &mut fields,
    );
    text(
        "benchmark_name",
        runs.iter().map(|p| p.benchmark_name.as_deref()).collect(),
        &mut fields,
    );
    let syms = |c: &[u32]| c.iter().map(|s| Some(t.text(*s))).collect::<Vec<_>>();
    let opt = |c: &[Option<u32>]| c.iter().map(|s| t.opt_text(*s)).collect::<Vec<_>>();
    text("question_id", syms(&t.question), &mut fields);
    text("answering_model", syms(&t.answering), &mut fields);
    text(
        "answering_interface",
        syms(&t.answering_interface),
        &mut fields,
    );
    text(
        "answering_model_name",
        syms(&t.answering_model_name),
        &mut fields,
    );
    text("parsing_model", syms(&t.parsing), &mut fields);
    text("mcp_servers", opt(&t.mcp), &mut fields);
    text("combo", syms(&t.combo), &mut fields);
    let flag = |v: &[bool]| Arc::new(BooleanArray::from(v.to_vec())) as ArrayRef;
    let mut push = |f: Field, a: ArrayRef| {
        fields.push(f);
        cols.push(a);
    };
    push(
        Field::new("replicate", DataType::Int64, true),
        Arc::new(Int64Array::from(t.replicate.clone())),
    );
    push(
        Field::new("scenario_id", DataType::Utf8, true),
        Arc::new(StringArray::from(opt(&t.scenario))),
    );
    push(
        Field::new("scenario_node", DataType::Utf8, true),
        Arc::new(StringArray::from(opt(&t.scenario_node))),
    );
    push(
        Field::new("in_benchmark", DataType::Boolean, false),
        flag(&t.in_benchmark),
    );
    push(
        Field::new("timestamp", DataType::Utf8, true),
        Arc::new(StringArray::from(opt(&t.timestamp))),
    );
    push(
        Field::new("execution_time", DataType::Float64, true),
        Arc::new(Float64Array::from(t.execution_time.clone())),
    );
    push(
        Field::new("template_verification_performed", DataType::Boolean, false),
        flag(&t.template_performed),
    );
    push(
        Field::new("verify_result", DataType::Boolean, true),
        Arc::new(BooleanArray::from(t.verify.clone())),
    );
    push(
        Field::new("rubric_evaluation_performed", DataType::Boolean, false),
        flag(&t.rubric_performed),
    );
    push(
        Field::new("deep_judgment_performed", DataType::Boolean, false),
        flag(&t.judgment_performed),
    );
    push(
        Field::new("completed", DataType::Boolean, false),
        flag(&t.completed),
    );
    for (name, col) in [
        ("outcome", &t.outcome),
        ("failure_category", &t.failure_category),
        ("failure_group", &t.failure_group),
        ("failure_stage", &t.failure_stage),
    ] {
        push(
            Field::new(name, DataType::Utf8, true),
            Arc::new(StringArray::from(opt(col))),
        );
    }
    for (k, stage) in TOKEN_STAGES.iter().enumerate() {
        for (d, dir) in ["input", "output"].iter().enumerate() {
            push(
                Field::new(format!("{stage}_{dir}_tokens"), DataType::Int64, true),
                Arc::new(Int64Array::from(t.tokens[k][d].clone())),
            );
        }
    }
    push(
        Field::new("agent_iterations", DataType::Float64, true),
        Arc::new(Float64Array::from(t.iterations.clone())),
    );
    push(
        Field::new("tool_call_counts", DataType::Utf8, true),
        Arc::new(StringArray::from(opt(&t.tool_calls))),
    );
    for c in &t.traits {
        let values: Vec<&Vec<Option<f64>>> = if c.fields.is_empty() {
            vec![&c.value]
        } else {
            c.fields.iter().map(|(_, v)| v).collect()
        };
        for (key, v) in c.keys().iter().zip(values) {
            push(
                Field::new(format!("score.{}.{key}", c.family), DataType::Float64, true),
                Arc::new(Float64Array::from(v.clone())),
            );
        }
        // Scored but with no number anywhere in the row: said apart.
        let told = (0..n).all(|i| {
            c.present[i] == (c.value[i].is_some() || c.fields.iter().any(|(_, f)| f[i].is_some()))
        });
        if !told {
            push(
                Field::new(
                    format!("scored.{}.{}", c.family, c.name),
                    DataType::Boolean,
                    false,
                ),
                flag(&c.present),
            );
        }
        if t.untyped_scores {
            continue;
        }
        let kinds: Vec<Option<String>> = (0..n)
            .map(|i| {
                c.present[i].then(|| {
                    std::iter::once(c.kind[i])
                        .chain(c.field_kinds.iter().map(|k| k[i]))
                        .map(|k| char::from(b'0' + k.code()))
                        .collect()
                })
            })
            .collect();
        push(
            Field::new(
                format!("kinds.{}.{}", c.family, c.name),
                DataType::Utf8,
                true,
            ),
            Arc::new(StringArray::from(kinds)),
        );
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), cols)
        .map_err(|e| Error::Internal(format!("the results table as Arrow: {e}")))
}

fn runs_json(t: &Table) -> String {
    let runs: Vec<Value> = t
        .runs
        .iter()
        .map(|p| {
            json!({"graph": p.graph, "sha256": p.sha256, "source_format": p.source_format, "csv": p.csv,
                "job_id": p.job_id, "exported": p.exported, "labels": p.labels,
                "benchmark": p.benchmark, "benchmark_name": p.benchmark_name, "rows": p.rows})
        })
        .collect();
    Value::Array(runs).to_string()
}

/// The table as the bytes of a Parquet file.
pub(crate) fn to_bytes(t: &Table) -> Result<Vec<u8>> {
    to_bytes_stamped(t, None)
}

fn to_bytes_stamped(t: &Table, stamp: Option<&str>) -> Result<Vec<u8>> {
    let batch = to_batch(t)?;
    let mut kv = vec![
        KeyValue::new(RUNS_KEY.into(), runs_json(t)),
        KeyValue::new(TRAITS_KEY.into(), traits_json(t)),
        KeyValue::new(
            RATINGS_KEY.into(),
            serde_json::to_string(&t.ratings)
                .map_err(|e| Error::Internal(format!("the ratings as JSON: {e}")))?,
        ),
    ];
    if !t.untyped_scores {
        kv.push(KeyValue::new(KINDS_KEY.into(), "1".to_string()));
    }
    if let Some(s) = stamp {
        kv.push(KeyValue::new(STAMP_KEY.into(), s.to_string()));
    }
    let props = WriterProperties::builder()
        .set_key_value_metadata(Some(kv))
        .build();
    let mut out = Vec::new();
    let err = |e: parquet::errors::ParquetError| {
        Error::Internal(format!("the results table as Parquet: {e}"))
    };
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).map_err(err)?;
    w.write(&batch).map_err(err)?;
    w.close().map_err(err)?;
    Ok(out)
}

/// Writes the table to `path` as Parquet (atomically).
pub fn write(t: &Table, path: &Path) -> Result<()> {
    crate::fsutil::write_atomic(path, &to_bytes(t)?)
}

/// Writes the table to `path` (atomically) with `stamp`: the state of the
/// store it was computed for, read back by [`stamp_of`].
pub(crate) fn write_stamped(t: &Table, path: &Path, stamp: &str) -> Result<()> {
    crate::fsutil::write_atomic(path, &to_bytes_stamped(t, Some(stamp))?)
}

/// The stamp a table file was written with ([`write_stamped`]), reading
/// only the file's metadata; `None` for a file without one.
pub(crate) fn stamp_of(path: &Path) -> Result<Option<String>> {
    let file = crate::fsutil::open_regular(path)?;
    let meta = parquet::file::metadata::ParquetMetaDataReader::new()
        .parse_and_finish(&file)
        .map_err(|e| Error::Usage(format!("{}: not a kld results table: {e}", path.display())))?;
    Ok(meta
        .file_metadata()
        .key_value_metadata()
        .and_then(|kv| kv.iter().find(|k| k.key == STAMP_KEY))
        .and_then(|k| k.value.clone()))
}

/// Reads a table kld wrote as Parquet.
pub fn read(path: &Path) -> Result<Table> {
    let bad = |what: String| {
        Error::Usage(format!(
            "{}: not a kld results table: {what}",
            path.display()
        ))
    };
    let file = crate::fsutil::open_regular(path)?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| bad(e.to_string()))?;
    let meta = |key: &str| {
        builder
            .metadata()
            .file_metadata()
            .key_value_metadata()
            .and_then(|kv| kv.iter().find(|k| k.key == key))
            .and_then(|k| k.value.clone())
            .ok_or_else(|| bad(format!("no `{key}` metadata")))
    };
    let untyped = meta(KINDS_KEY).is_err();
    let ratings = match meta(RATINGS_KEY) {
        Ok(r) => serde_json::from_str(&r).map_err(|e| bad(format!("`{RATINGS_KEY}`: {e}")))?,
        Err(_) => Default::default(),
    };
    let runs = meta(RUNS_KEY)?;
    let layout = parse_layout(&meta(TRAITS_KEY)?).map_err(bad)?;
    let runs: Vec<Value> = serde_json::from_str(&runs).map_err(|e| bad(e.to_string()))?;
    let reader = builder.build().map_err(|e| bad(e.to_string()))?;
    let mut t = Table {
        untyped_scores: untyped,
        ratings,
        ..Table::default()
    };
    let mut first = 0;
    for r in &runs {
        let s = |k: &str| r[k].as_str().map(str::to_string);
        let rows = r["rows"].as_u64().unwrap_or(0) as usize;
        t.runs.push(RunPart {
            graph: s("graph").unwrap_or_default(),
            sha256: s("sha256").unwrap_or_default(),
            source_format: s("source_format").unwrap_or_default(),
            csv: r["csv"] == true,
            job_id: s("job_id"),
            exported: s("exported"),
            labels: r["labels"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|l| l.as_str().map(str::to_string))
                .collect(),
            benchmark: s("benchmark"),
            benchmark_name: s("benchmark_name"),
            first,
            rows,
        });
        first += rows;
    }
    for batch in reader {
        let batch = batch.map_err(|e| bad(e.to_string()))?;
        append_batch(&mut t, &batch, &layout).map_err(bad)?;
    }
    if t.len() != first {
        return Err(bad(format!("{} rows, its runs say {first}", t.len())));
    }
    for (r, p) in t.runs.iter().enumerate() {
        t.run.extend(std::iter::repeat_n(r as u32, p.rows));
    }
    Ok(t)
}

fn column<'b, T: 'static>(b: &'b RecordBatch, name: &str) -> std::result::Result<&'b T, String> {
    b.column_by_name(name)
        .and_then(|c| c.as_any().downcast_ref::<T>())
        .ok_or_else(|| format!("no column `{name}` of the right type"))
}

fn append_batch(
    t: &mut Table,
    b: &RecordBatch,
    layout: &[(&'static str, String, Vec<String>)],
) -> std::result::Result<(), String> {
    let base = t.len();
    let n = b.num_rows();
    let texts = |t: &mut Table, name: &str| -> std::result::Result<Vec<Option<u32>>, String> {
        let c = column::<StringArray>(b, name)?;
        Ok((0..n)
            .map(|i| (!c.is_null(i)).then(|| t.strings.intern(c.value(i))))
            .collect())
    };
    let req = |v: Vec<Option<u32>>, name: &str| -> std::result::Result<Vec<u32>, String> {
        v.into_iter()
            .map(|s| s.ok_or_else(|| format!("a null in `{name}`")))
            .collect()
    };
    let v = texts(t, "run_name")?;
    t.run_name.extend(v);
    for (name, col) in [
        ("question_id", 0),
        ("answering_model", 1),
        ("parsing_model", 2),
        ("combo", 3),
        ("answering_interface", 4),
        ("answering_model_name", 5),
    ] {
        let v = req(texts(t, name)?, name)?;
        match col {
            0 => t.question.extend(v),
            1 => t.answering.extend(v),
            2 => t.parsing.extend(v),
            3 => t.combo.extend(v),
            4 => t.answering_interface.extend(v),
            _ => t.answering_model_name.extend(v),
        }
    }
    let v = texts(t, "mcp_servers")?;
    t.mcp.extend(v);
    let v = texts(t, "scenario_id")?;
    t.scenario.extend(v);
    let v = texts(t, "scenario_node")?;
    t.scenario_node.extend(v);
    let v = texts(t, "timestamp")?;
    t.timestamp.extend(v);
    let ints = |name: &str| -> std::result::Result<Vec<Option<i64>>, String> {
        let c = column::<Int64Array>(b, name)?;
        Ok((0..n)
            .map(|i| (!c.is_null(i)).then(|| c.value(i)))
            .collect())
    };
    let floats = |name: &str| -> std::result::Result<Vec<Option<f64>>, String> {
        let c = column::<Float64Array>(b, name)?;
        Ok((0..n)
            .map(|i| (!c.is_null(i)).then(|| c.value(i)))
            .collect())
    };
    let bools = |name: &str| -> std::result::Result<Vec<Option<bool>>, String> {
        let c = column::<BooleanArray>(b, name)?;
        Ok((0..n)
            .map(|i| (!c.is_null(i)).then(|| c.value(i)))
            .collect())
    };
    let flags = |name: &str| -> std::result::Result<Vec<bool>, String> {
        Ok(bools(name)?.into_iter().map(|x| x == Some(true)).collect())
    };
    t.replicate.extend(ints("replicate")?);
    t.execution_time.extend(floats("execution_time")?);
    t.template_performed
        .extend(flags("template_verification_performed")?);
    t.verify.extend(bools("verify_result")?);
    t.rubric_performed
        .extend(flags("rubric_evaluation_performed")?);
    t.judgment_performed
        .extend(flags("deep_judgment_performed")?);
    t.completed.extend(flags("completed")?);
    t.in_benchmark.extend(flags("in_benchmark")?);
    let v = texts(t, "outcome")?;
    t.outcome.extend(v);
    let v = texts(t, "failure_category")?;
    t.failure_category.extend(v);
    let v = texts(t, "failure_group")?;
    t.failure_group.extend(v);
    let v = texts(t, "failure_stage")?;
    t.failure_stage.extend(v);
    for (k, stage) in TOKEN_STAGES.iter().enumerate() {
        for (d, dir) in ["input", "output"].iter().enumerate() {
            t.tokens[k][d].extend(ints(&format!("{stage}_{dir}_tokens"))?);
        }
    }
    t.iterations.extend(floats("agent_iterations")?);
    let v = texts(t, "tool_call_counts")?;
    t.has_tool_counts.extend(v.iter().map(Option::is_some));
    t.tool_calls.extend(v);
    // Score columns, by the layout the file's metadata gives.
    for (fam, name, fields) in layout {
        let values: Vec<(Option<&str>, Vec<Option<f64>>)> = if fields.is_empty() {
            vec![(None, floats(&format!("score.{fam}.{name}"))?)]
        } else {
            let mut v = Vec::new();
            for f in fields {
                v.push((
                    Some(f.as_str()),
                    floats(&format!("score.{fam}.{name}.{f}"))?,
                ));
            }
            v
        };
        let scored = match b.schema().column_with_name(&format!("scored.{fam}.{name}")) {
            Some(_) => Some(flags(&format!("scored.{fam}.{name}"))?),
            None => None,
        };
        let kinds = match b.schema().column_with_name(&format!("kinds.{fam}.{name}")) {
            Some(_) => Some(column::<StringArray>(b, &format!("kinds.{fam}.{name}"))?),
            None => None,
        };
        let col = t.trait_column(fam, name, base);
        let mut at_fields = Vec::new();
        for (field, v) in values {
            match field {
                Some(f) => {
                    let at = col.field(f, base);
                    col.fields[at].1.extend(v);
                    at_fields.push(at);
                }
                None => col.value.extend(v),
            }
        }
        col.value.resize(base + n, None);
        for (_, f) in &mut col.fields {
            f.resize(base + n, None);
        }
        if let Some(kinds) = kinds {
            for i in 0..n {
                let codes = if kinds.is_null(i) { "" } else { kinds.value(i) };
                let mut codes = codes.bytes().map(|c| {
                    c.checked_sub(b'0')
                        .and_then(ScoreKind::from_code)
                        .ok_or_else(|| format!("a kind of `{fam}.{name}` that is none"))
                });
                let main = codes.next().transpose()?.unwrap_or_default();
                col.kind.push(main);
                for &at in &at_fields {
                    let k = codes.next().transpose()?.unwrap_or_default();
                    col.field_kinds[at].push(k);
                }
            }
        }
        col.kind.resize(base + n, ScoreKind::Absent);
        for k in &mut col.field_kinds {
            k.resize(base + n, ScoreKind::Absent);
        }
        match scored {
            Some(p) => col.present.extend(p),
            None => {
                for i in base..base + n {
                    let p =
                        col.value[i].is_some() || col.fields.iter().any(|(_, f)| f[i].is_some());
                    col.present.push(p);
                }
            }
        }
    }
    t.pad_traits(base + n);
    Ok(())
}

/// The trait columns' layout, for the file's metadata: family, trait,
/// metric fields, in column order.
fn traits_json(t: &Table) -> String {
    let v: Vec<Value> = t
        .traits
        .iter()
        .map(|c| {
            let fields: Vec<&str> = c.fields.iter().map(|(f, _)| f.as_str()).collect();
            json!([c.family, c.name, fields])
        })
        .collect();
    Value::Array(v).to_string()
}

/// A layout of trait columns: family, trait name, metric fields.
type Layout = Vec<(&'static str, String, Vec<String>)>;

fn parse_layout(text: &str) -> std::result::Result<Layout, String> {
    let v: Vec<(String, String, Vec<String>)> =
        serde_json::from_str(text).map_err(|e| format!("`{TRAITS_KEY}`: {e}"))?;
    v.into_iter()
        .map(|(fam, name, fields)| {
            let fam = crate::numbers::FAMILIES
                .iter()
                .map(|(_, f)| *f)
                .chain([super::UNTYPED_FAMILY])
                .find(|f| *f == fam)
                .ok_or_else(|| format!("`{TRAITS_KEY}`: no trait family {fam}"))?;
            Ok((fam, name, fields))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Builder;

    #[test]
    fn a_table_comes_back_from_parquet_as_it_went() {
        let mut t = Table::default();
        let mut b = Builder::new(&mut t, "urn:g");
        for (q, verdict, scores) in [
            ("q1", json!(true), json!({"clarity": 4, "safe": null})),
            (
                "q2",
                json!(null),
                json!({"m": {"precision": 0.5, "recall": 1.0}}),
            ),
        ] {
            b.add(&json!({
                "metadata": {"question_id": q, "failure": null, "replicate": 2, "run_name": "r",
                    "answering": {"interface": "langchain", "model_name": "a", "tools": [], "config_id": null},
                    "parsing": {"interface": "langchain", "model_name": "p", "tools": [], "config_id": null}},
                "template": {"template_verification_performed": true, "verify_result": verdict,
                    "usage_metadata": {"total": {"input_tokens": 5, "output_tokens": 7}}},
                "rubric": {"rubric_evaluation_performed": true, "llm_trait_scores": scores},
            }));
        }
        t.bind("urn:g", Some("urn:cp".into()), Some("bench".into()));
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.parquet");
        write(&t, &p).unwrap();
        let back = read(&p).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back.runs, t.runs);
        assert_eq!(back.karenina_json(0), t.karenina_json(0));
        assert_eq!(back.verify, t.verify);
        assert_eq!(back.tokens, t.tokens);
        let safe = back.traits.iter().find(|c| c.name == "safe").unwrap();
        assert_eq!(safe.present, vec![true, false]);
        let m = back.traits.iter().find(|c| c.name == "m").unwrap();
        assert_eq!(m.fields.len(), 2);
        assert_eq!(m.present, vec![false, true]);
        // The scores' kinds and the checkpoints' ratings come back.
        for (a, b) in back.traits.iter().zip(&t.traits) {
            assert_eq!((&a.kind, &a.field_kinds), (&b.kind, &b.field_kinds));
        }
        assert_eq!(safe.kind, vec![ScoreKind::Null, ScoreKind::Absent]);
        assert_eq!(
            m.field_kinds,
            vec![vec![ScoreKind::Absent, ScoreKind::Double]; 2]
        );
        assert!(!back.untyped_scores);
    }

    #[test]
    fn a_table_file_without_kinds_leaves_the_trait_views_to_sparql() {
        let mut t = Table::default();
        let mut b = Builder::new(&mut t, "urn:g");
        b.add(&json!({
            "metadata": {"question_id": "q1", "failure": null,
                "answering": {"interface": "langchain", "model_name": "a", "tools": [], "config_id": null},
                "parsing": {"interface": "langchain", "model_name": "p", "tools": [], "config_id": null}},
            "template": {"template_verification_performed": true, "verify_result": true},
            "rubric": {"rubric_evaluation_performed": true, "llm_trait_scores": {"clarity": 4}},
        }));
        t.bind("urn:g", Some("urn:cp".into()), Some("bench".into()));
        t.ratings.insert(
            "urn:cp".into(),
            crate::table::ratings::Ratings {
                global: vec![("clarity".into(), "<urn:t>".into())],
                ..Default::default()
            },
        );
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.parquet");
        let answer = |t: &Table| crate::table::answers::answer("scores-by-trait", t);
        write(&t, &p).unwrap();
        let typed = read(&p).unwrap();
        assert_eq!(typed.ratings, t.ratings);
        assert!(answer(&typed).is_some());
        assert_eq!(format!("{:?}", answer(&typed)), format!("{:?}", answer(&t)));
        // A file as kld wrote it before it kept the kinds (no kinds
        // columns, no `kld.score_kinds`).
        t.untyped_scores = true;
        write(&t, &p).unwrap();
        let old = read(&p).unwrap();
        assert!(old.untyped_scores);
        assert!(old.traits[0].kind.iter().all(|k| *k == ScoreKind::Absent));
        assert!(answer(&old).is_none());
        assert!(!crate::table::answers::answers("scores-by-trait", &old));
        assert!(crate::table::answers::answer("outcome-classes", &old).is_some());
        // Bound to a checkpoint whose ratings the table lacks: SPARQL too.
        let mut unrated = typed.clone();
        unrated.ratings.clear();
        assert!(answer(&unrated).is_none());
        assert!(!crate::table::answers::answers(
            "scores-by-trait-and-judge",
            &unrated
        ));
        assert!(crate::table::answers::answers("scores-by-trait", &typed));
    }
}
