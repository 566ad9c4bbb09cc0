//! `kld git-merge` on two 5,000-question branches (issue 29; run with
//! `cargo bench --bench merge`). Target: under a second.
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

#[path = "../tests/common/mod.rs"]
mod common;

fn save(p: &Path, v: &Value) {
    std::fs::write(p, serde_json::to_string_pretty(v).unwrap()).unwrap();
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

fn main() {
    let kld = env!("CARGO_BIN_EXE_kld");
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
    assert_eq!(std::fs::read_to_string(&work).unwrap(), merged.text);
    println!(
        "{:<44} best {cli_best:.3} s, median {cli_median:.3} s",
        "kld git-merge %O %A %B %P (process)"
    );

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
    println!(
        "{:<44} best {git_best:.3} s, median {git_median:.3} s",
        "git merge-file (text, same files)"
    );
    println!(
        "kld git-merge / git merge-file: {:.1}x the time (best of {runs})",
        cli_best / git_best
    );
}
