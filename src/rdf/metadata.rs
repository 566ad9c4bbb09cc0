//! Structured question metadata: the searchable RDF of what Karenina keeps as
//! JSON text.
//!
//! Karenina writes a question's `author` and `sources` as JSON *strings*
//! (`"{\"name\": \"Ada\"}"`, `json.dumps` of a dict) inside
//! `additionalProperty`, so the lossless reading keeps them as opaque string
//! literals: a SPARQL query for an author's name finds nothing. This module
//! adds, beside the lossless triples (which stay exactly as they are, so the
//! way back is unchanged), the schema.org reading of that metadata, emitted
//! through the same [`Emit`] walk (so the JSON-LD document, and therefore
//! every JSON-LD processor, gives the same triples as the direct emitter):
//! - `author` (a JSON string of an object, a native object, a list of them, or
//!   a plain name) → `schema:author`, a `schema:Person` (or
//!   `schema:Organization` when its `@type` says so) with its string members
//!   among the schema.org terms in [`PERSON_TERMS`];
//! - `sources` (a JSON string of a list, or a native list) → `schema:citation`,
//!   one `schema:CreativeWork` per object (string members among
//!   [`WORK_TERMS`]), or a text citation per string;
//! - `custom_<key>` → `schema:propertyID "<key>"` on that `PropertyValue`, the
//!   key Karenina's `custom_metadata` uses (Python's `replace("custom_", "")`
//!   removes every occurrence).
//!
//! - `custom_adele_classification` (Karenina's ADeLe difficulty ratings,
//!   `integrations/adele`: `{"scores": {dimension: level}, "labels": …}`) →
//!   one `karenina:adele` node per dimension rated 0–5, a
//!   `karenina:AdeleRating` with `karenina:adeleDimension`,
//!   `karenina:adeleLevel` (`xsd:integer`) and `karenina:adeleLabel`, so a
//!   query can group by difficulty (`-1`, Karenina's classification error,
//!   and anything else but an integer 0–5, is no level).
//!
//! The way back ([`super::extract`]) reads none of these: it rebuilds the
//! checkpoint from the lossless triples alone, which is why the round trip
//! stays byte for byte. `docs/mapping.md` documents the mapping.

use super::emit::{Emit, Key};
use crate::json::{self, Json, Object};
use crate::model::Property;

/// String members of an author object mapped to schema.org (Karenina's own
/// `author` carries `name`, `email` and `affiliation`).
pub const PERSON_TERMS: [Key; 8] = [
    "name",
    "email",
    "url",
    "affiliation",
    "identifier",
    "givenName",
    "familyName",
    "jobTitle",
];

/// String members of a source object mapped to schema.org.
pub const WORK_TERMS: [Key; 7] = [
    "name",
    "url",
    "identifier",
    "description",
    "datePublished",
    "author",
    "publisher",
];

/// Emits the structured reading of a question's `author` and `sources`
/// properties onto the question node `q`.
pub fn question<E: Emit>(e: &mut E, q: &mut E::Node, props: &[Property]) {
    for p in props {
        let Some(v) = &p.value else { continue };
        match p.name.as_str() {
            "author" => authors(e, q, &decoded(v)),
            "sources" => sources(e, q, &decoded(v)),
            n if custom_key(n).as_deref() == Some(ADELE_KEY) => adele(e, q, &decoded(v)),
            _ => {}
        }
    }
}

/// The `custom_metadata` key Karenina's ADeLe classifier's ratings are kept
/// under (`QuestionClassificationResult.to_checkpoint_metadata`).
pub const ADELE_KEY: &str = "adele_classification";

/// The ADeLe levels of a classification (`scores`: dimension → level; 0–5
/// only), in its order, with the label Karenina recorded for each.
pub(crate) fn adele_levels(v: &Json) -> Vec<(&str, i64, Option<&str>)> {
    let Some(o) = v.as_object() else {
        return Vec::new();
    };
    let Some(Json::Object(scores)) = o.get("scores") else {
        return Vec::new();
    };
    let labels = o.get("labels").and_then(Json::as_object);
    scores
        .0
        .iter()
        .filter_map(|(dim, level)| {
            let n = level.as_number()?;
            let level: i64 = n.lexical().parse().ok()?;
            (0..=5).contains(&level).then(|| {
                let label = labels.and_then(|l| l.get(dim)).and_then(Json::as_str);
                (dim.as_str(), level, label)
            })
        })
        .collect()
}

fn adele<E: Emit>(e: &mut E, q: &mut E::Node, v: &Json) {
    for (dim, level, label) in adele_levels(v) {
        let mut n = e.node(Some("karenina:AdeleRating"));
        e.string(&mut n, "karenina:adeleDimension", dim);
        e.typed(
            &mut n,
            "karenina:adeleLevel",
            &level.to_string(),
            crate::vocab::XSD_INTEGER,
        );
        if let Some(l) = label {
            e.string(&mut n, "karenina:adeleLabel", l);
        }
        e.child(q, "karenina:adele", n);
    }
}

/// The key Karenina's `custom_metadata` gives a `custom_…` property, if it is one.
pub(crate) fn custom_key(name: &str) -> Option<String> {
    name.starts_with("custom_")
        .then(|| name.replace("custom_", ""))
}

/// Adds `schema:propertyID` to a custom property's node.
pub fn custom<E: Emit>(e: &mut E, n: &mut E::Node, p: &Property) {
    if let Some(k) = custom_key(&p.name) {
        e.string(n, "propertyID", &k);
    }
}

/// What Karenina's reader makes of the value (UC:358-383): `json.loads` of a
/// string that parses, else the value itself. JSON nested deeper than kld's
/// reader goes ([`json::MAX_DEPTH`]) is still JSON to `json.loads` (a nested
/// list or object, never a name): it reads as nothing rather than as a
/// person named with the whole text.
fn decoded(v: &Json) -> Json {
    match v {
        Json::String(s) => match json::parse(s.as_bytes()) {
            Ok(parsed) => parsed,
            Err(f) if f.code == "KLD-E005" => Json::Null,
            Err(_) => v.clone(),
        },
        _ => v.clone(),
    }
}

fn authors<E: Emit>(e: &mut E, q: &mut E::Node, v: &Json) {
    match v {
        Json::Array(a) => a.iter().for_each(|x| author(e, q, x)),
        _ => author(e, q, v),
    }
}

fn author<E: Emit>(e: &mut E, q: &mut E::Node, v: &Json) {
    match v {
        Json::String(name) if !name.is_empty() => {
            let mut n = e.node(Some("Person"));
            e.string(&mut n, "name", name);
            e.child(q, "author", n);
        }
        Json::Object(o) => {
            let ty = match o.get("@type").and_then(Json::as_str) {
                Some("Organization") => "Organization",
                _ => "Person",
            };
            if let Some(n) = node(e, ty, o, &PERSON_TERMS) {
                e.child(q, "author", n);
            }
        }
        _ => {}
    }
}

fn sources<E: Emit>(e: &mut E, q: &mut E::Node, v: &Json) {
    let Json::Array(a) = v else { return };
    for x in a {
        match x {
            Json::String(s) if !s.is_empty() => e.string(q, "citation", s),
            Json::Object(o) => {
                if let Some(n) = node(e, "CreativeWork", o, &WORK_TERMS) {
                    e.child(q, "citation", n);
                }
            }
            _ => {}
        }
    }
}

/// A node of type `ty` with the string members of `o` named in `terms`, in
/// `terms` order; `None` when there are none.
fn node<E: Emit>(e: &mut E, ty: &str, o: &Object, terms: &[Key]) -> Option<E::Node> {
    let members: Vec<(Key, &str)> = terms
        .iter()
        .filter_map(|t| o.get(t).and_then(Json::as_str).map(|s| (*t, s)))
        .collect();
    if members.is_empty() {
        return None;
    }
    let mut n = e.node(Some(ty));
    for (t, s) in members {
        e.string(&mut n, t, s);
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_keys_follow_pythons_replace() {
        assert_eq!(
            custom_key("custom_difficulty").as_deref(),
            Some("difficulty")
        );
        assert_eq!(custom_key("custom_my_custom_x").as_deref(), Some("my_x"));
        assert_eq!(custom_key("author"), None);
        assert_eq!(custom_key("xcustom_a"), None);
    }

    fn prop(name: &str, json: &str) -> Property {
        Property {
            name: name.into(),
            value: Some(json::parse(json.as_bytes()).unwrap()),
            extra: Vec::new(),
        }
    }

    /// The JSON-LD members the structured reading adds to a question.
    fn added(props: &[Property]) -> String {
        let mut q = Object::new();
        question(&mut super::super::emit::DocEmitter, &mut q, props);
        Json::Object(q).to_compact()
    }

    #[test]
    fn authors_and_sources_in_every_form_karenina_writes() {
        // Karenina's json.dumps of a dict, with members schema.org lacks.
        let a = added(&[prop(
            "author",
            r#""{\"name\": \"Ada\", \"email\": \"a@x\", \"@id\": \"urn:x\", \"age\": 3}""#,
        )]);
        assert_eq!(
            a,
            r#"{"author":{"@type":"Person","name":"Ada","email":"a@x"}}"#
        );
        // Native (set_question_author), an organization, a list, a plain name.
        let a = added(&[prop(
            "author",
            r#"[{"@type":"Organization","name":"EBI"},"Jane Doe",{"age":3},7]"#,
        )]);
        assert_eq!(
            a,
            r#"{"author":[{"@type":"Organization","name":"EBI"},{"@type":"Person","name":"Jane Doe"}]}"#
        );
        let a = added(&[prop(
            "sources",
            r#""[{\"@type\": \"CreativeWork\", \"name\": \"Atlas\", \"url\": \"http://x\"}, \"PMID 1\"]""#,
        )]);
        assert_eq!(
            a,
            r#"{"citation":[{"@type":"CreativeWork","name":"Atlas","url":"http://x"},"PMID 1"]}"#
        );
        // Nothing for null, empty or other metadata.
        let a = added(&[
            prop("author", "null"),
            prop("author", r#""""#),
            prop("sources", r#""not json""#),
            prop("few_shot_examples", r#""[{\"question\": \"q\"}]""#),
            prop("custom_author", r#"{"name":"X"}"#),
        ]);
        assert_eq!(a, "{}");
    }

    #[test]
    fn a_json_string_is_decoded_as_karenina_does() {
        let s = Json::String("{\"name\": \"Ada\"}".into());
        assert_eq!(
            decoded(&s)
                .as_object()
                .and_then(|o| o.get("name"))
                .and_then(Json::as_str),
            Some("Ada")
        );
        let plain = Json::String("Jane Doe".into());
        assert_eq!(decoded(&plain), plain);
    }

    #[test]
    fn json_nested_deeper_than_kld_reads_is_no_author() {
        // json.loads reads this as lists around an object: no author, and
        // never a person named "[[[[…".
        for depth in [json::MAX_DEPTH + 1, 5000] {
            let deep = format!(
                "{}{{\"name\": \"Deep\"}}{}",
                "[".repeat(depth),
                "]".repeat(depth)
            );
            let value = Json::String(deep).to_compact();
            assert_eq!(added(&[prop("author", &value)]), "{}", "{depth}");
            assert_eq!(added(&[prop("sources", &value)]), "{}", "{depth}");
        }
        // Within the depth, the same reading as Karenina's: a list of lists
        // holds no author either.
        let shallow = Json::String("[[{\"name\": \"Ada\"}]]".into()).to_compact();
        assert_eq!(added(&[prop("author", &shallow)]), "{}");
    }
}
