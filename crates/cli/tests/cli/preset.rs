//! `kld preset`.

use crate::common::*;
use crate::{kld, stdout_of};
use predicates::prelude::*;

const SAVED: &str = "presets/karenina-output__preset__my-test-config.json";

#[test]
fn save_refuses_to_overwrite_without_force_and_uses_the_env_dir() {
    let d = tempfile::tempdir().unwrap();
    let cfg = corpus().join(SAVED);
    let out = stdout_of(
        kld()
            .args(["preset", "save", "--name", "Quick Test", "--config"])
            .arg(&cfg)
            .env("KARENINA_PRESETS_DIR", d.path()),
    );
    let target = d.path().join("quick-test.json");
    assert_eq!(out.trim(), target.display().to_string());
    let first = std::fs::read(&target).unwrap();
    kld()
        .args(["preset", "save", "--name", "Quick Test", "--config"])
        .arg(&cfg)
        .env("KARENINA_PRESETS_DIR", d.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force"));
    assert_eq!(std::fs::read(&target).unwrap(), first);
    kld()
        .args([
            "preset",
            "save",
            "--force",
            "--name",
            "Quick Test",
            "--config",
        ])
        .arg(&cfg)
        .env("KARENINA_PRESETS_DIR", d.path())
        .assert()
        .success();
    // The saved preset has no API key and validates; --dir beats the env var.
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(!text.contains("endpoint_api_key"));
    kld()
        .args(["preset", "validate"])
        .arg(&target)
        .assert()
        .success();
    let other = tempfile::tempdir().unwrap();
    kld()
        .args(["preset", "save", "--name", "Quick Test", "--config"])
        .arg(&cfg)
        .arg("--dir")
        .arg(other.path())
        .env("KARENINA_PRESETS_DIR", d.path())
        .assert()
        .success();
    assert!(other.path().join("quick-test.json").exists());
}

#[test]
fn list_show_validate_and_diff() {
    let d = tempfile::tempdir().unwrap();
    for p in corpus_files("presets") {
        std::fs::copy(&p, d.path().join(p.file_name().unwrap())).unwrap();
    }
    let out = stdout_of(kld().args(["preset", "list", "--dir"]).arg(d.path()));
    let names: Vec<&str> = out
        .lines()
        .skip(1)
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert!(names.contains(&"My Test Config!"));
    let out = stdout_of(
        kld()
            .args([
                "preset",
                "show",
                "skills__karenina-verification__assets__preset-minimal",
                "--dir",
            ])
            .arg(d.path()),
    );
    assert!(out.contains("\"rubric_enabled\": false"));
    kld()
        .args(["preset", "validate"])
        .arg(d.path())
        .assert()
        .success();
    let bad = d.path().join("bad.json");
    std::fs::write(&bad, "{\"config\": {\"parsing_models\": [], \"bogus\": 1}}").unwrap();
    kld()
        .args(["preset", "validate"])
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("bad.json:1:").and(predicate::str::contains("KLD-E101")));
    let a = d
        .path()
        .join("skills__karenina-verification__assets__preset-full.json");
    kld()
        .args(["preset", "diff"])
        .arg(&a)
        .arg(&a)
        .assert()
        .success()
        .stdout("");
    let m = d
        .path()
        .join("skills__karenina-verification__assets__preset-minimal.json");
    kld()
        .args(["preset", "diff"])
        .arg(&a)
        .arg(&m)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(" -> "));
}

#[test]
fn save_writes_integer_fields_as_integers() {
    // The reported case: an answering model with `"agent_timeout": 300` must be
    // saved as `300` (Karenina's `int | None`), not `300.0`; a float field given
    // an integer is written as a float.
    let d = tempfile::tempdir().unwrap();
    let text = read_fixture_string(&corpus().join(SAVED));
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["config"]["answering_models"][0]["agent_timeout"] = serde_json::json!(300);
    v["config"]["answering_models"][0]["request_timeout"] = serde_json::json!(30);
    let cfg = d.path().join("cfg.json");
    std::fs::write(&cfg, v.to_string()).unwrap();
    kld()
        .args([
            "preset",
            "save",
            "--name",
            "ints",
            "--include-secrets",
            "--dir",
        ])
        .arg(d.path())
        .arg("--config")
        .arg(&cfg)
        .assert()
        .success();
    let saved = std::fs::read_to_string(d.path().join("ints.json")).unwrap();
    assert!(saved.contains("\"agent_timeout\": 300,"), "{saved}");
    assert!(saved.contains("\"request_timeout\": 30.0,"), "{saved}");
    // A fractional value for an integer field is refused, located.
    v["config"]["answering_models"][0]["agent_timeout"] = serde_json::json!(300.5);
    std::fs::write(&cfg, v.to_string()).unwrap();
    kld()
        .args(["preset", "save", "--name", "frac", "--dir"])
        .arg(d.path())
        .arg("--config")
        .arg(&cfg)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("KLD-E102")
                .and(predicate::str::contains(
                    "/config/answering_models/0/agent_timeout",
                ))
                .and(predicate::str::contains("fractional part")),
        );
    assert!(!d.path().join("frac.json").exists());
}

#[test]
fn save_through_the_cli_writes_karenina_s_bytes() {
    // Karenina's own saved preset, re-saved with its config, name and
    // description: the bytes match once id and timestamps are Karenina's.
    // (The two skill assets carry no name and were not written by
    // `save_preset`, so this is the corpus's one save_preset output.)
    let d = tempfile::tempdir().unwrap();
    let text = read_fixture_string(&corpus().join(SAVED));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let name = v["name"].as_str().unwrap();
    let description = v["description"].as_str().unwrap();
    kld()
        .args(["preset", "save", "--include-secrets", "--name", name])
        .args(["--description", description, "--config"])
        .arg(corpus().join(SAVED))
        .arg("--dir")
        .arg(d.path())
        .assert()
        .success();
    let written = std::fs::read_to_string(
        d.path()
            .join(karenina_ld::preset::sanitize_preset_name(name)),
    )
    .unwrap();
    let w: serde_json::Value = serde_json::from_str(&written).unwrap();
    // The generated metadata has the right shape before it is swapped.
    assert!(uuid::Uuid::parse_str(w["id"].as_str().unwrap()).is_ok());
    assert_eq!(w["created_at"], w["updated_at"]);
    assert!(chrono::DateTime::parse_from_rfc3339(w["created_at"].as_str().unwrap()).is_ok());
    let swap = |s: &str, key: &str, w: &serde_json::Value| {
        s.replacen(
            &format!("\"{key}\": {}", w[key]),
            &format!("\"{key}\": {}", v[key]),
            1,
        )
    };
    let mut fixed = written.clone();
    for key in ["id", "created_at", "updated_at"] {
        fixed = swap(&fixed, key, &w);
    }
    assert_eq!(fixed, text);
}
