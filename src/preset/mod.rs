//! Karenina verification presets (spec §7): read, validate, save, list, diff.
//!
//! A preset wraps a whole `VerificationConfig` with metadata. Validation follows
//! Karenina's models (`extra="forbid"`, types, interface rules); saving writes the
//! bytes Karenina's `save_preset` writes (full config dump in field order,
//! sanitized models, `indent=2`, ASCII-escaped, no trailing newline), except
//! that API keys are never written unless asked (Karenina writes a masked
//! `"**********"` that reloads as the key).

pub mod schema;

use crate::error::{self, Diagnostic, Report};
use crate::json::{self, Json, JsonPath, Number, Object};
use schema::{Field, Ty};
use std::path::{Path, PathBuf};

/// A preset file as read.
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    /// `id` (uuid4 string), if any.
    pub id: Option<String>,
    /// `name`, if any (skill assets have none).
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// The config with every default filled in, in Karenina's dump order.
    pub config: Object,
    /// `updated_at`.
    pub updated_at: Option<String>,
}

struct Cx {
    diags: Vec<Diagnostic>,
}

impl Cx {
    fn err(&mut self, code: &'static str, p: JsonPath, m: impl Into<String>) {
        self.diags.push(Diagnostic::error(code, p, m));
    }
    fn warn(&mut self, code: &'static str, p: JsonPath, m: impl Into<String>) {
        self.diags.push(Diagnostic::warning(code, p, m));
    }
}

fn default_of(text: &str) -> Json {
    json::parse(text.as_bytes()).expect("schema defaults are valid JSON")
}

fn float(v: f64) -> Json {
    Json::Number(Number::from_f64(v))
}

/// Checks one value against its type; returns it normalized (floats as floats).
fn check(ty: Ty, v: Json, p: &JsonPath, cx: &mut Cx) -> Option<Json> {
    let kind = v.kind();
    let bad = |cx: &mut Cx, want: &str| {
        cx.err(
            "KLD-E102",
            p.clone(),
            format!("expected {want}, found {kind}"),
        );
        None
    };
    match (ty, v) {
        (
            Ty::OptInt
            | Ty::OptFloat
            | Ty::OptStr
            | Ty::OptListStr
            | Ty::OptObj
            | Ty::Secret
            | Ty::Any,
            Json::Null,
        ) => Some(Json::Null),
        (Ty::Any, v) => Some(v),
        (Ty::Bool, Json::Bool(b)) => Some(Json::Bool(b)),
        (Ty::Int(_) | Ty::OptInt, Json::Number(n)) if n.as_f64().fract() == 0.0 => {
            let x = n.as_f64();
            let min = if let Ty::Int(m) = ty { m } else { i64::MIN };
            if x < min as f64 {
                cx.err(
                    "KLD-E103",
                    p.clone(),
                    format!("must be at least {min}, found {n}"),
                );
                return None;
            }
            Some(Json::Number(if n.is_integer() {
                n
            } else {
                Number::from_i64(x as i64)
            }))
        }
        (Ty::Float | Ty::OptFloat, Json::Number(n)) => Some(float(n.as_f64())),
        (Ty::Str | Ty::OptStr | Ty::Secret, Json::String(s)) => Some(Json::String(s)),
        (Ty::Enum(allowed), Json::String(s)) => {
            if allowed.contains(&s.as_str()) {
                Some(Json::String(s))
            } else {
                cx.err(
                    "KLD-E103",
                    p.clone(),
                    format!("{s:?} is not one of {}", allowed.join(", ")),
                );
                None
            }
        }
        (Ty::ListStr | Ty::OptListStr, Json::Array(a)) => {
            if let Some(i) = a.iter().position(|x| x.as_str().is_none()) {
                cx.err(
                    "KLD-E102",
                    p.index(i),
                    format!("expected a string, found {}", a[i].kind()),
                );
                return None;
            }
            Some(Json::Array(a))
        }
        (Ty::OptObj | Ty::Obj, Json::Object(o)) => Some(Json::Object(o)),
        (Ty::Models, Json::Array(a)) => {
            let mut out = Vec::new();
            let mut ok = true;
            for (i, m) in a.into_iter().enumerate() {
                match model(m, &p.index(i), cx) {
                    Some(m) => out.push(Json::Object(m)),
                    None => ok = false,
                }
            }
            ok.then_some(Json::Array(out))
        }
        (Ty::Bool, _) => bad(cx, "a boolean"),
        (Ty::Int(_) | Ty::OptInt, _) => bad(cx, "an integer"),
        (Ty::Float | Ty::OptFloat, _) => bad(cx, "a number"),
        (Ty::Str | Ty::OptStr | Ty::Secret | Ty::Enum(_), _) => bad(cx, "a string"),
        (Ty::ListStr | Ty::OptListStr, _) => bad(cx, "a list of strings"),
        (Ty::OptObj | Ty::Obj, _) => bad(cx, "an object"),
        (Ty::Models, _) => bad(cx, "a list of model configurations"),
    }
}

/// Fills `fields` from `input`: unknown keys are errors, missing ones get defaults.
fn fill(
    fields: &[Field],
    mut input: Object,
    p: &JsonPath,
    what: &str,
    allow: &[&str],
    cx: &mut Cx,
) -> Option<Object> {
    let mut out = Object::new();
    let mut ok = true;
    for (name, ty, default) in fields {
        let v = match input.remove(name) {
            Some(v) => match check(*ty, v, &p.key(name), cx) {
                Some(v) => v,
                None => {
                    ok = false;
                    continue;
                }
            },
            None if *default == "REQUIRED" => {
                cx.err(
                    "KLD-E104",
                    p.key(name),
                    format!("{what} is missing required field `{name}`"),
                );
                ok = false;
                continue;
            }
            None => default_of(default),
        };
        out.push(*name, v);
    }
    for (k, _) in input.0 {
        if !allow.contains(&k.as_str()) {
            cx.err(
                "KLD-E101",
                p.key(&k),
                format!("unknown field `{k}`: {what} forbids extra fields"),
            );
            ok = false;
        }
    }
    ok.then_some(out)
}

fn model(v: Json, p: &JsonPath, cx: &mut Cx) -> Option<Object> {
    let Json::Object(o) = v else {
        cx.err(
            "KLD-E102",
            p.clone(),
            format!("expected a model configuration object, found {}", v.kind()),
        );
        return None;
    };
    let has_traces = o.get("manual_traces").is_some();
    let mut m = fill(schema::MODEL, o, p, "ModelConfig", &["manual_traces"], cx)?;
    let s = |m: &Object, k: &str| m.get(k).and_then(Json::as_str).map(str::to_string);
    let interface = s(&m, "interface").unwrap_or_default();
    let truthy = |m: &Object, k: &str| {
        !matches!(m.get(k), None | Some(Json::Null))
            && m.get(k) != Some(&Json::String(String::new()))
    };
    if interface == "manual" {
        if !has_traces {
            cx.err("KLD-E105", p.key("interface"), "the manual interface needs `manual_traces`, which a preset cannot hold (Karenina excludes it from dumps)");
        }
        if truthy(&m, "mcp_urls_dict") {
            cx.err(
                "KLD-E105",
                p.key("mcp_urls_dict"),
                "the manual interface does not support MCP",
            );
        }
        for k in ["id", "model_name"] {
            if !truthy(&m, k) {
                set(&mut m, k, Json::String("manual".into()));
            }
        }
    } else {
        for k in ["id", "model_name"] {
            if !truthy(&m, k) {
                cx.err(
                    "KLD-E105",
                    p.key(k),
                    format!("`{k}` is required for the {interface} interface"),
                );
            }
        }
    }
    let provider = s(&m, "model_provider").unwrap_or_default();
    for k in ["anthropic_base_url", "anthropic_api_key"] {
        if truthy(&m, k) {
            let allowed = match interface.as_str() {
                "claude_agent_sdk" | "claude_tool" => true,
                "langchain" | "langchain_deep_agents" => provider == "anthropic",
                _ => false,
            };
            if !allowed {
                cx.err("KLD-E105", p.key(k), format!("`{k}` is only for claude_agent_sdk/claude_tool, or langchain interfaces with provider anthropic (interface {interface}, provider {provider:?})"));
            }
            let dup = if k.ends_with("base_url") {
                "base_url"
            } else {
                "api_key"
            };
            if m.get("extra_kwargs")
                .and_then(Json::as_object)
                .is_some_and(|e| e.get(dup).is_some())
            {
                cx.err(
                    "KLD-E105",
                    p.key("extra_kwargs"),
                    format!("`extra_kwargs.{dup}` duplicates `{k}`"),
                );
            }
        }
    }
    for k in ["endpoint_api_key", "anthropic_api_key"] {
        if let Some(Json::String(v)) = m.get(k) {
            if v == schema::MASKED_SECRET {
                cx.warn("KLD-W101", p.key(k), format!("`{k}` is Karenina's mask \"**********\": it reloads as that literal string, not a key"));
            } else if !v.is_empty() {
                cx.warn(
                    "KLD-W102",
                    p.key(k),
                    format!("`{k}` holds a plain-text API key"),
                );
            }
        }
    }
    Some(m)
}

fn set(o: &mut Object, k: &str, v: Json) {
    if let Some(e) = o.0.iter_mut().find(|(x, _)| x == k) {
        e.1 = v;
    } else {
        o.push(k, v);
    }
}

fn merge_defaults(value: &mut Json, default: &Json) {
    if let (Json::Object(v), Json::Object(d)) = (&mut *value, default) {
        let mut out = Object::new();
        for (k, dv) in d.iter() {
            let mut x = v.remove(k).unwrap_or_else(|| dv.clone());
            merge_defaults(&mut x, dv);
            out.push(k, x);
        }
        out.0.append(&mut v.0);
        *v = out;
    }
}

/// Validates a `VerificationConfig` object and returns it with every default
/// filled in, in Karenina's dump order (including the computed `rubric_enabled`).
fn config(v: Json, p: &JsonPath, cx: &mut Cx) -> Option<Object> {
    let Json::Object(mut o) = v else {
        cx.err(
            "KLD-E102",
            p.clone(),
            format!("`config` must be an object, found {}", v.kind()),
        );
        return None;
    };
    // What VerificationConfig.__init__ drops or folds before validation.
    o.remove("rubric_enabled");
    o.remove("deep_judgment_rubric_search_enabled");
    let mut folded = Vec::new();
    for f in schema::PROMPT_FIELDS {
        if let Some(v) = o.remove(&format!("{f}_instructions")) {
            folded.push((*f, v));
        }
    }
    if !folded.is_empty() {
        let mut pc = match o.remove("prompt_config") {
            Some(Json::Object(pc)) => pc,
            _ => Object::new(),
        };
        for (f, v) in folded {
            cx.warn(
                "KLD-W104",
                p.key(&format!("{f}_instructions")),
                format!("`{f}_instructions` is folded into `prompt_config.{f}`"),
            );
            set(&mut pc, f, v);
        }
        o.push("prompt_config", Json::Object(pc));
    }
    let mut c = fill(schema::VERIFICATION, o, p, "VerificationConfig", &[], cx)?;
    if let Some(rp) = c.0.iter_mut().find(|(k, _)| k == "retry_policy") {
        let default = schema::VERIFICATION
            .iter()
            .find(|f| f.0 == "retry_policy")
            .map(|f| default_of(f.2))
            .unwrap_or(Json::Null);
        merge_defaults(&mut rp.1, &default);
    }
    // Answering models without a system prompt get Karenina's default one.
    if let Some(Json::Array(ms)) =
        c.0.iter_mut()
            .find(|(k, _)| k == "answering_models")
            .map(|(_, v)| v)
    {
        for m in ms.iter_mut().filter_map(|m| match m {
            Json::Object(o) => Some(o),
            _ => None,
        }) {
            if matches!(m.get("system_prompt"), None | Some(Json::Null)) {
                set(
                    m,
                    "system_prompt",
                    Json::String(schema::DEFAULT_ANSWERING_PROMPT.into()),
                );
            }
        }
    }
    let len = |k: &str| c.get(k).and_then(Json::as_array).map_or(0, <[Json]>::len);
    if len("parsing_models") == 0 {
        cx.err(
            "KLD-E105",
            p.key("parsing_models"),
            "at least one parsing model is required",
        );
    }
    if len("answering_models") == 0 && c.get("parsing_only") != Some(&Json::Bool(true)) {
        cx.err(
            "KLD-E105",
            p.key("answering_models"),
            "answering_models may be empty only when parsing_only is true",
        );
    }
    if c.get("deep_judgment_rubric_mode").and_then(Json::as_str) == Some("custom")
        && matches!(
            c.get("deep_judgment_rubric_config"),
            None | Some(Json::Null)
        )
    {
        cx.err(
            "KLD-E105",
            p.key("deep_judgment_rubric_config"),
            "deep_judgment_rubric_mode \"custom\" needs deep_judgment_rubric_config",
        );
    }
    let rubric = matches!(
        c.get("evaluation_mode").and_then(Json::as_str),
        Some("template_and_rubric" | "rubric_only")
    );
    c.push("rubric_enabled", Json::Bool(rubric));
    Some(c)
}

/// Reads and validates a preset file (or a bare config when it has no `config`
/// member but looks like one, e.g. input for `preset save`).
pub fn read(file: &Path, bytes: &[u8], bare_config_ok: bool) -> (Option<Preset>, Report) {
    let mut cx = Cx { diags: Vec::new() };
    let preset = match json::parse(bytes) {
        Err(f) => {
            cx.diags.push(Diagnostic::from_parse_failure(
                f,
                &String::from_utf8_lossy(bytes),
            ));
            None
        }
        Ok(Json::Object(mut o)) => {
            let root = JsonPath::root();
            let s = |o: &Object, k: &str| o.get(k).and_then(Json::as_str).map(str::to_string);
            let (id, name, description, updated_at) = (
                s(&o, "id"),
                s(&o, "name"),
                s(&o, "description"),
                s(&o, "updated_at"),
            );
            if let Some(n) = &name {
                if let Err(m) = validate_metadata(n, description.as_deref()) {
                    cx.warn(
                        "KLD-W106",
                        root.key("name"),
                        format!("{m} (Karenina enforces this when saving)"),
                    );
                }
            }
            let (cfg, cfg_path) = match o.remove("config") {
                Some(c) => (Some(c), root.key("config")),
                None if bare_config_ok && o.get("parsing_models").is_some() => {
                    (Some(Json::Object(o.clone())), root.clone())
                }
                None => (None, root.clone()),
            };
            match cfg {
                None | Some(Json::Null) => {
                    cx.err(
                        "KLD-E106",
                        root.key("config"),
                        "preset file has no configuration data (`config`)",
                    );
                    None
                }
                Some(Json::Object(c)) if c.is_empty() => {
                    cx.err(
                        "KLD-E106",
                        root.key("config"),
                        "preset file has no configuration data (`config` is empty)",
                    );
                    None
                }
                Some(c) => config(c, &cfg_path, &mut cx).map(|config| Preset {
                    id,
                    name,
                    description,
                    config,
                    updated_at,
                }),
            }
        }
        Ok(other) => {
            cx.err(
                "KLD-E010",
                JsonPath::root(),
                format!("a preset is a JSON object, found {}", other.kind()),
            );
            None
        }
    };
    let report = error::report(file, bytes, cx.diags);
    let has_errors = report.has_errors();
    (preset.filter(|_| !has_errors), report)
}

/// `sanitize_preset_name`: lowercase, spaces → `-`, keep `[a-z0-9-]`, collapse and
/// strip `-`, `preset` if empty, cut to 96, append `.json`.
pub fn sanitize_preset_name(name: &str) -> String {
    let lowered = name.to_lowercase().replace(' ', "-");
    let kept: String = lowered
        .chars()
        .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
        .collect();
    let mut collapsed = String::new();
    for c in kept.chars() {
        if !(c == '-' && collapsed.ends_with('-')) {
            collapsed.push(c);
        }
    }
    let mut s = collapsed.trim_matches('-').to_string();
    if s.is_empty() {
        s = "preset".into();
    }
    s.truncate(96);
    format!("{s}.json")
}

/// `validate_preset_metadata`: name non-empty after strip and at most 100
/// characters, description at most 500.
pub fn validate_metadata(name: &str, description: Option<&str>) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err("preset name must not be empty".into());
    }
    if name.chars().count() > 100 {
        return Err(format!(
            "preset name is {} characters; at most 100",
            name.chars().count()
        ));
    }
    if let Some(d) = description {
        if d.chars().count() > 500 {
            return Err(format!(
                "preset description is {} characters; at most 500",
                d.chars().count()
            ));
        }
    }
    Ok(())
}

/// The presets directory: `explicit`, else `$KARENINA_PRESETS_DIR`, else `./presets`.
pub fn presets_dir(explicit: Option<&Path>, env: Option<&str>) -> PathBuf {
    match (explicit, env) {
        (Some(d), _) => d.to_path_buf(),
        (None, Some(e)) if !e.is_empty() => PathBuf::from(e),
        _ => PathBuf::from("presets"),
    }
}

/// `resolve_preset_path`: an existing file first, else `<dir>/<name>` (adding
/// `.json` unless present).
pub fn resolve(name: &str, dir: &Path) -> Result<PathBuf, String> {
    let p = Path::new(name);
    if p.is_file() {
        return Ok(p.to_path_buf());
    }
    if !dir.is_dir() {
        return Err(format!("Presets directory not found: {}", dir.display()));
    }
    let candidate = if name.ends_with(".json") {
        dir.join(name)
    } else {
        dir.join(format!("{name}.json"))
    };
    if candidate.is_file() {
        Ok(candidate)
    } else {
        Err(format!("Preset '{name}' not found in {}", dir.display()))
    }
}

/// One model as `save_preset` writes it (spec §7.4); API keys only when
/// `include_secrets`, otherwise dropped with a warning.
fn sanitize_model(
    m: &Object,
    include_secrets: bool,
    p: &JsonPath,
    diags: &mut Vec<Diagnostic>,
) -> Object {
    let mut out = Object::new();
    let get = |k: &str| m.get(k).cloned().unwrap_or(Json::Null);
    let truthy = |k: &str| match m.get(k) {
        None | Some(Json::Null) | Some(Json::Bool(false)) => false,
        Some(Json::String(s)) => !s.is_empty(),
        Some(Json::Object(o)) => !o.is_empty(),
        Some(Json::Array(a)) => !a.is_empty(),
        Some(_) => true,
    };
    for k in [
        "id",
        "model_provider",
        "model_name",
        "temperature",
        "interface",
        "system_prompt",
        "max_tokens",
        "max_retries",
    ] {
        out.push(k, get(k));
    }
    for k in [
        "request_timeout",
        "agent_timeout",
        "mcp_http_timeout",
        "mcp_sse_read_timeout",
        "retry_policy",
    ] {
        if !matches!(get(k), Json::Null) {
            out.push(k, get(k));
        }
    }
    let interface = m.get("interface").and_then(Json::as_str).unwrap_or("");
    let mut secret_pair = |out: &mut Object, url: &str, key: &str| {
        if truthy(url) {
            out.push(url, get(url));
        }
        if truthy(key) {
            if include_secrets {
                out.push(key, get(key));
            } else {
                diags.push(Diagnostic::warning("KLD-W103", p.key(key), format!("`{key}` not written (Karenina would write the mask \"**********\"); pass --include-secrets to keep it")));
            }
        }
    };
    if interface == "openai_endpoint" {
        secret_pair(&mut out, "endpoint_base_url", "endpoint_api_key");
    }
    if matches!(interface, "claude_tool" | "claude_agent_sdk") {
        secret_pair(&mut out, "anthropic_base_url", "anthropic_api_key");
    }
    for k in [
        "mcp_urls_dict",
        "mcp_tool_description_overrides",
        "mcp_tool_filter",
        "extra_kwargs",
        "agent_runtime",
        "agent_middleware",
    ] {
        if truthy(k) {
            out.push(k, get(k));
        }
    }
    if !matches!(get("max_context_tokens"), Json::Null) {
        out.push("max_context_tokens", get("max_context_tokens"));
    }
    out
}

/// What `preset save` produces.
pub struct Saved {
    /// File name (`sanitize_preset_name`).
    pub file_name: String,
    /// The bytes to write.
    pub bytes: String,
    /// Warnings (dropped secrets, masked keys).
    pub report: Report,
}

/// Builds a preset file from a config (bare or wrapped in a preset), the way
/// `save_preset` does: validated config dump with sanitized models.
#[allow(clippy::too_many_arguments)]
pub fn build(
    config_file: &Path,
    config_bytes: &[u8],
    name: &str,
    description: Option<&str>,
    include_secrets: bool,
    id: &str,
    now: &str,
) -> Result<Saved, Box<Report>> {
    let (preset, mut report) = read(config_file, config_bytes, true);
    if let Err(m) = validate_metadata(name, description) {
        report
            .diagnostics
            .push(Diagnostic::error("KLD-E107", JsonPath::root(), m));
    }
    let Some(p) = preset.filter(|_| !report.has_errors()) else {
        return Err(Box::new(report));
    };
    let mut cfg = p.config;
    let mut extra_diags = Vec::new();
    for list in ["answering_models", "parsing_models"] {
        if let Some(Json::Array(ms)) = cfg.0.iter_mut().find(|(k, _)| k == list).map(|(_, v)| v) {
            for (i, m) in ms.iter_mut().enumerate() {
                if let Json::Object(o) = m {
                    *o = sanitize_model(
                        o,
                        include_secrets,
                        &JsonPath::root().key("config").key(list).index(i),
                        &mut extra_diags,
                    );
                }
            }
        }
    }
    report.diagnostics.extend(extra_diags);
    let mut out = Object::new();
    out.push("id", Json::String(id.into()));
    out.push("name", Json::String(name.into()));
    out.push(
        "description",
        description.map_or(Json::Null, |d| Json::String(d.into())),
    );
    out.push("config", Json::Object(cfg));
    out.push("created_at", Json::String(now.into()));
    out.push("updated_at", Json::String(now.into()));
    Ok(Saved {
        file_name: sanitize_preset_name(name),
        bytes: crate::pyjson::dumps(&Json::Object(out), true),
        report,
    })
}

/// Field-by-field differences of two configs (with defaults filled in):
/// (path, value in a, value in b), `None` where a side lacks the path.
pub fn diff(a: &Object, b: &Object) -> Vec<(String, Option<Json>, Option<Json>)> {
    let mut out = Vec::new();
    diff_into(
        &JsonPath::root(),
        &Json::Object(a.clone()),
        &Json::Object(b.clone()),
        &mut out,
    );
    out
}

fn diff_into(
    p: &JsonPath,
    a: &Json,
    b: &Json,
    out: &mut Vec<(String, Option<Json>, Option<Json>)>,
) {
    match (a, b) {
        (Json::Object(x), Json::Object(y)) => {
            for (k, v) in x.iter() {
                match y.get(k) {
                    Some(w) => diff_into(&p.key(k), v, w, out),
                    None => out.push((p.key(k).to_string(), Some(v.clone()), None)),
                }
            }
            for (k, w) in y.iter().filter(|(k, _)| x.get(k).is_none()) {
                out.push((p.key(k).to_string(), None, Some(w.clone())));
            }
        }
        (Json::Array(x), Json::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                match (x.get(i), y.get(i)) {
                    (Some(v), Some(w)) => diff_into(&p.index(i), v, w, out),
                    (v, w) => out.push((p.index(i).to_string(), v.cloned(), w.cloned())),
                }
            }
        }
        (Json::Number(x), Json::Number(y)) if x.as_f64() == y.as_f64() => {}
        _ if a != b => out.push((p.to_string(), Some(a.clone()), Some(b.clone()))),
        _ => {}
    }
}

/// Python's `datetime.now(UTC).isoformat()`.
pub fn utc_now_iso() -> String {
    let now = chrono::Utc::now();
    if now.timestamp_subsec_micros() == 0 {
        now.format("%Y-%m-%dT%H:%M:%S+00:00").to_string()
    } else {
        now.format("%Y-%m-%dT%H:%M:%S%.6f+00:00").to_string()
    }
}
