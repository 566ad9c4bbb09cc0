//! Karenina's summary of a paper-size run (issue 35): kld against Karenina
//! itself on the same export. Run with
//! `cargo build --release && cargo bench --bench summary` (needs Karenina's
//! venv: `$KLD_KARENINA_VENV`, else target/karenina-venv; `$KLD_BIN` names
//! another release `kld`).
//!
//! The export is the paper-size run (`paper/mod.rs`: `$KLD_PAPER_RUN`, else
//! made once into `target/bench-paper/`). Each side is its own process, reaped by `wait4` for
//! its peak RSS:
//! - kld: `kld info res-paper.json --format json` (streamed; the report
//!   holds `summary` = `get_summary()` and `aggregate_pass_rate`);
//! - Karenina: `load_result_set_from_json(file)` then `get_summary()`.
//!
//! Both are run three times; the best wall time and its peak RSS are
//! printed, with the ratios (aim: kld at least 10× faster, at most a quarter
//! of the memory). The two summaries are also compared, so the numbers are
//! of the same work.

use std::process::Command;

mod paper;
mod timing;
use paper::{best, karenina_python, kld, paper_run};

const KARENINA: &str = r#"
import json, sys
from pathlib import Path
from karenina.benchmark.core.results_io import ResultsIOManager
rs = ResultsIOManager.load_result_set_from_json(Path(sys.argv[1]))
print(json.dumps(rs.get_summary(), default=str))
"#;

fn main() {
    let kld = kld();
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
