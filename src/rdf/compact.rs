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
    use json_ld::syntax::{context::Context, Parse, TryFromJson};
    use json_ld::{JsonLdProcessor, RemoteContextReference, RemoteDocument};
    let mut doc: serde_json::Value = serde_json::from_slice(&expanded(quads)?).map_err(err)?;
    types_as_keyword(&mut doc);
    let text = doc.to_string();
    let (value, _) = json_ld::syntax::Value::parse_str(&text).map_err(err)?;
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
    // Pretty-print through serde_json (insertion order and number text kept).
    let v: serde_json::Value = serde_json::from_str(&out.to_string()).map_err(err)?;
    serde_json::to_string_pretty(&v).map_err(err)
}
