//! Each error and warning code: produced by a minimal input, with its code, JSON
//! path and line asserted. Cases start from one valid checkpoint and change one
//! thing; the expected line is the line of a marker string in the input.

use karenina_ld::model::qid::question_id;
use karenina_ld::model::{analyze, ReadOptions};
use std::path::Path;

const CTX: &str = r#"{"@version": 1.1, "@vocab": "https://schema.org/", "karenina": "urn:karenina:vocab:", "dataFeedElement": {"@id": "dataFeedElement", "@container": "@set"}, "item": {"@id": "item", "@type": "@id"}, "acceptedAnswer": {"@id": "acceptedAnswer", "@type": "@id"}, "rating": {"@id": "contentRating", "@container": "@set"}, "additionalProperty": {"@id": "additionalProperty", "@container": "@set"}, "hasPart": {"@id": "hasPart", "@container": "@set"}, "keywords": {"@id": "keywords", "@container": "@set"}}"#;

const TEXT: &str = "What is 2 plus 2?";

/// A valid checkpoint; `GLOBAL`, `QRATINGS`, `QPROPS`, `ITEMEXTRA`, `ROOTEXTRA`
/// and `DSPROPS` are hooks for the cases.
fn base() -> String {
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

fn rating(name: &str, ty: &str, best: &str, worst: &str, props: &str) -> String {
    format!(
        r#"{{"@type": "Rating", "name": "{name}", "description": "d", "bestRating": {best}, "worstRating": {worst}, "additionalType": "{ty}", "additionalProperty": [{props}]}}"#
    )
}

fn pv(name: &str, value: &str) -> String {
    format!(r#"{{"@type": "PropertyValue", "name": "{name}", "value": {value}}}"#)
}

fn fill(
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

fn valid() -> String {
    fill("", "", &pv("finished", "true"), "", "", "")
}

fn line_of(src: &str, marker: &str) -> usize {
    let off = src
        .find(marker)
        .unwrap_or_else(|| panic!("marker {marker:?} not in input"));
    src[..off].matches('\n').count() + 1
}

/// Asserts that `src` yields `code` at `path`, on the line holding `marker`.
fn expect(src: &str, code: &str, path: &str, marker: &str) {
    expect_with(src, code, path, marker, ReadOptions::default())
}

fn expect_with(src: &str, code: &str, path: &str, marker: &str, opts: ReadOptions) {
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

#[test]
fn syntax_level_errors() {
    let v = valid();
    let a = analyze(Path::new("e.jsonld"), b"", ReadOptions::default());
    assert_eq!(a.report.diagnostics[0].code, "KLD-E001");
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(v.as_bytes());
    let a = analyze(Path::new("e.jsonld"), &bom, ReadOptions::default());
    assert_eq!(
        (
            a.report.diagnostics[0].code,
            a.report.diagnostics[0].location.unwrap().line
        ),
        ("KLD-E002", 1)
    );
    let bad_utf8 = v
        .replacen("\"Test\"", "\"Te\u{fffd}st\"", 1)
        .replace('\u{fffd}', "\u{1}");
    let mut bytes = bad_utf8.into_bytes();
    let pos = bytes.iter().position(|&b| b == 1).unwrap();
    bytes[pos] = 0xff;
    let a = analyze(Path::new("e.jsonld"), &bytes, ReadOptions::default());
    let d = &a.report.diagnostics[0];
    assert_eq!(
        (d.code, d.location.unwrap().line),
        ("KLD-E003", line_of(&v, "\"Test\""))
    );
    // Truncated: the path says where reading stopped.
    let cut = &v[..v.rfind("\"acceptedAnswer\"").unwrap() + 5];
    let a = analyze(
        Path::new("e.jsonld"),
        cut.as_bytes(),
        ReadOptions::default(),
    );
    let d = &a.report.diagnostics[0];
    assert_eq!(d.code, "KLD-E004");
    assert!(d.message.contains("truncated"));
    assert!(
        d.path.to_string().starts_with("/dataFeedElement/0/item"),
        "{}",
        d.path
    );
    let deep = format!("{{\"a\": {}1{}}}", "[".repeat(200), "]".repeat(200));
    let a = analyze(
        Path::new("e.jsonld"),
        deep.as_bytes(),
        ReadOptions::default(),
    );
    assert_eq!(a.report.diagnostics[0].code, "KLD-E005");
    let dup = v.replacen(
        "\"name\": \"Test\",",
        "\"name\": \"Test\",\n  \"name\": \"Again\",",
        1,
    );
    let a = analyze(
        Path::new("e.jsonld"),
        dup.as_bytes(),
        ReadOptions::default(),
    );
    let d = &a.report.diagnostics[0];
    assert_eq!(
        (d.code, d.location.unwrap().line),
        ("KLD-E006", line_of(&dup, "\"Again\""))
    );
    let big = v.replace("\"bestRating\"", "x").replacen(
        "\"rating\": []",
        "\"rating\": [], \"n\": 1e999",
        1,
    );
    let a = analyze(
        Path::new("e.jsonld"),
        big.as_bytes(),
        ReadOptions::default(),
    );
    assert_eq!(a.report.diagnostics[0].code, "KLD-E007");
    let nan = v.replacen("\"rating\": []", "\"rating\": NaN", 1);
    let a = analyze(
        Path::new("e.jsonld"),
        nan.as_bytes(),
        ReadOptions::default(),
    );
    let d = &a.report.diagnostics[0];
    assert_eq!(
        (d.code, d.location.unwrap().line),
        ("KLD-E008", line_of(&nan, "NaN"))
    );
    assert_eq!(d.path.to_string(), "/rating");
}

#[test]
fn model_errors() {
    let v = valid();
    let a = analyze(Path::new("e.jsonld"), b"[1, 2]", ReadOptions::default());
    assert_eq!(a.report.diagnostics[0].code, "KLD-E010");
    expect(
        &v.replacen("  \"name\": \"Test\",\n", "", 1),
        "KLD-E011",
        "/name",
        "{",
    );
    expect(
        &v.replacen("\"name\": \"Test\"", "\"name\": 7", 1),
        "KLD-E012",
        "/name",
        "\"name\": 7",
    );
    expect(
        &v.replacen("\"name\": \"Test\"", "\"name\": \"\"", 1),
        "KLD-E013",
        "/name",
        "\"name\": \"\"",
    );
    expect(
        &v.replace(
            "\"programmingLanguage\": \"Python\"",
            "\"programmingLanguage\": \"R\"",
        ),
        "KLD-E013",
        "/dataFeedElement/0/item/hasPart/programmingLanguage",
        "\"R\"",
    );
    expect(
        &v.replacen("\"@type\": \"Answer\"", "\"@type\": \"Reply\"", 1),
        "KLD-E013",
        "/dataFeedElement/0/item/acceptedAnswer/@type",
        "\"Reply\"",
    );
    expect(
        &v.replacen(
            &format!("\"@context\": {CTX}"),
            "\"@context\": \"https://schema.org\"",
            1,
        ),
        "KLD-E014",
        "/@context",
        "\"https://schema.org\"",
    );
    expect(
        &v.replacen("\"@type\": \"DataFeed\"", "\"@type\": \"Dataset\"", 1),
        "KLD-E015",
        "/@type",
        "\"Dataset\"",
    );
    let q = |ty: &str| {
        fill(
            "",
            &rating("r", ty, "1.0", "0.0", ""),
            &pv("finished", "true"),
            "",
            "",
            "",
        )
    };
    expect(
        &q("karenina:QuestionSpecificFancyTrait"),
        "KLD-E016",
        "/dataFeedElement/0/item/rating/0/additionalType",
        "FancyTrait",
    );
    expect(
        &q("QuestionSpecificManualRubricTrait"),
        "KLD-E017",
        "/dataFeedElement/0/item/rating/0/additionalType",
        "ManualRubricTrait",
    );
    let g = fill(
        &rating("r", "karenina:QuestionSpecificRegexTrait", "1.0", "0.0", ""),
        "",
        "",
        "",
        "",
        "",
    );
    expect(
        &g,
        "KLD-E018",
        "/rating/0/additionalType",
        "QuestionSpecificRegexTrait",
    );
    let scen = r#",
  "hasPart": [{"@type": "karenina:Scenario", "name": "s", "entryNode": "a", "nodes": {}, "edges": []}]"#;
    expect(
        &fill("", "", "", "", "", scen),
        "KLD-E019",
        "/hasPart",
        "\"hasPart\": [{\"@type\": \"karenina:Scenario\"",
    );
    let org = v.replacen(
        "\"name\": \"Test\",",
        "\"name\": \"Test\",\n  \"creator\": {\"@type\": \"Organization\", \"name\": \"ACME\"},",
        1,
    );
    expect(&org, "KLD-E021", "/creator/@type", "Organization");
    let no_type = fill(
        "",
        r#"{"@type": "Rating", "name": "r", "bestRating": 1, "worstRating": 0}"#,
        "",
        "",
        "",
        "",
    );
    expect(
        &no_type,
        "KLD-E011",
        "/dataFeedElement/0/item/rating/0/additionalType",
        "\"name\": \"r\"",
    );
    expect(
        &v.replacen("\"text\": \"4\"", "\"text\": 4", 1),
        "KLD-E012",
        "/dataFeedElement/0/item/acceptedAnswer/text",
        "\"text\": 4",
    );
}

#[test]
fn legacy_and_structure_warnings() {
    let v = valid();
    expect(
        &fill("", "", "", "", "", ",\n  \"globalRubric\": {}"),
        "KLD-W001",
        "/globalRubric",
        "\"globalRubric\"",
    );
    let legacy_ctx = v.replacen(
        &format!("\"@context\": {CTX}"),
        "\"@context\": {\"@vocab\": \"http://schema.org/\"}",
        1,
    );
    expect(&legacy_ctx, "KLD-W002", "/@context", "\"@context\"");
    let importing = v.replacen(
        &format!("\"@context\": {CTX}"),
        "\"@context\": {\"@import\": \"https://example.org/ctx.jsonld\", \"@vocab\": \"https://schema.org/\"}",
        1,
    );
    expect(&importing, "KLD-W029", "/@context", "\"@context\"");
    let unprefixed = fill(
        "",
        &rating(
            "r",
            "QuestionSpecificRegexTrait",
            "1.0",
            "0.0",
            &pv("pattern", "\"x\""),
        ),
        "",
        "",
        "",
        "",
    );
    expect(
        &unprefixed,
        "KLD-W003",
        "/dataFeedElement/0/item/rating/0/additionalType",
        "\"QuestionSpecificRegexTrait\"",
    );
    expect(
        &fill("", "", "", "\n      \"keywords\": [\"a\"],", "", ""),
        "KLD-W004",
        "/dataFeedElement/0/keywords",
        "\"keywords\": [\"a\"]",
    );
    let both = fill("", "", "", "\n      \"keywords\": [\"a\"],", "", "").replacen(
        "\"additionalProperty\": []\n      }",
        "\"additionalProperty\": [],\n        \"keywords\": [\"b\"]\n      }",
        1,
    );
    expect(
        &both,
        "KLD-W005",
        "/dataFeedElement/0/keywords",
        "\"keywords\": [\"a\"]",
    );
    let aliased = v.replacen(
        "\"@id\": \"urn:uuid:karenina-checkpoint-1\"",
        "\"id\": \"urn:uuid:karenina-checkpoint-1\"",
        1,
    );
    expect(
        &aliased,
        "KLD-W006",
        "/id",
        "\"id\": \"urn:uuid:karenina-checkpoint-1\"",
    );
    let lax = fill(
        "",
        &rating(
            "r",
            "karenina:QuestionSpecificRubricTrait",
            "\"5\"",
            "1.0",
            "",
        ),
        "",
        "",
        "",
        "",
    );
    expect(
        &lax,
        "KLD-W007",
        "/dataFeedElement/0/item/rating/0/bestRating",
        "\"5\"",
    );
    let dataset = expect_upgrade();
    assert!(dataset);
}

fn expect_upgrade() -> bool {
    let v = valid()
        .replacen("\"@type\": \"DataFeed\"", "\"@type\": \"Dataset\"", 1)
        .replacen("\"dataFeedElement\": [", "\"hasPart\": [", 1);
    expect_with(
        &v,
        "KLD-W030",
        "/@type",
        "\"Dataset\"",
        ReadOptions { upgrade: true },
    );
    true
}

#[test]
fn trait_warnings() {
    let q = |r: String| fill("", &r, "", "", "", "");
    let qp = "/dataFeedElement/0/item/rating/0";
    let hib = pv("higher_is_better", "true");
    expect(
        &q(rating(
            "g",
            "karenina:GlobalRegexTrait",
            "1.0",
            "0.0",
            &pv("pattern", "\"x\""),
        )),
        "KLD-W010",
        &format!("{qp}/additionalType"),
        "\"karenina:GlobalRegexTrait\"",
    );
    let dyn_q = rating(
        "d",
        "karenina:QuestionSpecificDynamicRubricTrait",
        "1.0",
        "0.0",
        &pv("dynamic_trait_type", "\"llm\""),
    );
    expect(
        &q(dyn_q),
        "KLD-W011",
        &format!("{qp}/additionalType"),
        "QuestionSpecificDynamicRubricTrait",
    );
    let zero_one = rating(
        "s",
        "karenina:QuestionSpecificRubricTrait",
        "1.0",
        "0.0",
        &format!("{hib}, {}, {}", pv("min_score", "0"), pv("max_score", "1")),
    );
    expect(&q(zero_one), "KLD-W012", qp, "\"name\": \"s\"");
    let legacy_range = rating(
        "s",
        "karenina:QuestionSpecificRubricTrait",
        "10.0",
        "0.0",
        &hib,
    );
    expect(&q(legacy_range), "KLD-W013", qp, "\"name\": \"s\"");
    let template = rating(
        "tmpl",
        "karenina:QuestionSpecificLLMRubricTrait",
        "0.0",
        "0.0",
        &format!(
            "{}, {}, {}",
            pv("min_score", "0"),
            pv("max_score", "10"),
            pv("kind", r#"{"type": "template", "schema": {}}"#)
        ),
    );
    expect(&q(template), "KLD-W014", qp, "\"name\": \"tmpl\"");
    let dyn_untyped = rating("d", "karenina:GlobalDynamicRubricTrait", "1.0", "0.0", &hib);
    expect(
        &fill(&dyn_untyped, "", "", "", "", ""),
        "KLD-W015",
        "/rating/0",
        "\"name\": \"d\"",
    );
    let dyn_bad = rating(
        "d",
        "karenina:GlobalDynamicRubricTrait",
        "1.0",
        "0.0",
        &pv("dynamic_trait_type", "\"weird\""),
    );
    expect(
        &fill(&dyn_bad, "", "", "", "", ""),
        "KLD-W015",
        "/rating/0/additionalProperty/0/value",
        "\"weird\"",
    );
    let b64 = rating(
        "c",
        "karenina:QuestionSpecificCallableTrait",
        "1.0",
        "0.0",
        &pv("callable_code", "\"abc\""),
    );
    expect(
        &q(b64),
        "KLD-W016",
        &format!("{qp}/additionalProperty/0/value"),
        "\"abc\"",
    );
    let metric = rating(
        "m",
        "karenina:QuestionSpecificMetricRubricTrait",
        "1.0",
        "0.0",
        &format!(
            "{}, {}",
            pv("metrics", r#"["accuracy"]"#),
            pv("tp_instructions", r#"["x"]"#)
        ),
    );
    expect(&q(metric), "KLD-W017", qp, "\"name\": \"m\"");
    let agentic = r#"{"@type": "Rating", "name": "a", "bestRating": 1.0, "worstRating": 0.0, "additionalType": "karenina:QuestionSpecificAgenticRubricTrait"}"#;
    expect(&q(agentic.to_string()), "KLD-W018", qp, "\"name\": \"a\"");
    let regex = rating(
        "r",
        "karenina:QuestionSpecificRegexTrait",
        "1.0",
        "0.0",
        &pv("pattern", r#""([a-z""#),
    );
    expect(
        &q(regex),
        "KLD-W019",
        &format!("{qp}/additionalProperty/0/value"),
        "([a-z",
    );
    let strings = rating(
        "m",
        "karenina:QuestionSpecificMetricRubricTrait",
        "1.0",
        "0.0",
        &format!(
            "{}, {}",
            pv("metrics", r#""[\"precision\"]""#),
            pv("tp_instructions", r#"["x"]"#)
        ),
    );
    expect(
        &q(strings),
        "KLD-W025",
        &format!("{qp}/additionalProperty/0/value"),
        "[\\\"precision",
    );
    let dup = rating(
        "r",
        "karenina:QuestionSpecificRegexTrait",
        "1.0",
        "0.0",
        &format!("{}, {}", pv("pattern", "\"x\""), pv("pattern", "\"y\"")),
    );
    expect(
        &q(dup),
        "KLD-W026",
        &format!("{qp}/additionalProperty/1"),
        "\"y\"",
    );
}

#[test]
fn question_and_dataset_warnings() {
    let v = valid();
    let first_item_start = v.find("    {\n      \"@type\": \"DataFeedItem\"").unwrap();
    let item_end = v.find("  ],\n  \"additionalProperty\"").unwrap();
    let item = &v[first_item_start..item_end];
    let twice = v.replacen(
        item,
        &format!("{},\n{}", item.trim_end(), item.trim_end()),
        1,
    );
    let a = analyze(
        Path::new("d.jsonld"),
        twice.as_bytes(),
        ReadOptions::default(),
    );
    let d = a
        .report
        .diagnostics
        .iter()
        .find(|d| d.code == "KLD-W020")
        .expect("duplicate ID");
    assert_eq!(d.path.to_string(), "/dataFeedElement/1/@id");
    assert!(d.location.unwrap().line > line_of(&twice, "DataFeedItem"));
    let stale = v.replacen(&question_id(TEXT), &question_id("What is 3 plus 3?"), 1);
    expect(
        &stale,
        "KLD-W021",
        "/dataFeedElement/0/@id",
        "urn:uuid:question-",
    );
    let no_id = v.replacen(&format!("\"@id\": \"{}\",", question_id(TEXT)), "", 1);
    expect(
        &no_id,
        "KLD-W022",
        "/dataFeedElement/0",
        "    {\n      \"@type\": \"DataFeedItem\"",
    );
    let custom = fill("", "", &pv("custom_my_custom_x", "1"), "", "", "");
    expect(
        &custom,
        "KLD-W023",
        "/dataFeedElement/0/item/additionalProperty/0/name",
        "custom_my_custom_x",
    );
    let gui = fill("", "", "", "", &pv("global_rubric_traits", "\"[]\""), "");
    expect(
        &gui,
        "KLD-W024",
        "/additionalProperty/0",
        "global_rubric_traits",
    );
    let finished = fill("", "", &pv("finished", "\"yes\""), "", "", "");
    expect(
        &finished,
        "KLD-W027",
        "/dataFeedElement/0/item/additionalProperty/0/value",
        "\"yes\"",
    );
    let legacy_gui = fill(
        "",
        "",
        "",
        "",
        &pv("global_regex_rubric_traits", "\"[]\""),
        "",
    );
    expect(
        &legacy_gui,
        "KLD-W028",
        "/additionalProperty/0",
        "global_regex_rubric_traits",
    );
}
