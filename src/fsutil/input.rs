//! Inputs as commands name them: a file, `-` for standard input, or a
//! pipe named as an argument, each read through the checks of
//! [`super::regular`] and [`super::pipe`].

use super::{is_fifo, open_regular, pipe_bytes, read_head, read_regular};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// The argument that names standard input (and, as `-o -`, standard
/// output), as ripgrep, jq and Oxigraph's CLI take it.
pub const STDIO: &str = "-";

/// Whether `path` is [`STDIO`].
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == STDIO
}

/// Standard input's bytes, read once: a command that looks at an input's
/// first bytes (to tell its kind) and then reads it whole sees one stream.
fn stdin_bytes() -> Result<&'static [u8]> {
    use std::io::Read;
    static STDIN: std::sync::OnceLock<std::result::Result<Vec<u8>, String>> =
        std::sync::OnceLock::new();
    STDIN
        .get_or_init(|| {
            let mut b = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut b)
                .map(|_| b)
                .map_err(|e| e.to_string())
        })
        .as_deref()
        .map_err(|e| Error::io(Path::new(STDIO), std::io::Error::other(e.clone())))
}

/// An input file's bytes; `-` is standard input, and a pipe named as an
/// input (`<(git show HEAD:a.jsonld)`) is read whole once (`pipe_bytes`).
pub fn read_input(path: &Path) -> Result<Vec<u8>> {
    if is_stdio(path) {
        return stdin_bytes().map(<[u8]>::to_vec);
    }
    if is_fifo(path) {
        return pipe_bytes(path).map(|b| b.to_vec());
    }
    read_regular(path)
}

/// The first `n` bytes of an input (all of a shorter one); `-` is standard
/// input.
pub fn input_head(path: &Path, n: u64) -> Result<Vec<u8>> {
    if is_stdio(path) {
        let b = stdin_bytes()?;
        return Ok(b[..b.len().min(n as usize)].to_vec());
    }
    if is_fifo(path) {
        let b = pipe_bytes(path)?;
        return Ok(b[..b.len().min(n as usize)].to_vec());
    }
    read_head(path, n)
}

/// An input file opened for streaming; `-` is standard input.
pub(crate) fn open_input(path: &Path) -> Result<Box<dyn std::io::Read + Send>> {
    if is_stdio(path) {
        return Ok(Box::new(stdin_bytes()?));
    }
    if is_fifo(path) {
        return Ok(Box::new(std::io::Cursor::new(pipe_bytes(path)?)));
    }
    open_regular(path).map(|f| Box::new(f) as Box<dyn std::io::Read + Send>)
}

/// An input's absolute path, as graph names and provenance record it;
/// standard input is `/dev/stdin`, a pipe the absolute path it was named by
/// (`/dev/fd/63`: a pipe has no file name to resolve to).
pub fn canonical_input(path: &Path) -> Result<PathBuf> {
    if is_stdio(path) {
        return Ok(PathBuf::from("/dev/stdin"));
    }
    if is_fifo(path) {
        return std::path::absolute(path).map_err(|e| Error::io(path, e));
    }
    std::fs::canonicalize(path).map_err(|e| Error::io(path, e))
}

/// An input's size in bytes; `-` is standard input.
pub(crate) fn input_len(path: &Path) -> Result<u64> {
    if is_stdio(path) {
        return stdin_bytes().map(|b| b.len() as u64);
    }
    if is_fifo(path) {
        return pipe_bytes(path).map(|b| b.len() as u64);
    }
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(|e| Error::io(path, e))
}
