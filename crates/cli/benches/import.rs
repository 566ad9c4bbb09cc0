//! `kld import` of a 100,000-row Karenina-style sheet (issue 37) against
//! Karenina's own path on the same sheet. Run with
//! `cargo build --release && cargo bench --bench import` (needs Karenina's
//! venv: `$KLD_KARENINA_VENV`, else target/karenina-venv; `$KLD_BIN` names
//! another release `kld`).
//!
//! The sheet is `tests/scripts/karenina_import.py sheet 100000` (every column
//! option: question, answer, author name / email / affiliation, URL, two
//! keyword columns with their own separators, answer notes, two custom
//! metadata columns; Unicode, empty cells), made once into
//! `target/bench-import/`. Each side is its own process, reaped by `wait4`
//! for its peak RSS:
//! - kld: `kld import sheet.csv … -o out.jsonld`, best of 3;
//! - Karenina's extractor alone (`extract_questions_from_file`) on the
//!   100,000 rows, once;
//! - Karenina's whole path (extractor + `Benchmark.create` + `add_question`
//!   per question + `save`) on the sheet's first `$KLD_IMPORT_BENCH_ROWS`
//!   rows (default 2,000; the same rows as the big sheet's first ones), and
//!   kld on those rows too, whose outputs are compared (same bytes but the
//!   clock's). Karenina's `add_question` rebuilds its question cache and ID
//!   set on every call, so its whole path grows with the square of the rows
//!   (25.8 s for 1,000, 96.7 s for 2,000 on the dev machine): at 100,000
//!   rows it would take days, and the bench prints that square-law estimate
//!   beside the measured numbers. `KLD_IMPORT_BENCH_ROWS=100000` runs it for
//!   real.

use regex::Regex;
use std::path::{Path, PathBuf};
use std::process::Command;

mod timing;
use timing::measure;

const ROWS: usize = 100_000;

fn repo() -> &'static Path {
    Path::new(env!("KLD_SOURCE_ROOT"))
}

fn karenina_python() -> PathBuf {
    std::env::var_os("KLD_KARENINA_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/karenina-venv"))
        .join("bin/python")
}

fn script() -> PathBuf {
    repo().join("tests/scripts/karenina_import.py")
}

/// The N-row sheet and its `kld import` column options, made once.
fn sheet(dir: &Path, n: usize) -> (PathBuf, Vec<String>) {
    let file = dir.join(format!("sheet-{n}.csv"));
    let args = dir.join(format!("sheet-{n}.args.json"));
    if !file.is_file() || !args.is_file() {
        let out = Command::new(karenina_python())
            .arg(script())
            .args(["sheet", &n.to_string()])
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "karenina_import.py sheet {n}");
        std::fs::write(&args, &out.stdout).unwrap();
    }
    let a: Vec<String> = serde_json::from_slice(&std::fs::read(&args).unwrap()).unwrap();
    (file, a)
}

/// Karenina's output with the clock's values blanked, to compare with kld's.
fn unclocked(path: &Path) -> String {
    let re = Regex::new(concat!(
        r#"(?m)^(\s*"(?:dateCreated|dateModified)": )"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{6})?"|"#,
        r#"^(\s*"@id": )"urn:uuid:karenina-checkpoint-\d+(?:\.\d+)?""#
    ))
    .unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    re.replace_all(&text, "${1}${2}\"<clock>\"").into_owned()
}

fn kld_import(kld: &Path, dir: &Path, file: &Path, args: &[String], out: &str) -> Command {
    let mut c = Command::new(kld);
    c.current_dir(dir)
        .arg("import")
        .arg(file)
        .args(args)
        .args(["-o", out]);
    c
}

fn karenina(mode: &str, dir: &Path, file: &Path, args: &[String], out: &str) -> Command {
    let mut c = Command::new(karenina_python());
    c.current_dir(dir)
        .arg(script())
        .arg(mode)
        .arg(file)
        .args(args)
        .args(["-o", out]);
    c
}

fn seconds(outcome: &str, step: &str) -> f64 {
    let v: serde_json::Value = serde_json::from_str(outcome).unwrap();
    assert_eq!(v["ok"], true, "{outcome}");
    v["seconds"][step].as_f64().unwrap_or(0.0)
}

fn main() {
    let kld = std::env::var_os("KLD_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/release/kld"));
    assert!(kld.exists(), "build it first: cargo build --release");
    let dir = repo().join("target/bench-import");
    std::fs::create_dir_all(&dir).unwrap();
    let (big, args) = sheet(&dir, ROWS);
    let mb = std::fs::metadata(&big).unwrap().len() as f64 / 1e6;

    let (k_secs, k_rss, _) = (0..3)
        .map(|_| {
            measure(&mut kld_import(
                &kld,
                &dir,
                &big,
                &args,
                "kld-100000.jsonld",
            ))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap();
    let items = std::fs::read_to_string(dir.join("kld-100000.jsonld"))
        .unwrap()
        .matches("\"@type\": \"DataFeedItem\"")
        .count();
    assert_eq!(items, ROWS, "kld imports every row");
    let (e_secs, e_rss, e_out) = measure(&mut karenina("extract", &dir, &big, &args, "-"));

    let n: usize = std::env::var("KLD_IMPORT_BENCH_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    let (small, _) = sheet(&dir, n);
    let (ks_secs, _, _) = measure(&mut kld_import(
        &kld,
        &dir,
        &small,
        &args,
        "kld-small.jsonld",
    ));
    let (p_secs, p_rss, p_out) = measure(&mut karenina(
        "karenina",
        &dir,
        &small,
        &args,
        "karenina-small.jsonld",
    ));
    assert_eq!(
        unclocked(&dir.join("karenina-small.jsonld")),
        unclocked(&dir.join("kld-small.jsonld")),
        "kld and Karenina wrote different checkpoints for the {n}-row sheet"
    );
    let (extract, add, save) = (
        seconds(&p_out, "extract"),
        seconds(&p_out, "add"),
        seconds(&p_out, "save"),
    );
    let scale = ROWS as f64 / n as f64;
    let estimate = seconds(&e_out, "extract") + add * scale * scale + save * scale;
    println!("sheet: {ROWS} rows, {mb:.1} MB ({})", big.display());
    println!("kld import (release), {ROWS} rows:               {k_secs:>9.2} s  peak RSS {k_rss:>7.1} MB");
    println!("Karenina extract_questions_from_file, {ROWS} rows: {e_secs:>9.2} s  peak RSS {e_rss:>7.1} MB (in-process {:.2} s)", seconds(&e_out, "extract"));
    println!("kld import (release), first {n} rows:            {ks_secs:>9.2} s");
    println!("Karenina extractor + add_question + save, {n} rows: {p_secs:>9.2} s  peak RSS {p_rss:>7.1} MB (extract {extract:.2} s, add {add:.2} s, save {save:.2} s); same bytes as kld but the clock's");
    println!(
        "Karenina's whole path at {ROWS} rows, estimated (add_question grows with the square): {:.0} s = {:.1} h",
        estimate,
        estimate / 3600.0
    );
    println!(
        "kld is {:.0}x faster than Karenina's extractor alone at {ROWS} rows, {:.0}x faster than its whole path at {n} rows",
        e_secs / k_secs,
        p_secs / ks_secs
    );
}
