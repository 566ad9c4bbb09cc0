//! Benchmarks that live only in Karenina's database (issue 36), kld against
//! Karenina itself: `tests/scripts/karenina_db_benchmarks.py` writes a
//! database with Karenina's own code (generated checkpoints of every trait
//! kind and edge case stored with `save_to_db`, a benchmark edited and saved
//! again into several template versions, a DBSink run, an imported run, the
//! placeholder DBSink creates) and prints what Karenina's loaders return.
//! Every benchmark `Benchmark.load_from_db(url, name).save(path)` writes is
//! the bytes `kld extract DB --benchmark NAME` writes (Karenina's clock at
//! load time, in `dateCreated`, `dateModified` and the root `@id`, is the
//! database's own time in kld's: those values are masked); the benchmark
//! Karenina's loader refuses (several template versions) kld rebuilds with
//! each question's newest template, as Karenina holds it in memory, and says
//! so; every version is a `karenina:TemplateVersion`; every run is bound,
//! with the number of results Karenina's `load_verification_results` gives.

use crate::common::*;
use crate::queries::{expr_rows, query_rows};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Karenina's clock, where kld writes the database's times.
pub(crate) fn masked(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with("\"dateCreated\": \"") || t.starts_with("\"dateModified\": \"") {
            let indent = &line[..line.len() - t.len()];
            let key = t.split(':').next().unwrap();
            let comma = if t.trim_end().ends_with(',') { "," } else { "" };
            let nl = if line.ends_with('\n') { "\n" } else { "" };
            out.push_str(&format!("{indent}{key}: \"T\"{comma}{nl}"));
        } else if let Some(i) = line.find("urn:uuid:karenina-checkpoint-") {
            let head = &line[..i + "urn:uuid:karenina-checkpoint-".len()];
            let rest = &line[head.len()..];
            let end = rest.find('"').unwrap_or(rest.len());
            out.push_str(&format!("{head}T{}", &rest[end..]));
        } else {
            out.push_str(line);
        }
    }
    out
}

fn generate(out: &Path, args: &[&str]) {
    let st = Command::new("python3")
        .arg(shared_tools().join("gen_checkpoints.py"))
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
}

#[test]
#[ignore = "interop: needs Karenina's venv (KLD_KARENINA_VENV): cargo test -- --include-ignored"]
fn database_benchmarks_extract_as_load_from_db_saves_them_and_every_run_binds() {
    let d = tempfile::tempdir().unwrap();
    let gen = d.path().join("gen");
    generate(
        &gen,
        &[
            "--checkpoints",
            "32",
            "--questions",
            "10",
            "--seed",
            "36",
            "--all-kinds",
            "--edge-rate",
            "0.1",
        ],
    );
    generate(
        &gen.join("more"),
        &[
            "--checkpoints",
            "6",
            "--questions",
            "25",
            "--seed",
            "7",
            "--dup-rate",
            "0.2",
        ],
    );
    let mut checkpoints: Vec<PathBuf> = std::fs::read_dir(&gen)
        .unwrap()
        .chain(std::fs::read_dir(gen.join("more")).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonld"))
        .collect();
    checkpoints.sort();
    let out = Command::new(karenina_python())
        .arg(Path::new(env!("KLD_SOURCE_ROOT")).join("tests/scripts/karenina_db_benchmarks.py"))
        .arg(d.path().join("out"))
        .arg(corpus())
        .args(&checkpoints)
        .output()
        .expect("the Karenina venv's python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let k: Value = serde_json::from_slice(&out.stdout).unwrap();
    let db = PathBuf::from(k["db"].as_str().unwrap());
    assert!(k["save_errors"].as_object().unwrap().is_empty(), "{k}");

    let mut cases = 0;
    let mut disagree = Vec::new();
    let edited = k["edited"]["name"].as_str().unwrap();
    let mut refused_edited = false;
    for b in k["benchmarks"].as_array().unwrap() {
        let name = b["name"].as_str().unwrap();
        let target = d.path().join("kld.jsonld");
        let run = Command::new(env!("CARGO_BIN_EXE_kld"))
            .arg("extract")
            .arg(&db)
            .args(["--benchmark", name, "-o"])
            .arg(&target)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        cases += 1;
        match b["file"].as_str() {
            Some(file) => {
                let theirs = std::fs::read_to_string(file).unwrap();
                let ours = std::fs::read_to_string(&target).unwrap_or_default();
                let (ours, theirs) = (masked(&ours), masked(&theirs));
                if !run.status.success() || ours != theirs {
                    let at = ours
                        .lines()
                        .zip(theirs.lines())
                        .enumerate()
                        .find(|(_, (a, b))| a != b)
                        .map(|(i, (a, b))| format!("line {}: kld {a:?}, Karenina {b:?}", i + 1))
                        .unwrap_or_else(|| "one is a prefix of the other".into());
                    disagree.push(format!(
                        "{name}: kld exit {:?}: {err}; first difference at {at}",
                        run.status.code()
                    ));
                }
            }
            None => {
                // Karenina's loader refuses it: several template versions
                // (the edited benchmark; a generated one saved twice under
                // one name).
                if !(b["error"].as_str().unwrap().contains("already exists")
                    && run.status.success()
                    && err.contains("Karenina's load_from_db raises"))
                {
                    disagree.push(format!("{name}: Karenina {}: kld {err}", b["error"]));
                }
                if name != edited {
                    continue;
                }
                refused_edited = true;
                // Each question's newest template, as Karenina holds it.
                let v: Value = serde_json::from_slice(&std::fs::read(&target).unwrap()).unwrap();
                let ours: serde_json::Map<String, Value> = v["dataFeedElement"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| {
                        (
                            i["@id"].as_str().unwrap().to_string(),
                            i["item"]["hasPart"]["text"].clone(),
                        )
                    })
                    .collect();
                for (qid, t) in k["edited"]["templates"].as_object().unwrap() {
                    if !t.as_str().unwrap().is_empty() {
                        assert_eq!(ours.get(qid), Some(t), "{qid}");
                    }
                }
            }
        }
    }
    assert!(
        refused_edited,
        "Karenina's loader refuses the edited benchmark"
    );
    // Every template version is queryable: one node per row.
    let versions = expr_rows(
        std::slice::from_ref(&db),
        "PREFIX karenina: <urn:karenina:vocab:>
         SELECT ?g (COUNT(?v) AS ?n) (SUM(IF(?cur, 1, 0)) AS ?current)
         WHERE { GRAPH ?g { ?v a karenina:TemplateVersion ; karenina:currentVersion ?cur } } GROUP BY ?g",
    );
    for b in k["benchmarks"].as_array().unwrap() {
        let name = b["name"].as_str().unwrap();
        let enc: String = url::form_urlencoded::byte_serialize(name.as_bytes()).collect();
        let row = versions
            .iter()
            .find(|r| {
                r["g"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!("#benchmark={enc}"))
            })
            .unwrap_or_else(|| panic!("{name}: {versions:?}"));
        assert_eq!(row["n"].as_str().unwrap(), b["rows"].to_string(), "{name}");
        if name == edited {
            let n: u64 = row["n"].as_str().unwrap().parse().unwrap();
            let cur: u64 = row["current"].as_str().unwrap().parse().unwrap();
            assert_eq!(n - cur, 3, "three older versions of two questions");
        }
    }
    // Every run bound, with Karenina's count of its results.
    let runs = query_rows(std::slice::from_ref(&db), "runs");
    assert_eq!(runs.len(), k["runs"].as_array().unwrap().len(), "{runs:?}");
    for r in k["runs"].as_array().unwrap() {
        cases += 1;
        let ours = runs
            .iter()
            .find(|x| x["run"] == r["name"])
            .unwrap_or_else(|| panic!("{r}: {runs:?}"));
        let enc: String =
            url::form_urlencoded::byte_serialize(r["benchmark"].as_str().unwrap().as_bytes())
                .collect();
        if !ours["checkpoint"]
            .as_str()
            .is_some_and(|c| c.ends_with(&format!("#benchmark={enc}")))
            || ours["results"].as_str() != Some(r["results"].to_string().as_str())
        {
            disagree.push(format!("run {r}: kld {ours:?}"));
        }
    }
    let tied = k["tied"].as_array().unwrap();
    assert!(
        tied.len() >= 10,
        "benchmarks whose rows share one time: {tied:?}"
    );
    report_differential(
        "db-benchmarks",
        cases,
        disagree.len(),
        &format!(
            " ({} benchmarks extracted as load_from_db(...).save() writes them, {} of them with one time for all their questions, {} runs bound)",
            k["benchmarks"].as_array().unwrap().len(),
            tied.len(),
            k["runs"].as_array().unwrap().len()
        ),
    );
    if !disagree.is_empty() {
        let kept = d.keep();
        panic!("{disagree:#?} (files kept in {})", kept.display());
    }
}

#[test]
fn the_mask_hides_only_karenina_s_clock() {
    let a = "{\n  \"@id\": \"urn:uuid:karenina-checkpoint-1764303217.01\",\n  \"dateCreated\": \"2026-11-28T04:13:37.048065\",\n  \"x\": 1\n}";
    let b = "{\n  \"@id\": \"urn:uuid:karenina-checkpoint-1.5\",\n  \"dateCreated\": \"2025\",\n  \"x\": 1\n}";
    assert_eq!(masked(a), masked(b));
    assert_ne!(masked(a), masked(&b.replace("\"x\": 1", "\"x\": 2")));
}
