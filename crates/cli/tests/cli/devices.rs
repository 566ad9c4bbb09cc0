//! Outputs onto what is not a regular file, pipes named as inputs, and
//! durations (issue 38, "Files and devices"; issue 40, pipes on the
//! command line): `-o` onto a FIFO or a device writes through and leaves
//! it what it was, `-o /dev/stdout` and `-o -` are standard output on every
//! command that takes `-o`, a pipe named as an argument is read as a file,
//! and an absurd `--timeout` is a usage error, never a panic.

use crate::hostile_files::mkfifo;
use crate::kld;
use crate::manners::example;
use std::io::Write;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Longer than any command here takes; a hang fails instead of freezing.
const LIMIT: Duration = Duration::from_secs(60);

/// The commands that take `-o`, each writing the probe somewhere: `-o`
/// and the output go last. `store` holds the probe (for extract).
fn writers(store: &Path, graph: &str) -> Vec<Vec<String>> {
    let probe = example("probe.jsonld").display().to_string();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        s(&["export", &probe, "-f", "nq", "--canonical"]),
        s(&["export", &probe, "-f", "inspect"]),
        s(&[
            "query",
            &probe,
            "--named",
            "benchmark-stats",
            "--format",
            "tsv",
        ]),
        s(&["canon", &probe]),
        s(&["extract", "--store", &store.display().to_string(), graph]),
    ]
}

/// A store holding the probe, and the probe's graph IRI.
fn probe_store(dir: &Path) -> (PathBuf, String) {
    let store = dir.join("store");
    let out = kld()
        .args(["load", "--store"])
        .arg(&store)
        .arg(example("probe.jsonld"))
        .timeout(LIMIT)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let graph = text.split('\t').next().unwrap().trim().to_string();
    assert!(graph.starts_with("file://"), "{text}");
    (store, graph)
}

/// Runs `args` with `-o target`; returns its stdout after checking success.
fn write_to(args: &[String], target: &Path) -> Vec<u8> {
    let out = kld()
        .args(args)
        .arg("-o")
        .arg(target)
        .timeout(LIMIT)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !stderr.contains("panicked"),
        "{args:?} -o {}: {stderr}",
        target.display()
    );
    out.stdout
}

/// What each command writes to stdout when given no `-o` (the reference).
fn plain(args: &[String]) -> Vec<u8> {
    let out = kld().args(args).timeout(LIMIT).output().unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    out.stdout
}

/// Lines without the parts that change from run to run (load times).
fn stable(b: &[u8]) -> Vec<String> {
    let mut l: Vec<String> = String::from_utf8_lossy(b)
        .lines()
        .filter(|l| !l.contains("loadedAt") && !l.contains("prov#"))
        .map(str::to_string)
        .collect();
    l.sort();
    l
}

#[test]
fn output_onto_a_fifo_writes_through_to_its_reader_and_leaves_a_fifo() {
    let d = tempfile::tempdir().unwrap();
    let (store, graph) = probe_store(d.path());
    for args in writers(&store, &graph) {
        let fifo = d.path().join("out.pipe");
        mkfifo(&fifo);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        let stdout = write_to(&args, &fifo);
        let got = reader.join().unwrap();
        assert!(stdout.is_empty(), "{args:?}");
        assert_eq!(stable(&got), stable(&plain(&args)), "{args:?}");
        assert!(!got.is_empty(), "{args:?}");
        let t = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(t.is_fifo(), "{args:?}: the FIFO became {t:?}");
        std::fs::remove_file(&fifo).unwrap();
        // Nothing left beside it: no temporary file was made.
        let left: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .filter(|n| n != "store")
            .collect();
        assert!(left.is_empty(), "{args:?}: {left:?}");
    }
}

#[test]
fn output_onto_a_device_node_leaves_a_device_when_run_as_root() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: mknod needs root (CI runs this as root)");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let (store, graph) = probe_store(d.path());
    let node = d.path().join("null");
    let c = std::ffi::CString::new(node.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path; char device 1,3 is /dev/null's.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    assert_eq!(made, 0, "{}", std::io::Error::last_os_error());
    for args in writers(&store, &graph) {
        write_to(&args, &node);
        let m = std::fs::symlink_metadata(&node).unwrap();
        assert!(m.file_type().is_char_device(), "{args:?}: {m:?}");
        use std::os::unix::fs::MetadataExt;
        assert_eq!(m.rdev(), libc::makedev(1, 3), "{args:?}");
    }
    // The machine's own /dev/null too.
    write_to(&writers(&store, &graph)[0], Path::new("/dev/null"));
    assert!(std::fs::symlink_metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
}

#[test]
fn dash_o_dev_stdout_and_dash_o_dash_are_standard_output_on_every_command() {
    let d = tempfile::tempdir().unwrap();
    let (store, graph) = probe_store(d.path());
    for args in writers(&store, &graph) {
        let want = stable(&plain(&args));
        for target in ["/dev/stdout", "-"] {
            let got = write_to(&args, Path::new(target));
            assert_eq!(stable(&got), want, "{args:?} -o {target}");
            assert!(!d.path().join("-").exists());
        }
    }
    // /dev/stdout redirected to a file appends as the shell set it up.
    let file = d.path().join("log.txt");
    std::fs::write(&file, b"before\n").unwrap();
    let append = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    let args = &writers(&store, &graph)[3];
    let st = std::process::Command::new(env!("CARGO_BIN_EXE_kld"))
        .args(args)
        .args(["-o", "/dev/stdout"])
        .stdout(append)
        .status()
        .unwrap();
    assert!(st.success());
    let text = std::fs::read(&file).unwrap();
    assert!(
        text.starts_with(b"before\n") && text.len() > 100,
        "{}",
        text.len()
    );
}

#[test]
fn a_pipe_named_on_the_command_line_is_read_as_a_file() {
    let d = tempfile::tempdir().unwrap();
    let probe = example("probe.jsonld");
    let bytes = std::fs::read(&probe).unwrap();
    // As `kld diff <(git show HEAD:a.jsonld) a.jsonld` passes it.
    for cmd in [
        &["diff"][..],
        &["validate"],
        &["info"],
        &["hash"],
        &["canon", "--check"],
    ] {
        let fifo = d.path().join("a.jsonld");
        mkfifo(&fifo);
        let writer = {
            let (fifo, bytes) = (fifo.clone(), bytes.clone());
            std::thread::spawn(move || {
                let mut f = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
                f.write_all(&bytes).unwrap();
            })
        };
        let mut c = kld();
        c.args(cmd).arg(&fifo).timeout(LIMIT);
        if cmd == ["diff"] {
            c.arg(&probe);
        }
        let out = c.output().unwrap();
        writer.join().unwrap();
        assert_eq!(out.status.code(), Some(0), "{cmd:?}: {out:?}");
        std::fs::remove_file(&fifo).unwrap();
    }
    // A pipe found by a directory walk is still reported and skipped.
    let dir = d.path().join("walk");
    std::fs::create_dir(&dir).unwrap();
    mkfifo(&dir.join("b.jsonld"));
    let out = kld()
        .arg("validate")
        .arg(&dir)
        .timeout(LIMIT)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("FIFO"));
    // A device named is refused at once, never read.
    let out = kld()
        .args(["validate", "/dev/zero"])
        .timeout(LIMIT)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("character device"));
}

#[test]
fn a_pipe_longer_than_the_size_cap_is_refused_not_read_to_the_end() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("big.jsonld");
    mkfifo(&fifo);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            // Endless, as /dev/zero behind a pipe: the reader must stop.
            let block = vec![b' '; 1 << 16];
            while f.write_all(&block).is_ok() {}
        })
    };
    let out = kld()
        .args(["validate"])
        .arg(&fifo)
        .env("KLD_MAX_FILE_SIZE", "1M")
        .timeout(LIMIT)
        .output()
        .unwrap();
    writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("KLD_MAX_FILE_SIZE"), "{stderr}");
}

#[test]
fn absurd_nan_and_negative_timeouts_are_usage_errors_not_panics() {
    let probe = example("probe.jsonld");
    for t in ["1e20", "NaN", "-1", "inf", "0", "1e300"] {
        let out = kld()
            .arg("query")
            .arg(&probe)
            .args(["--named", "benchmark-stats", &format!("--timeout={t}")])
            .timeout(LIMIT)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "query --timeout {t}: {stderr}");
        assert!(
            stderr.contains("--timeout") && !stderr.contains("panicked"),
            "{stderr}"
        );
        // serve refuses it before binding a port.
        let out = kld()
            .arg("serve")
            .arg(&probe)
            .args(["--bind", "127.0.0.1:0", &format!("--timeout={t}")])
            .timeout(LIMIT)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "serve --timeout {t}: {stderr}");
        assert!(stderr.contains("--timeout"), "{stderr}");
    }
    // Environment durations past what a clock holds fall back to defaults.
    let out = kld()
        .arg("load")
        .arg("--store")
        .arg(tempfile::tempdir().unwrap().path().join("s"))
        .arg(&probe)
        .env("KLD_STORE_WAIT", "1e20")
        .timeout(LIMIT)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}
