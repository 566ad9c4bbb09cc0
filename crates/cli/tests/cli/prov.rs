//! Agentic runs' workspace manifests and repaired runs' sidecars, mapped
//! with PROV-O (issue 36), over `tests/data/runs/agentic/` (written by
//! Karenina's `capture_workspace`, `compact_manifest` and
//! `repair_results_export`: tests/scripts/karenina_agentic.py): the
//! catalogue's figures against the fixture's own JSON, the located warnings
//! for what does not match, and one answer from `kld query` and `kld serve`.

use crate::common::*;
use crate::queries::{json_rows, query_rows};
use crate::{kld, stdout_of};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

const AGENTIC: &str = "agentic_20261122T090000Z";
const RUNNING: &str = "running_20261122T110000Z";
const SIDECAR: &str = "results.json.repair_20261122T100000Z.json";
const BACKUP: &str = "results.json.backup_20261122T100000Z";

fn root() -> PathBuf {
    data("runs/agentic")
}

/// The fixture's checkpoint and both run folders.
fn inputs(root: &Path) -> Vec<PathBuf> {
    vec![
        corpus().join("loads/docs__notebooks__test_checkpoint.jsonld"),
        root.join(AGENTIC),
        root.join(RUNNING),
    ]
}

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&read_fixture(p)).unwrap()
}

/// A run folder's manifest entries, as Karenina wrote them.
fn entries(folder: &Path) -> Vec<Value> {
    let ws = folder.join("workspaces");
    if ws.join("manifest.json").is_file() {
        return read_json(&ws.join("manifest.json"))["entries"]
            .as_array()
            .unwrap()
            .clone();
    }
    String::from_utf8(read_fixture(&ws.join("manifest.jsonl")))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn display(id: &Value) -> String {
    karenina_ld::results::outcome::identity_display(id).unwrap()
}

fn s(r: &Map<String, Value>, k: &str) -> String {
    r.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

fn n(r: &Map<String, Value>, k: &str) -> u64 {
    s(r, k).parse().unwrap()
}

/// `kld query --named NAME` over `inputs`: rows, and stderr.
fn query(inputs: &[PathBuf], name: &str) -> (Vec<Map<String, Value>>, String) {
    let out = kld()
        .args(["query", "--format", "json", "--named", name])
        .args(inputs)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{err}");
    (
        json_rows(&serde_json::from_slice(&out.stdout).unwrap()),
        err,
    )
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), t).unwrap();
        }
    }
}

#[test]
fn captures_by_model_and_results_without_files_are_the_manifest_s() {
    let ins = inputs(&root());
    let (rows, err) = query(&ins, "capture-errors-by-model");
    // Karenina's own files read clean: no warning about them.
    assert!(!err.contains("KLD-W20"), "{err}");
    let mut checked = 0;
    for folder in [AGENTIC, RUNNING] {
        let es = entries(&root().join(folder));
        let mine: Vec<_> = rows
            .iter()
            .filter(|r| s(r, "results_graph").ends_with(folder))
            .collect();
        let pairs: std::collections::BTreeSet<(String, String)> = es
            .iter()
            .map(|e| (display(&e["answering"]), display(&e["parsing"])))
            .collect();
        assert_eq!(mine.len(), pairs.len(), "{folder}: {rows:?}");
        for r in mine {
            let of: Vec<&Value> = es
                .iter()
                .filter(|e| {
                    display(&e["answering"]) == s(r, "answering_model")
                        && display(&e["parsing"]) == s(r, "parsing_model")
                })
                .collect();
            let count = |st: &str| of.iter().filter(|e| e["status"] == st).count() as u64;
            assert_eq!(n(r, "captures"), of.len() as u64);
            assert_eq!(n(r, "captured"), count("captured"));
            assert_eq!(n(r, "captured_with_errors"), count("captured_with_errors"));
            assert_eq!(n(r, "skipped"), count("skipped"));
            let errors: usize = of
                .iter()
                .map(|e| e["copy_errors"].as_array().unwrap().len())
                .sum();
            assert_eq!(n(r, "copy_errors"), errors as u64);
            let none = of
                .iter()
                .filter(|e| e["status"] == "skipped" || e["copied_file_count"] == 0)
                .count();
            assert_eq!(n(r, "without_files"), none as u64);
            checked += 1;
        }
    }
    assert_eq!(checked, 4);
    // Each status and a copy error occur in the fixture.
    let all: Vec<Value> = [AGENTIC, RUNNING]
        .iter()
        .flat_map(|f| entries(&root().join(f)))
        .collect();
    for st in ["captured", "captured_with_errors", "skipped"] {
        assert!(all.iter().any(|e| e["status"] == st), "{st}");
    }

    let (rows, _) = query(&ins, "results-without-files");
    let mut got: Vec<String> = rows.iter().map(|r| s(r, "result_id")).collect();
    let mut want: Vec<String> = all
        .iter()
        .filter(|e| e["status"] == "skipped" || e["copied_file_count"] == 0)
        .map(|e| e["result_id"].as_str().unwrap().to_string())
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);
    let skipped = rows.iter().find(|r| s(r, "status") == "skipped").unwrap();
    assert_eq!(s(skipped, "skip_reason"), "workspace_not_available");
    // Every one is tied to its result.
    assert!(rows
        .iter()
        .all(|r| s(r, "result").starts_with("urn:karenina:result:")));
}

#[test]
fn the_files_the_agent_produced_are_prov_entities_of_its_result() {
    let rows = crate::queries::expr_rows(
        &inputs(&root()),
        "SELECT ?rid ?path ?size WHERE {
           GRAPH ?g { ?r karenina:workspaceCapture ?c . ?c karenina:entryResultId ?rid ;
                      a prov:Activity ; prov:generated ?f . ?f a karenina:WorkspaceFile ;
                      karenina:path ?path ; karenina:byteSize ?size .
                      ?copy prov:hadMember ?f ; prov:wasDerivedFrom ?ws . ?c prov:used ?ws }
           FILTER(STRENDS(STR(?g), \"agentic_20261122T090000Z\")) } ORDER BY ?rid ?path",
    );
    // The replaced result b8fa… copied two files, 5e5b… one (the pipe was not copied).
    let got: Vec<(String, String)> = rows.iter().map(|r| (s(r, "rid"), s(r, "path"))).collect();
    let folder = root().join(AGENTIC).join("workspaces");
    let mut want = Vec::new();
    for e in entries(&root().join(AGENTIC)) {
        let dest = Path::new(e["destination"].as_str().unwrap());
        let dir = folder.join(dest.file_name().unwrap());
        for f in ["answer.md", "notes/scratch.txt"] {
            if dir.join(f).is_file() {
                want.push((e["result_id"].as_str().unwrap().to_string(), f.to_string()));
            }
        }
    }
    want.sort();
    assert_eq!(got, want);
    assert_eq!(got.len(), 3);
}

#[test]
fn a_repair_is_a_derivation_and_each_replaced_result_a_revision() {
    let dir = root().join(AGENTIC);
    let sidecar = read_json(&dir.join(SIDECAR));
    let (rows, err) = query(&inputs(&root()), "repairs");
    assert!(!err.contains("KLD-W20"), "{err}");
    assert_eq!(
        rows.len() as u64,
        sidecar["replaced_count"].as_u64().unwrap()
    );
    // The replaced rows' result IDs, before (the backup) and now (the export).
    let ids = |f: &Path| -> Vec<(String, String)> {
        String::from_utf8(read_fixture(f))
            .unwrap()
            .lines()
            .filter(|l| l.starts_with('{') && l.contains("\"result_id\""))
            .map(|l| {
                let v: Value = serde_json::from_str(l.trim_end_matches(',')).unwrap();
                let m = &v["metadata"];
                (
                    m["question_id"].as_str().unwrap().to_string(),
                    m["result_id"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let before = ids(&dir.join(BACKUP));
    let after = ids(&dir.join("results.json"));
    for r in &rows {
        assert_eq!(s(r, "mode"), sidecar["mode"].as_str().unwrap());
        assert_eq!(s(r, "source_check"), "matches");
        assert_eq!(s(r, "repaired_at"), "2026-11-22T10:00:00Z");
        assert_eq!(s(r, "sidecar"), SIDECAR);
        let old = s(r, "previous_result_id");
        let new = s(r, "result_id");
        assert!(before.iter().any(|(_, id)| *id == old) && !after.iter().any(|(_, id)| *id == old));
        assert!(after.iter().any(|(_, id)| *id == new) && !before.iter().any(|(_, id)| *id == new));
        assert_eq!(
            (s(r, "previous_verify_result"), s(r, "verify_result")),
            ("false".into(), "true".into())
        );
        assert_eq!(s(r, "outcome"), "passed");
        assert_eq!(s(r, "changed"), "true");
    }
    // The captures of the replaced rows are tied to the rows they replaced.
    let (rows, _) = query(&inputs(&root()), "results-without-files");
    assert!(rows.iter().all(|r| s(r, "replaced") == "false"));
    let caps = crate::queries::expr_rows(
        &inputs(&root()),
        "SELECT ?old WHERE { ?new prov:wasRevisionOf ?old . ?old karenina:workspaceCapture ?c .
           ?c karenina:ofReplacedResult true }",
    );
    assert_eq!(caps.len(), 2);
    // The run is derived from the source, whose SHA-256 the sidecar gives.
    let src = crate::queries::expr_rows(
        &inputs(&root()),
        "SELECT ?sha WHERE { ?run a karenina:VerificationRun ; prov:wasDerivedFrom ?s ; prov:wasGeneratedBy ?rep .
           ?rep prov:used ?s . ?s karenina:sourceSha256 ?sha }",
    );
    assert_eq!(
        src.iter().map(|r| s(r, "sha")).collect::<Vec<_>>(),
        [sidecar["source_sha256"].as_str().unwrap()]
    );
}

#[test]
fn a_repaired_export_on_its_own_carries_its_repair() {
    let d = tempfile::tempdir().unwrap();
    for f in ["results.json", SIDECAR, BACKUP] {
        std::fs::copy(root().join(AGENTIC).join(f), d.path().join(f)).unwrap();
    }
    let ins = vec![
        corpus().join("loads/docs__notebooks__test_checkpoint.jsonld"),
        d.path().join("results.json"),
    ];
    let (rows, err) = query(&ins, "repairs");
    assert!(!err.contains("KLD-W20"), "{err}");
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| s(r, "source_check") == "matches"));
}

#[test]
fn what_does_not_match_is_a_located_warning_never_a_silent_drop() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    copy_dir(&self::root(), root);
    // A compacted entry whose result is not in the run, and a bad status.
    let mf = root.join(AGENTIC).join("workspaces/manifest.json");
    let mut m = read_json(&mf);
    let es = m["entries"].as_array_mut().unwrap();
    let mut stray = es[0].clone();
    stray["result_id"] = "0000000000000000".into();
    stray["question_id"] = "urn:uuid:nowhere".into();
    let mut bad = es[1].clone();
    bad["status"] = "lost".into();
    es.push(stray);
    es.push(bad);
    std::fs::write(&mf, serde_json::to_string_pretty(&m).unwrap()).unwrap();
    // A cut-short row in the running run's manifest.jsonl.
    let jl = root.join(RUNNING).join("workspaces/manifest.jsonl");
    let mut text = std::fs::read_to_string(&jl).unwrap();
    text.push_str("{\"question_id\": \"q\", \"result_");
    std::fs::write(&jl, text).unwrap();
    // The backup no longer holds the bytes the repair read.
    std::fs::write(root.join(AGENTIC).join(BACKUP), "{}").unwrap();

    let ins = inputs(root);
    let (rows, err) = query(&ins, "capture-errors-by-model");
    let w201: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("warning[KLD-W201]"))
        .collect();
    assert_eq!(w201.len(), 3, "{err}");
    assert!(
        err.contains("manifest.json:")
            && err.contains("at /entries/4: result_id \"0000000000000000\"")
            && err.contains("is no result of this run"),
        "{err}"
    );
    assert!(
        err.contains("at /entries/5/status: not a workspace capture entry: unknown variant `lost`"),
        "{err}"
    );
    assert!(err.contains("manifest.jsonl:4:"), "{err}");
    // The stray entry is counted (tied to no result); the bad ones are not.
    let agentic: u64 = rows
        .iter()
        .filter(|r| s(r, "results_graph").ends_with(AGENTIC))
        .map(|r| n(r, "captures"))
        .sum();
    assert_eq!(agentic, 5);
    let (rows, err) = query(&ins, "repairs");
    assert!(
        err.contains(&format!(
            "{SIDECAR}:1:1: warning[KLD-W202] at /source_sha256"
        )),
        "{err}"
    );
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(s(r, "source_check"), "differs");
        assert!(!r.contains_key("previous_result_id") && !r.contains_key("previous_outcome"));
    }
    // No backup at all: missing; a sidecar that is not Karenina's: said.
    std::fs::remove_file(root.join(AGENTIC).join(BACKUP)).unwrap();
    std::fs::write(
        root.join(AGENTIC)
            .join("results.json.repair_20261123T000000Z.json"),
        "{\"schema_version\": \"1.0\", \"mode\": 3}",
    )
    .unwrap();
    let (rows, err) = query(&ins, "repairs");
    assert!(err.contains("at /backup_path: its backup"), "{err}");
    assert!(
        err.contains("results.json.repair_20261123T000000Z.json:1:") && err.contains("at /mode"),
        "{err}"
    );
    assert!(rows.iter().all(|r| s(r, "source_check") == "missing"));
}

#[test]
fn the_run_folder_fixture_s_broken_repair_sidecar_is_said() {
    let out = kld()
        .args(["query", "--named", "repairs"])
        .arg(data("runs/root/completed_20261122T080100Z"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("results.json.repair_20261122T080200Z.json:1:2: warning[KLD-W202] at /: not a Karenina repair sidecar"),
        "{err}"
    );
}

#[test]
fn query_and_serve_give_the_same_rows_for_the_provenance_queries() {
    let ins = inputs(&root());
    let s = crate::serve::serve(&ins, &[]);
    for name in [
        "results-without-files",
        "capture-errors-by-model",
        "repairs",
    ] {
        let local = stdout_of(
            kld()
                .args(["query", "--format", "tsv", "--named", name])
                .args(&ins),
        );
        let served = stdout_of(
            kld()
                .args(["query", "--format", "tsv", "--named", name, "--endpoint"])
                .arg(format!("{}/sparql", s.base)),
        );
        let sorted = |t: &str| {
            let mut v: Vec<String> = t.lines().map(str::to_string).collect();
            v.sort();
            v
        };
        assert!(local.lines().count() > 1, "{name}: no rows");
        assert_eq!(sorted(&served), sorted(&local), "{name}");
    }
    // (The rows themselves: query_rows is what the tests above read.)
    assert!(!query_rows(&ins, "repairs").is_empty());
}

#[test]
fn serve_watch_reloads_a_run_folder_when_a_capture_is_appended() {
    let d = tempfile::tempdir().unwrap();
    copy_dir(&root(), d.path());
    let ins = inputs(d.path());
    let s = crate::serve::serve(&ins, &["--watch"]);
    let captures = || -> u64 {
        let out = stdout_of(
            kld()
                .args(["query", "--format", "json", "--endpoint"])
                .arg(format!("{}/sparql", s.base))
                .args([
                    "-e",
                    "SELECT (COUNT(?c) AS ?n) WHERE { ?c a karenina:WorkspaceCapture }",
                ]),
        );
        n(&json_rows(&serde_json::from_str(&out).unwrap())[0], "n")
    };
    assert_eq!(captures(), 7);
    // Karenina appends a row to manifest.jsonl as each result finishes.
    let jl = d.path().join(RUNNING).join("workspaces/manifest.jsonl");
    let mut text = std::fs::read_to_string(&jl).unwrap();
    let first = text.lines().next().unwrap().to_string();
    text.push_str(&first);
    text.push('\n');
    std::fs::write(&jl, text).unwrap();
    let t = std::time::Instant::now();
    while captures() != 8 {
        assert!(
            t.elapsed() < std::time::Duration::from_secs(20),
            "not reloaded within 20 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn serve_watch_reloads_an_export_when_a_repair_sidecar_appears_beside_it() {
    let d = tempfile::tempdir().unwrap();
    for f in ["results.json", BACKUP] {
        std::fs::copy(root().join(AGENTIC).join(f), d.path().join(f)).unwrap();
    }
    let cp = corpus().join("loads/docs__notebooks__test_checkpoint.jsonld");
    let s = crate::serve::serve(&[cp, d.path().to_path_buf()], &["--watch"]);
    let repairs = || {
        let out = stdout_of(
            kld()
                .args([
                    "query",
                    "--format",
                    "json",
                    "--named",
                    "repairs",
                    "--endpoint",
                ])
                .arg(format!("{}/sparql", s.base)),
        );
        json_rows(&serde_json::from_str(&out).unwrap()).len()
    };
    assert_eq!(repairs(), 0);
    std::fs::copy(root().join(AGENTIC).join(SIDECAR), d.path().join(SIDECAR)).unwrap();
    let t = std::time::Instant::now();
    while repairs() != 2 {
        assert!(
            t.elapsed() < std::time::Duration::from_secs(20),
            "not reloaded within 20 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn info_of_a_run_folder_counts_its_captures_and_lists_its_repairs() {
    let folder = root().join(AGENTIC);
    let text = stdout_of(kld().arg("info").arg(&folder));
    assert!(
        text.contains("captures:   4 (captured 2, with copy errors 1, skipped 1; 1 copy errors; 2 without files)"),
        "{text}"
    );
    assert!(
        text.contains(
            "repaired:   20261122T100000Z (replay, 2 of 2 selected replaced; source matches)"
        ),
        "{text}"
    );
    for f in [AGENTIC, RUNNING] {
        let out = stdout_of(kld().args(["info", "--format", "json"]).arg(root().join(f)));
        let v: Value = serde_json::from_str(&out).unwrap();
        let c = &v["workspace_captures"];
        let es = entries(&root().join(f));
        assert_eq!(c["entries"], es.len());
        for st in ["captured", "captured_with_errors", "skipped"] {
            assert_eq!(
                c[st],
                es.iter().filter(|e| e["status"] == st).count(),
                "{f} {st}"
            );
        }
    }
}
