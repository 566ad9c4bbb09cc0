//! The results table on a paper-size run (issue 45), beside Karenina's own
//! `load_result_set_from_json` + `get_summary()` on the same export. Run with
//! `cargo bench -p karenina-ld-cli --bench table` (builds kld too; needs Karenina's
//! venv: `$KLD_KARENINA_VENV`; the run from `$KLD_PAPER_DIR`, holding
//! `ck-paper.jsonld` and `res-paper.json` as
//! `../shared/tools/karenina_paper_run.py` writes them; `$KLD_BIN` names
//! another release `kld`).
//!
//! Same run, each figure the best of a few:
//! - the table: built from the export (cold), its heap bytes per result,
//!   beside the quad store's quads per result;
//! - the views: the store's table and board (cold: the sources read;
//!   warm: the previous generation's runs reused), the leaderboard, the
//!   catalogue's pass rates from the table;
//! - Parquet: written, read back, and `pass-rate-by-benchmark` from it;
//! - `kld query --store DIR --named pass-rate-by-benchmark` (from the
//!   table) against the same query as SPARQL over the store's quads (`-e`)
//!   and against re-reading the export (`kld query CK RES --named …`);
//! - `kld serve`: start to the first full `/leaderboard` (every view
//!   built), its RSS then, warm `/leaderboard` requests, and `/matrix`
//!   and `/leaderboard` first and again.

use karenina_ld::board::{self, Filter};
use karenina_ld::table;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

mod paper;
mod timing;
use paper::repo;
use timing::measure;

const KARENINA: &str = r#"
import json, sys
from pathlib import Path
from karenina.benchmark.core.results_io import ResultsIOManager
rs = ResultsIOManager.load_result_set_from_json(Path(sys.argv[1]))
print(json.dumps(rs.get_summary()["template_pass_by_combo"], default=str))
"#;

fn best<T>(n: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut out = None;
    let mut secs = f64::INFINITY;
    for _ in 0..n {
        let t = Instant::now();
        let v = f();
        let s = t.elapsed().as_secs_f64();
        if s < secs {
            secs = s;
        }
        out = Some(v);
    }
    (secs, out.unwrap())
}

fn ms(s: f64) -> String {
    format!("{:.1} ms", s * 1e3)
}

fn main() {
    let kld = paper::kld();
    let dir = PathBuf::from(std::env::var_os("KLD_PAPER_DIR").expect("$KLD_PAPER_DIR"));
    let (ck, res) = (dir.join("ck-paper.jsonld"), dir.join("res-paper.json"));
    let venv = PathBuf::from(std::env::var_os("KLD_KARENINA_VENV").expect("$KLD_KARENINA_VENV"));

    // Karenina's own load + summary.
    let (k_secs, k_rss, k_out) = (0..2)
        .map(|_| {
            measure(
                Command::new(venv.join("bin/python"))
                    .args(["-c", KARENINA])
                    .arg(&res),
            )
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap();
    let theirs: serde_json::Value = serde_json::from_str(&k_out).unwrap();

    // kld's commands first, while this process is small: a child's peak
    // RSS (wait4's ru_maxrss) starts at its parent's RSS when forked and
    // keeps it across exec, so measured after the store below is loaded
    // here every command would "peak" at this process's size.
    let tmp = tempfile::tempdir().unwrap();
    let sdir = tmp.path().join("store");
    let st_load = Command::new(&kld)
        .args(["load", "--store"])
        .arg(&sdir)
        .arg(&ck)
        .arg(&res)
        .output()
        .unwrap();
    assert!(
        st_load.status.success(),
        "{}",
        String::from_utf8_lossy(&st_load.stderr)
    );
    assert!(sdir.join("results.parquet").is_file());
    // `kld query --store --named`: from the store's table (Parquet).
    let (q_secs, q_rss, q_out) = (0..3)
        .map(|_| measure(&mut paper::store_query(&kld, &sdir)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap();
    // The same query as text: SPARQL over the store's quads (parsed again).
    let text = std::fs::read_to_string(repo().join("queries/pass-rate-by-benchmark.rq")).unwrap();
    let (qq_secs, qq_rss, qq_out) = measure(
        Command::new(&kld)
            .args(["query", "--format", "csv", "-e", &text, "--store"])
            .arg(&sdir),
    );
    assert_eq!(q_out, qq_out, "the table's answer differs from the quads'");
    // Re-reading the export: the checkpoint and run loaded again.
    let (qe_secs, qe_rss, qe_out) = measure(
        Command::new(&kld)
            .args([
                "query",
                "--format",
                "csv",
                "--named",
                "pass-rate-by-benchmark",
            ])
            .arg(&ck)
            .arg(&res),
    );
    assert_eq!(
        q_out.lines().count(),
        qe_out.lines().count(),
        "the export's answer has other rows"
    );

    // The table from the export (kld info's reader).
    let (t_secs, t) = best(3, || table::from_path(&res).unwrap());
    let rows = t.len();
    let heap = t.heap_bytes();
    let ours = t.numbers(0..rows);
    for (combo, tally) in ours.template_pass_by_combo() {
        assert_eq!(theirs[&combo]["passed"], tally.passed, "{combo}");
        assert_eq!(theirs[&combo]["total"], tally.total, "{combo}");
    }

    // The store: quads per result.
    let (s_secs, local) = best(1, || {
        karenina_ld::store::read_inputs(&[ck.clone(), res.clone()], Default::default(), &|_, _| {})
            .unwrap()
    });
    let store = local.store;
    let quads: usize = store
        .graphs()
        .filter(|g| g.kind == karenina_ld::store::GraphKind::Results)
        .map(|g| g.quads)
        .sum();

    // Views: cold (sources read) and warm (runs reused).
    let (cold, (st, _)) = best(3, || table::stored::of_store(&store, None));
    let (warm, _) = best(5, || table::stored::of_store(&store, Some(&st)));
    let (b_secs, data) = best(5, || table::views::board_data(&st));
    let (lb, l) = best(20, || board::leaderboard(&data, &Filter::default()));
    let (mx, _) = best(20, || {
        board::matrix(&data, &Filter::default(), &Default::default())
    });
    let (pr, rates) = best(20, || table::catalogue_views::pass_rate_by_benchmark(&st));
    let (quad_board, _) = best(1, || {
        board::read(store.store(), &Default::default()).unwrap()
    });

    // Parquet, and the query from it against re-reading the store.
    let pq = tmp.path().join("t.parquet");
    let (w_secs, _) = best(3, || table::parquet::write(&st, &pq).unwrap());
    let size = std::fs::metadata(&pq).unwrap().len();
    let (r_secs, _) = best(3, || {
        let t = table::parquet::read(&pq).unwrap();
        table::catalogue_views::pass_rate_by_benchmark(&t)
    });
    // kld serve: ready (first full board), then warm /leaderboard.
    let mut served = paper::serve_ready(&kld, &[ck.clone(), res.clone()], &[]);
    let (ready, serve_rss, serve_hwm) = (served.ready, served.rss, served.hwm);
    let base = served.base.clone();
    let c = reqwest::blocking::Client::new();
    // Every other number view, cold (first request) then warm.
    let mut views = Vec::new();
    for path in ["matrix", "leaderboard"] {
        let u = format!("{base}/{path}");
        let t = Instant::now();
        let r = c.get(&u).send().unwrap();
        assert_eq!(r.status(), 200, "/{path}");
        let _ = r.bytes().unwrap();
        let first = t.elapsed().as_secs_f64();
        let (again, _) = best(20, || c.get(&u).send().unwrap().bytes().unwrap());
        views.push((path, first, again));
    }
    let lat = served.leaderboard_latencies(50);
    served.stop();

    println!(
        "paper-size run: {rows} results, {} MB export, {quads} quads ({:.1} per result)",
        std::fs::metadata(&res).unwrap().len() / 1_000_000,
        quads as f64 / rows as f64
    );
    println!(
        "Karenina load_result_set_from_json + get_summary(): {:.2} s, peak RSS {k_rss:.0} MB",
        k_secs
    );
    println!(
        "table from the export (cold):   {:.3} s  ({:.1}x Karenina)",
        t_secs,
        k_secs / t_secs
    );
    println!(
        "table heap: {:.2} MB, {:.0} B per result (quads: ~345 B x {:.1} = {:.0} B per result)",
        heap as f64 / 1e6,
        heap as f64 / rows as f64,
        quads as f64 / rows as f64,
        345.0 * quads as f64 / rows as f64
    );
    println!("store load (checkpoint + run, in memory): {:.2} s", s_secs);
    println!(
        "store's table + views, cold (sources read): {}; warm (runs reused): {}",
        ms(cold),
        ms(warm)
    );
    println!(
        "board rows from the table: {}; from the quads (board::read): {}",
        ms(b_secs),
        ms(quad_board)
    );
    println!(
        "leaderboard: {} ({} cells); matrix: {}; pass-rate-by-benchmark view: {} ({} rows)",
        ms(lb),
        l.cells.len(),
        ms(mx),
        ms(pr),
        rates.len()
    );
    println!(
        "Parquet: written {} ({:.2} MB); read + pass-rate-by-benchmark {}",
        ms(w_secs),
        size as f64 / 1e6,
        ms(r_secs)
    );
    println!(
        "kld query --store DIR --named pass-rate-by-benchmark (from the table): {:.3} s, peak RSS {q_rss:.0} MB",
        q_secs
    );
    println!(
        "  the same query as SPARQL over the store's quads (-e TEXT): {:.2} s, peak RSS {qq_rss:.0} MB ({:.0}x the table's)",
        qq_secs,
        qq_secs / q_secs
    );
    println!(
        "  re-reading the export (kld query CK RES --named ...): {:.2} s, peak RSS {qe_rss:.0} MB ({:.0}x the table's)",
        qe_secs,
        qe_secs / q_secs
    );
    println!(
        "  Karenina load + summary / kld query --store: {:.1}x",
        k_secs / q_secs
    );
    println!("kld serve ready (first full /leaderboard): {:.2} s ({:.1}x Karenina's load + summary); /leaderboard warm p50 {} p95 {} max {}",
        ready, k_secs / ready, ms(lat[25]), ms(lat[47]), ms(lat[49]));
    for (path, first, again) in &views {
        println!(
            "  /{path} after ready: first {}, warm best {}",
            ms(*first),
            ms(*again)
        );
    }
    println!(
        "kld serve memory once ready: RSS {serve_rss:.0} MB (peak {serve_hwm:.0} MB), {:.0} B per result; the query over the quads: peak {qq_rss:.0} MB, {:.0} B per result",
        serve_rss * 1048576.0 / rows as f64,
        qq_rss * 1048576.0 / rows as f64
    );
}
