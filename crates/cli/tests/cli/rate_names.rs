//! One name per rate on every face (issue 46): every rate `kld info`,
//! `kld compare`, `GET /leaderboard` and the page show is named from the
//! library's one table (`karenina_ld::numbers::names`), with its
//! definition, n and docs link, and docs/numbers.md lists the same names.
//! (Python's face: python/tests/test_compare.py.)

use super::serve::{client, serve};
use crate::kld;
use karenina_ld::numbers::names::{
    RateName, JUDGES_MEAN, QUESTION_MEAN, RATE_NAMES, SHARE_OF_ROWS_PASSED, TEMPLATE_PASS_RATE,
    VERDICT_PASS_RATE,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

const RUN: &str = concat!(
    env!("KLD_SOURCE_ROOT"),
    "/examples/runs/notebook.verification.json"
);

fn root() -> &'static Path {
    Path::new(env!("KLD_SOURCE_ROOT"))
}

fn stdout(args: &[&str]) -> String {
    let out = kld().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The names of a face's `rate_names`, each entry checked to be the
/// library's own (name, definition, n, docs link).
fn names_of(face: &str, v: &Value) -> BTreeSet<&'static str> {
    let m = v
        .as_object()
        .unwrap_or_else(|| panic!("{face}: no rate_names"));
    assert!(!m.is_empty(), "{face}");
    m.iter()
        .map(|(key, e)| {
            let r = RateName::by_id(e["id"].as_str().unwrap_or(""))
                .unwrap_or_else(|| panic!("{face}: {key} names no rate of the table: {e}"));
            assert_eq!(*e, r.to_json(), "{face}: {key}");
            r.name
        })
        .collect()
}

/// The names docs/numbers.md's table of rate names lists.
fn docs_names() -> BTreeSet<String> {
    let docs = std::fs::read_to_string(root().join("docs/numbers.md")).unwrap();
    let at = docs
        .find("### The rate names")
        .expect("docs/numbers.md: The rate names");
    docs[at..]
        .lines()
        .skip(1)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| {
            l.strip_prefix("| **")?
                .split_once("**")
                .map(|(n, _)| n.to_string())
        })
        .collect()
}

#[test]
fn every_face_names_its_rates_from_the_one_table() {
    let all: BTreeSet<String> = RATE_NAMES.iter().map(|r| r.name.to_string()).collect();
    assert_eq!(docs_names(), all, "docs/numbers.md's table of rate names");

    // kld info: text and JSON.
    let text = stdout(&["info", RUN]);
    for r in [TEMPLATE_PASS_RATE, VERDICT_PASS_RATE] {
        assert!(text.contains(r.name), "kld info names {}: {text}", r.name);
    }
    let info: Value = serde_json::from_str(&stdout(&["info", RUN, "--format", "json"])).unwrap();
    assert_eq!(
        names_of("kld info --format json", &info["rate_names"]),
        BTreeSet::from([TEMPLATE_PASS_RATE.name, VERDICT_PASS_RATE.name])
    );

    // kld compare: text, JSON, and a rate_name column in each CSV table of rates.
    let text = stdout(&["compare", RUN]);
    for r in [TEMPLATE_PASS_RATE, QUESTION_MEAN] {
        assert!(
            text.contains(r.name),
            "kld compare names {}: {text}",
            r.name
        );
    }
    let json: Value = serde_json::from_str(&stdout(&["compare", RUN, "--format", "json"])).unwrap();
    assert_eq!(json["rate"], TEMPLATE_PASS_RATE.to_json());
    assert_eq!(
        names_of("kld compare --format json", &json["rate_names"]),
        BTreeSet::from([TEMPLATE_PASS_RATE.name, QUESTION_MEAN.name])
    );
    for (table, want) in [
        ("rates", TEMPLATE_PASS_RATE),
        ("questions", TEMPLATE_PASS_RATE),
        ("pairs", QUESTION_MEAN),
    ] {
        let csv = stdout(&["compare", RUN, "--format", "csv", "--table", table]);
        let mut rd = csv::Reader::from_reader(csv.as_bytes());
        let col = rd.headers().unwrap().iter().position(|h| h == "rate_name");
        let col = col.unwrap_or_else(|| panic!("--table {table}: no rate_name column"));
        let rows: Vec<_> = rd.records().map(Result::unwrap).collect();
        assert!(!rows.is_empty(), "{table}");
        assert!(rows.iter().all(|r| &r[col] == want.name), "{table}");
    }

    // GET /leaderboard, from the real server.
    let board = root().join("tests/data/board");
    let inputs: Vec<_> = ["board.jsonld", "board-run-1.json"]
        .iter()
        .map(|f| board.join(f))
        .collect();
    let s = serve(&inputs, &[]);
    let r = client()
        .get(format!("{}/leaderboard", s.base))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let lb: Value = r.json().unwrap();
    assert!(!lb["cells"].as_array().unwrap().is_empty());
    assert_eq!(
        names_of("GET /leaderboard", &lb["rate_names"]),
        BTreeSet::from([TEMPLATE_PASS_RATE.name, JUDGES_MEAN.name])
    );

    // The page says which rate each view shows.
    let page = root().join("crates/serve/src/page");
    let read = |f: &str| std::fs::read_to_string(page.join(f)).unwrap();
    let html = read("index.html");
    for r in [TEMPLATE_PASS_RATE, JUDGES_MEAN, SHARE_OF_ROWS_PASSED] {
        assert!(html.contains(r.name), "index.html names {}", r.name);
    }
    assert!(read("app.js").contains(&format!("`{} ", SHARE_OF_ROWS_PASSED.name)));
    assert!(read("leaderboard.js").contains(&format!("`{} ", TEMPLATE_PASS_RATE.name)));
}
