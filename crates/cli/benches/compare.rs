//! `kld compare` on a paper-size run (issue 46): every statistic (rates
//! with intervals, 21 pairs × 8 views, agreement, bias bootstrap, questions,
//! replicates) in under 2 s on a 2-core machine. Run with
//! `cargo build --release && cargo bench --bench compare`.
//!
//! The export is `../shared/tools/karenina_paper_run.py`'s (7 answering ×
//! 7 parsing models × 144 questions × 3 replicates, 21,168 rows), named by
//! `$KLD_PAPER_RUN`, else `/work/paper/res-paper.json` when there, else made
//! once into `target/bench-paper/` with Karenina's venv
//! (`$KLD_KARENINA_VENV`). `$KLD_BIN` names another release `kld`. Each
//! format is run three times; the best wall time and its peak RSS are
//! printed, beside `kld info --format json` of the same file (the reading
//! both share).

use std::path::{Path, PathBuf};
use std::process::Command;

mod timing;
use timing::measure;

fn repo() -> &'static Path {
    Path::new(env!("KLD_SOURCE_ROOT"))
}

fn paper_run() -> PathBuf {
    if let Some(p) = std::env::var_os("KLD_PAPER_RUN") {
        return PathBuf::from(p);
    }
    let shared = Path::new("/work/paper/res-paper.json");
    if shared.is_file() && Path::new("/work/paper/READY").exists() {
        return shared.to_path_buf();
    }
    let dir = repo().join("target/bench-paper");
    let file = dir.join("res-paper.json");
    if !file.is_file() {
        let py = std::env::var_os("KLD_KARENINA_VENV")
            .map(PathBuf::from)
            .unwrap_or_else(|| repo().join("target/karenina-venv"))
            .join("bin/python");
        let st = Command::new(py)
            .env("PYTHONHASHSEED", "0")
            .arg(repo().join("../shared/tools/karenina_paper_run.py"))
            .arg(&dir)
            .arg("144")
            .status()
            .unwrap();
        assert!(st.success(), "karenina_paper_run.py");
    }
    file
}

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
    let (i_secs, i_rss, _) = best(3, &|| {
        let mut c = Command::new(&kld);
        c.args(["info", "--format", "json"]).arg(&file);
        c
    });
    println!("{}", file.display());
    println!("kld info --format json:        {i_secs:>6.2} s  peak RSS {i_rss:>6.1} MB");
    for format in ["text", "json"] {
        let (secs, rss, out) = best(3, &|| {
            let mut c = Command::new(&kld);
            c.args(["compare", "--format", format]).arg(&file);
            c
        });
        assert!(!out.is_empty());
        println!(
            "kld compare --format {format:<5}    {secs:>6.2} s  peak RSS {rss:>6.1} MB  (aim: < 2 s)"
        );
    }
}
