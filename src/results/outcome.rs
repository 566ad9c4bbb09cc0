//! The facts Karenina's own numbers are computed from, derived from one
//! results row as Karenina derives them: the model display strings and the
//! combo its summary keys by (`VerificationResultSet.get_summary()`), the
//! failure group of its taxonomy (`schemas/results/failure.py`), and the
//! outcome class that splits every row into exactly one of passed, a
//! failure group, or no verdict. They exist as triples so that SPARQL can
//! count what Karenina counts (`docs/results.md`, "Karenina's numbers").

use serde_json::Value;

/// The outcome classes, in the order the catalogue lists them.
pub const OUTCOMES: [&str; 7] = [
    "passed",
    "content",
    "abstained",
    "autofail",
    "retry",
    "system",
    "no_verdict",
];

/// Every row's class as the board and the catalogue count it: [`OUTCOMES`],
/// then `unclassified` for a row whose file does not tell its outcome (a CSV
/// export without the columns). The one list both take their order from.
pub(crate) const CLASSES: [&str; 8] = {
    let mut all = ["unclassified"; 8];
    let mut i = 0;
    while i < OUTCOMES.len() {
        all[i] = OUTCOMES[i];
        i += 1;
    }
    all
};

/// `FailureCategory` → `FailureGroup` (Karenina's `CATEGORY_TO_GROUP`).
pub(crate) fn group_of_category(category: &str) -> Option<&'static str> {
    Some(match category {
        "content" => "content",
        "recursion_limit" | "trace_validation" | "deep_judgment" | "deep_judgment_rubric" => {
            "autofail"
        }
        "timeout" | "connection" | "rate_limit" | "server_error" => "retry",
        "abstention" | "sufficiency" => "abstained",
        "template_validation" | "parsing" | "unexpected_error" => "system",
        _ => return None,
    })
}

/// The failure group of a row's `metadata.failure`: its `group` (Karenina
/// writes the computed field) or, without one, its category's group. `None`
/// for no failure, or one that names neither (a CSV keeps only the reason).
pub(crate) fn failure_group(row: &Value) -> Option<String> {
    let f = row["metadata"].get("failure").filter(|f| f.is_object())?;
    if let Some(g) = f.get("group").and_then(Value::as_str) {
        return Some(g.to_string());
    }
    f.get("category")
        .and_then(Value::as_str)
        .and_then(group_of_category)
        .map(str::to_string)
}

/// The outcome class of a row:
/// - a row with a failure (`metadata.failure` not null) is its failure
///   group (`content`, `abstained`, `autofail`, `retry`, `system`): the
///   verdict Karenina's failure classifier gave it;
/// - a row without one is `passed` when template verification was performed
///   and `verify_result` is true, else `no_verdict` (rubric-only rows, and
///   rows whose template was not verified);
/// - `None` when the row has a failure whose group cannot be told (a CSV
///   export keeps a failure's reason but not its category).
///
/// So every row of a JSON export, run folder or database has exactly one
/// class. `passed` here is stricter than the numerator of Karenina's
/// template pass rate (`template_pass_by_combo`), which counts every
/// verified row whose `verify_result` is true, failure or not (a
/// sufficiency failure after a passing template, a retry exhausted on a
/// later stage).
pub(crate) fn outcome(row: &Value) -> Option<&'static str> {
    let failed = row["metadata"].get("failure").is_some_and(|f| !f.is_null());
    if failed {
        let g = failure_group(row)?;
        return OUTCOMES[1..6].iter().find(|o| **o == g).copied();
    }
    let t = &row["template"];
    let performed = t.get("template_verification_performed") == Some(&Value::Bool(true));
    let verified = t.get("verify_result") == Some(&Value::Bool(true));
    Some(if performed && verified {
        "passed"
    } else {
        "no_verdict"
    })
}

/// `ModelIdentity.display_string` of a metadata identity object
/// (`interface:model_name`, ` (config_id)`, ` +[tool, …]`); None without an
/// interface and a model name.
pub fn identity_display(id: &Value) -> Option<String> {
    let (i, m) = (
        id.get("interface")?.as_str()?,
        id.get("model_name")?.as_str()?,
    );
    let mut s = format!("{i}:{m}");
    if let Some(c) = id.get("config_id").and_then(Value::as_str) {
        if !c.is_empty() {
            s.push_str(&format!(" ({c})"));
        }
    }
    let tools: Vec<&str> = id
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if !tools.is_empty() {
        s.push_str(&format!(" +[{}]", tools.join(", ")));
    }
    Some(s)
}

/// `ModelIdentity.canonical_key` of a metadata identity object:
/// `interface:model_name:tools` or, with a (non-empty) config id,
/// `interface:model_name:config_id:tools`; tools sorted, joined by `|`.
pub(crate) fn canonical_key(id: &Value) -> String {
    let mut tools: Vec<&str> = id["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    tools.sort_unstable();
    let i = id["interface"].as_str().unwrap_or("");
    let m = id["model_name"].as_str().unwrap_or("");
    match id["config_id"].as_str().filter(|c| !c.is_empty()) {
        Some(c) => format!("{i}:{m}:{c}:{}", tools.join("|")),
        None => format!("{i}:{m}:{}", tools.join("|")),
    }
}

/// A row's identity as `karenina repair` writes it in `selected_keys`
/// (`_key_string(ResultRowKey.from_result(row))`): question ID, answering
/// and parsing canonical keys, replicate (`none` when null) and run name
/// (empty when null), joined by `|`.
pub(crate) fn row_key(row: &Value) -> String {
    let m = &row["metadata"];
    let replicate = match &m["replicate"] {
        Value::Number(n) => n.to_string(),
        _ => "none".to_string(),
    };
    [
        m["question_id"].as_str().unwrap_or("").to_string(),
        canonical_key(&m["answering"]),
        canonical_key(&m["parsing"]),
        replicate,
        m["run_name"].as_str().unwrap_or("").to_string(),
    ]
    .join("|")
}

/// `ModelIdentity.display_string` of the row's answering or parsing model
/// (`side`): `interface:model_name`, then ` (config_id)` when there is one,
/// then ` +[tool, …]` when it has tools. A format 2.0 row's flat
/// `answering_model` string is taken as it is.
pub(crate) fn display_string(row: &Value, side: &str) -> String {
    if let Some(s) = identity_display(&row["metadata"][side]) {
        return s;
    }
    match row.get(format!("{side}_model")).and_then(Value::as_str) {
        Some(s) => s.to_string(),
        None => {
            let (i, n) = model_of(row, side);
            format!("{i}:{n}")
        }
    }
}

/// The (interface, model name) of a row's answering or parsing model
/// (`side`); format 2.0 rows have flat `provider/model` strings instead.
pub(crate) fn model_of(row: &Value, side: &str) -> (String, String) {
    let id = &row["metadata"][side];
    match (id.get("interface"), id.get("model_name")) {
        (Some(i), Some(n)) => (
            i.as_str().unwrap_or("unknown").to_string(),
            n.as_str().unwrap_or("unknown").to_string(),
        ),
        // (Karenina's format 2.0 rows, and the GUI's, keep them in
        // `metadata`; `load_legacy_result_set` splits them at the first `/`.)
        _ => match row
            .get(format!("{side}_model"))
            .or_else(|| row["metadata"].get(format!("{side}_model")))
            .and_then(Value::as_str)
        {
            Some(s) => match s.split_once('/') {
                Some((p, m)) => (p.to_string(), m.to_string()),
                None => ("unknown".into(), s.to_string()),
            },
            None => ("unknown".into(), "unknown".into()),
        },
    }
}

/// The answering MCP servers of a row (`template.answering_mcp_servers`),
/// sorted as Karenina sorts them for its combo key.
pub(crate) fn mcp_servers(row: &Value) -> Vec<String> {
    let mut v: Vec<String> = row["template"]
        .get("answering_mcp_servers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

/// `VerificationResultSet._combo_key_to_string`: `answering | parsing`, or
/// `answering | parsing | mcp1, mcp2` with the MCP servers sorted.
pub(crate) fn combo(answering: &str, parsing: &str, mcp: &[String]) -> String {
    if mcp.is_empty() {
        format!("{answering} | {parsing}")
    } else {
        format!("{answering} | {parsing} | {}", mcp.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(failure: Value, performed: Option<bool>, verify: Value) -> Value {
        let mut t = json!({"verify_result": verify});
        if let Some(p) = performed {
            t["template_verification_performed"] = json!(p);
        }
        json!({"metadata": {"failure": failure}, "template": t})
    }

    #[test]
    fn every_row_has_one_outcome_and_failures_win() {
        let fail = |c: &str| json!({"category": c, "stage": "s", "reason": "r"});
        assert_eq!(
            outcome(&row(Value::Null, Some(true), json!(true))),
            Some("passed")
        );
        // No failure, but nothing verified true: no verdict.
        for (p, v) in [
            (Some(true), json!(false)),
            (Some(false), json!(true)),
            (None, json!(true)),
            (Some(true), Value::Null),
        ] {
            assert_eq!(outcome(&row(Value::Null, p, v)), Some("no_verdict"));
        }
        // A failure is its group even when the template verified true (a
        // sufficiency failure, a retry exhausted after verification).
        for (c, g) in [
            ("content", "content"),
            ("sufficiency", "abstained"),
            ("abstention", "abstained"),
            ("deep_judgment_rubric", "autofail"),
            ("recursion_limit", "autofail"),
            ("timeout", "retry"),
            ("rate_limit", "retry"),
            ("parsing", "system"),
            ("unexpected_error", "system"),
        ] {
            assert_eq!(
                outcome(&row(fail(c), Some(true), json!(true))),
                Some(g),
                "{c}"
            );
        }
        // The written group is taken as it is.
        let written = json!({"category": "connection", "group": "retry"});
        assert_eq!(
            outcome(&row(written, Some(false), Value::Null)),
            Some("retry")
        );
        // A CSV failure (reason only) has no class: the CSV cannot tell.
        assert_eq!(
            outcome(&row(json!({"reason": "x"}), Some(true), json!(true))),
            None
        );
        // A row without a failure key at all (older layouts).
        let bare = json!({"metadata": {}, "template": {"template_verification_performed": true, "verify_result": true}});
        assert_eq!(outcome(&bare), Some("passed"));
    }

    #[test]
    fn display_strings_and_combos_are_karenina_s() {
        let r = json!({"metadata": {
            "answering": {"interface": "openai_endpoint", "model_name": "Qwen/Qwen3-8B",
                          "tools": ["pubmed", "brave_search"], "config_id": "qwen-local"},
            "parsing": {"interface": "langchain", "model_name": "gpt-4.1-nano", "tools": [], "config_id": null}},
            "template": {"answering_mcp_servers": ["pubmed", "brave_search"]}});
        let a = display_string(&r, "answering");
        assert_eq!(
            a,
            "openai_endpoint:Qwen/Qwen3-8B (qwen-local) +[pubmed, brave_search]"
        );
        let p = display_string(&r, "parsing");
        assert_eq!(p, "langchain:gpt-4.1-nano");
        let mcp = mcp_servers(&r);
        assert_eq!(mcp, ["brave_search", "pubmed"]);
        assert_eq!(
            combo(&a, &p, &mcp),
            "openai_endpoint:Qwen/Qwen3-8B (qwen-local) +[pubmed, brave_search] | langchain:gpt-4.1-nano | brave_search, pubmed"
        );
        assert_eq!(combo("a:b", "c:d", &[]), "a:b | c:d");
        let flat = json!({"metadata": {}, "answering_model": "openai/gpt-4"});
        assert_eq!(display_string(&flat, "answering"), "openai/gpt-4");
    }
}
