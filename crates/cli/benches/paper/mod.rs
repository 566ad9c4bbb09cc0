//! What the benches on the paper-size run share (`summary`, `compare`,
//! `table`, `runs_scale`): the repository, Karenina's venv, the release
//! `kld`, the export itself, the best of several timed runs, and `kld serve`
//! started and timed to its first full leaderboard.
//!
//! The export is `../shared/tools/karenina_paper_run.py`'s (7 answering ×
//! 7 parsing models × 144 questions × 3 replicates, 21,168 rows, written by
//! Karenina's own exporter), named by `$KLD_PAPER_RUN`, else made once into
//! `target/bench-paper/` with Karenina's venv (`$KLD_KARENINA_VENV`, else
//! `target/karenina-venv`). `$KLD_BIN` names another release `kld`.

#[path = "../../../../tests/common/mod.rs"]
mod common;

use super::timing::measure;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository.
pub fn repo() -> &'static Path {
    Path::new(env!("KLD_SOURCE_ROOT"))
}

/// The Python of Karenina's venv (`$KLD_KARENINA_VENV`, else
/// `target/karenina-venv`).
#[allow(dead_code)]
pub fn karenina_python() -> PathBuf {
    common::karenina_python()
}

/// The release `kld` (`$KLD_BIN`, else target/release/kld), which must
/// exist.
pub fn kld() -> PathBuf {
    let kld = std::env::var_os("KLD_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/release/kld"));
    assert!(kld.exists(), "build it first: cargo build --release");
    kld
}

/// The paper-size export, made once.
#[allow(dead_code)]
pub fn paper_run() -> PathBuf {
    if let Some(p) = std::env::var_os("KLD_PAPER_RUN") {
        return PathBuf::from(p);
    }
    let dir = repo().join("target/bench-paper");
    let file = dir.join("res-paper.json");
    if !file.is_file() {
        let st = Command::new(karenina_python())
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

/// The best of `n` runs: (seconds, its peak RSS in MB, stdout).
#[allow(dead_code)]
pub fn best(n: usize, mk: &dyn Fn() -> Command) -> (f64, f64, String) {
    (0..n)
        .map(|_| measure(&mut mk()))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap()
}

/// A `kld serve` started by a bench, once ready.
#[allow(dead_code)]
pub struct Served {
    /// The server.
    pub child: std::process::Child,
    /// Its `/leaderboard` URL.
    pub leaderboard: String,
    /// The base URL.
    pub base: String,
    /// Seconds from start to the first full `/leaderboard` (every view built).
    pub ready: f64,
    /// RSS then, in MB.
    pub rss: f64,
    /// Peak RSS so far, in MB.
    pub hwm: f64,
    /// The board's cells then.
    pub cells: usize,
}

/// Starts `kld serve INPUTS` on a free loopback port and waits for its
/// first full `/leaderboard` (cells in it).
#[allow(dead_code)]
pub fn serve_ready(kld: &Path, inputs: &[PathBuf], extra: &[&str]) -> Served {
    use std::time::{Duration, Instant};
    let log = tempfile::NamedTempFile::new().unwrap();
    let start = Instant::now();
    let child = Command::new(kld)
        .arg("serve")
        .args(inputs)
        .args(["--bind", "127.0.0.1:0"])
        .args(extra)
        .stdout(std::process::Stdio::null())
        .stderr(log.reopen().unwrap())
        .spawn()
        .unwrap();
    let port = loop {
        let text = std::fs::read_to_string(log.path()).unwrap_or_default();
        if let Some(p) = common::announced_port(&text) {
            break p;
        }
        assert!(start.elapsed() < Duration::from_secs(900), "{text}");
        std::thread::sleep(Duration::from_millis(10));
    };
    let base = format!("http://127.0.0.1:{port}");
    let leaderboard = format!("{base}/leaderboard");
    let c = reqwest::blocking::Client::new();
    let cells = loop {
        if let Ok(r) = c.get(&leaderboard).send() {
            let v: serde_json::Value = r.json().unwrap_or_default();
            if let Some(n) = v["cells"].as_array().map(Vec::len).filter(|&n| n > 0) {
                break n;
            }
        }
        assert!(start.elapsed() < Duration::from_secs(900), "never ready");
        std::thread::sleep(Duration::from_millis(10));
    };
    let ready = start.elapsed().as_secs_f64();
    Served {
        rss: common::vm_mb(child.id(), "VmRSS"),
        hwm: common::vm_mb(child.id(), "VmHWM"),
        child,
        leaderboard,
        base,
        ready,
        cells,
    }
}

#[allow(dead_code)]
impl Served {
    /// `n` warm `/leaderboard` requests, one after another: their seconds,
    /// sorted.
    pub fn leaderboard_latencies(&self, n: usize) -> Vec<f64> {
        let c = reqwest::blocking::Client::new();
        let mut lat: Vec<f64> = (0..n)
            .map(|_| {
                let t = std::time::Instant::now();
                let r = c.get(&self.leaderboard).send().unwrap();
                assert_eq!(r.status(), 200);
                let _ = r.bytes().unwrap();
                t.elapsed().as_secs_f64()
            })
            .collect();
        lat.sort_by(f64::total_cmp);
        lat
    }

    /// Stops the server.
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `kld query --format csv --named pass-rate-by-benchmark --store DIR`: a
/// number view answered from a store directory's results table.
#[allow(dead_code)]
pub fn store_query(kld: &Path, store: &Path) -> Command {
    let mut c = Command::new(kld);
    c.args([
        "query",
        "--format",
        "csv",
        "--named",
        "pass-rate-by-benchmark",
        "--store",
    ])
    .arg(store);
    c
}
