//! The leaderboard's and the matrix's numbers (`kld serve`'s `/leaderboard`
//! and `/matrix`, the page's views), computed from the store's results
//! graphs the way Karenina computes its own summary.
//!
//! Why a module of its own rather than a catalogue query: the board must
//! never pool what Karenina keeps apart. A pass rate is Karenina's
//! `template_pass_by_combo` (`VerificationResultSet.get_summary()`): the
//! rows of one combo (answering model × parsing model × MCP servers) whose
//! template verification was performed, `passed` those with
//! `verify_result` true. So every cell is one judge's (a parsing model's)
//! rate over one run, or over the latest result of each question when asked,
//! never a sum over judges or over two runs of a benchmark; the other rows
//! are counted apart by outcome (Karenina's failure groups), so an
//! infrastructure failure (a timeout, a crash) is never a wrong answer.
//!
//! One SPARQL query reads one line per result (its run, benchmark, models,
//! replicate, verdict, outcome); [`leaderboard`] and [`matrix`] fold those
//! lines. Only results whose question is in the benchmark their run is bound
//! to count, as for every per-benchmark figure (`docs/results.md`).

mod leaderboard;
mod matrix;

pub use leaderboard::{leaderboard, Cell, Column, Leaderboard, Model, Spread};
pub use matrix::{matrix, Matrix, MatrixCell, MatrixQuestion};

use crate::error::{Error, Result};
use crate::sparql::{self, Answer, QueryOptions};
use oxigraph::model::Term;
use oxigraph::store::Store;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One verification result as the board counts it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResultRow {
    /// The results graph (one per run).
    pub run: String,
    /// The checkpoint graph the run is bound to.
    pub checkpoint: String,
    /// The question ID.
    pub question: String,
    /// The answering model, as Karenina's `ModelIdentity.display_string`.
    pub answering: String,
    /// The parsing model (the judge), the same way.
    pub parsing: String,
    /// The answering model's MCP servers, sorted (Karenina's combo key).
    pub mcp: Vec<String>,
    /// The replicate, when the run had several.
    pub replicate: Option<i64>,
    /// Karenina's timestamp of the result (`YYYY-MM-DD HH:MM:SS`).
    pub timestamp: String,
    /// `verify_result`.
    pub verify: Option<bool>,
    /// `template_verification_performed`; `None` where the file cannot tell
    /// (a CSV export writes no such column).
    pub performed: Option<bool>,
    /// The outcome: `passed`, a failure group (`content`, `abstained`,
    /// `autofail`, `retry`, `system`), `no_verdict`, or `unclassified` (a
    /// failure whose file keeps no category: a CSV's).
    pub outcome: String,
}

impl ResultRow {
    /// Karenina's combo string: `answering | parsing`, then `| mcp1, mcp2`
    /// when the answering model had MCP servers.
    pub(crate) fn combo(&self) -> String {
        if self.mcp.is_empty() {
            format!("{} | {}", self.answering, self.parsing)
        } else {
            format!(
                "{} | {} | {}",
                self.answering,
                self.parsing,
                self.mcp.join(", ")
            )
        }
    }
}

/// One run bound to a loaded benchmark.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunInfo {
    /// The results graph.
    pub graph: String,
    /// Karenina's run name (several runs may share one).
    pub run_name: String,
    /// The checkpoint graph it is bound to.
    pub checkpoint: String,
    /// That benchmark's name.
    pub benchmark: String,
    /// The export's time (`export_timestamp`), when written.
    pub exported: String,
    /// Its labels (`kld load --label K=V`), `K=V` each, sorted.
    pub labels: Vec<String>,
}

/// What the store holds for the board: the bound runs and their results.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BoardData {
    /// The runs bound to a loaded benchmark, by graph.
    pub runs: Vec<RunInfo>,
    /// Their results whose question is in that benchmark.
    pub rows: Vec<ResultRow>,
}

/// What the user chose: the same filters for the leaderboard and the matrix.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// One judge (parsing model display string); `None`: every judge, each
    /// apart.
    pub judge: Option<String>,
    /// One run (results graph).
    pub run: Option<String>,
    /// One benchmark (checkpoint graph).
    pub benchmark: Option<String>,
    /// Only runs with this label (`K=V`).
    pub label: Option<String>,
    /// The latest result per question (model, judge and replicate) across
    /// a benchmark's runs, instead of one column per run.
    pub latest: bool,
}

impl Filter {
    /// The rows of `data` the filter keeps (judge, run, benchmark, label),
    /// and with [`Filter::latest`] only the latest of each question.
    pub(crate) fn apply<'a>(&self, data: &'a BoardData) -> Vec<&'a ResultRow> {
        let runs: HashMap<&str, &RunInfo> =
            data.runs.iter().map(|r| (r.graph.as_str(), r)).collect();
        let rows = data.rows.iter().filter(|r| {
            self.judge.as_ref().is_none_or(|j| *j == r.parsing)
                && self.run.as_ref().is_none_or(|g| *g == r.run)
                && self.benchmark.as_ref().is_none_or(|g| *g == r.checkpoint)
                && self.label.as_ref().is_none_or(|l| {
                    runs.get(r.run.as_str())
                        .is_some_and(|run| run.labels.contains(l))
                })
        });
        if !self.latest {
            return rows.collect();
        }
        // The latest result of each (benchmark, question, combo, replicate):
        // by timestamp, then the run exported last, then the graph.
        type Key<'k> = (
            &'k str,
            &'k str,
            &'k str,
            &'k str,
            &'k [String],
            Option<i64>,
        );
        let order = |r: &ResultRow| {
            let exported = runs.get(r.run.as_str()).map_or("", |x| x.exported.as_str());
            (r.timestamp.clone(), exported.to_string(), r.run.clone())
        };
        let mut latest: BTreeMap<Key, &ResultRow> = BTreeMap::new();
        for r in rows {
            let key = (
                r.checkpoint.as_str(),
                r.question.as_str(),
                r.answering.as_str(),
                r.parsing.as_str(),
                &r.mcp[..],
                r.replicate,
            );
            match latest.get(&key) {
                Some(old) if order(old) >= order(r) => {}
                _ => {
                    latest.insert(key, r);
                }
            }
        }
        latest.into_values().collect()
    }
}

/// What a one-benchmark view (the matrix, the manuscript's question rates)
/// shows: the benchmark and judge the filter names or their defaults, what a
/// selector offers, and the filter that picks the view's rows.
pub(crate) struct OneBenchmark {
    /// The checkpoint graph shown (`None`: no results at all).
    pub checkpoint: Option<String>,
    /// The judge shown.
    pub judge: Option<String>,
    /// The benchmarks there are (checkpoint graphs), in order.
    pub checkpoints: Vec<String>,
    /// The judges of the benchmark shown, in order.
    pub judges: Vec<String>,
    /// The filter with that benchmark and judge, and the latest result per
    /// question when no run is chosen.
    pub filter: Filter,
}

/// The benchmark `filter` names (default: the first with results), its
/// judge (default: the first of that benchmark), and the latest result per
/// question unless a run is chosen: one choice for every one-benchmark view,
/// so the matrix and the heatmap never show different defaults.
pub(crate) fn one_benchmark(data: &BoardData, filter: &Filter) -> OneBenchmark {
    let checkpoints: BTreeSet<&str> = data.rows.iter().map(|r| r.checkpoint.as_str()).collect();
    let checkpoint = filter
        .benchmark
        .clone()
        .or_else(|| checkpoints.first().map(|s| s.to_string()));
    let judges: BTreeSet<&str> = data
        .rows
        .iter()
        .filter(|r| Some(&r.checkpoint) == checkpoint.as_ref())
        .map(|r| r.parsing.as_str())
        .collect();
    let judge = filter
        .judge
        .clone()
        .or_else(|| judges.first().map(|s| s.to_string()));
    let filter = Filter {
        judge: judge.clone(),
        benchmark: checkpoint.clone(),
        latest: filter.run.is_none(),
        ..filter.clone()
    };
    OneBenchmark {
        checkpoint,
        judge,
        checkpoints: checkpoints.into_iter().map(str::to_string).collect(),
        judges: judges.into_iter().map(str::to_string).collect(),
        filter,
    }
}

/// Karenina's `CATEGORY_TO_GROUP` (`schemas/results/failure.py`): the
/// failure group of a failure category, for graphs mapped before
/// `karenina:failureGroup` was written.
use crate::results::outcome::group_of_category as failure_group;

/// The outcomes in the order the board shows them (the outcome classes of
/// `crate::results::outcome::CLASSES`).
pub const OUTCOMES: &[&str] = &crate::results::outcome::CLASSES;

/// The runs bound to a loaded benchmark, with its name, the export's time
/// and format, and the run's labels.
const RUNS: &str = r#"PREFIX karenina: <urn:karenina:vocab:>
PREFIX schema: <https://schema.org/>
SELECT ?rg ?graph ?benchmark ?exported ?format ?key ?value WHERE {
  ?rg karenina:forBenchmark ?graph .
  GRAPH ?graph { ?feed a schema:DataFeed ; schema:name ?benchmark }
  OPTIONAL { GRAPH ?rg { ?run a karenina:VerificationRun ; karenina:exportTime ?exported } }
  OPTIONAL { GRAPH ?rg { ?run1 a karenina:VerificationRun ; karenina:sourceFormat ?format } }
  OPTIONAL { GRAPH ?rg { ?run2 a karenina:VerificationRun ;
    karenina:label [ karenina:labelKey ?key ; karenina:labelValue ?value ] } }
}"#;

/// The question IDs of each benchmark that has runs, and the IDs a CSV
/// export gives its scenarios' turns (Karenina's `generate_question_id` of
/// a node's question text, as `pass-rate-by-benchmark` takes them).
const MEMBERS: &str = r#"PREFIX karenina: <urn:karenina:vocab:>
PREFIX schema: <https://schema.org/>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
SELECT DISTINCT ?graph ?qid WHERE {
  { SELECT DISTINCT ?graph WHERE { ?rg karenina:forBenchmark ?graph } }
  { GRAPH ?graph { ?item a schema:DataFeedItem ; karenina:id ?qid } }
  UNION
  { GRAPH ?graph { ?ts a karenina:Scenario ; karenina:node/schema:question/schema:text ?text FILTER(DATATYPE(?text) = xsd:string) }
    BIND(CONCAT("urn:uuid:question-", SUBSTR(REPLACE(REPLACE(LCASE(?text), " ", "-"), "[?.,]", ""), 1, 50), "-", SUBSTR(MD5(?text), 1, 8)) AS ?qid) }
}"#;

/// The scenario nodes of each benchmark that has runs.
const NODES: &str = r#"PREFIX karenina: <urn:karenina:vocab:>
PREFIX schema: <https://schema.org/>
SELECT DISTINCT ?graph ?sid ?nid WHERE {
  { SELECT DISTINCT ?graph WHERE { ?rg karenina:forBenchmark ?graph } }
  GRAPH ?graph { ?s a karenina:Scenario ; schema:name ?sid ; karenina:node/schema:nodeId ?nid }
}"#;

/// The result properties the board reads, each read by one scan of the
/// store's predicate index per results graph (a query joining them with 14
/// OPTIONALs took 3.7 ms a result).
const FIELDS: &[&str] = &[
    "questionId",
    "scenarioId",
    "scenarioNode",
    "answeringInterface",
    "answeringModelName",
    "answeringConfigId",
    "answeringTools",
    "answeringModel",
    "parsingInterface",
    "parsingModelName",
    "parsingConfigId",
    "parsingTools",
    "parsingModel",
    "mcpServer",
    "replicate",
    "timestamp",
    "verifyResult",
    "templateVerificationPerformed",
    "failureCategory",
    "failureReason",
    "failureGroup",
    "outcome",
];

/// Runs a SELECT of ours and returns its rows by variable name.
fn select(store: &Store, text: &str, opts: &QueryOptions) -> Result<Vec<HashMap<String, Term>>> {
    let parsed = sparql::parse(text)?;
    match sparql::answer(store, &parsed, opts)? {
        Answer::Solutions { variables, rows } => Ok(rows
            .into_iter()
            .map(|row| {
                variables
                    .iter()
                    .zip(row)
                    .filter_map(|(v, t)| Some((v.clone(), t?)))
                    .collect()
            })
            .collect()),
        _ => Err(Error::Internal("the board's query is a SELECT".into())),
    }
}

/// A term's lexical value (an IRI's text, a literal's value).
fn text(t: &Term) -> String {
    match t {
        Term::NamedNode(n) => n.as_str().to_string(),
        Term::BlankNode(b) => b.as_str().to_string(),
        Term::Literal(l) => l.value().to_string(),
        #[allow(unreachable_patterns)]
        _ => String::new(),
    }
}

/// Karenina's `ModelIdentity.display_string` from the mapped parts:
/// `interface:model_name`, then ` (config_id)`, then ` +[tool1, tool2]`.
pub(crate) fn display_string(
    interface: &str,
    model: &str,
    config: Option<&str>,
    tools: &[String],
) -> String {
    let mut s = format!("{interface}:{model}");
    if let Some(c) = config.filter(|c| !c.is_empty()) {
        s.push_str(&format!(" ({c})"));
    }
    if !tools.is_empty() {
        s.push_str(&format!(" +[{}]", tools.join(", ")));
    }
    s
}

/// Reads the board's data: every result of a bound run whose question is in
/// its benchmark, and the runs, under `opts` (its time limit and memory for
/// the queries; the scans stop when its control is cancelled).
pub fn read(store: &Store, opts: &QueryOptions) -> Result<BoardData> {
    let mut runs: BTreeMap<String, RunInfo> = BTreeMap::new();
    let mut csv: BTreeSet<String> = BTreeSet::new();
    for b in select(store, RUNS, opts)? {
        let get = |k: &str| b.get(k).map(text).unwrap_or_default();
        if get("format") == "csv" {
            csv.insert(get("rg"));
        }
        let run = runs.entry(get("rg")).or_insert_with(|| RunInfo {
            graph: get("rg"),
            run_name: String::new(),
            checkpoint: get("graph"),
            benchmark: get("benchmark"),
            exported: get("exported"),
            labels: Vec::new(),
        });
        if let (Some(k), Some(v)) = (b.get("key"), b.get("value")) {
            let label = format!("{}={}", text(k), text(v));
            if !run.labels.contains(&label) {
                run.labels.push(label);
            }
        }
    }
    for r in runs.values_mut() {
        r.labels.sort();
    }
    let mut members: BTreeSet<(String, String)> = BTreeSet::new();
    for b in select(store, MEMBERS, opts)? {
        if let (Some(g), Some(q)) = (b.get("graph"), b.get("qid")) {
            members.insert((text(g), text(q)));
        }
    }
    let mut nodes: BTreeSet<(String, String, String)> = BTreeSet::new();
    for b in select(store, NODES, opts)? {
        if let (Some(g), Some(sid), Some(nid)) = (b.get("graph"), b.get("sid"), b.get("nid")) {
            nodes.insert((text(g), text(sid), text(nid)));
        }
    }
    let mut rows = Vec::new();
    for run in runs.values_mut() {
        let graph = oxigraph::model::NamedNode::new(&run.graph)
            .map_err(|e| Error::Internal(format!("a results graph that is not an IRI: {e}")))?;
        // Subject -> property -> values, for this run.
        let mut results: HashMap<Term, HashMap<&str, Vec<String>>> = HashMap::new();
        for field in FIELDS {
            if opts.control.is_stopped() {
                return Err(Error::Internal("the board's read was cancelled".into()));
            }
            let p = crate::vocab::term(field);
            for q in
                store.quads_for_pattern(None, Some(p.as_ref()), None, Some(graph.as_ref().into()))
            {
                let q = q.map_err(Error::store)?;
                results
                    .entry(q.subject.into())
                    .or_default()
                    .entry(field)
                    .or_default()
                    .push(text(&q.object));
            }
        }
        let name = crate::vocab::term("runName");
        if let Some(Ok(q)) = store
            .quads_for_pattern(None, Some(name.as_ref()), None, Some(graph.as_ref().into()))
            .next()
        {
            run.run_name = text(&q.object);
        }
        let in_csv = csv.contains(&run.graph);
        for f in results.into_values() {
            if let Some(row) = row_of(run, &f, in_csv, &members, &nodes) {
                rows.push(row);
            }
        }
    }
    rows.sort_by(|a, b| {
        (
            &a.run,
            &a.question,
            &a.answering,
            &a.parsing,
            a.replicate,
            &a.timestamp,
        )
            .cmp(&(
                &b.run,
                &b.question,
                &b.answering,
                &b.parsing,
                b.replicate,
                &b.timestamp,
            ))
    });
    Ok(BoardData {
        runs: runs.into_values().collect(),
        rows,
    })
}

/// One result of `run` from its properties `f`, if it is a result (it has
/// models) of a question (or scenario node) of the run's benchmark.
fn row_of(
    run: &RunInfo,
    f: &HashMap<&str, Vec<String>>,
    csv: bool,
    members: &BTreeSet<(String, String)>,
    nodes: &BTreeSet<(String, String, String)>,
) -> Option<ResultRow> {
    let one = |k: &str| f.get(k).and_then(|v| v.first()).cloned();
    let s = |k: &str| one(k).unwrap_or_default();
    let question = one("questionId")?;
    let member = match (one("scenarioId"), one("scenarioNode")) {
        (Some(sid), Some(nid)) => nodes.contains(&(run.checkpoint.clone(), sid, nid)),
        (Some(_), None) => false,
        _ => members.contains(&(run.checkpoint.clone(), question.clone())),
    };
    if !member {
        return None;
    }
    let tools = |k: &str| -> Vec<String> {
        one(k)
            .and_then(|t| serde_json::from_str::<Vec<String>>(&t).ok())
            .unwrap_or_default()
    };
    let answering_tools = tools("answeringTools");
    let answering = match one("answeringModel") {
        Some(a) => a,
        None => display_string(
            &one("answeringInterface")?,
            &one("answeringModelName")?,
            one("answeringConfigId").as_deref(),
            &answering_tools,
        ),
    };
    let parsing = match one("parsingModel") {
        Some(p) => p,
        None => display_string(
            &one("parsingInterface")?,
            &one("parsingModelName")?,
            one("parsingConfigId").as_deref(),
            &tools("parsingTools"),
        ),
    };
    // Graphs mapped before `karenina:mcpServer`: the answering model's
    // tools are its MCP servers.
    let mut mcp = match f.get("mcpServer") {
        Some(m) => m.clone(),
        None => answering_tools,
    };
    mcp.sort();
    mcp.dedup();
    let verify = one("verifyResult").map(|v| v == "true");
    let group = one("failureGroup")
        .or_else(|| one("failureCategory").and_then(|c| failure_group(&c).map(str::to_string)));
    // Graphs mapped with Karenina's identities (`karenina:answeringModel`)
    // write `templateVerificationPerformed` wherever the file holds it:
    // absent there is not performed, as in Karenina's summary.
    let mapped_now = f.contains_key("answeringModel");
    let performed = match one("templateVerificationPerformed") {
        Some(p) => Some(p == "true"),
        None if mapped_now => Some(false),
        // Before `karenina:templateVerificationPerformed`: a verdict given,
        // and no failure that stops before verification.
        None if csv && verify != Some(true) => None,
        None => Some(
            verify.is_some() && !matches!(group.as_deref(), Some("abstained" | "retry" | "system")),
        ),
    };
    // Karenina's classification (`karenina:outcome`, docs/results.md); for
    // graphs mapped before it, the same from the failure and the verdict. A
    // failure with no category (a CSV keeps none) is unclassified.
    let outcome = one("outcome").unwrap_or_else(|| match (&group, one("failureReason")) {
        (Some(g), _) => g.clone(),
        (None, Some(_)) => "unclassified".into(),
        (None, None) if performed == Some(true) && verify == Some(true) => "passed".into(),
        (None, None) => "no_verdict".into(),
    });
    Some(ResultRow {
        run: run.graph.clone(),
        checkpoint: run.checkpoint.clone(),
        question,
        answering,
        parsing,
        mcp,
        replicate: one("replicate").and_then(|r| r.parse().ok()),
        timestamp: s("timestamp"),
        verify,
        performed,
        outcome,
    })
}

/// The question texts of the checkpoint `graph`, by (graph, question ID),
/// for the matrix's row heads.
pub fn question_texts(
    store: &Store,
    graph: &str,
    opts: &QueryOptions,
) -> Result<BTreeMap<(String, String), String>> {
    let iri = oxigraph::model::NamedNode::new(graph)
        .map_err(|e| Error::Usage(format!("not a graph IRI: {graph}: {e}")))?;
    let text = format!(
        r#"PREFIX karenina: <urn:karenina:vocab:>
PREFIX schema: <https://schema.org/>
SELECT ?qid (SAMPLE(?t) AS ?text) WHERE {{
  GRAPH {iri} {{ ?item a schema:DataFeedItem ; karenina:id ?qid ; schema:item/schema:text ?t }}
}} GROUP BY ?qid"#
    );
    Ok(select(store, &text, opts)?
        .into_iter()
        .filter_map(|b| {
            Some((
                (graph.to_string(), self::text(b.get("qid")?)),
                self::text(b.get("text")?),
            ))
        })
        .collect())
}
