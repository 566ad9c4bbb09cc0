//! `kld canon --check` of a re-indented 15 MB checkpoint beside GNU diff on
//! the same two texts (run with `cargo bench --bench files`).
//!
//! Issue 31: the line diff was minimal and quadratic when every line
//! changed: a re-indented 3.6 MB checkpoint took 85 s, a 15 MB one more than
//! 7 minutes, while `canon -o` took 0.4 s and GNU diff 0.5 s. The diff now
//! runs under a deadline (`karenina_ld::diff::DIFF_DEADLINE`) and falls back
//! to a coarser one. Target: under 2 s.
//!
//! The checkpoint comes from the shared generator (4,100 questions, about
//! 15 MB) written with `--indent 4`; Karenina's bytes (indent 2) are what
//! `kld canon` writes. GNU diff compares the same two files (`diff -u`).
//! Each command runs 3 times; best and median are printed, and the two
//! diffs' removed and added lines are checked to cover the whole files.

use std::process::Command;
use std::time::Instant;

#[path = "../../../tests/common/mod.rs"]
mod common;

fn main() {
    let kld = env!("CARGO_BIN_EXE_kld");
    let dir = tempfile::tempdir().unwrap();
    common::run_generator(
        &["-n", "1", "-q", "4100", "-s", "1", "--indent", "4"],
        dir.path(),
    );
    let reindented = common::jsonld_in(dir.path()).remove(0);
    let canonical = dir.path().join("canonical.json");
    let st = Command::new(kld)
        .args(["canon", "-o"])
        .arg(&canonical)
        .arg(&reindented)
        .status()
        .unwrap();
    assert!(st.success());
    let mb = std::fs::metadata(&reindented).unwrap().len() as f64 / 1e6;
    let lines = std::fs::read_to_string(&reindented)
        .unwrap()
        .lines()
        .count();
    println!("re-indented checkpoint: {mb:.1} MB, {lines} lines, every line re-indented");
    let time = |label: &str, mk: &dyn Fn() -> Command| -> (f64, Vec<u8>) {
        let (times, o) = common::timed_runs(3, mk);
        // Both exit 1: the files differ.
        assert_eq!(
            o.status.code(),
            Some(1),
            "{label}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        println!(
            "{label:<34} best {:.2} s, median {:.2} s, {:.1} MB of diff",
            times[0],
            times[1],
            o.stdout.len() as f64 / 1e6
        );
        (times[0], o.stdout)
    };
    let (k, kout) = time("kld canon --check", &|| {
        let mut c = Command::new(kld);
        c.args(["canon", "--check"]).arg(&reindented);
        c
    });
    let (g, gout) = time("GNU diff -u (same files)", &|| {
        let mut c = Command::new("diff");
        c.arg("-u").arg(&reindented).arg(&canonical);
        c
    });
    let t = Instant::now();
    let st = Command::new(kld)
        .args(["canon", "-o"])
        .arg(dir.path().join("again.json"))
        .arg(&reindented)
        .status()
        .unwrap();
    assert!(st.success());
    let o = t.elapsed().as_secs_f64();
    println!(
        "{:<34} {o:.2} s (reference: reading and writing alone)",
        "kld canon -o"
    );
    // Both diffs remove every line of one side and add every line of the
    // other, bar lines both share.
    let count = |out: &[u8], c: u8| {
        String::from_utf8_lossy(out)
            .lines()
            .filter(|l| {
                l.as_bytes().first() == Some(&c) && !l.starts_with("---") && !l.starts_with("+++")
            })
            .count()
    };
    println!(
        "removed/added lines: kld {}/{}, GNU diff {}/{}",
        count(&kout, b'-'),
        count(&kout, b'+'),
        count(&gout, b'-'),
        count(&gout, b'+')
    );
    println!(
        "kld / GNU diff (best): {:.2}x; target: kld under 2 s",
        k / g
    );
}
