//! The merge under siege (issue 38): merges Karenina cannot run become
//! conflicts naming the cause, conflicts are labelled for what they are, and
//! 20,000 questions reordered on both sides merge (the time is measured in
//! `benches/merge.rs`; here, the result).

use karenina_ld::merge::{self, ConflictKind, Merged};
use karenina_ld::model::{analyze, karenina_refuses, read_checkpoint, ReadOptions};
use karenina_ld::save::{write_checkpoint, WriteOptions};
use serde_json::{json, Value};
use std::path::Path;

/// A canonical checkpoint of `n` questions `urn:q:0`… with one global LLM trait.
fn base(n: usize) -> Value {
    let items: Vec<Value> = (0..n)
        .map(|i| {
            json!({
                "@type": "DataFeedItem",
                "@id": format!("urn:q:{i}"),
                "dateCreated": "2026-01-01T00:00:00",
                "dateModified": "2026-01-01T00:00:00",
                "item": {
                    "@type": "Question",
                    "@id": format!("urn:q:{i}-question"),
                    "text": format!("Question {i}?"),
                    "acceptedAnswer": {"@type": "Answer", "@id": format!("urn:q:{i}-answer"), "text": format!("{i}")},
                    "hasPart": {
                        "@type": "SoftwareSourceCode",
                        "@id": format!("urn:q:{i}-template"),
                        "name": "Answer Template",
                        "text": "class Answer(BaseAnswer):\n    value: str\n",
                        "programmingLanguage": "Python"
                    },
                    "additionalProperty": [{"@type": "PropertyValue", "name": "finished", "value": true}]
                }
            })
        })
        .collect();
    let cp = json!({
        "@context": context(),
        "@type": "DataFeed",
        "@id": "urn:bench",
        "name": "siege",
        "description": "d",
        "version": "1.0.0",
        "dateCreated": "2026-01-01T00:00:00",
        "dateModified": "2026-01-01T00:00:00",
        "rating": [llm_trait("Clarity", "karenina:GlobalRubricTrait")],
        "dataFeedElement": items
    });
    canonical(&cp)
}

/// The context of the bundled merge fixtures.
fn context() -> Value {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/merge/base.jsonld");
    let v: Value = serde_json::from_slice(&std::fs::read(base).unwrap()).unwrap();
    v["@context"].clone()
}

fn llm_trait(name: &str, ty: &str) -> Value {
    json!({
        "@type": "Rating",
        "name": name,
        "description": "d",
        "bestRating": 1.0,
        "worstRating": 0.0,
        "additionalType": ty,
        "additionalProperty": [
            {"@type": "PropertyValue", "name": "kind", "value": "boolean"},
            {"@type": "PropertyValue", "name": "higher_is_better", "value": true}
        ]
    })
}

fn prop(name: &str, value: Value) -> Value {
    json!({"@type": "PropertyValue", "name": name, "value": value})
}

/// `v` read and written back as Karenina's bytes (as JSON).
fn canonical(v: &Value) -> Value {
    serde_json::from_str(&text(v)).unwrap()
}

fn text(v: &Value) -> String {
    let bytes = serde_json::to_vec(v).unwrap();
    let cp = read_checkpoint(Path::new("x"), &bytes, ReadOptions::default()).unwrap();
    write_checkpoint(&cp, &WriteOptions::default())
}

fn merge3(b: &Value, o: &Value, t: &Value) -> Merged {
    merge::merge(
        Path::new("bench.jsonld"),
        text(b).as_bytes(),
        text(o).as_bytes(),
        text(t).as_bytes(),
    )
    .unwrap()
}

/// `text` with every block resolved to one side.
fn resolve(text: &str, theirs: bool) -> String {
    let mut out = String::new();
    let mut at = 0; // 0 outside, 1 ours, 2 theirs
    for l in text.split_inclusive('\n') {
        match l.trim_end_matches('\n') {
            merge::MARKER_OURS => at = 1,
            merge::MARKER_SEP if at == 1 => at = 2,
            merge::MARKER_THEIRS if at == 2 => at = 0,
            _ if at == 0 || (at == 2) == theirs => out.push_str(l),
            _ => {}
        }
    }
    out.trim_end_matches('\n').to_string()
}

/// The codes of what Karenina refuses in `text`.
fn refused(text: &str) -> Vec<String> {
    analyze(Path::new("x"), text.as_bytes(), ReadOptions::default())
        .report
        .diagnostics
        .iter()
        .filter(|d| karenina_refuses(d))
        .map(|d| format!("{} {}", d.code, d.message))
        .collect()
}

/// Asserts one `Refused` conflict on each of `fields`, and that each
/// resolution of the blocks is a checkpoint Karenina takes.
fn assert_refused(m: &Merged, fields: &[(&str, Option<&str>)]) {
    let got: Vec<(String, Option<String>)> = m
        .conflicts
        .iter()
        .map(|c| (c.field.clone(), c.question.clone()))
        .collect();
    let want: Vec<(String, Option<String>)> = fields
        .iter()
        .map(|(f, q)| (f.to_string(), q.map(str::to_string)))
        .collect();
    assert_eq!(got, want, "{:#?}", m.conflicts);
    for c in &m.conflicts {
        assert!(
            matches!(&c.kind, ConflictKind::Refused { cause } if cause.starts_with("KLD-")),
            "{c:?}"
        );
    }
    for side in [false, true] {
        let t = resolve(&m.text, side);
        assert!(refused(&t).is_empty(), "side {side}: {:?}", refused(&t));
    }
}

#[test]
fn a_metric_trait_s_metrics_from_one_side_and_its_mode_from_the_other_conflict() {
    let mut b = base(2);
    b["rating"].as_array_mut().unwrap().push(json!({
        "@type": "Rating",
        "name": "cover",
        "description": "d",
        "bestRating": 1.0,
        "worstRating": 0.0,
        "additionalType": "karenina:GlobalMetricRubricTrait",
        "additionalProperty": [
            prop("metrics", json!(["precision"])),
            prop("tp_instructions", json!(["x"])),
            prop("tn_instructions", json!(["y"])),
            prop("evaluation_mode", json!("full_matrix")),
        ]
    }));
    let b = canonical(&b);
    let set = |v: &mut Value, name: &str, value: Value| {
        for p in v["rating"][1]["additionalProperty"].as_array_mut().unwrap() {
            if p["name"] == name {
                p["value"] = value.clone();
            }
        }
    };
    let (mut o, mut t) = (b.clone(), b.clone());
    set(&mut o, "metrics", json!(["precision", "accuracy"]));
    set(&mut t, "evaluation_mode", json!("tp_only"));
    assert!(refused(&text(&o)).is_empty() && refused(&text(&t)).is_empty());
    let m = merge3(&b, &o, &t);
    assert_refused(&m, &[("rating[cover]", None)]);
    let ConflictKind::Refused { cause } = &m.conflicts[0].kind else {
        unreachable!()
    };
    assert!(
        cause.contains("KLD-W017") && cause.contains("get_global_rubric"),
        "{cause}"
    );
}

#[test]
fn a_global_and_a_question_trait_given_one_name_on_two_branches_conflict() {
    let b = base(2);
    let (mut o, mut t) = (b.clone(), b.clone());
    o["rating"]
        .as_array_mut()
        .unwrap()
        .push(llm_trait("tone", "karenina:GlobalRubricTrait"));
    t["dataFeedElement"][1]["item"]["rating"] =
        json!([llm_trait("tone", "karenina:QuestionSpecificRubricTrait")]);
    assert!(refused(&text(&o)).is_empty() && refused(&text(&t)).is_empty());
    let m = merge3(&b, &o, &t);
    assert_refused(&m, &[("rating", None), ("item.rating", Some("urn:q:1"))]);
}

#[test]
fn a_repeated_question_id_is_labelled_as_such_not_as_an_order_conflict() {
    let b = base(3);
    let (mut o, mut t) = (b.clone(), b.clone());
    let copy = o["dataFeedElement"][0].clone();
    o["dataFeedElement"].as_array_mut().unwrap().push(copy);
    t["dataFeedElement"][1]["item"]["acceptedAnswer"]["text"] = json!("theirs");
    let m = merge3(&b, &o, &t);
    assert_eq!(m.conflicts.len(), 1, "{:?}", m.conflicts);
    assert_eq!(
        m.conflicts[0].field,
        "dataFeedElement (question ID urn:q:0 repeated on ours)"
    );
    assert_eq!(
        m.conflicts[0].kind,
        ConflictKind::RepeatedKey {
            side: "ours",
            key: "urn:q:0".into()
        }
    );
}

#[test]
fn a_file_new_on_both_branches_with_different_orders_is_an_order_conflict() {
    let o = base(3);
    let mut t = o.clone();
    t["dataFeedElement"].as_array_mut().unwrap().reverse();
    let m = merge::merge(
        Path::new("bench.jsonld"),
        b"",
        text(&o).as_bytes(),
        text(&t).as_bytes(),
    )
    .unwrap();
    assert_eq!(m.conflicts.len(), 1, "{:?}", m.conflicts);
    assert_eq!(m.conflicts[0].field, "dataFeedElement (question order)");
    assert_eq!(resolve(&m.text, false), text(&o));
    assert_eq!(resolve(&m.text, true), text(&t));
    // The same order on both sides is no conflict.
    let m = merge::merge(
        Path::new("bench.jsonld"),
        b"",
        text(&o).as_bytes(),
        text(&o).as_bytes(),
    )
    .unwrap();
    assert!(m.conflicts.is_empty());
}

#[test]
fn twenty_thousand_questions_reordered_on_both_sides_merge_to_each_side_s_order() {
    let n = 20_000;
    let b = base(n);
    let (mut o, mut t) = (b.clone(), b.clone());
    o["dataFeedElement"].as_array_mut().unwrap().reverse();
    t["dataFeedElement"]
        .as_array_mut()
        .unwrap()
        .rotate_left(n / 3);
    // And an answer changed on each side, elsewhere.
    o["dataFeedElement"][5]["item"]["acceptedAnswer"]["text"] = json!("ours");
    t["dataFeedElement"][5]["item"]["acceptedAnswer"]["text"] = json!("theirs");
    let (ot, tt) = (
        o["dataFeedElement"][5]["@id"].clone(),
        t["dataFeedElement"][5]["@id"].clone(),
    );
    assert_ne!(ot, tt);
    let (bt, ot_, tt_) = (text(&b), text(&o), text(&t));
    let merge = |x: &str, y: &str, z: &str| {
        merge::merge(
            Path::new("bench.jsonld"),
            x.as_bytes(),
            y.as_bytes(),
            z.as_bytes(),
        )
        .unwrap()
    };
    let m = merge(&bt, &ot_, &tt_);
    assert_eq!(m.conflicts.len(), 1, "{:?}", &m.conflicts[..1]);
    assert_eq!(m.conflicts[0].field, "dataFeedElement (question order)");
    assert_eq!(m.conflicts[0].kind, ConflictKind::Order);
    // Each side of the blocks is that side's order, with the other's answer merged.
    let merged_answer = |v: &mut Value, id: &Value, answer: &str| {
        for e in v["dataFeedElement"].as_array_mut().unwrap() {
            if e["@id"] == *id {
                e["item"]["acceptedAnswer"]["text"] = json!(answer);
            }
        }
    };
    let (mut want_o, mut want_t) = (o.clone(), t.clone());
    merged_answer(&mut want_o, &tt, "theirs");
    merged_answer(&mut want_t, &ot, "ours");
    assert_eq!(resolve(&m.text, false), text(&want_o));
    assert_eq!(resolve(&m.text, true), text(&want_t));
    // The same reordering on both sides is one reordering: clean.
    let m = merge(&bt, &ot_, &ot_);
    assert!(m.conflicts.is_empty());
    assert_eq!(m.text, ot_);
}
