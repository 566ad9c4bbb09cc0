//! Validating a preset file against Karenina's `VerificationConfig` and
//! `ModelConfig` (types, defaults, `extra="forbid"`, interface and config rules),
//! with located diagnostics.

use super::schema::{self, Field, Ty};
use super::{validate_metadata, Preset};
use crate::error::{self, Diagnostic, Report};
use crate::json::{self, Json, JsonPath, Number, Object};
use std::path::Path;

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

/// Pydantic v2 lax-mode `int` (how Karenina validates a preset): an integer; a
/// float with no fractional part that fits in 64 bits (`300.0` -> 300); a bool
/// (-> 0/1); a string holding an integer, optionally with a `.0…` tail and
/// surrounding spaces (`" 7 "`, `"300.0"`). Checked against pydantic 2.13:
/// `300.5`, `1e20` and `"1e2"` are refused.
fn lax_int(v: &Json) -> Result<Number, String> {
    match v {
        Json::Number(n) if n.is_integer() => Ok(n.clone()),
        Json::Number(n) => {
            let x = n.as_f64();
            if x.fract() != 0.0 {
                Err(format!("a number with a fractional part ({n})"))
            } else if x.abs() >= 9.223_372_036_854_776e18 {
                Err(format!("a number too large for an integer ({n})"))
            } else {
                Ok(Number::from_i64(x as i64))
            }
        }
        Json::Bool(b) => Ok(Number::from_i64(i64::from(*b))),
        Json::String(s) => {
            let t = s.trim();
            let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
            let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
            let ok = !int.is_empty()
                && int.bytes().all(|b| b.is_ascii_digit())
                && frac.bytes().all(|b| b == b'0');
            let neg = t.starts_with('-');
            match (ok, int.parse::<i64>()) {
                (true, Ok(n)) => Ok(Number::from_i64(if neg { -n } else { n })),
                _ => Err(format!("a string that is not an integer ({s:?})")),
            }
        }
        other => Err(other.kind().to_string()),
    }
}

/// Pydantic v2 lax-mode `float`: a number, a bool (-> 0.0/1.0), or a string
/// holding a finite number (`"300"` -> 300.0, `"1e2"` -> 100.0). Written the way
/// Python's `json.dump` writes a float (`300.0`).
fn lax_float(v: &Json) -> Result<f64, String> {
    match v {
        Json::Number(n) => Ok(n.as_f64()),
        Json::Bool(b) => Ok(f64::from(u8::from(*b))),
        Json::String(s) => match s.trim().parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(format!("a string that is not a finite number ({s:?})")),
        },
        other => Err(other.kind().to_string()),
    }
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
        (Ty::Int(_) | Ty::OptInt, v @ (Json::Number(_) | Json::Bool(_) | Json::String(_))) => {
            let n = match lax_int(&v) {
                Ok(n) => n,
                Err(why) => {
                    cx.err(
                        "KLD-E102",
                        p.clone(),
                        format!("expected an integer, found {why}"),
                    );
                    return None;
                }
            };
            let min = if let Ty::Int(m) = ty { m } else { i64::MIN };
            if n.as_f64() < min as f64 {
                cx.err(
                    "KLD-E103",
                    p.clone(),
                    format!("must be at least {min}, found {n}"),
                );
                return None;
            }
            Some(Json::Number(n))
        }
        (Ty::Float | Ty::OptFloat, v @ (Json::Number(_) | Json::Bool(_) | Json::String(_))) => {
            match lax_float(&v) {
                Ok(x) => Some(float(x)),
                Err(why) => {
                    cx.err(
                        "KLD-E102",
                        p.clone(),
                        format!("expected a number, found {why}"),
                    );
                    None
                }
            }
        }
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
