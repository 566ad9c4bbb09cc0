//! The one table of rate names: every rate any face of kld prints (`kld
//! info`, `kld compare`, the leaderboard, the page, exports, Python) is one
//! of these definitions and is shown under its name, with what its n counts
//! and a link to its definition (`docs/numbers.md#the-rate-names`).
//!
//! Why a table of its own: a reader saw one model at 65.2 % in `kld info`,
//! 71.2 % on the leaderboard and 57 % on the page's bar, three correct
//! numbers under one word ("pass rate"). Each face takes its words from
//! here, and a test finds the same names on every face and in the docs.

use serde_json::{json, Map, Value};

/// One named rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateName {
    /// A stable identifier (snake case) for programs.
    pub id: &'static str,
    /// The name every face prints.
    pub name: &'static str,
    /// What it is, in one sentence.
    pub definition: &'static str,
    /// What its n counts.
    pub n: &'static str,
    /// The Karenina function it equals, when it is one of Karenina's.
    pub karenina: Option<&'static str>,
}

/// Where every rate is defined.
pub(crate) const DOCS: &str = "docs/numbers.md#the-rate-names";

/// Karenina's template pass rate (`get_summary()`'s
/// `template_pass_by_combo`, `template_pass_overall`, `replicate_stats`).
pub const TEMPLATE_PASS_RATE: RateName = RateName {
    id: "template_pass_rate",
    name: "template pass rate",
    definition: "rows whose template verification passed (verify_result true) over rows with template verification performed; a null verdict counts as not passed",
    n: "rows with template verification performed",
    karenina: Some("get_summary() template_pass_by_combo / template_pass_overall"),
};

/// Karenina's `aggregate_pass_rate(by=…)`: null verdicts dropped.
pub const VERDICT_PASS_RATE: RateName = RateName {
    id: "verdict_pass_rate",
    name: "verdict pass rate",
    definition: "rows with verify_result true over rows with a verdict (true or false; null rows dropped), every judge of the group together",
    n: "rows with a verdict",
    karenina: Some("get_template_results().aggregate_pass_rate(by=…)"),
};

/// The leaderboard's summary of a model: its judges' rates averaged, never
/// their rows pooled.
pub const JUDGES_MEAN: RateName = RateName {
    id: "judges_mean_template_pass_rate",
    name: "mean of judges' template pass rates",
    definition: "the unweighted mean of the template pass rates of a model under each judge (parsing model); judges are never pooled",
    n: "judges (each rate with its own n)",
    karenina: None,
};

/// The paired comparison's unit: each question's template pass rate (its
/// rows under the judges and replicates averaged), then the mean over
/// questions.
pub const QUESTION_MEAN: RateName = RateName {
    id: "question_mean_template_pass_rate",
    name: "question-mean template pass rate",
    definition: "the mean over questions of each question's template pass rate (its rows, judges and replicates, averaged); the unit of kld compare's paired differences",
    n: "questions",
    karenina: None,
};

/// The page's bars: every row in the denominator.
pub const SHARE_OF_ROWS_PASSED: RateName = RateName {
    id: "share_of_rows_passed",
    name: "share of rows passed",
    definition: "rows with verify_result true over every row (failures and null verdicts included)",
    n: "every row",
    karenina: None,
};

/// Every rate kld prints, in the order docs/numbers.md lists them.
pub const RATE_NAMES: &[RateName] = &[
    TEMPLATE_PASS_RATE,
    VERDICT_PASS_RATE,
    JUDGES_MEAN,
    QUESTION_MEAN,
    SHARE_OF_ROWS_PASSED,
];

impl RateName {
    /// Its name, definition, n, Karenina function and docs link as JSON.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "definition": self.definition,
            "n": self.n,
            "karenina": self.karenina,
            "docs": DOCS,
        })
    }

    /// The rate by its [`RateName::id`].
    pub fn by_id(id: &str) -> Option<&'static RateName> {
        RATE_NAMES.iter().find(|r| r.id == id)
    }
}

/// A face's `rate_names`: each key (a JSON path or column) that holds a
/// rate, with its [`RateName::to_json`].
pub(crate) fn rate_names(keys: &[(&str, &RateName)]) -> Value {
    let m: Map<String, Value> = keys
        .iter()
        .map(|(k, r)| (k.to_string(), r.to_json()))
        .collect();
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rate_has_its_own_name_and_id() {
        let mut names: Vec<&str> = RATE_NAMES.iter().map(|r| r.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), RATE_NAMES.len());
        for r in RATE_NAMES {
            assert_eq!(RateName::by_id(r.id), Some(r));
            assert_eq!(r.to_json()["name"], r.name);
        }
        let v = rate_names(&[("a", &TEMPLATE_PASS_RATE)]);
        assert_eq!(v["a"]["docs"], DOCS);
    }
}
