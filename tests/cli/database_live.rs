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
#[ignore = "interop tier, needs python3 (sqlite3 writes as Karenina does): cargo test -- --include-ignored"]
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
#[ignore = "interop tier, needs python3 (sqlite3 holds a write transaction): cargo test -- --include-ignored"]
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
