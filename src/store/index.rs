//! `index.tsv` of a store directory: one line per graph with its source,
//! SHA-256, load time, quads, graph file, kind, binding and why it is unbound;
//! and the same facts as provenance quads in the default graph.

use super::{binding, file_for_graph, rdf_err, Binding, GraphInfo, GraphKind};
use crate::error::{Error, Result};
use crate::vocab::{self, k, RDF_TYPE, XSD_DATETIME};
use oxigraph::model::{GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term};
use std::path::Path;

/// The index's header line.
const HEADER: &str =
    "graph\tsource\tsha256\tloaded_at\tquads\tfile\tkind\tbound_to\tunbound_because\n";

/// Reads an index (none yet: empty). Older indexes have 6 to 8 fields.
pub(super) fn read(path: &Path) -> Result<Vec<GraphInfo>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(path, e)),
    };
    let mut infos = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if !(6..=9).contains(&f.len()) {
            return Err(Error::Rdf(format!(
                "{}:{}: expected 6 to 9 tab-separated fields",
                path.display(),
                n + 1
            )));
        }
        let kind = if f.get(6) == Some(&"results") {
            GraphKind::Results
        } else {
            GraphKind::Checkpoint
        };
        infos.push(GraphInfo {
            graph: f[0].into(),
            source: f[1].into(),
            sha256: f[2].into(),
            loaded_at: f[3].into(),
            quads: f[4].parse().map_err(rdf_err)?,
            kind,
            binding: f.get(7).and_then(|b| Binding::parse(b)),
            unbound: f.get(8).filter(|n| !n.is_empty()).map(|n| n.to_string()),
            // (Found again from the source: a run loaded before its
            // checkpoint binds to it in a later command too.)
            benchmark: match kind {
                GraphKind::Results => super::benchmark_named_by(f[1]),
                GraphKind::Checkpoint => None,
            },
            notes: Vec::new(),
            benchmark_name: None,
        });
    }
    Ok(infos)
}

/// The index text of `infos`.
pub(super) fn text<'a>(infos: impl Iterator<Item = &'a GraphInfo>) -> String {
    let clean = |s: &str| s.replace(['\t', '\n'], " ");
    let mut s = String::from(HEADER);
    for i in infos {
        s.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\tgraphs/{}\t{}\t{}\t{}\n",
            i.graph,
            clean(&i.source),
            i.sha256,
            i.loaded_at,
            i.quads,
            file_for_graph(&i.graph),
            match i.kind {
                GraphKind::Checkpoint => "checkpoint",
                GraphKind::Results => "results",
            },
            i.binding
                .as_ref()
                .map(Binding::to_field)
                .unwrap_or_default(),
            clean(i.unbound.as_deref().unwrap_or_default())
        ));
    }
    s
}

/// The provenance quads of graph `g` (default graph): its class, source,
/// SHA-256, load time, binding and why it is unbound (the index's fields as
/// RDF).
pub(super) fn provenance(g: &NamedNode, info: &GraphInfo) -> Vec<Quad> {
    let s = NamedOrBlankNode::NamedNode(g.clone());
    let k = |local: &str| NamedNode::new_unchecked(vocab::karenina(local));
    let d = GraphName::DefaultGraph;
    let mut quads = vec![
        Quad::new(
            s.clone(),
            NamedNode::new_unchecked(RDF_TYPE),
            Term::NamedNode(k(info.kind.class())),
            d.clone(),
        ),
        Quad::new(
            s.clone(),
            k(k::SOURCE),
            Term::Literal(Literal::new_simple_literal(&info.source)),
            d.clone(),
        ),
        Quad::new(
            s.clone(),
            k(k::SHA256),
            Term::Literal(Literal::new_simple_literal(&info.sha256)),
            d.clone(),
        ),
        Quad::new(
            s.clone(),
            k(k::LOADED_AT),
            Term::Literal(Literal::new_typed_literal(
                &info.loaded_at,
                NamedNode::new_unchecked(XSD_DATETIME),
            )),
            d.clone(),
        ),
    ];
    if let Some(b) = &info.binding {
        quads.push(Quad::new(
            s.clone(),
            k(binding::FOR_BENCHMARK),
            NamedNode::new_unchecked(b.checkpoint.clone()),
            d.clone(),
        ));
    }
    if let Some(n) = &info.unbound {
        quads.push(Quad::new(
            s,
            k(binding::BINDING_NOTE),
            Term::Literal(Literal::new_simple_literal(n)),
            d,
        ));
    }
    quads
}
