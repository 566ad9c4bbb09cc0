//! JSON-LD out: the dataset compacted with Karenina's canonical `@context`.
//!
//! The JSON-LD user opens the file by hand, so the export should read like a
//! Karenina checkpoint (`name`, `text`, `rating` for `schema:contentRating`,
//! `dataFeedElement` …) rather than Oxigraph's flat expanded form. The json-ld
//! crate 0.21 has no fromRdf, so the standard road is: Oxigraph's JSON-LD
//! serializer (a fromRdf: expanded form, one `@graph` per named graph) → the
//! json-ld crate's compaction against the embedded canonical context (offline:
//! no loader is ever asked for anything) → pretty-printed text. Expanding the
//! result gives back the same dataset (tests check it with three processors).

use crate::context;
use crate::error::{Error, Result};
use crate::json::Json;
use oxigraph::io::{JsonLdProfileSet, RdfFormat, RdfSerializer};
use oxigraph::model::Quad;

fn err(m: impl std::fmt::Display) -> Error {
    Error::Compaction(m.to_string())
}

/// The expanded JSON-LD text of `quads` (Oxigraph's serializer).
pub fn expanded(quads: &[Quad]) -> Result<Vec<u8>> {
    let mut w = RdfSerializer::from_format(RdfFormat::JsonLd {
        profile: JsonLdProfileSet::empty(),
    })
    .for_writer(Vec::new());
    for q in quads {
        w.serialize_quad(q).map_err(err)?;
    }
    w.finish().map_err(err)
}

/// fromRdf with `useRdfType: false` (the JSON-LD 1.1 default): `rdf:type`
/// IRIs become `@type`, which compaction then writes as Karenina's type terms.
/// Oxigraph's serializer keeps them as `rdf:type` properties.
fn types_as_keyword(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Array(a) => a.iter_mut().for_each(types_as_keyword),
        serde_json::Value::Object(o) => {
            if let Some(g) = o.get_mut("@graph") {
                types_as_keyword(g);
            }
            let iris: Option<Vec<serde_json::Value>> = match o.get(crate::vocab::RDF_TYPE) {
                Some(serde_json::Value::Array(ts)) => ts
                    .iter()
                    .map(|t| match t {
                        serde_json::Value::Object(n) if n.len() == 1 => {
                            n.get("@id").filter(|i| i.is_string()).cloned()
                        }
                        _ => None,
                    })
                    .collect(),
                _ => None,
            };
            if let Some(iris) = iris {
                o.shift_remove(crate::vocab::RDF_TYPE);
                o.insert("@type".into(), serde_json::Value::Array(iris));
            }
        }
        _ => {}
    }
}

/// `quads` as JSON-LD compacted with the canonical context, pretty-printed
/// (two-space indent, members in the compaction algorithm's order).
pub fn compacted(quads: &[Quad]) -> Result<String> {
    compacted_until(quads, &|| false)
}

/// Top-level items compacted together: the json-ld crate's compaction holds
/// its own expanded form of all it is given, about 40 times the text (2.6
/// GB for a 67 MB answer), so a large document is compacted a slice at a
/// time.
const BATCH_BYTES: usize = 1 << 20;

/// [`compacted`], which ends with [`Error::Cancelled`] as soon as `stopped`
/// says so (checked between slices: a query stopped at its deadline or
/// memory limit does not finish compacting first).
///
/// The document's top-level items (node objects, or one graph object per
/// named graph) are compacted a slice of about [`BATCH_BYTES`] at a time,
/// every slice of two or more, and gathered under one `@graph`: compaction
/// treats the items of a top-level array one by one, so this is the same
/// document as compacting the whole at once (a document of one item is
/// compacted whole, as its item is not wrapped in `@graph`).
pub fn compacted_until(quads: &[Quad], stopped: &dyn Fn() -> bool) -> Result<String> {
    compacted_in_slices(quads, stopped, BATCH_BYTES)
}

fn compacted_in_slices(
    quads: &[Quad],
    stopped: &dyn Fn() -> bool,
    batch_bytes: usize,
) -> Result<String> {
    let mut doc: serde_json::Value = serde_json::from_slice(&expanded(quads)?).map_err(err)?;
    types_as_keyword(&mut doc);
    let items = match doc {
        serde_json::Value::Array(items) if items.len() >= 2 => items,
        whole => {
            let v = compact_value(&whole)?;
            return serde_json::to_string_pretty(&v).map_err(err);
        }
    };
    let mut texts: Vec<String> = items.into_iter().map(|i| i.to_string()).collect();
    let mut graph: Vec<serde_json::Value> = Vec::new();
    let mut context = None;
    while !texts.is_empty() {
        if stopped() {
            return Err(Error::Cancelled);
        }
        // A slice of about BATCH_BYTES, of two items at least, leaving none
        // alone at the end.
        let (mut n, mut size) = (0, 0);
        while n < texts.len() && (n < 2 || size < batch_bytes) {
            size += texts[n].len();
            n += 1;
        }
        if texts.len() - n == 1 {
            n += 1;
        }
        let slice = format!("[{}]", texts.drain(..n).collect::<Vec<_>>().join(","));
        let serde_json::Value::Object(mut out) = compact_text(&slice)? else {
            return Err(err("compaction did not give an object"));
        };
        if context.is_none() {
            context = out.shift_remove("@context");
        }
        match out.shift_remove("@graph") {
            Some(serde_json::Value::Array(items)) => graph.extend(items),
            _ => return Err(err("compaction of several items gave no @graph")),
        }
    }
    let mut whole = serde_json::Map::new();
    if let Some(c) = context {
        whole.insert("@context".into(), c);
    }
    whole.insert("@graph".into(), serde_json::Value::Array(graph));
    serde_json::to_string_pretty(&serde_json::Value::Object(whole)).map_err(err)
}

fn compact_value(doc: &serde_json::Value) -> Result<serde_json::Value> {
    compact_text(&doc.to_string())
}

/// Compacts expanded JSON-LD text with the canonical context (offline).
fn compact_text(text: &str) -> Result<serde_json::Value> {
    use json_ld::syntax::{context::Context, Parse, TryFromJson};
    use json_ld::{JsonLdProcessor, RemoteContextReference, RemoteDocument};
    let (value, _) = json_ld::syntax::Value::parse_str(text).map_err(err)?;
    let ctx_text = Json::Object(context::canonical().clone()).to_compact();
    let (ctx_value, _) = json_ld::syntax::Value::parse_str(&ctx_text).map_err(err)?;
    let ctx = Context::try_from_json(ctx_value).map_err(err)?;
    let ctx_ref = RemoteContextReference::Loaded(RemoteDocument::new(None, None, ctx));
    let input = RemoteDocument::new(None, None, value);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(err)?;
    let loader = json_ld::NoLoader;
    let out = runtime
        .block_on(input.compact(ctx_ref, &loader))
        .map_err(err)?;
    // Through serde_json (insertion order and number text kept).
    serde_json::from_str(&out.to_string()).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxigraph::model::{GraphName, Literal, NamedNode};

    fn quads(graphs: usize, nodes: usize) -> Vec<Quad> {
        let name = NamedNode::new(format!("{}name", crate::vocab::SCHEMA)).unwrap();
        let about = NamedNode::new(format!("{}about", crate::vocab::SCHEMA)).unwrap();
        let rdf_type = NamedNode::new(crate::vocab::RDF_TYPE).unwrap();
        let question = NamedNode::new(format!("{}Question", crate::vocab::SCHEMA)).unwrap();
        let mut out = Vec::new();
        for g in 0..graphs {
            let graph = if graphs == 1 {
                GraphName::DefaultGraph
            } else {
                NamedNode::new(format!("urn:g{g}")).unwrap().into()
            };
            for i in 0..nodes {
                let s = NamedNode::new(format!("urn:q{i}")).unwrap();
                let next = NamedNode::new(format!("urn:q{}", (i + 1) % nodes)).unwrap();
                out.push(Quad::new(
                    s.clone(),
                    rdf_type.clone(),
                    question.clone(),
                    graph.clone(),
                ));
                out.push(Quad::new(
                    s.clone(),
                    name.clone(),
                    Literal::from(format!("Q {i} ✓")),
                    graph.clone(),
                ));
                out.push(Quad::new(s, about.clone(), next, graph.clone()));
            }
        }
        out
    }

    fn whole(quads: &[Quad]) -> String {
        let mut doc: serde_json::Value = serde_json::from_slice(&expanded(quads).unwrap()).unwrap();
        types_as_keyword(&mut doc);
        serde_json::to_string_pretty(&compact_value(&doc).unwrap()).unwrap()
    }

    /// Compacting a slice at a time is compacting the whole, byte for byte:
    /// nodes of the default graph, named graphs, odd counts, one item.
    #[test]
    fn slices_compact_to_the_same_document_as_the_whole() {
        for (graphs, nodes) in [(1, 1), (1, 2), (1, 7), (1, 300), (3, 5), (2, 1)] {
            let q = quads(graphs, nodes);
            let expected = whole(&q);
            for batch in [1, 700, BATCH_BYTES] {
                let got = compacted_in_slices(&q, &|| false, batch).unwrap();
                assert_eq!(
                    got, expected,
                    "{graphs} graphs × {nodes} nodes, slices of {batch} B"
                );
            }
        }
    }

    #[test]
    fn a_stopped_query_stops_compacting() {
        let e = compacted_until(&quads(1, 50), &|| true).unwrap_err();
        assert!(matches!(e, Error::Cancelled), "{e}");
    }
}
