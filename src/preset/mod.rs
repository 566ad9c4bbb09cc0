//! Karenina verification presets (Karenina `schemas/verification/config_presets.py`; `docs/usage.md`): read, validate, save, list, diff.
//!
//! A preset wraps a whole `VerificationConfig` with metadata. Validation follows
//! Karenina's models (`extra="forbid"`, types, interface rules); saving writes the
//! bytes Karenina's `save_preset` writes (full config dump in field order,
//! sanitized models, `indent=2`, ASCII-escaped, no trailing newline), except
//! that API keys are never written unless asked (Karenina writes a masked
//! `"**********"` that reloads as the key).

pub mod schema;
mod validate;

pub use validate::read;

use crate::error::{Diagnostic, Report};
use crate::json::{Json, JsonPath, Object};
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
pub fn validate_metadata(name: &str, description: Option<&str>) -> crate::Result<()> {
    if name.trim().is_empty() {
        return Err(crate::Error::Usage("preset name must not be empty".into()));
    }
    if name.chars().count() > 100 {
        return Err(crate::Error::Usage(format!(
            "preset name is {} characters; at most 100",
            name.chars().count()
        )));
    }
    if let Some(d) = description {
        if d.chars().count() > 500 {
            return Err(crate::Error::Usage(format!(
                "preset description is {} characters; at most 500",
                d.chars().count()
            )));
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
pub fn resolve(name: &str, dir: &Path) -> crate::Result<PathBuf> {
    let p = Path::new(name);
    if p.is_file() {
        return Ok(p.to_path_buf());
    }
    if !dir.is_dir() {
        return Err(crate::Error::Usage(format!(
            "Presets directory not found: {}",
            dir.display()
        )));
    }
    let candidate = if name.ends_with(".json") {
        dir.join(name)
    } else {
        dir.join(format!("{name}.json"))
    };
    if candidate.is_file() {
        Ok(candidate)
    } else {
        Err(crate::Error::Usage(format!(
            "Preset '{name}' not found in {}",
            dir.display()
        )))
    }
}

/// One model as `save_preset` writes it (Karenina `config_presets.py`); API keys only when
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
        report.diagnostics.push(Diagnostic::error(
            "KLD-E107",
            JsonPath::root(),
            m.to_string(),
        ));
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
        bytes: crate::json::py::dumps(&Json::Object(out), true),
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
