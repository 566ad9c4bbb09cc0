//! `kld query --store DIR --named NAME` of a number view the results table
//! answers (`karenina_ld::table::answers`) reads the store's Parquet file,
//! not its N-Quads, and writes the bytes the SPARQL query over the quads
//! writes, in every result format; a store changed since its table was
//! written is answered from the quads (issue 45).

use crate::common::data;
use crate::{kld, stdout_of};

const ANSWERED: [&str; 2] = ["pass-rate-by-benchmark", "outcome-classes"];

fn query_text(name: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("KLD_SOURCE_ROOT")).join(format!("queries/{name}.rq")),
    )
    .unwrap()
}

#[test]
fn a_number_view_of_a_store_comes_from_its_table_with_the_quads_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    stdout_of(
        kld()
            .args(["load", "--store"])
            .arg(&store)
            .arg(data("board/board.jsonld"))
            .arg(data("board/board-run-1.json"))
            .arg(data("board/board-run-2.json")),
    );
    assert!(store.join("results.parquet").is_file());
    let mut answers = Vec::new();
    for name in ANSWERED {
        for format in ["csv", "tsv", "json", "xml"] {
            let (table, quads) = table_and_quads(&store, name, format);
            assert_eq!(table, quads, "{name} as {format}");
            assert!(table.contains("board-run-2"), "{name} as {format}: {table}");
            answers.push((name, format, table));
        }
    }
    same_without_quads(&store, tmp.path(), &answers, "");
    let quads = kld()
        .args(["query", "-e", &query_text(ANSWERED[0]), "--store"])
        .arg(&store)
        .output()
        .unwrap();
    assert!(!quads.status.success(), "the quads are gone");
    // A store changed since the table was written: not answered from the
    // table (here the quads are gone, so the query fails).
    let index = store.join("index.tsv");
    let mut text = std::fs::read_to_string(&index).unwrap();
    text.push_str(
        &text
            .lines()
            .last()
            .unwrap()
            .replace("board-run-2", "board-run-3"),
    );
    text.push('\n');
    std::fs::write(&index, text).unwrap();
    let stale = kld()
        .args([
            "query",
            "--format",
            "csv",
            "--named",
            ANSWERED[0],
            "--store",
        ])
        .arg(&store)
        .output()
        .unwrap();
    assert!(
        !stale.status.success(),
        "a stale table answered: {}",
        String::from_utf8_lossy(&stale.stdout)
    );
}

/// The trait views (`scores-by-trait`, `scores-by-trait-and-judge`) of a
/// store come from its table too, with the quads' bytes: the docs
/// notebook's run (question-specific traits of booleans and integers,
/// means as Oxigraph's decimals) and the with_rubrics run (global traits,
/// means of doubles to the last bit).
#[test]
fn the_trait_views_of_a_store_come_from_its_table_with_the_quads_bytes() {
    for (checkpoint, run, expected) in [
        (
            "docs__notebooks__test_checkpoint.jsonld",
            "res-docs__notebooks__test_checkpoint.full.json",
            // (A trait, then a mean pooled over judges and one judge's.)
            [
                "explanation_quality",
                "2.666666666666666666",
                "2.666666666666666666",
            ],
        ),
        (
            "tests__fixtures__checkpoints__with_rubrics.jsonld",
            "res-tests__fixtures__checkpoints__with_rubrics.full.json",
            ["ResponseLength", "3.086470588235294", "2.7074999999999996"],
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let store = tmp.path().join("store");
        stdout_of(
            kld()
                .args(["load", "--store"])
                .arg(&store)
                .arg(data(&format!("corpus/loads/{checkpoint}")))
                .arg(data(&format!("corpus/results/{run}"))),
        );
        let mut answers = Vec::new();
        for name in ["scores-by-trait", "scores-by-trait-and-judge"] {
            for format in ["csv", "tsv", "json", "xml"] {
                let (table, quads) = table_and_quads(&store, name, format);
                assert_eq!(table, quads, "{run}: {name} as {format}");
                let mean = if name == "scores-by-trait" { 1 } else { 2 };
                for s in [expected[0], expected[mean]] {
                    assert!(
                        table.contains(s),
                        "{run}: {name} as {format}: no {s} in {table}"
                    );
                }
                answers.push((name, format, table));
            }
        }
        same_without_quads(&store, tmp.path(), &answers, &format!("{run}: "));
    }
}

/// Catalogue query `name` over store `store` in `format`: by name (the
/// store's table answers it) and as its text given with `-e` (SPARQL over
/// the quads).
fn table_and_quads(store: &std::path::Path, name: &str, format: &str) -> (String, String) {
    let table = by_name(store, name, format);
    let quads = stdout_of(
        kld()
            .args([
                "query",
                "--format",
                format,
                "-e",
                &query_text(name),
                "--store",
            ])
            .arg(store),
    );
    (table, quads)
}

/// Catalogue query `name` over store `store` in `format`, by name.
fn by_name(store: &std::path::Path, name: &str, format: &str) -> String {
    stdout_of(
        kld()
            .args(["query", "--format", format, "--named", name, "--store"])
            .arg(store),
    )
}

/// With the store's quads moved away (into `away`), the table still gives
/// each of `answers` (query, format, bytes), the same bytes.
fn same_without_quads(
    store: &std::path::Path,
    away: &std::path::Path,
    answers: &[(&str, &str, String)],
    what: &str,
) {
    std::fs::rename(store.join("graphs"), away.join("graphs")).unwrap();
    for (name, format, before) in answers {
        let now = by_name(store, name, format);
        assert_eq!(
            &now, before,
            "{what}{name} as {format}, from the table alone"
        );
    }
}
