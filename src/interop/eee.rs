//! Every Eval Ever (schema 0.3.0): a results export bound to its checkpoint
//! becomes one aggregate file per run × answering model, laid out as EEE's
//! repository (`{benchmark}/{developer}/{model}/…`), each with its
//! instance-level JSON Lines.
//!
//! Every figure comes from kld's catalogue queries on a store holding the
//! checkpoint and the export, as `kld query` loads them: the pass rate is
//! `verified_true / results` of `results-by-model`, its combos of one
//! answering model added up (a result without a verdict is not a pass; the
//! catalogue's pass-rate queries give Karenina's template rate by combo
//! instead), and each rubric
//! score key is a metric with the mean (or share true) of `trait-scores`.

use super::json_line;
use crate::error::{Error, Result};
use crate::model::{Checkpoint, Rating};
use crate::sparql::{self, QueryOptions, ResultFormat};
use crate::store::binding::link::Link;
use crate::store::{CheckpointStore, GraphKind};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The EEE schema version written.
pub(crate) const SCHEMA_VERSION: &str = "0.3.0";

/// One file to write, its path relative to the output directory.
#[derive(Clone, Debug, PartialEq)]
pub struct EeeFile {
    /// Relative path (`benchmark/developer/model/run.json`).
    pub path: PathBuf,
    /// Contents.
    pub text: String,
}

type Row = BTreeMap<String, String>;

fn rows(store: &CheckpointStore, text: &str) -> Result<Vec<Row>> {
    let mut buf = Vec::new();
    let opts = QueryOptions::default();
    sparql::run_with(store.store(), text, &opts, ResultFormat::Json, &mut buf)?;
    let v: Value =
        serde_json::from_slice(&buf).map_err(|e| Error::Internal(format!("reading rows: {e}")))?;
    Ok(v["results"]["bindings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| {
            b.as_object()
                .into_iter()
                .flatten()
                .map(|(k, x)| (k.clone(), x["value"].as_str().unwrap_or("").to_string()))
                .collect()
        })
        .collect())
}

fn catalogue(name: &str) -> &'static str {
    sparql::find(name).map(|q| q.text).unwrap_or("")
}

const INSTANCES: &str = r#"PREFIX karenina: <urn:karenina:vocab:>
SELECT ?run ?interface ?model_name ?qid ?v ?pi ?pm ?rid WHERE {
  GRAPH ?g {
    ?r a karenina:VerificationResult ; karenina:runName ?run ;
       karenina:answeringInterface ?interface ; karenina:answeringModelName ?model_name .
    OPTIONAL { ?r karenina:questionId ?qid }
    OPTIONAL { ?r karenina:verifyResult ?v }
    OPTIONAL { ?r karenina:parsingInterface ?pi }
    OPTIONAL { ?r karenina:parsingModelName ?pm }
    OPTIONAL { ?r karenina:resultId ?rid }
  }
} ORDER BY ?run ?interface ?model_name ?rid ?qid"#;

const RUN: &str = r#"PREFIX karenina: <urn:karenina:vocab:>
SELECT ?time ?version ?config WHERE { GRAPH ?g { ?x a karenina:VerificationRun .
  OPTIONAL { ?x karenina:exportTime ?time } OPTIONAL { ?x karenina:kareninaVersion ?version }
  OPTIONAL { ?x karenina:configuredModels ?config } } }"#;

/// The provider each model of the run's configuration names
/// (`verification_config.answering_models` / `parsing_models`: `provider`,
/// `interface`, `name`), by (interface, name).
fn providers(config: &str) -> BTreeMap<(String, String), String> {
    let v: Value = serde_json::from_str(config).unwrap_or(Value::Null);
    let mut out = BTreeMap::new();
    for side in ["answering_models", "parsing_models"] {
        for m in v.get(side).and_then(Value::as_array).into_iter().flatten() {
            let text = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let provider = text("provider");
            if !provider.is_empty() {
                out.entry((text("interface"), text("name")))
                    .or_insert(provider);
            }
        }
    }
    out
}

/// The EEE files of the results export `results`, bound to the checkpoint
/// `checkpoint` (`cp`, read from it). Refuses an export that does not bind
/// to it (with the reason) and one with no results.
pub fn export(cp: &Checkpoint, checkpoint: &Path, results: &Path) -> Result<Vec<EeeFile>> {
    let mut store = CheckpointStore::in_memory()?;
    let loaded = store.load_files(
        &[checkpoint.to_path_buf(), results.to_path_buf()],
        crate::rdf::Processor::Direct,
        &|_, _| {},
    );
    let mut graphs = Vec::new();
    for (_, r) in loaded {
        graphs.push(r?);
    }
    let (Some(c), Some(r)) = (
        graphs.iter().find(|g| g.kind == GraphKind::Checkpoint),
        graphs.iter().find(|g| g.kind == GraphKind::Results),
    ) else {
        return Err(Error::Usage(format!(
            "{} with {}: expected a checkpoint and a results export",
            checkpoint.display(),
            results.display()
        )));
    };
    let bound = store.bind(&[(r.graph.clone(), Some(c.graph.clone()))])?;
    if let Some(b) = bound.iter().find(|b| b.graph == r.graph) {
        if !matches!(b.link, Link::Bound(_)) {
            let why = b.message().unwrap_or_else(|| "not bound".into());
            return Err(Error::Usage(format!("{why}: no EEE files written")));
        }
    }
    let by_model = per_answering_model(rows(&store, catalogue("results-by-model"))?);
    if by_model.is_empty() {
        return Err(Error::Usage(format!(
            "{}: the export holds no results: no EEE files written",
            results.display()
        )));
    }
    let traits = rows(&store, catalogue("trait-scores"))?;
    let instances = rows(&store, INSTANCES)?;
    let run = rows(&store, RUN)?.into_iter().next().unwrap_or_default();
    let sha = hex(&Sha256::digest(
        std::fs::read(checkpoint).map_err(|e| Error::io(checkpoint, e))?,
    ));
    let ctx = Ctx {
        cp,
        run: &run,
        checkpoint_sha256: &sha,
        providers: providers(get(&run, "config")),
    };
    let mut files = Vec::new();
    for m in &by_model {
        let key = |x: &Row| {
            x.get("run") == m.get("run")
                && x.get("interface") == m.get("interface")
                && x.get("model_name") == m.get("model_name")
        };
        let t: Vec<&Row> = traits.iter().filter(|x| key(x)).collect();
        let i: Vec<&Row> = instances.iter().filter(|x| key(x)).collect();
        files.extend(ctx.files(m, &t, &i));
    }
    Ok(files)
}

struct Ctx<'a> {
    cp: &'a Checkpoint,
    run: &'a Row,
    checkpoint_sha256: &'a str,
    /// The configuration's provider of each model, by (interface, name).
    providers: BTreeMap<(String, String), String>,
}

/// `results-by-model` has a row per combo (answering × parsing model × MCP
/// servers); an EEE file is per run and answering model: the counts of one
/// answering model's rows added up, in first-seen order.
fn per_answering_model(rows: Vec<Row>) -> Vec<Row> {
    const COUNTS: [&str; 5] = [
        "results",
        "verified_true",
        "verified_false",
        "verified_null",
        "verified_false_or_null",
    ];
    let mut out: Vec<Row> = Vec::new();
    for r in rows {
        let same = |m: &Row| {
            ["graph", "run", "interface", "model_name"]
                .iter()
                .all(|k| m.get(*k) == r.get(*k))
        };
        match out.iter_mut().find(|m| same(m)) {
            None => out.push(r),
            Some(m) => {
                for k in COUNTS {
                    let sum = num(m, k).unwrap_or(0.0) + num(&r, k).unwrap_or(0.0);
                    m.insert(k.to_string(), (sum as u64).to_string());
                }
            }
        }
    }
    out
}

fn get<'r>(r: &'r Row, k: &str) -> &'r str {
    r.get(k).map(String::as_str).unwrap_or("")
}

fn num(r: &Row, k: &str) -> Option<f64> {
    r.get(k).and_then(|s| s.parse::<f64>().ok())
}

/// The longest path segment written, in bytes: file systems refuse names
/// past 255 bytes, and a benchmark name can be longer.
const MAX_SEGMENT: usize = 100;

/// A path segment: letters, digits, `.`, `-`, `_` kept, the rest `_`; one
/// longer than `MAX_SEGMENT` is cut and ends in a digest of the whole name
/// (stable, and two long names that share a start stay apart).
pub fn slug(s: &str) -> String {
    let t = slug_chars(s);
    if t.len() <= MAX_SEGMENT {
        return t;
    }
    let digest = hex(&Sha256::digest(s.as_bytes())[..8]);
    format!("{}-{digest}", &t[..MAX_SEGMENT - 17])
}

fn slug_chars(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let t = t.trim_start_matches('.').to_string();
    if t.is_empty() {
        "_".into()
    } else {
        t
    }
}

/// Karenina's export time (`2026-11-22 10:43:10 UTC`, or RFC 3339) in Unix
/// seconds; `0` when it cannot be read.
fn epoch_of(time: &str) -> String {
    let t = time.trim().trim_end_matches(" UTC");
    chrono::DateTime::parse_from_rfc3339(t)
        .map(|d| d.timestamp())
        .or_else(|_| {
            chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S%.f")
                .map(|d| d.and_utc().timestamp())
        })
        .map(|s| s.to_string())
        .unwrap_or_else(|_| "0".into())
}

/// A UUID version 4 layout over the SHA-256 of `s` (deterministic).
fn uuid4_of(s: &str) -> String {
    let mut b: [u8; 16] = Sha256::digest(s.as_bytes())[..16]
        .try_into()
        .unwrap_or([0; 16]);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex(&b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The model's developer: the provider the run's configuration names for
/// it (`provider: "anthropic"`), else the owner of a `developer/model` name,
/// else `unknown`.
fn developer<'a>(
    providers: &'a BTreeMap<(String, String), String>,
    interface: &str,
    name: &'a str,
) -> &'a str {
    providers
        .get(&(interface.to_string(), name.to_string()))
        .map(String::as_str)
        .or_else(|| name.split_once('/').map(|(d, _)| d))
        .unwrap_or("unknown")
}

/// EEE's model_info: `name` as Karenina writes it; `id` the same; the
/// developer as [`developer`] finds it.
fn model_info(interface: &str, name: &str, developer: &str) -> Value {
    json!({
        "name": name,
        "id": name,
        "developer": developer,
        "inference_platform": interface,
        "additional_details": {
            "deployment_type": "unknown",
            "model_availability": "unknown",
            "karenina_interface": interface,
        },
    })
}

impl Ctx<'_> {
    fn rating(&self, key: &str) -> Option<&Rating> {
        let all = || {
            self.cp.rating.iter().flatten().chain(
                self.cp
                    .items
                    .iter()
                    .flat_map(|i| i.question.rating.iter().flatten()),
            )
        };
        let base = key.split_once('.').map_or(key, |(b, _)| b);
        all()
            .find(|r| r.name == key)
            .or_else(|| all().find(|r| r.name == base))
    }

    fn files(&self, m: &Row, traits: &[&Row], instances: &[&Row]) -> Vec<EeeFile> {
        let (run, interface, model) = (get(m, "run"), get(m, "interface"), get(m, "model_name"));
        let bench = &self.cp.name;
        let dev = developer(&self.providers, interface, model);
        let model_dir = model.split_once('/').map_or(model, |(_, m)| m);
        let dir = PathBuf::from("data")
            .join(slug(bench))
            .join(slug(dev))
            .join(slug(model_dir));
        let time = get(self.run, "time");
        let epoch = epoch_of(time);
        let evaluation_id = format!("{bench}:{run}/{model}/{interface}/{epoch}");
        // EEE names files by a UUID4; this one is derived from the
        // evaluation ID, so a re-export writes the same files.
        let stem = uuid4_of(&evaluation_id);
        let samples_path = dir.join(format!("{stem}_samples.jsonl"));
        let judges: Vec<Value> = {
            let mut seen: Vec<(&str, &str)> = Vec::new();
            for i in instances {
                let j = (get(i, "pi"), get(i, "pm"));
                if !j.1.is_empty() && !seen.contains(&j) {
                    seen.push(j);
                }
            }
            seen.iter()
                .map(|(i, n)| json!({"model_info": model_info(i, n, developer(&self.providers, i, n))}))
                .collect()
        };
        let source_data = json!({
            "dataset_name": bench,
            "source_type": "other",
            "additional_details": {
                "checkpoint_sha256": self.checkpoint_sha256,
                "questions": self.cp.items.len().to_string(),
            },
        });
        let mut results = Vec::new();
        let total = num(m, "results").unwrap_or(0.0);
        let passed = num(m, "verified_true").unwrap_or(0.0);
        let verdicts = passed
            + num(m, "verified_false").unwrap_or(0.0)
            + num(m, "verified_false_or_null").unwrap_or(0.0);
        let pass_id = format!("{evaluation_id}#pass_rate");
        if total > 0.0 && verdicts > 0.0 {
            let mut cfg = json!({
                "evaluation_description": "Share of results whose answer template verified true (verify_result true over all results; no verdict counts as not passed).",
                "metric_id": "karenina.pass_rate",
                "metric_name": "pass_rate",
                "metric_kind": "accuracy",
                "metric_unit": "proportion",
                "lower_is_better": false,
                "score_type": "continuous",
                "min_score": 0.0,
                "max_score": 1.0,
            });
            if !judges.is_empty() {
                cfg["llm_scoring"] = json!({
                    "judges": judges,
                    "input_prompt": "Karenina parses the answering model's response into the question's answer template; the template's verify() decides.",
                });
            }
            results.push(json!({
                "evaluation_result_id": pass_id,
                "evaluation_name": "pass_rate",
                "source_data": source_data,
                "metric_config": cfg,
                "score_details": {
                    "score": passed / total,
                    "details": {
                        "results": get(m, "results"),
                        "verified_true": get(m, "verified_true"),
                        "verified_false": get(m, "verified_false"),
                        "verified_null": get(m, "verified_null"),
                        "verified_false_or_null": get(m, "verified_false_or_null"),
                    },
                    "uncertainty": {"num_samples": total as u64},
                },
            }));
        }
        for t in traits {
            let key = get(t, "trait");
            let n = num(t, "n").unwrap_or(0.0);
            let rating = self.rating(key);
            let (score, min, max, kind, unit) = match num(t, "mean") {
                Some(mean) => {
                    let (lo, hi) = rating.map_or((None, None), |r| (Some(r.worst), Some(r.best)));
                    (mean, lo, hi, "mean", "points")
                }
                // The share true, for traits whose scores are verdicts; a
                // literal or template field's strings are not a number.
                None if n > 0.0
                    && rating.is_some_and(|r| {
                        matches!(crate::contents::trait_kind(r).as_str(), "boolean" | "regex")
                    }) =>
                {
                    (
                        num(t, "true_count").unwrap_or(0.0) / n,
                        Some(0.0),
                        Some(1.0),
                        "proportion_true",
                        "proportion",
                    )
                }
                None => continue,
            };
            let lower = rating
                .and_then(|r| r.prop_value("higher_is_better"))
                .and_then(crate::json::Json::as_bool)
                == Some(false);
            let mut cfg = json!({
                "evaluation_description": rating.and_then(|r| r.description.clone()).unwrap_or_else(|| format!("Rubric trait {key}")),
                "metric_id": format!("karenina.trait.{key}"),
                "metric_name": key,
                "metric_kind": kind,
                "metric_unit": unit,
                "lower_is_better": lower,
                "score_type": "continuous",
                "additional_details": {
                    "trait_family": get(t, "type"),
                    "trait_kind": rating.map(crate::contents::trait_kind).unwrap_or_default(),
                },
            });
            if let Some(lo) = min.filter(|v| v.is_finite()) {
                cfg["min_score"] = json!(lo);
            }
            if let Some(hi) = max.filter(|v| v.is_finite()) {
                cfg["max_score"] = json!(hi);
            }
            results.push(json!({
                "evaluation_result_id": format!("{evaluation_id}#trait.{key}"),
                "evaluation_name": key,
                "source_data": source_data,
                "metric_config": cfg,
                "score_details": {
                    "score": score,
                    "details": {"n": get(t, "n"), "true_count": get(t, "true_count")},
                    "uncertainty": {"num_samples": n as u64},
                },
            }));
        }
        let samples = self.samples(&evaluation_id, &pass_id, model, instances);
        let checksum = hex(&Sha256::digest(samples.as_bytes()));
        let creator = match &self.cp.creator {
            Some(crate::model::Creator::Name(n)) => n.clone(),
            Some(crate::model::Creator::Person(p)) => p.name.clone(),
            None => "unknown".into(),
        };
        let aggregate = json!({
            "schema_version": SCHEMA_VERSION,
            "evaluation_id": evaluation_id,
            "evaluation_timestamp": time,
            "retrieved_timestamp": epoch,
            "source_metadata": {
                "source_name": format!("Karenina verification run {run}"),
                "source_type": "evaluation_run",
                "source_organization_name": if creator.is_empty() { "unknown".into() } else { creator },
                "evaluator_relationship": "other",
            },
            "eval_library": {
                "name": "karenina",
                "version": Some(get(self.run, "version")).filter(|v| !v.is_empty()).unwrap_or("unknown"),
            },
            "model_info": model_info(interface, model, dev),
            "evaluation_results": results,
            "detailed_evaluation_results": {
                "format": "jsonl",
                "file_path": samples_path.to_string_lossy().replace('\\', "/"),
                "hash_algorithm": "sha256",
                "checksum": checksum,
                "total_rows": instances.len(),
            },
        });
        let mut text = serde_json::to_string_pretty(&aggregate).unwrap_or_default();
        text.push('\n');
        vec![
            EeeFile {
                path: dir.join(format!("{stem}.json")),
                text,
            },
            EeeFile {
                path: samples_path,
                text: samples,
            },
        ]
    }

    /// One instance row per result: score 1 for verify_result true, else 0.
    fn samples(&self, evaluation_id: &str, pass_id: &str, model: &str, rows: &[&Row]) -> String {
        let mut out = String::new();
        for r in rows {
            let qid = get(r, "qid");
            let item = self.cp.items.iter().find(|i| i.id.as_deref() == Some(qid));
            let (raw, reference) = item.map_or((String::new(), String::new()), |i| {
                (
                    i.question.text.clone(),
                    i.question.accepted_answer.text.clone(),
                )
            });
            let verdict = r.get("v").map(|v| v == "true" || v == "1");
            let mut row = json!({
                "schema_version": SCHEMA_VERSION,
                "evaluation_id": evaluation_id,
                "model_id": model,
                "evaluation_name": "pass_rate",
                "evaluation_result_id": pass_id,
                "sample_id": qid,
                "sample_hash": hex(&Sha256::digest(format!("{raw}{reference}").as_bytes())),
                "interaction_type": "single_turn",
                "input": {"raw": raw, "reference": [reference]},
                // kld keeps no responses by default (--with-traces): none here.
                "output": {"raw": []},
                "answer_attribution": [],
                "evaluation": {
                    "score": if verdict == Some(true) { 1.0 } else { 0.0 },
                    "is_correct": verdict == Some(true),
                },
                "metadata": {
                    "result_id": get(r, "rid"),
                    "parsing_model": get(r, "pm"),
                },
            });
            if verdict.is_none() {
                row["error"] = json!("no verdict (verify_result null or not written)");
            }
            out.push_str(&json_line(&row));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_times_and_file_names() {
        let t = chrono::NaiveDate::from_ymd_opt(2026, 11, 22)
            .and_then(|d| d.and_hms_opt(10, 43, 10))
            .unwrap()
            .and_utc()
            .timestamp()
            .to_string();
        assert_eq!(epoch_of("2026-11-22 10:43:10 UTC"), t);
        assert_eq!(epoch_of("2026-11-22T10:43:10Z"), t);
        assert_eq!(epoch_of("2026-11-22T11:43:10+01:00"), t);
        assert_eq!(epoch_of("yesterday"), "0");
        let u = uuid4_of("b:run/m/i/1");
        assert_eq!(u, uuid4_of("b:run/m/i/1"), "stable");
        assert_ne!(u, uuid4_of("b:run/m/i/2"));
        let parts: Vec<&str> = u.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('4'));
        assert!(matches!(parts[3].as_bytes()[0], b'8' | b'9' | b'a' | b'b'));
        // No `..` or hidden segments, nothing but [A-Za-z0-9._-].
        assert_eq!(slug("../Q wen/é"), "_Q_wen__");
        assert_eq!(slug(""), "_");
    }
}
