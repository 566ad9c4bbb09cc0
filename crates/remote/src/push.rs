//! `kld push`: checkpoint and results graphs into a server over the Graph
//! Store Protocol. Results graphs are bound to their checkpoint on the server
//! (the same matching as locally, run there), recorded in the provenance.
//!
//! One PUT per checkpoint graph (its lossless graph as N-Triples, named by the
//! file URL as in the local store), and the provenance of every pushed graph in
//! one graph, [`PROVENANCE_GRAPH`]: source, SHA-256 of the file, SHA-256 of its
//! canonical bytes (checked by `extract --endpoint`), the numeric literals
//! pushed (to name a value the server altered), load time. A re-push asks the
//! server for that graph first (one query) and sends only files that changed.

use super::{RemoteClient, PROVENANCE_GRAPH};
use karenina_ld::error::{Error, Result};
use karenina_ld::model::{self, ReadOptions};
use karenina_ld::rdf::{self, Processor};
use karenina_ld::save::{write_checkpoint, WriteOptions};
use karenina_ld::store::binding::link::{self, Link, Runner};
use karenina_ld::store::GraphKind;
use karenina_ld::vocab::{self, XSD_DATETIME, XSD_DOUBLE, XSD_INTEGER};
use oxigraph::io::{RdfFormat, RdfSerializer};
use oxigraph::model::{GraphName, Literal, NamedNode, Quad, Term};
use oxigraph::sparql::results::{
    QueryResultsFormat, QueryResultsParser, ReaderQueryResultsParserOutput,
};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// What the provenance graph records of one pushed checkpoint graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pushed {
    /// The graph IRI.
    pub graph: String,
    /// The source file (absolute).
    pub source: String,
    /// SHA-256 of the file's bytes.
    pub sha256: String,
    /// SHA-256 of the canonical checkpoint bytes (what extract must give).
    pub canonical_sha256: String,
    /// Numeric literals pushed, as `datatype lexical` lines (JSON array text).
    pub numbers: String,
    /// When it was pushed (RFC 3339, UTC).
    pub loaded_at: String,
    /// A checkpoint or a results export.
    pub kind: GraphKind,
    /// For a results graph: the checkpoint graph its run is bound to.
    pub bound_to: Option<String>,
    /// For a results graph: its run's [`karenina_ld::store::RunIdentity`] key
    /// digest, so a copy pushed later from another file is recognised.
    pub run_keys: String,
    /// For a results graph: `json` or `csv`, the format it was read from.
    pub run_format: String,
}

use karenina_ld::vocab::term as k;

/// The provenance the server holds (one SPARQL query).
pub fn server_provenance(client: &RemoteClient) -> Result<BTreeMap<String, Pushed>> {
    let q = format!(
        "PREFIX karenina: <urn:karenina:vocab:>
SELECT ?g ?source ?sha ?canon ?numbers ?at ?results ?for ?keys ?format WHERE {{ GRAPH <{PROVENANCE_GRAPH}> {{
  ?g karenina:sha256 ?sha .
  OPTIONAL {{ ?g karenina:source ?source }} OPTIONAL {{ ?g karenina:canonicalSha256 ?canon }}
  OPTIONAL {{ ?g karenina:numbers ?numbers }} OPTIONAL {{ ?g karenina:loadedAt ?at }}
  OPTIONAL {{ ?g a ?results FILTER(?results = karenina:ResultsGraph) }}
  OPTIONAL {{ ?g karenina:forBenchmark ?for }}
  OPTIONAL {{ ?g karenina:runKeys ?keys }} OPTIONAL {{ ?g karenina:runFormat ?format }} }} }}"
    );
    let body = client.query(&q, "application/sparql-results+json")?;
    let parsed = QueryResultsParser::from_format(QueryResultsFormat::Json)
        .for_reader(std::io::Cursor::new(body))
        .map_err(|e| answer_err("provenance query", e))?;
    let ReaderQueryResultsParserOutput::Solutions(solutions) = parsed else {
        return Err(answer_err("provenance query", "not a SELECT answer"));
    };
    let mut out = BTreeMap::new();
    for s in solutions {
        let s = s.map_err(|e| answer_err("provenance query", e))?;
        let text = |v: &str| match s.get(v) {
            Some(Term::Literal(l)) => l.value().to_string(),
            Some(Term::NamedNode(n)) => n.as_str().to_string(),
            _ => String::new(),
        };
        let graph = text("g");
        out.insert(
            graph.clone(),
            Pushed {
                graph,
                source: text("source"),
                sha256: text("sha"),
                canonical_sha256: text("canon"),
                numbers: text("numbers"),
                loaded_at: text("at"),
                kind: if text("results").is_empty() {
                    GraphKind::Checkpoint
                } else {
                    GraphKind::Results
                },
                bound_to: Some(text("for")).filter(|f| !f.is_empty()),
                run_keys: text("keys"),
                run_format: text("format"),
            },
        );
    }
    Ok(out)
}

fn sha256_hex(b: &[u8]) -> String {
    format!("{:x}", Sha256::digest(b))
}

/// Numeric literals of a graph as a JSON array of `"datatype lexical"`
/// strings, sorted: what `extract --endpoint` compares to name a value the
/// server altered.
pub fn numbers_of(quads: &[Quad]) -> String {
    let mut v: Vec<String> = quads
        .iter()
        .filter_map(|q| match &q.object {
            Term::Literal(l) if [XSD_DOUBLE, XSD_INTEGER].contains(&l.datatype().as_str()) => {
                Some(format!("{} {}", l.datatype().as_str(), l.value()))
            }
            _ => None,
        })
        .collect();
    v.sort();
    serde_json::to_string(&v).unwrap_or_default()
}

/// Reads, maps and PUTs one checkpoint; returns its provenance.
pub fn push_file(client: &RemoteClient, file: &Path, graph: &str) -> Result<Pushed> {
    // A benchmark of Karenina's database: its rebuilt checkpoint graph,
    // whose digest is that of the bytes `load_from_db(...).save()` writes.
    if karenina_ld::kind::database_benchmark(file).is_some() {
        let prepared = karenina_ld::store::prepare_with(
            file,
            Processor::Direct,
            karenina_ld::rdf::verification::ResultsOptions::default(),
        )?;
        let (source, sha256) = (prepared.info.source.clone(), prepared.info.sha256.clone());
        let quads = prepared.into_quads()?;
        return put(
            client,
            source,
            graph,
            &quads,
            sha256.clone(),
            GraphKind::Checkpoint,
        )
        .map(|p| Pushed {
            canonical_sha256: sha256,
            ..p
        });
    }
    if karenina_ld::kind::database_run(file).is_some()
        || karenina_ld::results::progress::is_state_input(file, true)
        || (file.is_dir() && karenina_ld::results::run_folder::is_run_folder(file))
    {
        return push_prepared(client, file, graph);
    }
    if karenina_ld::results::sniff_file(file)?.is_some() {
        return push_results(client, file, graph);
    }
    // `-` is standard input, as in the other commands.
    let bytes = karenina_ld::fsutil::read_input(file)?;
    let cp = model::read_checkpoint(file, &bytes, ReadOptions::default())?;
    let quads = rdf::lossless_quads(&cp, &GraphName::DefaultGraph, Processor::Direct)?;
    let canonical = write_checkpoint(&cp, &WriteOptions::default());
    put(
        client,
        source_of(file)?,
        graph,
        &quads,
        sha256_hex(&bytes),
        GraphKind::Checkpoint,
    )
    .map(|p| Pushed {
        canonical_sha256: sha256_hex(canonical.as_bytes()),
        ..p
    })
}

/// A file's absolute path, as the provenance records it (`/dev/stdin`
/// for `-`).
fn source_of(file: &Path) -> Result<String> {
    Ok(karenina_ld::fsutil::canonical_input(file)?
        .display()
        .to_string())
}

/// PUTs `quads` (their graph names ignored) as `graph`; the provenance of it.
fn put(
    client: &RemoteClient,
    source: String,
    graph: &str,
    quads: &[Quad],
    sha256: String,
    kind: GraphKind,
) -> Result<Pushed> {
    let mut w = RdfSerializer::from_format(RdfFormat::NTriples).for_writer(Vec::new());
    for q in quads {
        w.serialize_triple(q.as_ref()).map_err(Error::Output)?;
    }
    client.put_graph(graph, w.finish().map_err(Error::Output)?)?;
    Ok(Pushed {
        graph: graph.to_string(),
        source,
        sha256,
        canonical_sha256: String::new(),
        numbers: numbers_of(quads),
        loaded_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
        kind,
        bound_to: None,
        run_keys: String::new(),
        run_format: String::new(),
    })
}

/// A results export: its graph (traces left out, as when loading) in one
/// PUT. There is no canonical form to record: `extract` rebuilds checkpoints.
fn push_results(client: &RemoteClient, file: &Path, graph: &str) -> Result<Pushed> {
    let mut quads = Vec::new();
    let sha256 = karenina_ld::rdf::verification::map_path(
        file,
        &GraphName::DefaultGraph,
        karenina_ld::rdf::verification::ResultsOptions::default(),
        &mut |q| quads.push(q),
    )?;
    put(
        client,
        source_of(file)?,
        graph,
        &quads,
        sha256,
        GraphKind::Results,
    )
}

/// One run of Karenina's database (`DB#run=<id>`), a run folder or an
/// unfinished run's sidecars, read as the store reads it (same source, same
/// digest, same quads).
fn push_prepared(client: &RemoteClient, input: &Path, graph: &str) -> Result<Pushed> {
    let prepared = karenina_ld::store::prepare_with(
        input,
        Processor::Direct,
        karenina_ld::rdf::verification::ResultsOptions::default(),
    )?;
    let (source, sha256) = (prepared.info.source.clone(), prepared.info.sha256.clone());
    let quads = prepared.into_quads()?;
    put(client, source, graph, &quads, sha256, GraphKind::Results)
}

/// The answer rows of a SELECT on the server.
fn select(client: &RemoteClient, q: &str) -> Result<Vec<oxigraph::sparql::QuerySolution>> {
    let body = client.query(q, "application/sparql-results+json")?;
    let parsed = QueryResultsParser::from_format(QueryResultsFormat::Json)
        .for_reader(std::io::Cursor::new(body))
        .map_err(|e| answer_err("binding query", e))?;
    let ReaderQueryResultsParserOutput::Solutions(solutions) = parsed else {
        return Err(answer_err("binding query", "not a SELECT answer"));
    };
    solutions
        .map(|s| s.map_err(|e| answer_err("binding query", e)))
        .collect()
}

/// Binds every results graph in `entries` as the local store binds it
/// ([`karenina_ld::store::CheckpointStore::bind`]), with the matching queries run
/// on the server among the checkpoint graphs of `entries`: a database run to
/// the one checkpoint of its benchmark's name holding its questions (several:
/// the one at its `checkpoint_path`, else ambiguous), else to the one at its
/// `checkpoint_path`, else unbound; a run folder to its `benchmark_path`'s
/// checkpoint when it holds the run's questions; otherwise to the one
/// checkpoint holding all its question IDs. A run in `local` (bound by the
/// local load of this push's inputs, to a checkpoint graph on the server)
/// keeps that binding: the server answers as the local store. Records it in
/// the entry; returns the outcome per results graph.
pub fn bind_on_server(
    client: &RemoteClient,
    entries: &mut BTreeMap<String, Pushed>,
    local: &BTreeMap<String, String>,
) -> Result<Vec<(String, Link)>> {
    let checkpoints: Vec<String> = entries
        .values()
        .filter(|p| p.kind == GraphKind::Checkpoint)
        .map(|p| p.graph.clone())
        .collect();
    let mut run = |q: &str| -> Result<Vec<(String, usize)>> {
        Ok(select(client, q)?
            .iter()
            .map(link::checkpoint_count)
            .collect())
    };
    let values = |cs: &[String]| {
        cs.iter()
            .map(|c| format!("<{c}>"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = Vec::new();
    for p in entries
        .values_mut()
        .filter(|p| p.kind == GraphKind::Results)
    {
        if let Some(c) = local.get(&p.graph).filter(|c| checkpoints.contains(c)) {
            p.bound_to = Some(c.clone());
            out.push((p.graph.clone(), Link::Bound(c.clone())));
            continue;
        }
        let named_file =
            karenina_ld::store::benchmark_named_by(&p.source).filter(|c| checkpoints.contains(c));
        let holds = |c: &String, run: &mut Runner| -> Result<bool> {
            Ok(matches!(
                link::find_with(&p.graph, Some(std::slice::from_ref(c)), run)?,
                Link::Bound(_)
            ))
        };
        let database = select(
            client,
            &format!(
                "PREFIX karenina: <urn:karenina:vocab:> SELECT ?name WHERE {{ GRAPH <{}> {{
                   ?run karenina:runSource \"database\" OPTIONAL {{ ?run karenina:benchmarkName ?name }} }} }}",
                p.graph
            ),
        )?;
        let l = if let Some(row) = database.first() {
            let name = match row.get("name") {
                Some(Term::Literal(l)) => Some(l.value().to_string()),
                _ => None,
            };
            let named: Vec<String> = match (&name, checkpoints.is_empty()) {
                (Some(n), false) => select(
                    client,
                    &format!(
                        "PREFIX schema: <https://schema.org/> SELECT DISTINCT ?c WHERE {{
                           VALUES ?c {{ {} }} GRAPH ?c {{ ?f a schema:DataFeed ; schema:name {} }} }}",
                        values(&checkpoints),
                        Term::Literal(Literal::new_simple_literal(n))
                    ),
                )?
                .iter()
                .filter_map(|s| match s.get("c") {
                    Some(Term::NamedNode(c)) => Some(c.as_str().to_string()),
                    _ => None,
                })
                .collect(),
                _ => Vec::new(),
            };
            match (
                link::find_with(&p.graph, Some(&named), &mut run)?,
                &named_file,
            ) {
                (Link::Ambiguous(c), Some(f)) if c.contains(f) => Link::Bound(f.clone()),
                (l @ (Link::Bound(_) | Link::Ambiguous(_)), _) => l,
                (_, Some(f)) if holds(f, &mut run)? => Link::Bound(f.clone()),
                _ => Link::NotItsBenchmark { benchmark: name },
            }
        } else {
            match &named_file {
                Some(f) if holds(f, &mut run)? => Link::Bound(f.clone()),
                _ => link::find_with(&p.graph, Some(&checkpoints), &mut run)?,
            }
        };
        p.bound_to = match &l {
            Link::Bound(c) => Some(c.clone()),
            _ => None,
        };
        out.push((p.graph.clone(), l));
    }
    Ok(out)
}

/// Replaces the provenance graph with `entries` (one PUT).
pub fn put_provenance(client: &RemoteClient, entries: &BTreeMap<String, Pushed>) -> Result<()> {
    let mut w = RdfSerializer::from_format(RdfFormat::NTriples).for_writer(Vec::new());
    let lit = |s: &str| Term::Literal(Literal::new_simple_literal(s));
    for p in entries.values() {
        let g = karenina_ld::error::named_node(&p.graph)?;
        let mut triples = vec![
            (
                NamedNode::new_unchecked(vocab::RDF_TYPE),
                Term::NamedNode(k(p.kind.class())),
            ),
            (k(vocab::k::SOURCE), lit(&p.source)),
            (k(vocab::k::SHA256), lit(&p.sha256)),
            (k("canonicalSha256"), lit(&p.canonical_sha256)),
            (
                k("numbers"),
                Term::Literal(Literal::new_typed_literal(
                    &p.numbers,
                    NamedNode::new_unchecked(vocab::RDF_JSON),
                )),
            ),
        ];
        if !p.run_keys.is_empty() {
            triples.push((k("runKeys"), lit(&p.run_keys)));
            triples.push((k("runFormat"), lit(&p.run_format)));
        }
        if let Some(c) = &p.bound_to {
            triples.push((
                k("forBenchmark"),
                Term::NamedNode(karenina_ld::error::named_node(c)?),
            ));
        }
        if !p.loaded_at.is_empty() {
            triples.push((
                k(vocab::k::LOADED_AT),
                Term::Literal(Literal::new_typed_literal(
                    &p.loaded_at,
                    NamedNode::new_unchecked(XSD_DATETIME),
                )),
            ));
        }
        for (pred, obj) in triples {
            w.serialize_triple(oxigraph::model::TripleRef::new(&g, &pred, &obj))
                .map_err(Error::Output)?;
        }
    }
    let nt = w.finish().map_err(Error::Output)?;
    client.put_graph(PROVENANCE_GRAPH, nt)
}

fn answer_err(what: &str, reason: impl std::fmt::Display) -> Error {
    Error::RemoteAnswer {
        what: what.to_string(),
        reason: reason.to_string(),
    }
}
