//! The workspace manifests of agentic runs: what each result's agent left in
//! its workspace, as Karenina captured it (`workspace_capture.py`).
//!
//! With `workspace_output_mode` `full` or `produced`, Karenina's
//! `FinalizeResultStage` calls `capture_workspace` for every result: it
//! copies the workspace into `workspaces/<question>__<result_id>/` and
//! appends one row to `workspaces/manifest.jsonl` (status `captured`,
//! `captured_with_errors` or `skipped`, files copied, copy errors, skip
//! reason, the result's identity); when every task finished the batch runner
//! compacts the rows into `workspaces/manifest.json` (`format_version`
//! 1.0, `entries`), leaving the `.jsonl`. Without a run folder there is no
//! manifest kld can tie to one run, so only run folders' are read.
//!
//! Each entry becomes a PROV-O activity on its result
//! ([`crate::rdf::verification`]; docs/results.md,
//! "Workspaces and repairs"): `karenina:workspaceCapture` from the result
//! (matched by `result_id`, or a result a repair replaced) to a
//! `prov:Activity` / `karenina:WorkspaceCapture` that `prov:used` the live
//! workspace and `prov:generated` the copy (`prov:Collection`) and each
//! file found in it. An entry that matches no result, a malformed entry or
//! manifest, and a copy folder missing from the run folder are located
//! warnings (`KLD-W201`); nothing is dropped in silence.

use super::located_warning;
use crate::json::{line_col, locate_paths, JsonPath};
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The compacted manifest's file name.
pub const MANIFEST_JSON: &str = "manifest.json";
/// The manifest appended to while the run goes.
pub const MANIFEST_JSONL: &str = "manifest.jsonl";

/// Files listed per capture at most (a `full` capture of a big repository
/// would otherwise add a node per file): past it, a warning says how many.
pub(crate) const MAX_FILES: usize = 10_000;

/// A capture's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaptureStatus {
    /// Copied.
    Captured,
    /// Copied, some files not (`copy_errors`).
    CapturedWithErrors,
    /// Nothing copied (`skip_reason`).
    Skipped,
}

impl CaptureStatus {
    /// As the manifest writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            CaptureStatus::Captured => "captured",
            CaptureStatus::CapturedWithErrors => "captured_with_errors",
            CaptureStatus::Skipped => "skipped",
        }
    }
}

/// One copy error (`{"path", "error"}`).
#[derive(Clone, Debug, Deserialize)]
pub struct CopyError {
    /// The file, relative to the workspace.
    pub path: String,
    /// The exception's text.
    pub error: String,
}

/// One manifest row, as `capture_workspace` writes it (other members are
/// ignored: Karenina writes plain dicts).
#[derive(Clone, Debug, Deserialize)]
pub struct Entry {
    /// The result's question.
    pub question_id: String,
    /// The result's ID.
    pub result_id: String,
    /// Its run name.
    #[serde(default)]
    pub run_name: Option<String>,
    /// Its replicate.
    #[serde(default)]
    pub replicate: Option<i64>,
    /// The answering model's identity (`ModelIdentity`).
    pub answering: Value,
    /// The parsing model's identity.
    pub parsing: Value,
    /// `full` or `produced`.
    pub capture_mode: String,
    /// The live workspace, if there was one.
    #[serde(default)]
    pub source_workspace_path: Option<String>,
    /// Where the copy went (an absolute path on the machine that ran).
    pub destination: String,
    /// What happened.
    pub status: CaptureStatus,
    /// Files copied.
    #[serde(default)]
    pub copied_file_count: u64,
    /// Files not copied, and why.
    #[serde(default)]
    pub copy_errors: Vec<CopyError>,
    /// Why nothing was copied.
    #[serde(default)]
    pub skip_reason: Option<String>,
}

/// An entry and where it is: JSON pointer (`/entries/3`, `/` for a row of
/// the `.jsonl`), line and column.
#[derive(Clone, Debug)]
pub struct Placed {
    /// JSON pointer.
    pub at: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// The entry.
    pub entry: Entry,
}

/// A run folder's workspace manifest, read.
#[derive(Clone, Debug, Default)]
pub struct Manifest {
    /// The file read (`manifest.json`, or `manifest.jsonl` while running).
    pub file: PathBuf,
    /// The entries read, each with its place.
    pub entries: Vec<Placed>,
    /// Located warnings: what could not be read.
    pub warnings: Vec<String>,
}

/// A manifest's entries counted, as `kld info` shows them.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct CaptureCounts {
    /// The manifest read.
    pub manifest: String,
    /// Entries read.
    pub entries: usize,
    /// Status `captured`.
    pub captured: usize,
    /// Status `captured_with_errors`.
    pub captured_with_errors: usize,
    /// Status `skipped`.
    pub skipped: usize,
    /// Copy errors, over all entries.
    pub copy_errors: usize,
    /// Entries that copied nothing (skipped, or 0 files).
    pub without_files: usize,
}

impl Manifest {
    /// Its entries counted by status.
    pub fn counts(&self) -> CaptureCounts {
        let es = || self.entries.iter().map(|p| &p.entry);
        let status = |s: CaptureStatus| es().filter(|e| e.status == s).count();
        CaptureCounts {
            manifest: self.file.display().to_string(),
            entries: self.entries.len(),
            captured: status(CaptureStatus::Captured),
            captured_with_errors: status(CaptureStatus::CapturedWithErrors),
            skipped: status(CaptureStatus::Skipped),
            copy_errors: es().map(|e| e.copy_errors.len()).sum(),
            without_files: es()
                .filter(|e| e.status == CaptureStatus::Skipped || e.copied_file_count == 0)
                .count(),
        }
    }
}

/// The code of a workspace manifest's warnings.
pub(crate) const CODE: &str = "KLD-W201";

/// Reads the manifest of the workspaces directory `dir`, if it has one:
/// `manifest.json`, unless `manifest.jsonl` holds more rows (a run resumed
/// after compaction); `manifest.jsonl` alone while the run goes. Bad JSON,
/// a bad entry, a directory or device where the file should be: warnings.
pub fn read(dir: &Path) -> Option<Manifest> {
    let (json, jsonl) = (dir.join(MANIFEST_JSON), dir.join(MANIFEST_JSONL));
    let exists = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    if !exists(&json) && !exists(&jsonl) {
        return None;
    }
    let text = |p: &Path, m: &mut Manifest| -> Option<String> {
        match crate::fsutil::read_regular_to_string(p) {
            Ok(t) => Some(t),
            Err(e) => {
                m.warnings.push(format!(
                    "{}: warning[KLD-W201]: workspace manifest not read: {e}",
                    p.display()
                ));
                None
            }
        }
    };
    let mut m = Manifest::default();
    let lines = if exists(&jsonl) {
        text(&jsonl, &mut m)
    } else {
        None
    };
    if exists(&json) {
        if let Some(t) = text(&json, &mut m) {
            let mut from_json = Manifest {
                file: json.clone(),
                warnings: std::mem::take(&mut m.warnings),
                ..Manifest::default()
            };
            read_json(&json, &t, &mut from_json);
            let rows = lines
                .as_deref()
                .map_or(0, |l| l.lines().filter(|l| !l.trim().is_empty()).count());
            if rows <= from_json.entries.len() || lines.is_none() {
                return Some(from_json);
            }
            m.warnings = from_json.warnings;
            m.warnings.push(format!(
                "{}: warning[KLD-W201]: holds {} entries, {MANIFEST_JSONL} {rows} rows (a run resumed after compaction): {MANIFEST_JSONL} read",
                json.display(),
                from_json.entries.len()
            ));
        }
    }
    m.file = jsonl.clone();
    if let Some(t) = lines {
        read_jsonl(&jsonl, &t, &mut m);
    }
    Some(m)
}

/// An entry from its JSON value; a warning naming the bad member.
fn entry(v: &Value) -> Result<Entry, (String, String)> {
    serde_path_to_error::deserialize::<_, Entry>(v).map_err(|e| {
        let member = e.path().to_string();
        let why = e.into_inner().to_string();
        (member, why)
    })
}

fn read_json(file: &Path, text: &str, m: &mut Manifest) {
    let v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            m.warnings.push(located_warning(
                CODE,
                file,
                e.line(),
                e.column(),
                "/",
                format!("invalid JSON: {e}; no entry read"),
            ));
            return;
        }
    };
    match v.get("format_version").and_then(Value::as_str) {
        Some("1.0") => {}
        other => m.warnings.push(located_warning(
            CODE,
            file,
            1,
            1,
            "/format_version",
            format!(
                "format_version {}: kld reads workspace manifests 1.0; entries read as 1.0",
                other.map_or("missing".to_string(), |s| format!("{s:?}"))
            ),
        )),
    }
    let Some(entries) = v.get("entries").and_then(Value::as_array) else {
        m.warnings.push(located_warning(
            CODE,
            file,
            1,
            1,
            "/entries",
            "no `entries` array; no entry read",
        ));
        return;
    };
    let paths: Vec<JsonPath> = (0..entries.len())
        .map(|i| JsonPath::root().key("entries").index(i))
        .collect();
    let offsets = locate_paths(text, &paths);
    for (i, (e, off)) in entries.iter().zip(offsets).enumerate() {
        let (line, column) = off.map_or((1, 1), |o| line_col(text, o));
        let (member, why) = match entry(e) {
            Ok(entry) => {
                m.entries.push(Placed {
                    at: format!("/entries/{i}"),
                    line,
                    column,
                    entry,
                });
                continue;
            }
            Err(bad) => bad,
        };
        let at = match member.as_str() {
            "." | "" => format!("/entries/{i}"),
            m => format!("/entries/{i}/{}", m.replace('.', "/")),
        };
        m.warnings.push(located_warning(
            CODE,
            file,
            line,
            column,
            &at,
            format!("not a workspace capture entry: {why}; entry left out"),
        ));
    }
}

fn read_jsonl(file: &Path, text: &str, m: &mut Manifest) {
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Err(e) => m.warnings.push(located_warning(
                CODE,
                file,
                n + 1,
                e.column(),
                "/",
                format!("invalid JSON: {e}; row left out"),
            )),
            Ok(v) => match entry(&v) {
                Ok(entry) => m.entries.push(Placed {
                    at: "/".into(),
                    line: n + 1,
                    column: 1,
                    entry,
                }),
                Err((member, why)) => m.warnings.push(located_warning(
                    CODE,
                    file,
                    n + 1,
                    1,
                    &format!("/{}", member.replace('.', "/")),
                    format!("not a workspace capture entry: {why}; row left out"),
                )),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(rid: &str, status: &str) -> String {
        format!(
            r#"{{"question_id": "q", "result_id": "{rid}", "answering": {{"interface": "i", "model_name": "a", "tools": []}}, "parsing": {{"interface": "i", "model_name": "p"}}, "capture_mode": "full", "destination": "/x/q__{rid}", "status": "{status}", "copied_file_count": 0, "copy_errors": []}}"#
        )
    }

    #[test]
    fn jsonl_rows_read_and_bad_rows_are_located_warnings() {
        let d = tempfile::tempdir().unwrap();
        let text = format!(
            "{}\n{{not json\n{}\n\n{}\n",
            row("r1", "captured"),
            row("r2", "lost"),
            row("r3", "skipped")
        );
        std::fs::write(d.path().join(MANIFEST_JSONL), text).unwrap();
        let m = read(d.path()).unwrap();
        assert_eq!(m.entries.len(), 2);
        assert_eq!((m.entries[1].line, m.entries[1].at.as_str()), (5, "/"));
        assert_eq!(m.warnings.len(), 2, "{:?}", m.warnings);
        assert!(m.warnings[0].contains(":2:") && m.warnings[0].contains("invalid JSON"));
        assert!(
            m.warnings[1].contains(":3:1: warning[KLD-W201] at /status")
                && m.warnings[1].contains("unknown variant `lost`"),
            "{}",
            m.warnings[1]
        );
    }

    #[test]
    fn a_compacted_manifest_s_bad_entry_is_located_at_its_line() {
        let d = tempfile::tempdir().unwrap();
        let bad = row("r2", "captured").replace(r#""result_id": "r2", "#, "");
        let text = format!(
            "{{\n  \"format_version\": \"1.0\",\n  \"entries\": [\n    {},\n    {}\n  ]\n}}\n",
            row("r1", "captured"),
            bad
        );
        std::fs::write(d.path().join(MANIFEST_JSON), text).unwrap();
        let m = read(d.path()).unwrap();
        assert_eq!(m.entries.len(), 1);
        assert_eq!(m.warnings.len(), 1);
        assert!(
            m.warnings[0].contains(":5:5: warning[KLD-W201] at /entries/1")
                && m.warnings[0].contains("missing field `result_id`"),
            "{}",
            m.warnings[0]
        );
        // A .jsonl with more rows than the compacted file: the run resumed.
        let rows = [
            row("r1", "captured"),
            row("r2", "captured"),
            row("r3", "skipped"),
        ];
        std::fs::write(d.path().join(MANIFEST_JSONL), rows.join("\n")).unwrap();
        let m = read(d.path()).unwrap();
        assert_eq!(m.entries.len(), 3);
        assert!(m.file.ends_with(MANIFEST_JSONL));
        assert!(m
            .warnings
            .iter()
            .any(|w| w.contains("resumed after compaction")));
    }

    #[test]
    fn no_manifest_is_none_and_not_json_is_a_warning() {
        let d = tempfile::tempdir().unwrap();
        assert!(read(d.path()).is_none());
        std::fs::write(d.path().join(MANIFEST_JSON), "[1, 2").unwrap();
        let m = read(d.path()).unwrap();
        assert!(m.entries.is_empty());
        assert!(m.warnings[0].contains("invalid JSON"), "{:?}", m.warnings);
    }
}
