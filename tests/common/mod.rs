//! Helpers shared by the test binaries.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The corpus of real checkpoints, presets and results exports Karenina
/// wrote or loads: `tests/data/corpus/` (copied from the project's shared
/// corpus; `ORIGIN.md` there says where each file comes from), or
/// `$KLD_CORPUS` when set.
pub fn corpus() -> PathBuf {
    corpus_at(match std::env::var_os("KLD_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => data("corpus"),
    })
}

/// `dir` if it holds a corpus (its `MANIFEST.tsv`), else a panic naming the
/// path looked at.
pub fn corpus_at(dir: PathBuf) -> PathBuf {
    assert!(
        dir.join("MANIFEST.tsv").is_file(),
        "the test corpus (real Karenina checkpoints and results) is missing: \
         no {} (it is committed in tests/data/corpus; KLD_CORPUS names another)",
        dir.join("MANIFEST.tsv").display()
    );
    dir
}

/// A fixture file under `tests/data/`, read whole; a missing one panics
/// naming its path (not a bare "No such file or directory").
pub fn read_fixture(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
}

/// [`read_fixture`] as UTF-8 text.
pub fn read_fixture_string(path: &Path) -> String {
    String::from_utf8(read_fixture(path))
        .unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
}

/// Files of one corpus folder (`loads`, `rejects`, `presets`), sorted.
pub fn corpus_files(folder: &str) -> Vec<PathBuf> {
    let dir = corpus().join(folder);
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus folder {}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no files in {}", dir.display());
    v
}

/// Two doubles the same number but for the order a sum of doubles was taken
/// in (Karenina's Python, SPARQL's engine, statsmodels and kld's Rust each
/// choose their own): within 1e-9 of the larger, or of 1 near zero (so a
/// rate in [0, 1] is within 1e-9, a percentage within 1e-7). The one
/// tolerance every test comparing a number kld computes with another
/// computation of it allows: the differential suites, the table against
/// SPARQL, the page and the grids against `kld info`. Python's suite uses
/// the same rule (`math.isclose(rel_tol=1e-9, abs_tol=1e-9)`,
/// python/tests/test_summary.py). Not infinite or NaN: a caller compares
/// those by equality first. Tighter checks stay where both sides are one
/// division done the same way (`< 1e-12`), looser ones where a side is read
/// off a drawing (a bar's width over its track's in the browser, `< 1e-6`).
pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// `tests/data/...`
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("KLD_SOURCE_ROOT"))
        .join("tests/data")
        .join(rel)
}

/// Files Karenina itself wrote: canon must return them unchanged.
pub fn karenina_written(p: &Path) -> bool {
    p.file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("karenina-output__")
}

/// The checkpoint generator's output for `args` in a fresh temp dir: from
/// its committed snapshot in `tests/data/generated/` (so `cargo test` needs
/// no Python; `generated_snapshots_match_the_generator` checks every
/// snapshot against a fresh run), else by running the generator (such tests
/// are in the ignored interop tier).
pub fn generate(args: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = data("generated").join(snapshot_key(args));
    if snapshot.is_dir() {
        for e in std::fs::read_dir(&snapshot).unwrap().flatten() {
            if e.file_name() != "ARGS" {
                std::fs::copy(e.path(), dir.path().join(e.file_name())).unwrap();
            }
        }
        return dir;
    }
    run_generator(args, dir.path());
    dir
}

/// The snapshot folder name for generator arguments.
pub fn snapshot_key(args: &[&str]) -> String {
    args.iter()
        .map(|a| a.trim_start_matches('-'))
        .collect::<Vec<_>>()
        .join("_")
}

/// `../shared/tools` (the project's shared tools: the checkpoint generator,
/// the Karenina run makers), or `$KLD_SHARED_TOOLS`, or the tools beside
/// `$KLD_CORPUS` when that names a shared corpus elsewhere. Panics naming
/// the directory when it is missing (interop tier only: `cargo test` never
/// needs it).
pub fn shared_tools() -> PathBuf {
    let dir = std::env::var_os("KLD_SHARED_TOOLS")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("KLD_CORPUS")
                .map(|c| Path::new(&c).join("../tools"))
                .filter(|t| t.is_dir())
        })
        .unwrap_or_else(|| Path::new(env!("KLD_SOURCE_ROOT")).join("../shared/tools"));
    assert!(
        dir.is_dir(),
        "{}: the shared tools are missing (put ../shared beside the repository or set KLD_SHARED_TOOLS)",
        dir.display()
    );
    dir
}

/// Runs `../shared/tools/gen_checkpoints.py ARGS -o OUT` (needs python3).
pub fn run_generator(args: &[&str], out: &Path) {
    let gen = shared_tools().join("gen_checkpoints.py");
    let st = std::process::Command::new("python3")
        .arg(gen)
        .args(args)
        .arg("-o")
        .arg(out)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("python3 must be installed to run the generator");
    assert!(st.success());
}

/// Runs Karenina's own pipeline at test time: the shared tools'
/// `karenina_runs.py --seed SEED` over the corpus' checkpoints into `out`,
/// by the Karenina venv's python (interop tier). Returns the exports it
/// wrote (`res-*.json`, not their `.expect.json`), sorted.
pub fn karenina_runs(seed: &str, out: &Path) -> Vec<PathBuf> {
    run_ok(
        std::process::Command::new(karenina_python())
            .arg(shared_tools().join("karenina_runs.py"))
            .args(["--seed", seed, "--checkpoints"])
            .arg(corpus().join("loads").join("*.jsonld"))
            .arg("--out")
            .arg(out),
    );
    files_in(out, "json")
        .into_iter()
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("res-") && !n.ends_with(".expect.json")
        })
        .collect()
}

/// The `.jsonld` files in a directory, sorted.
pub fn jsonld_in(dir: &Path) -> Vec<PathBuf> {
    files_in(dir, "jsonld")
}

/// The files of a directory whose extension is `ext`, sorted.
pub fn files_in(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

/// A free TCP port on 127.0.0.1 (bound then released; good enough for tests).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child process (a server under test) killed by its PID when dropped.
pub struct ServerGuard(pub std::process::Child);

impl Drop for ServerGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits until something accepts TCP connections on 127.0.0.1:`port`.
pub fn wait_for_port(port: u16, timeout: std::time::Duration) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed() < timeout {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

/// Runs a command that must succeed; returns its stdout (stdout and stderr
/// in the panic message otherwise).
pub fn run_ok(cmd: &mut std::process::Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Starts `oxigraph serve` (pip `oxigraph`) over `location` on 127.0.0.1:`port`
/// with the union default graph (as kld's own queries); killed when dropped.
/// Callers wait for the port themselves.
pub fn oxigraph_server(location: &Path, port: u16) -> ServerGuard {
    oxigraph_server_with(location, port, true)
}

/// [`oxigraph_server`], with the union default graph or without it (a
/// default graph of its own, as `oxigraph serve` has by default).
pub fn oxigraph_server_with(location: &Path, port: u16, union: bool) -> ServerGuard {
    let flags: &[&str] = if union {
        &["serve", "--union-default-graph", "--location"]
    } else {
        &["serve", "--location"]
    };
    ServerGuard(
        std::process::Command::new("oxigraph")
            .args(flags)
            .arg(location)
            .args(["--bind", &format!("127.0.0.1:{port}")])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the Oxigraph server (pip install oxigraph)"),
    )
}

/// Total size of `files` in MB (10^6 bytes).
pub fn total_mb(files: &[PathBuf]) -> f64 {
    files
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum::<u64>() as f64
        / 1e6
}

/// Records a differential suite's outcome (cases judged by kld and by the
/// system it mirrors, and how many they disagreed on) in
/// `target/differential-reports/NAME.txt`, which `.ci/run` prints after the
/// tests, so CI's log shows every suite's counts.
pub fn report_differential(name: &str, cases: usize, disagreements: usize, detail: &str) {
    let dir = Path::new(env!("KLD_SOURCE_ROOT")).join("target/differential-reports");
    std::fs::create_dir_all(&dir).unwrap();
    let line = format!("{name}: {cases} cases, {disagreements} disagreements{detail}\n");
    std::fs::write(dir.join(format!("{name}.txt")), &line).unwrap();
    print!("{line}");
}

/// Runs the command `mk` makes `runs` times; the times in seconds, sorted
/// (best first), and the last run's output. For benches, side by side with
/// a peer.
pub fn timed_runs(
    runs: usize,
    mk: &dyn Fn() -> std::process::Command,
) -> (Vec<f64>, std::process::Output) {
    let mut times = Vec::new();
    let mut out = None;
    for _ in 0..runs {
        let t = std::time::Instant::now();
        out = Some(mk().output().unwrap());
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    (times, out.expect("at least one run"))
}

/// Resident memory of process `pid` in MB (`VmRSS`, Linux).
pub fn rss_mb(pid: u32) -> f64 {
    vm_mb(pid, "VmRSS")
}

/// The memory figure `key` (`VmRSS`, `VmHWM`, …) of process `pid` in MB,
/// from `/proc/PID/status` (Linux); 0 when it cannot be read.
pub fn vm_mb(pid: u32, key: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The port `kld serve` announced on standard error ("SPARQL endpoint
/// http://127.0.0.1:PORT/…"), once its log holds the line.
pub fn announced_port(log: &str) -> Option<u16> {
    log.split("SPARQL endpoint http://127.0.0.1:")
        .nth(1)?
        .split('/')
        .next()?
        .parse()
        .ok()
}

/// The Karenina venv's python: `$KLD_KARENINA_VENV`, else
/// `target/karenina-venv` (where CI installs it with
/// `tests/scripts/karenina-venv.sh`).
pub fn karenina_python() -> PathBuf {
    let venv = std::env::var_os("KLD_KARENINA_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("KLD_SOURCE_ROOT")).join("target/karenina-venv"));
    venv.join("bin/python")
}
