//! Building the table from a reader's rows: the visitor `kld info`'s reader
//! hands rows to, reading each row by Karenina's row rules
//! (`crate::numbers::row`) and kld's outcome classes.

use super::{RunPart, ScoreKind, Table};
use crate::error::Result;
use crate::numbers::facts::RowFacts;
use crate::numbers::row::{number, obj, Row};
use crate::results::{RowError, Visit};
use serde_json::Value;
use std::path::Path;

/// Adds rows to a table as one run (a results graph).
pub struct Builder<'t> {
    table: &'t mut Table,
    run: u32,
}

impl<'t> Builder<'t> {
    /// Starts a run of results graph `graph` in `table`.
    pub fn new(table: &'t mut Table, graph: &str) -> Self {
        let first = table.len();
        table.runs.push(RunPart {
            graph: graph.to_string(),
            source_format: "json".into(),
            first,
            ..RunPart::default()
        });
        let run = u32::try_from(table.runs.len() - 1).expect("fewer than 2^32 runs");
        Builder { table, run }
    }

    fn part(&mut self) -> &mut RunPart {
        &mut self.table.runs[self.run as usize]
    }

    /// Adds one row (in the shape kld's readers hand on).
    pub fn add(&mut self, value: &Value) {
        let csv = self.part().csv;
        let r = Row::new(value, csv);
        let t = &mut *self.table;
        let i = t.len();
        let meta = &value["metadata"];
        let s = |t: &mut Table, v: &Value| v.as_str().map(|x| t.strings.intern(x));
        t.run.push(self.run);
        let run_name = s(t, &meta["run_name"]);
        t.run_name.push(run_name);
        let q = t.strings.intern(r.question_id());
        t.question.push(q);
        let a = t.strings.intern(&r.model("answering"));
        t.answering.push(a);
        let (interface, name) = crate::results::outcome::model_of(value, "answering");
        let interface = t.strings.intern(&interface);
        t.answering_interface.push(interface);
        let name = t.strings.intern(&name);
        t.answering_model_name.push(name);
        let p = t.strings.intern(&r.model("parsing"));
        t.parsing.push(p);
        let combo = r.combo();
        let (_, mcp) = split_combo(&combo, t.text(a), t.text(p));
        let mcp = mcp.map(|m| t.strings.intern(m));
        t.mcp.push(mcp);
        let combo = t.strings.intern(&combo);
        t.combo.push(combo);
        t.replicate.push(r.replicate());
        let sc = s(t, &meta["scenario_id"]);
        t.scenario.push(sc);
        let node = s(t, &meta["scenario_node"]);
        t.scenario_node.push(node);
        t.in_benchmark.push(false);
        let ts = s(t, &meta["timestamp"]);
        t.timestamp.push(ts);
        t.execution_time.push(r.execution_time());
        t.template_performed.push(r.template_performed());
        t.verify.push(r.verify_result());
        t.rubric_performed.push(r.rubric_performed());
        t.judgment_performed.push(r.judgment_performed());
        t.completed.push(r.completed());
        let outcome = crate::results::outcome::outcome(value).map(|o| t.strings.intern(o));
        t.outcome.push(outcome);
        let failure = &meta["failure"];
        let cat = s(t, &failure["category"]);
        t.failure_category.push(cat);
        let group = crate::results::outcome::failure_group(value).map(|g| t.strings.intern(&g));
        t.failure_group.push(group);
        let stage = s(t, &failure["stage"]);
        t.failure_stage.push(stage);
        // Tokens: what Karenina's summary reads, stage by stage (its facts,
        // as `kld info` reads them), each count within 64 bits.
        let facts = RowFacts::of_value(value, csv);
        for (k, stage) in facts.tokens.iter().enumerate() {
            for (d, v) in stage.iter().enumerate() {
                t.tokens[k][d].push(v.as_ref().map(|v| v.count.clamped()));
            }
        }
        let metrics = r.agent_metrics();
        let counts = metrics
            .as_ref()
            .and_then(|m| obj(&m["tool_call_counts"]))
            .map(|c| serde_json::to_string(c).unwrap_or_default());
        t.has_tool_counts.push(counts.is_some());
        let counts = counts.map(|c| t.strings.intern(&c));
        t.tool_calls.push(counts);
        let iterations = facts
            .iterations
            .as_ref()
            .map(|v| v.as_f64().unwrap_or(f64::NAN));
        t.iterations.push(iterations);
        // Every score dict, a CSV's (whose family the file does not say)
        // under `unknown`, as `kld info` lists it.
        for &(dict, family) in crate::results::SCORE_DICTS {
            // (The quads score a dict by its metrics in these families, as
            // one `rdf:JSON` value in the others.)
            let metrics = matches!(family, None | Some("metric"));
            let family = family.unwrap_or(super::UNTYPED_FAMILY);
            for (name, v) in r.scores(dict).into_iter().flatten() {
                let col = t.trait_column(family, name, i);
                col.present.resize(i, false);
                col.value.resize(i, None);
                col.kind.resize(i, ScoreKind::Absent);
                col.present.push(true);
                match v {
                    Value::Object(m) => {
                        col.value.push(None);
                        col.kind.push(if metrics {
                            ScoreKind::Absent
                        } else {
                            ScoreKind::Other
                        });
                        for (f, x) in m {
                            let at = col.field(f, i);
                            let field = &mut col.fields[at].1;
                            field.resize(i, None);
                            field.push(number(x));
                            let kinds = &mut col.field_kinds[at];
                            kinds.resize(i, ScoreKind::Absent);
                            kinds.push(kind_of(x));
                        }
                    }
                    v => {
                        col.value.push(number(v));
                        col.kind.push(kind_of(v));
                    }
                }
            }
        }
        t.pad_traits(i + 1);
        self.part().rows += 1;
    }
}

/// The kind of a score's value as the quads type it
/// (`rdf::verification`'s literal of a JSON scalar), for the value
/// `number` gives.
fn kind_of(v: &Value) -> ScoreKind {
    use oxigraph::model::vocab::xsd;
    use oxigraph::model::Term;
    let Some(term) = crate::rdf::verification::rows::scalar(v) else {
        return ScoreKind::Null;
    };
    let Term::Literal(l) = term else {
        return ScoreKind::Other;
    };
    let dt = l.datatype();
    if dt == xsd::BOOLEAN {
        ScoreKind::Bool
    } else if dt == xsd::INTEGER {
        // Oxigraph's integers are 64-bit; the table's value holds 53 bits.
        match l.value().parse::<i64>() {
            Ok(n) if n.unsigned_abs() <= 1 << 53 => ScoreKind::Integer,
            _ => ScoreKind::Inexact,
        }
    } else if dt == xsd::DOUBLE {
        match number(v) {
            Some(f) if f.is_finite() => ScoreKind::Double,
            // NaN is numeric but not equal to itself: never summed.
            _ if l.value() == "NaN" => ScoreKind::Other,
            _ => ScoreKind::Inexact,
        }
    } else {
        ScoreKind::Other
    }
}

/// The MCP part of a combo string (`answering | parsing | mcp1, mcp2`).
fn split_combo<'c>(combo: &'c str, answering: &str, parsing: &str) -> (&'c str, Option<&'c str>) {
    let head = answering.len() + 3 + parsing.len();
    match combo.get(head..).and_then(|rest| rest.strip_prefix(" | ")) {
        Some(m) => (&combo[..head], Some(m)),
        None => (combo, None),
    }
}

impl Visit for Builder<'_> {
    fn header(&mut self, h: &Value) {
        let p = self.part();
        p.source_format = h["source_format"]
            .as_str()
            .filter(|f| ["csv", "taskeval", "gui-csv"].contains(f))
            .unwrap_or("json")
            .to_string();
        p.csv = h["source_format"] == "csv";
        p.job_id = h["metadata"]["job_id"].as_str().map(str::to_string);
        p.exported = h["metadata"]["export_timestamp"]
            .as_str()
            .map(str::to_string);
    }

    fn row(&mut self, row: Value) -> std::result::Result<(), RowError> {
        self.add(&row);
        Ok(())
    }
}

/// The table of one results export (JSON, CSV, TaskEval, the GUI's CSV),
/// read as `kld info` reads it (streamed), as the run of its results graph
/// (the file's `file://` URL, as the store names it).
pub fn from_path(file: &Path) -> Result<Table> {
    let mut table = Table::default();
    let graph = crate::rdf::file_url(&crate::fsutil::canonical_input(file)?)?;
    let mut b = Builder::new(&mut table, &graph);
    crate::results::read_path_unhashed(file, &mut b)?;
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mcp_part_of_a_combo() {
        assert_eq!(split_combo("a:x | b:y", "a:x", "b:y"), ("a:x | b:y", None));
        assert_eq!(
            split_combo("a:x | b:y | m1, m2", "a:x", "b:y"),
            ("a:x | b:y", Some("m1, m2"))
        );
    }

    #[test]
    fn rows_and_traits_line_up() {
        let mut t = Table::default();
        let mut b = Builder::new(&mut t, "urn:g");
        let row = |q: &str, scores: Value| {
            serde_json::json!({
                "metadata": {"question_id": q, "failure": null, "replicate": 1,
                    "answering": {"interface": "langchain", "model_name": "a", "tools": [], "config_id": null},
                    "parsing": {"interface": "langchain", "model_name": "p", "tools": [], "config_id": null}},
                "template": {"template_verification_performed": true, "verify_result": true,
                    "answering_mcp_servers": ["z", "m"],
                    "usage_metadata": {"total": {"input_tokens": 5, "output_tokens": null}}},
                "rubric": {"rubric_evaluation_performed": true, "llm_trait_scores": scores},
            })
        };
        b.add(&row("q1", serde_json::json!({})));
        b.add(&row("q2", serde_json::json!({"clarity": 4})));
        b.add(&row("q1", serde_json::json!({"safe": true})));
        assert_eq!(t.len(), 3);
        assert_eq!(t.runs[0].rows, 3);
        assert_eq!(t.traits.len(), 2);
        for c in &t.traits {
            assert_eq!(c.present.len(), 3);
            assert_eq!(c.value.len(), 3);
        }
        assert_eq!(t.traits[0].value, vec![None, Some(4.0), None]);
        assert_eq!(t.traits[1].present, vec![false, false, true]);
        assert_eq!(t.opt_text(t.mcp[0]), Some("m, z"));
        assert_eq!(t.text(t.combo[0]), "langchain:a | langchain:p | m, z");
        assert_eq!(t.tokens[0][0], vec![Some(5); 3]);
        assert_eq!(t.tokens[0][1], vec![None; 3]);
        assert_eq!(t.opt_text(t.outcome[0]), Some("passed"));
        assert_eq!(t.question[0], t.question[2]);
    }
}
