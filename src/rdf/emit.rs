//! The emitter interface the lossless mapping walks the model with, and the
//! emitter that builds the JSON-LD document.
//!
//! Why a module of its own: the mapping walk ([`super::lossless`]) and the
//! structured metadata reading ([`super::metadata`]) both emit through it, and
//! neither should reach into the other for it.

use crate::json::{Json, Object};

/// A member name in the lossless document: a term of the canonical context
/// (`name`, `rating`…) or a compact `karenina:` IRI.
pub type Key = &'static str;

/// Receives the lossless reading of a checkpoint, node by node.
pub trait Emit {
    /// A node under construction.
    type Node;
    /// Starts a node with an optional `@type` (a term or compact IRI), named
    /// by `iri` or blank.
    fn node_iri(&mut self, ty: Option<&str>, iri: Option<&str>) -> Self::Node;
    /// Starts a blank node with an optional `@type`.
    fn node(&mut self, ty: Option<&str>) -> Self::Node {
        self.node_iri(ty, None)
    }
    /// A string value.
    fn string(&mut self, n: &mut Self::Node, key: Key, v: &str);
    /// A typed literal.
    fn typed(&mut self, n: &mut Self::Node, key: Key, lexical: &str, datatype: &str);
    /// A boolean.
    fn boolean(&mut self, n: &mut Self::Node, key: Key, v: bool);
    /// Attaches a finished child node.
    fn child(&mut self, n: &mut Self::Node, key: Key, child: Self::Node);
}

/// Builds the JSON-LD document (members in emission order; repeated members
/// become arrays).
pub struct DocEmitter;

impl DocEmitter {
    fn push(n: &mut Object, key: Key, v: Json) {
        match n.0.iter_mut().find(|(k, _)| k == key) {
            Some((_, Json::Array(a))) => a.push(v),
            Some((_, old)) => {
                let first = std::mem::take(old);
                *old = Json::Array(vec![first, v]);
            }
            None => n.push(key, v),
        }
    }
}

impl Emit for DocEmitter {
    type Node = Object;
    fn node_iri(&mut self, ty: Option<&str>, iri: Option<&str>) -> Object {
        let mut o = Object::new();
        if let Some(i) = iri {
            o.push("@id", Json::String(i.into()));
        }
        if let Some(t) = ty {
            o.push("@type", Json::String(t.into()));
        }
        o
    }
    fn string(&mut self, n: &mut Object, key: Key, v: &str) {
        Self::push(n, key, Json::String(v.into()));
    }
    fn typed(&mut self, n: &mut Object, key: Key, lexical: &str, datatype: &str) {
        let mut o = Object::new();
        o.push("@value", Json::String(lexical.into()));
        o.push("@type", Json::String(datatype.into()));
        Self::push(n, key, Json::Object(o));
    }
    fn boolean(&mut self, n: &mut Object, key: Key, v: bool) {
        Self::push(n, key, Json::Bool(v));
    }
    fn child(&mut self, n: &mut Object, key: Key, child: Object) {
        Self::push(n, key, Json::Object(child));
    }
}
