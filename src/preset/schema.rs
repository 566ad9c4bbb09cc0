//! The fields of Karenina's `VerificationConfig` and `ModelConfig` (Karenina
//! `schemas/verification/config.py`, `schemas/config/models.py`): name, type and default, in Pydantic declaration order, which is the
//! order `model_dump()` writes.

/// The type of a config field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ty {
    /// `bool`
    Bool,
    /// `int` with a lower bound.
    Int(i64),
    /// `int | None`
    OptInt,
    /// `float`
    Float,
    /// `float | None`
    OptFloat,
    /// `str`
    Str,
    /// `str | None`
    OptStr,
    /// One of these strings.
    Enum(&'static [&'static str]),
    /// `list[str]`
    ListStr,
    /// `list[str] | None`
    OptListStr,
    /// A nested object (sub-model or dict) or null.
    OptObj,
    /// A nested object, never null.
    Obj,
    /// A list of `ModelConfig`.
    Models,
    /// `SecretStr | None`
    Secret,
    /// Anything (dicts whose inner shape Karenina validates elsewhere).
    Any,
}

/// One field: name, type, default as JSON text.
pub type Field = (&'static str, Ty, &'static str);

const RETRY_POLICY_DEFAULT: &str = r#"{"connection": {"max_attempts": 3, "backoff_min": 1.0, "backoff_max": 10.0, "backoff_multiplier": 2.0}, "timeout": {"max_attempts": 3, "backoff_min": 5.0, "backoff_max": 30.0, "backoff_multiplier": 2.0}, "rate_limit": {"max_attempts": 5, "backoff_min": 5.0, "backoff_max": 30.0, "backoff_multiplier": 2.0}, "server_error": {"max_attempts": 2, "backoff_min": 2.0, "backoff_max": 15.0, "backoff_multiplier": 2.0}, "timeout_escalation": null}"#;

/// `VerificationConfig` fields (excluded fields `replay_store` and
/// `skip_triples` are not dumped and not accepted).
pub const VERIFICATION: &[Field] = &[
    ("answering_models", Ty::Models, "[]"),
    ("parsing_models", Ty::Models, "REQUIRED"),
    ("replicate_count", Ty::Int(1), "1"),
    ("parsing_only", Ty::Bool, "false"),
    ("rubric_trait_names", Ty::OptListStr, "null"),
    (
        "rubric_evaluation_strategy",
        Ty::Enum(&["batch", "sequential"]),
        "\"batch\"",
    ),
    (
        "evaluation_mode",
        Ty::Enum(&["template_only", "template_and_rubric", "rubric_only"]),
        "\"template_only\"",
    ),
    ("use_full_trace_for_template", Ty::Bool, "false"),
    ("use_full_trace_for_rubric", Ty::Bool, "true"),
    ("allow_partial_trace_scoring", Ty::Bool, "true"),
    ("abstention_enabled", Ty::Bool, "false"),
    ("sufficiency_enabled", Ty::Bool, "false"),
    ("include_extraction_hints", Ty::Bool, "true"),
    ("embedding_check_enabled", Ty::Bool, "false"),
    ("embedding_check_model", Ty::Str, "\"all-MiniLM-L6-v2\""),
    ("embedding_check_threshold", Ty::Float, "0.85"),
    ("async_enabled", Ty::Bool, "true"),
    ("async_max_workers", Ty::Int(1), "2"),
    ("max_concurrent_requests", Ty::OptInt, "null"),
    ("batch_timeout_seconds", Ty::OptFloat, "null"),
    ("task_ordering", Ty::Str, "\"auto\""),
    ("answerer_concurrency_limits", Ty::OptObj, "null"),
    ("deep_judgment_mode", Ty::Str, "\"disabled\""),
    ("deep_judgment_max_excerpts_per_attribute", Ty::Int(0), "3"),
    ("deep_judgment_fuzzy_match_threshold", Ty::Float, "0.8"),
    ("deep_judgment_excerpt_retry_attempts", Ty::Int(0), "2"),
    ("deep_judgment_search_enabled", Ty::Bool, "false"),
    ("deep_judgment_search_tool", Ty::Str, "\"tavily\""),
    ("deep_judgment_rubric_max_excerpts_default", Ty::Int(0), "7"),
    (
        "deep_judgment_rubric_fuzzy_match_threshold_default",
        Ty::Float,
        "0.8",
    ),
    (
        "deep_judgment_rubric_excerpt_retry_attempts_default",
        Ty::Int(0),
        "2",
    ),
    ("deep_judgment_rubric_search_tool", Ty::Str, "\"tavily\""),
    (
        "deep_judgment_rubric_mode",
        Ty::Enum(&["disabled", "enable_all", "use_checkpoint", "custom"]),
        "\"disabled\"",
    ),
    ("deep_judgment_rubric_global_excerpts", Ty::Bool, "true"),
    ("deep_judgment_rubric_config", Ty::OptObj, "null"),
    ("few_shot_config", Ty::OptObj, "null"),
    ("prompt_config", Ty::OptObj, "null"),
    ("agentic_parsing", Ty::Bool, "false"),
    ("agentic_parsing_trigger", Ty::Str, "\"always\""),
    (
        "agentic_judge_context",
        Ty::Enum(&["workspace_only", "trace_and_workspace", "trace_only"]),
        "\"workspace_only\"",
    ),
    ("agentic_parsing_max_turns", Ty::Int(1), "15"),
    ("agentic_parsing_timeout", Ty::Float, "120.0"),
    ("agentic_parsing_materialize_trace", Ty::Bool, "false"),
    ("agentic_parsing_persist_trace", Ty::Bool, "false"),
    ("agentic_rubric_strategy", Ty::Str, "\"individual\""),
    ("agentic_rubric_parallel", Ty::Bool, "false"),
    ("workspace_copy", Ty::Bool, "true"),
    ("workspace_cleanup", Ty::Bool, "true"),
    ("workspace_output_mode", Ty::Str, "\"none\""),
    ("workspace_output_dir", Ty::OptStr, "null"),
    ("workspace_output_exclude_patterns", Ty::ListStr, "[]"),
    ("db_config", Ty::OptObj, "null"),
    ("request_timeout", Ty::Float, "120.0"),
    ("scenario_turn_limit", Ty::Int(1), "20"),
    (
        "replay_parse_on_hydration_mismatch",
        Ty::Str,
        "\"fall_through\"",
    ),
    ("retry_policy", Ty::Obj, RETRY_POLICY_DEFAULT),
    ("custom_error_patterns", Ty::Any, "[]"),
    ("max_requeue_count", Ty::Int(0), "5"),
];

/// The interfaces Karenina registers.
pub(crate) const INTERFACES: &[&str] = &[
    "langchain",
    "openrouter",
    "openai_endpoint",
    "manual",
    "claude_agent_sdk",
    "claude_tool",
    "langchain_deep_agents",
    "taskeval",
];

/// `ModelConfig` fields (`manual_traces` is excluded from dumps).
pub const MODEL: &[Field] = &[
    ("id", Ty::OptStr, "null"),
    ("model_provider", Ty::OptStr, "null"),
    ("model_name", Ty::OptStr, "null"),
    ("temperature", Ty::Float, "0.1"),
    ("max_tokens", Ty::Int(1), "16384"),
    ("interface", Ty::Enum(INTERFACES), "\"langchain\""),
    ("system_prompt", Ty::OptStr, "null"),
    ("max_retries", Ty::Int(0), "2"),
    ("mcp_urls_dict", Ty::OptObj, "null"),
    ("mcp_tool_filter", Ty::OptListStr, "null"),
    ("mcp_tool_description_overrides", Ty::OptObj, "null"),
    ("mcp_http_timeout", Ty::OptFloat, "null"),
    ("mcp_sse_read_timeout", Ty::OptFloat, "null"),
    ("endpoint_base_url", Ty::OptStr, "null"),
    ("endpoint_api_key", Ty::Secret, "null"),
    ("anthropic_base_url", Ty::OptStr, "null"),
    ("anthropic_api_key", Ty::Secret, "null"),
    ("agent_runtime", Ty::OptObj, "null"),
    ("extra_kwargs", Ty::OptObj, "null"),
    ("agent_middleware", Ty::OptObj, "null"),
    ("max_context_tokens", Ty::OptInt, "null"),
    ("agent_timeout", Ty::OptInt, "null"),
    ("request_timeout", Ty::OptFloat, "null"),
    ("retry_policy", Ty::OptObj, "null"),
];

/// Fields of `prompt_config`; `<field>_instructions` at top level is folded in.
pub(crate) const PROMPT_FIELDS: &[&str] = &[
    "generation",
    "parsing",
    "abstention_detection",
    "sufficiency_detection",
    "rubric_evaluation",
    "agentic_parsing",
    "deep_judgment",
];

/// The system prompt Karenina gives answering models that have none.
pub const DEFAULT_ANSWERING_PROMPT: &str =
    "You are an expert assistant. Answer the question accurately and concisely.";

/// What Karenina writes for a `SecretStr` in `model_dump(mode="json")`.
pub(crate) const MASKED_SECRET: &str = "**********";
