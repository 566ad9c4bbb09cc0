//! `TemplateResults.aggregate_pass_rate(by=…)` (Karenina
//! `schemas/results/template.py`): per group, the mean of `verify_result`
//! over the rows that have one (true or false; null rows are dropped), groups
//! in sorted order as pandas' `groupby` gives them, rows without the key
//! (a null replicate) left out.

use super::Tally;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Pass rates by question, answering model, parsing model and replicate.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PassRates {
    /// By `question_id`.
    pub question_id: BTreeMap<String, Tally>,
    /// By `answering_model` (the display string).
    pub answering_model: BTreeMap<String, Tally>,
    /// By `parsing_model` (the display string).
    pub parsing_model: BTreeMap<String, Tally>,
    /// By `replicate` (rows with a replicate).
    pub replicate: BTreeMap<i64, Tally>,
}

impl PassRates {
    pub(super) fn add(
        &mut self,
        verdict: Option<bool>,
        question: &str,
        answering: &str,
        parsing: &str,
        replicate: Option<i64>,
    ) {
        let Some(passed) = verdict else {
            return;
        };
        let bump = |t: &mut Tally| {
            t.total += 1;
            t.passed += usize::from(passed);
        };
        for (map, key) in [
            (&mut self.question_id, question),
            (&mut self.answering_model, answering),
            (&mut self.parsing_model, parsing),
        ] {
            match map.get_mut(key) {
                Some(t) => bump(t),
                None => bump(map.entry(key.to_string()).or_default()),
            }
        }
        if let Some(r) = replicate {
            bump(self.replicate.entry(r).or_default());
        }
    }

    /// `{by: {group: rate}}` for the four keys (rates from 0 to 1; a
    /// replicate key as its decimal string, as `json.dumps` writes it).
    pub fn to_json(&self) -> Value {
        let rates = |it: &mut dyn Iterator<Item = (String, &Tally)>| -> Value {
            Value::Object(
                it.map(|(k, t)| (k, Value::from(t.passed as f64 / t.total as f64)))
                    .collect::<Map<String, Value>>(),
            )
        };
        let mut m = Map::new();
        m.insert(
            "question_id".into(),
            rates(&mut self.question_id.iter().map(|(k, t)| (k.clone(), t))),
        );
        m.insert(
            "answering_model".into(),
            rates(&mut self.answering_model.iter().map(|(k, t)| (k.clone(), t))),
        );
        m.insert(
            "parsing_model".into(),
            rates(&mut self.parsing_model.iter().map(|(k, t)| (k.clone(), t))),
        );
        m.insert(
            "replicate".into(),
            rates(&mut self.replicate.iter().map(|(k, t)| (k.to_string(), t))),
        );
        Value::Object(m)
    }
}
