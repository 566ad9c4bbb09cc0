//! `kld git-merge` on two 5,000-question branches (issue 29; run with
//! `cargo bench --bench merge`). Target: under a second. Then the curve of
//! issue 38: `kld git-merge` on 1,000 to 20,000 questions reordered on both
//! sides (one order conflict; target: 20,000 in under 10 s), and on 20,000
//! answers changed differently on both sides (20,000 conflicts), with the
//! driver's peak memory.
//!
//! The base is the shared generator's 5,000-question checkpoint (every trait
//! kind, metadata, question traits: 14.8 MB). Ours edits the answer of every
//! tenth question, appends 50 questions and bumps `dateModified`; theirs
//! edits the answer of every tenth question (others), removes 50 and bumps
//! `dateModified`: a clean merge of about 1,100 changes. Timed: the
//! library's three-way merge in this process, and `kld git-merge %O %A %B %P`
//! as git runs it (a process, reading and writing the files). For scale,
//! git's own text merge (`git merge-file`) of the same three files, same run;
//! it answers a different question (it conflicts on `dateModified` and knows
//! nothing of questions), so the ratio is context, not a race.

use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

#[path = "../../../tests/common/mod.rs"]
mod common;

fn save(p: &Path, v: &Value) {
    std::fs::write(p, serde_json::to_string_pretty(v).unwrap()).unwrap();
}

/// CPU seconds (user + system) used so far by this process's finished children.
fn children_cpu() -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage fills the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    s(u.ru_utime) + s(u.ru_stime)
}

fn best_of(runs: usize, mut f: impl FnMut()) -> (f64, f64) {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    (t[0], t[runs / 2])
}

/// A checkpoint of `n` small questions `urn:q:0`… (the fixtures' context).
fn questions(n: usize) -> Value {
    let fixture = Path::new(env!("KLD_SOURCE_ROOT")).join("tests/data/merge/base.jsonld");
    let ctx: Value = serde_json::from_slice(&std::fs::read(fixture).unwrap()).unwrap();
    let items: Vec<Value> = (0..n)
        .map(|i| {
            serde_json::json!({
                "@type": "DataFeedItem",
                "@id": format!("urn:q:{i}"),
                "dateCreated": "2026-01-01T00:00:00",
                "dateModified": "2026-01-01T00:00:00",
                "item": {
                    "@type": "Question",
                    "@id": format!("urn:q:{i}-question"),
                    "text": format!("Question {i}?"),
                    "acceptedAnswer": {"@type": "Answer", "@id": format!("urn:q:{i}-answer"), "text": format!("{i}")},
                    "hasPart": {
                        "@type": "SoftwareSourceCode",
                        "@id": format!("urn:q:{i}-template"),
                        "name": "Answer Template",
                        "text": "class Answer(BaseAnswer):\n    value: str\n",
                        "programmingLanguage": "Python"
                    },
                    "additionalProperty": [{"@type": "PropertyValue", "name": "finished", "value": true}]
                }
            })
        })
        .collect();
    serde_json::json!({
        "@context": ctx["@context"],
        "@type": "DataFeed",
        "@id": "urn:bench",
        "name": "curve",
        "description": "d",
        "version": "1.0.0",
        "dateCreated": "2026-01-01T00:00:00",
        "dateModified": "2026-01-01T00:00:00",
        "dataFeedElement": items
    })
}

/// `kld git-merge` on `b`, `o`, `t` as git runs it: (seconds, exit code,
/// the process's peak resident memory in MB).
fn driver(kld: &str, dir: &Path, b: &Value, o: &Value, t: &Value) -> (f64, Option<i32>, f64) {
    let (bp, op, tp) = (
        dir.join("b.jsonld"),
        dir.join("o.jsonld"),
        dir.join("t.jsonld"),
    );
    save(&bp, b);
    save(&op, o);
    save(&tp, t);
    let s = Instant::now();
    // Reaped by wait4 below, which also gives the child's peak memory.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(kld)
        .arg("git-merge")
        .args([&bp, &op, &tp])
        .arg("bench.jsonld")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child and fills the structs it is given.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut u) };
    assert_eq!(pid, child.id() as libc::pid_t);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (s.elapsed().as_secs_f64(), code, u.ru_maxrss as f64 / 1024.0)
}

/// Issue 38's curve: both sides reorder every question (ours reverses,
/// theirs rotates by a third), then 20,000 answer conflicts.
fn curve(kld: &str) {
    let dir = tempfile::tempdir().unwrap();
    println!("\nkld git-merge, questions reordered on both sides (one order conflict):");
    println!(
        "{:>8} {:>9} {:>12} {:>10}",
        "questions", "seconds", "µs/question", "peak MB"
    );
    for n in [1_000, 2_000, 4_000, 8_000, 12_000, 16_000, 20_000] {
        let b = questions(n);
        let (mut o, mut t) = (b.clone(), b.clone());
        o["dataFeedElement"].as_array_mut().unwrap().reverse();
        t["dataFeedElement"]
            .as_array_mut()
            .unwrap()
            .rotate_left(n / 3);
        let (secs, code, mb) = driver(kld, dir.path(), &b, &o, &t);
        assert_eq!(code, Some(1), "one order conflict");
        println!(
            "{n:>8} {secs:>9.3} {:>12.1} {mb:>10.0}",
            secs * 1e6 / n as f64
        );
    }
    let n = 20_000;
    let b = questions(n);
    let (mut o, mut t) = (b.clone(), b.clone());
    for i in 0..n {
        o["dataFeedElement"][i]["item"]["acceptedAnswer"]["text"] = format!("ours {i}").into();
        t["dataFeedElement"][i]["item"]["acceptedAnswer"]["text"] = format!("theirs {i}").into();
    }
    let (secs, code, mb) = driver(kld, dir.path(), &b, &o, &t);
    assert_eq!(code, Some(1));
    println!(
        "{n} answers changed differently on both sides ({n} conflicts): {secs:.3} s, peak {mb:.0} MB"
    );
}

fn main() {
    let kld = env!("CARGO_BIN_EXE_kld");
    if std::env::args().any(|a| a == "--curve-only") {
        curve(kld);
        return;
    }
    let gen = common::generate(&["-n", "1", "-q", "5000", "-s", "29"]);
    let base_file = common::jsonld_in(gen.path()).remove(0);
    let dir = tempfile::tempdir().unwrap();
    let (o_path, a_path, b_path) = (
        dir.path().join("base.jsonld"),
        dir.path().join("ours.jsonld"),
        dir.path().join("theirs.jsonld"),
    );
    std::fs::copy(&base_file, &o_path).unwrap();
    let base: Value = serde_json::from_slice(&std::fs::read(&o_path).unwrap()).unwrap();
    let n = base["dataFeedElement"].as_array().unwrap().len();
    assert_eq!(n, 5000);
    let mut ours = base.clone();
    let mut theirs = base.clone();
    ours["dateModified"] = "2030-01-02T00:00:00".into();
    theirs["dateModified"] = "2030-01-01T00:00:00".into();
    {
        let items = ours["dataFeedElement"].as_array_mut().unwrap();
        for (i, e) in items.iter_mut().enumerate().filter(|(i, _)| i % 10 == 0) {
            e["item"]["acceptedAnswer"]["text"] = format!("ours {i}").into();
        }
        for j in 0..50 {
            let mut e = items[1].clone();
            e["@id"] = format!("urn:bench:ours-{j}").into();
            e["item"]["text"] = format!("Added on our branch, number {j}?").into();
            items.push(e);
        }
    }
    {
        let items = theirs["dataFeedElement"].as_array_mut().unwrap();
        for (i, e) in items.iter_mut().enumerate().filter(|(i, _)| i % 10 == 5) {
            e["item"]["acceptedAnswer"]["text"] = format!("theirs {i}").into();
        }
        // Remove 50 questions nobody edited (i % 10 == 3, from the end).
        let mut removed = 0;
        let mut i = items.len();
        while removed < 50 {
            i -= 1;
            if i % 10 == 3 {
                items.remove(i);
                removed += 1;
            }
        }
    }
    save(&a_path, &ours);
    save(&b_path, &theirs);
    let (ob, ab, bb) = (
        std::fs::read(&o_path).unwrap(),
        std::fs::read(&a_path).unwrap(),
        std::fs::read(&b_path).unwrap(),
    );
    let mb = (ob.len() + ab.len() + bb.len()) as f64 / 1e6;
    println!("merge: base {n} questions; ours +50 and 500 answers; theirs -50 and 500 answers ({mb:.1} MB read)");

    let runs = 5;
    let mut merged = None;
    let (lib_best, lib_median) = best_of(runs, || {
        merged = Some(karenina_ld::merge::merge(Path::new("bench.jsonld"), &ob, &ab, &bb).unwrap());
    });
    let merged = merged.unwrap();
    assert!(
        merged.conflicts.is_empty(),
        "{:?}",
        merged.conflicts.first()
    );
    let out: Value = serde_json::from_str(&merged.text).unwrap();
    assert_eq!(out["dataFeedElement"].as_array().unwrap().len(), 5000);
    assert_eq!(out["dateModified"], "2030-01-02T00:00:00");
    println!(
        "{:<44} best {lib_best:.3} s, median {lib_median:.3} s",
        "library merge::merge (in process)"
    );

    let work = dir.path().join("work.jsonld");
    let cpu0 = children_cpu();
    let (cli_best, cli_median) = best_of(runs, || {
        std::fs::copy(&a_path, &work).unwrap();
        let st = Command::new(kld)
            .args(["git-merge"])
            .arg(&o_path)
            .arg(&work)
            .arg(&b_path)
            .arg("bench.jsonld")
            .status()
            .unwrap();
        assert!(st.success());
    });
    let cli_cpu = (children_cpu() - cpu0) / runs as f64;
    assert_eq!(std::fs::read_to_string(&work).unwrap(), merged.text);
    println!(
        "{:<44} best {cli_best:.3} s, median {cli_median:.3} s, CPU {cli_cpu:.3} s a run",
        "kld git-merge %O %A %B %P (process)"
    );

    let cpu0 = children_cpu();
    let (git_best, git_median) = best_of(runs, || {
        std::fs::copy(&a_path, &work).unwrap();
        // Exit status = number of conflicts; the timing is what counts here.
        Command::new("git")
            .args(["merge-file", "-q"])
            .arg(&work)
            .arg(&o_path)
            .arg(&b_path)
            .status()
            .unwrap();
    });
    let git_cpu = (children_cpu() - cpu0) / runs as f64;
    println!(
        "{:<44} best {git_best:.3} s, median {git_median:.3} s, CPU {git_cpu:.3} s a run",
        "git merge-file (text, same files)"
    );
    // On a loaded machine the wall time is mostly waiting for a core; the
    // CPU time (user + system, all threads) is what the merge costs.
    println!(
        "kld git-merge / git merge-file: {:.1}x the wall time (best of {runs}), {:.1}x the CPU time",
        cli_best / git_best,
        cli_cpu / git_cpu
    );
    curve(kld);
}
