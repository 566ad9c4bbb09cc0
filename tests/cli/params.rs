//! `kld query --param VAR=VALUE`: the flag's syntax and refusals (the rows
//! a parameter keeps are checked for every catalogue query in process, in
//! tests/library/params.rs).

use crate::results::runs;
use crate::{kld, stdout_of};

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
        assert!(!want.is_empty() && want.len() < whole.len() + 1);
        assert_eq!(got, want, "{param}");
    }
    let out = kld()
        .args([
            "query",
            "--named",
            "results-by-model",
            "--param",
            "run=<not an iri",
        ])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn a_param_the_query_lacks_is_refused_by_name() {
    let (f, cp, _) = runs().remove(0);
    let out = kld()
        .args([
            "query",
            "--named",
            "results-by-model",
            "--param",
            "modle_name=x",
        ])
        .arg(f)
        .args(cp)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no variable ?modle_name") && err.contains("?model_name"),
        "{err}"
    );
}
