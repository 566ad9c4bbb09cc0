//! The two test tiers (ARCHITECTURE.md, "Tests and oracles"): `cargo test`
//! runs what needs only Rust; the interop tier, which starts Python, Node,
//! Chromium, servers or Karenina itself, is `#[ignore]`d with ONE
//! machine-readable marker, `#[ignore = "interop: <what it needs>"]`, so
//! `cargo test -- --ignored` runs exactly that tier and a reader (or a
//! script) can list it with `grep -rn '#\[ignore = "interop: '`. This test
//! fails on an `#[ignore]` without the marker or without a reason.

use std::path::{Path, PathBuf};

const MARKER: &str = "#[ignore = \"interop: ";

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every `#[ignore` attribute in the workspace's Rust files that does not
/// carry the interop marker and a reason, as `file:line: text`.
fn unmarked(root: &Path) -> (usize, Vec<String>) {
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches", "crates", "python/src"] {
        rust_files(&root.join(dir), &mut files);
    }
    let me = root.join(file!());
    let mut marked = 0;
    let mut bad = Vec::new();
    for f in files.iter().filter(|f| **f != me) {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let t = line.trim_start();
            if !t.starts_with("#[ignore") {
                continue;
            }
            let reason = t
                .strip_prefix(MARKER)
                .and_then(|r| r.strip_suffix("\"]"))
                .map(str::trim);
            match reason {
                Some(r) if !r.is_empty() => marked += 1,
                _ => bad.push(format!(
                    "{}:{}: {}",
                    f.strip_prefix(root).unwrap_or(f).display(),
                    n + 1,
                    t
                )),
            }
        }
    }
    (marked, bad)
}

#[test]
fn every_ignored_test_carries_the_interop_marker() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (marked, bad) = unmarked(root);
    assert!(
        bad.is_empty(),
        "an ignored test without `{MARKER}<what it needs>\"]`:\n{}",
        bad.join("\n")
    );
    // The interop tier exists (the walk found the test folders).
    assert!(marked > 50, "only {marked} interop tests found");
}

#[test]
fn the_marker_check_finds_what_it_looks_for() {
    let dir = tempfile::tempdir().unwrap();
    let tests = dir.path().join("tests");
    std::fs::create_dir_all(&tests).unwrap();
    std::fs::write(
        tests.join("a.rs"),
        "#[test]\n#[ignore = \"interop: needs python3\"]\nfn a() {}\n\
         #[test]\n#[ignore]\nfn b() {}\n\
         #[test]\n#[ignore = \"interop tier, needs node\"]\nfn c() {}\n\
         #[test]\n#[ignore = \"interop: \"]\nfn d() {}\n",
    )
    .unwrap();
    let (marked, bad) = unmarked(dir.path());
    assert_eq!(marked, 1);
    assert_eq!(bad.len(), 3, "{bad:?}");
    assert!(bad[0].ends_with("a.rs:5: #[ignore]"), "{bad:?}");
}
