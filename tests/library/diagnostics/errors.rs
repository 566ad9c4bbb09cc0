//! Error codes: the file does not load.

use super::*;
use karenina_ld::model::{analyze, ReadOptions};
use std::path::Path;

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
