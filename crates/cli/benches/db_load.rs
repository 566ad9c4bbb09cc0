//! Loading a 50-benchmark, 100,000-result Karenina database against loading
//! the same results as JSON exports beside the same benchmarks as checkpoint
//! files (issue 36: the database within twice the JSON). Run with `cargo
//! build --release && cargo bench --bench db_load` (`KLD_BIN=path` measures
//! another build, `KLD_BENCH_TOTAL=n` another size; Karenina's venv at
//! `KLD_KARENINA_VENV` or `target/karenina-venv` writes the database).
//!
//! Data: 50 checkpoints of 20 questions (`gen_checkpoints.py`, seed 1), each
//! stored with Karenina's `save_to_db` (no checkpoint file recorded: the
//! benchmarks live in the database only) and given one run, the corpus
//! export `res-docs__notebooks__test_checkpoint.full.json` with its question
//! IDs replaced by the checkpoint's, imported with Karenina's
//! `import_verification_results` (`tests/scripts/karenina_db_bench_data.py`).
//! Each run's rows are then repeated by SQLite to 2,000 with fresh result
//! IDs, and each export scaled the same way. Each side is its own process,
//! best of three (`wait4` gives its peak RSS): `kld query INPUTS --named
//! results-by-model` (read, rebuild or parse, map, bind, answer): the database
//! alone (its benchmarks rebuilt as `load_from_db` rebuilds them) against the
//! 50 checkpoint files and 50 exports.

use std::path::PathBuf;
use std::process::{Command, Stdio};

mod timing;
use timing::{measure_quiet as measure, pad_db, scale_json};

const TOTAL: usize = 100_000;
const BENCHMARKS: usize = 50;

fn root() -> PathBuf {
    PathBuf::from(env!("KLD_SOURCE_ROOT"))
}

fn main() {
    let kld = std::env::var_os("KLD_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/release/kld"));
    assert!(kld.exists(), "build it first: cargo build --release");
    let python = std::env::var_os("KLD_KARENINA_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/karenina-venv"))
        .join("bin/python");
    let tools = std::env::var_os("KLD_SHARED_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/tools"));
    let total = std::env::var("KLD_BENCH_TOTAL")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(TOTAL);
    let per_run = total / BENCHMARKS;
    let work = tempfile::tempdir().unwrap();
    let cps = work.path().join("checkpoints");
    let st = Command::new("python3")
        .arg(tools.join("gen_checkpoints.py"))
        .args([
            "--checkpoints",
            &BENCHMARKS.to_string(),
            "--questions",
            "20",
            "--seed",
            "1",
            "--out",
        ])
        .arg(&cps)
        .stdout(Stdio::null())
        .status()
        .expect("python3");
    assert!(st.success());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&cps)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let data = work.path().join("data");
    let st = Command::new(&python)
        .arg(root().join("tests/scripts/karenina_db_bench_data.py"))
        .arg(&data)
        .arg(
            root().join("tests/data/corpus/results/res-docs__notebooks__test_checkpoint.full.json"),
        )
        .args(&files)
        .stdout(Stdio::null())
        .status()
        .expect("the Karenina venv's python (KLD_KARENINA_VENV)");
    assert!(st.success());
    let db = data.join("karenina.db");
    let db_bytes = pad_db(&db, per_run);
    let exports = work.path().join("exports");
    std::fs::create_dir(&exports).unwrap();
    let mut json_bytes = 0;
    let mut small: Vec<PathBuf> = std::fs::read_dir(data.join("exports"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    small.sort();
    for (i, f) in small.iter().enumerate() {
        json_bytes += scale_json(f, &exports.join(f.file_name().unwrap()), per_run, i);
    }
    let cp_bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .sum();
    let mb = |b: u64| b as f64 / 1e6;
    println!(
        "{} benchmarks, {} results: database {:.0} MB; checkpoints {:.1} MB + JSON exports {:.0} MB ({})",
        BENCHMARKS,
        per_run * BENCHMARKS,
        mb(db_bytes),
        mb(cp_bytes),
        mb(json_bytes),
        kld.display()
    );
    // Untimed: every database run is bound to its benchmark's database copy.
    let runs = Command::new(&kld)
        .args(["query", "--format", "tsv", "--named", "runs"])
        .arg(&db)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&runs.stdout);
    let bound = text
        .lines()
        .skip(1)
        .filter(|l| l.contains("#benchmark="))
        .count();
    assert_eq!(bound, BENCHMARKS, "every run bound: {text}");
    let mut best = Vec::new();
    for (label, inputs) in [
        ("SQLite", vec![db.clone()]),
        ("JSON", vec![cps.clone(), exports.clone()]),
    ] {
        let mut times = Vec::new();
        let mut peak: f64 = 0.0;
        for _ in 0..3 {
            let (secs, rss, out) = measure(
                Command::new(&kld)
                    .args(["query", "--format", "tsv", "--named", "results-by-model"])
                    .args(&inputs),
            );
            let col = out
                .lines()
                .next()
                .and_then(|h| h.split('\t').position(|c| c == "?results"))
                .expect("a ?results column");
            let results: u64 = out
                .lines()
                .skip(1)
                .filter_map(|l| l.split('\t').nth(col))
                .filter_map(|n| n.trim_matches('"').parse::<u64>().ok())
                .sum();
            assert_eq!(
                results as usize,
                per_run * BENCHMARKS,
                "{label}: every result answered"
            );
            times.push(secs);
            peak = peak.max(rss);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{label:<6} kld query INPUTS results-by-model: best {:.2} s (of {:.2}, {:.2})  {:>8.0} results/s  peak RSS {peak:.0} MB",
            times[0],
            times[1],
            times[2],
            (per_run * BENCHMARKS) as f64 / times[0],
        );
        best.push(times[0]);
    }
    println!(
        "database / JSON: {:.2}x (issue 36 asks for at most 2x)",
        best[0] / best[1]
    );
}
