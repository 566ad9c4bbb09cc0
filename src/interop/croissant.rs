//! MLCommons Croissant 1.1: a checkpoint described as a dataset whose one
//! distribution is the checkpoint file itself, with record sets that read
//! questions, templates and traits out of it by JSONPath.
//!
//! mlcroissant (the reference reader) builds one table per record set from
//! the fields' JSONPaths, one column per distinct path, so every column must
//! have exactly one value per row. Each record set therefore extracts one
//! JSON object per row (`$.dataFeedElement[*]`, a rating) and each field
//! picks its value out of that object with a `transform` JSONPath, which
//! gives null where the member is missing instead of shifting the rows.
//! Values JSONPath cannot reach without filters (a property by name) are
//! given only when they sit at the same index in every question.

use crate::error::{Error, Result};
use crate::model::Checkpoint;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// The Croissant version written.
pub(crate) const CONFORMS_TO: &str = "http://mlcommons.org/croissant/1.1";

/// What to say about the checkpoint that it does not say itself.
#[derive(Clone, Debug)]
pub struct CroissantOptions {
    /// The licence: an SPDX identifier (made an spdx.org URL) or a URL.
    pub license: String,
    /// Where the checkpoint file is published (`contentUrl`), or its path
    /// relative to the Croissant file.
    pub content_url: String,
    /// The dataset's page (`url`), when known.
    pub url: Option<String>,
    /// A name for a checkpoint with none (e.g. the file's stem).
    pub fallback_name: String,
}

/// The `@context` mlcroissant 1.1 writes and expects (schema.org by
/// `https://`, as Karenina's own context).
fn context() -> Value {
    json!({
        "@language": "en", "@vocab": "https://schema.org/",
        "arrayShape": "cr:arrayShape", "citeAs": "cr:citeAs", "column": "cr:column",
        "conformsTo": "dct:conformsTo", "containedIn": "cr:containedIn",
        "cr": "http://mlcommons.org/croissant/", "rai": "http://mlcommons.org/croissant/RAI/",
        "data": {"@id": "cr:data", "@type": "@json"},
        "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
        "dct": "http://purl.org/dc/terms/", "description": {"@container": "@language"},
        "equivalentProperty": "cr:equivalentProperty",
        "examples": {"@id": "cr:examples", "@type": "@json"},
        "extract": "cr:extract", "field": "cr:field", "fileProperty": "cr:fileProperty",
        "fileObject": "cr:fileObject", "fileSet": "cr:fileSet", "format": "cr:format",
        "includes": "cr:includes", "isArray": "cr:isArray", "isLiveDataset": "cr:isLiveDataset",
        "jsonPath": "cr:jsonPath", "key": "cr:key", "md5": "cr:md5",
        "name": {"@container": "@language"}, "parentField": "cr:parentField",
        "path": "cr:path", "recordSet": "cr:recordSet", "references": "cr:references",
        "regex": "cr:regex", "repeated": "cr:repeated", "replace": "cr:replace",
        "samplingRate": "cr:samplingRate", "sc": "https://schema.org/",
        "separator": "cr:separator", "source": "cr:source", "subField": "cr:subField",
        "transform": "cr:transform"
    })
}

/// The `--license` value that says the licence is not known.
pub(crate) const UNKNOWN_LICENSE: &str = "unknown";

/// The `license` of the description: [`UNKNOWN_LICENSE`] (any case) becomes
/// an explicit note, a `sc:CreativeWork` named `unknown` that says so
/// (Croissant 1.1 requires `license` and allows a CreativeWork as its value);
/// anything else is [`license_url`].
pub(crate) fn license_value(license: &str) -> Result<Value> {
    if license.trim().eq_ignore_ascii_case(UNKNOWN_LICENSE) {
        return Ok(json!({
            "@type": "sc:CreativeWork",
            "name": UNKNOWN_LICENSE,
            "description": "The licence of this benchmark is not known: Karenina checkpoints carry none and none was given when this description was written. Ask the benchmark's creator before reuse.",
        }));
    }
    Ok(json!(license_url(license)?))
}

/// The licence as a URL: an SPDX identifier becomes its spdx.org page.
pub(crate) fn license_url(license: &str) -> Result<String> {
    let l = license.trim();
    if l.starts_with("http://") || l.starts_with("https://") {
        return Ok(l.to_string());
    }
    let spdx = !l.is_empty()
        && l.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'));
    if !spdx {
        return Err(Error::Usage(format!(
            "licence {license:?}: give an SPDX identifier (e.g. CC-BY-4.0), a URL or `unknown`"
        )));
    }
    Ok(format!("https://spdx.org/licenses/{l}.html"))
}

/// The Croissant description of `cp`, read from `bytes` (the checkpoint file).
pub fn describe(cp: &Checkpoint, bytes: &[u8], o: &CroissantOptions) -> Result<Value> {
    let raw: Value = serde_json::from_slice(bytes)
        .map_err(|e| Error::Usage(format!("the checkpoint is not plain JSON: {e}")))?;
    let items: Vec<&Value> = raw["dataFeedElement"]
        .as_array()
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let name = if cp.name.trim().is_empty() {
        o.fallback_name.clone()
    } else {
        cp.name.clone()
    };
    let n = cp.items.len();
    let description = cp.description.clone().filter(|d| !d.trim().is_empty());
    let mut d = Map::new();
    d.insert("@context".into(), context());
    d.insert("@type".into(), json!("sc:Dataset"));
    d.insert("conformsTo".into(), json!(CONFORMS_TO));
    d.insert("name".into(), json!(name));
    d.insert(
        "description".into(),
        json!(description.unwrap_or_else(|| format!(
            "Karenina benchmark checkpoint with {n} question{}.",
            if n == 1 { "" } else { "s" }
        ))),
    );
    d.insert("license".into(), license_value(&o.license)?);
    if let Some(u) = &o.url {
        d.insert("url".into(), json!(u));
    }
    if let Some(v) = cp.version.as_deref().filter(|v| !v.is_empty()) {
        d.insert("version".into(), json!(v));
    }
    if let Some(c) = &cp.creator {
        d.insert("creator".into(), creator(c));
    }
    for (k, v) in [
        ("dateCreated", &cp.date_created),
        ("dateModified", &cp.date_modified),
    ] {
        if !v.is_empty() {
            d.insert(k.into(), json!(v));
        }
    }
    let mut keywords: Vec<&String> = Vec::new();
    for k in cp
        .items
        .iter()
        .flat_map(|i| i.question.keywords.iter().flatten())
    {
        if !keywords.contains(&k) {
            keywords.push(k);
        }
    }
    if !keywords.is_empty() {
        d.insert("keywords".into(), json!(keywords));
    }
    let sets = record_sets(&raw, &items);
    // One FileObject per record set (all the same file): mlcroissant reads a
    // file once into one table for every field that uses it, so record sets
    // of different lengths cannot share one.
    let sha256 = hex(&Sha256::digest(bytes));
    let distribution: Vec<Value> = sets
        .iter()
        .map(|rs| {
            json!({
                "@type": "cr:FileObject",
                "@id": file_id(rs["@id"].as_str().unwrap_or_default()),
                "name": file_id(rs["@id"].as_str().unwrap_or_default()),
                "description": "The Karenina checkpoint (JSON-LD, read as JSON).",
                "contentUrl": o.content_url,
                "encodingFormat": "application/json",
                "sha256": sha256,
            })
        })
        .collect();
    d.insert("distribution".into(), Value::Array(distribution));
    d.insert("recordSet".into(), Value::Array(sets));
    Ok(Value::Object(d))
}

fn creator(c: &crate::model::Creator) -> Value {
    match c {
        crate::model::Creator::Name(n) => json!({"@type": "sc:Person", "name": n}),
        crate::model::Creator::Person(p) => {
            let mut v = json!({"@type": "sc:Person", "name": p.name});
            if let Some(u) = &p.url {
                v["url"] = json!(u);
            }
            if let Some(e) = &p.email {
                v["email"] = json!(e);
            }
            v
        }
    }
}

/// The FileObject a record set reads (`checkpoint` for the questions).
fn file_id(set: &str) -> String {
    match set {
        "questions" => "checkpoint".into(),
        s => format!("checkpoint-{s}"),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A field reading `transform` out of each row object extracted by `rows`.
fn field(set: &str, name: &str, ty: &str, rows: &str, transform: &str, repeated: bool) -> Value {
    let mut f = json!({
        "@type": "cr:Field",
        "@id": format!("{set}/{name}"),
        "name": name,
        "dataType": ty,
        "source": {
            "fileObject": {"@id": file_id(set)},
            "extract": {"jsonPath": rows},
            "transform": {"jsonPath": transform},
        },
    });
    if repeated {
        f["repeated"] = json!(true);
    }
    f
}

/// Whether the question's answer template has code (not blank), as
/// [`super::QuestionRow::has_template`]: JSONPath picks the code, then a
/// regex keeps its first non-blank character (`""` for blank code), which
/// mlcroissant casts to a boolean by Python truthiness.
fn has_template() -> Value {
    let mut f = field(
        "questions",
        "has_template",
        "sc:Boolean",
        ITEMS,
        "item.hasPart.text",
        false,
    );
    f["source"]["transform"] = json!([
        {"jsonPath": "item.hasPart.text"},
        {"regex": HAS_CODE},
    ]);
    f
}

/// A first non-blank character (group 1), else the empty group 2.
const HAS_CODE: &str = r"^\s*(?:(\S)|())";

fn record_set(id: &str, description: &str, fields: Vec<Value>) -> Value {
    json!({
        "@type": "cr:RecordSet",
        "@id": id,
        "name": id,
        "description": description,
        "field": fields,
    })
}

const ITEMS: &str = "$.dataFeedElement[*]";

fn record_sets(raw: &Value, items: &[&Value]) -> Vec<Value> {
    let q = "questions";
    let mut fields = vec![
        field(q, "id", "sc:Text", ITEMS, "'@id'", false),
        field(q, "question", "sc:Text", ITEMS, "item.text", false),
        field(
            q,
            "answer",
            "sc:Text",
            ITEMS,
            "item.acceptedAnswer.text",
            false,
        ),
    ];
    fields.push(has_template());
    if let Some(p) = keyword_path(items) {
        fields.push(field(q, "keywords", "sc:Text", ITEMS, p, true));
    }
    if let Some(i) = property_index(items, "finished", Value::is_boolean) {
        let p = format!("item.additionalProperty[{i}].value");
        fields.push(field(q, "finished", "sc:Boolean", ITEMS, &p, false));
    }
    if let Some(i) = property_index(items, "author", Value::is_string) {
        let p = format!("item.additionalProperty[{i}].value");
        fields.push(field(q, "author", "sc:Text", ITEMS, &p, false));
    }
    let mut sets = vec![record_set(
        q,
        "One record per question, in file order: its ID, text and raw expected answer.",
        fields,
    )];
    if !items.is_empty() {
        let t = "templates";
        sets.push(record_set(
            t,
            "The answer template (Python source) of each question.",
            vec![
                field(t, "question_id", "sc:Text", ITEMS, "'@id'", false),
                field(t, "name", "sc:Text", ITEMS, "item.hasPart.name", false),
                field(t, "code", "sc:Text", ITEMS, "item.hasPart.text", false),
            ],
        ));
    }
    if raw["rating"].as_array().is_some_and(|a| !a.is_empty()) {
        let t = "global_traits";
        let rows = "$.rating[*]";
        sets.push(record_set(
            t,
            "Rubric traits that apply to every question.",
            vec![
                field(t, "name", "sc:Text", rows, "name", false),
                field(t, "kind", "sc:Text", rows, "additionalType", false),
                field(t, "description", "sc:Text", rows, "description", false),
            ],
        ));
    }
    let rated: Vec<&&Value> = items
        .iter()
        .filter(|it| {
            it["item"]["rating"]
                .as_array()
                .is_some_and(|a| !a.is_empty())
        })
        .collect();
    if !rated.is_empty() {
        let t = "question_traits";
        let rows = "$.dataFeedElement[*].item.rating[*]";
        let mut fields = vec![];
        // The question ID is the rating's grand-grandparent's `@id`: one value
        // per rating only when every rated item has a string `@id`.
        if rated.iter().all(|it| it["@id"].is_string()) {
            let mut f = field(t, "question_id", "sc:Text", "", "", false);
            f["source"] = json!({
                "fileObject": {"@id": file_id(t)},
                "extract": {"jsonPath": format!("{rows}.`parent`.`parent`.`parent`.'@id'")},
            });
            fields.push(f);
        }
        fields.push(field(t, "name", "sc:Text", rows, "name", false));
        fields.push(field(t, "kind", "sc:Text", rows, "additionalType", false));
        fields.push(field(
            t,
            "description",
            "sc:Text",
            rows,
            "description",
            false,
        ));
        sets.push(record_set(
            t,
            "Rubric traits that apply to one question.",
            fields,
        ));
    }
    sets
}

/// Where the questions' keywords are: on the Question (current) or on the
/// DataFeedItem (2025-09 … 2026-03); `None` when both occur.
fn keyword_path(items: &[&Value]) -> Option<&'static str> {
    let nonempty = |v: &Value| v.as_array().is_some_and(|a| !a.is_empty());
    let on_q = items.iter().any(|it| nonempty(&it["item"]["keywords"]));
    let on_item = items.iter().any(|it| nonempty(&it["keywords"]));
    match (on_q, on_item) {
        (_, false) => Some("item.keywords"),
        (false, true) => Some("keywords"),
        (true, true) => None,
    }
}

/// The index of the property `name` when it is at the same index in every
/// question that has it, with a value `ok` accepts, and no question has
/// another property there.
fn property_index(items: &[&Value], name: &str, ok: fn(&Value) -> bool) -> Option<usize> {
    let mut index = None;
    for it in items {
        let props = it["item"]["additionalProperty"].as_array();
        let found: Vec<usize> = props
            .into_iter()
            .flatten()
            .enumerate()
            .filter(|(_, p)| p["name"] == name)
            .map(|(i, _)| i)
            .collect();
        match found.as_slice() {
            [] => {}
            [i] if index.is_none_or(|j| j == *i) => index = Some(*i),
            _ => return None,
        }
    }
    let i = index?;
    items
        .iter()
        .all(|it| match it["item"]["additionalProperty"].get(i) {
            None => true,
            Some(p) => p["name"] == name && ok(&p["value"]),
        })
        .then_some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn licences_are_spdx_pages_or_urls() {
        assert_eq!(
            license_url("CC-BY-4.0").unwrap(),
            "https://spdx.org/licenses/CC-BY-4.0.html"
        );
        assert_eq!(license_url("https://x.org/l").unwrap(), "https://x.org/l");
        assert!(license_url("my licence").is_err());
        assert!(license_url("").is_err());
    }

    #[test]
    fn an_unknown_licence_is_a_note_not_an_spdx_page() {
        for l in ["unknown", " Unknown "] {
            let v = license_value(l).unwrap();
            assert_eq!(v["@type"], "sc:CreativeWork");
            assert_eq!(v["name"], UNKNOWN_LICENSE);
        }
        assert_eq!(
            license_value("MIT").unwrap(),
            json!("https://spdx.org/licenses/MIT.html")
        );
    }

    #[test]
    fn a_property_is_given_only_where_its_index_is_the_same_everywhere() {
        let item = |props: Value| json!({"item": {"additionalProperty": props}});
        let f = |v: bool| json!({"name": "finished", "value": v});
        let a = json!({"name": "author", "value": "A"});
        let same = [
            item(json!([f(true), a.clone()])),
            item(json!([f(false)])),
            json!({}),
        ];
        let refs: Vec<&Value> = same.iter().collect();
        assert_eq!(
            property_index(&refs, "finished", Value::is_boolean),
            Some(0)
        );
        assert_eq!(property_index(&refs, "author", Value::is_string), Some(1));
        // `author` at 1 in one question, another property at 1 in the next:
        // reading index 1 would give that property's value.
        let clash = [
            item(json!([f(true), a.clone()])),
            item(json!([f(true), {"name": "sources", "value": "s"}])),
        ];
        let refs: Vec<&Value> = clash.iter().collect();
        assert_eq!(property_index(&refs, "author", Value::is_string), None);
        let moved = [item(json!([f(true)])), item(json!([a, f(true)]))];
        let refs: Vec<&Value> = moved.iter().collect();
        assert_eq!(property_index(&refs, "finished", Value::is_boolean), None);
    }

    #[test]
    fn keywords_are_read_from_one_place_or_not_at_all() {
        let q = json!({"item": {"keywords": ["a"]}});
        let i = json!({"keywords": ["b"], "item": {}});
        let none = json!({"item": {}});
        assert_eq!(keyword_path(&[&q, &none]), Some("item.keywords"));
        assert_eq!(keyword_path(&[&i, &none]), Some("keywords"));
        assert_eq!(keyword_path(&[&q, &i]), None);
    }
}
