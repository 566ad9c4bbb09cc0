//! File-system helpers every writing command shares: atomic writes and input
//! discovery.
//!
//! Karenina's own `save()` truncates the target before serializing, so a failure
//! leaves a broken checkpoint. Every write here goes to a temporary file in the
//! target's directory, is flushed to disk, and replaces the target by rename: the
//! original is either untouched or fully replaced.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `data` to `path` atomically (temp file in the same directory, fsync,
/// rename). An existing file keeps its permissions; a new one gets 0666 less
/// the umask, as any program's new file.
pub fn write_atomic(path: &Path, data: &[u8]) -> Result<()> {
    write_atomic_with(path, |f| f.write_all(data))
}

/// Like [`write_atomic`], with the content written by `fill`. If `fill`, the
/// fsync or the rename fails, the temporary file is removed and `path` is left
/// exactly as it was.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    fill(f.tmp.as_file_mut()).map_err(|e| Error::io(path, e))?;
    f.commit()
}

/// A file written in pieces (it is a [`Write`]) that replaces its target
/// only on [`AtomicFile::commit`]; dropped before that, it leaves the target
/// exactly as it was. For content too large to hold in memory first.
pub struct AtomicFile {
    tmp: tempfile::NamedTempFile,
    target: PathBuf,
}

impl AtomicFile {
    /// A temporary file beside `path`.
    pub fn create(path: &Path) -> Result<Self> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".kld-").suffix(".tmp");
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
            tmp,
            target: path.to_path_buf(),
        })
    }

    /// Flushes to disk and renames over the target (keeping its permissions).
    pub fn commit(self) -> Result<()> {
        let path = &self.target;
        self.tmp
            .as_file()
            .sync_all()
            .map_err(|e| Error::io(path, e))?;
        if let Ok(meta) = std::fs::metadata(path) {
            let _ = std::fs::set_permissions(self.tmp.path(), meta.permissions());
        }
        let dir = self.tmp.path().parent().map(Path::to_path_buf);
        self.tmp
            .persist(path)
            .map_err(|e| Error::io(path, e.error))?;
        // Make the rename itself durable where the platform allows it.
        if let Some(Ok(d)) = dir.map(std::fs::File::open) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.tmp.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.tmp.flush()
    }
}

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

/// An input file's bytes; `-` is standard input.
pub fn read_input(path: &Path) -> Result<Vec<u8>> {
    if is_stdio(path) {
        return stdin_bytes().map(<[u8]>::to_vec);
    }
    std::fs::read(path).map_err(|e| Error::io(path, e))
}

/// An input file opened for streaming; `-` is standard input.
pub fn open_input(path: &Path) -> Result<Box<dyn std::io::Read + Send>> {
    if is_stdio(path) {
        return Ok(Box::new(stdin_bytes()?));
    }
    std::fs::File::open(path)
        .map(|f| Box::new(f) as Box<dyn std::io::Read + Send>)
        .map_err(|e| Error::io(path, e))
}

/// An input's absolute path, as graph names and provenance record it;
/// standard input is `/dev/stdin`.
pub fn canonical_input(path: &Path) -> Result<PathBuf> {
    if is_stdio(path) {
        return Ok(PathBuf::from("/dev/stdin"));
    }
    std::fs::canonicalize(path).map_err(|e| Error::io(path, e))
}

/// An input's size in bytes; `-` is standard input.
pub fn input_len(path: &Path) -> Result<u64> {
    if is_stdio(path) {
        return stdin_bytes().map(|b| b.len() as u64);
    }
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(|e| Error::io(path, e))
}

/// Expands FILE|DIR arguments: files as given, directories searched recursively
/// for files ending in one of `exts` (sorted, hidden entries skipped).
pub fn collect_inputs(args: &[PathBuf], exts: &[&str]) -> Vec<Result<PathBuf>> {
    collect(args, exts, false)
}

/// [`collect_inputs`], with Karenina run folders (directories holding
/// `run_manifest.json`) as inputs themselves: given, or found while
/// searching, a run folder is one input and is not searched.
pub fn collect_inputs_and_runs(args: &[PathBuf], exts: &[&str]) -> Vec<Result<PathBuf>> {
    collect(args, exts, true)
}

fn collect(args: &[PathBuf], exts: &[&str], runs: bool) -> Vec<Result<PathBuf>> {
    let is_run = |d: &Path| runs && crate::results::run_folder::is_run_folder(d);
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
                walk(a, exts, runs, &mut found, &mut out);
                found.sort();
                out.extend(found.into_iter().map(Ok));
            }
            Ok(_) => out.push(Ok(a.clone())),
        }
    }
    out
}

fn walk(
    dir: &Path,
    exts: &[&str],
    runs: bool,
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
            Ok(t) if t.is_dir() && runs && crate::results::run_folder::is_run_folder(&p) => {
                found.push(p)
            }
            Ok(t) if t.is_dir() => walk(&p, exts, runs, found, errs),
            Ok(_) => {
                let n = name.to_string_lossy();
                if exts.iter().any(|e| n.ends_with(e)) {
                    found.push(p);
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
