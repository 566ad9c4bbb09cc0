//! Benchmarks and results in the formats the field shares: Inspect AI
//! datasets ([`inspect`]), MLCommons Croissant ([`croissant`]) and Every Eval
//! Ever ([`eee`]). The mapping tables, and what each format cannot hold, are
//! in `docs/interop.md`.

pub mod croissant;
pub mod eee;
pub mod inspect;

use crate::json::Json;
use crate::model::{qid, Checkpoint, Item};

/// One question as the interop formats see it.
#[derive(Clone, Debug, PartialEq)]
pub struct QuestionRow {
    /// The question ID: the item's `@id`, else Karenina's ID from the text.
    pub id: String,
    /// The question text.
    pub question: String,
    /// The expected answer, raw.
    pub answer: String,
    /// Keywords, in file order.
    pub keywords: Vec<String>,
    /// The author's name, when the question has one.
    pub author: Option<String>,
    /// `finished` (Karenina's truthiness of the property; absent is false).
    pub finished: bool,
    /// True when the answer template has code (not blank).
    pub has_template: bool,
}

/// The questions of `cp`, in file order.
pub(crate) fn question_rows(cp: &Checkpoint) -> Vec<QuestionRow> {
    cp.items.iter().map(question_row).collect()
}

fn question_row(it: &Item) -> QuestionRow {
    let q = &it.question;
    QuestionRow {
        id: it.id.clone().unwrap_or_else(|| qid::question_id(&q.text)),
        question: q.text.clone(),
        answer: q.accepted_answer.text.clone(),
        keywords: q.keywords.clone().unwrap_or_default(),
        author: q.prop_value("author").and_then(author_name),
        finished: q.prop_value("finished").is_some_and(truthy),
        has_template: !q.template.text.trim().is_empty(),
    }
}

/// Python truthiness of a JSON value (how Karenina coerces `finished`).
fn truthy(v: &Json) -> bool {
    match v {
        Json::Null => false,
        Json::Bool(b) => *b,
        Json::Number(n) => n.as_f64() != 0.0,
        Json::String(s) => !s.is_empty(),
        Json::Array(a) => !a.is_empty(),
        Json::Object(o) => !o.is_empty(),
    }
}

/// The author's name: `author` is a JSON string of a dict (`add_question`),
/// a native dict (later edits) or a plain name (Karenina `utils/checkpoint.py`, `add_question`).
fn author_name(v: &Json) -> Option<String> {
    let parsed;
    let v = match v {
        Json::String(s) => match crate::json::parse(s.as_bytes()) {
            Ok(p @ Json::Object(_)) => {
                parsed = p;
                &parsed
            }
            _ => return (!s.is_empty()).then(|| s.clone()),
        },
        v => v,
    };
    match v {
        Json::Object(o) => o.get("name").and_then(Json::as_str).map(str::to_string),
        _ => None,
    }
}

/// `value` as one line of JSON: serde's escaping, plus U+2028/U+2029 escaped
/// so that no reader splitting on Unicode line breaks cuts a record.
pub(crate) fn json_line(value: &serde_json::Value) -> String {
    serde_json::to_string(value)
        .unwrap_or_default()
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}
