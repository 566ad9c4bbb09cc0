//! IRIs of the vocabularies karenina-ld reads and writes.
//!
//! schema.org terms come from Karenina's canonical context (`@vocab`
//! `https://schema.org/`); the terms the lossless RDF mapping, the results
//! mapping and provenance add live in the `karenina:` namespace
//! (`urn:karenina:vocab:`), documented in `docs/mapping.md` and
//! `docs/results.md`. Where PROV-O has the term (a workspace capture's
//! activity and entities, a repair's derivation and revisions), `prov:` is
//! used, and `karenina:` only for what PROV has none for. RDF and XSD terms
//! come from `oxrdf::vocab`. Every module builds its IRIs here ([`term`],
//! [`karenina`], `schema`, `prov`).

use oxigraph::model::vocab::{rdf, xsd};
use oxigraph::model::NamedNode;

/// `https://schema.org/`
pub(crate) const SCHEMA: &str = "https://schema.org/";
/// `urn:karenina:vocab:` (the `karenina:` prefix of the canonical context)
pub(crate) const KARENINA: &str = "urn:karenina:vocab:";
/// `http://www.w3.org/ns/prov#` (PROV-O): what a result generated, what an
/// export was derived from, which results a repair replaced.
pub(crate) const PROV: &str = "http://www.w3.org/ns/prov#";
/// The `rdf:` namespace.
pub(crate) const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
/// The `xsd:` namespace.
pub(crate) const XSD: &str = "http://www.w3.org/2001/XMLSchema#";
/// `rdf:type`
pub const RDF_TYPE: &str = rdf::TYPE.as_str();
/// `rdf:JSON`: JSON literals (free-form values, kept byte-exact).
pub const RDF_JSON: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON";
/// `xsd:string` (only the tests name it).
#[cfg(test)]
pub(crate) const XSD_STRING: &str = xsd::STRING.as_str();
/// `xsd:integer`
pub const XSD_INTEGER: &str = xsd::INTEGER.as_str();
/// `xsd:decimal`
pub const XSD_DECIMAL: &str = xsd::DECIMAL.as_str();
/// `xsd:double`
pub const XSD_DOUBLE: &str = xsd::DOUBLE.as_str();
/// `xsd:boolean`
pub(crate) const XSD_BOOLEAN: &str = xsd::BOOLEAN.as_str();
/// `xsd:dateTime`
pub const XSD_DATETIME: &str = xsd::DATE_TIME.as_str();

/// Terms the lossless mapping adds (local names in the `karenina:` namespace).
pub mod k {
    /// The `@id` a node had in the file, as a string (any text Karenina writes).
    pub(crate) const ID: &str = "id";
    /// 0-based position of a node in the array (or object) it came from.
    pub(crate) const POSITION: &str = "position";
    /// The key of a scenario node in the scenario's `nodes` object.
    pub(crate) const KEY: &str = "key";
    /// Links a scenario to its nodes.
    pub(crate) const NODE: &str = "node";
    /// Members Karenina does not know, as one JSON object literal, in file order.
    pub(crate) const EXTRA: &str = "extra";
    /// The name of a list member that is present but empty (`"rating": []`).
    pub(crate) const EMPTY_LIST: &str = "emptyList";
    /// A question's keywords as a JSON array literal (order and duplicates kept).
    pub(crate) const KEYWORD_LIST: &str = "keywordList";
    /// Provenance: the file a graph was loaded from.
    pub const SOURCE: &str = "source";
    /// Provenance: SHA-256 of the file's bytes.
    pub const SHA256: &str = "sha256";
    /// Provenance: when the graph was loaded (xsd:dateTime).
    pub const LOADED_AT: &str = "loadedAt";
    /// Provenance: the class of graph descriptions.
    pub(crate) const CHECKPOINT_GRAPH: &str = "CheckpointGraph";
}

/// `urn:karenina:vocab:<local>`
pub fn karenina(local: &str) -> String {
    format!("{KARENINA}{local}")
}

/// `https://schema.org/<local>`
pub(crate) fn schema(local: &str) -> String {
    format!("{SCHEMA}{local}")
}

/// `prov:<local>` as a named node.
pub(crate) fn prov(local: &str) -> NamedNode {
    NamedNode::new_unchecked(format!("{PROV}{local}"))
}

/// `karenina:<local>` as a named node.
pub fn term(local: &str) -> NamedNode {
    NamedNode::new_unchecked(karenina(local))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_match_oxrdf() {
        assert!(XSD_STRING.starts_with(XSD) && RDF_JSON.starts_with(RDF));
        assert_eq!(term("trait").as_str(), "urn:karenina:vocab:trait");
    }
}
