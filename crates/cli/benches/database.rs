//! Karenina's results database read into the store (issue 21): 100,000
//! results in SQLite against the same results as JSON exports. Run with
//! `cargo build --release && cargo bench --bench database` (`KLD_BIN=path`
//! measures another build, `KLD_BENCH_TOTAL=n` another size).
//!
//! The database is `tests/data/runs/karenina.db` (written by Karenina's own
//! `save_benchmark` + `import_verification_results`: three runs of two
//! benchmarks) with each run's result rows repeated by SQLite to a third of
//! 100,000, each copy with a fresh `metadata_result_id`; the three exports
//! those runs were imported from are scaled to the same row counts the same
//! way (v2.2 stream, rows otherwise byte for byte). Each is measured as its
//! own process (`wait4` gives its peak RSS): `kld query FILES --named
//! results-by-model` with the two checkpoints (read, map, bind, answer).

use std::path::{Path, PathBuf};
use std::process::Command;

mod timing;
use timing::{measure_quiet as measure, pad_db, scale_json};

const TOTAL: usize = 100_000;
const RUNS: [&str; 3] = [
    "res-docs__notebooks__test_checkpoint.full",
    "res-docs__notebooks__test_checkpoint.partial",
    "res-tests__fixtures__checkpoints__with_rubrics.full",
];
const CHECKPOINTS: [&str; 2] = [
    "docs__notebooks__test_checkpoint.jsonld",
    "tests__fixtures__checkpoints__with_rubrics.jsonld",
];

fn root() -> PathBuf {
    PathBuf::from(env!("KLD_SOURCE_ROOT"))
}

fn corpus() -> PathBuf {
    root().join("tests/data/corpus")
}

/// The corpus database, its runs padded to `n` rows each.
fn scale_db(dst: &Path, n: usize) -> u64 {
    std::fs::copy(root().join("tests/data/runs/karenina.db"), dst).unwrap();
    pad_db(dst, n)
}

fn main() {
    let kld = std::env::var_os("KLD_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/release/kld"));
    assert!(kld.exists(), "build it first: cargo build --release");
    let work = tempfile::tempdir().unwrap();
    let total = std::env::var("KLD_BENCH_TOTAL")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(TOTAL);
    let per_run = total / RUNS.len();
    let db = work.path().join("karenina.db");
    let db_bytes = scale_db(&db, per_run);
    let mut json = Vec::new();
    let mut json_bytes = 0;
    for (i, run) in RUNS.iter().enumerate() {
        let f = work.path().join(format!("{run}.json"));
        json_bytes += scale_json(
            &corpus().join(format!("results/{run}.json")),
            &f,
            per_run,
            i,
        );
        json.push(f);
    }
    let cps: Vec<PathBuf> = CHECKPOINTS
        .iter()
        .map(|c| corpus().join("loads").join(c))
        .collect();
    let mb = |b: u64| b as f64 / 1e6;
    println!(
        "{} results: database {:.0} MB, JSON exports {:.0} MB ({})",
        per_run * RUNS.len(),
        mb(db_bytes),
        mb(json_bytes),
        kld.display()
    );
    for (label, inputs, bytes) in [
        ("SQLite", vec![db.clone()], db_bytes),
        ("JSON", json, json_bytes),
    ] {
        let (secs, rss, out) = measure(
            Command::new(&kld)
                .args(["query", "--format", "tsv", "--named", "results-by-model"])
                .args(&inputs)
                .args(&cps),
        );
        let results: u64 = out
            .lines()
            .skip(1)
            .filter_map(|l| l.split('\t').nth(3))
            .filter_map(|n| n.trim_matches('"').parse::<u64>().ok())
            .sum();
        assert_eq!(
            results as usize,
            per_run * RUNS.len(),
            "{label}: every result answered"
        );
        println!(
            "{label:<6} kld query FILES results-by-model: {secs:>6.2} s  {:>8.0} results/s  {:>6.1} MB/s  peak RSS {rss:>6.0} MB",
            results as f64 / secs,
            mb(bytes) / secs
        );
    }
}
