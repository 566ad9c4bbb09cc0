//! 100,000 verification results loaded and `results-by-model` answered
//! (issue 12): throughput and peak RSS against the store's own size. Run with
//! `cargo build --release && cargo bench --bench results`.
//!
//! The results are Karenina's own exports in `tests/data/corpus/results/`
//! scaled up: each of the three full runs (with their MCP traces, deep
//! judgment and every trait kind) is repeated to a third of 100,000 rows,
//! each copy with a fresh `result_id` and replicate, in the v2.2 stream
//! layout Karenina writes (the row text otherwise byte for byte); the CSV
//! exports are scaled the same way. Each run is measured as its own process
//! (`wait4` gives that child's peak RSS):
//! - `kld load --store` of the three exports with their checkpoints: wall
//!   time, MB/s of results bytes, peak RSS; the store's own size is the size
//!   of the N-Quads the store directory holds for the same graphs;
//! - `kld query --store DIR --named results-by-model` (reopen + answer);
//! - `kld query FILES --named results-by-model` (in memory: load + answer);
//! - the same with the CSV exports;
//! - in a child process, an in-memory store loaded through the library: its
//!   resident size (RSS after loading, minus before) and the peak over the
//!   same baseline, so peak/store is the load's overhead over the store;
//! - `kld info` of each export (reading alone, no store).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

mod timing;
use timing::{measure, scale_json};

const TOTAL: usize = 100_000;
const RUNS: [(&str, &str); 3] = [
    (
        "res-docs__notebooks__test_checkpoint.full",
        "docs__notebooks__test_checkpoint.jsonld",
    ),
    (
        "res-karenina-output__probe_dj.full",
        "karenina-output__probe_dj.jsonld",
    ),
    (
        "res-tests__fixtures__checkpoints__with_rubrics.full",
        "tests__fixtures__checkpoints__with_rubrics.jsonld",
    ),
];

fn corpus() -> PathBuf {
    Path::new(env!("KLD_SOURCE_ROOT")).join("tests/data/corpus")
}

/// Scales a CSV export to `n` records (the csv crate writes Karenina's
/// `\r\n` terminators and minimal quoting).
fn scale_csv(src: &Path, dst: &Path, n: usize) -> u64 {
    let mut rdr = csv::Reader::from_path(src).unwrap();
    let header = rdr.headers().unwrap().clone();
    let records: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_path(dst)
        .unwrap();
    w.write_record(&header).unwrap();
    let replicate = header.iter().position(|h| h == "replicate").unwrap();
    for i in 0..n {
        let mut rec: Vec<String> = records[i % records.len()]
            .iter()
            .map(str::to_string)
            .collect();
        rec[replicate] = (i / records.len() + 1).to_string();
        w.write_record(&rec).unwrap();
    }
    w.flush().unwrap();
    std::fs::metadata(dst).unwrap().len()
}

fn dir_bytes(d: &Path) -> u64 {
    let mut total = 0;
    for e in std::fs::read_dir(d).unwrap().flatten() {
        let m = e.metadata().unwrap();
        total += if m.is_dir() {
            dir_bytes(&e.path())
        } else {
            m.len()
        };
    }
    total
}

/// `VmRSS` / `VmHWM` of this process, in MB.
fn vm(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with(field)).unwrap();
    let kb: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb / 1024.0
}

/// In a child process of this bench: loads the files into an in-memory
/// store and prints the store's resident size (RSS after loading, freed
/// memory returned to the system, minus RSS before) and the peak RSS above
/// that same baseline.
fn child(files: &[PathBuf]) {
    let base = vm("VmRSS");
    let mut store = karenina_ld::store::CheckpointStore::in_memory().unwrap();
    let loaded = store.load_files(files, karenina_ld::rdf::Processor::Direct, &|_, _| {});
    assert!(loaded.iter().all(|(_, r)| r.is_ok()));
    unsafe { libc::malloc_trim(0) };
    let resident = vm("VmRSS") - base;
    let peak = vm("VmHWM") - base;
    println!("{resident:.0} {peak:.0}");
}

fn main() {
    if let Ok(list) = std::env::var("KLD_RESULTS_BENCH_CHILD") {
        let files: Vec<PathBuf> = list.split('\n').map(PathBuf::from).collect();
        return child(&files);
    }
    let kld = Path::new(env!("KLD_SOURCE_ROOT")).join("target/release/kld");
    assert!(kld.exists(), "build it first: cargo build --release");
    let work = tempfile::tempdir().unwrap();
    let per_run = TOTAL.div_ceil(RUNS.len());
    let (mut json_files, mut csv_files, mut cps) = (Vec::new(), Vec::new(), Vec::new());
    let (mut json_bytes, mut csv_bytes) = (0u64, 0u64);
    for (i, (run, cp)) in RUNS.iter().enumerate() {
        let n = per_run.min(TOTAL - i * per_run);
        let j = work.path().join(format!("{run}.json"));
        json_bytes += scale_json(&corpus().join(format!("results/{run}.json")), &j, n, i);
        json_files.push(j);
        let c = work.path().join(format!("{run}.csv"));
        csv_bytes += scale_csv(&corpus().join(format!("results/{run}.csv")), &c, n);
        csv_files.push(c);
        cps.push(corpus().join("loads").join(cp));
    }
    let mb = |b: u64| b as f64 / 1e6;
    println!(
        "{TOTAL} results: JSON exports {:.0} MB, CSV exports {:.0} MB (3 runs, scaled from the corpus)",
        mb(json_bytes),
        mb(csv_bytes)
    );
    for (label, files, bytes) in [
        ("JSON", &json_files, json_bytes),
        ("CSV", &csv_files, csv_bytes),
    ] {
        let store = work.path().join(format!("store-{label}"));
        let (secs, rss, _) = measure(
            Command::new(&kld)
                .args(["load", "--store"])
                .arg(&store)
                .args(&cps)
                .args(files.iter()),
        );
        let store_mb = mb(dir_bytes(&store.join("graphs")));
        println!(
            "{label:<4} kld load --store: {secs:>6.2} s  {:>6.1} MB/s  peak RSS {rss:>6.0} MB  store (N-Quads) {store_mb:>5.0} MB  RSS/store {:.2}",
            mb(bytes) / secs,
            rss / store_mb
        );
        let (secs, rss, out) = measure(
            Command::new(&kld)
                .args([
                    "query",
                    "--format",
                    "tsv",
                    "--named",
                    "results-by-model",
                    "--store",
                ])
                .arg(&store),
        );
        let rows = out.lines().count() - 1;
        let results: u64 = out
            .lines()
            .skip(1)
            .map(|l| l.split('\t').nth(3).unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(
            results as usize, TOTAL,
            "results-by-model counts every result"
        );
        println!(
            "{label:<4} kld query --store results-by-model: {secs:>6.2} s  peak RSS {rss:>6.0} MB  ({rows} rows, {results} results)"
        );
        let (secs, rss, _) = measure(
            Command::new(&kld)
                .args(["query", "--format", "tsv", "--named", "results-by-model"])
                .args(&cps)
                .args(files.iter()),
        );
        println!(
            "{label:<4} kld query FILES results-by-model (load + answer in memory): {secs:>6.2} s  {:>6.1} MB/s  peak RSS {rss:>6.0} MB  RSS/store {:.2}",
            mb(bytes) / secs,
            rss / store_mb
        );
    }
    // The store's own size in memory, against the peak while loading it.
    for (label, files) in [("JSON", &json_files), ("CSV", &csv_files)] {
        let list: Vec<String> = cps
            .iter()
            .chain(files.iter())
            .map(|p| p.display().to_string())
            .collect();
        let (_, _, out) = measure(
            Command::new(std::env::current_exe().unwrap())
                .env("KLD_RESULTS_BENCH_CHILD", list.join("\n")),
        );
        let v: Vec<f64> = out.split_whitespace().map(|x| x.parse().unwrap()).collect();
        println!(
            "{label:<4} in-memory store of {TOTAL} results: resident {:.0} MB, peak while loading {:.0} MB: peak/store {:.2}",
            v[0],
            v[1],
            v[1] / v[0]
        );
    }
    // Reading alone (no store): `kld info` streams the exports.
    for (label, files) in [("JSON", &json_files), ("CSV", &csv_files)] {
        let t = Instant::now();
        let mut peak: f64 = 0.0;
        for f in files.iter() {
            let (_, rss, _) = measure(Command::new(&kld).args(["info"]).arg(f));
            peak = peak.max(rss);
        }
        let bytes: u64 = files
            .iter()
            .map(|f| std::fs::metadata(f).unwrap().len())
            .sum();
        println!(
            "{label:<4} kld info (read only): {:>6.2} s  {:>6.1} MB/s  peak RSS {peak:>5.0} MB",
            t.elapsed().as_secs_f64(),
            mb(bytes) / t.elapsed().as_secs_f64()
        );
    }
}
