//! The JSON-LD contexts karenina-ld knows, embedded from `context/`.
//!
//! Karenina writes its canonical `@context` inline on every save and never looks
//! at the one it reads; over its history a dozen variants were written (the
//! variants are in `context/`). We embed all of them so files can be recognised, and so that nothing
//! ever needs the network: a context we do not hold is refused, never fetched.

use crate::json::{self, Json, Object};
use std::sync::OnceLock;

/// The canonical context file, as committed (`{"@context": {...}}`).
pub(crate) const CANONICAL_FILE: &str = include_str!("../context/karenina.jsonld");

/// Legacy context variants: (name, file text).
pub(crate) const LEGACY_FILES: &[(&str, &str)] = &[
    (
        "python-2025-08-dataset",
        include_str!("../context/legacy/python-2025-08-dataset.jsonld"),
    ),
    (
        "python-2025-08-28-datafeed",
        include_str!("../context/legacy/python-2025-08-28-datafeed.jsonld"),
    ),
    (
        "python-2025-09-keywords",
        include_str!("../context/legacy/python-2025-09-keywords.jsonld"),
    ),
    (
        "python-2026-03-04",
        include_str!("../context/legacy/python-2026-03-04.jsonld"),
    ),
    (
        "gui-2025-07-22",
        include_str!("../context/legacy/gui-2025-07-22.jsonld"),
    ),
    (
        "gui-2025-08-28",
        include_str!("../context/legacy/gui-2025-08-28.jsonld"),
    ),
    (
        "gui-2025-12",
        include_str!("../context/legacy/gui-2025-12.jsonld"),
    ),
    (
        "fixture-2026-01-minimal",
        include_str!("../context/legacy/fixture-2026-01-minimal.jsonld"),
    ),
    (
        "fixture-2026-01-multi-question",
        include_str!("../context/legacy/fixture-2026-01-multi-question.jsonld"),
    ),
    (
        "fixture-2026-01-with-results",
        include_str!("../context/legacy/fixture-2026-01-with-results.jsonld"),
    ),
];

fn inner(file: &str) -> Object {
    let j = json::parse(file.as_bytes()).expect("embedded context is valid JSON");
    match j {
        Json::Object(mut o) => match o.remove("@context") {
            Some(Json::Object(c)) => c,
            _ => panic!("embedded context file lacks an @context object"),
        },
        _ => panic!("embedded context file is not an object"),
    }
}

/// The canonical `@context` object Karenina writes (key order as written).
pub fn canonical() -> &'static Object {
    static C: OnceLock<Object> = OnceLock::new();
    C.get_or_init(|| inner(CANONICAL_FILE))
}

fn legacy() -> &'static [(&'static str, Object)] {
    static L: OnceLock<Vec<(&'static str, Object)>> = OnceLock::new();
    L.get_or_init(|| LEGACY_FILES.iter().map(|(n, f)| (*n, inner(f))).collect())
}

/// What a checkpoint's `@context` is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ContextKind {
    /// Exactly the canonical context (any key order).
    Canonical,
    /// A known historical variant (name as in `context/legacy/`).
    Legacy(&'static str),
    /// Something else: still replaced by the canonical context, as Karenina does.
    Unknown,
}

/// Order-insensitive equality of two JSON values.
fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Object(x), Json::Object(y)) => same_obj(x, y),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn same_obj(x: &Object, y: &Object) -> bool {
    x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
}

/// Recognises a context object.
pub(crate) fn classify(ctx: &Object) -> ContextKind {
    if same_obj(ctx, canonical()) {
        return ContextKind::Canonical;
    }
    legacy()
        .iter()
        .find(|(_, c)| same_obj(ctx, c))
        .map(|(n, _)| ContextKind::Legacy(n))
        .unwrap_or(ContextKind::Unknown)
}

/// Remote references inside a context object (`@import`, nested string contexts).
pub(crate) fn remote_references(ctx: &Object) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(Json::String(s)) = ctx.get("@import") {
        out.push(s.clone());
    }
    for (_, v) in ctx.iter() {
        if let Json::Object(def) = v {
            if let Some(Json::String(s)) = def.get("@context") {
                out.push(s.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_has_contentrating_remap() {
        let c = canonical();
        let rating = c.get("rating").unwrap().as_object().unwrap();
        assert_eq!(rating.get("@id").unwrap().as_str(), Some("contentRating"));
        assert_eq!(classify(c), ContextKind::Canonical);
    }

    #[test]
    fn every_legacy_variant_is_recognised_and_distinct() {
        for (name, file) in LEGACY_FILES {
            assert_eq!(classify(&inner(file)), ContextKind::Legacy(name));
        }
        let mut o = canonical().clone();
        o.push("extra", Json::Null);
        assert_eq!(classify(&o), ContextKind::Unknown);
    }
}
