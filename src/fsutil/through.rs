//! Outputs that are not files to replace: pipes, devices, terminals and
//! the process's own descriptors.
//!
//! Why: an atomic write renames a temporary file over its target, which is
//! right for a regular file and wrong for anything else: `-o` onto a FIFO
//! turned the FIFO into a regular file (its reader got nothing), run as
//! root `-o /dev/null` replaced the machine's `/dev/null`, and
//! `-o /dev/stdout` tried to create `/proc/self/fd/.kld-….tmp`. Such a
//! target is written through instead: `/dev/stdout`, `/dev/stderr`,
//! `/dev/fd/N` and `/proc/self/fd/N` write to the process's descriptor
//! itself (a redirection `>>` keeps appending, a pipe gets the bytes), and
//! an existing FIFO, character or block device is opened for writing as
//! `cat > target` would (never created, truncated or renamed over).

use crate::error::{Error, Result};
use std::fs::File;
use std::path::Path;

/// The descriptor a path names when it is one of the process's own
/// (`/dev/stdout` 1, `/dev/stderr` 2, `/dev/fd/N`, `/proc/self/fd/N`).
fn own_descriptor(path: &Path) -> Option<i32> {
    let s = path.to_str()?;
    match s {
        "/dev/stdout" => Some(1),
        "/dev/stderr" => Some(2),
        _ => s
            .strip_prefix("/dev/fd/")
            .or_else(|| s.strip_prefix("/proc/self/fd/"))
            .and_then(|n| n.parse::<i32>().ok())
            .filter(|n| *n >= 0),
    }
}

/// The file to write `path` through, when what is at `path` is not a
/// regular file to replace: `None` for a regular file, a symlink to one,
/// a directory (the rename reports it) or nothing (the write creates it).
pub(super) fn open(path: &Path) -> Result<Option<File>> {
    #[cfg(unix)]
    {
        use std::os::unix::io::FromRawFd;
        if let Some(fd) = own_descriptor(path) {
            // SAFETY: dup of a descriptor number; the new descriptor is
            // owned by the File made from it (or the failure is reported).
            let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
            if new < 0 {
                return Err(Error::io(path, std::io::Error::last_os_error()));
            }
            // SAFETY: `new` is a fresh descriptor nothing else owns.
            return Ok(Some(unsafe { File::from_raw_fd(new) }));
        }
    }
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() && !m.is_dir() => std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map(Some)
            .map_err(|e| Error::io(path, e)),
        _ => Ok(None),
    }
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    #[test]
    fn the_process_descriptors_are_recognised_and_files_are_not() {
        assert_eq!(own_descriptor(Path::new("/dev/stdout")), Some(1));
        assert_eq!(own_descriptor(Path::new("/dev/stderr")), Some(2));
        assert_eq!(own_descriptor(Path::new("/dev/fd/7")), Some(7));
        assert_eq!(own_descriptor(Path::new("/proc/self/fd/3")), Some(3));
        assert_eq!(own_descriptor(Path::new("/dev/fd/x")), None);
        assert_eq!(own_descriptor(Path::new("out.nq")), None);
        let d = tempfile::tempdir().unwrap();
        assert!(open(&d.path().join("new.nq")).unwrap().is_none());
        assert!(open(d.path()).unwrap().is_none());
        assert!(open(Path::new("/dev/null")).unwrap().is_some());
    }
}
