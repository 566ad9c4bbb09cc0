//! One to ten paper-size runs of ten different benchmarks (issue 45's
//! scale): `kld serve` ready with every view built, its memory and the warm
//! leaderboard, with every field of the results as quads and with their keys
//! only (`--result-quads keys`), and `kld load --store` + `kld query
//! --store`, beside
//! Karenina's own per-run `load_result_set_from_json` + `get_summary()`
//! summed over the same runs, all timed in the same run.
//!
//! `$KLD_PAPER_RUNS` names a directory of `b1` … `b10`, each holding
//! `ck-paper.jsonld` and `res-paper.json`, as `paper/ten_runs.py` writes
//! them (`PYTHONHASHSEED=0 VENV/bin/python crates/cli/benches/paper/ten_runs.py
//! DIR`, about 70 s a run); `$KLD_KARENINA_VENV`; `$KLD_BIN` another release
//! `kld`. Run with `cargo build --release -p karenina-ld-cli && cargo bench
//! -p karenina-ld-cli --bench runs_scale`.

use std::path::PathBuf;
use std::process::Command;

mod paper;
mod timing;
use paper::{karenina_python, kld};
use timing::measure;

const KARENINA: &str = r#"
import json, sys
from pathlib import Path
from karenina.benchmark.core.results_io import ResultsIOManager
rs = ResultsIOManager.load_result_set_from_json(Path(sys.argv[1]))
print(len(rs.get_summary()["template_pass_by_combo"]))
"#;

fn main() {
    let kld = kld();
    let dir = PathBuf::from(std::env::var_os("KLD_PAPER_RUNS").expect("$KLD_PAPER_RUNS"));
    let runs: Vec<PathBuf> = (1..=10)
        .map(|k| dir.join(format!("b{k}")))
        .take_while(|d| d.join("res-paper.json").is_file())
        .collect();
    assert!(!runs.is_empty(), "no {}/b1/res-paper.json", dir.display());
    let python = karenina_python();
    // Each run's results, as kld info counts them.
    let results: Vec<usize> = runs
        .iter()
        .map(|d| {
            karenina_ld::table::from_path(&d.join("res-paper.json"))
                .unwrap()
                .len()
        })
        .collect();

    // Karenina, one run at a time (how a Karenina user analyses runs).
    let karenina: Vec<f64> = runs
        .iter()
        .map(|d| {
            measure(
                Command::new(&python)
                    .args(["-c", KARENINA])
                    .arg(d.join("res-paper.json")),
            )
            .0
        })
        .collect();
    println!(
        "Karenina load + get_summary(), per run: {}",
        karenina
            .iter()
            .map(|s| format!("{s:.2} s"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "{:>4} {:>5} {:>8} {:>10} {:>9} {:>9} {:>8} {:>7} {:>9} {:>9} {:>9} {:>8} {:>9}",
        "runs",
        "quads",
        "results",
        "Karenina",
        "ready",
        "ratio",
        "RSS MB",
        "B/res",
        "peak MB",
        "lb p50",
        "lb max",
        "load",
        "query"
    );
    for k in [1usize, 2, 5, 10].into_iter().filter(|&k| k <= runs.len()) {
        let inputs: Vec<PathBuf> = runs[..k]
            .iter()
            .flat_map(|d| [d.join("ck-paper.jsonld"), d.join("res-paper.json")])
            .collect();
        let k_secs: f64 = karenina[..k].iter().sum();
        let results: usize = results[..k].iter().sum();
        let mut load_and_query = None;
        for quads in ["all", "keys"] {
            let mut served = paper::serve_ready(&kld, &inputs, &["--result-quads", quads]);
            let lat = served.leaderboard_latencies(50);
            served.stop();
            let (ready, rss, hwm, cells) = (served.ready, served.rss, served.hwm, served.cells);
            let (p50, max) = (lat[25], lat[49]);
            let (load, query) = *load_and_query.get_or_insert_with(|| {
                // The store directory: loaded once, then a number view from its table.
                let tmp = tempfile::tempdir().unwrap();
                let sdir = tmp.path().join("store");
                let (load, _, _) = measure(
                    Command::new(&kld)
                        .args(["load", "--store"])
                        .arg(&sdir)
                        .args(&inputs),
                );
                let (query, _, out) = measure(&mut paper::store_query(&kld, &sdir));
                // A row a benchmark and combo: every run's benchmark answers.
                let benchmarks: std::collections::BTreeSet<&str> = out
                    .lines()
                    .skip(1)
                    .filter_map(|l| l.split(',').next())
                    .collect();
                assert_eq!(benchmarks.len(), k, "{benchmarks:?}");
                (load, query)
            });
            println!(
            "{k:>4} {quads:>5} {results:>8} {:>8.1} s {:>7.2} s {:>8.1}x {rss:>8.0} {:>7.0} {hwm:>9.0} {:>6.1} ms {:>6.1} ms {:>6.1} s {:>7.3} s   ({cells} cells)",
            k_secs,
            ready,
            k_secs / ready,
            rss * 1048576.0 / results as f64,
            p50 * 1e3,
            max * 1e3,
            load,
            query
        );
        }
    }
}
