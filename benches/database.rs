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

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

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
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn corpus() -> PathBuf {
    root().join("tests/data/corpus")
}

/// As `benches/results.rs` scales an export.
fn scale_json(src: &Path, dst: &Path, n: usize, seed: usize) -> u64 {
    let text = std::fs::read_to_string(src).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let rows: Vec<&str> = lines
        .map(|l| l.trim_end_matches(','))
        .filter(|l| l.starts_with('{'))
        .collect();
    let mut out = std::io::BufWriter::new(std::fs::File::create(dst).unwrap());
    writeln!(out, "{header}").unwrap();
    for i in 0..n {
        let row = rows[i % rows.len()];
        let at = row.find("\"result_id\": \"").unwrap() + 14;
        let id = format!("{:016x}", (seed as u64) << 40 | i as u64);
        let mut line = format!("{}{}{}", &row[..at], id, &row[at + 16..]);
        if let Some(r) = line.find("\"replicate\": ") {
            let end = r + 13 + line[r + 13..].find([',', '}']).unwrap();
            line.replace_range(r + 13..end, &(i / rows.len() + 1).to_string());
        }
        out.write_all(line.as_bytes()).unwrap();
        out.write_all(if i + 1 < n { b",\n" } else { b"\n" })
            .unwrap();
    }
    out.write_all(b"]}\n").unwrap();
    out.flush().unwrap();
    std::fs::metadata(dst).unwrap().len()
}

/// Repeats each run's result rows to `n` rows, with fresh result IDs.
fn scale_db(dst: &Path, n: usize) -> u64 {
    std::fs::copy(root().join("tests/data/runs/karenina.db"), dst).unwrap();
    let script = r#"
import sqlite3, sys
db, n = sys.argv[1], int(sys.argv[2])
c = sqlite3.connect(db)
cols = [r[1] for r in c.execute("PRAGMA table_info(verification_results)") if r[1] != "id"]
names = ", ".join(cols)
pick = ", ".join("printf('%016x', ?2 + abs(random() % 1000000000000))" if x == "metadata_result_id" else x for x in cols)
for seed, (run,) in enumerate(c.execute("SELECT id FROM verification_runs ORDER BY created_at").fetchall()):
    while True:
        have = c.execute("SELECT COUNT(*) FROM verification_results WHERE run_id = ?", (run,)).fetchone()[0]
        if have >= n:
            break
        c.execute(f"INSERT INTO verification_results ({names}) SELECT {pick} FROM verification_results "
                  f"WHERE run_id = ?1 ORDER BY id LIMIT ?3", (run, seed << 40, n - have))
c.commit()
c.execute("VACUUM")
"#;
    let st = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(dst)
        .arg(n.to_string())
        .status()
        .expect("python3");
    assert!(st.success());
    std::fs::metadata(dst).unwrap().len()
}

use common::measure_quiet as measure;

mod common;

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
