//! The pipelined load (`CheckpointStore::load_files_until`): files are read
//! on some threads and inserted on one, the inserted quads freed on another.
//! Whatever the threads do, the store must hold each file's graph whole, as
//! the file read alone gives it; and a load stopped midway (the caller's
//! token, Ctrl-C in the Python package) keeps whole files only.

use karenina_ld::oxigraph::model::Quad;
use karenina_ld::rdf::Processor;
use karenina_ld::store::{self, CheckpointStore};
use karenina_ld::Error;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The corpus's checkpoints and results exports (JSON): both kinds of
/// content.
fn inputs() -> Vec<PathBuf> {
    let corpus = crate::common::corpus();
    let mut files = crate::common::jsonld_in(&corpus.join("loads"));
    files.extend(
        crate::common::corpus_files("results")
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .filter(|p| !p.to_string_lossy().ends_with(".expect.json"))
            .filter(|p| !p.ends_with("INDEX.json")),
    );
    files
}

/// The file read alone, as the store would hold its graph (blank nodes
/// are named afresh by each read: graphs compare by isomorphism).
fn alone(path: &std::path::Path) -> (String, Vec<Quad>) {
    let p = store::prepare(path, Processor::Direct).unwrap();
    let name = p.info.graph.clone();
    (name, p.into_quads().unwrap())
}

/// Whether the store holds graph `name` as `quads`, exactly.
fn holds(store: &CheckpointStore, name: &str, quads: &[Quad]) -> bool {
    let held = store.graph_quads(name).unwrap();
    held.len() == quads.len() && karenina_ld::rdf::isomorphic(&held, quads)
}

#[test]
fn every_graph_of_a_pipelined_load_is_its_file_read_alone() {
    let files = inputs();
    let mut store = CheckpointStore::in_memory().unwrap();
    let loaded = store.load_files(&files, Processor::Direct, &|_, _| ());
    let mut compared = 0;
    for (file, r) in &loaded {
        let Ok(info) = r else { continue };
        let (name, quads) = alone(file);
        assert_eq!(info.graph, name, "{}", file.display());
        assert_eq!(info.quads, quads.len(), "{}", file.display());
        assert!(holds(&store, &name, &quads), "{}", file.display());
        compared += 1;
    }
    assert!(compared > 20, "only {compared} files loaded");
}

#[test]
fn a_load_stopped_before_it_starts_changes_nothing() {
    let files = inputs();
    let mut store = CheckpointStore::in_memory().unwrap();
    let stop = AtomicBool::new(true);
    let loaded = store.load_files_until(&files, Processor::Direct, &|_, _| (), &stop);
    assert_eq!(loaded.len(), files.len());
    for (file, r) in &loaded {
        assert!(
            matches!(r, Err(Error::LoadStopped)),
            "{}: {r:?}",
            file.display()
        );
    }
    assert_eq!(store.graphs().count(), 0);
    assert_eq!(store.store().len().unwrap(), 0);
}

#[test]
fn a_load_stopped_midway_keeps_whole_files_only() {
    let files = inputs();
    let mut store = CheckpointStore::in_memory().unwrap();
    let stop = AtomicBool::new(false);
    let seen = AtomicUsize::new(0);
    // Stopped from the progress callback once three files are done: the
    // files read meanwhile, still waiting to be inserted, are not inserted.
    let loaded = store.load_files_until(
        &files,
        Processor::Direct,
        &|done, _| {
            seen.store(done, Ordering::SeqCst);
            if done == 3 {
                stop.store(true, Ordering::SeqCst);
            }
        },
        &stop,
    );
    assert_eq!(
        seen.load(Ordering::SeqCst),
        files.len(),
        "every file is reported"
    );
    let kept: Vec<_> = loaded.iter().filter(|(_, r)| r.is_ok()).collect();
    let stopped = loaded
        .iter()
        .filter(|(_, r)| matches!(r, Err(Error::LoadStopped)))
        .count();
    // The three inserted before the stop stay; every other file, read or
    // not, is stopped.
    assert_eq!(kept.len(), 3);
    assert_eq!(stopped, files.len() - 3);
    // The store holds exactly the kept files, each whole.
    let names: BTreeSet<String> = store.graphs().map(|g| g.graph.clone()).collect();
    let mut expected = BTreeSet::new();
    for (file, _) in kept {
        let (name, quads) = alone(file);
        assert!(holds(&store, &name, &quads), "{}", file.display());
        expected.insert(name);
    }
    assert_eq!(names, expected);
}
