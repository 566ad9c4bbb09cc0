//! Karenina's `ModelConfig` as an agentic trait's `model_override`
//! (`schemas/config/models.py`, `utils/retry_policy.py`).
//!
//! Why: the agentic trait converter builds `ModelConfig(**value)` from every
//! `model_override` property whose value is an object, and that model
//! forbids unknown fields, types each field (pydantic's lax mode), nests
//! four more models that forbid unknown fields, and checks the interface;
//! the trait then requires an interface whose adapter runs agents
//! (`agent_tier == "deep_agent"`). Any of these raising fails
//! `Benchmark.load` (a question's trait) or the rubric read (a global or
//! dynamic trait), so `kld validate` judges the value the same way. The
//! adapter tiers are Karenina's registry's (`AdapterRegistry`).

use super::lax;
use crate::json::{Json, Object};

/// The registered interfaces whose adapter runs agents (`deep_agent`).
const AGENT_INTERFACES: [&str; 2] = ["claude_agent_sdk", "langchain_deep_agents"];
/// Every registered interface (the others are `tool_loop`).
const INTERFACES: [&str; 8] = [
    "claude_agent_sdk",
    "claude_tool",
    "langchain",
    "langchain_deep_agents",
    "manual",
    "openai_endpoint",
    "openrouter",
    "taskeval",
];

/// A field's type, as pydantic validates it.
#[derive(Clone, Copy)]
enum Ty {
    Str,
    Float,
    Int,
    Bool,
    Literal(&'static [&'static str]),
    /// `dict[str, str]`.
    StrMap,
    /// `list[str]` (or `tuple[str, ...]`).
    StrList,
    /// `dict[str, Any]`.
    Dict,
    Any,
    /// A nested model (a JSON object; unknown fields forbidden).
    Model(&'static [Field]),
}

/// One field of a model.
#[derive(Clone, Copy)]
struct Field {
    name: &'static str,
    ty: Ty,
    /// `None` is allowed.
    optional: bool,
    /// `ge` (inclusive) or `gt` bound.
    min: Option<(f64, bool)>,
    /// `le` bound.
    max: Option<f64>,
    /// Required (no default).
    required: bool,
}

const fn f(name: &'static str, ty: Ty) -> Field {
    Field {
        name,
        ty,
        optional: false,
        min: None,
        max: None,
        required: false,
    }
}
const fn opt(name: &'static str, ty: Ty) -> Field {
    Field {
        optional: true,
        ..f(name, ty)
    }
}
const fn ge(field: Field, min: f64) -> Field {
    Field {
        min: Some((min, true)),
        ..field
    }
}
const fn gt(field: Field, min: f64) -> Field {
    Field {
        min: Some((min, false)),
        ..field
    }
}

const AGENT_RUNTIME: &[Field] = &[
    opt(
        "backend",
        Ty::Literal(&["native", "filesystem", "container", "docker", "local_shell"]),
    ),
    f("access_mode", Ty::Literal(&["read_write", "read_only"])),
    f("sandbox_enabled", Ty::Bool),
    f(
        "container_runtime",
        Ty::Literal(&["docker", "singularity", "apptainer"]),
    ),
    opt("container_image", Ty::Str),
    f("container_network", Ty::Literal(&["bridge", "none"])),
    f("container_add_hosts", Ty::StrList),
    gt(opt("read_max_bytes", Ty::Int), 0.0),
];
const LIMITS: &[Field] = &[
    ge(f("model_call_limit", Ty::Int), 1.0),
    ge(f("tool_call_limit", Ty::Int), 1.0),
    f("exit_behavior", Ty::Literal(&["end", "continue"])),
];
const MODEL_RETRY: &[Field] = &[
    ge(f("max_retries", Ty::Int), 0.0),
    f("backoff_factor", Ty::Float),
    f("initial_delay", Ty::Float),
    f("max_delay", Ty::Float),
    f("jitter", Ty::Bool),
    f("on_failure", Ty::Literal(&["continue", "raise"])),
];
const TOOL_RETRY: &[Field] = &[
    ge(f("max_retries", Ty::Int), 0.0),
    f("backoff_factor", Ty::Float),
    f("initial_delay", Ty::Float),
    f("on_failure", Ty::Literal(&["return_message", "raise"])),
];
const SUMMARIZATION: &[Field] = &[
    f("enabled", Ty::Bool),
    opt("model", Ty::Str),
    Field {
        max: Some(1.0),
        ..ge(f("trigger_fraction", Ty::Float), 0.0)
    },
    ge(opt("trigger_tokens", Ty::Int), 1.0),
    ge(f("keep_messages", Ty::Int), 1.0),
];
const PROMPT_CACHING: &[Field] = &[
    f("enabled", Ty::Bool),
    f("ttl", Ty::Literal(&["5m", "1h"])),
    ge(f("min_messages_to_cache", Ty::Int), 0.0),
    f(
        "unsupported_model_behavior",
        Ty::Literal(&["ignore", "warn", "raise"]),
    ),
];
const MIDDLEWARE: &[Field] = &[
    f("limits", Ty::Model(LIMITS)),
    f("model_retry", Ty::Model(MODEL_RETRY)),
    f("tool_retry", Ty::Model(TOOL_RETRY)),
    f("summarization", Ty::Model(SUMMARIZATION)),
    f("prompt_caching", Ty::Model(PROMPT_CACHING)),
];
const CATEGORY_RETRY: &[Field] = &[
    ge(f("max_attempts", Ty::Int), 0.0),
    ge(f("backoff_min", Ty::Float), 0.0),
    ge(f("backoff_max", Ty::Float), 0.0),
    ge(f("backoff_multiplier", Ty::Float), 1.0),
];
const TIMEOUT_ESCALATION: &[Field] = &[
    Field {
        required: true,
        ..f(
            "strategy",
            Ty::Literal(&["additive", "multiplicative", "linear"]),
        )
    },
    ge(f("increment", Ty::Float), 0.0),
    ge(f("multiplier", Ty::Float), 1.0),
    ge(opt("max_timeout", Ty::Float), 0.0),
];
const RETRY_POLICY: &[Field] = &[
    f("connection", Ty::Model(CATEGORY_RETRY)),
    f("timeout", Ty::Model(CATEGORY_RETRY)),
    f("rate_limit", Ty::Model(CATEGORY_RETRY)),
    f("server_error", Ty::Model(CATEGORY_RETRY)),
    opt("timeout_escalation", Ty::Model(TIMEOUT_ESCALATION)),
];
const MODEL_CONFIG: &[Field] = &[
    opt("id", Ty::Str),
    opt("model_provider", Ty::Str),
    opt("model_name", Ty::Str),
    f("temperature", Ty::Float),
    f("max_tokens", Ty::Int),
    f("interface", Ty::Str),
    opt("system_prompt", Ty::Str),
    f("max_retries", Ty::Int),
    opt("mcp_urls_dict", Ty::StrMap),
    opt("mcp_tool_filter", Ty::StrList),
    opt("mcp_tool_description_overrides", Ty::StrMap),
    opt("mcp_http_timeout", Ty::Float),
    opt("mcp_sse_read_timeout", Ty::Float),
    opt("endpoint_base_url", Ty::Str),
    opt("endpoint_api_key", Ty::Str),
    opt("anthropic_base_url", Ty::Str),
    opt("anthropic_api_key", Ty::Str),
    opt("agent_runtime", Ty::Model(AGENT_RUNTIME)),
    opt("extra_kwargs", Ty::Dict),
    f("manual_traces", Ty::Any),
    opt("agent_middleware", Ty::Model(MIDDLEWARE)),
    opt("max_context_tokens", Ty::Int),
    opt("agent_timeout", Ty::Int),
    opt("request_timeout", Ty::Float),
    opt("retry_policy", Ty::Model(RETRY_POLICY)),
];

/// A number for a bound check.
fn number(v: &Json, ty: Ty) -> Option<f64> {
    match ty {
        Ty::Int => lax::int(v).ok().map(|n| n as f64),
        Ty::Float => lax::float(v).ok(),
        _ => None,
    }
}

/// The first field error of `v` as the model `fields` (`at`: its dotted name).
fn check_model(v: &Json, fields: &[Field], at: &str) -> Result<(), String> {
    let Json::Object(o) = v else {
        return Err(format!("`{at}` is {}, not an object", v.kind()));
    };
    for (k, _) in o.iter() {
        if !fields.iter().any(|fd| fd.name == k) {
            return Err(format!(
                "`{at}` has the unknown field {k:?} (extra fields are forbidden)"
            ));
        }
    }
    for fd in fields {
        let name = format!("{at}.{}", fd.name);
        match o.get(fd.name) {
            None if fd.required => return Err(format!("`{name}` is required")),
            None | Some(Json::Null) if fd.optional || matches!(fd.ty, Ty::Any) => {}
            None => {}
            Some(Json::Null) => return Err(format!("`{name}` is null")),
            Some(x) => check_field(x, fd, &name)?,
        }
    }
    Ok(())
}

fn check_field(x: &Json, fd: &Field, name: &str) -> Result<(), String> {
    let typed = match fd.ty {
        Ty::Str => lax::string(x).map(|_| ()),
        Ty::Float => lax::float(x).map(|_| ()),
        Ty::Int => lax::int(x).map(|_| ()),
        Ty::Bool => lax::boolean(x).map(|_| ()),
        Ty::Literal(allowed) => match x.as_str() {
            Some(s) if allowed.contains(&s) => Ok(()),
            _ => Err(lax::Refused(format!(
                "{} is not one of {}",
                crate::model::show(x),
                allowed.join(", ")
            ))),
        },
        Ty::StrMap => lax::string_map(x).map(|_| ()),
        Ty::StrList => lax::strings(x).map(|_| ()),
        Ty::Dict => match x {
            Json::Object(_) => Ok(()),
            other => Err(lax::Refused(format!(
                "{} is not a valid dictionary",
                other.kind()
            ))),
        },
        Ty::Any => Ok(()),
        Ty::Model(fields) => return check_model(x, fields, name),
    };
    typed.map_err(|e| format!("`{name}`: {e}"))?;
    if let Some(n) = number(x, fd.ty) {
        let low = match fd.min {
            Some((m, true)) => n >= m,
            Some((m, false)) => n > m,
            None => true,
        };
        let high = fd.max.is_none_or(|m| n <= m);
        if !(low && high) {
            return Err(format!("`{name}` is out of range"));
        }
    }
    Ok(())
}

fn str_member<'a>(o: &'a Object, k: &str) -> Option<&'a str> {
    o.get(k).and_then(Json::as_str)
}

fn present(o: &Object, k: &str) -> bool {
    !matches!(o.get(k), None | Some(Json::Null))
}

/// Why Karenina refuses the object `v` as an agentic trait's
/// `model_override` (`ModelConfig(**v)`, then the trait's agent-tier
/// check), or `None` when it takes it.
pub(crate) fn override_problem(v: &Json) -> Option<String> {
    let at = "model_override";
    if let Err(e) = check_model(v, MODEL_CONFIG, at) {
        return Some(e);
    }
    let o = v.as_object()?;
    if let Some(Json::Object(t)) = o.get("retry_policy") {
        if let Some(Json::Object(e)) = t.get("timeout_escalation") {
            let num = |k: &str, d: f64| e.get(k).and_then(|x| lax::float(x).ok()).unwrap_or(d);
            let bad = match str_member(e, "strategy") {
                Some("additive") => num("increment", 0.0) <= 0.0,
                Some("multiplicative") => num("multiplier", 1.0) <= 1.0,
                Some("linear") => !present(e, "max_timeout"),
                _ => false,
            };
            if bad {
                return Some(format!("`{at}.retry_policy.timeout_escalation`: the strategy's parameter is missing or out of range"));
            }
        }
    }
    let interface = str_member(o, "interface").unwrap_or("langchain");
    // validate_manual_interface
    if interface == "manual" {
        if matches!(o.get("manual_traces"), Some(Json::Bool(_))) {
            return Some(format!(
                "`{at}.manual_traces` must be a ManualTraces instance, not a bool"
            ));
        }
        if !present(o, "manual_traces") {
            return Some(format!(
                "`{at}`: manual_traces is required when interface='manual'"
            ));
        }
        if present(o, "mcp_urls_dict") {
            return Some(format!(
                "`{at}`: MCP tools are not supported with the manual interface"
            ));
        }
    } else {
        for k in ["id", "model_name"] {
            if !present(o, k) {
                return Some(format!("`{at}.{k}` is required for non-manual interfaces"));
            }
        }
    }
    // validate_anthropic_connection_fields
    if present(o, "anthropic_base_url") || present(o, "anthropic_api_key") {
        let supported = [
            "claude_agent_sdk",
            "claude_tool",
            "langchain",
            "langchain_deep_agents",
        ];
        if !supported.contains(&interface) {
            return Some(format!(
                "`{at}`: anthropic_base_url and anthropic_api_key are not supported for interface {interface:?}"
            ));
        }
        if matches!(interface, "langchain" | "langchain_deep_agents")
            && str_member(o, "model_provider") != Some("anthropic")
        {
            return Some(format!(
                "`{at}`: anthropic_base_url and anthropic_api_key need model_provider 'anthropic' for interface {interface:?}"
            ));
        }
        if let Some(Json::Object(extra)) = o.get("extra_kwargs") {
            for (field, k) in [
                ("base_url", "anthropic_base_url"),
                ("api_key", "anthropic_api_key"),
            ] {
                if present(o, k) && present(extra, field) {
                    return Some(format!(
                        "`{at}`: {k} conflicts with extra_kwargs[{field:?}]"
                    ));
                }
            }
        }
    }
    // validate_interface_registered, then the trait's agent tier.
    if !INTERFACES.contains(&interface) {
        return Some(format!("`{at}`: unknown interface {interface:?}"));
    }
    if !AGENT_INTERFACES.contains(&interface) {
        return Some(format!(
            "`{at}`: interface {interface:?} does not run agents (agentic traits need {})",
            AGENT_INTERFACES.join(" or ")
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(s: &str) -> Json {
        crate::json::parse(s.as_bytes()).unwrap()
    }

    #[test]
    fn an_agent_interface_with_id_and_name_is_taken_and_the_rest_refused() {
        let ok = r#"{"id": "a", "model_name": "m", "interface": "claude_agent_sdk", "temperature": "0.5", "agent_runtime": {"backend": "docker"}, "retry_policy": {"timeout": {"max_attempts": 2}}}"#;
        assert_eq!(override_problem(&j(ok)), None);
        for bad in [
            r#"{"id": "a", "model_name": "m", "interface": "claude_agent_sdk", "colour": 1}"#,
            r#"{"id": "a", "model_name": "m"}"#,
            r#"{"id": "a", "interface": "claude_agent_sdk"}"#,
            r#"{"id": "a", "model_name": "m", "interface": "nope"}"#,
            r#"{"id": "a", "model_name": "m", "interface": "claude_agent_sdk", "max_tokens": 3.5}"#,
            r#"{"id": "a", "model_name": "m", "interface": "claude_agent_sdk", "agent_runtime": {"x": 1}}"#,
            r#"{"id": "a", "model_name": "m", "interface": "claude_agent_sdk", "agent_middleware": {"limits": {"model_call_limit": 0}}}"#,
            r#"{"id": "a", "model_name": "m", "interface": "langchain_deep_agents", "anthropic_api_key": "k"}"#,
            r#"{"id": "a", "model_name": "m", "interface": "claude_agent_sdk", "retry_policy": {"timeout_escalation": {"strategy": "linear"}}}"#,
        ] {
            assert!(override_problem(&j(bad)).is_some(), "{bad}");
        }
    }
}
