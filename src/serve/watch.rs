//! `kld serve --watch`: re-read checkpoints that change on disk.
//!
//! Editors write a file in bursts (temp file, rename, touch), so events are
//! debounced (notify-debouncer-full) and each changed path handled once. A
//! created or changed checkpoint is read and mapped off the store, then its
//! graph replaced in one transaction: a concurrent query sees the old graph or
//! the new one, never half. A file that no longer validates keeps its old graph;
//! the error is recorded on the [`State`] (shown by `/errors` and the page) and
//! logged (once per change: the same error again is not repeated). A deleted
//! file's graph is removed. Results exports are watched too, and after every
//! change the results graphs are bound again, so a run whose checkpoint
//! arrives later is bound to it then.
//!
//! Only writes, creations, renames and deletions count: reading a file
//! (`cat`, an editor opening it, `git status`, this watcher's own reads)
//! used to start a reload loop. A file whose bytes did not change is not
//! reloaded. A single file given as a root is watched through its
//! directory, filtered by name, so atomic saves (write a temporary file,
//! rename it over) keep being seen: watching the file itself follows the
//! replaced inode and misses every save after the first.
//!
//! Deletions are followed whole: a deleted directory (`rm -rf sub/`) takes
//! every graph read from under it, and a file replaced by a directory loses
//! its graph. A watched root that is deleted stops the operating system's
//! watch, so the roots are also checked every [`ROOT_POLL`]: a deleted root's
//! graphs are removed and the deletion shown in `/errors`; when it comes back
//! (the same path, any inode) it is watched and read again. A path that is
//! not a regular file (a FIFO, a symlink to `/dev/zero`) is never opened for
//! a blocking read ([`crate::fsutil::open_regular`]): it is skipped and
//! shown in `/errors`.

use super::State;
use crate::error::Error;
use crate::rdf::Processor;
use crate::store;
use notify_debouncer_full::notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify_debouncer_full::{new_debouncer, DebounceEventResult, Debouncer, RecommendedCache};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod roots;
use roots::{check_roots, Root};

type Debounced = Debouncer<notify_debouncer_full::notify::RecommendedWatcher, RecommendedCache>;

/// A running watcher; dropping it stops watching (and its root checks).
pub struct Watcher {
    _debouncer: Arc<Mutex<Debounced>>,
    stop: Arc<AtomicBool>,
    roots: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.roots.take() {
            let _ = h.join();
        }
    }
}

/// How often the watched roots are checked for deletion and return.
pub const ROOT_POLL: Duration = Duration::from_millis(250);

/// Receives one log line per change (the CLI prints them).
pub type Log = Arc<dyn Fn(String) + Send + Sync>;

/// How long a burst of events may last before it is handled.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// Watches `roots` (files or directories, recursively) for checkpoint changes.
pub fn spawn(
    state: Arc<State>,
    roots: &[PathBuf],
    processor: Processor,
    log: Log,
) -> crate::error::Result<Watcher> {
    // Directories are watched recursively; single files through their
    // directory, filtered by name.
    let mut dirs = Vec::new();
    let mut files = BTreeSet::new();
    for r in roots {
        let r = std::fs::canonicalize(r).map_err(|e| Error::io(r, e))?;
        if r.is_dir() {
            dirs.push(r);
        } else {
            files.insert(r);
        }
    }
    let (watched_dirs, watched_files) = (dirs.clone(), files.clone());
    let handler_state = state.clone();
    let handler_log = log.clone();
    let mut debouncer = new_debouncer(DEBOUNCE, None, move |res: DebounceEventResult| match res {
        Ok(events) => {
            let paths: BTreeSet<PathBuf> = events
                .iter()
                .filter(|e| changes_content(&e.kind))
                .flat_map(|e| e.paths.iter().cloned())
                // A database's journal stands for the database (a single
                // file watched included).
                .map(|p| {
                    database_of(&p)
                        .or_else(|| state_of(&p))
                        .or_else(|| repaired_export_of(&p).filter(|e| e.is_file()))
                        .unwrap_or(p)
                })
                .filter(|p| {
                    watched_files.contains(p) || watched_dirs.iter().any(|d| p.starts_with(d))
                })
                // A file of a run folder (manifest, results, sidecar,
                // workspace manifest) reloads the folder; a repair sidecar
                // its export.
                .map(|p| run_folder_of(&p).unwrap_or(p))
                .filter(|p| watched_path(&handler_state, p))
                .collect();
            for p in paths {
                handle(&handler_state, &p, processor, &handler_log);
            }
        }
        Err(errors) => {
            for e in errors {
                handler_log(format!("watch: {e}"));
            }
        }
    })
    .map_err(|e| Error::Usage(format!("cannot watch files: {e}")))?;
    let parents: BTreeSet<PathBuf> = files
        .iter()
        .filter_map(|f| f.parent().map(Path::to_path_buf))
        .filter(|p| !dirs.iter().any(|d| p.starts_with(d)))
        .collect();
    let watches: Vec<Root> = dirs
        .iter()
        .map(|d| Root::new(d.clone(), None))
        .chain(parents.iter().map(|p| {
            let in_it = files.iter().filter(|f| f.parent() == Some(p)).cloned();
            Root::new(p.clone(), Some(in_it.collect()))
        }))
        .collect();
    for r in &watches {
        debouncer
            .watch(&r.dir, r.mode())
            .map_err(|e| Error::Usage(format!("cannot watch {}: {e}", r.dir.display())))?;
    }
    let debouncer = Arc::new(Mutex::new(debouncer));
    let stop = Arc::new(AtomicBool::new(false));
    let poller = {
        let (debouncer, stop) = (debouncer.clone(), stop.clone());
        std::thread::Builder::new()
            .name("kld-watch-roots".into())
            .spawn(move || check_roots(watches, &debouncer, &stop, &state, processor, &log))
            .map_err(|e| Error::Usage(format!("cannot watch files: {e}")))?
    };
    Ok(Watcher {
        _debouncer: debouncer,
        stop,
        roots: Some(poller),
    })
}

/// Removes every graph read from `path` or from under it (a directory),
/// and the errors recorded for them; returns how many graphs went.
fn remove_under(state: &State, path: &Path) -> usize {
    let under = |source: &str| {
        let s = Path::new(source);
        // (A database run's source, `DB#run=<id>`, is under DB's directory.)
        s == path || s.starts_with(path)
    };
    for e in state.errors() {
        if under(&e.file) && Path::new(&e.file) != path {
            state.set_error(&e.file, None);
        }
    }
    state.with_store_mut(|s| {
        let graphs: Vec<String> = s
            .graphs()
            .filter(|g| under(&g.source))
            .map(|g| g.graph.clone())
            .collect();
        graphs
            .iter()
            .filter(|g| s.remove(g).unwrap_or(false))
            .count()
    })
}

/// True when graphs were read from `path` or from under it.
fn has_graphs_under(state: &State, path: &Path) -> bool {
    state.with_store(|s| {
        s.graphs().any(|g| {
            let src = Path::new(&g.source);
            src == path || src.starts_with(path)
        })
    })
}

/// True for events that may change what a file holds: writes, creations,
/// renames, deletions. Reads (open, close after reading) and metadata
/// changes (`touch`, `chmod`) are not.
fn changes_content(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        _ => true,
    }
}

/// The run folder a file sits in (directly), or whose workspace manifest
/// it is (`workspaces/manifest.json(l)`: a capture appended), if any.
fn run_folder_of(p: &Path) -> Option<PathBuf> {
    let dir = p.parent()?;
    if crate::results::run_folder::is_run_folder(dir) {
        return Some(dir.to_path_buf());
    }
    let name = p.file_name()?.to_str()?;
    let manifest = [
        crate::results::workspace::MANIFEST_JSON,
        crate::results::workspace::MANIFEST_JSONL,
    ]
    .contains(&name);
    let run = dir.parent()?;
    (manifest && crate::results::run_folder::is_run_folder(run)).then(|| run.to_path_buf())
}

/// The export a repair sidecar (`<export>.repair_<ts>.json`) is of.
fn repaired_export_of(p: &Path) -> Option<PathBuf> {
    let name = p.file_name()?.to_str()?;
    let (export, _) = name.rsplit_once(".repair_")?;
    name.ends_with(".json").then(|| p.with_file_name(export))
}

/// The database whose rollback journal (or WAL files) `p` is.
fn database_of(p: &Path) -> Option<PathBuf> {
    let name = p.file_name()?.to_str()?;
    let db = ["-journal", "-wal", "-shm"]
        .iter()
        .find_map(|s| name.strip_suffix(s))?;
    let db = p.with_file_name(db);
    crate::sqlite::sniff_file(&db).then_some(db)
}

/// The `.state` sidecar whose results `p` is (outside run folders): its
/// `<out>.results.jsonl`, or a legacy (format 1.0) state's `<out>.tmp`.
fn state_of(p: &Path) -> Option<PathBuf> {
    let name = p.file_name()?.to_str()?;
    let out = (name.strip_suffix(".results.jsonl")).or_else(|| name.strip_suffix(".tmp"))?;
    let state = p.with_file_name(format!("{out}.state"));
    crate::results::progress::is_state_input(&state, false).then_some(state)
}

/// The graphs of a database's runs (`DB#run=<id>` sources): graph, run id
/// and digest.
fn database_runs(state: &State, db: &Path) -> Vec<(String, String, String)> {
    let prefix = format!("{}{}", db.display(), crate::kind::DB_RUN);
    state.with_store(|s| {
        s.graphs()
            .filter_map(|g| {
                let id = g.source.strip_prefix(&prefix)?;
                Some((g.graph.clone(), id.to_string(), g.sha256.clone()))
            })
            .collect()
    })
}

/// Karenina's results database: one with runs loaded, or a new SQLite file
/// of a database's extension.
fn is_database(state: &State, p: &Path) -> bool {
    let ext = p.extension().and_then(|e| e.to_str());
    (matches!(ext, Some("db" | "sqlite" | "sqlite3")) && crate::sqlite::sniff_file(p))
        || !database_runs(state, p).is_empty()
}

/// [`watched`], and any path graphs were read from or from under (a deleted
/// file or directory, a file replaced by a directory), and a path of a
/// watched kind that is not a regular file (reported, never read).
fn watched_path(state: &State, p: &Path) -> bool {
    if has_graphs_under(state, p) {
        return true;
    }
    let ext = p.extension().and_then(|e| e.to_str());
    let kind_of_input = matches!(
        ext,
        Some("jsonld" | "json" | "csv" | "db" | "sqlite" | "sqlite3" | "state")
    );
    if kind_of_input && !p.is_dir() && crate::fsutil::not_regular(p).is_some() {
        return true;
    }
    watched(state, p)
}

/// Checkpoints (`.jsonld`), run folders, and results exports (`.json`, `.csv` that read as
/// one, or that are loaded).
fn watched(state: &State, p: &Path) -> bool {
    if p.is_dir() {
        return crate::results::run_folder::is_run_folder(p);
    }
    if is_database(state, p) || crate::results::progress::is_state_input(p, false) {
        return true;
    }
    match p.extension().and_then(|e| e.to_str()) {
        Some("jsonld") => true,
        Some("json" | "csv" | "state") => {
            crate::results::sniff_file(p).is_ok_and(|l| l.is_some())
                || state.with_store(|s| s.graphs().any(|g| Path::new(&g.source) == p))
        }
        _ => false,
    }
}

/// Re-reads one changed path: replace, keep-with-error, or remove its graph.
pub fn handle(state: &State, path: &Path, processor: Processor, log: &Log) {
    let shown = path.display().to_string();
    let run_folder = path.is_dir() && crate::results::run_folder::is_run_folder(path);
    if !run_folder && crate::fsutil::not_regular(path).is_some_and(|_| !path.is_dir()) {
        // A FIFO, a device, a link to one: never read; its old graph goes.
        let e = crate::fsutil::not_regular(path).map(|e| e.to_string());
        if remove_under(state, path) > 0 {
            rebind(state, log);
        }
        let again = state
            .errors()
            .iter()
            .any(|x| x.file == shown && Some(&x.message) == e.as_ref());
        if !again {
            log(format!(
                "watch: {shown} skipped: {}",
                e.as_deref().unwrap_or("")
            ));
        }
        state.set_error(&shown, e);
        return;
    }
    if is_database(state, path) {
        return handle_database(state, path, processor, log);
    }
    if !path.exists() || (path.is_dir() && !run_folder) {
        // Deleted (a file, a run folder, a whole directory), or a file
        // replaced by a directory: every graph read from it or under it goes.
        state.set_error(&shown, None);
        let removed = remove_under(state, path);
        if removed > 0 {
            log(format!("watch: {shown} deleted: {removed} graphs removed"));
            rebind(state, log);
        }
        return;
    }
    // Bytes unchanged (a save without edits) and no error pending: nothing to do.
    let loaded_sha = state.with_store(|s| {
        s.graphs()
            .find(|g| Path::new(&g.source) == path)
            .map(|g| g.sha256.clone())
    });
    let pending = state.errors().iter().any(|e| e.file == shown);
    if let (Some(sha), false) = (loaded_sha, pending) {
        // (An export's digest covers the repair sidecars beside it.)
        let now =
            file_sha256(path).map(|now| crate::results::repair::digest_with_sidecars(path, now));
        if !sha.is_empty() && now.is_some_and(|now| now == sha) {
            return;
        }
    }
    let options = state.with_store(|s| s.results_options());
    match store::prepare_with(path, processor, options) {
        Ok(prepared) => match state.with_store_mut(|s| s.insert(prepared, true)) {
            Ok(info) => {
                state.set_error(&shown, None);
                log(format!("watch: {shown} reloaded into {}", info.graph));
                rebind(state, log);
            }
            Err(e) => {
                state.set_error(&shown, Some(e.to_string()));
                log(format!("watch: {shown}: {e}"));
            }
        },
        Err(e) => {
            let message = match &e {
                Error::Invalid(report) => report
                    .errors()
                    .map(|d| report.render(d))
                    .collect::<Vec<_>>()
                    .join("\n"),
                other => format!("{shown}: {other}"),
            };
            let again = state
                .errors()
                .iter()
                .any(|e| e.file == shown && e.message == message);
            if !again {
                log(format!(
                    "watch: {shown} not reloaded (its previous graph is kept):\n{message}"
                ));
            }
            state.set_error(&shown, Some(message));
        }
    }
}

/// Re-reads a changed database: every run read again (a write may change
/// any run) and inserted, runs gone removed; nothing while a write is under
/// way (its rollback journal is there: its removal at commit brings the
/// change here again), when its bytes did not change, or, if it cannot be
/// read, the runs loaded are kept and the error recorded.
fn handle_database(state: &State, db: &Path, processor: Processor, log: &Log) {
    use store::database;
    let shown = db.display().to_string();
    let loaded = database_runs(state, db);
    if !db.exists() {
        state.set_error(&shown, None);
        let removed = state.with_store_mut(|s| {
            loaded
                .iter()
                .try_for_each(|(g, _, _)| s.remove(g).map(|_| ()))
        });
        match removed {
            Ok(()) => log(format!(
                "watch: {shown} deleted: its {} runs removed",
                loaded.len()
            )),
            Err(e) => log(format!("watch: {shown}: {e}")),
        }
        rebind(state, log);
        return;
    }
    let mut journal = db.as_os_str().to_owned();
    journal.push("-journal");
    if Path::new(&journal).exists() {
        return;
    }
    let pending = state.errors().iter().any(|e| e.file == shown);
    let read = database::file_digest(db).and_then(|digest| {
        let unchanged = !loaded.is_empty()
            && loaded
                .iter()
                .all(|(_, id, sha)| *sha == database::run_digest(&digest, id));
        if unchanged && !pending {
            return Ok(None);
        }
        let options = state.with_store(|s| s.results_options());
        database::run_inputs(db)?
            .iter()
            .map(|input| store::prepare_with(input, processor, options))
            .collect::<crate::error::Result<Vec<_>>>()
            .map(Some)
    });
    let prepared = match read {
        Ok(Some(p)) => p,
        Ok(None) => return,
        Err(e) => {
            let message = format!("{e}");
            if !state
                .errors()
                .iter()
                .any(|x| x.file == shown && x.message == message)
            {
                log(format!(
                    "watch: {shown} not reloaded (its runs loaded are kept):\n{message}"
                ));
            }
            state.set_error(&shown, Some(message));
            return;
        }
    };
    let graphs: BTreeSet<String> = prepared.iter().map(|p| p.info.graph.clone()).collect();
    // Values Karenina refuses: the runs load without them, and the errors
    // stay shown until a write mends them.
    let bad: Vec<String> = prepared
        .iter()
        .flat_map(|p| p.info.errors.iter().cloned())
        .collect();
    let done = state.with_store_mut(|s| -> crate::error::Result<()> {
        for p in prepared {
            s.insert(p, true)?;
        }
        for (g, _, _) in loaded.iter().filter(|(g, _, _)| !graphs.contains(g)) {
            s.remove(g)?;
        }
        Ok(())
    });
    match done {
        Ok(()) => {
            if bad.is_empty() {
                state.set_error(&shown, None);
            } else {
                let message = bad.join("\n");
                log(format!("watch: {shown}: loaded without:\n{message}"));
                state.set_error(&shown, Some(message));
            }
            let gone = loaded
                .iter()
                .filter(|(g, _, _)| !graphs.contains(g))
                .count();
            log(format!(
                "watch: {shown} reloaded: {} runs ({gone} removed)",
                graphs.len()
            ));
            rebind(state, log);
        }
        Err(e) => {
            state.set_error(&shown, Some(e.to_string()));
            log(format!("watch: {shown}: {e}"));
        }
    }
}

/// Re-binds results graphs after a change (a checkpoint that came or went, a
/// run read again) and logs what changed; then rebuilds the store if the
/// change left it holding many removed quads ([`State::compact`]).
fn rebind(state: &State, log: &Log) {
    match state.with_store_mut(|s| s.bind(&[])) {
        Ok(bound) => bound
            .iter()
            .filter_map(|b| b.message())
            .for_each(|m| log(format!("watch: {m}"))),
        Err(e) => log(format!("watch: binding results: {e}")),
    }
    state.compact();
}

/// The SHA-256 of a file's bytes, read streaming (`None` if unreadable).
fn file_sha256(path: &Path) -> Option<String> {
    use sha2::{Digest, Sha256};
    let mut f = crate::fsutil::open_regular(path).ok()?;
    let mut h = Sha256::new();
    std::io::copy(&mut f, &mut h).ok()?;
    Some(format!("{:x}", h.finalize()))
}
