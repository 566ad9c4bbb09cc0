//! `kld serve --result-quads keys` (issue 45: ten paper-size runs in 4 GB)
//! keeps each result's keys only in the store, and must serve every number
//! the page shows as `--result-quads all` does: the two servers, over the
//! same runs (JSON and CSV exports, a scenario run, runs that do not bind),
//! give the same leaderboard, matrix, grid, trait views and `runs` view, while the keys
//! server holds a fraction of the quads and refuses to hand out a run's
//! partial graph as if it were the run.

use super::serve::{client, rows, serve, Server};
use crate::common::data;
use serde_json::Value;
use std::path::PathBuf;

fn inputs() -> Vec<PathBuf> {
    vec![
        data("board/board.jsonld"),
        data("board/board-run-1.json"),
        data("corpus/loads"),
        data("corpus/results"),
    ]
}

fn get_json(s: &Server, path: &str) -> Value {
    let r = client()
        .get(format!("{}{path}", s.base))
        .header("Accept", "application/json")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200, "{path}");
    r.json().unwrap()
}

fn catalogue(s: &Server, name: &str) -> Vec<Vec<String>> {
    let r = client()
        .get(format!("{}/queries/{name}", s.base))
        .header("Accept", "application/sparql-results+json")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200, "{name}");
    rows(&r.json().unwrap())
}

/// Quads in the results graphs, by the served SPARQL.
fn result_quads(s: &Server) -> u64 {
    let q = "PREFIX karenina: <urn:karenina:vocab:>
        SELECT (COUNT(*) AS ?n) WHERE { ?g a karenina:ResultsGraph . GRAPH ?g { ?s ?p ?o } }";
    let r: Value = client()
        .post(format!("{}/sparql", s.base))
        .header("Accept", "application/sparql-results+json")
        .form(&[("query", q)])
        .send()
        .unwrap()
        .json()
        .unwrap();
    r["results"]["bindings"][0]["n"]["value"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn keys_only_serves_the_numbers_of_every_field() {
    let all = serve(&inputs(), &[]);
    let keys = serve(&inputs(), &["--result-quads", "keys"]);
    for path in ["/leaderboard", "/matrix", "/grid?format=json"] {
        let (a, k) = (get_json(&all, path), get_json(&keys, path));
        assert_eq!(a, k, "{path}");
    }
    let board = get_json(&keys, "/leaderboard");
    assert!(
        !board["cells"].as_array().unwrap().is_empty(),
        "a board with cells: {board}"
    );
    // The page's filters (runs, answering models, result counts) and the
    // binding they show.
    let runs = catalogue(&keys, "runs");
    assert!(runs.len() >= 5, "{runs:?}");
    assert_eq!(catalogue(&all, "runs"), runs);
    // The page's trait view and its pooled form: the results table's rows
    // under keys as under all (the keys' quads hold no scores).
    for name in ["scores-by-trait-and-judge", "scores-by-trait"] {
        let k = catalogue(&keys, name);
        assert!(k.len() > 10, "{name}: {k:?}");
        assert_eq!(catalogue(&all, name), k, "{name}");
    }
    let (a, k) = (result_quads(&all), result_quads(&keys));
    assert!(k > 0 && k * 4 < a, "keys {k} quads against {a}");
}

#[test]
fn a_keys_only_run_is_not_handed_out_as_its_graph() {
    let run = data("board/board-run-1.json");
    let graph = format!("file://{}", std::fs::canonicalize(&run).unwrap().display());
    let inputs = [data("board/board.jsonld"), run];
    for (extra, want) in [(&[][..], 200), (&["--result-quads", "keys"][..], 409)] {
        let s = serve(&inputs, extra);
        let r = client()
            .get(format!("{}/store", s.base))
            .query(&[("graph", graph.as_str())])
            .header("Accept", "application/n-quads")
            .send()
            .unwrap();
        assert_eq!(r.status(), want, "{extra:?}");
        if want == 409 {
            let text = r.text().unwrap();
            assert!(text.contains("--result-quads all"), "{text}");
        }
    }
}

/// The catalogue's number queries the table answers
/// (`table::answers::ANSWERED`) are served from the table at
/// `/queries/NAME`: under `--result-quads keys` their rows equal SPARQL's
/// over every field's quads (the same text POSTed to `/sparql` of a server
/// holding them all), in JSON and in CSV.
#[test]
fn table_answered_catalogue_views_equal_sparql_over_every_field() {
    let all = serve(&inputs(), &[]);
    let keys = serve(&inputs(), &["--result-quads", "keys"]);
    for name in karenina_ld::table::answers::ANSWERED {
        let text = karenina_ld::sparql::find(name).unwrap().text;
        let sparql = |accept: &str| {
            client()
                .post(format!("{}/sparql", all.base))
                .header("Accept", accept)
                .form(&[("query", text)])
                .send()
                .unwrap()
        };
        let table = |accept: &str| {
            client()
                .get(format!("{}/queries/{name}", keys.base))
                .header("Accept", accept)
                .send()
                .unwrap()
        };
        let want = rows(&sparql("application/sparql-results+json").json().unwrap());
        assert!(!want.is_empty(), "{name}: no rows");
        assert_eq!(
            rows(&table("application/sparql-results+json").json().unwrap()),
            want,
            "{name}"
        );
        let (s, t) = (sparql("text/csv"), table("text/csv"));
        assert_eq!(t.headers()["content-type"], s.headers()["content-type"]);
        let lines = |b: String| {
            let mut v: Vec<String> = b.lines().map(str::to_string).collect();
            v[1..].sort();
            v
        };
        assert_eq!(lines(t.text().unwrap()), lines(s.text().unwrap()), "{name}");
    }
}
