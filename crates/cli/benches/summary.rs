//! Karenina's summary of a paper-size run (issue 35): kld against Karenina
//! itself on the same export. Run with
//! `cargo build --release && cargo bench --bench summary` (needs Karenina's
//! venv: `$KLD_KARENINA_VENV`, else target/karenina-venv; `$KLD_BIN` names
//! another release `kld`).
//!
//! The export is `../shared/tools/karenina_paper_run.py`'s (7 answering ×
//! 7 parsing models × 144 questions × 3 replicates, 21,168 rows, written by
//! Karenina's own exporter), made once into `target/bench-paper/` (or named
//! by `$KLD_PAPER_RUN`). Each side is its own process, reaped by `wait4` for
//! its peak RSS:
//! - kld: `kld info res-paper.json --format json` (streamed; the report
//!   holds `summary` = `get_summary()` and `aggregate_pass_rate`);
//! - Karenina: `load_result_set_from_json(file)` then `get_summary()`.
//!
//! Both are run three times; the best wall time and its peak RSS are
//! printed, with the ratios (aim: kld at least 10× faster, at most a quarter
//! of the memory). The two summaries are also compared, so the numbers are
//! of the same work.

use std::path::{Path, PathBuf};
use std::process::Command;

mod timing;
use timing::measure;

const KARENINA: &str = r#"
import json, sys
from pathlib import Path
from karenina.benchmark.core.results_io import ResultsIOManager
rs = ResultsIOManager.load_result_set_from_json(Path(sys.argv[1]))
print(json.dumps(rs.get_summary(), default=str))
"#;

fn repo() -> &'static Path {
    Path::new(env!("KLD_SOURCE_ROOT"))
}

fn karenina_python() -> PathBuf {
    std::env::var_os("KLD_KARENINA_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/karenina-venv"))
        .join("bin/python")
}

/// The paper-size export, made once.
fn paper_run() -> PathBuf {
    if let Some(p) = std::env::var_os("KLD_PAPER_RUN") {
        return PathBuf::from(p);
    }
    let dir = repo().join("target/bench-paper");
    let file = dir.join("res-paper.json");
    if !file.is_file() {
        let tool = repo().join("../shared/tools/karenina_paper_run.py");
        let st = Command::new(karenina_python())
            .env("PYTHONHASHSEED", "0")
            .arg(tool)
            .arg(&dir)
            .arg("144")
            .status()
            .unwrap();
        assert!(st.success(), "karenina_paper_run.py");
    }
    file
}

/// The best of `n` runs: (seconds, its peak RSS in MB, stdout).
fn best(n: usize, mk: &dyn Fn() -> Command) -> (f64, f64, String) {
    (0..n)
        .map(|_| measure(&mut mk()))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap()
}

fn main() {
    let kld = std::env::var_os("KLD_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/release/kld"));
    assert!(kld.exists(), "build it first: cargo build --release");
    let file = paper_run();
    let mb = std::fs::metadata(&file).unwrap().len() as f64 / 1e6;
    let (k_secs, k_rss, k_out) = best(3, &|| {
        let mut c = Command::new(&kld);
        c.args(["info", "--format", "json"]).arg(&file);
        c
    });
    let (p_secs, p_rss, p_out) = best(3, &|| {
        let mut c = Command::new(karenina_python());
        c.args(["-c", KARENINA]).arg(&file);
        c
    });
    let ours: serde_json::Value = serde_json::from_str(&k_out).unwrap();
    let theirs: serde_json::Value = serde_json::from_str(&p_out).unwrap();
    let ours = &ours["summary"];
    assert_eq!(ours["num_results"], theirs["num_results"]);
    assert_eq!(
        ours["template_pass_overall"],
        theirs["template_pass_overall"]
    );
    println!(
        "paper-size export: {} rows, {mb:.0} MB ({})",
        ours["num_results"],
        file.display()
    );
    println!(
        "kld info --format json:                      {k_secs:>7.2} s  peak RSS {k_rss:>7.1} MB"
    );
    println!("Karenina load_result_set_from_json + get_summary(): {p_secs:>7.2} s  peak RSS {p_rss:>7.1} MB");
    println!(
        "kld is {:.1}x faster at {:.2} of the peak memory (aim: >= 10x, <= 0.25)",
        p_secs / k_secs,
        k_rss / p_rss
    );
}
