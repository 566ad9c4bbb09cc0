//! Each error and warning code: produced by a minimal input, with its code, JSON
//! path and line asserted. Cases start from one valid checkpoint and change one
//! thing; the expected line is the line of a marker string in the input.

mod errors;
mod warnings;

use karenina_ld::model::qid::question_id;
use karenina_ld::model::{analyze, ReadOptions};
use std::path::Path;

pub const CTX: &str = r#"{"@version": 1.1, "@vocab": "https://schema.org/", "karenina": "urn:karenina:vocab:", "dataFeedElement": {"@id": "dataFeedElement", "@container": "@set"}, "item": {"@id": "item", "@type": "@id"}, "acceptedAnswer": {"@id": "acceptedAnswer", "@type": "@id"}, "rating": {"@id": "contentRating", "@container": "@set"}, "additionalProperty": {"@id": "additionalProperty", "@container": "@set"}, "hasPart": {"@id": "hasPart", "@container": "@set"}, "keywords": {"@id": "keywords", "@container": "@set"}}"#;

pub const TEXT: &str = "What is 2 plus 2?";

/// A valid checkpoint; `GLOBAL`, `QRATINGS`, `QPROPS`, `ITEMEXTRA`, `ROOTEXTRA`
/// and `DSPROPS` are hooks for the cases.
pub fn base() -> String {
    let id = question_id(TEXT);
    format!(
        r#"{{
  "@context": {CTX},
  "@type": "DataFeed",
  "@id": "urn:uuid:karenina-checkpoint-1",
  "name": "Test",
  "dateCreated": "2026-01-01T00:00:00",
  "dateModified": "2026-01-01T00:00:00",
  "rating": [GLOBAL],
  "dataFeedElement": [
    {{
      "@type": "DataFeedItem",
      "@id": "{id}",
      "dateCreated": "2026-01-01T00:00:00",
      "dateModified": "2026-01-01T00:00:00",ITEMEXTRA
      "item": {{
        "@type": "Question",
        "text": "{TEXT}",
        "acceptedAnswer": {{"@type": "Answer", "text": "4"}},
        "hasPart": {{"@type": "SoftwareSourceCode", "name": "t", "text": "class Answer: pass", "programmingLanguage": "Python"}},
        "rating": [QRATINGS],
        "additionalProperty": [QPROPS]
      }}
    }}
  ],
  "additionalProperty": [DSPROPS]ROOTEXTRA
}}"#
    )
}

pub fn rating(name: &str, ty: &str, best: &str, worst: &str, props: &str) -> String {
    format!(
        r#"{{"@type": "Rating", "name": "{name}", "description": "d", "bestRating": {best}, "worstRating": {worst}, "additionalType": "{ty}", "additionalProperty": [{props}]}}"#
    )
}

pub fn pv(name: &str, value: &str) -> String {
    format!(r#"{{"@type": "PropertyValue", "name": "{name}", "value": {value}}}"#)
}

pub fn fill(
    global: &str,
    qratings: &str,
    qprops: &str,
    item_extra: &str,
    ds: &str,
    root_extra: &str,
) -> String {
    base()
        .replace("GLOBAL", global)
        .replace("QRATINGS", qratings)
        .replace("QPROPS", qprops)
        .replace("ITEMEXTRA", item_extra)
        .replace("DSPROPS", ds)
        .replace("ROOTEXTRA", root_extra)
}

pub fn valid() -> String {
    fill("", "", &pv("finished", "true"), "", "", "")
}

pub fn line_of(src: &str, marker: &str) -> usize {
    let off = src
        .find(marker)
        .unwrap_or_else(|| panic!("marker {marker:?} not in input"));
    src[..off].matches('\n').count() + 1
}

/// Asserts that `src` yields `code` at `path`, on the line holding `marker`.
pub fn expect(src: &str, code: &str, path: &str, marker: &str) {
    expect_with(src, code, path, marker, ReadOptions::default())
}

pub fn expect_with(src: &str, code: &str, path: &str, marker: &str, opts: ReadOptions) {
    let a = analyze(Path::new("case.jsonld"), src.as_bytes(), opts);
    let d = a
        .report
        .diagnostics
        .iter()
        .find(|d| d.code == code)
        .unwrap_or_else(|| panic!("expected {code}, got: {:#?}", a.report.diagnostics));
    assert_eq!(d.path.to_string(), path, "{code}: {}", d.message);
    let loc = d.location.unwrap_or_else(|| panic!("{code} not located"));
    assert_eq!(
        loc.line,
        line_of(src, marker),
        "{code} line ({})",
        d.message
    );
    assert!(!d.message.is_empty());
    assert_eq!(code.starts_with("KLD-E"), d.is_error(), "{code} severity");
    if d.is_error() {
        assert!(
            a.checkpoint.is_none(),
            "{code}: an error must stop the load"
        );
    } else {
        assert!(
            a.checkpoint.is_some(),
            "{code}: a warning must not stop the load"
        );
    }
}

#[test]
fn the_base_case_is_clean() {
    let a = analyze(
        Path::new("ok.jsonld"),
        valid().as_bytes(),
        ReadOptions::default(),
    );
    assert!(
        a.report.diagnostics.is_empty(),
        "{:#?}",
        a.report.diagnostics
    );
}
