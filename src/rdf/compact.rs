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
pub(crate) fn compacted_until(quads: &[Quad], stopped: &dyn Fn() -> bool) -> Result<String> {
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
    let mut graph: Vec<serde_json::Value> = Vec::new();
    let mut context = None;
    compact_slices(items, stopped, batch_bytes, &mut |c, items| {
        if context.is_none() {
            context = c;
        }
        graph.extend(items);
        Ok(())
    })?;
    let mut whole = serde_json::Map::new();
    if let Some(c) = context {
        whole.insert("@context".into(), c);
    }
    whole.insert("@graph".into(), serde_json::Value::Array(graph));
    serde_json::to_string_pretty(&serde_json::Value::Object(whole)).map_err(err)
}

/// What [`compact_slices`] hands on: a slice's `@context` and its compacted
/// items.
type SliceSink<'a> =
    dyn FnMut(Option<serde_json::Value>, Vec<serde_json::Value>) -> Result<()> + 'a;

/// Compacts `items` (two or more top-level items of an expanded document) a
/// slice of about `batch_bytes` at a time, every slice of two items or more
/// (a slice of one would come back unwrapped), and hands each slice's
/// context and compacted items to `sink`, in order.
fn compact_slices(
    items: Vec<serde_json::Value>,
    stopped: &dyn Fn() -> bool,
    batch_bytes: usize,
    sink: &mut SliceSink<'_>,
) -> Result<()> {
    let mut texts: Vec<String> = items.into_iter().map(|i| i.to_string()).collect();
    while !texts.is_empty() {
        if stopped() {
            return Err(Error::Cancelled);
        }
        // A slice of about batch_bytes, of two items at least, leaving none
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
        let context = out.shift_remove("@context");
        match out.shift_remove("@graph") {
            Some(serde_json::Value::Array(items)) => sink(context, items)?,
            _ => return Err(err("compaction of several items gave no @graph")),
        }
    }
    Ok(())
}

/// Writes the compacted JSON-LD of `quads`, all in the default graph (a
/// `CONSTRUCT` answer), and a newline, as they come: the same bytes as
/// [`compacted`] of them all, without holding them all. Returns how many
/// quads there were.
///
/// Why: compacting a whole answer held the answer several times over
/// (quads, expanded text, parsed, compacted, printed; about 0.8 GiB for a
/// 67 MB answer), and four `CONSTRUCT {?s ?p ?o}` answered as JSON-LD at
/// once grew `kld serve` by over 2 GB. Now quads are gathered in batches of
/// about [`BATCH_BYTES`], cut only where the subject changes (Oxigraph's
/// serializer makes one node object per run of a subject's quads, so the
/// batches' expanded items are the whole's), each compacted as in
/// [`compacted_until`] and printed into one `@graph` as
/// `serde_json::to_string_pretty` would print the whole. An answer of one
/// batch is compacted whole, exactly as before. Ends with
/// [`Error::Cancelled`] when `stopped` says so between slices.
pub(crate) fn write_compacted(
    quads: impl Iterator<Item = Result<Quad>>,
    stopped: &dyn Fn() -> bool,
    out: &mut dyn std::io::Write,
) -> Result<usize> {
    write_compacted_in_batches(quads, stopped, BATCH_BYTES, out)
}

fn write_compacted_in_batches(
    quads: impl Iterator<Item = Result<Quad>>,
    stopped: &dyn Fn() -> bool,
    batch_bytes: usize,
    out: &mut dyn std::io::Write,
) -> Result<usize> {
    let (mut batch, mut size, mut n) = (Vec::<Quad>::new(), 0, 0);
    let mut graph: Option<GraphWriter> = None;
    for q in quads {
        let q = q?;
        if size >= batch_bytes && batch.last().is_some_and(|l| l.subject != q.subject) {
            let w = graph.get_or_insert_with(GraphWriter::default);
            compact_batch(&batch, stopped, batch_bytes, &mut |c, items| {
                w.write(&mut *out, c, items)
            })?;
            batch.clear();
            size = 0;
        }
        size += quad_len(&q);
        n += 1;
        batch.push(q);
    }
    match graph {
        None => {
            let text = compacted_in_slices(&batch, stopped, batch_bytes)?;
            out.write_all(text.as_bytes()).map_err(Error::Output)?;
            out.write_all(b"\n").map_err(Error::Output)?;
        }
        Some(mut w) => {
            compact_batch(&batch, stopped, batch_bytes, &mut |c, items| {
                w.write(&mut *out, c, items)
            })?;
            w.finish(out)?;
        }
    }
    Ok(n)
}

/// About the bytes `q` takes in N-Quads: the size of a batch.
fn quad_len(q: &Quad) -> usize {
    use oxigraph::model::{NamedOrBlankNode, Term};
    let subject = match &q.subject {
        NamedOrBlankNode::NamedNode(n) => n.as_str().len(),
        NamedOrBlankNode::BlankNode(b) => b.as_str().len(),
    };
    let object = match &q.object {
        Term::NamedNode(n) => n.as_str().len(),
        Term::BlankNode(b) => b.as_str().len(),
        Term::Literal(l) => l.value().len() + l.datatype().as_str().len(),
        #[allow(unreachable_patterns)]
        _ => 64,
    };
    subject + q.predicate.as_str().len() + object + 8
}

/// Compacts one batch of a streamed answer (see [`write_compacted`]): its
/// items to `sink`, in slices.
fn compact_batch(
    quads: &[Quad],
    stopped: &dyn Fn() -> bool,
    batch_bytes: usize,
    sink: &mut SliceSink<'_>,
) -> Result<()> {
    let mut doc: serde_json::Value = serde_json::from_slice(&expanded(quads)?).map_err(err)?;
    types_as_keyword(&mut doc);
    let items = match doc {
        serde_json::Value::Array(items) => items,
        one => vec![one],
    };
    if items.len() >= 2 {
        return compact_slices(items, stopped, batch_bytes, sink);
    }
    if stopped() {
        return Err(Error::Cancelled);
    }
    // One item comes back unwrapped, its context beside its members.
    let serde_json::Value::Object(mut one) = compact_value(&serde_json::Value::Array(items))?
    else {
        return Err(err("compaction did not give an object"));
    };
    let context = one.shift_remove("@context");
    sink(context, vec![serde_json::Value::Object(one)])
}

/// Prints a compacted document `{"@context": …, "@graph": [items]}` a few
/// items at a time, byte for byte as `serde_json::to_string_pretty` prints
/// it whole (JSON text has no raw newline inside a string, so indenting
/// each line of an item's own pretty text nests it).
#[derive(Default)]
struct GraphWriter {
    begun: bool,
    items: usize,
}

impl GraphWriter {
    fn write(
        &mut self,
        out: &mut dyn std::io::Write,
        context: Option<serde_json::Value>,
        items: Vec<serde_json::Value>,
    ) -> Result<()> {
        let mut text = String::new();
        if !self.begun {
            self.begun = true;
            text.push_str("{\n");
            if let Some(c) = context {
                text.push_str("  \"@context\": ");
                text.push_str(&indented(&c, 2)?);
                text.push_str(",\n");
            }
            text.push_str("  \"@graph\": [");
        }
        for item in items {
            text.push_str(if self.items == 0 { "\n    " } else { ",\n    " });
            text.push_str(&indented(&item, 4)?);
            self.items += 1;
        }
        out.write_all(text.as_bytes()).map_err(Error::Output)
    }

    fn finish(self, out: &mut dyn std::io::Write) -> Result<()> {
        let end: &[u8] = match (self.begun, self.items) {
            (false, _) => b"{\n  \"@graph\": []\n}\n",
            (true, 0) => b"]\n}\n",
            (true, _) => b"\n  ]\n}\n",
        };
        out.write_all(end).map_err(Error::Output)
    }
}

/// `v` pretty-printed as it is when nested `indent` spaces deep.
fn indented(v: &serde_json::Value, indent: usize) -> Result<String> {
    let text = serde_json::to_string_pretty(v).map_err(err)?;
    Ok(text.replace('\n', &format!("\n{}", " ".repeat(indent))))
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

    /// A streamed answer is the document compacted whole, byte for byte,
    /// however it is cut into batches: a subject's quads in one run or in
    /// several, one node or many, a batch of one subject.
    #[test]
    fn a_streamed_answer_is_the_whole_compacted() {
        for nodes in [0, 1, 2, 7, 300] {
            let mut q = quads(1, nodes);
            for interleaved in [false, true] {
                if interleaved {
                    // Each node's quads in three runs, apart.
                    q.sort_by_key(|x| x.predicate.as_str().to_string());
                }
                let expected = format!("{}\n", compacted(&q).unwrap());
                for batch in [1, 700, 5_000, BATCH_BYTES] {
                    let mut out = Vec::new();
                    let n = write_compacted_in_batches(
                        q.iter().cloned().map(Ok),
                        &|| false,
                        batch,
                        &mut out,
                    )
                    .unwrap();
                    assert_eq!(n, q.len());
                    assert_eq!(
                        String::from_utf8(out).unwrap(),
                        expected,
                        "{nodes} nodes (interleaved: {interleaved}), batches of {batch} B"
                    );
                }
            }
        }
    }

    #[test]
    fn a_stopped_query_stops_compacting() {
        let e = compacted_until(&quads(1, 50), &|| true).unwrap_err();
        assert!(matches!(e, Error::Cancelled), "{e}");
    }
}
