//! The watched roots, checked every [`ROOT_POLL`]: the operating system's
//! watch of a directory ends when the directory is deleted, and is not
//! renewed when it comes back, so the watcher looks for itself.

use super::{handle, rebind, remove_under, watched_path, Debounced, Log, ROOT_POLL};
use crate::State;
use karenina_ld::error::Error;
use karenina_ld::rdf::Processor;
use notify_debouncer_full::notify::RecursiveMode;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// A watched directory: a root given, or the directory of files given.
pub(super) struct Root {
    pub(super) dir: PathBuf,
    /// The files given in it (None: the directory itself was given).
    files: Option<Vec<PathBuf>>,
    /// Its identity (device, inode) when last seen; None while it is gone.
    seen: Option<(u64, u64)>,
}

impl Root {
    pub(super) fn new(dir: PathBuf, files: Option<Vec<PathBuf>>) -> Self {
        let seen = identity(&dir);
        Root { dir, files, seen }
    }

    pub(super) fn mode(&self) -> RecursiveMode {
        match self.files {
            None => RecursiveMode::Recursive,
            Some(_) => RecursiveMode::NonRecursive,
        }
    }
}

/// A directory's (device, inode), if it is one (elsewhere than Unix, only
/// whether it is there).
fn identity(dir: &Path) -> Option<(u64, u64)> {
    let m = std::fs::metadata(dir).ok().filter(|m| m.is_dir())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        Some((0, 0))
    }
}

/// Every [`ROOT_POLL`] until `stop`: a root that is gone (or was replaced:
/// another inode) loses its graphs and is reported; one that is back is
/// watched and read again.
pub(super) fn check_roots(
    mut roots: Vec<Root>,
    debouncer: &Mutex<Debounced>,
    stop: &AtomicBool,
    state: &State,
    processor: Processor,
    log: &Log,
) {
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(ROOT_POLL);
        for r in &mut roots {
            let now = identity(&r.dir);
            if now == r.seen {
                continue;
            }
            let shown = r.dir.display().to_string();
            if r.seen.is_some() {
                // Gone, or replaced by another directory: what it held goes.
                let removed = match &r.files {
                    None => remove_under(state, &r.dir),
                    Some(files) => files.iter().map(|f| remove_under(state, f)).sum(),
                };
                if removed > 0 {
                    rebind(state, log);
                }
                if now.is_none() {
                    log(format!("watch: {shown} deleted: {removed} graphs removed; watching for it to come back"));
                    state.set_error(
                        &shown,
                        Some(format!("{shown}: the watched directory was deleted ({removed} graphs removed); it is read again when it comes back")),
                    );
                }
            }
            r.seen = now;
            if now.is_none() {
                continue;
            }
            let watched = debouncer
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .watch(&r.dir, r.mode());
            if let Err(e) = watched {
                state.set_error(&shown, Some(format!("{shown}: cannot watch: {e}")));
                r.seen = None;
                continue;
            }
            state.set_error(&shown, None);
            log(format!("watch: {shown} is back: reading it again"));
            let paths: Vec<PathBuf> = match &r.files {
                Some(files) => files.clone(),
                None => {
                    let wanted = [
                        karenina_ld::kind::Kind::Checkpoint,
                        karenina_ld::kind::Kind::Results,
                    ];
                    let found = karenina_ld::kind::find(std::slice::from_ref(&r.dir), &wanted);
                    for e in found.failed {
                        if let Error::NotRegularFile { path, .. } | Error::Io { path, .. } = &e {
                            state.set_error(&path.display().to_string(), Some(e.to_string()));
                        }
                    }
                    found.files
                }
            };
            for p in paths.iter().filter(|p| watched_path(state, p)) {
                handle(state, p, processor, log);
            }
        }
    }
}
