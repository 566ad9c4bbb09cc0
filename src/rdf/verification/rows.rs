//! One results row (or the run header) → quads. See the module doc of
//! [`super`] for the vocabulary.

use super::ResultsOptions;
use crate::json::nan::{NAN, NEG_INF, POS_INF};
use crate::results::{csv_export, outcome, RowError, SCORE_DICTS};
use crate::vocab::{self, RDF_JSON, RDF_TYPE, XSD_DOUBLE, XSD_INTEGER};
use oxigraph::model::{BlankNode, GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// Template fields that hold raw responses and traces (kept only on request).
const TRACE_FIELDS: &[&str] = &[
    "raw_llm_response",
    "trace_messages",
    "conversation_context",
    "investigation_trace",
];

/// Scalar `metadata` fields and the property each becomes.
const METADATA_TERMS: &[(&str, &str)] = &[
    ("result_id", "resultId"),
    ("replicate", "replicate"),
    ("timestamp", "timestamp"),
    ("execution_time", "executionTime"),
    ("template_id", "templateId"),
    // Scenario turn rows: linked by scenario name and node id, since their
    // question ID is a hash of the node's text (`docs/results.md`, "Linking").
    ("scenario_id", "scenarioId"),
    ("scenario_node", "scenarioNode"),
    ("scenario_turn", "scenarioTurn"),
    ("scenario_path", "scenarioPath"),
];

/// `karenina:csvResultId`: on a scenario turn row of a JSON export, the
/// result ID its CSV export recomputes to (Karenina's recipe without the
/// scenario fields).
pub const CSV_RESULT_ID: &str = "csvResultId";

/// The other `metadata` fields held by triples.
const MAPPED_METADATA: &[&str] = &["question_id", "run_name", "answering", "parsing"];

/// Scalar `template` fields and the property each becomes.
const TEMPLATE_TERMS: &[(&str, &str)] = &[
    ("verify_result", "verifyResult"),
    ("verify_granular_result", "verifyGranularResult"),
    ("abstention_detected", "abstentionDetected"),
    ("sufficiency_detected", "sufficiencyDetected"),
    ("embedding_similarity_score", "embeddingSimilarity"),
    ("embedding_override_applied", "embeddingOverride"),
];

/// The fields of one stage of `template.usage_metadata` held by triples
/// (on a `karenina:usage` node), and the property each becomes.
const USAGE_TERMS: &[(&str, &str)] = &[
    ("input_tokens", "inputTokens"),
    ("output_tokens", "outputTokens"),
    ("total_tokens", "totalTokens"),
    ("model", "usageModel"),
];

/// Scalar `template.agent_metrics` fields and the property each becomes.
const AGENT_TERMS: &[(&str, &str)] = &[
    ("iterations", "agentIterations"),
    ("tool_calls", "agentToolCalls"),
    ("suspect_failed_tool_calls", "suspectFailedToolCalls"),
];

/// A JSON pointer token for `key` (RFC 6901).
fn pointer_escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Removes `keys` from the object at JSON pointer `at`, if there is one.
fn strip<'k>(v: &mut Value, at: &str, keys: impl IntoIterator<Item = &'k str>) {
    if let Some(o) = v.pointer_mut(at).and_then(Value::as_object_mut) {
        for key in keys {
            o.shift_remove(key);
        }
    }
}

/// One mapped row as the provenance of a run needs it (workspace captures
/// and repairs are matched to results by ID and by Karenina's row key).
#[derive(Clone, Debug)]
pub(crate) struct RowFacts {
    /// The result's node.
    pub(crate) node: NamedOrBlankNode,
    /// `metadata.result_id`.
    pub(crate) result_id: Option<String>,
    /// Karenina's row key ([`outcome::row_key`]).
    pub(crate) key: String,
}

/// Maps rows of one results file into its graph.
pub struct RowMapper {
    graph: GraphName,
    opts: ResultsOptions,
    run: BlankNode,
    seen_ids: HashSet<String>,
    /// Each row's facts, when asked for ([`RowMapper::record_rows`]).
    recorded: Option<Vec<RowFacts>>,
    /// One node per (trait family, trait name) scored in the file: the trait
    /// as this run saw it (name, family), shared by its scores.
    traits: RefCell<HashMap<(Option<&'static str>, String), BlankNode>>,
    /// In a TaskEval export, the evaluation the rows being read belong to:
    /// `Some(None)` its global evaluation, `Some(Some(step))` a step.
    step: Option<Option<String>>,
}

use crate::vocab::term as k;

fn string(s: &str) -> Term {
    Term::Literal(Literal::new_simple_literal(s))
}

fn json(v: &Value) -> Term {
    Term::Literal(Literal::new_typed_literal(
        v.to_string(),
        NamedNode::new_unchecked(RDF_JSON),
    ))
}

/// A scalar as a typed literal (sentinels → NaN/INF doubles); `None` for
/// null; structures as `rdf:JSON`. (The results table types its trait
/// scores by it: `table::ScoreKind`.)
pub(crate) fn scalar(v: &Value) -> Option<Term> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => Term::Literal(Literal::from(*b)),
        // (Integers past 64 bits too, with their digits: Python's ints have
        // no bound, and as doubles they would read back as 1e23.)
        Value::Number(n) if n.is_i64() || n.is_u64() || is_integer_lexical(&n.to_string()) => {
            Term::Literal(Literal::new_typed_literal(
                n.to_string(),
                NamedNode::new_unchecked(XSD_INTEGER),
            ))
        }
        Value::Number(n) => Term::Literal(Literal::from(n.as_f64().unwrap_or(f64::NAN))),
        Value::String(s) if s == NAN => Term::Literal(Literal::new_typed_literal(
            "NaN",
            NamedNode::new_unchecked(XSD_DOUBLE),
        )),
        Value::String(s) if s == POS_INF => Term::Literal(Literal::new_typed_literal(
            "INF",
            NamedNode::new_unchecked(XSD_DOUBLE),
        )),
        Value::String(s) if s == NEG_INF => Term::Literal(Literal::new_typed_literal(
            "-INF",
            NamedNode::new_unchecked(XSD_DOUBLE),
        )),
        Value::String(s) => string(s),
        other => json(other),
    })
}

/// `-?[0-9]+`: a JSON number written as an integer (`arbitrary_precision`
/// keeps its digits).
fn is_integer_lexical(t: &str) -> bool {
    let digits = t.strip_prefix('-').unwrap_or(t);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

impl RowMapper {
    /// A mapper writing into `graph`.
    pub fn new(graph: GraphName, opts: ResultsOptions) -> Self {
        RowMapper {
            graph,
            opts,
            run: BlankNode::default(),
            seen_ids: HashSet::new(),
            recorded: None,
            traits: RefCell::new(HashMap::new()),
            step: None,
        }
    }

    /// The rows after this call are of a TaskEval step (`Some`) or of its
    /// global evaluation (`None`).
    pub(crate) fn set_step(&mut self, step: Option<&str>) {
        self.step = Some(step.map(str::to_string));
    }

    /// Keeps each row's node, result ID and row key from now on.
    pub(crate) fn record_rows(&mut self) {
        self.recorded.get_or_insert_with(Vec::new);
    }

    /// The rows kept since [`RowMapper::record_rows`], in file order.
    pub(crate) fn take_recorded(&mut self) -> Vec<RowFacts> {
        self.recorded.take().unwrap_or_default()
    }

    fn emit(&self, sink: &mut dyn FnMut(Quad), s: &NamedOrBlankNode, p: NamedNode, o: Term) {
        if self.opts.keys_only && !self.is_key(s, &p, &o) {
            return;
        }
        sink(Quad::new(s.clone(), p, o, self.graph.clone()));
    }

    /// A quad [`ResultsOptions::keys_only`] keeps: every quad of the run's
    /// node, a result's type and its [`super::KEYS`].
    fn is_key(&self, s: &NamedOrBlankNode, p: &NamedNode, o: &Term) -> bool {
        if matches!(s, NamedOrBlankNode::BlankNode(b) if *b == self.run) {
            return true;
        }
        if p.as_str() == RDF_TYPE {
            return matches!(o, Term::NamedNode(c) if c.as_str() == k("VerificationResult").as_str());
        }
        p.as_str()
            .strip_prefix(crate::vocab::KARENINA)
            .is_some_and(|local| super::KEYS.contains(&local))
    }

    /// The node of a trait scored in this file, made (with its name and
    /// family) the first time: scores point to it rather than repeating both.
    fn trait_node(
        &self,
        family: Option<&'static str>,
        name: &str,
        sink: &mut dyn FnMut(Quad),
    ) -> BlankNode {
        let key = (family, name.to_string());
        if let Some(b) = self.traits.borrow().get(&key) {
            return b.clone();
        }
        let b = BlankNode::default();
        let t = NamedOrBlankNode::BlankNode(b.clone());
        self.emit(
            sink,
            &t,
            NamedNode::new_unchecked(RDF_TYPE),
            Term::NamedNode(k("ScoredTrait")),
        );
        self.emit(sink, &t, k("traitName"), string(name));
        if let Some(f) = family {
            self.emit(sink, &t, k("traitFamily"), string(f));
        }
        self.traits.borrow_mut().insert(key, b.clone());
        b
    }

    /// The node of the run (its facts are added by [`RowMapper::run`]).
    pub(crate) fn run_node(&self) -> &BlankNode {
        &self.run
    }

    /// The run node, from the header (`metadata`, `format_version`).
    pub fn run(&mut self, header: &Value, sink: &mut dyn FnMut(Quad)) {
        let r = NamedOrBlankNode::BlankNode(self.run.clone());
        self.emit(
            sink,
            &r,
            NamedNode::new_unchecked(RDF_TYPE),
            Term::NamedNode(k("VerificationRun")),
        );
        let m = &header["metadata"];
        for (key, local) in [
            ("job_id", "jobId"),
            ("export_timestamp", "exportTime"),
            ("karenina_version", "kareninaVersion"),
        ] {
            if let Some(t) = m.get(key).and_then(scalar) {
                self.emit(sink, &r, k(local), t);
            }
        }
        if let Some(t) = header.get("format_version").and_then(scalar) {
            self.emit(sink, &r, k("formatVersion"), t);
        }
        if let Some(c) = header.get("columns") {
            self.emit(sink, &r, k("csvColumns"), json(c));
        }
        let format = header
            .get("source_format")
            .and_then(Value::as_str)
            .unwrap_or("json");
        self.emit(sink, &r, k("sourceFormat"), string(format));
        for (key, local) in [
            ("job_summary", "jobSummary"),
            ("verification_config", "configuredModels"),
        ] {
            if let Some(v) = m.get(key).filter(|v| !v.is_null()) {
                self.emit(sink, &r, k(local), json(v));
            }
        }
        // A TaskEval export: the task's own fields (`crate::results::task_eval`).
        let te = &header["task_eval"];
        if te.is_object() {
            if let Some(t) = te["task_id"].as_str() {
                self.emit(sink, &r, k("taskId"), string(t));
            }
            if let Some(t) = te["timestamp"].as_str() {
                self.emit(sink, &r, k("taskEvalTime"), super::time(t));
            }
            if let Some(t) = te["summary"].as_str() {
                self.emit(sink, &r, k("taskEvalSummary"), string(t));
            }
            if !te["metadata"].is_null() {
                self.emit(sink, &r, k("taskEvalMetadata"), json(&te["metadata"]));
            }
            self.emit(sink, &r, k("taskEvalSteps"), json(&te["steps"]));
        }
    }

    /// Per-stage token usage (one `karenina:usage` node per stage of
    /// `template.usage_metadata` but `total`, which is on the result) and
    /// agent metrics (scalars on the result, one `karenina:toolCallCount`
    /// node per tool).
    fn usage_and_agent(
        &self,
        node: &NamedOrBlankNode,
        template: &Value,
        sink: &mut dyn FnMut(Quad),
    ) {
        if let Some(stages) = template.get("usage_metadata").and_then(Value::as_object) {
            for (stage, usage) in stages.iter().filter(|(s, _)| *s != "total") {
                let u = NamedOrBlankNode::BlankNode(BlankNode::default());
                self.emit(sink, node, k("usage"), u.clone().into());
                self.emit(sink, &u, k("usageStage"), string(stage));
                for (key, local) in USAGE_TERMS {
                    if let Some(t) = usage.get(*key).and_then(scalar) {
                        self.emit(sink, &u, k(local), t);
                    }
                }
            }
        }
        let Some(metrics) = template.get("agent_metrics").filter(|m| m.is_object()) else {
            return;
        };
        for (key, local) in AGENT_TERMS {
            if let Some(t) = metrics.get(*key).and_then(scalar) {
                self.emit(sink, node, k(local), t);
            }
        }
        if let Some(counts) = metrics.get("tool_call_counts").and_then(Value::as_object) {
            for (tool, n) in counts {
                let c = NamedOrBlankNode::BlankNode(BlankNode::default());
                self.emit(sink, node, k("toolCallCount"), c.clone().into());
                self.emit(sink, &c, k("toolName"), string(tool));
                if let Some(t) = scalar(n) {
                    self.emit(sink, &c, k("callCount"), t);
                }
            }
        }
    }

    /// Maps one row; an error message for a row that is not a result.
    pub fn row(&mut self, row: Value, sink: &mut dyn FnMut(Quad)) -> Result<(), RowError> {
        // A row that lacks fields (a GUI custom export) is read for what it
        // holds (`crate::results::lacks` says what it lacks); a wrong type is an error.
        if !row.is_object() {
            return Err("a result row is a JSON object".into());
        }
        let no_metadata = Value::Object(Default::default());
        let meta = match row.get("metadata") {
            None => &no_metadata,
            Some(m) if m.is_object() => m,
            Some(_) => return Err("`metadata` must be an object".into()),
        };
        let qid = match meta.get("question_id") {
            None => None,
            Some(Value::String(q)) => Some(q.as_str()),
            Some(_) => return Err("`metadata.question_id` must be a string".into()),
        };
        let node = match meta.get("result_id").and_then(Value::as_str) {
            Some(id) if self.seen_ids.insert(id.to_string()) => {
                NamedNode::new(format!("urn:karenina:result:{id}"))
                    .map(NamedOrBlankNode::NamedNode)
                    .unwrap_or_else(|_| NamedOrBlankNode::BlankNode(BlankNode::default()))
            }
            _ => NamedOrBlankNode::BlankNode(BlankNode::default()),
        };
        if let Some(r) = self.recorded.as_mut() {
            r.push(RowFacts {
                node: node.clone(),
                result_id: meta
                    .get("result_id")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                key: outcome::row_key(&row),
            });
        }
        let e = |p: &str, o: Term, sink: &mut dyn FnMut(Quad)| self.emit(sink, &node, k(p), o);
        self.emit(
            sink,
            &node,
            NamedNode::new_unchecked(RDF_TYPE),
            Term::NamedNode(k("VerificationResult")),
        );
        e("run", Term::BlankNode(self.run.clone()), sink);
        if let Some(qid) = qid {
            e("questionId", string(qid), sink);
            if let Ok(iri) = NamedNode::new(qid) {
                e("question", Term::NamedNode(iri), sink);
            }
        }
        if let Some(step) = &self.step {
            let scope = if step.is_some() { "step" } else { "global" };
            e("taskEvalScope", string(scope), sink);
            if let Some(s) = step {
                e("taskEvalStep", string(s), sink);
            }
        }
        let run_name = meta
            .get("run_name")
            .and_then(Value::as_str)
            .unwrap_or("(unnamed run)");
        e("runName", string(run_name), sink);
        for side in ["answering", "parsing"] {
            let id = &meta[side];
            let (interface, name) = outcome::model_of(&row, side);
            e(&format!("{side}Interface"), string(&interface), sink);
            e(&format!("{side}ModelName"), string(&name), sink);
            if let Some(c) = id.get("config_id").and_then(Value::as_str) {
                e(&format!("{side}ConfigId"), string(c), sink);
            }
            if let Some(t) = id
                .get("tools")
                .filter(|t| t.as_array().is_some_and(|a| !a.is_empty()))
            {
                e(&format!("{side}Tools"), json(t), sink);
            }
        }
        // Karenina's model identities and combo (its summary's keys).
        let answering = outcome::display_string(&row, "answering");
        let parsing = outcome::display_string(&row, "parsing");
        let mcp = outcome::mcp_servers(&row);
        e(
            "combo",
            string(&outcome::combo(&answering, &parsing, &mcp)),
            sink,
        );
        e("answeringModel", string(&answering), sink);
        e("parsingModel", string(&parsing), sink);
        for m in &mcp {
            e("mcpServer", string(m), sink);
        }
        for (key, local) in METADATA_TERMS {
            if let Some(t) = meta.get(*key).and_then(scalar) {
                e(local, t, sink);
            }
        }
        // A scenario turn's ID includes the scenario fields, which the CSV
        // export drops: the ID the CSV of this row recomputes to is kept too,
        // so the two exports of one run are recognised as one.
        if let Some(qid) = qid.filter(|_| meta.get("scenario_id").is_some_and(|v| !v.is_null())) {
            let rid = csv_export::result_id(
                &meta["answering"],
                &meta["parsing"],
                qid,
                meta.get("replicate").and_then(Value::as_i64),
                meta.get("timestamp").and_then(Value::as_str).unwrap_or(""),
            );
            e(CSV_RESULT_ID, string(&rid), sink);
        }
        // Every key is out (the result ID and scenario keys are metadata
        // terms): what follows would be built only to be dropped.
        if self.opts.keys_only {
            return Ok(());
        }
        if let Some(c) = meta["failure"].get("category").and_then(Value::as_str) {
            e("failureCategory", string(c), sink);
        }
        if let Some(c) = meta["failure"].get("reason").and_then(Value::as_str) {
            e("failureReason", string(c), sink);
        }
        if let Some(c) = meta["failure"].get("stage").and_then(Value::as_str) {
            e("failureStage", string(c), sink);
        }
        if let Some(g) = outcome::failure_group(&row) {
            e("failureGroup", string(&g), sink);
        }
        if let Some(o) = outcome::outcome(&row) {
            e("outcome", string(o), sink);
        }
        let template = &row["template"];
        let rubric = &row["rubric"];
        let mode = match (
            template
                .get("template_verification_performed")
                .and_then(Value::as_bool),
            rubric.is_object(),
        ) {
            (Some(false), true) => "rubric_only",
            (_, true) => "template_and_rubric",
            _ => "template_only",
        };
        e("evaluationMode", string(mode), sink);
        for (key, local) in TEMPLATE_TERMS {
            if let Some(t) = template.get(*key).and_then(scalar) {
                e(local, t, sink);
            }
        }
        for (part, key, local) in [
            (
                template,
                "template_verification_performed",
                "templateVerificationPerformed",
            ),
            (
                rubric,
                "rubric_evaluation_performed",
                "rubricEvaluationPerformed",
            ),
            (
                &row["deep_judgment"],
                "deep_judgment_performed",
                "deepJudgmentPerformed",
            ),
        ] {
            if let Some(b) = part.get(key).and_then(Value::as_bool) {
                e(local, Term::Literal(Literal::from(b)), sink);
            }
        }
        self.usage_and_agent(&node, template, sink);
        if let Some(total) = template["usage_metadata"].get("total") {
            for (key, local) in [
                ("input_tokens", "inputTokens"),
                ("output_tokens", "outputTokens"),
                ("total_tokens", "totalTokens"),
            ] {
                if let Some(t) = total.get(key).and_then(scalar) {
                    e(local, t, sink);
                }
            }
        }
        for (dict, family) in SCORE_DICTS {
            let Some(scores) = rubric.get(*dict).and_then(Value::as_object) else {
                continue;
            };
            for (key, v) in scores {
                // A metric trait's value is {metric: number}: one score per
                // metric (in a CSV, any dict value is a metric trait's).
                let (entries, trait_name): (Vec<(String, &Value)>, &str) = match (family, v) {
                    (Some("metric") | None, Value::Object(ms)) => (
                        ms.iter().map(|(m, x)| (format!("{key}.{m}"), x)).collect(),
                        key,
                    ),
                    // Template-kind traits write `trait.field` keys: the trait
                    // is the part before the first `.` (as Karenina splits).
                    (Some("regex" | "callable"), _) => (vec![(key.clone(), v)], key),
                    _ => (
                        vec![(key.clone(), v)],
                        key.split_once('.').map_or(key.as_str(), |(t, _)| t),
                    ),
                };
                let trait_node = self.trait_node(*family, trait_name, sink);
                for (score_key, value) in entries {
                    let s = NamedOrBlankNode::BlankNode(BlankNode::default());
                    e("score", s.clone().into(), sink);
                    self.emit(sink, &s, k("scoreKey"), string(&score_key));
                    self.emit(sink, &s, k("trait"), trait_node.clone().into());
                    match scalar(value) {
                        Some(t) => self.emit(
                            sink,
                            &s,
                            NamedNode::new_unchecked(vocab::schema("value")),
                            t,
                        ),
                        None => {
                            self.emit(sink, &s, k("nullScore"), Term::Literal(Literal::from(true)))
                        }
                    }
                }
            }
        }
        // Everything else: what no triple above holds, minus traces unless
        // asked for (a CSV row's rest was chosen by its reader).
        let mut rest = row;
        if let Some(cells) = rest
            .get_mut(csv_export::RAW_CELLS)
            .and_then(Value::as_object_mut)
        {
            let mut cells = std::mem::take(cells);
            if !self.opts.with_traces {
                cells.shift_remove("raw_llm_response");
            }
            e("rest", json(&Value::Object(cells)), sink);
            return Ok(());
        }
        let keys = |terms: &'static [(&str, &str)]| terms.iter().map(|(key, _)| *key);
        strip(&mut rest, "/metadata", keys(METADATA_TERMS));
        strip(&mut rest, "/metadata", MAPPED_METADATA.iter().copied());
        strip(
            &mut rest,
            "/metadata/failure",
            ["category", "reason", "stage", "group"],
        );
        strip(&mut rest, "/template", keys(TEMPLATE_TERMS));
        strip(&mut rest, "/template", ["template_verification_performed"]);
        strip(&mut rest, "/rubric", ["rubric_evaluation_performed"]);
        strip(&mut rest, "/deep_judgment", ["deep_judgment_performed"]);
        strip(&mut rest, "/template/usage_metadata", ["total"]);
        let stages: Vec<String> = rest
            .pointer("/template/usage_metadata")
            .and_then(Value::as_object)
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        for stage in stages {
            let at = format!("/template/usage_metadata/{}", pointer_escape(&stage));
            strip(&mut rest, &at, USAGE_TERMS.iter().map(|(key, _)| *key));
        }
        strip(&mut rest, "/template/agent_metrics", keys(AGENT_TERMS));
        strip(&mut rest, "/template/agent_metrics", ["tool_call_counts"]);
        strip(&mut rest, "/rubric", SCORE_DICTS.iter().map(|(d, _)| *d));
        if !self.opts.with_traces {
            strip(&mut rest, "/template", TRACE_FIELDS.iter().copied());
            strip(&mut rest, "/rubric", ["agentic_trait_investigation_traces"]);
            strip(&mut rest, "", ["evaluation_input"]);
        }
        e("rest", json(&rest), sink);
        Ok(())
    }
}
