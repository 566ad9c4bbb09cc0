//! Where an import writes: never over one of its inputs, and into an
//! existing checkpoint only under its writer lock.
//!
//! Why: `kld import q.csv … -o q.csv` replaced the spreadsheet with the
//! checkpoint, and two `kld import … --into CK` at once each read CK, added
//! their questions and renamed their file over it: both exited 0 and one
//! set of questions was gone. An output that is an input (same file by
//! device and inode, so through links and `..` too) is refused; `--into`
//! takes the lock the store's writers take (`crate::store::acquire_for_file`)
//! before it reads the checkpoint and holds it until the new one is in
//! place, so a second import waits and reads what the first wrote.

use super::failure::{ImportError, Location, Result};
use std::path::{Path, PathBuf};

/// The same file (device and inode), when both exist.
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
    }
}

/// Refuses an output (`-o`, or the `--into` checkpoint) that is one of the
/// inputs; `-` (standard output) is never one.
pub fn check_output(output: &Path, inputs: &[PathBuf], flag: &str) -> Result<()> {
    if crate::fsutil::is_stdio(output) {
        return Ok(());
    }
    match inputs.iter().find(|i| !crate::fsutil::is_stdio(i) && same_file(output, i)) {
        Some(i) => Err(ImportError::Usage(format!(
            "{}: {flag} names an input ({}): the checkpoint would replace it; write it to another file (a .jsonld, as Karenina's save() does)",
            output.display(),
            i.display()
        ))),
        None => Ok(()),
    }
}

/// The `--into` checkpoint's writer lock, held until dropped: waits for
/// another import (or any kld writer of that directory) up to
/// `KLD_STORE_WAIT` seconds (default 60), then refuses.
pub fn lock_into(checkpoint: &Path) -> Result<crate::store::FileLock> {
    crate::store::acquire_for_file(checkpoint, crate::store::store_wait()).map_err(|e| match e {
        crate::Error::StoreBusy { waited_secs, .. } => ImportError::bad(&Location::file(checkpoint), format!(
                "another kld is writing beside it (its directory is locked; waited {waited_secs} s, KLD_STORE_WAIT sets how long): nothing written"
            )),
        other => other.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_that_is_an_input_is_refused_by_inode() {
        let d = tempfile::tempdir().unwrap();
        let q = d.path().join("q.csv");
        std::fs::write(&q, "Q,A\n").unwrap();
        let link = d.path().join("link.csv");
        std::fs::hard_link(&q, &link).unwrap();
        let via = d.path().join(".").join("q.csv");
        for out in [&q, &link, &via] {
            let e = check_output(out, std::slice::from_ref(&q), "-o").unwrap_err();
            assert!(e.to_string().contains("names an input"), "{e}");
        }
        check_output(&d.path().join("q.jsonld"), std::slice::from_ref(&q), "-o").unwrap();
        check_output(Path::new("-"), &[q], "-o").unwrap();
    }
}
