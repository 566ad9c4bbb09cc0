//! Karenina's numbers of a set of the table's rows: `get_summary()` and
//! `aggregate_pass_rate(by=…)`. This module only reads each row's columns
//! into the facts Karenina's summary counts (`crate::numbers::facts`);
//! `crate::numbers` counts them, the same accumulator `kld info` feeds from
//! a result's JSON, so a run's numbers from the table equal `kld info`'s of
//! its export by construction (`docs/numbers.md`).

use super::Table;
use crate::numbers::facts::{tool_counts, RowFacts, Tokens};
use crate::numbers::{FileNumbers, Numbers};
use serde_json::{json, Map, Value};
use std::borrow::Cow;

impl Table {
    /// The facts Karenina's summary counts of row `i`, from its columns.
    pub(crate) fn row_facts(&self, i: usize) -> RowFacts<'_> {
        let tokens = std::array::from_fn(|k| {
            std::array::from_fn(|d| self.tokens[k][d][i].map(Tokens::of_int))
        });
        let traits = self
            .traits
            .iter()
            .filter(|col| col.present[i])
            .filter_map(|col| {
                let f = crate::numbers::FAMILIES
                    .iter()
                    .position(|(_, fam)| *fam == col.family)?;
                Some((f, col.name.as_str()))
            })
            .collect();
        let tool_calls =
            self.tool_calls[i].and_then(|s| match serde_json::from_str::<Value>(self.text(s)) {
                Ok(Value::Object(m)) => Some(tool_counts(&m)),
                _ => None,
            });
        RowFacts {
            question: self.text(self.question[i]),
            answering: Cow::Borrowed(self.text(self.answering[i])),
            parsing: Cow::Borrowed(self.text(self.parsing[i])),
            combo: Cow::Borrowed(self.text(self.combo[i])),
            replicate: self.replicate[i],
            completed: self.completed[i],
            template: self.template_performed[i],
            verdict: self.verify[i],
            rubric: self.rubric_performed[i],
            judgment: self.judgment_performed[i],
            execution_time: self.execution_time[i],
            tokens,
            traits,
            tool_calls,
            // The column holds a number: an integral one as JSON's integer.
            iterations: self.iterations[i].map(|x| {
                if x.fract() == 0.0 && x.abs() < 9e15 {
                    json!(x as i64)
                } else {
                    json!(x)
                }
            }),
        }
    }

    /// Karenina's numbers of `rows` (indices, in the order Karenina would
    /// meet them: the file's).
    pub fn numbers(&self, rows: impl IntoIterator<Item = usize>) -> Numbers {
        let mut n = Numbers::new(false);
        for i in rows {
            if self.run_of(i).csv {
                n.set_csv();
            }
            n.add_facts(&self.row_facts(i));
        }
        n
    }

    /// What `kld info --format json` gives for Karenina's numbers of one
    /// input, from run `r`'s rows: `summary`, `summary_covers`,
    /// `aggregate_pass_rate`, a CSV's `cannot_tell`, and `summary_by_run`
    /// when the rows hold more than one run name.
    pub fn karenina_json(&self, r: usize) -> Map<String, Value> {
        let mut n = FileNumbers::new(self.runs[r].csv);
        for i in self.rows_of(r) {
            n.add_facts(self.opt_text(self.run_name[i]), &self.row_facts(i));
        }
        n.to_json()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numbers::FileNumbers;

    fn row(q: &str, run: &str, rep: i64, time: Value, total_in: Value) -> Value {
        json!({
            "metadata": {"question_id": q, "run_name": run, "failure": null, "replicate": rep,
                "execution_time": time,
                "answering": {"interface": "langchain", "model_name": "a", "tools": [], "config_id": null},
                "parsing": {"interface": "langchain", "model_name": "p", "tools": [], "config_id": null}},
            "template": {"template_verification_performed": true, "verify_result": rep == 1,
                "usage_metadata": {
                    "total": {"input_tokens": total_in, "output_tokens": -7},
                    "answer_generation": {"input_tokens": i64::MAX},
                    "parsing": {"input_tokens": i64::MAX, "output_tokens": 2},
                    "rubric_evaluation": {"input_tokens": 0, "output_tokens": 3}},
                "agent_metrics": {"iterations": 4, "tool_call_counts": {"search": 2, "fetch": "x"}}},
            "rubric": {"rubric_evaluation_performed": true,
                "llm_trait_scores": {"clear": 4}, "regex_trait_scores": {"cites": q == "q1"}},
        })
    }

    #[test]
    fn the_table_and_a_results_json_count_the_same_numbers_at_the_edges() {
        // Token sums past 64 bits, negative counts, a NaN time, two runs:
        // one accumulator counts both paths, so they are equal to the bit.
        let rows = [
            row("q1", "r1", 1, json!(1.5), json!(i64::MAX)),
            row("q2", "r1", 2, json!(crate::json::nan::NAN), json!(i64::MAX)),
            row("q1", "r2", 1, json!(0.25), json!(-3)),
        ];
        let mut t = Table::default();
        let mut b = crate::table::Builder::new(&mut t, "urn:g");
        let mut f = FileNumbers::new(false);
        for r in &rows {
            b.add(r);
            f.add(r);
        }
        let from_json = f.to_json();
        assert_eq!(t.karenina_json(0), from_json);
        let s = &from_json["summary"];
        assert_eq!(
            s["tokens"]["total_input"].to_string(),
            "18446744073709551611"
        );
        assert_eq!(
            s["tokens"]["template_input"].to_string(),
            "55340232221128654842"
        );
        assert_eq!(s["tokens"]["rubric_input"], 0);
        assert_eq!(s["total_execution_time"], "NaN");
        assert_eq!(s["tool_usage_stats"]["total_tool_calls"], 6);
        assert_eq!(from_json["summary_by_run"].as_array().unwrap().len(), 2);
        // The table's own numbers of every row are the summary above.
        assert_eq!(&t.numbers(0..3).summary(), s);
    }
}
