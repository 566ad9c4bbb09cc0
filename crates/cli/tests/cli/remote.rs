//! `kld push`, `--endpoint` against a real Oxigraph server (issue 13).

use crate::common::*;
use crate::serve::rows;
use crate::{kld, stdout_of};
use predicates::prelude::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// An `oxigraph serve` (pip `oxigraph`) on a free loopback port over `dir`,
/// with the union default graph (as kld's local queries), killed by PID.
pub(crate) struct Oxigraph {
    guard: Option<ServerGuard>,
    base: String,
    port: u16,
    dir: PathBuf,
}

impl Oxigraph {
    pub(crate) fn start(dir: &Path) -> Self {
        let port = free_port();
        let mut o = Oxigraph {
            guard: None,
            base: format!("http://127.0.0.1:{port}"),
            port,
            dir: dir.to_path_buf(),
        };
        o.restart();
        o
    }

    fn restart(&mut self) {
        self.guard = Some(oxigraph_server(&self.dir, self.port));
        assert!(
            wait_for_port(self.port, Duration::from_secs(60)),
            "oxigraph did not start"
        );
    }

    fn stop(&mut self) {
        self.guard = None;
    }

    pub(crate) fn server(&self) -> [&str; 3] {
        ["--server", "oxigraph", &self.base]
    }
}

pub(crate) fn push(o: &Oxigraph, args: &[&str], inputs: &[&Path]) -> std::process::Output {
    kld()
        .arg("push")
        .args(o.server())
        .args(args)
        .args(inputs)
        .output()
        .unwrap()
}

fn plan(o: &Oxigraph, inputs: &[&Path], prune: bool) -> Vec<(String, String)> {
    let mut args = vec!["--dry-run"];
    if prune {
        args.push("--prune");
    }
    let out = push(o, &args, inputs);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: Vec<(String, String)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let mut f = l.split('\t');
            (f.next().unwrap().to_string(), f.next().unwrap().to_string())
        })
        .collect();
    v.sort();
    v
}

fn graph_of(f: &Path) -> String {
    format!("file://{}", f.canonicalize().unwrap().display())
}

fn canon(f: &Path) -> Vec<u8> {
    kld().args(["canon", "-q"]).arg(f).output().unwrap().stdout
}

fn extract(o: &Oxigraph, f: &Path) -> std::process::Output {
    kld()
        .arg("extract")
        .args(o.server())
        .arg(graph_of(f))
        .output()
        .unwrap()
}

#[test]
#[ignore = "interop: needs the Oxigraph server (pip oxigraph): cargo test -- --include-ignored"]
fn push_extract_query_repush_replace_and_prune_on_a_real_oxigraph_server() {
    let data = tempfile::tempdir().unwrap();
    let o = Oxigraph::start(&data.path().join("db"));
    // The corpus and generated files (hostile IDs, every trait kind), copied
    // so the test can change and delete them.
    let inputs = tempfile::tempdir().unwrap();
    for f in corpus_files("loads") {
        crate::copy_to(inputs.path(), &f);
    }
    let gen = generate(&[
        "-n",
        "3",
        "-q",
        "15",
        "-s",
        "8",
        "--all-kinds",
        "--edge-rate",
        "0.1",
    ]);
    for f in jsonld_in(gen.path()) {
        crate::copy_to(inputs.path(), &f);
    }
    let files = jsonld_in(inputs.path());
    let out = push(&o, &[], &[inputs.path()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("{} sent", files.len())));

    // Every graph extracts byte-identical to canon.
    for f in &files {
        let out = extract(&o, f);
        assert!(
            out.status.success(),
            "{}: {}",
            f.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.stdout, canon(f), "{}", f.display());
    }

    // Every catalogue query returns the same rows through the server.
    for q in karenina_ld::sparql::CATALOGUE {
        let remote = stdout_of(
            kld()
                .args(["query", "--format", "json", "--named", q.name])
                .args(o.server()),
        );
        let local = stdout_of(
            kld()
                .args(["query", "--format", "json", "--named", q.name])
                .args(&files),
        );
        assert_eq!(
            rows(&serde_json::from_str(&remote).unwrap()),
            rows(&serde_json::from_str(&local).unwrap()),
            "{}",
            q.name
        );
    }
    // Other formats too (the same writer as local queries).
    let tsv = stdout_of(
        kld()
            .args(["query", "--format", "tsv", "--named", "benchmark-stats"])
            .args(o.server()),
    );
    assert_eq!(tsv.lines().count(), files.len() + 1);

    // A re-push of unchanged files sends nothing.
    assert!(plan(&o, &[inputs.path()], false)
        .iter()
        .all(|(v, _)| v == "unchanged"));
    let out = push(&o, &[], &[inputs.path()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 sent"));

    // A changed file replaces exactly its graph.
    let changed = &files[0];
    let mut j: serde_json::Value =
        serde_json::from_slice(&std::fs::read(changed).unwrap()).unwrap();
    j["name"] = serde_json::json!("renamed on disk");
    std::fs::write(changed, serde_json::to_string_pretty(&j).unwrap()).unwrap();
    let p = plan(&o, &[inputs.path()], false);
    let replaced: Vec<_> = p.iter().filter(|(v, _)| v == "replace").collect();
    assert_eq!(replaced, [&("replace".to_string(), graph_of(changed))]);
    let out = push(&o, &[], &[inputs.path()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 sent"));
    assert_eq!(extract(&o, changed).stdout, canon(changed));

    // --prune removes the graph of a deleted file.
    let gone = files.last().unwrap();
    let gone_graph = graph_of(gone);
    std::fs::remove_file(gone).unwrap();
    let p = plan(&o, &[inputs.path()], true);
    assert_eq!(
        p.iter().filter(|(v, _)| v == "delete").collect::<Vec<_>>(),
        [&("delete".to_string(), gone_graph.clone())]
    );
    let out = push(&o, &["--prune"], &[inputs.path()]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 deleted"));
    let ask = stdout_of(
        kld()
            .args(["query", "--format", "tsv", "-e"])
            .arg(format!("ASK {{ GRAPH <{gone_graph}> {{ ?s ?p ?o }} }}"))
            .args(o.server()),
    );
    assert!(ask.contains("false"), "{ask}");
}

#[test]
#[ignore = "interop: needs the Oxigraph server (pip oxigraph): cargo test -- --include-ignored"]
fn a_server_stopped_mid_push_is_a_clear_error_and_the_next_push_completes() {
    let data = tempfile::tempdir().unwrap();
    let mut o = Oxigraph::start(&data.path().join("db"));
    let gen = generate(&["-n", "60", "-q", "40", "-s", "4"]);
    let files = jsonld_in(gen.path());
    let child = Command::new(assert_cmd::cargo::cargo_bin("kld"))
        .arg("push")
        .args(o.server())
        .args(["--jobs", "1"])
        .arg(gen.path())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    o.stop();
    let start = Instant::now();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the push must fail: {err}");
    assert!(err.contains("unreachable"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(60), "bounded retries");
    // The next push completes, and everything extracts.
    o.restart();
    let out = push(&o, &[], &[gen.path()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(plan(&o, &[gen.path()], false)
        .iter()
        .all(|(v, _)| v == "unchanged"));
    for f in files.iter().step_by(15) {
        assert_eq!(extract(&o, f).stdout, canon(f));
    }
}

#[test]
#[ignore = "interop: needs the Oxigraph server (pip oxigraph): cargo test -- --include-ignored"]
fn extract_refuses_a_graph_the_server_altered_and_names_the_value() {
    let data = tempfile::tempdir().unwrap();
    let o = Oxigraph::start(&data.path().join("db"));
    let f = corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld");
    assert!(push(&o, &[], &[&f]).status.success());
    // Alter one double the way Virtuoso does (fewer digits), behind kld's back.
    let g = graph_of(&f);
    let update = format!(
        "PREFIX schema: <https://schema.org/>
DELETE {{ GRAPH <{g}> {{ ?r schema:bestRating ?v }} }}
INSERT {{ GRAPH <{g}> {{ ?r schema:bestRating 4.99999 }} }}
WHERE {{ GRAPH <{g}> {{ ?r schema:bestRating ?v FILTER(?v = 5) }} }}"
    );
    let r = reqwest::blocking::Client::new()
        .post(format!("{}/update", o.base))
        .header("Content-Type", "application/sparql-update")
        .body(update)
        .send()
        .unwrap();
    assert!(r.status().is_success());
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("out.jsonld");
    let out = kld()
        .arg("extract")
        .args(o.server())
        .arg(&g)
        .arg("-o")
        .arg(&target)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("4.99999"), "names the returned value: {err}");
    assert!(err.contains("5 (double)"), "names the pushed value: {err}");
    assert!(!target.exists(), "nothing written");
}

/// A throw-away Virtuoso 7 (`tests/scripts/virtuoso-local.sh`), stopped by
/// its PID file when dropped.
struct Virtuoso {
    dir: tempfile::TempDir,
    base: String,
}

impl Drop for Virtuoso {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(Path::new(env!("KLD_SOURCE_ROOT")).join("tests/scripts/virtuoso-local.sh"))
            .arg("stop")
            .arg(self.dir.path())
            .status();
    }
}

/// A Virtuoso on two free loopback ports. A port found free can be taken
/// by another test's server before Virtuoso binds it (CI's interop tier
/// saw "Address already in use"), so a start that fails so is retried on
/// other ports.
fn virtuoso() -> Virtuoso {
    for _ in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new("bash")
            .arg(Path::new(env!("KLD_SOURCE_ROOT")).join("tests/scripts/virtuoso-local.sh"))
            .arg("start")
            .arg(dir.path())
            .arg(free_port().to_string())
            .arg(free_port().to_string())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        if out.status.success() {
            let base = text.split_whitespace().last().unwrap().to_string();
            return Virtuoso { dir, base };
        }
        assert!(
            format!("{text}{err}").contains("Address already in use"),
            "virtuoso-local.sh start: {text}{err}"
        );
    }
    panic!("Virtuoso found its ports taken three times");
}

#[test]
#[ignore = "interop: needs Virtuoso 7 (Debian virtuoso-opensource-7-bin): cargo test -- --include-ignored"]
fn virtuoso_push_query_extract_and_refuse_what_it_alters() {
    let v = virtuoso();
    let server = |cmd: &mut assert_cmd::Command| {
        cmd.args([
            "--server",
            "virtuoso",
            &v.base,
            "--user",
            "dba",
            "--password-env",
            "KLD_TEST_PW",
        ])
        .env("KLD_TEST_PW", "dba");
    };
    let d = tempfile::tempdir().unwrap();
    let keep = crate::copy_to(
        d.path(),
        &corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld"),
    );
    // A long double and an integer past int64: Virtuoso shortens and retypes them.
    let mut j: serde_json::Value = serde_json::from_slice(&read_fixture(
        &corpus().join("loads/tests__fixtures__checkpoints__minimal.jsonld"),
    ))
    .unwrap();
    j["dataFeedElement"][0]["item"]["additionalProperty"] = serde_json::json!([
        {"@type": "PropertyValue", "name": "custom_pi", "value": std::f64::consts::PI},
    ]);
    let altered = d.path().join("pi.jsonld");
    std::fs::write(&altered, serde_json::to_string_pretty(&j).unwrap()).unwrap();
    let mut cmd = kld();
    cmd.arg("push").arg(d.path());
    server(&mut cmd);
    cmd.assert()
        .success()
        .stderr(predicates::str::contains("2 sent"));
    // The catalogue runs there (counts are integers, unaltered).
    let mut cmd = kld();
    cmd.args(["query", "--format", "json", "--named", "benchmark-stats"]);
    server(&mut cmd);
    let remote = stdout_of(&mut cmd);
    let local = stdout_of(
        kld()
            .args(["query", "--format", "json", "--named", "benchmark-stats"])
            .arg(&keep)
            .arg(&altered),
    );
    assert_eq!(
        rows(&serde_json::from_str(&remote).unwrap()),
        rows(&serde_json::from_str(&local).unwrap())
    );
    // A graph Virtuoso keeps intact extracts byte-identical ...
    let mut cmd = kld();
    cmd.arg("extract").arg(graph_of(&keep));
    server(&mut cmd);
    assert_eq!(cmd.output().unwrap().stdout, canon(&keep));
    // ... one it altered is refused, the value named, nothing written.
    let target = d.path().join("out.jsonld");
    let mut cmd = kld();
    cmd.arg("extract")
        .arg(graph_of(&altered))
        .arg("-o")
        .arg(&target);
    server(&mut cmd);
    cmd.assert().code(1).stderr(
        predicates::str::contains("3.141592653589793")
            .and(predicates::str::contains("3.14159 (double)")),
    );
    assert!(!target.exists());
}

#[test]
#[ignore = "interop: needs the Oxigraph server (pip oxigraph): cargo test -- --include-ignored"]
fn results_exports_push_bind_and_answer_on_a_real_oxigraph_server() {
    let d = tempfile::tempdir().unwrap();
    let o = Oxigraph::start(&d.path().join("db"));
    let res = |f: &str| corpus().join("results").join(f);
    let cp = |f: &str| corpus().join("loads").join(f);
    let files = [
        cp("tests__fixtures__checkpoints__with_rubrics.jsonld"),
        cp("karenina-output__probe_dj.jsonld"),
        cp("karenina-output__scenario_probe.jsonld"),
        res("res-tests__fixtures__checkpoints__with_rubrics.full.json"),
        res("res-karenina-output__probe_dj.full.csv"),
        res("res-karenina-output__scenario_probe.scenario.json"),
        res("res-orphan.orphan.json"),
    ];
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let out = push(&o, &[], &inputs);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The orphan run is bound to nothing and says so, on the server as locally.
    assert!(String::from_utf8_lossy(&out.stderr).contains("results link to no loaded checkpoint"));
    for name in [
        "results-by-model",
        "pass-rate-by-benchmark",
        "trait-scores",
        "scores-by-trait",
        "results-without-question",
    ] {
        let local = stdout_of(
            kld()
                .args(["query", "--format", "tsv", "--named", name])
                .args(&files),
        );
        let remote = stdout_of(
            kld()
                .arg("query")
                .args(o.server())
                .args(["--format", "tsv", "--named", name]),
        );
        let sorted = |s: &str| {
            let mut v: Vec<String> = s.lines().map(str::to_string).collect();
            v.sort();
            v
        };
        assert!(sorted(&local).len() > 1, "{name}: no rows locally");
        assert_eq!(sorted(&remote), sorted(&local), "{name}");
    }
    // A results graph is not a checkpoint: extract says so and writes nothing.
    let out = extract(&o, &files[3]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("results export"));
}

#[test]
#[ignore = "interop: needs the Oxigraph server (pip oxigraph): cargo test -- --include-ignored"]
fn a_run_folder_pushes_as_one_results_graph_and_a_second_push_sends_nothing() {
    let d = tempfile::tempdir().unwrap();
    let o = Oxigraph::start(&d.path().join("db"));
    let folder = data("runs/root/interrupted_20261122T080200Z");
    let files = [
        corpus().join("loads/karenina-output__scenario_probe.jsonld"),
        folder.clone(),
    ];
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let out = push(&o, &[], &inputs);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    same_as_local(&o, &files, &["results-by-model", "runs"]);
    let again = plan(&o, &inputs, false);
    assert!(
        again.iter().all(|(verb, _)| verb == "unchanged"),
        "{again:?}"
    );
}

/// The named queries answer on the server as locally over `files` (the
/// order within a GROUP_CONCAT, `runs`' ?answering_models, is the
/// evaluator's: compared as sets).
fn same_as_local(o: &Oxigraph, files: &[PathBuf], names: &[&str]) {
    let cells = |t: &str| -> Vec<Vec<String>> {
        let mut rows: Vec<Vec<String>> = t
            .lines()
            .map(|l| {
                l.split('\t')
                    .map(|c| {
                        let mut m: Vec<&str> = c.trim_matches('"').split(", ").collect();
                        m.sort();
                        m.join(", ")
                    })
                    .collect()
            })
            .collect();
        rows.sort();
        rows
    };
    for name in names {
        let local = stdout_of(
            kld()
                .args(["query", "--format", "tsv", "--named", name])
                .args(files),
        );
        let remote = stdout_of(
            kld()
                .arg("query")
                .args(o.server())
                .args(["--format", "tsv", "--named", name]),
        );
        assert!(local.lines().count() > 1, "{name}: no rows locally");
        assert_eq!(cells(&remote), cells(&local), "{name}");
    }
}

#[test]
#[ignore = "interop: needs the Oxigraph server (pip oxigraph): cargo test -- --include-ignored"]
fn karenina_database_runs_push_as_results_graphs_and_a_second_push_sends_nothing() {
    let d = tempfile::tempdir().unwrap();
    let o = Oxigraph::start(&d.path().join("db"));
    let db = data("runs/karenina.db");
    let stamp = |p: &Path| {
        (
            std::fs::read(p).unwrap(),
            std::fs::metadata(p).unwrap().modified().unwrap(),
        )
    };
    let before = stamp(&db);
    let files = [
        corpus().join("loads/docs__notebooks__test_checkpoint.jsonld"),
        corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld"),
        db.clone(),
    ];
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let first = plan(&o, &inputs, false);
    // One graph per run, named as the local store names it.
    let runs: Vec<&(String, String)> = first.iter().filter(|(_, g)| g.contains("#run=")).collect();
    assert_eq!(runs.len(), 3, "{first:?}");
    assert!(runs.iter().all(|(verb, _)| verb == "send"));
    let out = push(&o, &[], &inputs);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    same_as_local(&o, &files, &["results-by-model", "trait-scores", "runs"]);
    let again = plan(&o, &inputs, false);
    assert!(
        again.iter().all(|(verb, _)| verb == "unchanged"),
        "{again:?}"
    );
    assert!(
        stamp(&db) == before,
        "the database's bytes or mtime changed"
    );
    // Beside a checkpoint holding its questions under another benchmark
    // name (and not at its checkpoint_path), a database run binds on the
    // server as locally to the database's own copy of its benchmark (issue
    // 36), never to the other checkpoint by question IDs.
    let o = Oxigraph::start(&d.path().join("db2"));
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    v["name"] = "Not It".into();
    let renamed = d.path().join("renamed.jsonld");
    std::fs::write(&renamed, serde_json::to_vec(&v).unwrap()).unwrap();
    let files = [renamed, db];
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let out = push(&o, &[], &inputs);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("not bound"), "{err}");
    same_as_local(&o, &files, &["runs"]);
}
