//! Inspect AI datasets: one JSON Lines sample per question, as
//! `inspect_ai.dataset.json_dataset` reads them (`id`, `input`, `target`,
//! `metadata`).

use super::{json_line, question_rows};
use crate::model::Checkpoint;
use serde_json::json;

/// The checkpoint's questions as Inspect samples, one JSON object a line,
/// in file order.
pub fn samples_jsonl(cp: &Checkpoint) -> String {
    let mut out = String::new();
    for r in question_rows(cp) {
        let mut metadata = json!({
            "keywords": r.keywords,
            "finished": r.finished,
            "has_template": r.has_template,
            "benchmark": cp.name,
        });
        if let Some(a) = r.author {
            metadata["author"] = json!(a);
        }
        out.push_str(&json_line(&json!({
            "id": r.id,
            "input": r.question,
            "target": r.answer,
            "metadata": metadata,
        })));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_question_even_with_line_separators() {
        let text = r#"{"@context": {"@vocab": "https://schema.org/"}, "@type": "DataFeed",
          "name": "b", "dateCreated": "x", "dateModified": "x", "dataFeedElement": [
          {"@type": "DataFeedItem", "@id": "urn:q1", "dateCreated": "x", "dateModified": "x",
           "item": {"@type": "Question", "text": "a\u2028b\nc", "acceptedAnswer": {"@type": "Answer", "text": "t"},
            "hasPart": {"@type": "SoftwareSourceCode", "name": "n", "text": ""}}}]}"#;
        let cp = crate::model::read_checkpoint(
            std::path::Path::new("t.jsonld"),
            text.as_bytes(),
            Default::default(),
        )
        .unwrap();
        let out = samples_jsonl(&cp);
        assert_eq!(out.lines().count(), cp.items.len());
        assert!(!out.contains('\u{2028}'));
        let v: serde_json::Value = serde_json::from_str(out.trim_end()).unwrap();
        assert_eq!(v["input"], cp.items[0].question.text.as_str());
        assert_eq!(v["metadata"]["has_template"], false);
    }
}
