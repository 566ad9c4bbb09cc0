//! Hostile and broken input: every case ends with a clear, located message and
//! an exit code, never a panic (exit 101) or a signal.

use crate::common::*;
use crate::kld;
use std::path::{Path, PathBuf};

/// Runs `kld ARGS FILE`; asserts a normal exit with `code`; returns stderr.
fn run(args: &[&str], file: &Path, code: i32) -> String {
    let out = kld().args(args).arg(file).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?} {}: {stderr}",
        file.display()
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn probe() -> String {
    read_fixture_string(&corpus().join("loads/karenina-output__probe_default.jsonld"))
}

/// A message of the form `file:LINE:COL: error[CODE] at /path: …`.
fn assert_located(stderr: &str, file: &Path, code: &str) {
    let prefix = format!("{}:", file.display());
    let line = stderr
        .lines()
        .find(|l| l.starts_with(&prefix) && l.contains(&format!("error[{code}]")))
        .unwrap_or_else(|| panic!("no located {code} for {}: {stderr}", file.display()));
    let rest = &line[prefix.len()..];
    let mut parts = rest.splitn(3, ':');
    assert!(parts.next().unwrap().parse::<usize>().is_ok(), "{line}");
    assert!(parts.next().unwrap().parse::<usize>().is_ok(), "{line}");
    assert!(line.contains("] at /"), "{line}");
}

#[test]
fn broken_json_is_reported_by_every_command() {
    let d = tempfile::tempdir().unwrap();
    let p = probe();
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(p.as_bytes());
    let mut bad_utf8 = p.clone().into_bytes();
    let i = p.find("Spec Probe").unwrap();
    bad_utf8[i] = 0xC3;
    bad_utf8[i + 1] = 0x28;
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.jsonld", Vec::new(), "KLD-E001"),
        ("blank.jsonld", b"  \n\t ".to_vec(), "KLD-E001"),
        (
            "truncated.jsonld",
            p.as_bytes()[..p.len() / 2].to_vec(),
            "KLD-E004",
        ),
        ("bom.jsonld", bom, "KLD-E002"),
        ("utf8.jsonld", bad_utf8, "KLD-E003"),
        (
            "nan.jsonld",
            p.replacen("\"bestRating\": 1.0", "\"bestRating\": NaN", 1)
                .into_bytes(),
            "KLD-E008",
        ),
        (
            "inf.jsonld",
            p.replacen("\"bestRating\": 1.0", "\"bestRating\": Infinity", 1)
                .into_bytes(),
            "KLD-E008",
        ),
        (
            "neginf.jsonld",
            p.replacen("\"worstRating\": 0.0", "\"worstRating\": -Infinity", 1)
                .into_bytes(),
            "KLD-E008",
        ),
        (
            "dupkey.jsonld",
            p.replacen(
                "\"name\": \"Spec Probe\",",
                "\"name\": \"Spec Probe\",\n  \"name\": \"Again\",",
                1,
            )
            .into_bytes(),
            "KLD-E006",
        ),
        (
            "deep.jsonld",
            format!("{{\"a\": {}{}}}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(),
            "KLD-E005",
        ),
        ("array.jsonld", b"[]".to_vec(), "KLD-E010"),
        ("string.jsonld", b"\"checkpoint\"".to_vec(), "KLD-E010"),
        (
            "huge-number.jsonld",
            p.replacen("\"bestRating\": 1.0", "\"bestRating\": 1e999", 1)
                .into_bytes(),
            "KLD-E007",
        ),
    ];
    for (name, bytes, code) in cases {
        let f = write(d.path(), name, &bytes);
        let err = run(&["validate"], &f, 1);
        assert_located(&err, &f, code);
        run(&["canon", "-q"], &f, 1);
        run(&["query", "-n", "graphs"], &f, 1);
        run(&["export"], &f, 1);
        let store = d.path().join(format!("store-{name}"));
        run(&["load", "--store", store.to_str().unwrap()], &f, 1);
    }
}

/// Every value of a real checkpoint replaced, one at a time, by each wrong
/// type: the load either succeeds (free-form values) or fails with a located
/// error; never a panic.
#[test]
fn wrong_types_at_every_level() {
    use karenina_ld::model::{analyze, ReadOptions};
    let src: serde_json::Value = serde_json::from_str(&read_fixture_string(
        &corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld"),
    ))
    .unwrap();
    let mut paths = Vec::new();
    fn walk(v: &serde_json::Value, p: String, out: &mut Vec<String>) {
        out.push(p.clone());
        match v {
            serde_json::Value::Object(o) => o.iter().for_each(|(k, x)| {
                walk(
                    x,
                    format!("{p}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                )
            }),
            serde_json::Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, x)| walk(x, format!("{p}/{i}"), out)),
            _ => {}
        }
    }
    walk(&src, String::new(), &mut paths);
    assert!(paths.len() > 150);
    let replacements = [
        serde_json::json!(null),
        serde_json::json!(7),
        serde_json::json!("s"),
        serde_json::json!([]),
        serde_json::json!({}),
        serde_json::json!(true),
    ];
    let (mut errors, mut fine) = (0, 0);
    for p in paths.iter().skip(1) {
        for r in &replacements {
            let mut doc = src.clone();
            let slot = doc.pointer_mut(p).unwrap();
            if slot == r {
                continue;
            }
            *slot = r.clone();
            let text = serde_json::to_string_pretty(&doc).unwrap();
            let a = analyze(
                Path::new("m.jsonld"),
                text.as_bytes(),
                ReadOptions::default(),
            );
            if a.report.has_errors() {
                errors += 1;
                assert!(a.checkpoint.is_none());
                for d in a.report.errors() {
                    let loc = d.location.expect("located");
                    assert!(loc.line >= 1 && loc.column >= 1);
                    assert!(d.code.starts_with("KLD-E"), "{}", d.code);
                }
            } else {
                fine += 1;
            }
        }
    }
    assert!(
        errors > 300 && fine > 10,
        "{errors} errors, {fine} accepted"
    );
}

#[test]
fn a_50_mb_question_text_loads_and_round_trips() {
    let d = tempfile::tempdir().unwrap();
    let mut j: serde_json::Value = serde_json::from_str(&probe()).unwrap();
    let big = "x".repeat(50 * 1024 * 1024);
    j["dataFeedElement"][0]["item"]["text"] = serde_json::Value::String(big.clone());
    j["dataFeedElement"][0]["item"]["acceptedAnswer"]["text"] =
        serde_json::Value::String("é".repeat(1024 * 1024));
    let f = write(
        d.path(),
        "big.jsonld",
        serde_json::to_string(&j).unwrap().as_bytes(),
    );
    run(&["validate"], &f, 0);
    let out = kld().args(["extract"]).arg(&f).output().unwrap();
    assert!(out.status.success());
    let canon = kld().args(["canon", "-q"]).arg(&f).output().unwrap();
    assert!(canon.stdout == out.stdout);
    assert!(out.stdout.len() > 50 * 1024 * 1024);
}

#[test]
fn hostile_ids_survive_every_path() {
    let d = tempfile::tempdir().unwrap();
    let mut j: serde_json::Value = serde_json::from_str(&probe()).unwrap();
    let ids = [
        format!("urn:uuid:question-{}", "a".repeat(10_000)),
        "javascript:alert(1)".to_string(),
        "id with spaces <and> \"quotes\"".to_string(),
        "ctrl\u{1}\u{7}\u{1b}[31m\ttab\nnewline".to_string(),
    ];
    for (i, id) in ids.iter().take(3).enumerate() {
        j["dataFeedElement"][i]["@id"] = serde_json::Value::String(id.clone());
    }
    j["@id"] = serde_json::Value::String(ids[3].clone());
    let f = write(
        d.path(),
        "ids.jsonld",
        serde_json::to_string_pretty(&j).unwrap().as_bytes(),
    );
    run(&["validate"], &f, 0);
    let canon = kld().args(["canon", "-q"]).arg(&f).output().unwrap().stdout;
    let store = d.path().join("store");
    run(&["load", "--store", store.to_str().unwrap()], &f, 0);
    let out = kld()
        .arg("extract")
        .arg("--store")
        .arg(&store)
        .arg(&f)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout == canon);
    for fmt in ["nt", "nq", "ttl", "trig", "jsonld"] {
        let out = kld().args(["export", "-f", fmt]).arg(&f).output().unwrap();
        assert!(
            out.status.success(),
            "{fmt}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // XML 1.0 cannot hold U+0001: RDF/XML refuses in one line, writes nothing.
    let out = kld()
        .args(["export", "-f", "rdfxml"])
        .arg(&f)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && out.stdout.is_empty());
    assert!(
        err.lines().count() == 1 && err.contains("U+0001") && err.contains("N-Triples"),
        "{err}"
    );
}

#[test]
fn a_self_importing_context_is_never_fetched() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("self.jsonld");
    let url = url::Url::from_file_path(&f).unwrap().to_string();
    let mut j: serde_json::Value = serde_json::from_str(&probe()).unwrap();
    j["@context"]["@import"] = serde_json::Value::String(url);
    std::fs::write(&f, serde_json::to_string_pretty(&j).unwrap()).unwrap();
    let err = run(&["validate"], &f, 0);
    assert!(err.contains("KLD-W029"), "{err}");
    run(&["query", "-n", "graphs"], &f, 0);
    let err = run(&["export", "--plain"], &f, 1);
    assert!(err.contains("refused remote"), "{err}");
}

#[test]
fn failed_writes_leave_the_original_untouched() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("legacy.jsonld");
    std::fs::copy(corpus().join("loads/example_benchmark.jsonld"), &f).unwrap();
    let before = std::fs::read(&f).unwrap();
    // -o into a path whose parent is a file: the write fails, exit 2.
    let blocker = d.path().join("not-a-dir");
    std::fs::write(&blocker, b"").unwrap();
    let out = kld()
        .args(["canon", "-q", "-o"])
        .arg(blocker.join("x.jsonld"))
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = kld()
        .args(["extract", "-o"])
        .arg(blocker.join("x.jsonld"))
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&f).unwrap(), before);
    let leftovers: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(leftovers.len(), 2, "{leftovers:?}");
}
