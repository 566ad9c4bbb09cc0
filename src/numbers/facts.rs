//! What Karenina's summary counts of one row, extracted once: the facts
//! [`super::Numbers::add_facts`] adds up. A result's JSON gives them
//! ([`RowFacts::of_value`], what `kld info` counts), and so does a row of
//! the results table (`crate::table::summary`); both feed the one
//! accumulator, so every sum, rate, replicate statistic and token total is
//! computed in one place, and the two ways to Karenina's numbers cannot
//! drift apart.

use super::exact::{tokens, Count};
use super::row::{get_or_zero, int, number, obj, Row};
use super::FAMILIES;
use serde_json::Value;
use std::borrow::Cow;

/// Token stages Karenina's summary reads, as `template.usage_metadata`
/// names them: `total`, then the template's two, then the rubric's.
pub const TOKEN_STAGES: [&str; 4] = ["total", "answer_generation", "parsing", "rubric_evaluation"];

/// One stage's input or output tokens, as Karenina reads them: a valid
/// number (`is_valid_number`), `int()` of it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Tokens {
    /// `int(x)`, exact (Python's integers).
    pub(crate) count: Count,
    /// `x > 0` of the number as written (a rubric count is kept only then:
    /// 0.5 is kept, as `int(0.5)`, that is 0).
    pub(crate) above_zero: bool,
}

impl Tokens {
    /// A count the table holds (`int()` already taken).
    pub(crate) fn of_int(v: i64) -> Self {
        Tokens {
            count: Count::Small(i128::from(v)),
            above_zero: v > 0,
        }
    }

    /// `usage.get(key, 0)` of a stage's object, if a valid number.
    fn of_stage(stage: &Value, key: &str) -> Option<Self> {
        let x = get_or_zero(stage, key);
        number(&x).map(|f| Tokens {
            count: tokens(&x).unwrap_or(Count::Small(0)),
            above_zero: f > 0.0,
        })
    }
}

/// The facts of one row that Karenina's `get_summary()` and
/// `aggregate_pass_rate` count.
#[derive(Clone, Debug)]
pub(crate) struct RowFacts<'a> {
    /// `metadata.question_id`.
    pub(crate) question: &'a str,
    /// The answering model's display string.
    pub(crate) answering: Cow<'a, str>,
    /// The parsing model's display string.
    pub(crate) parsing: Cow<'a, str>,
    /// Karenina's combo string.
    pub(crate) combo: Cow<'a, str>,
    /// `metadata.replicate`.
    pub(crate) replicate: Option<i64>,
    /// No failure.
    pub(crate) completed: bool,
    /// `template_verification_performed`.
    pub(crate) template: bool,
    /// `verify_result`.
    pub(crate) verdict: Option<bool>,
    /// `rubric_evaluation_performed`.
    pub(crate) rubric: bool,
    /// `deep_judgment_performed`.
    pub(crate) judgment: bool,
    /// `metadata.execution_time` (NaN and the infinities too).
    pub(crate) execution_time: Option<f64>,
    /// Input and output tokens per stage of [`TOKEN_STAGES`]; `None` when
    /// the stage is absent or its value not a valid number.
    pub(crate) tokens: [[Option<Tokens>; 2]; 4],
    /// The traits scored: (index into [`FAMILIES`], trait name).
    pub(crate) traits: Vec<(usize, &'a str)>,
    /// `agent_metrics.tool_call_counts` when not empty: tool → `int()` of
    /// its calls (0 when not a number).
    pub(crate) tool_calls: Option<Vec<(String, i64)>>,
    /// `agent_metrics.iterations`, as written, when not null.
    pub(crate) iterations: Option<Value>,
}

impl<'a> RowFacts<'a> {
    /// The facts of a row in the shape kld's readers hand on (`csv`: a CSV
    /// record, whose raw cells hold some of the JSON row's fields).
    pub(crate) fn of_value(value: &'a Value, csv: bool) -> Self {
        let r = Row::new(value, csv);
        let usage = r.usage();
        let tokens = std::array::from_fn(|k| {
            let stage = usage.and_then(|u| u.get(TOKEN_STAGES[k]));
            std::array::from_fn(|d| {
                stage.and_then(|s| Tokens::of_stage(s, ["input_tokens", "output_tokens"][d]))
            })
        });
        let mut traits = Vec::new();
        for (f, (dict, _)) in FAMILIES.iter().enumerate() {
            for name in r.scores(dict).into_iter().flat_map(|m| m.keys()) {
                traits.push((f, name.as_str()));
            }
        }
        let metrics = r.agent_metrics();
        let tool_calls = metrics
            .as_ref()
            .and_then(|m| obj(&m["tool_call_counts"]))
            .map(tool_counts);
        let iterations = metrics
            .as_ref()
            .and_then(|m| m.get("iterations").filter(|v| !v.is_null()))
            .cloned();
        RowFacts {
            question: r.question_id(),
            answering: Cow::Owned(r.model("answering")),
            parsing: Cow::Owned(r.model("parsing")),
            combo: Cow::Owned(r.combo()),
            replicate: r.replicate(),
            completed: r.completed(),
            template: r.template_performed(),
            verdict: r.verify_result(),
            rubric: r.rubric_performed(),
            judgment: r.judgment_performed(),
            execution_time: r.execution_time(),
            tokens,
            traits,
            tool_calls,
            iterations,
        }
    }
}

/// `tool_call_counts` as the summary reads them: each tool with `int()` of
/// its calls (0 when not a number).
pub(crate) fn tool_counts(counts: &serde_json::Map<String, Value>) -> Vec<(String, i64)> {
    counts
        .iter()
        .map(|(tool, n)| (tool.clone(), int(n).unwrap_or(0)))
        .collect()
}
