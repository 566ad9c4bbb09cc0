//! Warning codes: Karenina loads the file but mishandles something.

use super::*;
use karenina_ld::model::qid::{md5_hex, question_id};
use karenina_ld::model::{analyze, ReadOptions};
use std::path::Path;

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
    // Problems Karenina's trait models raise on: warnings on a global trait
    // (read only when verification reads the rubric), errors on a
    // question-specific one (`trait_models_judge_like_karenina` below).
    let g = |r: String| fill(&r, "", "", "", "", "");
    let gp = "/rating/0";
    let b64 = rating(
        "c",
        "karenina:GlobalCallableTrait",
        "1.0",
        "0.0",
        &pv("callable_code", "\"abc\""),
    );
    expect(
        &g(b64),
        "KLD-W016",
        &format!("{gp}/additionalProperty/0/value"),
        "\"abc\"",
    );
    let metric = rating(
        "m",
        "karenina:GlobalMetricRubricTrait",
        "1.0",
        "0.0",
        &format!(
            "{}, {}",
            pv("metrics", r#"["accuracy"]"#),
            pv("tp_instructions", r#"["x"]"#)
        ),
    );
    expect(
        &g(metric),
        "KLD-W017",
        &format!("{gp}/additionalProperty/0/value"),
        "accuracy",
    );
    let agentic = r#"{"@type": "Rating", "name": "a", "bestRating": 1.0, "worstRating": 0.0, "additionalType": "karenina:GlobalAgenticRubricTrait"}"#;
    expect(&g(agentic.to_string()), "KLD-W018", gp, "\"name\": \"a\"");
    let regex = rating(
        "r",
        "karenina:GlobalRegexTrait",
        "1.0",
        "0.0",
        &pv("pattern", r#""([a-z""#),
    );
    expect(
        &g(regex),
        "KLD-W019",
        &format!("{gp}/additionalProperty/0/value"),
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

/// The issue's cases: `min_score: "one"`, `max_score: 5.5`,
/// `higher_is_better: "maybe"`, a literal trait with `classes` as a list;
/// Karenina's load fails on them in a question (KLD-E022), its rubric
/// reading on a global trait (KLD-W031 / W018), and lax values pass.
#[test]
fn trait_models_judge_like_karenina() {
    let cases = [
        (
            "karenina:QuestionSpecificRubricTrait",
            pv("min_score", "\"one\""),
            "KLD-W031",
        ),
        (
            "karenina:QuestionSpecificRubricTrait",
            pv("max_score", "5.5"),
            "KLD-W031",
        ),
        (
            "karenina:QuestionSpecificRegexTrait",
            format!(
                "{}, {}",
                pv("pattern", "\"x\""),
                pv("higher_is_better", "\"maybe\"")
            ),
            "KLD-W031",
        ),
        (
            "karenina:QuestionSpecificLLMRubricTrait",
            format!(
                "{}, {}",
                pv("kind", "\"literal\""),
                pv("classes", r#"["a", "b"]"#)
            ),
            "KLD-W018",
        ),
        (
            "karenina:QuestionSpecificRegexTrait",
            pv("pattern", r#""\\p{L}+""#),
            "KLD-W019",
        ),
    ];
    for (ty, props, global_code) in cases {
        let r = rating("t", ty, "5.0", "1.0", &props);
        let marker = props
            .rsplit("\"value\": ")
            .next()
            .unwrap()
            .trim_end_matches('}');
        let q = fill("", &r, "", "", "", "");
        let a = analyze(Path::new("q.jsonld"), q.as_bytes(), ReadOptions::default());
        let d = a
            .report
            .diagnostics
            .iter()
            .find(|d| d.code == "KLD-E022")
            .unwrap_or_else(|| panic!("{props}: {:#?}", a.report.diagnostics));
        assert!(d.message.contains("Benchmark.load"), "{}", d.message);
        assert!(a.checkpoint.is_none());
        assert_eq!(
            d.location.unwrap().line,
            line_of(&q, marker),
            "{}",
            d.message
        );
        let global = fill(&r.replace("QuestionSpecific", "Global"), "", "", "", "", "");
        let a = analyze(
            Path::new("g.jsonld"),
            global.as_bytes(),
            ReadOptions::default(),
        );
        let d = a
            .report
            .diagnostics
            .iter()
            .find(|d| d.code == global_code)
            .unwrap_or_else(|| panic!("{props}: {:#?}", a.report.diagnostics));
        assert!(d.message.contains("get_global_rubric"), "{}", d.message);
        assert!(!a.report.has_errors(), "{props}");
    }
    // Pydantic's lax coercions: "3" and 3.0 are ints, "true" a bool.
    let lax = rating(
        "t",
        "karenina:QuestionSpecificRubricTrait",
        "5.0",
        "1.0",
        &format!(
            "{}, {}, {}",
            pv("min_score", "\"2\""),
            pv("max_score", "4.0"),
            pv("higher_is_better", "\"true\"")
        ),
    );
    let a = analyze(
        Path::new("l.jsonld"),
        fill("", &lax, "", "", "", "").as_bytes(),
        ReadOptions::default(),
    );
    assert!(
        a.report.diagnostics.is_empty(),
        "{:#?}",
        a.report.diagnostics
    );
    // `finished` is a pydantic bool at load: "maybe" fails, "yes" is coerced.
    expect(
        &fill("", "", &pv("finished", "\"maybe\""), "", "", ""),
        "KLD-E022",
        "/dataFeedElement/0/item/additionalProperty/0/value",
        "\"maybe\"",
    );
    // A question trait repeating a global trait's name and type: merging fails later.
    let g = rating(
        "same",
        "karenina:GlobalRegexTrait",
        "1.0",
        "0.0",
        &pv("pattern", "\"x\""),
    );
    let q = rating(
        "same",
        "karenina:QuestionSpecificRegexTrait",
        "1.0",
        "0.0",
        &pv("pattern", "\"y\""),
    );
    expect(
        &fill(&g, &q, "", "", "", ""),
        "KLD-W031",
        "/dataFeedElement/0/item/rating",
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
    // The ID is answered in the old ID's form: a bare 32-hex ID (Karenina's
    // `Question.id`) gets the MD5 of the text, a readable one the URN.
    let w021 = |src: &str| {
        let a = analyze(
            Path::new("s.jsonld"),
            src.as_bytes(),
            ReadOptions::default(),
        );
        let d = a
            .report
            .diagnostics
            .iter()
            .find(|d| d.code == "KLD-W021")
            .expect("W021");
        d.message.clone()
    };
    let m = w021(&v.replacen(&question_id(TEXT), &md5_hex("What is 3 plus 3?"), 1));
    assert!(
        m.contains(&format!("would write {:?}", md5_hex(TEXT))),
        "{m}"
    );
    assert!(!m.contains("urn:uuid:question-"), "{m}");
    let m = w021(&stale);
    assert!(
        m.contains(&format!("would write {:?}", question_id(TEXT))),
        "{m}"
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
