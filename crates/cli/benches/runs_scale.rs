//! One to ten paper-size runs of ten different benchmarks (issue 45's
//! scale): `kld serve` ready with every view built, its memory, the warm
//! leaderboard, and `kld load --store` + `kld query --store`, beside
//! Karenina's own per-run `load_result_set_from_json` + `get_summary()`
//! summed over the same runs, all timed in the same run.
//!
//! `$KLD_PAPER_RUNS` names a directory of `b1` … `b10`, each holding
//! `ck-paper.jsonld` and `res-paper.json`, as `paper/ten_runs.py` writes
//! them (`PYTHONHASHSEED=0 VENV/bin/python crates/cli/benches/paper/ten_runs.py
//! DIR`, about 70 s a run); `$KLD_KARENINA_VENV`; `$KLD_BIN` another release
//! `kld`. Run with `cargo build --release -p karenina-ld-cli && cargo bench
//! -p karenina-ld-cli --bench runs_scale`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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

/// `kld serve` over `inputs`: (seconds to the first non-empty
/// `/leaderboard`, RSS then in MB, peak RSS in MB, the board's cells, warm
/// `/leaderboard` p50 and max in seconds).
fn serve(kld: &Path, inputs: &[PathBuf]) -> (f64, f64, f64, usize, f64, f64) {
    let log = tempfile::NamedTempFile::new().unwrap();
    let start = Instant::now();
    let mut child = Command::new(kld)
        .arg("serve")
        .args(inputs)
        .args(["--bind", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(log.reopen().unwrap())
        .spawn()
        .unwrap();
    let port = loop {
        let text = std::fs::read_to_string(log.path()).unwrap_or_default();
        if let Some(p) = text
            .split("SPARQL endpoint http://127.0.0.1:")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .and_then(|p| p.parse::<u16>().ok())
        {
            break p;
        }
        assert!(start.elapsed() < Duration::from_secs(900), "{text}");
        std::thread::sleep(Duration::from_millis(10));
    };
    let c = reqwest::blocking::Client::new();
    let url = format!("http://127.0.0.1:{port}/leaderboard");
    let cells = loop {
        if let Ok(r) = c.get(&url).send() {
            let v: serde_json::Value = r.json().unwrap_or_default();
            if let Some(n) = v["cells"].as_array().map(Vec::len).filter(|&n| n > 0) {
                break n;
            }
        }
        assert!(start.elapsed() < Duration::from_secs(900), "never ready");
        std::thread::sleep(Duration::from_millis(10));
    };
    let ready = start.elapsed().as_secs_f64();
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let kb = |key: &str| -> f64 {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(f64::NAN)
    };
    let mut lat: Vec<f64> = (0..50)
        .map(|_| {
            let t = Instant::now();
            let r = c.get(&url).send().unwrap();
            assert_eq!(r.status(), 200);
            let _ = r.bytes().unwrap();
            t.elapsed().as_secs_f64()
        })
        .collect();
    lat.sort_by(f64::total_cmp);
    let _ = child.kill();
    let _ = child.wait();
    (
        ready,
        kb("VmRSS:") / 1024.0,
        kb("VmHWM:") / 1024.0,
        cells,
        lat[25],
        lat[49],
    )
}

fn main() {
    let kld = kld();
    let dir = PathBuf::from(std::env::var_os("KLD_PAPER_RUNS").expect("$KLD_PAPER_RUNS"));
    let runs: Vec<PathBuf> = (1..=10)
        .map(|k| dir.join(format!("b{k}")))
        .take_while(|d| d.join("res-paper.json").is_file())
        .collect();
    assert!(!runs.is_empty(), "no {}/b1/res-paper.json", dir.display());
    let python = karenina_python();

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
        "{:>4} {:>8} {:>10} {:>9} {:>9} {:>8} {:>7} {:>9} {:>9} {:>9} {:>8} {:>9}",
        "runs",
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
        let (ready, rss, hwm, cells, p50, max) = serve(&kld, &inputs);
        let results = 21_168 * k;
        // The store directory: loaded once, then a number view from its table.
        let tmp = tempfile::tempdir().unwrap();
        let sdir = tmp.path().join("store");
        let (load, _, _) = measure(
            Command::new(&kld)
                .args(["load", "--store"])
                .arg(&sdir)
                .args(&inputs),
        );
        let (query, _, out) = measure(Command::new(&kld).args([
            "query",
            "--format",
            "csv",
            "--named",
            "pass-rate-by-benchmark",
            "--store",
            sdir.to_str().unwrap(),
        ]));
        // A row a benchmark and combo: every run's benchmark answers.
        let benchmarks: std::collections::BTreeSet<&str> = out
            .lines()
            .skip(1)
            .filter_map(|l| l.split(',').next())
            .collect();
        assert_eq!(benchmarks.len(), k, "{benchmarks:?}");
        println!(
            "{k:>4} {results:>8} {:>8.1} s {:>7.2} s {:>8.1}x {rss:>8.0} {:>7.0} {hwm:>9.0} {:>6.1} ms {:>6.1} ms {:>6.1} s {:>7.3} s   ({cells} cells)",
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
