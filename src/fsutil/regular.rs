//! Reading only regular files, and only as much as fits.
//!
//! Why: opening a FIFO for reading blocks until a writer appears (every
//! command hung on a FIFO given as an argument or lying in a scanned
//! directory), and `/dev/zero` or `/dev/urandom` never end (a read grew to
//! 6 GB). Every file kld reads is opened here: without blocking, checked to
//! be a regular file (after symlinks) on the open descriptor itself, and,
//! when read whole, checked against a size cap ([`max_file_size`]).

use crate::error::{Error, Result};
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The environment variable that sets the size cap of a file read whole (bytes).
pub const MAX_FILE_SIZE_ENV: &str = "KLD_MAX_FILE_SIZE";

/// The default size cap of a file read whole: 4 GiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 4 << 30;

/// The largest file kld reads whole into memory, in bytes: `KLD_MAX_FILE_SIZE`
/// (a number of bytes, optionally with a `K`, `M` or `G` suffix), else
/// [`DEFAULT_MAX_FILE_SIZE`]. Files that are streamed (results exports,
/// a store's graph files, hashes) are not capped.
pub fn max_file_size() -> u64 {
    std::env::var(MAX_FILE_SIZE_ENV)
        .ok()
        .and_then(|v| parse_size(&v))
        .unwrap_or(DEFAULT_MAX_FILE_SIZE)
}

fn parse_size(v: &str) -> Option<u64> {
    let v = v.trim();
    let (digits, shift) = match v.chars().last()?.to_ascii_uppercase() {
        'K' => (&v[..v.len() - 1], 10),
        'M' => (&v[..v.len() - 1], 20),
        'G' => (&v[..v.len() - 1], 30),
        _ => (v, 0),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// What a file type is, for messages: "a FIFO", "a character device", ….
pub fn describe(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// [`Error::NotRegularFile`] for `path` when it exists and is not a regular
/// file (after symlinks); `None` for a regular file or a missing one.
pub fn not_regular(path: &Path) -> Option<Error> {
    let m = std::fs::metadata(path).ok()?;
    (!m.is_file()).then(|| Error::NotRegularFile {
        path: path.to_path_buf(),
        what: describe(&m.file_type()),
    })
}

/// Opens `path` for reading if it is a regular file (after symlinks), else
/// [`Error::NotRegularFile`]. The open never blocks (`O_NONBLOCK`: a FIFO
/// opens at once and is then refused), and the check is made on the open
/// descriptor, so the file cannot be swapped in between.
pub fn open_regular(path: &Path) -> Result<File> {
    // A FIFO is refused before it is opened: even a non-blocking open
    // counts as a reader, lets a writer in and, closed at once, breaks its
    // pipe (a pipe named as an input is read by `super::pipe` alone).
    if let Some(e) = not_regular(path).filter(|_| super::is_fifo(path)) {
        return Err(e);
    }
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK);
    }
    let f = o.open(path).map_err(|e| Error::io(path, e))?;
    let m = f.metadata().map_err(|e| Error::io(path, e))?;
    if !m.is_file() {
        return Err(Error::NotRegularFile {
            path: path.to_path_buf(),
            what: describe(&m.file_type()),
        });
    }
    #[cfg(unix)]
    {
        // Back to blocking reads (a regular file ignores the flag, but a
        // descriptor handed on should behave as any other).
        use std::os::unix::io::AsRawFd;
        let fd = f.as_raw_fd();
        // SAFETY: fcntl on a descriptor this function owns; no memory is passed.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
    }
    Ok(f)
}

/// Reads a regular file whole, refusing one larger than [`max_file_size`]
/// ([`Error::FileTooLarge`]), also one that grows past it while read.
pub fn read_regular(path: &Path) -> Result<Vec<u8>> {
    read_regular_capped(path, max_file_size())
}

/// [`read_regular`] with an explicit cap.
pub(crate) fn read_regular_capped(path: &Path, limit: u64) -> Result<Vec<u8>> {
    let f = open_regular(path)?;
    let len = f.metadata().map_err(|e| Error::io(path, e))?.len();
    let too_large = |size| Error::FileTooLarge {
        path: path.to_path_buf(),
        size,
        limit,
    };
    if len > limit {
        return Err(too_large(len));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    f.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// [`read_regular`] as UTF-8 text ([`Error::Io`] of kind `InvalidData` when
/// it is not).
pub fn read_regular_to_string(path: &Path) -> Result<String> {
    String::from_utf8(read_regular(path)?).map_err(|e| {
        Error::io(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()),
        )
    })
}

/// The first `n` bytes of a regular file (fewer when it is shorter).
pub(crate) fn read_head(path: &Path, n: u64) -> Result<Vec<u8>> {
    let mut head = Vec::with_capacity(n as usize);
    open_regular(path)?
        .take(n)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(path, e))?;
    Ok(head)
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    fn fifo(p: &Path) {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    #[test]
    fn a_fifo_a_device_and_a_directory_are_refused_without_blocking() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("pipe.jsonld");
        fifo(&f);
        let e = read_regular(&f).unwrap_err();
        assert!(
            matches!(e, Error::NotRegularFile { what, .. } if what.contains("FIFO")),
            "{e}"
        );
        let link = d.path().join("zero.jsonld");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let e = read_regular(&link).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
        assert!(read_regular(d.path())
            .unwrap_err()
            .to_string()
            .contains("directory"));
        assert!(read_head(&f, 16).is_err() && not_regular(&f).is_some());
    }

    #[test]
    fn the_size_cap_refuses_a_larger_file_and_reads_one_at_the_cap() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("a.json");
        std::fs::write(&f, b"0123456789").unwrap();
        assert_eq!(read_regular_capped(&f, 10).unwrap(), b"0123456789");
        let e = read_regular_capped(&f, 9).unwrap_err();
        assert!(
            matches!(
                e,
                Error::FileTooLarge {
                    size: 10,
                    limit: 9,
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains(MAX_FILE_SIZE_ENV), "{e}");
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("17"), Some(17));
        assert_eq!(parse_size("x"), None);
    }
}
