//! `kld hash --plain` against jsonld.js, same run, same files (run with
//! `cargo bench --bench hash`).
//!
//! 200 checkpoints x 50 questions from the shared generator. The peer reads,
//! converts and canonicalizes each file with jsonld.js (`jsonld.toRDF`) and
//! `rdf-canonize` (RDFC-1.0, SHA-256) in one node process
//! (`tests/scripts/canonize.js --hash`); kld does the same with Oxigraph's
//! JSON-LD parser and sophia_c14n, in parallel over files. Both print one
//! `HASH  PATH` line per file; the bench checks the hashes are equal. Target:
//! at least 3x faster. Also times the lossless `kld hash` for reference.

use std::process::Command;
use std::time::Instant;

#[path = "../../../tests/common/mod.rs"]
mod common;

fn hashes(out: &[u8]) -> Vec<String> {
    let mut v: Vec<String> = String::from_utf8_lossy(out)
        .lines()
        .map(|l| {
            let (h, p) = l.split_once("  ").unwrap();
            format!(
                "{h} {}",
                std::path::Path::new(p)
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
            )
        })
        .collect();
    v.sort();
    v
}

fn main() {
    let kld = env!("CARGO_BIN_EXE_kld");
    let dir = common::generate(&["-n", "200", "-q", "50", "-s", "1"]);
    let files = common::jsonld_in(dir.path());
    let mb = common::total_mb(&files);
    let script = std::path::Path::new(env!("KLD_SOURCE_ROOT")).join("tests/scripts/canonize.js");
    let base = "https://karenina-ld.invalid/";
    let runs = 3;
    let best = |label: &str, mk: &dyn Fn() -> Command| -> (f64, Vec<String>) {
        let mut times = Vec::new();
        let mut out = Vec::new();
        for _ in 0..runs {
            let t = Instant::now();
            let o = mk().output().unwrap();
            times.push(t.elapsed().as_secs_f64());
            assert!(
                o.status.success(),
                "{label}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            out = o.stdout;
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{label:<44} best {:.2} s, median {:.2} s ({:.1} MB/s)",
            times[0],
            times[times.len() / 2],
            mb / times[0]
        );
        (times[0], hashes(&out))
    };
    println!("200 x 50 checkpoints, {mb:.1} MB, best of {runs} runs");
    let (k, kh) = best("kld hash --plain (Oxigraph + sophia_c14n)", &|| {
        let mut c = Command::new(kld);
        c.args(["hash", "--plain"]).arg(dir.path());
        c
    });
    let (j, jh) = best("jsonld.js toRDF + rdf-canonize (node)", &|| {
        let mut c = Command::new("node");
        c.arg(&script).args(["--hash", base]).args(&files);
        c
    });
    assert_eq!(kh, jh, "kld and jsonld.js disagree on some hash");
    println!(
        "same hashes for all {} files; kld is {:.1}x faster",
        kh.len(),
        j / k
    );
    best("kld hash (lossless reading)", &|| {
        let mut c = Command::new(kld);
        c.arg("hash").arg(dir.path());
        c
    });
}
