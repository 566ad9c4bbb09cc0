//! Checkpoint ↔ RDF: the lossless mapping, the plain JSON-LD reading, and the
//! way back from quads.
//!
//! The lossless reading is defined as the expansion of a JSON-LD document by a
//! real JSON-LD processor: the `json-ld` crate (the reference, full JSON-LD 1.1)
//! or Oxigraph's JSON-LD parser. Both run at 19-35 MB/s, so `load`/`query`
//! default to [`Processor::Direct`], which emits the same quads from the same
//! mapping walk; tests assert all three are isomorphic for every corpus file.
//! Nothing here reads files, touches the network or sees the store.
//!
//! Beside it, [`verification`] maps Karenina's verification results (the
//! rows [`crate::results`] reads) into quads: the results vocabulary.

pub(crate) mod compact;
pub(crate) mod emit;
pub(crate) mod identity;
pub(crate) mod lossless;
pub(crate) mod metadata;
pub(crate) mod to_checkpoint;
pub mod verification;

use crate::error::{Error, Result};
use crate::json::Json;
use crate::model::Checkpoint;
use oxigraph::io::{JsonLdProfileSet, RdfFormat, RdfParser};
use oxigraph::model::{GraphName, Quad};
use std::path::Path;

/// Which JSON-LD processor turns a document into quads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Processor {
    /// Quads emitted straight from the model, isomorphic to the processors'
    /// output (tested); the only way to meet the load-time target.
    #[default]
    Direct,
    /// Oxigraph's streaming JSON-LD parser.
    Oxigraph,
    /// The `json-ld` crate (reference implementation).
    JsonLdCrate,
}

/// The quads of the lossless reading of `cp`, in `graph`.
pub fn lossless_quads(
    cp: &Checkpoint,
    graph: &GraphName,
    processor: Processor,
) -> Result<Vec<Quad>> {
    if processor == Processor::Direct {
        return Ok(lossless::direct_quads(cp, graph));
    }
    let doc = lossless::document(cp);
    let quads = expand(Path::new("<lossless>"), &doc, None, processor)?;
    Ok(quads.into_iter().map(|q| in_graph(q, graph)).collect())
}

fn in_graph(q: Quad, graph: &GraphName) -> Quad {
    Quad::new(q.subject, q.predicate, q.object, graph.clone())
}

/// The plain reading: what any JSON-LD 1.1 processor produces from the file as
/// written (its own `@context`), with `base` (default: the file's `file://` URL)
/// for relative IRIs.
pub fn plain_quads(
    file: &Path,
    bytes: &[u8],
    base: Option<&str>,
    processor: Processor,
) -> Result<Vec<Quad>> {
    let base = match base {
        Some(b) => b.to_string(),
        None => file_url(&crate::fsutil::canonical_input(file).unwrap_or(file.to_path_buf()))?,
    };
    jsonld_to_quads(file, bytes, Some(&base), processor)
}

/// `file://` URL of a path (made absolute).
pub fn file_url(file: &Path) -> Result<String> {
    let abs = std::path::absolute(file).map_err(|e| Error::io(file, e))?;
    url::Url::from_file_path(&abs)
        .map(|u| u.to_string())
        .map_err(|_| {
            Error::Usage(format!(
                "{}: cannot make a file:// URL of this path",
                file.display()
            ))
        })
}

/// Refuses any context that would need loading (a string, or `@import`).
fn check_offline(file: &Path, doc: &Json) -> Result<()> {
    fn walk(file: &Path, v: &Json, depth: usize) -> Result<()> {
        if depth > 64 {
            return Ok(());
        }
        match v {
            Json::Object(o) => {
                for (k, x) in o.iter() {
                    if k == "@context" || k == "@import" {
                        refs(file, x)?;
                    }
                    walk(file, x, depth + 1)?;
                }
            }
            Json::Array(a) => {
                for x in a {
                    walk(file, x, depth + 1)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
    fn refs(file: &Path, ctx: &Json) -> Result<()> {
        match ctx {
            Json::String(s) => Err(Error::RemoteContext {
                path: file.to_path_buf(),
                iri: s.clone(),
            }),
            Json::Array(a) => a.iter().try_for_each(|c| refs(file, c)),
            _ => Ok(()),
        }
    }
    walk(file, doc, 0)
}

/// Expands a JSON-LD document and returns its quads (default graph as written).
pub fn jsonld_to_quads(
    file: &Path,
    bytes: &[u8],
    base: Option<&str>,
    processor: Processor,
) -> Result<Vec<Quad>> {
    let parsed = crate::json::parse(bytes).map_err(|e| Error::JsonLd {
        path: file.to_path_buf(),
        message: e.message,
    })?;
    check_offline(file, &parsed)?;
    expand(file, &parsed, base, processor)
}

/// Expands a parsed document (already checked to need no remote context).
fn expand(file: &Path, doc: &Json, base: Option<&str>, processor: Processor) -> Result<Vec<Quad>> {
    match processor {
        Processor::Oxigraph | Processor::Direct => {
            let bytes = doc.to_compact();
            let mut parser = RdfParser::from_format(RdfFormat::JsonLd {
                profile: JsonLdProfileSet::empty(),
            });
            if let Some(b) = base {
                parser = parser
                    .with_base_iri(b)
                    .map_err(|e| Error::Usage(format!("bad base IRI {b}: {e}")))?;
            }
            parser
                .for_slice(bytes.as_bytes())
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|e| Error::JsonLd {
                    path: file.to_path_buf(),
                    message: e.to_string(),
                })
        }
        Processor::JsonLdCrate => reference_quads(file, doc, base),
    }
}

/// The json-ld crate's expansion + toRdf, read back into Oxigraph quads through
/// N-Quads text.
fn reference_quads(file: &Path, doc: &Json, base: Option<&str>) -> Result<Vec<Quad>> {
    use json_ld::syntax::Parse;
    use json_ld::JsonLdProcessor;
    use rdf_types::RdfDisplay;
    let err = |m: String| Error::JsonLd {
        path: file.to_path_buf(),
        message: m,
    };
    let text = doc.to_compact();
    let (value, _) = json_ld::syntax::Value::parse_str(&text).map_err(|e| err(e.to_string()))?;
    let base_iri = match base {
        Some(b) => {
            Some(iref::IriBuf::new(b.to_string()).map_err(|e| err(format!("bad base IRI: {e}")))?)
        }
        None => None,
    };
    let input = json_ld::RemoteDocument::new(base_iri, None, value);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| err(e.to_string()))?;
    let mut generator = rdf_types::generator::Blank::new();
    let loader = json_ld::NoLoader;
    let mut rdf = runtime
        .block_on(input.to_rdf(&mut generator, &loader))
        .map_err(|e| err(e.to_string()))?;
    let mut nq = String::new();
    for q in rdf.cloned_quads() {
        nq.push_str(&q.rdf_display().to_string());
        nq.push_str(" .\n");
    }
    RdfParser::from_format(RdfFormat::NQuads)
        .for_slice(nq.as_bytes())
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| err(format!("json-ld crate produced unreadable N-Quads: {e}")))
}

/// Rebuilds a checkpoint from the quads of its (lossless) graph.
pub fn checkpoint_from_quads(quads: impl IntoIterator<Item = Quad>) -> Result<Checkpoint> {
    let quads: Vec<Quad> = quads.into_iter().collect();
    let graph = quads
        .first()
        .map(|q| q.graph_name.to_string())
        .unwrap_or_default();
    to_checkpoint::checkpoint(&to_checkpoint::GraphIndex::new(quads))
        .map_err(|reason| Error::NotACheckpointGraph { graph, reason })
}

/// A comparison form of a dataset: RDFC-1.0 by oxrdf (blank nodes
/// relabelled deterministically, SHA-256), as sorted N-Quads lines. Two
/// datasets are isomorphic exactly when these are equal. It is unbounded on
/// tangled blank nodes, so the published hashes and `export --canonical` use
/// [`crate::rdfc`] (sophia_c14n, bounded) instead; tests check both agree.
pub fn isomorphism_form(quads: impl IntoIterator<Item = Quad>) -> String {
    use oxrdf::dataset::{CanonicalizationAlgorithm, CanonicalizationHashAlgorithm};
    let mut ds: oxrdf::Dataset = quads.into_iter().collect();
    ds.canonicalize(CanonicalizationAlgorithm::Rdfc10 {
        hash_algorithm: CanonicalizationHashAlgorithm::Sha256,
    });
    let mut lines: Vec<String> = ds.iter().map(|q| format!("{q} .\n")).collect();
    lines.sort();
    lines.concat()
}

/// True when two sets of quads are the same dataset up to blank node labels.
pub fn isomorphic(a: &[Quad], b: &[Quad]) -> bool {
    isomorphism_form(a.iter().cloned()) == isomorphism_form(b.iter().cloned())
}
