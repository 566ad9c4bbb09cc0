//! The `kld` that `cargo install` puts on a user's PATH is the release
//! profile's: it must carry no debug information and no symbols (with line
//! tables it was a 171 MB binary; stripped it is under 40 MB, measured in
//! docs/performance.md). A release build takes minutes on CI's two cores,
//! so this checks the profile that decides the size rather than building
//! it; developers who profile use the `profiling` profile, which keeps
//! symbols and line tables.

use std::path::{Path, PathBuf};

/// The workspace's root manifest (profiles live only there).
fn workspace_manifest() -> PathBuf {
    let mut dir = Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf();
    loop {
        let m = dir.join("Cargo.toml");
        if std::fs::read_to_string(&m).is_ok_and(|t| t.contains("[workspace]")) {
            return m;
        }
        assert!(dir.pop(), "no workspace Cargo.toml above the crate");
    }
}

/// The `key = value` lines of section `[name]`, comments dropped.
fn section(manifest: &str, name: &str) -> Vec<(String, String)> {
    let head = format!("[{name}]");
    let mut lines = manifest.lines().skip_while(|l| l.trim() != head);
    assert!(lines.next().is_some(), "no {head} in Cargo.toml");
    lines
        .take_while(|l| !l.trim_start().starts_with('['))
        .filter_map(|l| l.split('#').next())
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

fn get<'a>(s: &'a [(String, String)], key: &str) -> Option<&'a str> {
    s.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

#[test]
fn the_release_binary_is_stripped_and_a_profiling_profile_keeps_symbols() {
    let text = std::fs::read_to_string(workspace_manifest()).unwrap();
    let release = section(&text, "profile.release");
    assert!(
        matches!(get(&release, "debug"), Some("false" | "0" | "\"none\"")),
        "{release:?}"
    );
    assert!(
        matches!(get(&release, "strip"), Some("true" | "\"symbols\"")),
        "{release:?}"
    );
    let profiling = section(&text, "profile.profiling");
    assert_eq!(get(&profiling, "inherits"), Some("\"release\""));
    assert!(
        matches!(get(&profiling, "debug"), Some(v) if v != "false" && v != "0"),
        "{profiling:?}"
    );
    assert_eq!(get(&profiling, "strip"), Some("false"));
    // Benchmarks are profiled: they keep symbols too.
    let bench = section(&text, "profile.bench");
    assert_eq!(get(&bench, "strip"), Some("false"), "{bench:?}");
}
