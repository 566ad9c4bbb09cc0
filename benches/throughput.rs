//! Throughput of `validate` and `canon` on checkpoints made by
//! `../shared/tools/gen_checkpoints.py` (run with `cargo bench`).
//!
//! Prints MB/s single-threaded (one file after another, in process) and for the
//! whole batch on all cores, as the CLI runs it. Targets (issue #2, 2 cores):
//! validate >= 100 MB/s, canon >= 60 MB/s.

use karenina_ld::model::{analyze, ReadOptions};
use karenina_ld::save::{write_checkpoint, WriteOptions};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "../tests/common/mod.rs"]
mod common;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn read_all(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    common::jsonld_in(dir)
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect()
}

fn best_of<F: FnMut()>(runs: usize, mut f: F) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn validate(p: &Path, b: &[u8]) -> usize {
    let a = analyze(p, b, ReadOptions::default());
    assert!(!a.report.has_errors());
    a.report.diagnostics.len()
}

fn canon(p: &Path, b: &[u8]) -> usize {
    let a = analyze(p, b, ReadOptions::default());
    let out = write_checkpoint(a.checkpoint.as_ref().unwrap(), &WriteOptions::default());
    assert_eq!(out.len(), b.len(), "canon changed a generated file");
    out.len()
}

fn main() {
    let sets: [(&str, &[&str]); 2] = [
        ("200 x 50 questions", &["-n", "200", "-q", "50", "-s", "1"]),
        (
            "1 x 2000 questions, all kinds",
            &["-n", "1", "-q", "2000", "-s", "1", "--all-kinds"],
        ),
    ];
    println!(
        "{:<32} {:>10} {:>14} {:>14}",
        "data set", "MB", "validate MB/s", "canon MB/s"
    );
    for (name, args) in sets {
        let dir = common::generate(args);
        let files = read_all(dir.path());
        let mb = files.iter().map(|(_, b)| b.len()).sum::<usize>() as f64 / 1e6;
        let v1 = best_of(3, || {
            for (p, b) in &files {
                validate(p, b);
            }
        });
        let c1 = best_of(3, || {
            for (p, b) in &files {
                canon(p, b);
            }
        });
        println!(
            "{:<32} {:>10.1} {:>14.0} {:>14.0}   (1 thread)",
            name,
            mb,
            mb / v1,
            mb / c1
        );
        if files.len() > 1 {
            let vp = best_of(3, || {
                files.par_iter().for_each(|(p, b)| {
                    validate(p, b);
                });
            });
            let cp = best_of(3, || {
                files.par_iter().for_each(|(p, b)| {
                    canon(p, b);
                });
            });
            println!(
                "{:<32} {:>10.1} {:>14.0} {:>14.0}   ({} threads)",
                name,
                mb,
                mb / vp,
                mb / cp,
                rayon::current_num_threads()
            );
        }
    }
}
