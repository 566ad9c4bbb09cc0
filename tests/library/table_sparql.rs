//! SPARQL agrees with the results table (issue 45): on every fixture under
//! tests/data (the corpus checkpoints with their runs' JSON exports, the same
//! runs' CSV exports, the board's two-run benchmark, Karenina's results
//! database and run folders), each catalogue number query's answer over the
//! quads equals its table view (`karenina_ld::table::catalogue`), and the
//! board's rows read from the quads (`results::board::read`) equal those the
//! server now takes from the table (`table::views::board_data`).

use karenina_ld::oxigraph::model::Term;
use karenina_ld::sparql::{self as query, Answer, QueryOptions};
use karenina_ld::store::{read_inputs, CheckpointStore};
use karenina_ld::table::{self, catalogue_views, Table};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(data(dir))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            n.ends_with(ext) && !n.ends_with(".expect.json") && n != "INDEX.json"
        })
        .collect();
    v.sort();
    v
}

/// The stores the fixtures make, each named.
fn stores() -> Vec<(&'static str, CheckpointStore)> {
    let loads = files("corpus/loads", ".jsonld");
    let with = |mut v: Vec<PathBuf>| {
        v.extend(loads.iter().cloned());
        v
    };
    let mut runs: Vec<PathBuf> = std::fs::read_dir(data("runs/root"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        // (An unfinished run's progressive-save sidecars are not read into
        // the table yet: docs/results.md.)
        .filter(|p| !p.to_string_lossy().contains("early_"))
        .collect();
    runs.sort();
    runs.push(data("runs/karenina.db"));
    let sets = [
        ("json", with(files("corpus/results", ".json"))),
        ("csv", with(files("corpus/results", ".csv"))),
        (
            "board",
            files("board", ".json")
                .into_iter()
                .chain(files("board", ".jsonld"))
                .collect(),
        ),
        ("runs", with(runs)),
    ];
    sets.into_iter()
        .map(|(name, inputs)| {
            let found = karenina_ld::store::input_files(&inputs);
            let b = read_inputs(&found.files, Default::default(), &|_, _| {}).unwrap();
            (name, b.store)
        })
        .collect()
}

fn text(t: &Term) -> String {
    match t {
        Term::NamedNode(n) => n.as_str().to_string(),
        Term::Literal(l) => l.value().to_string(),
        other => other.to_string(),
    }
}

/// A catalogue query's rows, each by variable name.
fn sparql(store: &CheckpointStore, name: &str) -> Vec<HashMap<String, String>> {
    let q = query::find(name).unwrap();
    let parsed = query::parse(q.text).unwrap();
    match query::answer(store.store(), &parsed, &QueryOptions::default()).unwrap() {
        Answer::Solutions { variables, rows } => rows
            .into_iter()
            .map(|r| {
                variables
                    .iter()
                    .zip(r)
                    .filter_map(|(v, t)| Some((v.clone(), text(&t?))))
                    .collect()
            })
            .collect(),
        _ => panic!("{name} is a SELECT"),
    }
}

fn num(m: &HashMap<String, String>, k: &str) -> f64 {
    m.get(k)
        .unwrap_or_else(|| panic!("no ?{k} in {m:?}"))
        .parse()
        .unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn table_of(store: &CheckpointStore) -> Table {
    let (t, notes) = table::stored::of_store(store, None);
    assert!(notes.is_empty(), "{notes:?}");
    t
}

#[test]
fn each_catalogue_number_query_equals_its_table_view_on_every_fixture() {
    let mut compared = 0;
    for (name, store) in stores() {
        let t = table_of(&store);
        assert!(!t.is_empty(), "{name}: an empty table");

        // pass-rate-by-benchmark
        let ours = catalogue_views::pass_rate_by_benchmark(&t);
        let theirs = sparql(&store, "pass-rate-by-benchmark");
        assert_eq!(
            ours.len(),
            theirs.len(),
            "{name}: pass-rate-by-benchmark rows"
        );
        for o in &ours {
            let s = theirs
                .iter()
                .find(|s| s["results_graph"] == o.results_graph && s["combo"] == o.combo)
                .unwrap_or_else(|| {
                    panic!("{name}: no SPARQL row for {} {}", o.results_graph, o.combo)
                });
            assert_eq!(s["graph"], o.graph, "{name}");
            assert_eq!(s["benchmark"], o.benchmark, "{name}");
            for (k, v) in [("results", o.results), ("n", o.n), ("passed", o.passed)] {
                assert_eq!(num(s, k), v as f64, "{name} {} ?{k}", o.combo);
            }
            match o.pass_rate {
                Some(r) => assert!(close(num(s, "pass_rate"), r), "{name} {}", o.combo),
                None => assert!(!s.contains_key("pass_rate"), "{name} {}", o.combo),
            }
            let cols = [
                "outcome_passed",
                "content",
                "abstained",
                "autofail",
                "retry",
                "system",
                "no_verdict",
                "unclassified",
            ];
            for (k, col) in cols.iter().enumerate() {
                assert_eq!(
                    num(s, col),
                    o.outcomes[k] as f64,
                    "{name} {} ?{col}",
                    o.combo
                );
            }
            compared += 1;
        }

        // outcome-classes
        let ours = catalogue_views::outcome_classes(&t);
        let theirs = sparql(&store, "outcome-classes");
        assert_eq!(ours.len(), theirs.len(), "{name}: outcome-classes rows");
        for o in &ours {
            let s = theirs
                .iter()
                .find(|s| {
                    s["results_graph"] == o.results_graph
                        && s["combo"] == o.combo
                        && s["outcome"] == o.outcome
                })
                .unwrap_or_else(|| panic!("{name}: no SPARQL row for {o:?}"));
            assert_eq!(num(s, "results"), o.results as f64, "{name} {o:?}");
            assert!(close(num(s, "share"), o.share), "{name} {o:?}");
            compared += 1;
        }

        // replicate-pass-rates
        let ours = catalogue_views::replicate_pass_rates(&t);
        let theirs = sparql(&store, "replicate-pass-rates");
        assert_eq!(
            ours.len(),
            theirs.len(),
            "{name}: replicate-pass-rates rows"
        );
        for o in &ours {
            let s = theirs
                .iter()
                .find(|s| {
                    s["results_graph"] == o.results_graph
                        && num(s, "replicate") == o.replicate as f64
                })
                .unwrap_or_else(|| panic!("{name}: no SPARQL row for {o:?}"));
            assert_eq!(num(s, "n"), o.n as f64, "{name} {o:?}");
            assert_eq!(num(s, "passed"), o.passed as f64, "{name} {o:?}");
            assert_eq!(num(s, "replicates"), o.replicates as f64, "{name} {o:?}");
            assert!(close(num(s, "pass_rate"), o.pass_rate), "{name} {o:?}");
            assert!(close(num(s, "mean"), o.mean), "{name} {o:?}");
            assert!((num(s, "std") - o.std).abs() < 1e-11, "{name} {o:?}");
            compared += 1;
        }

        // tokens-by-combo, stage total (Karenina's tokens_by_combo)
        let ours = catalogue_views::tokens_by_combo(&t);
        let theirs: Vec<_> = sparql(&store, "tokens-by-combo")
            .into_iter()
            .filter(|s| s["stage"] == "total")
            .collect();
        assert_eq!(ours.len(), theirs.len(), "{name}: tokens-by-combo rows");
        for o in &ours {
            let s = theirs
                .iter()
                .find(|s| s["results_graph"] == o.results_graph && s["combo"] == o.combo)
                .unwrap_or_else(|| panic!("{name}: no SPARQL row for {o:?}"));
            assert_eq!(num(s, "input"), o.input as f64, "{name} {o:?}");
            assert_eq!(num(s, "output"), o.output as f64, "{name} {o:?}");
            compared += 1;
        }

        // The board: from the quads, and from the table.
        let quads = karenina_ld::board::read(store.store(), &QueryOptions::default()).unwrap();
        let from_table = table::views::board_data(&t);
        assert_eq!(from_table, quads, "{name}: the board's rows");
        compared += quads.rows.len();
    }
    assert!(compared > 100, "only {compared} values compared");
}
