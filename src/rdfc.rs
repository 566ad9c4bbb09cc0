//! RDFC-1.0 canonicalization and dataset hashes, by sophia_c14n. (Not to
//! be confused with [`crate::save`], Karenina's own canonical file
//! bytes: this module canonicalizes RDF graphs, that one JSON files.)
//!
//! Why sophia: RDFC-1.0 can take exponential time on datasets whose blank
//! nodes cannot be told apart (a clique of 12 blank nodes in a checkpoint's
//! custom metadata keeps oxrdf's implementation busy for minutes).
//! sophia_c14n bounds the work (a recursion depth factor and a permutation
//! limit) and refuses such a "toxic" dataset at once, which we report as a
//! clear error. It is also faster and leaner on real checkpoints. oxrdf's
//! implementation stays as the cross-check in tests.
//!
//! Quads are handed to sophia as borrowed `SimpleTerm`s (no copy of the text).

use crate::error::{Error, Result};
use oxigraph::model::{GraphName, NamedOrBlankNode, Quad, Term};
use sha2::{Digest, Sha256};
use sophia_api::term::{BnodeId, IriRef, LanguageTag, SimpleTerm};
use sophia_api::MownStr;
use sophia_c14n::C14nError;
use std::collections::HashSet;

type SQuad<'a> = ([SimpleTerm<'a>; 3], Option<SimpleTerm<'a>>);

fn iri(s: &str) -> SimpleTerm<'_> {
    SimpleTerm::Iri(IriRef::new_unchecked(MownStr::from(s)))
}

fn bnode(s: &str) -> SimpleTerm<'_> {
    SimpleTerm::BlankNode(BnodeId::new_unchecked(MownStr::from(s)))
}

fn subject(s: &NamedOrBlankNode) -> SimpleTerm<'_> {
    match s {
        NamedOrBlankNode::NamedNode(n) => iri(n.as_str()),
        NamedOrBlankNode::BlankNode(b) => bnode(b.as_str()),
    }
}

fn object(t: &Term) -> SimpleTerm<'_> {
    match t {
        Term::NamedNode(n) => iri(n.as_str()),
        Term::BlankNode(b) => bnode(b.as_str()),
        Term::Literal(l) => match l.language() {
            Some(lang) => SimpleTerm::LiteralLanguage(
                MownStr::from(l.value()),
                LanguageTag::new_unchecked(MownStr::from(lang)),
                None,
            ),
            None => SimpleTerm::LiteralDatatype(
                MownStr::from(l.value()),
                IriRef::new_unchecked(MownStr::from(l.datatype().as_str())),
            ),
        },
    }
}

fn quad(q: &Quad) -> SQuad<'_> {
    let g = match &q.graph_name {
        GraphName::DefaultGraph => None,
        GraphName::NamedNode(n) => Some(iri(n.as_str())),
        GraphName::BlankNode(b) => Some(bnode(b.as_str())),
    };
    (
        [
            subject(&q.subject),
            iri(q.predicate.as_str()),
            object(&q.object),
        ],
        g,
    )
}

/// The RDFC-1.0 canonical N-Quads (SHA-256) of `quads`: sorted lines, blank
/// nodes labelled `_:c14n0…`. Equal outputs mean isomorphic datasets. A
/// dataset too tangled to canonicalize within sophia_c14n's safeguards is an
/// error, not hours of work.
pub fn canonical_nquads(quads: &[Quad]) -> Result<String> {
    let set: HashSet<SQuad<'_>> = quads.iter().map(quad).collect();
    let mut out = Vec::new();
    sophia_c14n::rdfc10::normalize(&set, &mut out).map_err(|e| match e {
        C14nError::ToxicGraph(m) => Error::TooManyPermutations(m.to_string()),
        other => Error::Canonicalization(other.to_string()),
    })?;
    String::from_utf8(out).map_err(|e| Error::Canonicalization(e.to_string()))
}

/// The SHA-256 (hex) of the canonical N-Quads of `quads`.
pub fn hash(quads: &[Quad]) -> Result<String> {
    Ok(format!(
        "{:x}",
        Sha256::digest(canonical_nquads(quads)?.as_bytes())
    ))
}

/// A checkpoint's hash as `kld hash` prints it: the RDFC-1.0 SHA-256 of its
/// lossless graph in the default graph (so the file's location does not
/// matter): the same for any file that reads as the same benchmark.
pub fn hash_checkpoint(cp: &crate::model::Checkpoint) -> Result<String> {
    let quads = crate::rdf::lossless_quads(
        cp,
        &oxigraph::model::GraphName::DefaultGraph,
        crate::rdf::Processor::Direct,
    )?;
    hash(&quads)
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxigraph::model::{BlankNode, Literal, NamedNode};

    #[test]
    fn equals_oxrdf_and_refuses_a_clique_quickly() {
        let p = NamedNode::new("urn:p").unwrap();
        let a = BlankNode::default();
        let b = BlankNode::default();
        let quads = vec![
            Quad::new(a.clone(), p.clone(), b.clone(), GraphName::DefaultGraph),
            Quad::new(
                b.clone(),
                p.clone(),
                Literal::new_language_tagged_literal_unchecked("x", "en"),
                NamedNode::new("urn:g").unwrap(),
            ),
            Quad::new(a, p.clone(), Literal::from(1.5), GraphName::DefaultGraph),
        ];
        assert_eq!(
            canonical_nquads(&quads).unwrap(),
            crate::rdf::isomorphism_form(quads.clone())
        );
        // 12 blank nodes, each linked to every other: indistinguishable.
        let nodes: Vec<BlankNode> = (0..12).map(|_| BlankNode::default()).collect();
        let mut clique = Vec::new();
        for x in &nodes {
            for y in &nodes {
                if x != y {
                    clique.push(Quad::new(
                        x.clone(),
                        p.clone(),
                        y.clone(),
                        GraphName::DefaultGraph,
                    ));
                }
            }
        }
        let t = std::time::Instant::now();
        let e = canonical_nquads(&clique).unwrap_err();
        assert!(e.to_string().contains("refused"), "{e}");
        assert!(t.elapsed() < std::time::Duration::from_secs(10));
    }
}
