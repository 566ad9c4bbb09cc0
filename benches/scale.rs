//! A 1,000,000-question checkpoint through `kld validate`, `kld canon --check`
//! and `kld query`: wall time and peak RSS of each run (issue #5). Run with
//! `cargo bench --bench scale` (needs ~1 GB of temp space).

use karenina_ld::json::Json;
use karenina_ld::model::*;
use karenina_ld::save::{write_checkpoint, WriteOptions};
use std::path::Path;
use std::time::Instant;

fn make(path: &Path, n: usize) {
    let items = (0..n)
        .map(|i| {
            let text = format!("What is the value of item {i} in series {}?", i % 97);
            Item {
                id: Some(qid::question_id(&text)),
                date_created: "2026-01-01T00:00:00".into(),
                date_modified: "2026-01-01T00:00:00".into(),
                keywords: None,
                question: Question {
                    id: None,
                    text,
                    accepted_answer: Answer {
                        id: None,
                        text: format!("{}", i * 7),
                        extra: Vec::new(),
                    },
                    template: SourceCode {
                        id: None,
                        name: "What is the value of item... Answer Template".into(),
                        text: "class Answer(BaseAnswer):\n    value: int\n".into(),
                        code_repository: None,
                        extra: Vec::new(),
                    },
                    rating: None,
                    additional_property: Some(vec![Property {
                        name: "finished".into(),
                        value: Some(Json::Bool(i % 3 != 0)),
                        extra: Vec::new(),
                    }]),
                    keywords: Some(vec![format!("series-{}", i % 97)]),
                    extra: Vec::new(),
                },
                extra: Vec::new(),
            }
        })
        .collect();
    let cp = Checkpoint {
        context: karenina_ld::context::canonical().clone(),
        id: Some("urn:uuid:karenina-checkpoint-1".into()),
        name: "A million questions".into(),
        description: None,
        version: Some("0.1.0".into()),
        creator: None,
        date_created: "2026-01-01T00:00:00".into(),
        date_modified: "2026-01-01T00:00:00".into(),
        rating: None,
        items,
        scenarios: None,
        additional_property: None,
        extra: Vec::new(),
    };
    std::fs::write(path, write_checkpoint(&cp, &WriteOptions::default())).unwrap();
}

fn peak_children_kb() -> i64 {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    ru.ru_maxrss
}

fn main() {
    let kld = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/kld");
    assert!(kld.exists(), "build it first: cargo build --release");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("million.jsonld");
    let t = Instant::now();
    make(&f, 1_000_000);
    let mb = std::fs::metadata(&f).unwrap().len() as f64 / 1e6;
    println!(
        "generated 1,000,000 questions, {mb:.0} MB, in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let runs: [&[&str]; 3] = [
        &["validate"],
        &["canon", "--check", "-q"],
        &["query", "--format", "tsv", "-n", "benchmark-stats"],
    ];
    for args in runs {
        // ru_maxrss of children is the maximum over all waited-for children;
        // each run is larger than the last or reported as "<=".
        let before = peak_children_kb();
        let t = Instant::now();
        let st = std::process::Command::new(&kld)
            .args(args)
            .arg(&f)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        let secs = t.elapsed().as_secs_f64();
        let peak = peak_children_kb();
        let shown = if peak > before {
            format!("{} MB", peak / 1024)
        } else {
            format!("<= {} MB", peak / 1024)
        };
        println!(
            "kld {:<40} exit {:?}  {secs:>6.1} s  {:>6.1} MB/s  peak RSS {shown}",
            args.join(" "),
            st.code(),
            mb / secs
        );
    }
}
