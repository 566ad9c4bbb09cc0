//! IRIs of the vocabularies karenina-ld reads and writes.
//!
//! schema.org terms come from Karenina's canonical context (`@vocab`
//! `https://schema.org/`); the few terms the lossless RDF mapping adds live in
//! the `karenina:` namespace (`urn:karenina:vocab:`) and are documented in the
//! README.

/// `https://schema.org/`
pub const SCHEMA: &str = "https://schema.org/";
/// `urn:karenina:vocab:` (the `karenina:` prefix of the canonical context)
pub const KARENINA: &str = "urn:karenina:vocab:";
/// `rdf:type`
pub const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
/// `rdf:JSON`: JSON literals (free-form values, kept byte-exact).
pub const RDF_JSON: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON";
/// `xsd:string`
pub const XSD_STRING: &str = "http://www.w3.org/2001/XMLSchema#string";
/// `xsd:integer`
pub const XSD_INTEGER: &str = "http://www.w3.org/2001/XMLSchema#integer";
/// `xsd:double`
pub const XSD_DOUBLE: &str = "http://www.w3.org/2001/XMLSchema#double";
/// `xsd:boolean`
pub const XSD_BOOLEAN: &str = "http://www.w3.org/2001/XMLSchema#boolean";
/// `xsd:dateTime`
pub const XSD_DATETIME: &str = "http://www.w3.org/2001/XMLSchema#dateTime";

/// Terms the lossless mapping adds (local names in the `karenina:` namespace).
pub mod k {
    /// The `@id` a node had in the file, as a string (any text Karenina writes).
    pub const ID: &str = "id";
    /// 0-based position of a node in the array (or object) it came from.
    pub const POSITION: &str = "position";
    /// The key of a scenario node in the scenario's `nodes` object.
    pub const KEY: &str = "key";
    /// Links a scenario to its nodes.
    pub const NODE: &str = "node";
    /// Members Karenina does not know, as one JSON object literal, in file order.
    pub const EXTRA: &str = "extra";
    /// The name of a list member that is present but empty (`"rating": []`).
    pub const EMPTY_LIST: &str = "emptyList";
    /// A question's keywords as a JSON array literal (order and duplicates kept).
    pub const KEYWORD_LIST: &str = "keywordList";
    /// Provenance: the file a graph was loaded from.
    pub const SOURCE: &str = "source";
    /// Provenance: SHA-256 of the file's bytes.
    pub const SHA256: &str = "sha256";
    /// Provenance: when the graph was loaded (xsd:dateTime).
    pub const LOADED_AT: &str = "loadedAt";
    /// Provenance: the class of graph descriptions.
    pub const CHECKPOINT_GRAPH: &str = "CheckpointGraph";
}

/// `urn:karenina:vocab:<local>`
pub fn karenina(local: &str) -> String {
    format!("{KARENINA}{local}")
}

/// `https://schema.org/<local>`
pub fn schema(local: &str) -> String {
    format!("{SCHEMA}{local}")
}
