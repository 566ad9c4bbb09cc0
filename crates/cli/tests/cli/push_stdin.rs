//! `kld push -` (issue 30): a checkpoint read from standard input is pushed
//! as the graph `<file:///dev/stdin>`, as `kld load -` names it, and comes
//! back from the server as the same bytes.

use crate::kld;
use crate::remote::Oxigraph;
use std::path::Path;

#[test]
#[ignore = "interop: needs the Oxigraph server (pip oxigraph): cargo test -- --include-ignored"]
fn push_dash_reads_a_checkpoint_from_stdin() {
    let data = tempfile::tempdir().unwrap();
    let o = Oxigraph::start(&data.path().join("db"));
    let probe = Path::new(env!("KLD_SOURCE_ROOT")).join("examples/probe.jsonld");
    let bytes = std::fs::read(&probe).unwrap();
    let push = || {
        kld()
            .arg("push")
            .args(o.server())
            .arg("-")
            .write_stdin(bytes.clone())
            .output()
            .unwrap()
    };
    let first = push();
    let err = String::from_utf8_lossy(&first.stderr).into_owned();
    assert!(first.status.success(), "{err}");
    assert!(
        err.contains("kld push: 1 sent, 0 unchanged, 0 deleted, 0 failed"),
        "{err}"
    );
    // The server holds it under stdin's graph name, with every question.
    let questions = kld()
        .args(["query"])
        .args(o.server())
        .args(["--named", "questions", "--format", "csv"])
        .output()
        .unwrap();
    let text = String::from_utf8(questions.stdout).unwrap();
    let local = kld()
        .args(["query", "--named", "questions", "--format", "csv"])
        .arg(&probe)
        .output()
        .unwrap();
    let local = String::from_utf8(local.stdout).unwrap();
    let named = local.replace(
        &format!("file://{}", probe.canonicalize().unwrap().display()),
        "file:///dev/stdin",
    );
    assert!(text.lines().count() > 2, "{text}");
    assert_eq!(text, named);
    // Extracted back: the bytes that were pushed (the example is canonical).
    let back = kld()
        .arg("extract")
        .args(o.server())
        .args(["file:///dev/stdin", "-o", "-"])
        .output()
        .unwrap();
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    assert_eq!(back.stdout, bytes);
    // The same bytes again: unchanged, nothing sent.
    let again = push();
    let err = String::from_utf8_lossy(&again.stderr).into_owned();
    assert!(err.contains("0 sent, 1 unchanged"), "{err}");
}
