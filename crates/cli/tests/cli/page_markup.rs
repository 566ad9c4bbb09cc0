//! Markup in the data is text on the page: a benchmark name, question texts
//! and a metadata value holding `<img onerror>` and `<script>`, a query's
//! literals, a `javascript:` IRI, and a permalink's query text and name run
//! nothing in headless Chromium and show as the characters they are.

use super::serve::{python, serve};
use serde_json::Value;
use std::path::Path;

/// Runs when inserted as HTML anywhere: counts itself in `window.__pwned`.
const PAYLOAD: &str = r#"<img src=x onerror="window.__pwned=(window.__pwned||0)+1"><script>window.__pwned=99</script>"#;

#[test]
#[ignore = "interop: needs chromium, chromedriver and selenium: cargo test -- --include-ignored"]
fn markup_in_names_texts_literals_and_permalinks_renders_as_text() {
    let examples = Path::new(env!("KLD_SOURCE_ROOT")).join("examples");
    let dir = tempfile::tempdir().unwrap();
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(examples.join("notebook.jsonld")).unwrap())
            .unwrap();
    v["name"] = Value::String(format!("Bench {PAYLOAD}"));
    for q in v["dataFeedElement"].as_array_mut().unwrap() {
        let text = q["item"]["text"].as_str().unwrap().to_string();
        q["item"]["text"] = Value::String(format!("{PAYLOAD} {text}"));
    }
    v["dataFeedElement"][0]["item"]["additionalProperty"]
        .as_array_mut()
        .unwrap()
        .push(
            serde_json::json!({"@type": "PropertyValue", "name": "custom_note", "value": PAYLOAD}),
        );
    let checkpoint = dir.path().join("notebook.jsonld");
    std::fs::write(&checkpoint, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let run = examples.join("runs/notebook.verification.json");
    let s = serve(&[checkpoint, run], &[]);
    let out = python("browser_markup.py", &[&s.base, PAYLOAD]);
    let seen: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    for view in ["page", "benchmark", "results", "permalink"] {
        assert_eq!(seen[view]["pwned"], 0, "{view}: {seen}");
        assert_eq!(seen[view]["imgs"], Value::Array(vec![]), "{view}: {seen}");
    }
    // The payload is there as text where the data shows: the benchmarks
    // table, the chart's bar titles, the leaderboard's header, each
    // question's row and the question opened, the query's answer.
    let text = |view: &str, place: &str| seen[view]["as_text"][place].as_u64().unwrap();
    assert_eq!(text("page", "benchmarks"), 1, "{seen}");
    assert!(text("page", "chart") >= 1, "{seen}");
    assert_eq!(text("page", "board"), 1, "{seen}");
    assert_eq!(text("benchmark", "questions"), 5, "{seen}");
    assert_eq!(text("benchmark", "detail"), 1, "{seen}");
    assert_eq!(text("results", "results"), 5, "{seen}");
    // The IRI opens kld's own view of it, never runs as a URL.
    for href in seen["iri_hrefs"].as_array().unwrap() {
        assert!(href.as_str().unwrap().starts_with(&s.base), "{href}");
    }
    assert!(!seen["iri_hrefs"].as_array().unwrap().is_empty());
    // The permalink's markup reached the server as query text, refused.
    assert!(!seen["error_box"].as_str().unwrap().is_empty(), "{seen}");
}
