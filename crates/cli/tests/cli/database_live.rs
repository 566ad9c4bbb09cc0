//! Karenina's results database while Karenina uses it (issue 21): kld reads
//! it during Karenina's write transactions without blocking them, and
//! `serve --watch` follows what Karenina writes.

use crate::copy_to;
use crate::database::{db, runs};
use crate::queries::query_rows;
use serde_json::Value;
use std::path::Path;

/// What Karenina's writes do to the database, through Python's sqlite3 (a
/// rollback journal, as Karenina's SQLAlchemy engine leaves it): `sql`
/// statements in one transaction.
fn karenina_writes(file: &Path, sql: &str) {
    let st = std::process::Command::new("python3")
        .arg("-c")
        .arg("import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.executescript(sys.argv[2])\nc.commit()\n")
        .arg(file)
        .arg(sql)
        .status()
        .unwrap();
    assert!(st.success());
}

#[test]
#[ignore = "interop: needs python3 (sqlite3 writes as Karenina does): cargo test -- --include-ignored"]
fn serve_watch_reloads_a_database_when_karenina_writes_a_run() {
    let runs = runs();
    let d = tempfile::tempdir().unwrap();
    let file = copy_to(d.path(), &db());
    // The database alone as a root: watched through its directory.
    let server = crate::serve::serve(std::slice::from_ref(&file), &["--watch"]);
    let client = reqwest::blocking::Client::new();
    let names = || {
        crate::serve::select_column(
            &client,
            &server.base,
            "SELECT ?n WHERE { GRAPH ?g { ?r <urn:karenina:vocab:runSource> \"database\" ; \
             <urn:karenina:vocab:manifestRunName> ?n } } ORDER BY ?n",
            "n",
        )
    };
    let wait_for = |want: &[String]| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while names() != want && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        assert_eq!(names(), want);
    };
    let mut want: Vec<String> = runs.iter().map(|r| r.0.name.clone()).collect();
    want.sort();
    assert_eq!(names(), want);
    // Karenina records a new run (a copy of the first, its results with new
    // IDs) and deletes another.
    let (first, gone) = (&runs[0].0, &runs[1].0);
    karenina_writes(
        &file,
        &format!(
            "INSERT INTO verification_runs SELECT 'added-run', benchmark_id, 'added', status, config,
               total_questions, processed_count, successful_count, failed_count, start_time, end_time,
               error_message, summary_stats, created_at, updated_at
             FROM verification_runs WHERE id = '{0}';
             CREATE TEMP TABLE r AS SELECT * FROM verification_results WHERE run_id = '{0}';
             UPDATE r SET id = id + 1000000, run_id = 'added-run', metadata_result_id = metadata_result_id || '-added';
             INSERT INTO verification_results SELECT * FROM r;
             DELETE FROM verification_results WHERE run_id = '{1}';
             DELETE FROM verification_runs WHERE id = '{1}';",
            first.id, gone.id
        ),
    );
    want.retain(|n| *n != gone.name);
    want.push("added".into());
    want.sort();
    wait_for(&want);
    // The new run answers as the one it copies.
    let count = |run: &str| -> String {
        let v: Value = client
            .get(format!("{}/sparql", server.base))
            .query(&[(
                "query",
                format!(
                    "SELECT (COUNT(?x) AS ?n) WHERE {{ GRAPH ?g {{ ?r <urn:karenina:vocab:manifestRunName> \"{run}\" .
                       ?x <urn:karenina:vocab:resultId> ?id }} }}"
                ),
            )])
            .header("accept", "application/sparql-results+json")
            .send()
            .unwrap()
            .json()
            .unwrap();
        v["results"]["bindings"][0]["n"]["value"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(count("added"), first.results.to_string());
    assert_eq!(count(&first.name), first.results.to_string());
    // The file cut short (a disk full, a bad copy): the runs loaded stay, the
    // error is shown.
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() / 3]).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let errors = loop {
        let e: Value = client
            .get(format!("{}/errors", server.base))
            .send()
            .unwrap()
            .json()
            .unwrap();
        if !e["errors"].as_array().unwrap().is_empty() || std::time::Instant::now() > deadline {
            break e;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let message = errors["errors"][0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("KLD-E202"), "{errors}");
    assert_eq!(names(), want);
}

#[test]
#[ignore = "interop: needs python3 (sqlite3 holds a write transaction): cargo test -- --include-ignored"]
fn kld_reads_the_database_while_karenina_holds_a_write_transaction() {
    let d = tempfile::tempdir().unwrap();
    let file = copy_to(d.path(), &db());
    // Python's sqlite3 begins a write (RESERVED lock, rollback journal) and
    // adds a run, not yet committed, while kld reads.
    let mut py = std::process::Command::new("python3")
        .arg("-c")
        .arg(
            "import sqlite3, sys\n\
             c = sqlite3.connect(sys.argv[1], isolation_level=None)\n\
             c.execute('BEGIN IMMEDIATE')\n\
             c.execute(\"INSERT INTO verification_runs SELECT 'pending', benchmark_id, 'pending', status, config, total_questions, processed_count, successful_count, failed_count, start_time, end_time, error_message, summary_stats, created_at, updated_at FROM verification_runs LIMIT 1\")\n\
             print('ready', flush=True)\n\
             sys.stdin.readline()\n\
             c.execute('COMMIT')\n\
             print(c.execute('SELECT COUNT(*) FROM verification_runs').fetchone()[0], flush=True)\n",
        )
        .arg(&file)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    let mut out = std::io::BufReader::new(py.stdout.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    assert_eq!(line.trim(), "ready");
    // kld sees the runs committed, not the pending one, and takes no lock.
    let rows = query_rows(std::slice::from_ref(&file), "runs");
    assert_eq!(rows.len(), runs().len());
    assert!(rows.iter().all(|r| r["run"] != "pending"));
    // Karenina's commit is not blocked by kld.
    drop(py.stdin.take());
    line.clear();
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    assert_eq!(line.trim(), (runs().len() + 1).to_string());
    assert!(py.wait().unwrap().success());
    let rows = query_rows(std::slice::from_ref(&file), "runs");
    assert_eq!(rows.len(), runs().len() + 1);
}

/// Python's sqlite3 running `script` on `file` (as `c`, in autocommit so
/// the script says where transactions begin and end): its stdout, once it
/// printed `ready` (it then waits for a line on stdin before each `step()`).
fn holding(file: &Path, script: &str) -> (std::process::Child, impl std::io::BufRead) {
    let mut py = std::process::Command::new("python3")
        .arg("-c")
        .arg(format!(
            "import sqlite3, sys\n\
             c = sqlite3.connect(sys.argv[1], isolation_level=None)\n\
             def step():\n    sys.stdin.readline()\n\
             {script}"
        ))
        .arg(file)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    let mut out = std::io::BufReader::new(py.stdout.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    assert_eq!(line.trim(), "ready");
    (py, out)
}

/// Lets a [`holding`] script go on past its next `step()`.
fn step(py: &mut std::process::Child) {
    use std::io::Write;
    let stdin = py.stdin.as_mut().unwrap();
    stdin.write_all(b"\n").unwrap();
    stdin.flush().unwrap();
}

/// The `runs` query's run names and result counts, sorted.
fn run_counts(file: &Path) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = query_rows(&[file.to_path_buf()], "runs")
        .into_iter()
        .map(|r| {
            (
                r["run"].as_str().unwrap().to_string(),
                r["results"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    rows.sort();
    rows
}

/// Issue 38: in WAL mode the commits are in the write-ahead log until a
/// checkpoint; the file alone (read `immutable`) showed the run as it was
/// before (its 30 results, its old name).
#[test]
#[ignore = "interop: needs python3 (sqlite3 writes in WAL mode and holds a write transaction): cargo test -- --include-ignored"]
fn a_wal_database_read_during_a_write_shows_exactly_the_committed_rows() {
    let d = tempfile::tempdir().unwrap();
    let file = copy_to(d.path(), &db());
    let runs = runs();
    let before = run_counts(&file);
    let (first, first_results) = (&runs[0].0.id, runs[0].0.results);
    assert!(first_results > 0);
    // Committed: the first run's results deleted and the run renamed (left
    // in the log: no checkpoint); then a write under way renames them all.
    let (mut py, mut out) = holding(
        &file,
        &format!(
            "c.execute('PRAGMA journal_mode=WAL')\n\
             c.execute('PRAGMA wal_autocheckpoint=0')\n\
             c.execute('BEGIN')\n\
             c.execute(\"DELETE FROM verification_results WHERE run_id = '{first}'\")\n\
             c.execute(\"UPDATE verification_runs SET run_name = 'renamed' WHERE id = '{first}'\")\n\
             c.execute('COMMIT')\n\
             c.execute('BEGIN IMMEDIATE')\n\
             c.execute(\"UPDATE verification_runs SET run_name = 'pending'\")\n\
             print('ready', flush=True)\n\
             step()\n\
             c.execute('COMMIT')\n\
             print('committed', flush=True)\n\
             step()\n"
        ),
    );
    let mut want: Vec<(String, String)> = before
        .iter()
        .map(|(name, n)| {
            if *name == runs[0].0.name {
                ("renamed".to_string(), "0".to_string())
            } else {
                (name.clone(), n.clone())
            }
        })
        .collect();
    want.sort();
    assert_eq!(run_counts(&file), want);
    // `kld info` reads the same snapshot.
    let info = crate::stdout_of(crate::kld().arg("info").arg(&file));
    assert!(
        info.contains("renamed [") && !info.contains("pending"),
        "{info}"
    );
    // Once committed, the pending names are what a reader sees.
    step(&mut py);
    let mut line = String::new();
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    assert_eq!(line.trim(), "committed");
    assert!(run_counts(&file).iter().all(|(name, _)| name == "pending"));
    step(&mut py);
    assert!(py.wait().unwrap().success());
}

/// Issue 38: in the rollback-journal mode (Karenina's default), a write
/// larger than SQLite's page cache spills into the file before it commits.
/// Read `immutable`, those bytes gave values later rolled back or "database
/// disk image is malformed"; read with SQLite's locks, kld waits for the
/// writer and then says the file is locked, reads what was committed once
/// the lock goes, and refuses a journal left hot by a writer that died.
#[test]
#[ignore = "interop: needs python3 (sqlite3 holds a write transaction that spills into the file): cargo test -- --include-ignored"]
fn a_rollback_journal_database_mid_write_never_shows_rolled_back_values() {
    let d = tempfile::tempdir().unwrap();
    let file = copy_to(d.path(), &db());
    let before = run_counts(&file);
    let (mut py, _out) = holding(
        &file,
        "c.execute('PRAGMA cache_size=2')\n\
         c.execute('BEGIN IMMEDIATE')\n\
         c.execute(\"UPDATE verification_runs SET run_name = 'rolledback-' || run_name\")\n\
         c.execute(\"UPDATE verification_results SET metadata_question_text = \
                     'rolledback' || hex(randomblob(2000))\")\n\
         print('ready', flush=True)\n\
         step()\n\
         c.execute('ROLLBACK')\n\
         print('done', flush=True)\n",
    );
    let mut journal = file.as_os_str().to_owned();
    journal.push("-journal");
    assert!(Path::new(&journal).exists(), "the write has its journal");
    // A copy of the file and its journal as they are now: what a writer
    // that died leaves (a hot journal).
    let crashed = d.path().join("crashed");
    std::fs::create_dir(&crashed).unwrap();
    let hot = copy_to(&crashed, &file);
    std::fs::copy(&journal, crashed.join("karenina.db-journal")).unwrap();
    for args in [
        &["query", "-n", "runs"][..],
        &["info"],
        &["export", "-f", "nq"],
    ] {
        let out = crate::kld()
            .args(args)
            .arg(&file)
            .env("KLD_SQLITE_BUSY", "0.2")
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(!out.status.success(), "{args:?}: {stdout}");
        assert!(
            !stdout.contains("rolledback") && !stderr.contains("malformed"),
            "{args:?}: {stdout}{stderr}"
        );
        assert!(
            stderr.contains(file.to_str().unwrap())
                && stderr.contains("error[KLD-E204]: results database locked by another process")
                && stderr.contains("KLD_SQLITE_BUSY"),
            "{args:?}: {stderr}"
        );
    }
    // A reader that waits long enough reads what is committed once the
    // writer rolls back (whether it started waiting before or after).
    let waiting = std::process::Command::new(assert_cmd::cargo::cargo_bin("kld"))
        .args(["query", "--format", "json", "-n", "runs"])
        .arg(&file)
        .env("KLD_SQLITE_BUSY", "120")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    step(&mut py);
    assert!(py.wait().unwrap().success());
    let out = waiting.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("rolledback"));
    assert_eq!(run_counts(&file), before);
    // The hot journal: refused, named, never read past.
    let out = crate::kld().arg("info").arg(&hot).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("error[KLD-E202]")
            && stderr.contains("rollback journal is left beside the file"),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("rolledback"));
}

/// `serve --watch` follows commits that stay in the write-ahead log (WAL
/// mode, no checkpoint yet): the file's own bytes do not change.
#[test]
#[ignore = "interop: needs python3 (sqlite3 commits in WAL mode): cargo test -- --include-ignored"]
fn serve_watch_follows_commits_in_the_write_ahead_log() {
    let d = tempfile::tempdir().unwrap();
    let file = copy_to(d.path(), &db());
    let first = runs()[0].0.id.clone();
    // In WAL mode before the server starts, as Karenina's database would be.
    let (mut py, mut out) = holding(
        &file,
        &format!(
            "c.execute('PRAGMA journal_mode=WAL')\n\
             c.execute('PRAGMA wal_autocheckpoint=0')\n\
             print('ready', flush=True)\n\
             step()\n\
             c.execute(\"UPDATE verification_runs SET run_name = 'renamed in the log' WHERE id = '{first}'\")\n\
             print('committed', flush=True)\n\
             step()\n"
        ),
    );
    let server = crate::serve::serve(std::slice::from_ref(&file), &["--watch"]);
    let client = reqwest::blocking::Client::new();
    let names = || {
        crate::serve::select_column(
            &client,
            &server.base,
            "SELECT ?n WHERE { GRAPH ?g { ?r <urn:karenina:vocab:manifestRunName> ?n } } ORDER BY ?n",
            "n",
        )
    };
    assert!(!names().contains(&"renamed in the log".to_string()));
    let bytes = std::fs::read(&file).unwrap();
    step(&mut py);
    let mut line = String::new();
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    assert_eq!(line.trim(), "committed");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        bytes,
        "the commit is in the log only"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !names().contains(&"renamed in the log".to_string())
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(
        names().contains(&"renamed in the log".to_string()),
        "{:?}",
        names()
    );
    step(&mut py);
    assert!(py.wait().unwrap().success());
}

/// A value Karenina refuses, written while `serve --watch` follows the
/// database: the run stays loaded without it and `/errors` locates it.
#[test]
#[ignore = "interop: needs python3 (sqlite3 writes as Karenina does): cargo test -- --include-ignored"]
fn serve_watch_shows_a_bad_value_written_into_the_database_and_keeps_the_run() {
    let d = tempfile::tempdir().unwrap();
    let file = copy_to(d.path(), &db());
    let run = runs()[0].0.clone();
    let server = crate::serve::serve(std::slice::from_ref(&file), &["--watch"]);
    let client = reqwest::blocking::Client::new();
    karenina_writes(
        &file,
        &format!(
            "UPDATE verification_results SET rubric_llm_trait_scores = '{{\"conciseness\": tru'
             WHERE id = (SELECT MIN(id) FROM verification_results WHERE run_id = '{}');",
            run.id
        ),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let errors = loop {
        let e: Value = client
            .get(format!("{}/errors", server.base))
            .send()
            .unwrap()
            .json()
            .unwrap();
        if !e["errors"].as_array().unwrap().is_empty() || std::time::Instant::now() > deadline {
            break e;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let message = errors["errors"][0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("error[KLD-E203] at verification_results row id")
            && message.contains("column rubric_llm_trait_scores: malformed JSON"),
        "{errors}"
    );
    let n = crate::serve::select_column(
        &client,
        &server.base,
        &format!(
            "SELECT (COUNT(?x) AS ?n) WHERE {{ GRAPH ?g {{ ?r <urn:karenina:vocab:runId> \"{}\" .
               ?x <urn:karenina:vocab:resultId> ?id }} }}",
            run.id
        ),
        "n",
    );
    assert_eq!(n, [run.results.to_string()]);
}
