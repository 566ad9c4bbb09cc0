//! What Karenina's summary reads of one row, read from the row shape every
//! kld reader hands on (a JSON export's row, a CSV record, a database row),
//! with Python's truthiness: an empty dict or list counts as absent.

use serde_json::Value;

/// A row as the summary reads it.
pub(super) struct Row<'a> {
    row: &'a Value,
    /// A CSV record: raw cells hold what the JSON row's fields would.
    csv: bool,
}

/// A non-empty object (`if d:` in Python).
pub(super) fn obj(v: &Value) -> Option<&serde_json::Map<String, Value>> {
    v.as_object().filter(|m| !m.is_empty())
}

/// A number as Karenina's `is_valid_number` accepts it (an int, a float
/// that is not NaN; Python's bool is an int), as a float.
pub(super) fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64().filter(|f| !f.is_nan()),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

/// `int(x)` of a valid number.
pub(super) fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f.trunc() as i64)),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

/// `usage.get(key, 0)`: a missing key is 0, a present one as written.
pub(super) fn get_or_zero(usage: &Value, key: &str) -> Value {
    usage.get(key).cloned().unwrap_or_else(|| Value::from(0))
}

/// `ModelIdentity.display_string` of a metadata identity object.
pub(super) use crate::results::outcome::identity_display as display_string;

impl<'a> Row<'a> {
    pub(super) fn new(row: &'a Value, csv: bool) -> Self {
        Row { row, csv }
    }

    fn meta(&self) -> &'a Value {
        &self.row["metadata"]
    }

    fn template(&self) -> &'a Value {
        &self.row["template"]
    }

    /// A CSV raw cell read as JSON (`json.dumps` output), if not empty.
    fn csv_json(&self, column: &str) -> Option<Value> {
        let s = self.row[crate::results::csv_export::RAW_CELLS][column].as_str()?;
        serde_json::from_str(&crate::json::nan::replace_tokens(s)).ok()
    }

    pub(super) fn question_id(&self) -> &'a str {
        self.meta()["question_id"].as_str().unwrap_or("")
    }

    /// `metadata.answering_model` / `parsing_model` (`side` is
    /// `answering` or `parsing`): the identity's display string.
    pub(super) fn model(&self, side: &str) -> String {
        // Format 2.0 rows: a flat string, in `metadata` as Karenina's
        // `load_legacy_result_set` migrates it (`provider/model` →
        // `provider:model`).
        display_string(&self.meta()[side])
            .unwrap_or_else(|| crate::results::outcome::display_string(self.row, side))
    }

    pub(super) fn replicate(&self) -> Option<i64> {
        self.meta()["replicate"].as_i64()
    }

    pub(super) fn completed(&self) -> bool {
        self.meta()["failure"].is_null()
    }

    pub(super) fn execution_time(&self) -> Option<f64> {
        self.meta()["execution_time"].as_f64()
    }

    pub(super) fn template_performed(&self) -> bool {
        self.template()["template_verification_performed"] == Value::Bool(true)
    }

    /// `template.verify_result` (a CSV keeps only `true`).
    pub(super) fn verify_result(&self) -> Option<bool> {
        self.template()["verify_result"].as_bool()
    }

    pub(super) fn rubric_performed(&self) -> bool {
        self.row["rubric"]["rubric_evaluation_performed"] == Value::Bool(true)
    }

    /// A rubric score dict (`llm_trait_scores` …), if not empty.
    pub(super) fn scores(&self, dict: &str) -> Option<&'a serde_json::Map<String, Value>> {
        obj(&self.row["rubric"][dict])
    }

    pub(super) fn judgment_performed(&self) -> bool {
        if self.csv {
            return self.row[crate::results::csv_export::RAW_CELLS]["deep_judgment_performed"]
                == "True";
        }
        self.row["deep_judgment"]["deep_judgment_performed"] == Value::Bool(true)
    }

    /// `template.usage_metadata`, if not empty.
    pub(super) fn usage(&self) -> Option<&'a serde_json::Map<String, Value>> {
        obj(&self.template()["usage_metadata"])
    }

    /// `template.agent_metrics`, if not empty.
    pub(super) fn agent_metrics(&self) -> Option<Value> {
        let v = if self.csv {
            self.csv_json("agent_metrics")?
        } else {
            self.template()["agent_metrics"].clone()
        };
        obj(&v).is_some().then_some(v)
    }

    /// The combo key string (Karenina `_combo_key_to_string`): answering
    /// model, parsing model, and the sorted `answering_mcp_servers` when
    /// there are any.
    pub(super) fn combo(&self) -> String {
        let servers = if self.csv {
            self.csv_json("answering_mcp_servers")
        } else {
            Some(self.template()["answering_mcp_servers"].clone())
        };
        let mut mcp: Vec<String> = servers
            .as_ref()
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect();
        mcp.sort();
        let (a, p) = (self.model("answering"), self.model("parsing"));
        if mcp.is_empty() {
            format!("{a} | {p}")
        } else {
            format!("{a} | {p} | {}", mcp.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn display_strings_as_karenina_writes_them() {
        let id = json!({"interface": "openai_endpoint", "model_name": "Qwen/Qwen3-8B",
            "tools": ["brave_search", "pubmed"], "config_id": "qwen-local"});
        assert_eq!(
            display_string(&id).unwrap(),
            "openai_endpoint:Qwen/Qwen3-8B (qwen-local) +[brave_search, pubmed]"
        );
        let id = json!({"interface": "langchain", "model_name": "gpt-4o", "tools": [], "config_id": null});
        assert_eq!(display_string(&id).unwrap(), "langchain:gpt-4o");
    }

    #[test]
    fn numbers_as_is_valid_number_takes_them() {
        assert_eq!(number(&json!(3)), Some(3.0));
        assert_eq!(number(&json!(true)), Some(1.0));
        assert_eq!(number(&json!(null)), None);
        assert_eq!(number(&json!(crate::json::nan::NAN)), None);
        assert_eq!(int(&json!(12.9)), Some(12));
        assert_eq!(get_or_zero(&json!({}), "input_tokens"), json!(0));
        assert_eq!(
            get_or_zero(&json!({"input_tokens": null}), "input_tokens"),
            Value::Null
        );
    }
}
