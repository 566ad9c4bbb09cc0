//! Hostile files, neighbours and terminals (issue 31): FIFOs, devices and
//! oversized files as inputs, a database whose `questions` recurses without
//! end, two writers in one store directory, killed writers, in-place writes
//! through symlinks and hard links, and checkpoint text holding terminal
//! control sequences. Every case ends by itself (a timeout on every
//! command), with a message and an exit code.

use crate::common::*;
use crate::{copy_to, kld};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Longer than any command here takes; a hang fails the test instead of
/// freezing it.
const LIMIT: Duration = Duration::from_secs(60);

pub(crate) fn mkfifo(p: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

pub(crate) fn probe() -> PathBuf {
    corpus().join("loads/karenina-output__probe_default.jsonld")
}

/// Runs kld with `args`, bounded; returns (exit code, stderr).
fn run(args: &[&std::ffi::OsStr], env: &[(&str, &str)]) -> (i32, String) {
    let mut c = kld();
    c.args(args).timeout(LIMIT);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    let code = out
        .status
        .code()
        .unwrap_or_else(|| panic!("{args:?} killed (a hang?): {stderr}"));
    (code, stderr)
}

/// stdout of kld with `args`, bounded, which must exit with `code`.
fn stdout_with(args: &[&std::ffi::OsStr], code: i32) -> String {
    let out = kld().args(args).timeout(LIMIT).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

#[test]
fn fifos_and_devices_are_refused_by_every_command_without_hanging() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("in");
    std::fs::create_dir(&dir).unwrap();
    copy_to(&dir, &probe());
    let fifo = dir.join("pipe.jsonld");
    mkfifo(&fifo);
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.jsonld")).unwrap();
    let store = d.path().join("store");
    let dir_s = dir.as_os_str();
    // A FIFO *named* is read as a file (devices.rs); one found in a
    // scanned directory is reported.
    let cases: Vec<Vec<&std::ffi::OsStr>> = vec![
        vec![os("validate"), os("/dev/zero")],
        vec![os("info"), os("/dev/urandom")],
        vec![os("canon"), os("--check"), os("/dev/zero")],
        vec![os("validate"), dir_s],
        vec![os("canon"), os("--check"), dir_s],
        vec![os("query"), dir_s, os("--named"), os("benchmark-stats")],
        vec![os("load"), os("--store"), store.as_os_str(), dir_s],
    ];
    for args in cases {
        let (code, stderr) = run(&args, &[]);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains("not a regular file")
                && (stderr.contains("FIFO") || stderr.contains("character device")),
            "{args:?}: {stderr}"
        );
        // A scanned directory reports both and goes on with the good file.
        if args.contains(&dir_s) {
            assert!(
                stderr.contains("pipe.jsonld") && stderr.contains("zero.jsonld"),
                "{args:?}: {stderr}"
            );
        }
    }
    // The batch went on: the regular checkpoint is in the store.
    let index = std::fs::read_to_string(store.join("index.tsv")).unwrap();
    assert_eq!(index.lines().count(), 2, "{index}");
}

#[test]
fn a_file_over_the_size_cap_is_refused_and_the_cap_can_be_raised() {
    let d = tempfile::tempdir().unwrap();
    let f = copy_to(d.path(), &probe());
    let (code, stderr) = run(
        &[os("validate"), f.as_os_str()],
        &[("KLD_MAX_FILE_SIZE", "1K")],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("over the limit of 1024 bytes") && stderr.contains("KLD_MAX_FILE_SIZE"),
        "{stderr}"
    );
    let (code, stderr) = run(
        &[os("validate"), f.as_os_str()],
        &[("KLD_MAX_FILE_SIZE", "1M")],
    );
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_run_folder_whose_results_file_is_a_fifo_is_an_error_not_no_results() {
    let d = tempfile::tempdir().unwrap();
    let run_dir = d.path().join("run");
    std::fs::create_dir(&run_dir).unwrap();
    let src = data("runs/root/completed_20261122T080100Z");
    std::fs::copy(
        src.join("run_manifest.json"),
        run_dir.join("run_manifest.json"),
    )
    .unwrap();
    mkfifo(&run_dir.join("results.json"));
    for args in [
        vec![os("info"), run_dir.as_os_str()],
        vec![os("query"), run_dir.as_os_str(), os("--named"), os("runs")],
    ] {
        let (code, stderr) = run(&args, &[]);
        assert_ne!(code, 0, "{args:?}: {stderr}");
        assert!(
            stderr.contains("results.json") && stderr.contains("FIFO"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_database_whose_questions_table_is_a_recursive_view_is_a_located_error() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("karenina.db");
    std::fs::copy(data("runs/karenina.db"), &db).unwrap();
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(
        "DROP TABLE questions;
         CREATE VIEW questions AS WITH RECURSIVE n(id) AS (SELECT 'x' UNION ALL SELECT id || 'x' FROM n) SELECT id FROM n;",
    )
    .unwrap();
    drop(c);
    let store = d.path().join("store");
    for args in [
        vec![os("info"), db.as_os_str()],
        vec![os("load"), os("--store"), store.as_os_str(), db.as_os_str()],
        vec![os("query"), db.as_os_str(), os("--named"), os("runs")],
    ] {
        let t = std::time::Instant::now();
        let (code, stderr) = run(&args, &[]);
        assert_ne!(code, 0, "{args:?}: {stderr}");
        assert!(
            stderr.contains(&db.display().to_string())
                && stderr.contains("error[KLD-E202]")
                && stderr.contains("`questions` is a view"),
            "{args:?}: {stderr}"
        );
        assert!(t.elapsed() < LIMIT, "{args:?}");
    }
}

/// `n` copies of the probe checkpoint under `dir` (each its own graph).
pub(crate) fn copies(dir: &Path, n: usize) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    (0..n)
        .map(|i| {
            let p = dir.join(format!("c{i}.jsonld"));
            std::fs::copy(probe(), &p).unwrap();
            p
        })
        .collect()
}

/// The graph files `index.tsv` names, and those in `graphs/`.
fn index_and_files(store: &Path) -> (Vec<String>, Vec<String>) {
    let index = std::fs::read_to_string(store.join("index.tsv")).unwrap();
    let mut named: Vec<String> = index
        .lines()
        .skip(1)
        .map(|l| {
            l.split('\t')
                .nth(5)
                .unwrap()
                .trim_start_matches("graphs/")
                .to_string()
        })
        .collect();
    named.sort();
    let mut files: Vec<String> = std::fs::read_dir(store.join("graphs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    (named, files)
}

/// `kld load --store STORE FILES` started (stderr piped).
fn spawn_load(store: &Path, files: &[PathBuf]) -> std::process::Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("kld"))
        .arg("load")
        .arg("--store")
        .arg(store)
        .args(files)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn twenty_rounds_of_two_concurrent_loads_lose_nothing() {
    let d = tempfile::tempdir().unwrap();
    let a = copies(&d.path().join("a"), 4);
    let b = copies(&d.path().join("b"), 4);
    for round in 0..20 {
        let store = d.path().join(format!("store{round}"));
        let (pa, pb) = (spawn_load(&store, &a), spawn_load(&store, &b));
        for p in [pa, pb] {
            let out = p.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let (named, files) = index_and_files(&store);
        assert_eq!(named.len(), 8, "round {round}: {named:?}");
        assert_eq!(named, files, "round {round}: index and graph files differ");
    }
}

#[test]
fn a_second_writer_is_told_the_store_is_busy_and_leftovers_are_cleaned_on_open() {
    let d = tempfile::tempdir().unwrap();
    let files = copies(&d.path().join("in"), 2);
    let store = d.path().join("store");
    let load = |env: &[(&str, &str)]| {
        let mut args = vec![os("load"), os("--store"), store.as_os_str()];
        args.extend(files.iter().map(|f| f.as_os_str()));
        run(&args, env)
    };
    assert_eq!(load(&[]).0, 0);
    // Another process holds the lock.
    let lock = std::fs::File::open(store.join(".lock")).unwrap();
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) }, 0);
    let t = std::time::Instant::now();
    let (code, stderr) = load(&[("KLD_STORE_WAIT", "0.5")]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("store busy"), "{stderr}");
    assert!(t.elapsed() >= Duration::from_millis(500));
    drop(lock);
    // What a killed load leaves: a graph file the index does not name, and
    // a dead process's temporary file.
    let orphan = store.join("graphs/0123456789abcdef0123.nq");
    let tmp = store.join(".kld-2147483600.abcdef.tmp");
    std::fs::write(&orphan, b"").unwrap();
    std::fs::write(&tmp, b"half").unwrap();
    let (code, stderr) = load(&[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("removed 2 files left by an interrupted load"),
        "{stderr}"
    );
    assert!(!orphan.exists() && !tmp.exists());
    let (named, files) = index_and_files(&store);
    assert_eq!((named.len(), &named), (2, &files));
}

/// A non-canonical checkpoint of about `mb` MB: the probe, compact, with a
/// long description.
fn big_noncanonical(mb: usize) -> Vec<u8> {
    let text = std::fs::read_to_string(probe()).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let words = "a long description ".repeat(mb * (1 << 20) / 19);
    v["description"] = serde_json::Value::String(words);
    serde_json::to_vec(&v).unwrap()
}

#[test]
fn canon_in_place_writes_through_a_symlink_keeps_mode_and_owner_and_names_split_links() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("real.jsonld");
    std::fs::write(&target, big_noncanonical(0)).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o604)).unwrap();
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        std::os::unix::fs::chown(&target, Some(4242), Some(4343)).unwrap();
    }
    let link = d.path().join("link.jsonld");
    std::os::unix::fs::symlink("real.jsonld", &link).unwrap();
    let (code, stderr) = run(&[os("canon"), os("--in-place"), link.as_os_str()], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let canonical = std::fs::read(&target).unwrap();
    let expected = kld()
        .arg("canon")
        .arg(&target)
        .timeout(LIMIT)
        .output()
        .unwrap()
        .stdout;
    assert_eq!(canonical, expected);
    let m = std::fs::metadata(&target).unwrap();
    assert_eq!(m.mode() & 0o777, 0o604);
    if root {
        assert_eq!((m.uid(), m.gid()), (4242, 4343));
    }
    // A file with another hard link: replaced, and said so.
    std::fs::write(&target, big_noncanonical(0)).unwrap();
    let other = d.path().join("other.jsonld");
    std::fs::hard_link(&target, &other).unwrap();
    let (code, stderr) = run(&[os("canon"), os("--in-place"), target.as_os_str()], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("written as a new file: its 1 other hard link keep the old content"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&target).unwrap(), expected);
    assert_eq!(std::fs::read(&other).unwrap(), big_noncanonical(0));
}

#[test]
fn fifty_sigkills_of_canon_in_place_leave_the_old_or_the_new_file_and_no_temporary() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("big.jsonld");
    let old = big_noncanonical(4);
    std::fs::write(&f, &old).unwrap();
    let new = kld()
        .arg("canon")
        .arg(&f)
        .timeout(LIMIT)
        .output()
        .unwrap()
        .stdout;
    assert_ne!(new, old);
    let bin = assert_cmd::cargo::cargo_bin("kld");
    // How long a whole run takes: kills fall anywhere in it.
    let t = std::time::Instant::now();
    assert!(std::process::Command::new(&bin)
        .args(["canon", "--in-place"])
        .arg(&f)
        .status()
        .unwrap()
        .success());
    let span = t.elapsed().as_micros() as u64 + 1;
    // A small deterministic generator (xorshift), seeded by the clock.
    let mut x = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    let mut killed_mid_write = 0;
    for round in 0..50 {
        std::fs::write(&f, &old).unwrap();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let at = Duration::from_micros(x % span);
        let mut child = std::process::Command::new(&bin)
            .args(["canon", "--in-place"])
            .arg(&f)
            .spawn()
            .unwrap();
        std::thread::sleep(at);
        // SAFETY: kill on our own child's pid.
        unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
        child.wait().unwrap();
        let now = std::fs::read(&f).unwrap();
        assert!(
            now == old || now == new,
            "round {round}: a torn file ({} bytes)",
            now.len()
        );
        let temps = std::fs::read_dir(d.path())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with(".kld-")
            })
            .count();
        killed_mid_write += temps;
    }
    eprintln!(
        "50 kills over a {} ms run: {killed_mid_write} left a temporary file",
        span / 1000
    );
    // The next run removes what the killed ones left.
    std::fs::write(&f, &new).unwrap();
    let (code, stderr) = run(&[os("canon"), os("--in-place"), f.as_os_str()], &[]);
    assert_eq!(code, 0, "{stderr}");
    let names: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec!["big.jsonld".to_string()],
        "(killed mid-write: {killed_mid_write})"
    );
}

/// The probe with its first question's text replaced by `text`.
fn probe_with_question(dir: &Path, name: &str, text: &str) -> PathBuf {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(probe()).unwrap()).unwrap();
    v["dataFeedElement"][0]["item"]["text"] = serde_json::Value::String(text.into());
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    p
}

/// Escape sequences kld's own colours use: `ESC [ digits m`.
fn only_colour_escapes(out: &str) -> bool {
    out.split('\x1b').skip(1).all(|rest| {
        rest.strip_prefix('[')
            .and_then(|r| r.split_once('m'))
            .is_some_and(|(digits, _)| digits.chars().all(|c| c.is_ascii_digit()))
    })
}

#[test]
fn checkpoint_text_reaches_the_terminal_with_its_control_characters_escaped() {
    let d = tempfile::tempdir().unwrap();
    // (Longer than a short value: shown as a word diff of the raw text.)
    let hostile = "Which city is the capital of France, the country in western Europe, today? \x1b[2J\x1b]52;c;aGFjaw==\x07\x1b]8;;https://evil.invalid\x1b\\click\x1b]8;;\x1b\\\rover\u{8}\u{9b}31m";
    let a = probe_with_question(d.path(), "a.jsonld", "What is the capital of France?");
    let b = probe_with_question(d.path(), "b.jsonld", hostile);
    let unsafe_chars = |s: &str| {
        s.chars()
            .filter(|c| karenina_ld::terminal::is_unsafe(*c))
            .count()
    };
    for color in ["never", "always"] {
        let args = [
            os("diff"),
            os("--color"),
            os(color),
            a.as_os_str(),
            b.as_os_str(),
        ];
        let text = stdout_with(&args, 1);
        assert!(
            text.contains("\\x1b]52;c;aGFjaw==\\x07") && text.contains("\\r"),
            "{text}"
        );
        assert!(text.contains("\\u{9b}"), "{text}");
        assert!(!text.contains('\r') && !text.contains('\u{9b}') && !text.contains('\u{7}'));
        if color == "never" {
            assert_eq!(unsafe_chars(&text), 0, "{text:?}");
        } else {
            assert!(
                text.contains("\x1b[31m") && only_colour_escapes(&text),
                "{text:?}"
            );
        }
    }
    // canon --check prints the file's own lines: a CRLF file's CRs and a C1
    // control in a string show as escapes.
    let crlf = d.path().join("crlf.jsonld");
    let body = std::fs::read_to_string(probe_with_question(
        d.path(),
        "c1.jsonld",
        "Capital\u{9b}2J?",
    ))
    .unwrap();
    std::fs::write(&crlf, body.replace('\n', "\r\n")).unwrap();
    let text = stdout_with(&[os("canon"), os("--check"), crlf.as_os_str()], 1);
    assert_eq!(unsafe_chars(&text), 0, "{text:?}");
    assert!(
        text.contains("\\r\n") && text.contains("Capital\\u{9b}2J?"),
        "{text}"
    );
    // info shows the benchmark's name escaped.
    let mut v: serde_json::Value = serde_json::from_str(&body).unwrap();
    v["name"] = serde_json::Value::String("bench\x1b]0;pwned\x07".into());
    let named = d.path().join("named.jsonld");
    std::fs::write(&named, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let text = stdout_with(&[os("info"), named.as_os_str()], 0);
    assert!(text.contains("bench\\x1b]0;pwned\\x07"), "{text}");
    assert_eq!(unsafe_chars(&text), 0, "{text:?}");
}

#[test]
fn serve_help_says_store_changes_under_watch_are_not_written_back() {
    let help = crate::stdout_of(kld().args(["serve", "--help"]));
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            "opened read-only: changes under --watch are served from memory and never written back"
        ),
        "{help}"
    );
    assert!(!flat.contains("are written back"), "{help}");
}

#[test]
fn loads_killed_at_random_moments_leave_a_store_whose_index_and_graph_files_agree_after_the_next_load(
) {
    let d = tempfile::tempdir().unwrap();
    let batch = copies(&d.path().join("in"), 30);
    let one = copies(&d.path().join("one"), 1);
    let store = d.path().join("store");
    let load = |files: &[PathBuf]| spawn_load(&store, files);
    let t = std::time::Instant::now();
    assert!(load(&batch).wait().unwrap().success());
    let span = t.elapsed().as_micros() as u64 + 1;
    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ span;
    for round in 0..10 {
        // (A round killed before the store existed leaves none.)
        let _ = std::fs::remove_dir_all(&store);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut child = load(&batch);
        std::thread::sleep(Duration::from_micros(x % span));
        // SAFETY: kill on our own child's pid.
        unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
        child.wait().unwrap();
        if !store.join("graphs").is_dir() {
            continue;
        }
        // The next writer cleans up: every graph file is in the index.
        let (code, stderr) = run(
            &[
                os("load"),
                os("--store"),
                store.as_os_str(),
                one[0].as_os_str(),
            ],
            &[],
        );
        assert_eq!(code, 0, "round {round}: {stderr}");
        let (named, files) = index_and_files(&store);
        assert_eq!(named, files, "round {round}: {stderr}");
        assert!(!std::fs::read_dir(&store)
            .unwrap()
            .chain(std::fs::read_dir(store.join("graphs")).unwrap())
            .any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".tmp")));
    }
}
