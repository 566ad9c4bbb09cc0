//! Imported questions → checkpoint items, as Karenina's
//! `Benchmark.add_question(Question)` builds them (`add_question_to_benchmark`
//! in Karenina `utils/checkpoint.py`), and the new benchmark as
//! `Benchmark.create` makes it.

use super::Imported;
use crate::json::{py, Json};
use crate::model::{Answer, Checkpoint, Creator, Item, Property, Question, SourceCode};

/// The benchmark's own metadata (`Benchmark.create`'s arguments).
#[derive(Clone, Debug, PartialEq)]
pub struct BenchmarkMeta {
    /// `name`.
    pub name: String,
    /// `description` (an empty one becomes Karenina's default).
    pub description: String,
    /// `version` (Karenina's default `0.1.0`).
    pub version: String,
    /// `creator` (Karenina's default `Karenina Benchmarking System`).
    pub creator: String,
}

impl Default for BenchmarkMeta {
    fn default() -> Self {
        BenchmarkMeta {
            name: String::new(),
            description: String::new(),
            version: "0.1.0".into(),
            creator: "Karenina Benchmarking System".into(),
        }
    }
}

/// A moment as Karenina's clock reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Stamp {
    /// `datetime.now().isoformat()`: naive local time, microseconds unless 0.
    pub iso: String,
    /// `datetime.now().timestamp()` in Python's `repr`.
    pub posix: String,
}

impl Stamp {
    /// Now, on this machine's local clock.
    pub fn now() -> Self {
        let now = chrono::Local::now();
        let naive = now.naive_local();
        let micros = now.timestamp_subsec_micros();
        let iso = if micros == 0 {
            naive.format("%Y-%m-%dT%H:%M:%S").to_string()
        } else {
            naive.format("%Y-%m-%dT%H:%M:%S%.6f").to_string()
        };
        let posix = now.timestamp() as f64 + micros as f64 / 1e6;
        Stamp {
            iso,
            posix: py::float_repr(posix),
        }
    }
}

/// `BaseAnswer` template Karenina writes for a question without one
/// (`QuestionManager._create_default_template`).
pub fn default_template(question: &str) -> String {
    let head: String = question.chars().take(50).collect();
    format!(
        "class Answer(BaseAnswer):\n    \"\"\"Answer template for: {head}...\"\"\"\n\n    response: str = Field(description=\"The answer response\")\n\n    def verify(self) -> bool:\n        # Default template: returns False to indicate custom verification needed\n        return False\n"
    )
}

/// `json.dumps(author)`: `", "` and `": "` separators, ASCII escapes.
pub fn author_json(author: &[(String, String)]) -> String {
    let mut s = String::from("{\"@type\": \"Person\"");
    for (k, v) in author {
        s.push_str(", ");
        py::escape_into(&mut s, k, true);
        s.push_str(": ");
        py::escape_into(&mut s, v, true);
    }
    s.push('}');
    s
}

fn prop(name: &str, value: Json) -> Property {
    Property {
        name: name.to_string(),
        value: Some(value),
        extra: Vec::new(),
    }
}

/// The item Karenina adds for `q` under `id` at time `now`.
pub fn item(q: &Imported, id: String, now: &str) -> Item {
    let mut props = vec![prop("finished", Json::Bool(q.finished))];
    if !q.author.is_empty() {
        props.push(prop("author", Json::String(author_json(&q.author))));
    }
    for (k, v) in &q.custom {
        props.push(prop(&format!("custom_{k}"), v.clone()));
    }
    if let Some(n) = &q.answer_notes {
        props.push(prop("answer_notes", Json::String(n.clone())));
    }
    let head: String = q.question.chars().take(30).collect();
    Item {
        id: Some(id),
        date_created: now.to_string(),
        date_modified: now.to_string(),
        keywords: None,
        question: Question {
            id: None,
            text: q.question.clone(),
            accepted_answer: Answer {
                id: None,
                text: q.answer.clone(),
                extra: Vec::new(),
            },
            template: SourceCode {
                id: None,
                name: format!("{head}... Answer Template"),
                text: default_template(&q.question),
                code_repository: None,
                extra: Vec::new(),
            },
            rating: None,
            additional_property: Some(props),
            keywords: (!q.keywords.is_empty()).then(|| q.keywords.clone()),
            extra: Vec::new(),
        },
        extra: Vec::new(),
    }
}

/// The empty benchmark `Benchmark.create(name, description, version,
/// creator)` makes at `now`.
pub fn new_checkpoint(meta: &BenchmarkMeta, now: &Stamp) -> Checkpoint {
    let description = if meta.description.is_empty() {
        "Benchmark containing questions".to_string()
    } else {
        meta.description.clone()
    };
    Checkpoint {
        id: Some(format!("urn:uuid:karenina-checkpoint-{}", now.posix)),
        name: meta.name.clone(),
        description: Some(description),
        version: Some(meta.version.clone()),
        creator: Some(Creator::Name(meta.creator.clone())),
        date_created: now.iso.clone(),
        date_modified: now.iso.clone(),
        additional_property: Some(vec![prop(
            "benchmark_format_version",
            Json::String("3.0.0-jsonld".into()),
        )]),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn author_is_json_dumps() {
        let a = vec![
            ("name".to_string(), "Zoë \"Z\"".to_string()),
            ("email".to_string(), "z@x.org".to_string()),
        ];
        assert_eq!(
            author_json(&a),
            r#"{"@type": "Person", "name": "Zo\u00eb \"Z\"", "email": "z@x.org"}"#
        );
    }

    #[test]
    fn stamps_are_pythons() {
        let s = Stamp::now();
        assert!(s.iso.len() == 19 || s.iso.len() == 26, "{}", s.iso);
        assert!(s.posix.contains('.'), "{}", s.posix);
    }
}
