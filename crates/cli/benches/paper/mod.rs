//! What the benches on the paper-size run share (`summary`, `compare`):
//! the repository, Karenina's venv, the release `kld`, the export itself
//! and the best of several timed runs.
//!
//! The export is `../shared/tools/karenina_paper_run.py`'s (7 answering ×
//! 7 parsing models × 144 questions × 3 replicates, 21,168 rows, written by
//! Karenina's own exporter), named by `$KLD_PAPER_RUN`, else made once into
//! `target/bench-paper/` with Karenina's venv (`$KLD_KARENINA_VENV`, else
//! `target/karenina-venv`). `$KLD_BIN` names another release `kld`.

use super::timing::measure;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository.
pub fn repo() -> &'static Path {
    Path::new(env!("KLD_SOURCE_ROOT"))
}

/// The Python of Karenina's venv.
#[allow(dead_code)]
pub fn karenina_python() -> PathBuf {
    std::env::var_os("KLD_KARENINA_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/karenina-venv"))
        .join("bin/python")
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
