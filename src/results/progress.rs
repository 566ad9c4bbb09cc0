//! Karenina's progressive-save sidecars (`ProgressiveFileSink`, Karenina's
//! `benchmark/verification/sinks.py`): while a run goes, `<out>.results.jsonl`
//! gets one `VerificationResult` per completed task and `<out>.state` is
//! rewritten (`format_version` "2.0", `benchmark_path`, `output_path`, the
//! config with secrets masked, the task manifest, completed and failed task
//! IDs and counts, start and update times). At a complete finish both are
//! replaced by the export `<out>`; a run interrupted before that leaves them.
//!
//! kld reads them as Karenina's `write_final_export` would have exported
//! them: the header it would write (`job_id` `progressive-<start>`, the
//! `verification_config` model summary of the state's config), then the
//! JSONL rows in order (a line Karenina's reader would skip, malformed or
//! not a result, is a located error here).

use super::{located, Visit};
use crate::error::{Error, Result};
use serde::Deserialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// The `.state` format kld reads (Karenina's `STATE_FORMAT_VERSION`).
pub(crate) const STATE_FORMAT: &str = "2.0";

/// The legacy `.state` format (`utils/progressive_save.py`'s
/// `ProgressiveSaveManager`, which Karenina's `inspect_state_file` still
/// accepts): its results are a whole v2.2 export rewritten at each result,
/// `<out>.tmp`, and it records no failed count.
pub(crate) const LEGACY_STATE_FORMAT: &str = "1.0";

/// A `.state` sidecar (the fields kld uses; others are ignored, as
/// Karenina's reader ignores them).
#[derive(Clone, Debug, Deserialize)]
pub struct ProgressState {
    /// "2.0".
    pub format_version: String,
    /// The benchmark file, as given to Karenina.
    pub benchmark_path: String,
    /// The verification config (secrets masked).
    pub config: Map<String, Value>,
    /// Tasks planned.
    #[serde(default)]
    pub total_tasks: Option<u64>,
    /// Tasks completed.
    #[serde(default)]
    pub completed_count: Option<u64>,
    /// Tasks failed.
    #[serde(default)]
    pub failed_count: Option<u64>,
    /// Start (Unix seconds).
    #[serde(default)]
    pub start_time: Option<f64>,
    /// When the state was written first (ISO 8601, `Z`).
    #[serde(default)]
    pub created_at: Option<String>,
    /// When it was last rewritten.
    #[serde(default)]
    pub last_updated_at: Option<String>,
}

/// The sidecars of results file `out`: `<out>.state`, `<out>.results.jsonl`.
pub(crate) fn sidecars(out: &Path) -> (PathBuf, PathBuf) {
    let with = |suffix: &str| {
        let mut p = out.as_os_str().to_owned();
        p.push(suffix);
        PathBuf::from(p)
    };
    (with(".state"), with(".results.jsonl"))
}

/// Reads a `.state` sidecar: a located error for one Karenina's resume
/// would refuse (not JSON, a field of the wrong type, another format).
pub fn read_state(file: &Path) -> Result<ProgressState> {
    let text = crate::fsutil::read_regular_to_string(file)?;
    let s: ProgressState = serde_json::from_str(&text).map_err(|e| {
        located(
            file,
            e.line(),
            e.column(),
            "",
            format!("not a Karenina progressive-save state: {e}"),
        )
    })?;
    if s.format_version != STATE_FORMAT && s.format_version != LEGACY_STATE_FORMAT {
        return Err(located(
            file,
            1,
            1,
            "/format_version",
            format!(
                "state format {:?}: kld reads Karenina's {STATE_FORMAT} and {LEGACY_STATE_FORMAT}",
                s.format_version
            ),
        ));
    }
    Ok(s)
}

/// The file holding an unfinished run's results: `<out>.results.jsonl`, or
/// for a legacy state `<out>.tmp`.
pub fn results_sidecar(state_file: &Path, state: &ProgressState) -> PathBuf {
    let out = output_of(state_file);
    if state.is_legacy() {
        let mut p = out.into_os_string();
        p.push(".tmp");
        return PathBuf::from(p);
    }
    sidecars(&out).1
}

/// What a state and its sidecar lack for the run's numbers, one message
/// each, located in the state (`at /failed_count: lacks …`; the caller names
/// the file first).
pub fn lacks(state_file: &Path, state: &ProgressState) -> Vec<String> {
    let mut out = Vec::new();
    if state.failed_count.is_none() {
        out.push(format!(
            "at /failed_count: lacks `failed_count` (state format {} {}), which the run's failed-task count needs",
            state.format_version,
            if state.is_legacy() { "never writes it" } else { "left it out" }
        ));
    }
    for (field, v) in [
        ("total_tasks", state.total_tasks),
        ("completed_count", state.completed_count),
    ] {
        if v.is_none() {
            out.push(format!(
                "at /{field}: lacks `{field}`, which the run's progress (tasks done of planned) needs"
            ));
        }
    }
    let results = results_sidecar(state_file, state);
    if !results.is_file() {
        out.push(format!(
            "lacks its results file {}, which every number of the run needs",
            results.display()
        ));
    }
    out
}

impl ProgressState {
    /// A legacy (format 1.0) state.
    pub(crate) fn is_legacy(&self) -> bool {
        self.format_version == LEGACY_STATE_FORMAT
    }

    /// The export header Karenina's `write_final_export` writes from this
    /// state: `job_id` and the `verification_config` model summary.
    pub fn header(&self) -> Value {
        let models = |key: &str| -> Vec<Value> {
            self.config
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|m| {
                    serde_json::json!({
                        "provider": m.get("model_provider").cloned().unwrap_or(Value::Null),
                        "name": m.get("model_name").cloned().unwrap_or(Value::Null),
                        "temperature": m.get("temperature").cloned().unwrap_or(Value::Null),
                        "interface": m.get("interface").cloned().unwrap_or(Value::Null),
                    })
                })
                .collect()
        };
        let mut metadata = serde_json::json!({
            "verification_config": {
                "answering_models": models("answering_models"),
                "parsing_models": models("parsing_models"),
            },
        });
        if let Some(t) = self.start_time {
            metadata["job_id"] = format!("progressive-{}", t.trunc() as i64).into();
        }
        serde_json::json!({ "metadata": metadata })
    }
}

/// True when a sidecar ends in a partial line: a write cut short (Karenina
/// appends each result with its newline), which Karenina's reader skips.
pub(crate) fn ends_partial(file: &Path) -> Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = crate::fsutil::open_regular(file)?;
    let len = f.metadata().map_err(|e| Error::io(file, e))?.len();
    if len == 0 {
        return Ok(false);
    }
    let mut last = [0u8; 1];
    f.seek(SeekFrom::End(-1))
        .and_then(|_| f.read_exact(&mut last))
        .map_err(|e| Error::io(file, e))?;
    Ok(last[0] != b'\n')
}

/// Hands the rows of a `.results.jsonl` sidecar to `visit`, after `header`;
/// a partial last line ([`ends_partial`]) is skipped, as Karenina skips it.
/// Returns the SHA-256 of its bytes.
pub(crate) fn read_jsonl(file: &Path, header: &Value, visit: &mut dyn Visit) -> Result<String> {
    let bytes = crate::fsutil::read_regular(file)?;
    let whole = match bytes.iter().rposition(|b| *b == b'\n') {
        Some(i) => &bytes[..=i],
        None => &bytes[..0],
    };
    visit.header(header);
    for (i, line) in whole.lines().enumerate() {
        let line = line.map_err(|e| Error::io(file, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let path = format!("/{i}");
        let v = super::coerced(
            file,
            i + 1,
            &path,
            super::parse_value(file, &line, i + 1, &path)?,
        )?;
        visit
            .row(v)
            .map_err(|m| located(file, i + 1, 1, &path, m))?;
    }
    Ok(format!("{:x}", Sha256::digest(&bytes)))
}

/// True for the `.state` sidecar of an unfinished run outside a run folder
/// (`karenina verify --progressive-save --output OUT` interrupted): a
/// `*.state` file whose `.results.jsonl` sibling is there, or any `*.state`
/// file when `given` by name (then [`read_state`] decides).
pub fn is_state_input(p: &Path, given: bool) -> bool {
    let Some(out) = p
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".state"))
        .filter(|o| !o.is_empty())
    else {
        return false;
    };
    let in_run_folder = p.parent().is_some_and(super::is_run_folder);
    let out = p.with_file_name(out);
    let legacy_tmp = {
        let mut t = out.clone().into_os_string();
        t.push(".tmp");
        PathBuf::from(t)
    };
    p.is_file() && !in_run_folder && (given || sidecars(&out).1.is_file() || legacy_tmp.is_file())
}

/// The checkpoint a state's `benchmark_path` leads to (canonical): absolute
/// as is; relative against `cwd`, then the state's directory.
pub fn benchmark_of(state_file: &Path, state: &ProgressState, cwd: &Path) -> Option<PathBuf> {
    let p = Path::new(&state.benchmark_path);
    let dir = state_file.parent().unwrap_or(Path::new("."));
    [cwd.join(p), dir.join(p)]
        .into_iter()
        .find(|t| t.is_file())
        .and_then(|f| std::fs::canonicalize(f).ok())
}

/// SHA-256 of the state's bytes and its JSONL's digest.
pub(crate) fn combine(state_file: &Path, jsonl_sha: &str) -> Result<String> {
    let bytes = crate::fsutil::read_regular(state_file)?;
    let mut h = Sha256::new();
    h.update(&bytes);
    h.update(jsonl_sha.as_bytes());
    Ok(format!("{:x}", h.finalize()))
}

/// The results file a `.state` sidecar stands for (`<out>.state` → `<out>`).
pub(crate) fn output_of(state_file: &Path) -> PathBuf {
    state_file.with_file_name(
        state_file
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".state"))
            .unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rows(Vec<Value>);
    impl Visit for Rows {
        fn header(&mut self, _: &Value) {}
        fn row(&mut self, row: Value) -> std::result::Result<(), crate::results::RowError> {
            self.0.push(row);
            Ok(())
        }
    }

    #[test]
    fn a_partial_last_line_is_skipped_and_a_broken_one_before_it_located() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("results.json.results.jsonl");
        std::fs::write(&f, "{\"a\": 1}\n{\"a\": 2}\n{\"a\": ").unwrap();
        assert!(ends_partial(&f).unwrap());
        let mut rows = Rows(Vec::new());
        read_jsonl(&f, &Value::Null, &mut rows).unwrap();
        assert_eq!(rows.0.len(), 2);
        std::fs::write(&f, "{\"a\": 1}\n{\"a\": \n{\"a\": 3}\n").unwrap();
        assert!(!ends_partial(&f).unwrap());
        let e = read_jsonl(&f, &Value::Null, &mut Rows(Vec::new()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("results.jsonl:2:"), "{e}");
    }

    fn state(text: &str) -> Result<ProgressState> {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("results.json.state");
        std::fs::write(&f, text).unwrap();
        read_state(&f)
    }

    #[test]
    fn the_header_is_what_karenina_would_export() {
        let s = state(
            r#"{"format_version": "2.0", "benchmark_path": "b.jsonld", "start_time": 1795343714.93,
                "config": {"answering_models": [{"id": "m-0", "model_provider": "openai",
                  "model_name": "gpt", "temperature": 0.5, "interface": "langchain",
                  "endpoint_api_key": "**********"}], "parsing_models": []},
                "task_manifest": ["a"], "total_tasks": 1}"#,
        )
        .unwrap();
        assert_eq!(
            s.header(),
            serde_json::json!({"metadata": {"job_id": "progressive-1795343714",
              "verification_config": {"answering_models": [{"provider": "openai", "name": "gpt",
                "temperature": 0.5, "interface": "langchain"}], "parsing_models": []}}})
        );
        assert_eq!(s.total_tasks, Some(1));
    }

    #[test]
    fn a_state_karenina_would_refuse_is_located() {
        for (text, says) in [
            (
                r#"{"format_version": "3.0", "benchmark_path": "b", "config": {}}"#,
                "/format_version",
            ),
            (
                r#"{"format_version": "2.0", "benchmark_path": 3, "config": {}}"#,
                "invalid type",
            ),
            (
                r#"{"format_version": "2.0", "config": {}}"#,
                "missing field `benchmark_path`",
            ),
            ("{", "EOF"),
        ] {
            let e = state(text).unwrap_err().to_string();
            assert!(e.contains("results.json.state:") && e.contains(says), "{e}");
        }
    }

    #[test]
    fn a_legacy_state_is_read_and_says_what_it_lacks() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("results.json.state");
        std::fs::write(
            &f,
            r#"{"format_version": "1.0", "benchmark_path": "b", "config": {},
                "total_tasks": 4, "completed_count": 1}"#,
        )
        .unwrap();
        let s = read_state(&f).unwrap();
        assert!(s.is_legacy() && !is_state_input(&f, false) && is_state_input(&f, true));
        assert_eq!(results_sidecar(&f, &s), d.path().join("results.json.tmp"));
        let l = lacks(&f, &s);
        assert_eq!(l.len(), 2, "{l:?}");
        assert!(l[0].starts_with("at /failed_count: lacks `failed_count` (state format 1.0 never writes it), which the run's failed-task count needs"), "{}", l[0]);
        assert!(l[1].contains("lacks its results file") && l[1].contains("results.json.tmp"));
        std::fs::write(d.path().join("results.json.tmp"), "{}").unwrap();
        assert!(is_state_input(&f, false));
        assert_eq!(lacks(&f, &s).len(), 1);
    }
}
