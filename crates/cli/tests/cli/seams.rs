//! One answer everywhere (issue 26): where two paths reach the same data (a
//! local load, the served endpoint, a push to a real Oxigraph server) and
//! where one run reaches kld twice (its JSON and CSV exports, a renamed copy,
//! Karenina's database beside the export), the figures are the same and each
//! run counts once.

use crate::common::*;
use crate::remote::{push, Oxigraph};
use crate::serve::serve;
use crate::{copy_to, kld, stdout_of};
use std::path::{Path, PathBuf};

/// A project copied to another machine: two checkpoints, the JSON and CSV
/// export of each one's run, a renamed copy of one export, Karenina's
/// database holding the same runs (and one more) under benchmark names that
/// were since renamed, and a run folder.
fn mixed_directory(dir: &Path) -> Vec<PathBuf> {
    let res = |f: &str| corpus().join("results").join(f);
    for f in [
        "docs__notebooks__test_checkpoint.jsonld",
        "tests__fixtures__checkpoints__with_rubrics.jsonld",
        "karenina-output__scenario_probe.jsonld",
    ] {
        copy_to(dir, &corpus().join("loads").join(f));
    }
    for f in [
        "res-docs__notebooks__test_checkpoint.full.json",
        "res-docs__notebooks__test_checkpoint.full.csv",
        "res-tests__fixtures__checkpoints__with_rubrics.full.json",
        "res-tests__fixtures__checkpoints__with_rubrics.full.csv",
    ] {
        copy_to(dir, &res(f));
    }
    std::fs::copy(
        res("res-tests__fixtures__checkpoints__with_rubrics.full.json"),
        dir.join("copy of the rubrics run.json"),
    )
    .unwrap();
    let db = copy_to(dir, &data("runs/karenina.db"));
    let c = rusqlite::Connection::open(&db).unwrap();
    // (Renamed, and emptied: the database's copies of the benchmarks hold
    // none of the runs' questions, so its runs bind to nothing.)
    c.execute("UPDATE benchmarks SET name = name || ' (renamed)'", [])
        .unwrap();
    c.execute("DELETE FROM benchmark_questions", []).unwrap();
    drop(c);
    let runs = dir.join("runs");
    std::fs::create_dir(&runs).unwrap();
    copy_dir(
        &data("runs/root/interrupted_20261122T080200Z"),
        &runs.join("interrupted_20261122T080200Z"),
    );
    vec![dir.to_path_buf()]
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), t).unwrap();
        }
    }
}

/// Rows of a TSV answer, sorted, each cell with the directory's path
/// replaced (two copies of one project compare equal).
fn table(tsv: &str, dir: &Path) -> Vec<String> {
    let url = format!("file://{}", dir.canonicalize().unwrap().display());
    let mut v: Vec<String> = tsv.lines().map(|l| l.replace(&url, "file://DIR")).collect();
    v.sort();
    v
}

fn local(inputs: &[PathBuf], name: &str) -> String {
    stdout_of(
        kld()
            .args(["query", "--format", "tsv", "--named", name])
            .args(inputs),
    )
}

#[test]
fn a_run_that_reaches_kld_twice_counts_once_and_the_copy_that_binds_is_kept() {
    let d = tempfile::tempdir().unwrap();
    let inputs = mixed_directory(d.path());
    // The reference: the checkpoints and one JSON export per run, nothing else.
    let clean = tempfile::tempdir().unwrap();
    for f in [
        "docs__notebooks__test_checkpoint.jsonld",
        "tests__fixtures__checkpoints__with_rubrics.jsonld",
        "karenina-output__scenario_probe.jsonld",
        "res-docs__notebooks__test_checkpoint.full.json",
        "res-tests__fixtures__checkpoints__with_rubrics.full.json",
    ] {
        std::fs::copy(d.path().join(f), clean.path().join(f)).unwrap();
    }
    copy_dir(&d.path().join("runs"), &clean.path().join("runs"));
    let out = kld()
        .args([
            "query",
            "--format",
            "tsv",
            "--named",
            "pass-rate-by-benchmark",
        ])
        .args(&inputs)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // (Without ?results_graph, the third column: which copy of a run is
    // kept is told by the skipped lines below.)
    let figures = |t: Vec<String>| -> Vec<String> {
        t.into_iter()
            .map(|l| {
                let mut cells: Vec<&str> = l.split('\t').collect();
                cells.remove(2);
                cells.join("\t")
            })
            .collect()
    };
    let mixed = figures(table(&String::from_utf8_lossy(&out.stdout), d.path()));
    let reference = figures(table(
        &local(&[clean.path().to_path_buf()], "pass-rate-by-benchmark"),
        clean.path(),
    ));
    // One row per run and combo (one of the runs has two parsing models).
    assert_eq!(reference.len(), 10, "{reference:?}");
    assert_eq!(mixed, reference, "{err}");
    // The database copies of the two runs are the ones left out (they
    // cannot bind: their benchmarks were renamed), not the exports.
    let skipped: Vec<&str> = err.lines().filter(|l| l.contains("skipped")).collect();
    assert_eq!(skipped.len(), 5, "{err}");
    assert_eq!(
        skipped
            .iter()
            .filter(|l| l.contains("karenina.db#run="))
            .count(),
        2,
        "{err}"
    );
    assert!(
        skipped
            .iter()
            .all(|l| l.split("skipped").nth(1).unwrap().contains(".json")),
        "{err}"
    );
    // Nothing says a run is bound and then that it is not.
    assert!(!err.contains("bound by benchmark name"), "{err}");
}

#[test]
#[ignore = "interop: needs the Oxigraph server (pip oxigraph): cargo test -- --include-ignored"]
fn query_serve_and_push_give_the_same_pass_rates_for_a_mixed_directory() {
    let d = tempfile::tempdir().unwrap();
    let inputs = mixed_directory(d.path());
    let name = "pass-rate-by-benchmark";
    let from_query = table(&local(&inputs, name), d.path());
    assert!(from_query.len() > 1);
    // The endpoint kld serve answers.
    let s = serve(&inputs, &[]);
    let served = stdout_of(
        kld()
            .args(["query", "--format", "tsv", "--named", name, "--endpoint"])
            .arg(format!("{}/sparql", s.base)),
    );
    assert_eq!(table(&served, d.path()), from_query, "kld serve");
    // Pushed to a real Oxigraph server, asked there.
    let o = Oxigraph::start(&d.path().join("oxigraph-db"));
    let refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let out = push(&o, &[], &refs);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pushed = stdout_of(
        kld()
            .arg("query")
            .args(o.server())
            .args(["--format", "tsv", "--named", name]),
    );
    assert_eq!(table(&pushed, d.path()), from_query, "kld push");
    // A second push of the same directory sends nothing and changes nothing.
    let out = push(&o, &[], &refs);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(" 0 sent,"), "{err}");
    let again = stdout_of(
        kld()
            .arg("query")
            .args(o.server())
            .args(["--format", "tsv", "--named", name]),
    );
    assert_eq!(table(&again, d.path()), from_query, "second push");
}

#[test]
#[ignore = "interop: needs the Oxigraph server (pip oxigraph): cargo test -- --include-ignored"]
fn a_run_pushed_again_under_another_file_counts_once_on_the_server() {
    let d = tempfile::tempdir().unwrap();
    let res = |f: &str| corpus().join("results").join(f);
    let cp = corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld");
    let csv = res("res-tests__fixtures__checkpoints__with_rubrics.full.csv");
    let json = res("res-tests__fixtures__checkpoints__with_rubrics.full.json");
    let o = Oxigraph::start(&d.path().join("db"));
    let name = "pass-rate-by-benchmark";
    let reference = table(&local(&[cp.clone(), json.clone()], name), d.path());
    // First the CSV, then (another push) the JSON of the same run: the JSON
    // replaces the CSV on the server, as a local load keeps the JSON.
    for f in [&csv, &json] {
        let out = push(&o, &[], &[cp.as_path(), f.as_path()]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let remote = |o: &Oxigraph| {
        table(
            &stdout_of(
                kld()
                    .arg("query")
                    .args(o.server())
                    .args(["--format", "tsv", "--named", name]),
            ),
            d.path(),
        )
    };
    assert_eq!(remote(&o), reference);
    // The CSV pushed after the JSON is not sent: the server keeps the JSON.
    let out = push(&o, &[], &[cp.as_path(), csv.as_path()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("not pushed: the same run as"), "{err}");
    assert_eq!(remote(&o), reference);
}

#[test]
#[ignore = "interop: needs the Oxigraph server (pip oxigraph): cargo test -- --include-ignored"]
fn every_catalogue_query_answers_on_the_server_as_locally_over_the_corpus_and_a_mixed_directory() {
    let d = tempfile::tempdir().unwrap();
    let mixed_dir = d.path().join("mixed");
    std::fs::create_dir(&mixed_dir).unwrap();
    let mixed = mixed_directory(&mixed_dir);
    let corpus_inputs = vec![corpus().join("loads"), corpus().join("results")];
    // Agentic run folders with workspace captures and a repair (the
    // provenance queries' rows are not empty there).
    let agentic = vec![
        corpus().join("loads/docs__notebooks__test_checkpoint.jsonld"),
        data("runs/agentic"),
    ];
    let names: Vec<String> = std::fs::read_dir(concat!(env!("KLD_SOURCE_ROOT"), "/queries"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".rq")
                .map(str::to_string)
        })
        .collect();
    assert!(names.len() >= 20);
    let mut compared = 0;
    for (i, inputs) in [corpus_inputs, mixed, agentic].iter().enumerate() {
        let o = Oxigraph::start(&d.path().join(format!("db{i}")));
        let refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        let out = push(&o, &[], &refs);
        assert!(
            out.status.code() != Some(2),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for name in &names {
            let run = |cmd: &mut assert_cmd::Command| -> Vec<String> {
                let out = cmd.output().unwrap();
                let text = String::from_utf8_lossy(&out.stdout).to_string();
                let mut rows: Vec<String> = text
                    .lines()
                    // `graphs` reports load times: compare what was loaded.
                    .map(|l| match name.as_str() {
                        "graphs" => l.split('\t').take(3).collect::<Vec<_>>().join("\t"),
                        // A SUM of doubles is taken in an order SPARQL
                        // leaves to the engine (its last bits differ):
                        // numbers with a fraction to 12 significant digits.
                        _ => l
                            .split('\t')
                            .map(|f| match f.parse::<f64>() {
                                Ok(x) if f.contains(['.', 'e', 'E']) => format!("{x:.11e}"),
                                _ => f.to_string(),
                            })
                            .collect::<Vec<_>>()
                            .join("\t"),
                    })
                    .collect();
                rows.sort();
                rows
            };
            let here = run(kld()
                .args(["query", "--format", "tsv", "--named", name])
                .args(inputs));
            let there = run(kld()
                .arg("query")
                .args(o.server())
                .args(["--format", "tsv", "--named", name]));
            assert!(!here.is_empty(), "{name}: no header locally");
            assert_eq!(there, here, "{name} over input set {i}");
            compared += 1;
        }
    }
    report_differential(
        "push-vs-local",
        compared,
        0,
        " (every catalogue query on an Oxigraph server after kld push vs kld query, over the corpus, a mixed directory and agentic run folders)",
    );
}

#[test]
fn export_writes_each_run_once_as_query_loads_it() {
    let d = tempfile::tempdir().unwrap();
    let inputs = mixed_directory(d.path());
    let column = |name: &str, var: &str| -> Vec<String> {
        let out = kld()
            .args(["query", "--format", "json", "--named", name])
            .args(&inputs)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        crate::serve::binding_values(&v, var)
    };
    let mut loaded = column("graphs", "graph");
    loaded.extend(column("runs", "graph"));
    loaded.sort();
    loaded.dedup();
    let out = kld()
        .args(["export", "-f", "nq"])
        .args(&inputs)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let quads: Vec<oxigraph::model::Quad> =
        oxigraph::io::RdfParser::from_format(oxigraph::io::RdfFormat::NQuads)
            .for_slice(&out.stdout)
            .collect::<Result<_, _>>()
            .unwrap();
    let mut exported: Vec<String> = quads
        .iter()
        .map(|q| match &q.graph_name {
            oxigraph::model::GraphName::NamedNode(n) => n.as_str().to_string(),
            g => panic!("a quad outside a named graph: {g}"),
        })
        .collect();
    exported.sort();
    exported.dedup();
    // 3 checkpoints, the database's two (empty) benchmarks, the JSON kept
    // of each of two exported runs, the database's third run, the run folder.
    assert_eq!(exported.len(), 9, "{exported:?}");
    assert_eq!(exported, loaded);
}
