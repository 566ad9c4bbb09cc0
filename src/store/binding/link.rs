//! Binding a results graph to the checkpoint it ran. The export names no
//! benchmark and a question ID can be in several checkpoints, so a results
//! graph is bound to the checkpoint the user names (`--for`), else to the one
//! loaded checkpoint that holds every question ID of the run (for scenario
//! turn rows, whose question ID is a hash of the node text: every scenario
//! name and node id; a CSV export keeps only that question ID, which a
//! checkpoint holds when one of its scenario nodes' question text gives it,
//! as Karenina's `generate_question_id` does); no match (an orphan run) and several matches are
//! reported. A checkpoint named with `--for` is checked the same way: it must
//! hold every key of the run (`coverage`), else the run is not bound. The store keeps the binding as `<results graph>
//! karenina:forBenchmark <checkpoint graph>` in the default graph.

use crate::error::{Error, Result};
use oxigraph::model::Term;
use oxigraph::sparql::{QueryResults, SparqlEvaluator};
use oxigraph::store::Store;

/// How a results graph was bound (or, for `Duplicate` and `Overlap`, what
/// reconciling it with the other loaded exports found).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Link {
    /// Bound to this checkpoint graph.
    Bound(String),
    /// No loaded checkpoint holds all of the run's question IDs.
    Orphan {
        /// Distinct question IDs in the run.
        questions: usize,
    },
    /// Several checkpoints hold them all; `--for` must choose.
    Ambiguous(Vec<String>),
    /// A run of Karenina's database that no loaded checkpoint is: none named
    /// as its benchmark holds its questions, and the checkpoint at its
    /// benchmark's `checkpoint_path` is not loaded (or lacks them). Not bound
    /// by question IDs alone: the database says which benchmark it ran.
    NotItsBenchmark {
        /// The database's benchmark name (none: the run has no benchmark).
        benchmark: Option<String>,
    },
    /// The checkpoint named with `--for` lacks some of the run's question IDs
    /// (or scenario nodes): not bound, so no benchmark is credited with
    /// results of questions it does not hold.
    Refused(Coverage),
    /// Not kept: another loaded export holds the same results (the JSON and
    /// the CSV of one run, a copy), or all of them.
    Duplicate {
        /// The source of the export kept.
        of: String,
        /// Results of the export skipped.
        results: usize,
        /// The export kept holds more results than this one.
        contained: bool,
    },
    /// Not kept: the database's copy of a benchmark whose checkpoint file is
    /// loaded (same `schema:name`, or the file at its `checkpoint_path`).
    Shadowed {
        /// The checkpoint graph kept.
        by: String,
    },
    /// Kept, but some of its results are also in another loaded export.
    Overlap {
        /// The source of the other export.
        with: String,
        /// Results both hold.
        shared: usize,
        /// Results of this export.
        results: usize,
        /// Results of the other.
        other: usize,
    },
}

impl Link {
    /// Why a run is not bound (`None` when it is), for messages and for the
    /// store's `karenina:bindingNote`.
    pub fn reason(&self) -> Option<String> {
        Some(match self {
            Link::Bound(_)
            | Link::Duplicate { .. }
            | Link::Overlap { .. }
            | Link::Shadowed { .. } => return None,
            Link::Orphan { questions: 0 } => "it holds no results with a question ID".to_string(),
            Link::Orphan { questions } => {
                format!("no loaded checkpoint holds all {questions} of its question IDs")
            }
            Link::Ambiguous(c) => format!(
                "{} loaded checkpoints hold all its question IDs ({}): name the one it ran",
                c.len(),
                c.join(", ")
            ),
            Link::NotItsBenchmark { benchmark: Some(b) } => format!(
                "no loaded checkpoint is its benchmark {b:?} (named so and holding its questions, or at its checkpoint_path)"
            ),
            Link::NotItsBenchmark { benchmark: None } => {
                "its database row names no benchmark".to_string()
            }
            Link::Refused(c) => format!(
                "{} does not hold {} of its {} question IDs (e.g. {})",
                c.checkpoint,
                c.missing,
                c.total,
                c.examples.join(", ")
            ),
        })
    }
}

/// How much of a run one checkpoint holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coverage {
    /// The checkpoint graph.
    pub checkpoint: String,
    /// Distinct keys of the run (question IDs; scenario name and node).
    pub total: usize,
    /// How many of them the checkpoint does not hold.
    pub missing: usize,
    /// A few of the missing ones (question IDs, `scenario / node`), sorted.
    pub examples: Vec<String>,
}

/// How many missing keys [`coverage`] names.
pub(super) const EXAMPLES: usize = 3;

/// Which of the run's keys (question IDs of plain rows; scenario name and
/// node of scenario turn rows) the checkpoint graph `checkpoint` does not
/// hold: what `--for` must check before binding.
pub(crate) fn coverage(store: &Store, results: &str, checkpoint: &str) -> Result<Coverage> {
    let total = count_rows(
        store,
        &format!(
            "{PREFIXES} SELECT (COUNT(DISTINCT ?key) AS ?n) WHERE {{ GRAPH <{results}> {{ {KEYS} }} }}"
        ),
    )?
    .first()
    .map_or(0, |r| r.1);
    let q = format!(
        "{PREFIXES} SELECT DISTINCT ?key WHERE {{
           {{ GRAPH <{results}> {{ ?r karenina:questionId ?key
                OPTIONAL {{ ?r karenina:scenarioId ?sid }} FILTER(!BOUND(?sid)) }}
              FILTER NOT EXISTS {{ GRAPH <{checkpoint}> {{ ?item a schema:DataFeedItem ; karenina:id ?key }} }}
              FILTER NOT EXISTS {{ GRAPH <{checkpoint}> {{ {TURN_TEXT} }} FILTER({TURN_ID} = ?key) }} }}
           UNION
           {{ GRAPH <{results}> {{ ?r karenina:scenarioId ?sid ; karenina:scenarioNode ?nid }}
              FILTER NOT EXISTS {{ GRAPH <{checkpoint}> {{ ?s a karenina:Scenario ; schema:name ?sid ;
                                   karenina:node/schema:nodeId ?nid }} }}
              BIND(CONCAT(?sid, \" / \", ?nid) AS ?key) }}
         }} ORDER BY ?key"
    );
    let results_ = SparqlEvaluator::new()
        .parse_query(&q)
        .map_err(Error::sparql)?
        .on_store(store)
        .execute()
        .map_err(Error::sparql)?;
    let QueryResults::Solutions(sols) = results_ else {
        return Err(Error::Internal("coverage: not a SELECT answer".into()));
    };
    let mut missing = 0;
    let mut examples = Vec::new();
    for s in sols {
        let s = s.map_err(Error::sparql)?;
        missing += 1;
        if examples.len() < EXAMPLES {
            if let Some(Term::Literal(l)) = s.get("key") {
                examples.push(l.value().to_string());
            }
        }
    }
    Ok(Coverage {
        checkpoint: checkpoint.to_string(),
        total,
        missing,
        examples,
    })
}

fn count_rows(store: &Store, q: &str) -> Result<Vec<(String, usize)>> {
    let results = SparqlEvaluator::new()
        .parse_query(q)
        .map_err(Error::sparql)?
        .on_store(store)
        .execute()
        .map_err(Error::sparql)?;
    let QueryResults::Solutions(sols) = results else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for s in sols {
        out.push(checkpoint_count(&s.map_err(Error::sparql)?));
    }
    Ok(out)
}

/// One `(?c, ?n)` row of the matching queries: a checkpoint graph (empty for
/// the total) and a count.
pub fn checkpoint_count(s: &oxigraph::sparql::QuerySolution) -> (String, usize) {
    let c = match s.get("c") {
        Some(Term::NamedNode(n)) => n.as_str().to_string(),
        _ => String::new(),
    };
    let n = match s.get("n") {
        Some(Term::Literal(l)) => l.value().parse().unwrap_or(0),
        _ => 0,
    };
    (c, n)
}

const PREFIXES: &str =
    "PREFIX karenina: <urn:karenina:vocab:> PREFIX schema: <https://schema.org/> \
     PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>";

/// A scenario node's question text (`?text`, a plain string) in a
/// checkpoint graph: what a scenario turn's question ID is computed from.
const TURN_TEXT: &str = "?ts a karenina:Scenario ; karenina:node ?tn . \
     ?tn schema:question ?tq . ?tq schema:text ?text FILTER(DATATYPE(?text) = xsd:string)";

/// Karenina's `generate_question_id(?text)` ([`crate::model::qid::question_id`]):
/// the question ID a CSV export gives a scenario turn, which drops the
/// scenario's name and node.
const TURN_ID: &str = "CONCAT(\"urn:uuid:question-\", \
     SUBSTR(REPLACE(REPLACE(LCASE(?text), \" \", \"-\"), \"[?.,]\", \"\"), 1, 50), \
     \"-\", SUBSTR(MD5(?text), 1, 8))";

/// What a run must find in a checkpoint, one `?key` each: the question ID of
/// a plain row, `scenario@@name@@node` for a scenario turn row.
const KEYS: &str = "?r karenina:questionId ?qid
    OPTIONAL { ?r karenina:scenarioId ?sid ; karenina:scenarioNode ?nid }
    BIND(IF(BOUND(?sid), CONCAT(\"scenario@@\", ?sid, \"@@\", ?nid), ?qid) AS ?key)";

/// The one loaded checkpoint holding every key (question ID, or scenario
/// name and node) of the run in results graph `results`; the store records
/// the outcome ([`crate::store::CheckpointStore::bind`]).
pub fn find(store: &Store, results: &str) -> Result<Link> {
    find_with(results, None, &mut |q| count_rows(store, q))
}

/// Answers a SPARQL query with `(?c, ?n)` rows.
pub type Runner<'a> = dyn FnMut(&str) -> Result<Vec<(String, usize)>> + 'a;

/// [`find`] through any SPARQL runner (`run` answers a query with `?c ?n`
/// rows), among the `candidates` checkpoint graphs if given, else among the
/// graphs typed `karenina:CheckpointGraph`: how `kld push` binds on a server.
pub fn find_with(results: &str, candidates: Option<&[String]>, run: &mut Runner) -> Result<Link> {
    let total = run(&format!(
        "{PREFIXES} SELECT (COUNT(DISTINCT ?key) AS ?n) WHERE {{ GRAPH <{results}> {{ {KEYS} }} }}"
    ))?
    .first()
    .map_or(0, |r| r.1);
    let checkpoints = match candidates {
        Some([]) => return Ok(Link::Orphan { questions: total }),
        Some(c) => format!(
            "VALUES ?c {{ {} }}",
            c.iter()
                .map(|g| format!("<{g}>"))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        None => format!("?c a karenina:{} .", crate::vocab::k::CHECKPOINT_GRAPH),
    };
    // Per checkpoint, the run's keys it holds: question IDs of items, and
    // (scenario name, node id) pairs of scenario nodes.
    let rows = run(&format!(
        "{PREFIXES} SELECT ?c (COUNT(DISTINCT ?key) AS ?n) WHERE {{
           {{ GRAPH <{results}> {{ ?r karenina:questionId ?qid
                OPTIONAL {{ ?r karenina:scenarioId ?sid }} FILTER(!BOUND(?sid)) }}
              {{ {checkpoints}
                 GRAPH ?c {{ ?item a schema:DataFeedItem ; karenina:id ?qid }} }}
              UNION
              {{ SELECT DISTINCT ?c ?qid WHERE {{ {checkpoints}
                   GRAPH ?c {{ {TURN_TEXT} }} BIND({TURN_ID} AS ?qid) }} }}
              BIND(?qid AS ?key) }}
           UNION
           {{ GRAPH <{results}> {{ ?r karenina:scenarioId ?sid ; karenina:scenarioNode ?nid }}
              {checkpoints}
              GRAPH ?c {{ ?s a karenina:Scenario ; schema:name ?sid ; karenina:node ?node .
                         ?node schema:nodeId ?nid }}
              BIND(CONCAT(\"scenario@@\", ?sid, \"@@\", ?nid) AS ?key) }}
         }} GROUP BY ?c"
    ))?;
    let mut full: Vec<String> = rows
        .into_iter()
        .filter(|(_, n)| *n == total && total > 0)
        .map(|(c, _)| c)
        .collect();
    full.sort();
    Ok(match full.len() {
        0 => Link::Orphan { questions: total },
        1 => Link::Bound(full.remove(0)),
        _ => Link::Ambiguous(full),
    })
}
