//! TaskEval exports (`TaskEvalResult.export_json()`, Karenina's open-loop
//! mode, `benchmark/task_eval/models.py`) read as runs.
//!
//! Why a reader of its own: a TaskEval export has no run header and no
//! `results` array. It is one indented JSON object, `task_id`, `metadata`,
//! `timestamp`, `summary` (a sentence), `global_evaluation` (null or
//! `{verification_results: {question_id: [row, …]}, summary_stats}`) and
//! `step_evaluations` (`{step_id: {verification_results, summary_stats}}`),
//! each row a `VerificationResult.model_dump()` as in an export. kld reads it
//! as one run: a header made of the task's fields (`task_eval`), then the
//! rows of the global evaluation, then those of each step in file order,
//! each group announced by [`Visit::step`], so the step is a dimension of
//! every result (`karenina:taskEvalStep`).

use super::{located, parse_value, Visit};
use crate::error::{Error, Result};
use serde_json::Value;
use std::io::BufRead;
use std::path::Path;

/// True when `t` (a file's head, trimmed) starts a TaskEval export: an
/// object whose first key is `task_id`, followed by the keys
/// `export_json` writes.
pub fn sniff(t: &str) -> bool {
    let Some(rest) = t.strip_prefix('{') else {
        return false;
    };
    rest.trim_start().starts_with("\"task_id\"")
        && [
            "\"summary\"",
            "\"global_evaluation\"",
            "\"step_evaluations\"",
        ]
        .iter()
        .any(|k| t.contains(k))
        && !t.contains("\"@context\"")
}

/// The header kld gives a TaskEval export (it has none): `source_format`
/// `taskeval` and the task's own fields under `task_eval`, with the step
/// IDs in file order.
fn header(doc: &Value) -> Value {
    let steps: Vec<Value> = doc["step_evaluations"]
        .as_object()
        .map(|o| o.keys().map(|k| Value::String(k.clone())).collect())
        .unwrap_or_default();
    serde_json::json!({
        "source_format": "taskeval",
        "metadata": {},
        "task_eval": {
            "task_id": doc["task_id"],
            "timestamp": doc["timestamp"],
            "metadata": doc["metadata"],
            "summary": doc["summary"],
            "global": doc["global_evaluation"].is_object(),
            "steps": steps,
        },
    })
}

/// Reads a TaskEval export whole, handing `visit` the header, then each
/// evaluation's rows after a [`Visit::step`] call.
pub(super) fn read(file: &Path, r: &mut dyn BufRead, visit: &mut dyn Visit) -> Result<()> {
    let mut text = String::new();
    r.read_to_string(&mut text)
        .map_err(|e| Error::io(file, e))?;
    let doc = parse_value(file, text.trim_start_matches('\u{feff}'), 1, "")?;
    if !doc.is_object() {
        return Err(located(
            file,
            1,
            1,
            "",
            "a TaskEval export is a JSON object",
        ));
    }
    for key in ["global_evaluation", "step_evaluations"] {
        if doc.get(key).is_none() {
            return Err(located(
                file,
                1,
                1,
                &format!("/{key}"),
                format!("a TaskEval export has `{key}` (TaskEvalResult.export_json writes it)"),
            ));
        }
    }
    visit.header(&header(&doc));
    let mut groups: Vec<(Option<&str>, String, &Value)> = Vec::new();
    if !doc["global_evaluation"].is_null() {
        groups.push((None, "/global_evaluation".into(), &doc["global_evaluation"]));
    }
    match &doc["step_evaluations"] {
        Value::Object(steps) => {
            for (id, step) in steps {
                let at = format!(
                    "/step_evaluations/{}",
                    id.replace('~', "~0").replace('/', "~1")
                );
                groups.push((Some(id.as_str()), at, step));
            }
        }
        _ => {
            return Err(located(
                file,
                1,
                1,
                "/step_evaluations",
                "`step_evaluations` must be an object",
            ))
        }
    }
    for (step, at, eval) in groups {
        visit.step(step);
        let by_question = match eval.get("verification_results") {
            Some(Value::Object(o)) => o,
            _ => {
                return Err(located(
                    file,
                    1,
                    1,
                    &format!("{at}/verification_results"),
                    "`verification_results` must be an object of question ID → results",
                ))
            }
        };
        for (qid, rows) in by_question {
            let qat = format!(
                "{at}/verification_results/{}",
                qid.replace('~', "~0").replace('/', "~1")
            );
            let Some(rows) = rows.as_array() else {
                return Err(located(file, 1, 1, &qat, "a list of results is expected"));
            };
            for (i, row) in rows.iter().enumerate() {
                let path = format!("{qat}/{i}");
                let row = super::coerced(file, 1, &path, row.clone())?;
                visit
                    .row_at(&path, row)
                    .map_err(|m| located(file, 1, 1, &path, m))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_eval_export_is_told_from_an_export_and_a_checkpoint() {
        assert!(sniff(
            "{\n  \"task_id\": \"t\",\n  \"metadata\": null,\n  \"timestamp\": \"x\",\n  \"summary\": \"s\""
        ));
        assert!(!sniff(r#"{"format_version": "2.2", "task_id": 1}"#));
        assert!(!sniff(r#"{"task_id": "x", "other": 1}"#));
    }

    struct Seen(Vec<(Option<String>, String)>);
    impl Visit for Seen {
        fn header(&mut self, h: &Value) {
            assert_eq!(h["task_eval"]["steps"], serde_json::json!(["s/1", "s2"]));
        }
        fn row(&mut self, _: Value) -> std::result::Result<(), super::super::RowError> {
            unreachable!()
        }
        fn row_at(
            &mut self,
            path: &str,
            _: Value,
        ) -> std::result::Result<(), super::super::RowError> {
            let step = self.0.last().and_then(|l| l.0.clone());
            self.0.push((step, path.to_string()));
            Ok(())
        }
        fn step(&mut self, step: Option<&str>) {
            self.0.push((step.map(str::to_string), "step".into()));
        }
    }

    #[test]
    fn rows_come_grouped_by_step_with_their_json_paths() {
        let text = r#"{"task_id": "t", "metadata": null, "timestamp": "x", "summary": "s",
            "global_evaluation": {"verification_results": {"q": [{}]}},
            "step_evaluations": {"s/1": {"verification_results": {"q": [{}, {}]}},
                                 "s2": {"verification_results": {}}}}"#;
        let mut seen = Seen(Vec::new());
        read(Path::new("t.json"), &mut text.as_bytes(), &mut seen).unwrap();
        let paths: Vec<&str> = seen.0.iter().map(|(_, p)| p.as_str()).collect();
        assert_eq!(
            paths,
            [
                "step",
                "/global_evaluation/verification_results/q/0",
                "step",
                "/step_evaluations/s~11/verification_results/q/0",
                "/step_evaluations/s~11/verification_results/q/1",
                "step"
            ]
        );
        assert_eq!(seen.0[3].0.as_deref(), Some("s/1"));
        let e = read(
            Path::new("t.json"),
            &mut r#"{"task_id": "t", "summary": "s", "global_evaluation": null}"#.as_bytes(),
            &mut Seen(Vec::new()),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("/step_evaluations"), "{e}");
    }
}
