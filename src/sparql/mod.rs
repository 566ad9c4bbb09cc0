//! SPARQL: the catalogue of ready queries, parsing within bounds, and running
//! a query on an Oxigraph store with a time limit, a byte limit and
//! cancellation, its answer streamed in a standard format.
//!
//! Read-only: UPDATE is refused. Why the bounds: one small hostile query used
//! to overflow a thread's stack (deep nesting) or run for hours past its
//! time limit (a cartesian `COUNT(*)`), taking `kld serve` down with it;
//! [`limits`] and `control` are the answer, shared by `kld query`, the
//! endpoint and everything that embeds the library.

mod answer;
mod catalogue;
pub(crate) mod control;
mod hints;
pub mod limits;
mod params;
mod syntax;
mod traps;
mod write;

pub use answer::{answer, Answer};
pub use catalogue::{find, suggest, NamedQuery, CATALOGUE};
pub use control::Control;
pub use params::typed_value_hint;
pub use syntax::{with_prefixes, PREDEFINED};
pub use write::{write_results_of, write_solutions};

use crate::error::{Error, Result};
use oxigraph::sparql::{QueryResults, SparqlEvaluator};
use oxigraph::store::Store;
use std::io::Write;
use std::time::{Duration, Instant};

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

    /// Whether `format` can carry this form's answer: the SPARQL results
    /// formats for SELECT and ASK, the RDF formats for CONSTRUCT and
    /// DESCRIBE, the table for all. The one place this is decided: the CLI,
    /// the writers, the remote client and the endpoint's negotiation ask it.
    pub fn fits(self, format: ResultFormat) -> bool {
        match format {
            ResultFormat::Table => true,
            ResultFormat::Rdf(_) => self.is_graph(),
            ResultFormat::Csv | ResultFormat::Tsv | ResultFormat::Json | ResultFormat::Xml => {
                !self.is_graph()
            }
        }
    }

    /// The formats that fit this form, as a phrase for messages.
    pub fn formats(self) -> &'static str {
        if self.is_graph() {
            GRAPH_FORMATS
        } else {
            SOLUTION_FORMATS
        }
    }

    /// `Ok` when `format` [fits](Self::fits), else [`Error::WrongFormat`].
    pub fn check(self, format: ResultFormat) -> Result<()> {
        if self.fits(format) {
            Ok(())
        } else {
            Err(Error::WrongFormat {
                form: self.keyword(),
                formats: self.formats(),
            })
        }
    }

    /// The keyword, as written in a query.
    pub(crate) fn keyword(self) -> &'static str {
        match self {
            Self::Select => "SELECT",
            Self::Ask => "ASK",
            Self::Construct => "CONSTRUCT",
            Self::Describe => "DESCRIBE",
        }
    }
}

/// A parsed query: parse once, tell its form, run it.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// Its form.
    pub form: QueryForm,
    /// Its size (see [`limits`]).
    pub shape: limits::Shape,
    /// The endpoint of its `SERVICE` clause without `SILENT`, if any.
    service: Option<String>,
    query: spargebra::Query,
}

impl Parsed {
    /// The query as parsed, written back as SPARQL (comments gone, prefixed
    /// names expanded): what the answer cache reads to tell whether the
    /// base IRI matters. Written on a stack sized for its depth (as it was
    /// parsed); `None` if writing it failed.
    pub fn algebra(&self) -> Option<String> {
        limits::with_stack(limits::stack_for(self.shape.depth), || {
            Ok(self.query.to_string())
        })
        .ok()
    }
}

/// Parses `sparql` (the [`PREDEFINED`] prefixes declared); an UPDATE is
/// [`Error::UpdateRefused`], a query past the nesting bound
/// [`Error::TooComplex`], a syntax error an [`Error::SparqlSyntax`] with its
/// position, the line and a hint.
pub fn parse(sparql: &str) -> Result<Parsed> {
    parse_with_base(sparql, None)
}

/// [`parse`] with a base IRI against which relative IRIs resolve (an
/// endpoint's own URL, as the SPARQL Protocol has it).
pub fn parse_with_base(sparql: &str, base: Option<&str>) -> Result<Parsed> {
    let brackets = limits::check_text(sparql)?;
    // The parser recurses once per bracket, and its scope checks once per
    // level of the tree, which a long flat chain makes deep: the stack is
    // sized by both (a long text gets a fresh segment). Measuring is
    // iterative; a refused tree is dropped on a stack sized for its depth.
    let need = limits::stack_for(brackets).saturating_add(sparql.len().saturating_mul(256));
    limits::with_stack(need, || {
        let mut parser = spargebra::SparqlParser::new();
        for (p, iri) in PREDEFINED {
            parser = parser
                .with_prefix(*p, *iri)
                .map_err(|e| Error::Usage(format!("prefix {p}: {e}")))?;
        }
        if let Some(b) = base {
            parser = parser
                .with_base_iri(b)
                .map_err(|e| Error::Usage(format!("base IRI {b:?}: {e}")))?;
        }
        let query = parser
            .parse_query(sparql)
            .map_err(|e| syntax_error(sparql, e))?;
        let (shape, service) = limits::shape_and_service(&query);
        if shape.depth > limits::MAX_DEPTH {
            limits::with_stack(limits::stack_for(shape.depth / 64), move || {
                drop(query);
                Ok(())
            })?;
            return Err(limits::too_deep());
        }
        let form = match &query {
            spargebra::Query::Select { .. } => QueryForm::Select,
            spargebra::Query::Ask { .. } => QueryForm::Ask,
            spargebra::Query::Construct { .. } => QueryForm::Construct,
            spargebra::Query::Describe { .. } => QueryForm::Describe,
        };
        Ok(Parsed {
            form,
            shape,
            service,
            query,
        })
    })
}

/// Parses `sparql` and tells its form (see [`parse`]).
pub fn form(sparql: &str) -> Result<QueryForm> {
    parse(sparql).map(|p| p.form)
}

fn syntax_error(sparql: &str, e: impl std::fmt::Display) -> Error {
    if sparql.trim().is_empty() {
        Error::EmptyQuery
    } else if SparqlEvaluator::new().parse_update(sparql).is_ok() {
        Error::UpdateRefused
    } else {
        syntax::syntax_error(sparql, &e.to_string())
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
    /// Stop an answer past this many bytes ([`Error::ResultTooLarge`]).
    pub max_result_bytes: Option<u64>,
    /// Cancels the query from outside (a reader gone, a server stopping);
    /// its deadline and byte limit act on it too.
    pub control: Control,
    /// The width a [`ResultFormat::Table`] fits in (a terminal's columns);
    /// `None` cuts values at 80 characters.
    pub table_width: Option<usize>,
    /// Memory the query, and all running queries together, may hold
    /// ([`Error::MemoryLimit`] past it; enforced where a
    /// [`crate::memory::CountingAllocator`] is the global allocator).
    pub memory: crate::memory::Limits,
    /// Values given to variables before the query runs (`kld query
    /// --param`, Python's `query_named(name, **params)`): the answer is the
    /// rows where each variable has its value. A variable the query does
    /// not have in scope is [`Error::Usage`], never silently ignored.
    pub params: Vec<(String, oxigraph::model::Term)>,
}

impl Default for QueryOptions {
    fn default() -> Self {
        QueryOptions {
            timeout: DEFAULT_TIMEOUT,
            default_graphs: Vec::new(),
            named_graphs: Vec::new(),
            max_result_bytes: None,
            control: Control::new(),
            table_width: None,
            memory: crate::memory::Limits::for_machine(),
            params: Vec::new(),
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
    out: &mut (dyn Write + Send),
) -> Result<usize> {
    let opts = QueryOptions {
        timeout,
        ..QueryOptions::default()
    };
    run_with(store, sparql, &opts, format, out)
}

/// [`run`] with a dataset of its own (see [`QueryOptions`]). The time limit
/// counts from the start, parsing included.
pub fn run_with(
    store: &Store,
    sparql: &str,
    opts: &QueryOptions,
    format: ResultFormat,
    out: &mut (dyn Write + Send),
) -> Result<usize> {
    let deadline = Instant::now() + opts.timeout;
    run_until(store, &parse(sparql)?, opts, deadline, format, out)
}

fn graph_iri(iri: &str) -> Result<oxigraph::model::NamedNode> {
    oxigraph::model::NamedNode::new(iri)
        .map_err(|e| Error::Usage(format!("graph {iri:?} is not an IRI: {e}")))
}

/// Runs an already parsed query (see [`run_with`]) with a stack for its
/// depth (`limits::with_stack`). It ends at `opts.timeout`
/// ([`Error::Timeout`], checked for every tuple the evaluator produces and
/// every write), past `opts.max_result_bytes` ([`Error::ResultTooLarge`]), or
/// when `opts.control` is cancelled ([`Error::Cancelled`]); a panic in the
/// evaluator is [`Error::QueryPanicked`].
pub fn run_parsed(
    store: &Store,
    parsed: &Parsed,
    opts: &QueryOptions,
    format: ResultFormat,
    out: &mut (dyn Write + Send),
) -> Result<usize> {
    run_until(
        store,
        parsed,
        opts,
        Instant::now() + opts.timeout,
        format,
        out,
    )
}

/// A query that held more than this gives its freed memory back to the
/// system when it ends ([`crate::memory::release`]); smaller ones leave it
/// to the allocator, which reuses it.
const RELEASE_AFTER: u64 = 64 << 20;

/// [`run_parsed`] stopped at `deadline`, its memory counted against
/// `opts.memory` ([`crate::memory`]; a query past a limit is stopped, as at
/// its deadline, with [`Error::MemoryLimit`]).
fn run_until(
    store: &Store,
    parsed: &Parsed,
    opts: &QueryOptions,
    deadline: Instant,
    format: ResultFormat,
    out: &mut (dyn Write + Send),
) -> Result<usize> {
    // Oxigraph would say only "not supported", once the answer was begun.
    if let Some(service) = &parsed.service {
        return Err(Error::ServiceRefused {
            service: service.clone(),
        });
    }
    let control = &opts.control;
    let stop = control.clone();
    // The evaluator asks before it allocates a string function's result.
    spareval::set_allocation_check(crate::memory::reserve);
    let account = crate::memory::Account::new(opts.memory, move |_| stop.stop_memory());
    // Everything the query allocates is freed when this closure returns.
    let result = (|| {
        let _open = account.enter();
        let mut evaluator = SparqlEvaluator::new().with_cancellation_token(control.token());
        if parsed.shape.operators > limits::MAX_OPTIMIZED_OPERATORS {
            evaluator = evaluator.without_optimizations();
        }
        let query = if opts.params.is_empty() {
            parsed.query.clone()
        } else {
            parsed.with_params(&opts.params)?
        };
        let mut prepared = evaluator.for_query(query);
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
        let _deadline = control::watch(control, deadline);
        limits::with_stack(limits::stack_for(parsed.shape.depth), || {
            let mut guarded = control::Guarded {
                inner: out,
                control,
                written: 0,
                max: opts.max_result_bytes,
            };
            // Values a product left unbound are counted as they pass.
            let unbound = traps::Unbound::of(&parsed.query);
            let answer = match (prepared.on_store(store).execute(), &unbound) {
                (Ok(QueryResults::Solutions(s)), Some(u)) => {
                    Ok(QueryResults::Solutions(u.watch(s)))
                }
                (other, _) => other,
            };
            let r = write::write_results(
                answer,
                format,
                opts.max_result_bytes,
                opts.table_width,
                &|| control.is_stopped(),
                &mut guarded,
            );
            // Flushed inside the limits too (a buffered writer's last bytes).
            let r = r.and_then(|n| guarded.flush().map(|()| n).map_err(Error::Output));
            if let Ok(n) = &r {
                if let Some(note) = unbound.as_ref().and_then(traps::Unbound::note) {
                    control.note(note);
                }
                if *n == 0 {
                    if let Some(note) = parsed.algebra().as_deref().and_then(traps::http_schema) {
                        control.note(note);
                    }
                }
            }
            r
        })
    })();
    if account.peak() > RELEASE_AFTER {
        crate::memory::release();
    }
    result.map_err(|e| control.classify(e, opts.timeout, opts.max_result_bytes, account.exceeded()))
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
    fn service_is_refused_before_anything_is_written_and_silent_service_is_empty() {
        let store = Store::new().unwrap();
        for q in [
            "SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }",
            "SELECT * WHERE { ?s ?p ?o OPTIONAL { SERVICE <http://example.org/sparql> { ?s ?p ?x } } }",
            "ASK { FILTER EXISTS { SERVICE ?endpoint { ?s ?p ?o } } }",
        ] {
            let mut out = Vec::new();
            let e = run(&store, q, DEFAULT_TIMEOUT, ResultFormat::Tsv, &mut out).unwrap_err();
            assert!(matches!(e, Error::ServiceRefused { .. }), "{q}: {e}");
            let m = e.to_string();
            assert!(m.contains("offline") && m.contains("federates"), "{m}");
            assert!(out.is_empty(), "{q}");
        }
        // SILENT asks for no error when the service fails: one empty solution.
        let mut out = Vec::new();
        let q = "SELECT ?s WHERE { SERVICE SILENT <http://example.org/sparql> { ?s ?p ?o } }";
        assert_eq!(
            run(&store, q, DEFAULT_TIMEOUT, ResultFormat::Tsv, &mut out).unwrap(),
            1
        );
        assert_eq!(String::from_utf8(out).unwrap(), "?s\n\n");
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
        assert!(matches!(e, Error::UpdateRefused), "{e}");
        assert_eq!(store.len().unwrap(), 0);
        // A cross product that would take far longer than the limit.
        let s = oxigraph::model::NamedNode::new("urn:s").unwrap();
        for i in 0..300 {
            add(&store, &s, oxigraph::model::Literal::from(i));
        }
        stops_at_the_deadline(
            &store,
            "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?x . ?b ?p ?y . ?c ?p ?z . ?d ?p ?w }",
        );
    }

    /// Adds `<s> <urn:p> o` to the default graph.
    fn add(store: &Store, s: &oxigraph::model::NamedNode, o: impl Into<oxigraph::model::Term>) {
        let p = oxigraph::model::NamedNode::new("urn:p").unwrap();
        let quad =
            oxigraph::model::Quad::new(s.clone(), p, o, oxigraph::model::GraphName::DefaultGraph);
        store.insert(&quad).unwrap();
    }

    /// `query` ends with a timeout soon after a 300 ms limit.
    fn stops_at_the_deadline(store: &Store, query: &str) {
        let t = std::time::Instant::now();
        let limit = Duration::from_millis(300);
        let e = run(store, query, limit, ResultFormat::Tsv, &mut Vec::new()).unwrap_err();
        assert!(matches!(e, Error::Timeout { .. }), "{e}");
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    }

    /// A closure over a connected graph reaches every pair: the vendored
    /// evaluator collected them all before the first answer and went on
    /// after its deadline (issue 31: 44 s, 6 GB). Now it streams and stops.
    #[test]
    fn property_path_closures_stream_and_stop_at_the_deadline() {
        let store = Store::new().unwrap();
        let n = 3000;
        let node = |i: usize| oxigraph::model::NamedNode::new(format!("urn:n{i}")).unwrap();
        for i in 0..n {
            for j in [(i + 1) % n, (i * 7 + 3) % n] {
                add(&store, &node(i), node(j));
            }
        }
        stops_at_the_deadline(
            &store,
            "SELECT (COUNT(*) AS ?n) { ?s (^!<urn:x>|!<urn:x>)* ?o }",
        );
        // Streamed: the first answers come long before the 9 million pairs.
        let mut out = Vec::new();
        let first = "SELECT * { ?s (^!<urn:x>|!<urn:x>)* ?o } LIMIT 3";
        let rows = run(
            &store,
            first,
            Duration::from_secs(20),
            ResultFormat::Tsv,
            &mut out,
        );
        assert_eq!(rows.unwrap(), 3, "{}", String::from_utf8_lossy(&out));
        // And the answers are the closure's: from a node, every node.
        let from = "SELECT (COUNT(*) AS ?n) { <urn:n0> <urn:p>* ?o }";
        let mut out = Vec::new();
        run(
            &store,
            from,
            Duration::from_secs(20),
            ResultFormat::Tsv,
            &mut out,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains(&format!("{n}")), "{text}");
    }
}
