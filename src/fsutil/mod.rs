//! File-system helpers every writing command shares: atomic writes and input
//! discovery.
//!
//! Karenina's own `save()` truncates the target before serializing, so a failure
//! leaves a broken checkpoint. Every write here goes to a temporary file in the
//! target's directory, is flushed to disk, and replaces the target by rename: the
//! original is either untouched or fully replaced.
//!
//! A write replaces what the path leads to, keeping what the user set up: a
//! symlink is written through (its target is replaced, the link stays), the
//! replaced file's mode, owner and group are kept where the process may set
//! them, and a file with other hard links is reported ([`Replaced`]): a
//! rename gives the path a new inode, so the other names keep the old
//! content. Temporary files are named `.kld-<pid>.<random>.tmp`; those of a
//! process that no longer runs (killed mid-write) are removed by the next
//! write in that directory (`sweep_temporaries`).
//!
//! What is not a regular file is never replaced: a FIFO, a device, a
//! terminal or the process's own `/dev/stdout` is written through
//! (`through`), so `-o /dev/null` stays the machine's `/dev/null` and a
//! FIFO's reader gets the bytes.

mod input;
mod pipe;
mod regular;
mod through;
pub use input::{canonical_input, input_head, is_stdio, read_input, STDIO};
pub(crate) use input::{input_len, open_input};
pub(crate) use pipe::pipe_bytes;
pub use pipe::{forget_pipe, is_fifo, read_file_or_pipe, read_pipe_once};
pub use regular::{
    describe, max_file_size, not_regular, open_regular, read_regular, read_regular_to_string,
    DEFAULT_MAX_FILE_SIZE, MAX_FILE_SIZE_ENV,
};
pub(crate) use regular::{read_head, read_regular_capped};

use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `data` to `path` atomically (temp file in the same directory, fsync,
/// rename). An existing file keeps its permissions, owner and group (where
/// the process may set them) and a symlink keeps pointing at the file
/// written; a new one gets 0666 less the umask, as any program's new file.
pub fn write_atomic(path: &Path, data: &[u8]) -> Result<()> {
    write_atomic_with(path, |f| f.write_all(data))
}

/// [`write_atomic`], saying what the write replaced ([`Replaced`]).
pub fn replace(path: &Path, data: &[u8]) -> Result<Replaced> {
    let mut f = AtomicFile::create(path)?;
    f.file_mut()
        .write_all(data)
        .map_err(|e| Error::io(path, e))?;
    f.commit()
}

/// Like [`write_atomic`], with the content written by `fill`. If `fill`, the
/// fsync or the rename fails, the temporary file is removed and `path` is left
/// exactly as it was.
pub(crate) fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    fill(f.file_mut()).map_err(|e| Error::io(path, e))?;
    f.commit().map(|_| ())
}

/// What an atomic write replaced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replaced {
    /// The file written: the path given, or the file its symlinks lead to.
    pub file: PathBuf,
    /// Other hard links of the replaced file: they keep its old content (a
    /// rename gives the path a new inode). 0 when there were none.
    pub split_links: u64,
}

/// The file `path` leads to through symlinks (the path itself when it is
/// not a symlink; a dangling link's target, which the write creates).
pub fn through_symlinks(path: &Path) -> Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p).map_err(|e| Error::io(&p, e))?;
                p = match p.parent() {
                    Some(dir) => dir.join(to),
                    None => to,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(Error::io(
        path,
        std::io::Error::other("too many levels of symbolic links"),
    ))
}

/// Removes the temporary files (`.kld-<pid>.<random>.tmp`) that processes no
/// longer running left in `dir` (killed mid-write); a live process's are
/// kept. Returns the files removed. Older names without a process id are
/// removed when an hour old.
pub(crate) fn sweep_temporaries(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return removed;
    };
    for entry in rd.flatten() {
        let name = entry.file_name();
        let Some(stem) = name
            .to_str()
            .and_then(|n| n.strip_prefix(".kld-"))
            .and_then(|n| n.strip_suffix(".tmp"))
        else {
            continue;
        };
        let dead = match stem
            .split_once('.')
            .and_then(|(pid, _)| pid.parse::<i32>().ok())
        {
            Some(pid) => !process_alive(pid),
            None => entry
                .metadata()
                .ok()
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age.as_secs() > 3600),
        };
        if dead && entry.file_type().is_ok_and(|t| t.is_file()) {
            let p = entry.path();
            if std::fs::remove_file(&p).is_ok() {
                removed.push(p);
            }
        }
    }
    removed
}

/// `sweep_temporaries` once per directory per process: the first write
/// into a directory sweeps it (a batch writing thousands of files there
/// reads it once).
pub fn sweep_temporaries_once(dir: &Path) -> Vec<PathBuf> {
    static SWEPT: std::sync::Mutex<Option<std::collections::HashSet<PathBuf>>> =
        std::sync::Mutex::new(None);
    let key = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let first = SWEPT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get_or_insert_with(Default::default)
        .insert(key);
    if first {
        sweep_temporaries(dir)
    } else {
        Vec::new()
    }
}

/// True when process `pid` exists (on this machine).
fn process_alive(pid: i32) -> bool {
    if pid as u32 == std::process::id() {
        return true;
    }
    #[cfg(unix)]
    {
        // SAFETY: signal 0 checks for the process; nothing is sent.
        let r = unsafe { libc::kill(pid, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// A file written in pieces (it is a [`Write`]) that replaces its target
/// only on [`AtomicFile::commit`]; dropped before that, it leaves the target
/// exactly as it was. For content too large to hold in memory first.
///
/// A target that is not a regular file (a FIFO, a device, a terminal,
/// `/dev/stdout`) is written through instead, as it is written: nothing is
/// renamed over it.
pub struct AtomicFile {
    sink: Sink,
    target: PathBuf,
}

enum Sink {
    /// A temporary file renamed over the target on commit.
    Temporary(tempfile::NamedTempFile),
    /// The target itself, opened for writing.
    Through(std::fs::File),
}

impl AtomicFile {
    /// A temporary file beside the file `path` leads to (through symlinks);
    /// dead processes' temporary files there are removed first. When `path`
    /// is a FIFO, a device or one of the process's descriptors, the target
    /// itself, opened for writing (a FIFO's open waits for its reader).
    pub fn create(path: &Path) -> Result<Self> {
        if let Some(f) = through::open(path)? {
            return Ok(AtomicFile {
                sink: Sink::Through(f),
                target: path.to_path_buf(),
            });
        }
        let target = through_symlinks(path)?;
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        sweep_temporaries_once(dir);
        let prefix = format!(".kld-{}.", std::process::id());
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        // A new file gets the mode any program's new file gets (0666 less the
        // umask: 0644 usually), not tempfile's private 0600: the RDF kld
        // writes is for other tools and people to read.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let tmp = builder.tempfile_in(dir).map_err(|e| Error::io(path, e))?;
        Ok(AtomicFile {
            sink: Sink::Temporary(tmp),
            target,
        })
    }

    fn file_mut(&mut self) -> &mut std::fs::File {
        match &mut self.sink {
            Sink::Temporary(t) => t.as_file_mut(),
            Sink::Through(f) => f,
        }
    }

    /// Flushes to disk and renames over the target, keeping its mode, owner
    /// and group (where the process may set them); says whether hard links
    /// were split. A target written through is only flushed.
    pub fn commit(self) -> Result<Replaced> {
        let path = &self.target;
        let tmp = match self.sink {
            Sink::Temporary(t) => t,
            Sink::Through(mut f) => {
                f.flush().map_err(|e| Error::io(path, e))?;
                return Ok(Replaced {
                    file: path.clone(),
                    split_links: 0,
                });
            }
        };
        tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
        let mut replaced = Replaced {
            file: path.clone(),
            split_links: 0,
        };
        if let Ok(meta) = std::fs::metadata(path) {
            keep_owner(tmp.as_file(), &meta);
            let _ = tmp.as_file().set_permissions(meta.permissions());
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                replaced.split_links = meta.nlink().saturating_sub(1);
            }
        }
        let dir = tmp.path().parent().map(Path::to_path_buf);
        tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
        // Make the rename itself durable where the platform allows it.
        if let Some(Ok(d)) = dir.map(std::fs::File::open) {
            let _ = d.sync_all();
        }
        Ok(replaced)
    }
}

/// Gives `f` the owner and group of `meta` where the process may (root: any;
/// others: a group they belong to); silently keeps its own otherwise.
fn keep_owner(f: &std::fs::File, meta: &std::fs::Metadata) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        use std::os::unix::io::AsRawFd;
        let Ok(own) = f.metadata() else { return };
        if (own.uid(), own.gid()) == (meta.uid(), meta.gid()) {
            return;
        }
        // SAFETY: fchown on a descriptor we own; no memory is passed.
        if unsafe { libc::fchown(f.as_raw_fd(), meta.uid(), meta.gid()) } != 0 {
            // Not the owner's user: keep at least the group if allowed.
            // SAFETY: as above; u32::MAX (-1) leaves the owner unchanged.
            unsafe { libc::fchown(f.as_raw_fd(), u32::MAX, meta.gid()) };
        }
    }
    #[cfg(not(unix))]
    let _ = (f, meta);
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file_mut().write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file_mut().flush()
    }
}

/// Expands FILE|DIR arguments: files as given, directories searched recursively
/// for files ending in one of `exts` (sorted, hidden entries skipped).
pub fn collect_inputs(args: &[PathBuf], exts: &[&str]) -> Vec<Result<PathBuf>> {
    collect(args, exts, &|_| false)
}

/// [`collect_inputs`], with the directories `is_unit` accepts (Karenina run
/// folders, told by the caller) as inputs themselves: given, or found while
/// searching, such a directory is one input and is not searched.
pub(crate) fn collect_inputs_and_units(
    args: &[PathBuf],
    exts: &[&str],
    is_unit: &dyn Fn(&Path) -> bool,
) -> Vec<Result<PathBuf>> {
    collect(args, exts, is_unit)
}

fn collect(
    args: &[PathBuf],
    exts: &[&str],
    is_run: &dyn Fn(&Path) -> bool,
) -> Vec<Result<PathBuf>> {
    let mut out = Vec::new();
    for a in args {
        if is_stdio(a) {
            out.push(Ok(a.clone()));
            continue;
        }
        match std::fs::metadata(a) {
            Err(e) => out.push(Err(Error::io(a, e))),
            Ok(m) if m.is_dir() && is_run(a) => out.push(Ok(a.clone())),
            Ok(m) if m.is_dir() => {
                let mut found = Vec::new();
                walk(a, exts, is_run, &mut found, &mut out);
                found.sort();
                out.extend(found.into_iter().map(Ok));
            }
            // A pipe named as an argument is read as a file (pipe_bytes).
            Ok(m) if m.is_file() || is_fifo(a) => out.push(Ok(a.clone())),
            Ok(m) => out.push(Err(Error::NotRegularFile {
                path: a.clone(),
                what: describe(&m.file_type()),
            })),
        }
    }
    out
}

fn walk(
    dir: &Path,
    exts: &[&str],
    is_run: &dyn Fn(&Path) -> bool,
    found: &mut Vec<PathBuf>,
    errs: &mut Vec<Result<PathBuf>>,
) {
    let rd = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) => {
            errs.push(Err(Error::io(dir, e)));
            return;
        }
    };
    for entry in rd.flatten() {
        let p = entry.path();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        match entry.file_type() {
            Ok(t) if t.is_dir() && is_run(&p) => found.push(p),
            Ok(t) if t.is_dir() => walk(&p, exts, is_run, found, errs),
            Ok(_) => {
                let n = name.to_string_lossy();
                if exts.iter().any(|e| n.ends_with(e)) {
                    // A FIFO, a device or a link to one is reported, never
                    // opened (a symlink to a regular file is read).
                    match not_regular(&p) {
                        None => found.push(p),
                        Some(e) => errs.push(Err(e)),
                    }
                }
            }
            Err(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_keeps_no_temp() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.jsonld");
        std::fs::write(&p, b"old").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_failure_mid_write_leaves_the_original_and_no_temp_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.jsonld");
        std::fs::write(&p, b"original bytes").unwrap();
        let r = write_atomic_with(&p, |f| {
            f.write_all(b"half of the new")?;
            Err(std::io::Error::other("injected: disk full"))
        });
        let e = r.unwrap_err().to_string();
        assert!(
            e.contains("injected: disk full") && e.contains("a.jsonld"),
            "{e}"
        );
        assert_eq!(std::fs::read(&p).unwrap(), b"original bytes");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_write_goes_through_a_symlink_keeps_the_mode_and_reports_hard_links() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("real.jsonld");
        std::fs::write(&target, b"old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = d.path().join("link.jsonld");
        std::os::unix::fs::symlink("real.jsonld", &link).unwrap();
        let r = replace(&link, b"new").unwrap();
        assert_eq!((r.file, r.split_links), (target.clone(), 0));
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        let mode = std::fs::metadata(&target).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        std::fs::hard_link(&target, d.path().join("other-name.jsonld")).unwrap();
        let r = replace(&target, b"newer").unwrap();
        assert_eq!(r.split_links, 1);
        assert_eq!(
            std::fs::read(d.path().join("other-name.jsonld")).unwrap(),
            b"new"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_dead_process_temporary_file_is_swept_and_a_live_one_kept() {
        let d = tempfile::tempdir().unwrap();
        // A pid that cannot be running (above the kernel's pid_max).
        let dead = d.path().join(".kld-2147483600.abc.tmp");
        let live = d
            .path()
            .join(format!(".kld-{}.abc.tmp", std::process::id()));
        let other = d.path().join(".kld-notes.txt");
        for f in [&dead, &live, &other] {
            std::fs::write(f, b"x").unwrap();
        }
        write_atomic(&d.path().join("a.jsonld"), b"a").unwrap();
        assert!(!dead.exists() && live.exists() && other.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_in_a_scanned_directory_is_an_error_and_one_named_is_an_input() {
        use std::os::unix::ffi::OsStrExt;
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("pipe.jsonld");
        let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        std::fs::write(d.path().join("a.jsonld"), b"").unwrap();
        let got = collect_inputs(&[d.path().to_path_buf(), fifo.clone()], &[".jsonld"]);
        let errs: Vec<String> = got
            .iter()
            .filter_map(|r| r.as_ref().err().map(|e| e.to_string()))
            .collect();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs.iter().all(|e| e.contains("FIFO")), "{errs:?}");
        let ok: Vec<_> = got.into_iter().filter_map(|r| r.ok()).collect();
        assert_eq!(ok, vec![d.path().join("a.jsonld"), fifo]);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_written_through_and_stays_a_fifo() {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::FileTypeExt;
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("out.nq");
        let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        let r = replace(&fifo, b"through the pipe").unwrap();
        assert_eq!(r.split_links, 0);
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        let t = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(t.is_fifo(), "{t:?}");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
        write_atomic(Path::new("/dev/null"), b"gone").unwrap();
        let t = std::fs::symlink_metadata("/dev/null").unwrap().file_type();
        assert!(t.is_char_device());
    }

    #[test]
    fn collects_sorted_recursive() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::fs::write(d.path().join("b.jsonld"), b"").unwrap();
        std::fs::write(d.path().join("sub/a.jsonld"), b"").unwrap();
        std::fs::write(d.path().join("c.txt"), b"").unwrap();
        std::fs::write(d.path().join(".hidden.jsonld"), b"").unwrap();
        let got: Vec<_> = collect_inputs(&[d.path().to_path_buf()], &[".jsonld"])
            .into_iter()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(
            got,
            vec![d.path().join("b.jsonld"), d.path().join("sub/a.jsonld")]
        );
    }
}
