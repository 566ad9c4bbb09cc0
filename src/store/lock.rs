//! One writer at a time in a store directory, and what a killed writer left.
//!
//! Why: two `kld load --store S` at once each read `index.tsv`, added their
//! batch and wrote the index back: the last one won, the other's batch was
//! missing from the index (its `.nq` files orphaned) and both exited 0. A
//! writer now holds an advisory lock (`flock` on `S/.lock`) from opening the
//! directory to the end of the process's use of it; a second writer waits
//! for it, up to `KLD_STORE_WAIT` seconds (default 60), then fails with
//! [`Error::StoreBusy`]. Readers (`--store` of query, serve, export) take no
//! lock: every file of the directory is replaced by rename, so they see a
//! whole old or whole new file.
//!
//! Under the lock, what a killed writer left is removed: temporary files of
//! dead processes ([`crate::fsutil::sweep_temporaries`]) and graph files
//! that `index.tsv` does not name (a load killed between writing a graph and
//! writing the index), and reported to the caller.

use crate::error::{Error, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The environment variable that sets how long a writer waits for a busy
/// store, in seconds (0: fail at once).
pub const WAIT_ENV: &str = "KLD_STORE_WAIT";

/// A store directory's write lock, held until dropped.
pub(super) struct StoreLock {
    _file: std::fs::File,
}

/// How long a writer waits for a store another process writes.
pub fn wait() -> Duration {
    crate::duration::from_env(WAIT_ENV, true).unwrap_or(Duration::from_secs(60))
}

/// Takes the write lock of store directory `dir` (created if need be),
/// waiting up to `limit` for another writer to finish.
pub(super) fn acquire(dir: &Path, limit: Duration) -> Result<StoreLock> {
    let path = dir.join(".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    hold(file, &path, dir, limit)
}

/// The writer lock of a file that is replaced by rename (a checkpoint that
/// `kld import --into` adds to): the same `flock`, on the directory that
/// holds the file (its inode outlives every rename, and nothing is left
/// beside the file), waiting up to `limit`.
pub(crate) fn acquire_for_file(file: &Path, limit: Duration) -> Result<FileLock> {
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let handle = std::fs::File::open(dir).map_err(|e| Error::io(dir, e))?;
    hold(handle, dir, file, limit).map(|l| FileLock { _lock: l })
}

/// A file's writer lock (`acquire_for_file`), held until dropped.
pub struct FileLock {
    _lock: StoreLock,
}

fn hold(file: std::fs::File, path: &Path, shown: &Path, limit: Duration) -> Result<StoreLock> {
    let start = Instant::now();
    loop {
        match try_lock(&file) {
            Ok(true) => return Ok(StoreLock { _file: file }),
            Ok(false) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(50)),
            Ok(false) => {
                return Err(Error::StoreBusy {
                    path: shown.to_path_buf(),
                    waited_secs: start.elapsed().as_secs(),
                })
            }
            Err(e) => return Err(Error::io(path, e)),
        }
    }
}

/// An exclusive `flock` without waiting: true when taken.
fn try_lock(f: &std::fs::File) -> std::io::Result<bool> {
    #[cfg(unix)]
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: flock on a descriptor we own; no memory is passed.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
            Ok(false)
        } else {
            Err(e)
        }
    }
    #[cfg(not(unix))]
    {
        let _ = f;
        Ok(true)
    }
}

/// Removes what killed writers left in `dir` (the lock held): dead
/// processes' temporary files, and graph files named by none of `files`.
pub(super) fn clean(dir: &Path, files: &BTreeSet<String>) -> Vec<PathBuf> {
    let graphs = dir.join("graphs");
    let mut removed = crate::fsutil::sweep_temporaries(dir);
    removed.extend(crate::fsutil::sweep_temporaries(&graphs));
    if let Ok(rd) = std::fs::read_dir(&graphs) {
        for entry in rd.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".nq")
                && !files.contains(&name)
                && entry.file_type().is_ok_and(|t| t.is_file())
                && std::fs::remove_file(entry.path()).is_ok()
            {
                removed.push(entry.path());
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_waits_then_is_told_the_store_is_busy() {
        let d = tempfile::tempdir().unwrap();
        let first = acquire(d.path(), Duration::ZERO).unwrap();
        let e = acquire(d.path(), Duration::from_millis(200)).err().unwrap();
        assert!(e.to_string().contains("store busy"), "{e}");
        drop(first);
        acquire(d.path(), Duration::ZERO).unwrap();
    }
}
