//! Presets: validation with locations, Karenina's save bytes, names, dirs,
//! model sanitization per interface.

use crate::common::*;
use karenina_ld::json::Json;
use karenina_ld::preset::{self, presets_dir, sanitize_preset_name, validate_metadata};
use std::path::{Path, PathBuf};

const KARENINA_SAVED: &str = "presets/karenina-output__preset__my-test-config.json";

fn karenina_meta(text: &str) -> (String, String) {
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    (
        v["id"].as_str().unwrap().to_string(),
        v["created_at"].as_str().unwrap().to_string(),
    )
}

fn save(
    config: &str,
    name: &str,
    desc: Option<&str>,
    secrets: bool,
) -> Result<preset::Saved, Box<karenina_ld::Report>> {
    preset::build(
        Path::new("config.json"),
        config.as_bytes(),
        name,
        desc,
        secrets,
        "ID",
        "NOW",
    )
}

#[test]
fn corpus_presets_load_and_validate() {
    for p in corpus_files("presets") {
        let (preset, report) = preset::read(&p, &std::fs::read(&p).unwrap(), false);
        assert!(!report.has_errors(), "{report}");
        let cfg = preset.unwrap().config;
        // Defaults are filled in, in Karenina's dump order, ending with rubric_enabled.
        assert_eq!(cfg.0.len(), 59);
        assert_eq!(cfg.0.last().unwrap().0, "rubric_enabled");
    }
    // The minimal asset relies on defaults: answering models get Karenina's prompt.
    let p = corpus().join("presets/skills__karenina-verification__assets__preset-minimal.json");
    let (preset, _) = preset::read(&p, &std::fs::read(&p).unwrap(), false);
    let cfg = preset.unwrap().config;
    let m = &cfg.get("answering_models").unwrap().as_array().unwrap()[0];
    assert_eq!(
        m.as_object()
            .unwrap()
            .get("system_prompt")
            .unwrap()
            .as_str(),
        Some(preset::schema::DEFAULT_ANSWERING_PROMPT)
    );
    assert_eq!(
        cfg.get("replicate_count")
            .unwrap()
            .as_number()
            .unwrap()
            .lexical(),
        "1"
    );
}

#[test]
fn save_writes_karenina_s_bytes() {
    let text = read_fixture_string(&corpus().join(KARENINA_SAVED));
    let (id, now) = karenina_meta(&text);
    let saved = preset::build(
        Path::new("c.json"),
        text.as_bytes(),
        "My Test Config!",
        Some("desc"),
        true,
        &id,
        &now,
    )
    .unwrap();
    assert_eq!(saved.file_name, "my-test-config.json");
    assert_eq!(
        saved.bytes, text,
        "with --include-secrets the masked key is kept as given"
    );
    // By default the key is dropped, with a warning, and nothing else changes.
    let saved = preset::build(
        Path::new("c.json"),
        text.as_bytes(),
        "My Test Config!",
        Some("desc"),
        false,
        &id,
        &now,
    )
    .unwrap();
    let expected = text.replace(",\n        \"endpoint_api_key\": \"**********\"", "");
    assert_eq!(saved.bytes, expected);
    assert!(saved.report.warnings().any(|d| d.code == "KLD-W103"
        && d.path.to_string() == "/config/answering_models/0/endpoint_api_key"));
    assert!(!saved.bytes.ends_with('\n'));
}

#[test]
fn save_escapes_non_ascii_like_python() {
    let cfg = r#"{"parsing_models": [{"id": "p", "model_name": "m", "system_prompt": "Réponds 🧬"}], "parsing_only": true}"#;
    let s = save(cfg, "Ünïcode", Some("é"), false).unwrap();
    assert!(
        s.bytes.contains("\"name\": \"\\u00dcn\\u00efcode\""),
        "{}",
        s.bytes
    );
    assert!(s.bytes.contains("R\\u00e9ponds \\ud83e\\uddec"));
    assert!(s.bytes.is_ascii());
    assert_eq!(s.file_name, "ncode.json");
}

#[test]
fn sanitize_examples() {
    let cases = [
        ("Quick Test", "quick-test.json"),
        ("My Test Config!", "my-test-config.json"),
        ("  --Ünïcode  name__v2.0--  ", "ncode-namev20.json"),
        ("!!!", "preset.json"),
        ("GPT-4o / Claude (fast)", "gpt-4o-claude-fast.json"),
    ];
    for (name, file) in cases {
        assert_eq!(sanitize_preset_name(name), file, "{name:?}");
    }
    // Truncation to 96 happens after stripping, so a trailing '-' can come back.
    let long = format!("{}-b", "a".repeat(95));
    assert_eq!(
        sanitize_preset_name(&long),
        format!("{}-.json", "a".repeat(95))
    );
}

#[test]
fn metadata_rules() {
    assert!(validate_metadata("ok", None).is_ok());
    assert!(validate_metadata("", None).is_err());
    assert!(validate_metadata("   ", None).is_err());
    assert!(validate_metadata(&"n".repeat(100), None).is_ok());
    assert!(validate_metadata(&"n".repeat(101), None).is_err());
    assert!(validate_metadata("n", Some(&"d".repeat(500))).is_ok());
    assert!(validate_metadata("n", Some(&"d".repeat(501))).is_err());
    let cfg = r#"{"parsing_models": [{"id": "p", "model_name": "m"}], "parsing_only": true}"#;
    let e = save(cfg, " ", None, false)
        .err()
        .expect("empty name refused");
    assert!(e.errors().any(|d| d.code == "KLD-E107"));
}

#[test]
fn directory_resolution_order() {
    assert_eq!(
        presets_dir(Some(Path::new("/x")), Some("/env")),
        PathBuf::from("/x")
    );
    assert_eq!(presets_dir(None, Some("/env")), PathBuf::from("/env"));
    assert_eq!(presets_dir(None, Some("")), PathBuf::from("presets"));
    assert_eq!(presets_dir(None, None), PathBuf::from("presets"));
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("fast.json"), "{}").unwrap();
    assert_eq!(
        preset::resolve("fast", d.path()).unwrap(),
        d.path().join("fast.json")
    );
    assert_eq!(
        preset::resolve("fast.json", d.path()).unwrap(),
        d.path().join("fast.json")
    );
    assert!(preset::resolve("slow", d.path())
        .unwrap_err()
        .to_string()
        .contains("not found"));
    assert!(preset::resolve("x", &d.path().join("missing"))
        .unwrap_err()
        .to_string()
        .contains("directory not found"));
}

fn model_keys(cfg: &str) -> Vec<String> {
    let s = save(cfg, "m", None, true).unwrap_or_else(|r| panic!("{r}"));
    let v: serde_json::Value = serde_json::from_str(&s.bytes).unwrap();
    let m = &v["config"]["parsing_models"][0];
    let v2: Json = karenina_ld::json::parse(serde_json::to_string(m).unwrap().as_bytes()).unwrap();
    v2.as_object()
        .unwrap()
        .iter()
        .map(|(k, _)| k.to_string())
        .collect()
}

#[test]
fn model_sanitization_per_interface() {
    let base = [
        "id",
        "model_provider",
        "model_name",
        "temperature",
        "interface",
        "system_prompt",
        "max_tokens",
        "max_retries",
    ];
    let with = |extra: &[&str]| {
        base.iter()
            .chain(extra)
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    };
    let cfg = |m: &str| format!(r#"{{"parsing_models": [{m}], "parsing_only": true}}"#);
    // langchain: connection fields are never written.
    assert_eq!(
        model_keys(&cfg(
            r#"{"id": "p", "model_name": "m", "model_provider": "anthropic", "anthropic_base_url": "http://a", "anthropic_api_key": "k"}"#
        )),
        with(&[])
    );
    // openai_endpoint keeps its endpoint fields.
    assert_eq!(
        model_keys(&cfg(
            r#"{"id": "p", "model_name": "m", "interface": "openai_endpoint", "endpoint_base_url": "http://e", "endpoint_api_key": "k"}"#
        )),
        with(&["endpoint_base_url", "endpoint_api_key"])
    );
    // claude_tool / claude_agent_sdk keep the anthropic fields.
    for i in ["claude_tool", "claude_agent_sdk"] {
        let m = format!(
            r#"{{"id": "p", "model_name": "m", "interface": "{i}", "anthropic_base_url": "http://a", "anthropic_api_key": "k"}}"#
        );
        assert_eq!(
            model_keys(&cfg(&m)),
            with(&["anthropic_base_url", "anthropic_api_key"])
        );
    }
    // Optional members appear only when set, in Karenina's order.
    let m = r#"{"id": "p", "model_name": "m", "interface": "openrouter", "request_timeout": 5, "max_context_tokens": 1000, "extra_kwargs": {"a": 1}, "mcp_urls_dict": {}}"#;
    assert_eq!(
        model_keys(&cfg(m)),
        with(&["request_timeout", "extra_kwargs", "max_context_tokens"])
    );
    for i in ["langchain_deep_agents", "taskeval"] {
        let m = format!(r#"{{"id": "p", "model_name": "m", "interface": "{i}"}}"#);
        assert_eq!(model_keys(&cfg(&m)), with(&[]));
    }
    // manual needs manual_traces, which a preset cannot hold.
    let e = save(&cfg(r#"{"interface": "manual"}"#), "m", None, false)
        .err()
        .unwrap();
    assert!(e
        .errors()
        .any(|d| d.code == "KLD-E105" && d.path.to_string() == "/parsing_models/0/interface"));
}

fn errors_of(text: &str) -> Vec<(String, String, usize)> {
    let (_, r) = preset::read(Path::new("p.json"), text.as_bytes(), false);
    r.errors()
        .map(|d| {
            (
                d.code.to_string(),
                d.path.to_string(),
                d.location.unwrap().line,
            )
        })
        .collect()
}

#[test]
fn broken_configs_fail_with_located_messages() {
    let wrap = |body: &str| {
        format!("{{\n  \"name\": \"x\",\n  \"config\": {{\n    \"parsing_models\": [{{\"id\": \"p\", \"model_name\": \"m\"}}],\n    \"answering_models\": [{{\"id\": \"a\", \"model_name\": \"m\"}}],\n{body}\n  }}\n}}")
    };
    let e = errors_of(&wrap("    \"replicate_count\": \"three\""));
    assert_eq!(
        e,
        vec![("KLD-E102".into(), "/config/replicate_count".into(), 6)]
    );
    let e = errors_of(&wrap("    \"replicat_count\": 3"));
    assert_eq!(
        e,
        vec![("KLD-E101".into(), "/config/replicat_count".into(), 6)]
    );
    let e = errors_of(&wrap("    \"replicate_count\": 0"));
    assert_eq!(e[0].0, "KLD-E103");
    let e = errors_of(&wrap("    \"evaluation_mode\": \"everything\""));
    assert_eq!(
        e[0],
        ("KLD-E103".into(), "/config/evaluation_mode".into(), 6)
    );
    let e = errors_of(&wrap("    \"deep_judgment_rubric_mode\": \"custom\""));
    assert_eq!(e[0].0, "KLD-E105");
    assert_eq!(e[0].1, "/config/deep_judgment_rubric_config");
    let e = errors_of(&wrap("    \"parsing_only\": false").replace(
        "\"answering_models\": [{\"id\": \"a\", \"model_name\": \"m\"}]",
        "\"answering_models\": []",
    ));
    assert_eq!(e[0].1, "/config/answering_models");
    let e = errors_of(
        &wrap("    \"x\": 1")
            .replace(
                "{\"id\": \"a\", \"model_name\": \"m\"}",
                "{\"id\": \"a\", \"model_name\": \"m\", \"interface\": \"grpc\"}",
            )
            .replace(",\n    \"x\": 1", ""),
    );
    assert_eq!(
        e,
        vec![(
            "KLD-E103".into(),
            "/config/answering_models/0/interface".into(),
            5
        )]
    );
    assert_eq!(errors_of("{\"name\": \"x\"}")[0].0, "KLD-E106");
    assert_eq!(errors_of("{\"config\": {}}")[0].0, "KLD-E106");
    assert_eq!(errors_of("{\"config\": ")[0].0, "KLD-E004");
}

#[test]
fn diff_lists_changed_fields() {
    let p = corpus().join("presets/skills__karenina-verification__assets__preset-full.json");
    let (a, _) = preset::read(&p, &std::fs::read(&p).unwrap(), false);
    let text = std::fs::read_to_string(&p)
        .unwrap()
        .replace("\"replicate_count\": 1", "\"replicate_count\": 4");
    let (b, _) = preset::read(&p, text.as_bytes(), false);
    let d = preset::diff(&a.clone().unwrap().config, &b.unwrap().config);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].0, "/replicate_count");
    assert!(preset::diff(&a.clone().unwrap().config, &a.unwrap().config).is_empty());
}

/// Karenina's declared type of every numeric field, restated from its source
/// (`VerificationConfig`, `ModelConfig`; spec §7.5, §7.6) independently of
/// kld's schema table: (field, is ModelConfig, int?, optional?, lower bound).
const NUMERIC_FIELDS: &[(&str, bool, bool, bool, Option<i64>)] = &[
    ("replicate_count", false, true, false, Some(1)),
    ("embedding_check_threshold", false, false, false, None),
    ("async_max_workers", false, true, false, Some(1)),
    ("max_concurrent_requests", false, true, true, None),
    ("batch_timeout_seconds", false, false, true, None),
    (
        "deep_judgment_max_excerpts_per_attribute",
        false,
        true,
        false,
        Some(0),
    ),
    (
        "deep_judgment_fuzzy_match_threshold",
        false,
        false,
        false,
        None,
    ),
    (
        "deep_judgment_excerpt_retry_attempts",
        false,
        true,
        false,
        Some(0),
    ),
    (
        "deep_judgment_rubric_max_excerpts_default",
        false,
        true,
        false,
        Some(0),
    ),
    (
        "deep_judgment_rubric_fuzzy_match_threshold_default",
        false,
        false,
        false,
        None,
    ),
    (
        "deep_judgment_rubric_excerpt_retry_attempts_default",
        false,
        true,
        false,
        Some(0),
    ),
    ("agentic_parsing_max_turns", false, true, false, Some(1)),
    ("agentic_parsing_timeout", false, false, false, None),
    ("request_timeout", false, false, false, None),
    ("scenario_turn_limit", false, true, false, Some(1)),
    ("max_requeue_count", false, true, false, Some(0)),
    ("temperature", true, false, false, None),
    ("max_tokens", true, true, false, Some(1)),
    ("max_retries", true, true, false, Some(0)),
    ("mcp_http_timeout", true, false, true, None),
    ("mcp_sse_read_timeout", true, false, true, None),
    ("max_context_tokens", true, true, true, None),
    ("agent_timeout", true, true, true, None),
    ("request_timeout", true, false, true, None),
];

/// What saving gives: the written value's text, or `CODE /path` of each error.
type Saved = Result<String, Vec<String>>;

/// Saves Karenina's own preset with one numeric field set to `value` (JSON
/// text); returns the text `save` wrote for that field, or the error codes.
fn save_with(field: &str, in_model: bool, value: &str) -> Saved {
    let text = read_fixture_string(&corpus().join(KARENINA_SAVED));
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let value: serde_json::Value = serde_json::from_str(value).unwrap();
    let target = if in_model {
        &mut v["config"]["parsing_models"][0]
    } else {
        &mut v["config"]
    };
    target[field] = value;
    match save(&v.to_string(), "T", None, true) {
        Ok(saved) => {
            let out: serde_json::Value = serde_json::from_str(&saved.bytes).unwrap();
            let written = if in_model {
                &out["config"]["parsing_models"][0][field]
            } else {
                &out["config"][field]
            };
            // serde_json (arbitrary_precision) keeps the number's text as written.
            Ok(written.to_string())
        }
        Err(report) => Err(report
            .errors()
            .map(|d| format!("{} {}", d.code, d.path))
            .collect()),
    }
}

#[test]
fn every_numeric_field_is_typed_and_written_like_karenina() {
    // The table covers every numeric field kld knows (and no other).
    use karenina_ld::preset::schema::{Ty, MODEL, VERIFICATION};
    let numeric = |t: &Ty| matches!(t, Ty::Int(_) | Ty::OptInt | Ty::Float | Ty::OptFloat);
    let mut known: Vec<(String, bool)> = VERIFICATION
        .iter()
        .filter(|f| numeric(&f.1))
        .map(|f| (f.0.to_string(), false))
        .chain(
            MODEL
                .iter()
                .filter(|f| numeric(&f.1))
                .map(|f| (f.0.to_string(), true)),
        )
        .collect();
    let mut listed: Vec<(String, bool)> = NUMERIC_FIELDS
        .iter()
        .map(|f| (f.0.to_string(), f.1))
        .collect();
    known.sort();
    listed.sort();
    assert_eq!(known, listed);

    for &(field, in_model, int, optional, min) in NUMERIC_FIELDS {
        let path = if in_model {
            format!("/config/parsing_models/0/{field}")
        } else {
            format!("/config/{field}")
        };
        let refused = Err(vec![format!("KLD-E102 {path}")]);
        // (input, what pydantic + json.dump give for an int field, for a float field)
        let cases: &[(&str, Saved, Saved)] = &[
            ("3", Ok("3".into()), Ok("3.0".into())),
            ("3.0", Ok("3".into()), Ok("3.0".into())),
            ("2.5", refused.clone(), Ok("2.5".into())),
            ("true", Ok("1".into()), Ok("1.0".into())),
            ("\"3\"", Ok("3".into()), Ok("3.0".into())),
            ("\"3.00\"", Ok("3".into()), Ok("3.0".into())),
            ("\"1e2\"", refused.clone(), Ok("100.0".into())),
            ("1e20", refused.clone(), Ok("1e+20".into())),
            ("[3]", refused.clone(), refused.clone()),
            (
                "null",
                if optional {
                    Ok("null".into())
                } else {
                    refused.clone()
                },
                if optional {
                    Ok("null".into())
                } else {
                    refused.clone()
                },
            ),
        ];
        for (input, as_int, as_float) in cases {
            let want = if int { as_int } else { as_float };
            assert_eq!(
                &save_with(field, in_model, input),
                want,
                "{field} = {input}"
            );
        }
        if let Some(m) = min {
            assert_eq!(
                save_with(field, in_model, &(m - 1).to_string()),
                Err(vec![format!("KLD-E103 {path}")]),
                "{field} below its bound"
            );
        }
    }
}
