//! `index.tsv` of a store directory: one line per graph with its source,
//! SHA-256, load time, quads, graph file, kind, binding and why it is unbound;
//! and the same facts as provenance quads in the default graph.

use super::{binding, file_for_graph, Binding, GraphInfo, GraphKind};
use crate::error::{Error, Result};
use crate::vocab::{self, k, RDF_TYPE, XSD_DATETIME};
use oxigraph::model::{GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term};
use std::path::Path;

/// The index's columns.
const HEADER: [&str; 9] = [
    "graph",
    "source",
    "sha256",
    "loaded_at",
    "quads",
    "file",
    "kind",
    "bound_to",
    "unbound_because",
];

/// Reads an index (none yet: empty). Older indexes have 6 to 8 fields.
pub(super) fn read(path: &Path) -> Result<Vec<GraphInfo>> {
    let text = match crate::fsutil::read_regular(path) {
        Ok(t) => t,
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            Vec::new()
        }
        Err(e) => return Err(e),
    };
    let bad = |line: u64, reason: String| Error::StoreIndex {
        path: path.to_path_buf(),
        line: line as usize,
        reason,
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .flexible(true)
        .has_headers(true)
        .from_reader(text.as_slice());
    let mut infos = Vec::new();
    for record in reader.records() {
        let r = record.map_err(|e| {
            let line = e.position().map(|p| p.line()).unwrap_or(0);
            bad(line, e.to_string())
        })?;
        let line = r.position().map(|p| p.line()).unwrap_or(0);
        if !(6..=9).contains(&r.len()) {
            return Err(bad(
                line,
                format!("expected 6 to 9 tab-separated fields, found {}", r.len()),
            ));
        }
        let f = |i: usize| r.get(i).unwrap_or_default();
        let kind = if f(6) == "results" {
            GraphKind::Results
        } else {
            GraphKind::Checkpoint
        };
        infos.push(GraphInfo {
            graph: f(0).into(),
            source: f(1).into(),
            sha256: f(2).into(),
            loaded_at: f(3).into(),
            quads: f(4)
                .parse()
                .map_err(|e| bad(line, format!("quads {:?}: {e}", f(4))))?,
            kind,
            binding: r.get(7).and_then(Binding::parse),
            unbound: r.get(8).filter(|n| !n.is_empty()).map(str::to_string),
            // (Found again from the source: a run loaded before its
            // checkpoint binds to it in a later command too.)
            benchmark: match kind {
                GraphKind::Results => super::benchmark_named_by(f(1)),
                GraphKind::Checkpoint => None,
            },
            notes: Vec::new(),
            errors: Vec::new(),
            benchmark_name: None,
            keys_only: false,
        });
    }
    Ok(infos)
}

/// The index text of `infos` (tab-separated; a field holding a tab, a
/// newline or a leading quote is quoted, as the csv crate reads it back).
pub(super) fn text<'a>(infos: impl Iterator<Item = &'a GraphInfo>) -> String {
    let mut w = csv::WriterBuilder::new()
        .delimiter(b'\t')
        .from_writer(Vec::new());
    let mut row = |fields: &[&str]| {
        w.write_record(fields)
            .expect("writing to a Vec cannot fail");
    };
    row(&HEADER);
    for i in infos {
        let quads = i.quads.to_string();
        let file = format!("graphs/{}", file_for_graph(&i.graph));
        let binding = i
            .binding
            .as_ref()
            .map(Binding::to_field)
            .unwrap_or_default();
        row(&[
            &i.graph,
            &i.source,
            &i.sha256,
            &i.loaded_at,
            &quads,
            &file,
            i.kind.name(),
            &binding,
            i.unbound.as_deref().unwrap_or_default(),
        ]);
    }
    let bytes = w.into_inner().expect("writing to a Vec cannot fail");
    String::from_utf8(bytes).expect("the fields are UTF-8")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_with_tabs_newlines_and_quotes_come_back_whole() {
        let info = GraphInfo {
            graph: "file:///a.jsonld".into(),
            source: "dir\twith tab/\"quoted\"\nname.jsonld".into(),
            sha256: "ab".into(),
            loaded_at: "2026-01-01T00:00:00Z".into(),
            quads: 7,
            kind: GraphKind::Checkpoint,
            binding: None,
            unbound: Some("two\tcheckpoints".into()),
            benchmark: None,
            notes: Vec::new(),
            errors: Vec::new(),
            benchmark_name: None,
            keys_only: false,
        };
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("index.tsv");
        std::fs::write(&p, text(std::iter::once(&info))).unwrap();
        let back = read(&p).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].source, info.source);
        assert_eq!(back[0].unbound, info.unbound);
        assert_eq!(back[0].quads, 7);
    }

    #[test]
    fn an_old_six_field_index_reads_and_a_short_line_is_located() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("index.tsv");
        std::fs::write(
            &p,
            "graph\tsource\tsha256\tloaded_at\tquads\tfile\nfile:///a\ta.jsonld\tab\tt\t3\tgraphs/x.nq\nfile:///b\tb\n",
        )
        .unwrap();
        let e = read(&p).unwrap_err();
        assert!(matches!(e, Error::StoreIndex { line: 3, .. }), "{e:?}");
        std::fs::write(
            &p,
            "graph\tsource\tsha256\tloaded_at\tquads\tfile\nfile:///a\ta.jsonld\tab\tt\t3\tgraphs/x.nq\n",
        )
        .unwrap();
        let back = read(&p).unwrap();
        assert_eq!((back[0].quads, back[0].kind), (3, GraphKind::Checkpoint));
    }
}
