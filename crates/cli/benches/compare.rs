//! `kld compare` on a paper-size run (issue 46): every statistic (rates
//! with intervals, 21 pairs × 8 views, agreement, bias bootstrap, questions,
//! replicates) in under 2 s on a 2-core machine. Run with
//! `cargo build --release && cargo bench --bench compare`.
//!
//! The export is the paper-size run (`paper/mod.rs`: `$KLD_PAPER_RUN`, else
//! made once into `target/bench-paper/` with Karenina's venv). Each
//! format is run three times; the best wall time and its peak RSS are
//! printed, beside `kld info --format json` of the same file (the reading
//! both share).

use std::process::Command;

mod paper;
mod timing;
use paper::{best, kld, paper_run};

fn main() {
    let kld = kld();
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
