//! `kld query --param VAR=VALUE`: the flag's syntax and refusals (the rows
//! a parameter keeps are checked for every catalogue query in process, in
//! tests/library/params.rs).

use crate::results::runs;
use crate::{kld, stdout_of};

/// `kld query --format json --named NAMED --param PARAM FILES…`, as it ran.
fn with_param(
    named: &str,
    param: &str,
    files: impl IntoIterator<Item = impl AsRef<std::ffi::OsStr>>,
) -> std::process::Output {
    kld()
        .args([
            "query", "--format", "json", "--named", named, "--param", param,
        ])
        .args(files)
        .output()
        .unwrap()
}

#[test]
fn a_param_on_the_command_line_keeps_its_rows() {
    // The rows themselves are checked for every catalogue query in
    // tests/library/params.rs; here, the flag's value syntax.
    let (f, cp, _) = runs().into_iter().find(|(_, cp, _)| cp.is_some()).unwrap();
    let answer = |param: Option<&str>| {
        let out = stdout_of(
            kld()
                .args(["query", "--format", "json", "--named", "results-by-model"])
                .args(param.map(|p| ["--param", p]).into_iter().flatten())
                .arg(&f)
                .args(&cp),
        );
        crate::queries::json_rows(&serde_json::from_str(&out).unwrap())
    };
    let whole = answer(None);
    assert!(!whole.is_empty());
    let name = whole[0]["model_name"].as_str().unwrap().to_string();
    for (param, keep) in [
        (format!("model_name={name}"), "model_name"),
        (format!("?model_name=\"{name}\""), "model_name"),
    ] {
        let got = answer(Some(&param));
        let want: Vec<_> = whole
            .iter()
            .filter(|r| r[keep].as_str() == Some(name.as_str()))
            .cloned()
            .collect();
        assert!(!want.is_empty());
        assert_eq!(got, want, "{param}");
    }
    let out = with_param("results-by-model", "run=<not an iri", [&f]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn a_param_the_query_lacks_is_refused_by_name() {
    let (f, cp, _) = runs().remove(0);
    let out = with_param(
        "results-by-model",
        "modle_name=x",
        std::iter::once(f).chain(cp),
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no variable ?modle_name") && err.contains("?model_name"),
        "{err}"
    );
}

#[test]
fn a_string_param_that_reads_as_a_number_and_keeps_no_row_says_which_literal_would() {
    // `questions` is an xsd:integer: the string "3" equals none of them, so
    // the answer is empty; the note names the typed literal, which keeps
    // the benchmark with 3 questions.
    let probe = std::path::Path::new(env!("KLD_SOURCE_ROOT")).join("examples/probe.jsonld");
    let run = |param: &str| with_param("benchmark-stats", param, [&probe]);
    let out = run("questions=3");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(crate::queries::json_rows(&serde_json::from_slice(&out.stdout).unwrap()).is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    let advised = r#"questions="3"^^<http://www.w3.org/2001/XMLSchema#integer>"#;
    assert!(
        err.contains("compared as the string \"3\"") && err.contains(advised),
        "{err}"
    );
    let out = run(advised);
    let kept = crate::queries::json_rows(&serde_json::from_slice(&out.stdout).unwrap());
    assert_eq!(kept.len(), 1, "{out:?}");
    assert_eq!(kept[0]["benchmark"], "Spec Probe");
    assert!(out.stderr.is_empty(), "{out:?}");
    // A string that matches nothing and does not read as a number: no note.
    let out = run("benchmark=No Such Benchmark");
    assert!(crate::queries::json_rows(&serde_json::from_slice(&out.stdout).unwrap()).is_empty());
    assert!(out.stderr.is_empty(), "{out:?}");
}
