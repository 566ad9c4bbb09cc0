//! Pipes named as inputs: read whole, once, bounded and stoppable.
//!
//! Why: a shell passes a file that does not exist on disk as a pipe
//! (`kld diff <(git show HEAD:a.jsonld) a.jsonld` names `/dev/fd/63`), and
//! refusing every FIFO refused that too. A FIFO *named as an argument* is
//! read as a file: whole, at most [`super::max_file_size`] bytes, once per
//! process (a command that looks at an input's first bytes and then reads
//! it whole sees one stream, as with standard input). A FIFO *found* by a
//! directory walk is still reported and skipped ([`super::collect_inputs`]).
//! The read waits for data with `poll` in short turns, so a caller that
//! must stop (Python's Ctrl-C) is heard while no writer has come yet.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// How often a waiting read asks whether to stop.
const TURN_MS: i32 = 100;

/// Pipes already read, by the path they were named by: their bytes, or
/// why they could not be read (a pipe cannot be read twice).
static READ: Mutex<Option<HashMap<PathBuf, Outcome>>> = Mutex::new(None);

#[derive(Clone)]
enum Outcome {
    Read(Arc<[u8]>),
    TooLarge { size: u64, limit: u64 },
    Failed(std::io::ErrorKind, String),
}

impl Outcome {
    fn of(r: &Result<Vec<u8>>) -> Option<Self> {
        Some(match r {
            Ok(b) => Outcome::Read(b.as_slice().into()),
            Err(Error::FileTooLarge { size, limit, .. }) => Outcome::TooLarge {
                size: *size,
                limit: *limit,
            },
            // Stopped by the caller: the pipe may be read again.
            Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::Interrupted => {
                return None
            }
            Err(Error::Io { source, .. }) => Outcome::Failed(source.kind(), source.to_string()),
            Err(e) => Outcome::Failed(std::io::ErrorKind::Other, e.to_string()),
        })
    }

    fn get(&self, path: &Path) -> Result<Arc<[u8]>> {
        match self {
            Outcome::Read(b) => Ok(b.clone()),
            Outcome::TooLarge { size, limit } => Err(Error::FileTooLarge {
                path: path.to_path_buf(),
                size: *size,
                limit: *limit,
            }),
            Outcome::Failed(kind, m) => Err(Error::io(path, std::io::Error::new(*kind, m.clone()))),
        }
    }
}

/// True when `path` (after symlinks) is a FIFO; never opens it.
pub fn is_fifo(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// The bytes of the pipe `path` names, read the first time they are asked
/// for (until its writer closes it) and kept for the rest of the process;
/// a failure (too large, unreadable) is kept too and given again.
pub(crate) fn pipe_bytes(path: &Path) -> Result<Arc<[u8]>> {
    read_pipe_once(path, &|| false)
}

/// `pipe_bytes`, giving up (an error of kind `Interrupted`) once `stop`
/// says so while the pipe is still read.
pub fn read_pipe_once(path: &Path, stop: &dyn Fn() -> bool) -> Result<Arc<[u8]>> {
    if let Some(o) = cached(path) {
        return o.get(path);
    }
    let r = read_file_or_pipe(path, super::max_file_size(), stop);
    let Some(o) = Outcome::of(&r) else {
        return r.map(Into::into);
    };
    READ.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .insert(path.to_path_buf(), o.clone());
    o.get(path)
}

/// Drops what [`read_pipe_once`] kept of `path` (a long-lived process, as
/// Python's, that read a pipe for one load).
pub fn forget_pipe(path: &Path) {
    if let Some(m) = READ.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
        m.remove(path);
    }
}

fn cached(path: &Path) -> Option<Outcome> {
    READ.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .and_then(|m| m.get(path).cloned())
}

/// Reads `path` whole when it is a regular file or a FIFO, at most `limit`
/// bytes ([`Error::FileTooLarge`] past it); anything else (a device such as
/// `/dev/zero`, a socket, a directory) is [`Error::NotRegularFile`] at once.
/// Not cached. `stop` is asked between waits.
pub fn read_file_or_pipe(path: &Path, limit: u64, stop: &dyn Fn() -> bool) -> Result<Vec<u8>> {
    if !is_fifo(path) {
        return super::read_regular_capped(path, limit);
    }
    #[cfg(unix)]
    {
        read_fifo(path, limit, stop)
    }
    #[cfg(not(unix))]
    {
        let _ = stop;
        super::read_regular_capped(path, limit)
    }
}

#[cfg(unix)]
fn read_fifo(path: &Path, limit: u64, stop: &dyn Fn() -> bool) -> Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    use std::os::unix::io::AsRawFd;
    let interrupted = || {
        Error::io(
            path,
            std::io::Error::new(std::io::ErrorKind::Interrupted, "interrupted"),
        )
    };
    // Non-blocking: the open returns at once even with no writer yet.
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    let m = f.metadata().map_err(|e| Error::io(path, e))?;
    if !m.file_type().is_fifo() {
        // Swapped since it was looked at: read it as any other file.
        return super::read_regular_capped(path, limit);
    }
    let mut bytes = Vec::new();
    let mut buf = vec![0u8; 64 << 10];
    loop {
        if stop() {
            return Err(interrupted());
        }
        let mut p = libc::pollfd {
            fd: f.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd, valid for the call. Linux reports no POLLHUP
        // on a FIFO no writer has opened yet, so this waits for one.
        let r = unsafe { libc::poll(&mut p, 1, TURN_MS) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(Error::io(path, e));
        }
        if r == 0 {
            continue;
        }
        match f.read(&mut buf) {
            Ok(0) => return Ok(bytes),
            Ok(n) => {
                bytes.extend_from_slice(&buf[..n]);
                if bytes.len() as u64 > limit {
                    return Err(Error::FileTooLarge {
                        path: path.to_path_buf(),
                        size: bytes.len() as u64,
                        limit,
                    });
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(Error::io(path, e)),
        }
    }
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use std::io::Write;

    fn mkfifo(p: &Path) {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    #[test]
    fn a_named_pipe_is_read_whole_once_bounded_and_stoppable() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("in.jsonld");
        mkfifo(&p);
        let w = {
            let p = p.clone();
            std::thread::spawn(move || {
                let mut f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
                f.write_all(b"{\"a\":").unwrap();
                std::thread::sleep(std::time::Duration::from_millis(20));
                f.write_all(b"1}").unwrap();
            })
        };
        assert_eq!(&*pipe_bytes(&p).unwrap(), b"{\"a\":1}");
        w.join().unwrap();
        // Read once: asked again, the same bytes (no writer needed).
        assert_eq!(&*pipe_bytes(&p).unwrap(), b"{\"a\":1}");
        forget_pipe(&p);
        // Past the limit.
        let w = {
            let p = p.clone();
            std::thread::spawn(move || {
                let mut f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
                let _ = f.write_all(&[b'x'; 100]);
            })
        };
        let e = read_file_or_pipe(&p, 10, &|| false).unwrap_err();
        assert!(matches!(e, Error::FileTooLarge { limit: 10, .. }), "{e}");
        w.join().unwrap();
        // No writer ever: stopping is heard.
        let e = read_file_or_pipe(&p, 10, &|| true).unwrap_err();
        assert!(e.to_string().contains("interrupted"), "{e}");
        // A device is refused at once, never read.
        let e = read_file_or_pipe(Path::new("/dev/zero"), 10, &|| false).unwrap_err();
        assert!(matches!(e, Error::NotRegularFile { .. }), "{e}");
    }
}
