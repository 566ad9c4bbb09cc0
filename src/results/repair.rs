//! Repaired runs: the sidecars `karenina repair` writes beside the export it
//! rewrote (`repair.py`, `repair_results_export`).
//!
//! A repair reruns selected rows of a completed export and splices them in:
//! the export at `output_path` is rewritten (in place by default, the
//! original kept as `<export>.backup_<ts>`), and beside it
//! `<export>.repair_<ts>.json` records the source file and its SHA-256, the
//! mode (`replay` or `live`), the counts and the selected rows' keys
//! (`question|answering key|parsing key|replicate|run name`). A repaired
//! export is a derivation of another, which kld says with PROV-O
//! ([`crate::rdf::verification`]; docs/results.md, "Workspaces and repairs"): the run `prov:wasDerivedFrom`
//! the source (`karenina:sourceSha256`), each repair is a `prov:Activity`,
//! and each replaced result `prov:wasRevisionOf` the row it replaced, with a
//! qualified `prov:Revision` saying by which repair, under which key, and
//! what the row said before (read from the backup, or the source when the
//! repair was written elsewhere).
//!
//! The source's SHA-256 is checked against the file that should hold those
//! bytes (the backup of an in-place repair, else the source file): a
//! mismatch, a missing file, a malformed sidecar and a key that names no
//! row are located warnings (`KLD-W202`); the run still loads.

use super::located_warning;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

/// One repair sidecar (`schema_version` 1.0).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sidecar {
    /// `"1.0"`.
    pub schema_version: String,
    /// `YYYYmmddTHHMMSSZ`.
    pub timestamp: String,
    /// `replay` or `live`.
    pub mode: String,
    /// The export repaired, as given.
    pub source_path: String,
    /// SHA-256 of its bytes before the repair.
    pub source_sha256: String,
    /// Where the repaired export was written.
    pub output_path: String,
    /// The copy of the source (an in-place repair).
    #[serde(default)]
    pub backup_path: Option<String>,
    /// Rows selected.
    pub selected_count: u64,
    /// Rows replaced.
    pub replaced_count: u64,
    /// The selected rows' keys, in source order.
    pub selected_keys: Vec<String>,
}

/// The repair sidecars beside `export` (`<name>.repair_<ts>.json`), oldest
/// first.
pub(crate) fn sidecars(export: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (export.parent(), export.file_name()) else {
        return Vec::new();
    };
    let prefix = format!("{}.repair_", name.to_string_lossy());
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().to_string();
            n.starts_with(&prefix) && n.ends_with(".json")
        })
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

/// The code of a repair sidecar's warnings.
pub(crate) const CODE: &str = "KLD-W202";

/// Why a repair sidecar is not read (`KLD-W202`), located; its text is the
/// warning kld shows, and the run loads without it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SidecarError {
    /// The file could not be read (missing, not a regular file, not UTF-8).
    #[error("{}: warning[KLD-W202]: repair sidecar not read: {why}", file.display())]
    Unreadable {
        /// The sidecar.
        file: PathBuf,
        /// What reading it said.
        why: String,
    },
    /// Not a sidecar Karenina wrote, or of a schema version kld does not read.
    #[error("{}:{line}:{column}: warning[KLD-W202] at {at}: {why}", file.display())]
    Invalid {
        /// The sidecar.
        file: PathBuf,
        /// Line of the offending value (1-based).
        line: usize,
        /// Column of the offending value (1-based).
        column: usize,
        /// JSON path of the offending value (`/mode`).
        at: String,
        /// What is wrong, ending in "not read".
        why: String,
    },
}

/// Reads a sidecar; a located warning for one Karenina did not write.
pub fn read(file: &Path) -> Result<Sidecar, SidecarError> {
    let text =
        crate::fsutil::read_regular_to_string(file).map_err(|e| SidecarError::Unreadable {
            file: file.to_path_buf(),
            why: e.to_string(),
        })?;
    let de = &mut serde_json::Deserializer::from_str(&text);
    let s: Sidecar = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let at = match path.as_str() {
            _ if inner.is_syntax() || inner.is_eof() => "/".to_string(),
            "." | "?" | "" => "/".to_string(),
            p => format!("/{}", p.replace('.', "/")),
        };
        let why = inner.to_string();
        let why = why.split(" at line ").next().unwrap_or(&why).to_string();
        SidecarError::Invalid {
            file: file.to_path_buf(),
            line: inner.line(),
            column: inner.column(),
            at,
            why: format!("not a Karenina repair sidecar: {why}; not read"),
        }
    })?;
    if s.schema_version != "1.0" {
        return Err(SidecarError::Invalid {
            file: file.to_path_buf(),
            line: 1,
            column: 1,
            at: "/schema_version".to_string(),
            why: format!(
                "schema version {:?}: kld reads repair sidecars 1.0; not read",
                s.schema_version
            ),
        });
    }
    Ok(s)
}

/// The digest of an export read with its repairs: its bytes' SHA-256
/// (`sha`) as it is when no sidecar is beside it, else the SHA-256 of that
/// and the sidecars' bytes, so a repair written since is a change.
pub fn digest_with_sidecars(export: &Path, sha: String) -> String {
    let files = sidecars(export);
    if files.is_empty() {
        return sha;
    }
    let mut h = Sha256::new();
    h.update(sha.as_bytes());
    for f in files {
        h.update(f.file_name().unwrap_or_default().as_encoded_bytes());
        if let Ok(b) = crate::fsutil::read_regular(&f) {
            h.update(b);
        }
    }
    format!("{:x}", h.finalize())
}

fn sha256_file(p: &Path) -> Option<String> {
    let mut f = crate::fsutil::open_regular(p).ok()?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Some(format!("{:x}", h.finalize()))
}

/// The source a sidecar names (a repair written elsewhere): as written,
/// else by its name beside the export (a folder moved since).
fn find(named: &str, beside: &Path) -> Option<PathBuf> {
    let p = Path::new(named);
    if p.is_file() {
        return Some(p.to_path_buf());
    }
    let by_name = beside.join(p.file_name()?);
    by_name.is_file().then_some(by_name)
}

/// The backup of an in-place repair: always beside the export it was
/// copied from, wherever the folder is now.
fn find_beside(named: &str, beside: &Path) -> Option<PathBuf> {
    let by_name = beside.join(Path::new(named).file_name()?);
    by_name.is_file().then_some(by_name)
}

/// Whether a sidecar's source SHA-256 is that of the file holding the
/// source's bytes now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SourceState {
    /// The bytes the repair read.
    Matches,
    /// Other bytes.
    Differs,
    /// No such file.
    Missing,
}

impl SourceState {
    /// `matches`, `differs`, `missing` (`karenina:sourceCheck`).
    pub fn as_str(self) -> &'static str {
        match self {
            SourceState::Matches => "matches",
            SourceState::Differs => "differs",
            SourceState::Missing => "missing",
        }
    }
}

/// A sidecar's source check, with the located warning of a mismatch or a
/// missing file.
#[derive(Clone, Debug)]
pub(crate) struct SourceCheck {
    /// What was found.
    pub state: SourceState,
    /// Why it is not `Matches` (`KLD-W202`).
    pub warning: Option<String>,
}

/// Checks sidecar `s` (the file `file`, beside the export in `beside`):
/// its `source_sha256` against the backup of an in-place repair, else the
/// source file. Returns the file holding the source's bytes when found.
pub(crate) fn source_check(
    s: &Sidecar,
    file: &Path,
    beside: &Path,
) -> (SourceCheck, Option<PathBuf>) {
    let in_place = s.source_path == s.output_path;
    let holder = if in_place {
        s.backup_path
            .as_deref()
            .and_then(|b| find_beside(b, beside))
    } else {
        find(&s.source_path, beside)
    };
    let check = match holder.as_deref().map(|h| (h, sha256_file(h))) {
        Some((_, Some(sha))) if sha == s.source_sha256 => SourceCheck {
            state: SourceState::Matches,
            warning: None,
        },
        Some((h, sha)) => SourceCheck {
            state: SourceState::Differs,
            warning: Some(located_warning(
                CODE,
                file,
                1,
                1,
                "/source_sha256",
                format!(
                    "the repair's source had SHA-256 {}, but {} on disk has {}: not the bytes it repaired; its previous rows are not read",
                    s.source_sha256,
                    h.display(),
                    sha.as_deref().unwrap_or("(unreadable)")
                ),
            )),
        },
        None => {
            let what = if in_place {
                format!(
                    "its backup {:?}",
                    s.backup_path.as_deref().unwrap_or("(none named)")
                )
            } else {
                format!("its source {:?}", s.source_path)
            };
            SourceCheck {
                state: SourceState::Missing,
                warning: Some(located_warning(
                    CODE,
                    file,
                    1,
                    1,
                    if in_place { "/backup_path" } else { "/source_path" },
                    format!(
                        "{what} is not on disk: the source SHA-256 cannot be checked and the replaced rows' previous values are unknown"
                    ),
                )),
            }
        }
    };
    (check, holder)
}

/// One repair as `kld info` shows it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RepairInfo {
    /// The sidecar's file name.
    pub sidecar: String,
    /// When (`YYYYmmddTHHMMSSZ`).
    pub timestamp: String,
    /// `replay` or `live`.
    pub mode: String,
    /// Rows selected.
    pub selected: u64,
    /// Rows replaced.
    pub replaced: u64,
    /// The source check (`matches`, `differs`, `missing`).
    pub source: &'static str,
}

/// The repairs beside `export`, oldest first, and the located warnings of
/// sidecars not read or whose source does not match.
pub fn infos(export: &Path) -> (Vec<RepairInfo>, Vec<String>) {
    let beside = export.parent().unwrap_or(Path::new("."));
    let (mut out, mut warnings) = (Vec::new(), Vec::new());
    for f in sidecars(export) {
        match read(&f) {
            Ok(s) => {
                let (check, _) = source_check(&s, &f, beside);
                warnings.extend(check.warning);
                out.push(RepairInfo {
                    sidecar: f.file_name().unwrap_or_default().to_string_lossy().into(),
                    timestamp: s.timestamp,
                    mode: s.mode,
                    selected: s.selected_count,
                    replaced: s.replaced_count,
                    source: check.state.as_str(),
                });
            }
            Err(w) => warnings.push(w.to_string()),
        }
    }
    (out, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sidecars_are_found_beside_their_export_oldest_first() {
        let d = tempfile::tempdir().unwrap();
        let e = d.path().join("results.json");
        for n in [
            "results.json.repair_20260102T000000Z.json",
            "results.json.repair_20260101T000000Z.json",
            "results.json.backup_20260101T000000Z",
            "other.json.repair_20260101T000000Z.json",
        ] {
            std::fs::write(d.path().join(n), "{}").unwrap();
        }
        let names: Vec<String> = sidecars(&e)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "results.json.repair_20260101T000000Z.json",
                "results.json.repair_20260102T000000Z.json"
            ]
        );
    }

    #[test]
    fn a_malformed_sidecar_is_a_located_warning() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("r.json.repair_x.json");
        std::fs::write(&f, "{not json").unwrap();
        let w = read(&f).unwrap_err().to_string();
        assert!(
            w.contains("warning[KLD-W202]") && w.contains(":1:2:"),
            "{w}"
        );
        std::fs::write(&f, r#"{"schema_version": "1.0", "mode": 3}"#).unwrap();
        let w = read(&f).unwrap_err().to_string();
        assert!(w.contains("at /mode") && w.contains("invalid type"), "{w}");
    }
}
