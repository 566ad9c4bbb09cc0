//! The SPARQL query catalogue (`queries/*.rq`, embedded) and query execution.
//!
//! Read-only: UPDATE is refused. A timeout cancels a runaway query. Results are
//! written in the standard SPARQL result formats (JSON, XML, CSV, TSV) by
//! Oxigraph's serializers, or as an aligned text table for people.

use crate::error::{Error, Result};
use oxigraph::io::{RdfFormat, RdfSerializer};
use oxigraph::model::Term;
use oxigraph::sparql::results::{QueryResultsFormat, QueryResultsSerializer};
use oxigraph::sparql::{CancellationToken, QueryResults, SparqlEvaluator};
use oxigraph::store::Store;
use std::io::Write;
use std::time::Duration;

/// One query of the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct NamedQuery {
    /// Name (the file stem).
    pub name: &'static str,
    /// The SPARQL text, opening with its description comment.
    pub text: &'static str,
}

macro_rules! catalogue {
    ($($name:literal),* $(,)?) => {
        &[$(NamedQuery { name: $name, text: include_str!(concat!("../queries/", $name, ".rq")) }),*]
    };
}

/// The embedded catalogue, by name.
pub const CATALOGUE: &[NamedQuery] = catalogue![
    "benchmark-stats",
    "duplicate-ids",
    "graphs",
    "hardest-questions",
    "keywords",
    "pass-rate-by-benchmark",
    "pass-rate-by-keyword",
    "questions",
    "questions-without-template",
    "regex-traits",
    "results-by-model",
    "results-without-question",
    "run-diff",
    "scenarios",
    "scores-by-trait",
    "shared-questions",
    "templates",
    "trait-scores",
    "traits",
    "unfinished",
];

impl NamedQuery {
    /// What the query answers (the opening comment, without `Returns:`).
    pub fn description(&self) -> String {
        self.comment_lines()
            .filter(|l| !l.starts_with("Returns:"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The variables it returns (the `Returns:` comment line).
    pub fn returns(&self) -> &'static str {
        self.comment_lines()
            .find_map(|l| l.strip_prefix("Returns:"))
            .map(str::trim)
            .unwrap_or("")
    }

    fn comment_lines(&self) -> impl Iterator<Item = &'static str> {
        self.text
            .lines()
            .take_while(|l| l.starts_with('#'))
            .map(|l| l.trim_start_matches('#').trim())
    }
}

/// Finds a catalogue query by name.
pub fn find(name: &str) -> Option<&'static NamedQuery> {
    CATALOGUE.iter().find(|q| q.name == name)
}

/// How to write results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultFormat {
    /// Aligned text table (solutions), or N-Triples lines (graphs).
    Table,
    /// SPARQL 1.1 Query Results CSV.
    Csv,
    /// SPARQL 1.1 Query Results TSV.
    Tsv,
    /// SPARQL 1.1 Query Results JSON.
    Json,
    /// SPARQL Query Results XML.
    Xml,
    /// An RDF serialization, for CONSTRUCT and DESCRIBE.
    Rdf(crate::export::ExportFormat),
}

/// The form of a query, which decides the result formats that fit it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryForm {
    /// `SELECT`: solutions.
    Select,
    /// `ASK`: a boolean.
    Ask,
    /// `CONSTRUCT`: a graph.
    Construct,
    /// `DESCRIBE`: a graph.
    Describe,
}

impl QueryForm {
    /// True for CONSTRUCT and DESCRIBE, whose answer is RDF.
    pub fn is_graph(self) -> bool {
        matches!(self, Self::Construct | Self::Describe)
    }
}

/// A parsed query: parse once, tell its form, run it.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// Its form.
    pub form: QueryForm,
    query: spargebra::Query,
}

/// Parses `sparql`; an UPDATE or a syntax error is an [`Error::Sparql`] with
/// the parser's message and position.
pub fn parse(sparql: &str) -> Result<Parsed> {
    let query = spargebra::SparqlParser::new()
        .parse_query(sparql)
        .map_err(|e| syntax_error(sparql, e))?;
    let form = match &query {
        spargebra::Query::Select { .. } => QueryForm::Select,
        spargebra::Query::Ask { .. } => QueryForm::Ask,
        spargebra::Query::Construct { .. } => QueryForm::Construct,
        spargebra::Query::Describe { .. } => QueryForm::Describe,
    };
    Ok(Parsed { form, query })
}

/// Parses `sparql` and tells its form (see [`parse`]).
pub fn form(sparql: &str) -> Result<QueryForm> {
    parse(sparql).map(|p| p.form)
}

fn syntax_error(sparql: &str, e: impl std::fmt::Display) -> Error {
    if SparqlEvaluator::new().parse_update(sparql).is_ok() {
        Error::Sparql(
            "this is a SPARQL UPDATE; kld only runs read-only queries (SELECT, ASK, CONSTRUCT, DESCRIBE)"
                .into(),
        )
    } else {
        Error::Sparql(e.to_string())
    }
}

/// The result formats that fit solutions (SELECT, ASK).
pub const SOLUTION_FORMATS: &str = "table, csv, tsv, json or xml";
/// The result formats that fit graphs (CONSTRUCT, DESCRIBE).
pub const GRAPH_FORMATS: &str = "ttl, nt, nq, trig, rdfxml or jsonld (or table)";

/// Default time limit for a query.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The dataset a query sees and how long it may run.
///
/// By default the default graph is the union of every graph in the store (the
/// provenance and each checkpoint's graph), so `DESCRIBE <iri>` and patterns
/// without `GRAPH` see all benchmarks, while `GRAPH ?g { … }` still matches one
/// checkpoint at a time. A query's own `FROM` / `FROM NAMED` clauses win; the
/// SPARQL Protocol's `default-graph-uri` / `named-graph-uri` go in
/// `default_graphs` / `named_graphs`.
#[derive(Clone, Debug)]
pub struct QueryOptions {
    /// Stop the query after this long.
    pub timeout: Duration,
    /// Graph IRIs whose union is the default graph (empty: all graphs).
    pub default_graphs: Vec<String>,
    /// Graph IRIs available to `GRAPH` (empty: all named graphs).
    pub named_graphs: Vec<String>,
}

impl Default for QueryOptions {
    fn default() -> Self {
        QueryOptions {
            timeout: DEFAULT_TIMEOUT,
            default_graphs: Vec::new(),
            named_graphs: Vec::new(),
        }
    }
}

/// Runs a read-only query and writes its results; returns the number of rows
/// (solutions or triples; 1 for ASK).
pub fn run(
    store: &Store,
    sparql: &str,
    timeout: Duration,
    format: ResultFormat,
    out: &mut dyn Write,
) -> Result<usize> {
    let opts = QueryOptions {
        timeout,
        ..QueryOptions::default()
    };
    run_with(store, sparql, &opts, format, out)
}

/// [`run`] with a dataset of its own (see [`QueryOptions`]).
pub fn run_with(
    store: &Store,
    sparql: &str,
    opts: &QueryOptions,
    format: ResultFormat,
    out: &mut dyn Write,
) -> Result<usize> {
    run_parsed(store, &parse(sparql)?, opts, format, out)
}

fn graph_iri(iri: &str) -> Result<oxigraph::model::NamedNode> {
    oxigraph::model::NamedNode::new(iri)
        .map_err(|e| Error::Usage(format!("graph {iri:?} is not an IRI: {e}")))
}

/// Runs an already parsed query (see [`run_with`]).
pub fn run_parsed(
    store: &Store,
    parsed: &Parsed,
    opts: &QueryOptions,
    format: ResultFormat,
    out: &mut dyn Write,
) -> Result<usize> {
    let timeout = opts.timeout;
    let token = CancellationToken::new();
    let mut prepared = SparqlEvaluator::new()
        .with_cancellation_token(token.clone())
        .for_query(parsed.query.clone());
    let dataset = prepared.dataset_mut();
    if !opts.named_graphs.is_empty() {
        let named = opts
            .named_graphs
            .iter()
            .map(|g| graph_iri(g).map(Into::into))
            .collect::<Result<Vec<_>>>()?;
        dataset.set_available_named_graphs(named);
    }
    if !opts.default_graphs.is_empty() {
        let default = opts
            .default_graphs
            .iter()
            .map(|g| graph_iri(g).map(Into::into))
            .collect::<Result<Vec<_>>>()?;
        dataset.set_default_graph(default);
    } else if dataset.default_graph_graphs()
        == Some(&[oxigraph::model::GraphName::DefaultGraph][..])
    {
        // No FROM clause and none asked for: the union of all graphs.
        dataset.set_default_graph_as_union();
    }
    // One shared thread cancels queries whose time is up; the guard takes this
    // query off its list when we finish (no thread per query).
    let guard = deadline::watch(token.clone(), std::time::Instant::now() + timeout);
    let result = write_results(prepared.on_store(store).execute(), format, out);
    drop(guard);
    result.map_err(|e| match e {
        Error::Sparql(m) if m.contains("cancel") => Error::Sparql(format!(
            "query stopped after the {} s time limit (raise it with --timeout)",
            timeout.as_secs_f64()
        )),
        e => e,
    })
}

/// Query time limits, enforced by one shared thread rather than a watchdog
/// thread per query (which cost a thread spawn and join on every request of
/// `kld serve`).
mod deadline {
    use oxigraph::sparql::CancellationToken;
    use std::collections::BTreeMap;
    use std::sync::{Condvar, Mutex, OnceLock};
    use std::time::Instant;

    type Key = (Instant, u64);

    struct Shared {
        /// (next id, deadline → token), earliest first.
        state: Mutex<(u64, BTreeMap<Key, CancellationToken>)>,
        wake: Condvar,
    }

    static SHARED: OnceLock<Shared> = OnceLock::new();

    fn shared() -> &'static Shared {
        let mut first = false;
        let s = SHARED.get_or_init(|| {
            first = true;
            Shared {
                state: Mutex::new((0, BTreeMap::new())),
                wake: Condvar::new(),
            }
        });
        if first {
            let _ = std::thread::Builder::new()
                .name("kld-query-deadlines".into())
                .spawn(|| run(SHARED.get().expect("initialized")));
        }
        s
    }

    fn run(s: &Shared) {
        let mut st = s.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let now = Instant::now();
            let next = st.1.keys().next().copied();
            st = match next {
                None => s.wake.wait(st).unwrap_or_else(|e| e.into_inner()),
                Some(k) if k.0 <= now => {
                    if let Some(token) = st.1.remove(&k) {
                        token.cancel();
                    }
                    st
                }
                Some(k) => {
                    s.wake
                        .wait_timeout(st, k.0 - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            };
        }
    }

    /// Takes the query off the list when dropped.
    pub struct Guard(Key);

    impl Drop for Guard {
        fn drop(&mut self) {
            let s = shared();
            s.state
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .1
                .remove(&self.0);
        }
    }

    /// Cancels `token` at `at` unless the guard is dropped first.
    pub fn watch(token: CancellationToken, at: Instant) -> Guard {
        let s = shared();
        let mut st = s.state.lock().unwrap_or_else(|e| e.into_inner());
        st.0 += 1;
        let key = (at, st.0);
        st.1.insert(key, token);
        s.wake.notify_one();
        Guard(key)
    }
}

fn sparql_err(e: impl std::fmt::Display) -> Error {
    Error::Sparql(e.to_string())
}

fn io_err(e: std::io::Error) -> Error {
    Error::Sparql(format!("writing results: {e}"))
}

/// Writes results obtained elsewhere (a remote server's, parsed) exactly as a
/// local query's; returns the number of rows.
pub fn write_results_of(
    results: QueryResults<'_>,
    format: ResultFormat,
    out: &mut dyn Write,
) -> Result<usize> {
    write_results(Ok(results), format, out)
}

fn write_results(
    results: std::result::Result<QueryResults<'_>, oxigraph::sparql::QueryEvaluationError>,
    format: ResultFormat,
    out: &mut dyn Write,
) -> Result<usize> {
    let results = results.map_err(sparql_err)?;
    let std_format = match format {
        ResultFormat::Table => None,
        ResultFormat::Csv => Some(QueryResultsFormat::Csv),
        ResultFormat::Tsv => Some(QueryResultsFormat::Tsv),
        ResultFormat::Json => Some(QueryResultsFormat::Json),
        ResultFormat::Xml => Some(QueryResultsFormat::Xml),
        ResultFormat::Rdf(_) => {
            if !matches!(results, QueryResults::Graph(_)) {
                return Err(Error::Usage(format!(
                    "SELECT and ASK answer in {SOLUTION_FORMATS}, not an RDF format"
                )));
            }
            None
        }
    };
    match results {
        QueryResults::Boolean(b) => {
            match std_format {
                Some(f) => {
                    QueryResultsSerializer::from_format(f)
                        .serialize_boolean_to_writer(&mut *out, b)
                        .map_err(io_err)?;
                }
                None => writeln!(out, "{b}").map_err(io_err)?,
            }
            Ok(1)
        }
        QueryResults::Solutions(solutions) => {
            let vars = solutions.variables().to_vec();
            match std_format {
                Some(f) => {
                    let mut ser = QueryResultsSerializer::from_format(f)
                        .serialize_solutions_to_writer(&mut *out, vars)
                        .map_err(io_err)?;
                    let mut n = 0;
                    for s in solutions {
                        let s = s.map_err(sparql_err)?;
                        ser.serialize(s.iter()).map_err(io_err)?;
                        n += 1;
                    }
                    ser.finish().map_err(io_err)?;
                    Ok(n)
                }
                None => {
                    let mut rows: Vec<Vec<String>> = Vec::new();
                    for s in solutions {
                        let s = s.map_err(sparql_err)?;
                        rows.push(
                            vars.iter()
                                .map(|v| s.get(v).map(cell).unwrap_or_default())
                                .collect(),
                        );
                    }
                    let header: Vec<String> = vars.iter().map(|v| v.as_str().to_string()).collect();
                    write_table(out, &header, &rows).map_err(io_err)?;
                    Ok(rows.len())
                }
            }
        }
        QueryResults::Graph(triples) => {
            if let ResultFormat::Rdf(f) = format {
                let quads = triples
                    .map(|t| t.map(|t| t.in_graph(oxigraph::model::GraphName::DefaultGraph)))
                    .collect::<std::result::Result<Vec<_>, _>>()
                    .map_err(sparql_err)?;
                crate::export::write(&quads, f, false, out)?;
                return Ok(quads.len());
            }
            if format != ResultFormat::Table {
                return Err(Error::Usage(format!(
                    "CONSTRUCT and DESCRIBE answer in {GRAPH_FORMATS}, not a SPARQL results format"
                )));
            }
            // The table of a graph: N-Triples lines.
            let mut ser = RdfSerializer::from_format(RdfFormat::NTriples).for_writer(&mut *out);
            let mut n = 0;
            for t in triples {
                ser.serialize_triple(&t.map_err(sparql_err)?)
                    .map_err(io_err)?;
                n += 1;
            }
            ser.finish().map_err(io_err)?;
            Ok(n)
        }
    }
}

/// A term for the table: literal values bare, IRIs in `<>`, blank nodes `_:`;
/// control characters shown visibly, long values cut.
fn cell(t: &Term) -> String {
    let s = match t {
        Term::Literal(l) => l.value().to_string(),
        Term::NamedNode(n) => format!("<{}>", n.as_str()),
        other => other.to_string(),
    };
    let s: String = s
        .chars()
        .map(|c| match c {
            '\n' => '⏎',
            '\t' => '⇥',
            c if c.is_control() => '�',
            c => c,
        })
        .collect();
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(79).collect::<String>())
    } else {
        s
    }
}

fn write_table(
    out: &mut dyn Write,
    header: &[String],
    rows: &[Vec<String>],
) -> std::io::Result<()> {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |out: &mut dyn Write, cells: &[String]| -> std::io::Result<()> {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c}{}", " ".repeat(widths[i] - c.chars().count())))
            .collect();
        writeln!(out, "{}", padded.join("  ").trim_end())
    };
    line(out, header)?;
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    line(out, &rule)?;
    for r in rows {
        line(out, r)?;
    }
    writeln!(
        out,
        "({} row{})",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalogue_query_parses_and_documents_itself() {
        assert!(CATALOGUE.len() >= 10);
        for q in CATALOGUE {
            let _prepared = SparqlEvaluator::new()
                .parse_query(q.text)
                .unwrap_or_else(|e| panic!("{}: {e}", q.name));
            assert!(!q.description().is_empty(), "{} has no description", q.name);
            assert!(
                q.returns().starts_with('?'),
                "{} has no Returns: line",
                q.name
            );
            // Every returned variable is projected by the query.
            for v in q.returns().split_whitespace() {
                assert!(q.text.contains(v), "{}: {v}", q.name);
            }
        }
        let mut names: Vec<_> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/queries"))
            .unwrap()
            .flatten()
            .map(|e| {
                e.file_name()
                    .to_string_lossy()
                    .trim_end_matches(".rq")
                    .to_string()
            })
            .collect();
        names.sort();
        let embedded: Vec<_> = CATALOGUE.iter().map(|q| q.name.to_string()).collect();
        assert_eq!(names, embedded, "every queries/*.rq is embedded");
    }

    #[test]
    fn update_is_refused_and_timeouts_stop_queries() {
        let store = Store::new().unwrap();
        let mut out = Vec::new();
        let e = run(
            &store,
            "INSERT DATA { <urn:a> <urn:b> <urn:c> }",
            DEFAULT_TIMEOUT,
            ResultFormat::Tsv,
            &mut out,
        )
        .unwrap_err();
        assert!(e.to_string().contains("read-only"), "{e}");
        assert_eq!(store.len().unwrap(), 0);
        // A cross product that would take far longer than the limit.
        for i in 0..300 {
            store
                .insert(oxigraph::model::QuadRef::new(
                    oxigraph::model::NamedNodeRef::new_unchecked("urn:s"),
                    oxigraph::model::NamedNodeRef::new_unchecked("urn:p"),
                    &oxigraph::model::Literal::from(i),
                    oxigraph::model::GraphNameRef::DefaultGraph,
                ))
                .unwrap();
        }
        let slow = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?x . ?b ?p ?y . ?c ?p ?z . ?d ?p ?w }";
        let t = std::time::Instant::now();
        let e = run(
            &store,
            slow,
            Duration::from_millis(300),
            ResultFormat::Tsv,
            &mut out,
        )
        .unwrap_err();
        assert!(e.to_string().contains("time limit"), "{e}");
        assert!(t.elapsed() < Duration::from_secs(30));
    }
}
