//! Karenina run folders (`karenina verify --run-root R --run-label L` writes
//! `R/L_<YYYYmmddTHHMMSSZ>/`, Karenina's `benchmark/run_artifacts.py`): a
//! directory holding `run_manifest.json` is read as one run.
//!
//! The manifest is validated as Karenina's `RunManifest` validates it
//! (pydantic, `extra="forbid"`): unknown fields, wrong types, an unknown
//! status and out-of-range counts are located errors. Its results file
//! (`results_path`, a v2.x export) is mapped as an export is; a run
//! interrupted before its export is read from the progressive-save sidecar
//! `<results>.results.jsonl` (one result per line); a run with neither (a
//! `failed` run) is a run node with its failure and no results.
//!
//! An agentic run's workspace manifest (`workspaces/manifest.json`, or
//! `manifest.jsonl` while running: [`super::workspace`]) and the sidecars of
//! `karenina repair` beside the export (`results.json.repair_<ts>.json`,
//! with the backup `.backup_<ts>` it names: [`super::repair`]) are mapped
//! with PROV-O onto the results they belong to. `traces/` is not read.
//!
//! The run node also gets the manifest: `karenina:runSource "run-folder"`,
//! `runStatus`, `runLabel`, `manifestRunName`, `createdAt`, `updatedAt`,
//! `completedAt`, `benchmarkPath`, `selectedQuestionCount`,
//! `replicateCount`, `answeringModels` / `parsingModels` / `configuration`
//! (`rdf:JSON`, secrets as Karenina masked them), `runFailureType`,
//! `runFailureMessage`.

use super::located;
use crate::error::Result;
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

pub use super::{is_run_folder, MANIFEST};

/// A run's lifecycle status (`RunStatus`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Still running (or killed without a word).
    Running,
    /// Finished and exported.
    Completed,
    /// Stopped by the user.
    Interrupted,
    /// Stopped by an error.
    Failed,
}

impl RunStatus {
    /// As the manifest writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Completed => "completed",
            RunStatus::Interrupted => "interrupted",
            RunStatus::Failed => "failed",
        }
    }
}

/// `ModelIdentity` (extra fields forbidden).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelIdentity {
    /// The model interface (`langchain`, `openrouter`, …).
    pub interface: String,
    /// The model name.
    pub model_name: String,
    /// MCP tool names.
    #[serde(default)]
    pub tools: Vec<String>,
    /// The model config's id when it differs from the name.
    #[serde(default)]
    pub config_id: Option<String>,
}

/// `RunManifest`, schema version 1.0 (extra fields forbidden).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunManifest {
    /// `"1.0"`.
    #[serde(default = "schema_version")]
    pub schema_version: String,
    /// Lifecycle status.
    pub status: RunStatus,
    /// The run label (`--run-label`).
    pub label: String,
    /// The results' run name.
    pub run_name: String,
    /// Creation time (ISO 8601, `Z`).
    pub created_at: String,
    /// Last update.
    pub updated_at: String,
    /// When the run stopped (any status but running).
    #[serde(default)]
    pub completed_at: Option<String>,
    /// The benchmark file, as given to `karenina verify`.
    pub benchmark_path: String,
    /// Questions selected.
    #[serde(default, deserialize_with = "lax_count_opt")]
    pub selected_question_count: Option<u64>,
    /// Replicates (≥ 1).
    #[serde(deserialize_with = "lax_count")]
    pub replicate_count: u64,
    /// Answering models.
    pub answering_models: Vec<ModelIdentity>,
    /// Parsing models.
    pub parsing_models: Vec<ModelIdentity>,
    /// The verification config, secrets masked.
    pub configuration: serde_json::Map<String, Value>,
    /// The results export, relative to the folder.
    #[serde(default = "results_path")]
    pub results_path: String,
    /// Readable traces, relative to the folder.
    #[serde(default = "traces_path")]
    pub traces_path: String,
    /// Workspace sidecars, relative to the folder.
    #[serde(default = "workspaces_path")]
    pub workspaces_path: String,
    /// The exception type of a failed run.
    #[serde(default)]
    pub failure_type: Option<String>,
    /// Its message.
    #[serde(default)]
    pub failure_message: Option<String>,
}

/// A count as pydantic's lax mode reads an `int` field: an integer, an
/// integral float, a boolean or a string of an integer; not negative
/// (`ge=0`).
fn lax_count<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<u64, D::Error> {
    use serde::de::Error as _;
    let v = Value::deserialize(d)?;
    let n = match &v {
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
        Value::Bool(b) => Some(i64::from(*b)),
        Value::String(s) => s.trim().parse::<i64>().ok(),
        _ => None,
    };
    match n {
        Some(n) if n >= 0 => Ok(n as u64),
        Some(n) => Err(D::Error::custom(format!("{n} is negative"))),
        None => Err(D::Error::custom(format!(
            "invalid type: {v}, expected an integer"
        ))),
    }
}

fn lax_count_opt<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<u64>, D::Error> {
    #[derive(Deserialize)]
    struct Lax(#[serde(deserialize_with = "lax_count")] u64);
    Ok(Option::<Lax>::deserialize(d)?.map(|l| l.0))
}

fn schema_version() -> String {
    "1.0".into()
}
fn results_path() -> String {
    "results.json".into()
}
fn traces_path() -> String {
    "traces".into()
}
fn workspaces_path() -> String {
    "workspaces".into()
}

/// Where a manifest's `benchmark_path` leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Benchmark {
    /// An existing file (canonical path).
    File(PathBuf),
    /// Nothing usable: why (the paths tried, or not a file).
    Missing(String),
}

/// A run folder read: its manifest and where its results are.
#[derive(Clone, Debug)]
pub struct RunFolder {
    /// The folder.
    pub dir: PathBuf,
    /// The validated manifest.
    pub manifest: RunManifest,
    /// The results export, if present.
    pub results: Option<PathBuf>,
    /// The progressive-save sidecar, when there is no export.
    pub sidecar: Option<PathBuf>,
    /// The progressive-save state beside it (`<results>.state`), when there
    /// is no export.
    pub state: Option<(PathBuf, super::progress::ProgressState)>,
    /// The manifest's benchmark.
    pub benchmark: Benchmark,
}

/// A serde path as a JSON pointer (`/answering_models/0/name`; `/` for the
/// document itself).
fn json_pointer(p: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for s in p.iter() {
        out.push('/');
        match s {
            Segment::Seq { index } => out.push_str(&index.to_string()),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                out.push_str(&key.replace('~', "~0").replace('/', "~1"))
            }
            Segment::Unknown => out.push('?'),
        }
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// Reads and validates a run folder's manifest (a located error for a
/// manifest Karenina would refuse) and finds its results and benchmark.
/// A relative `benchmark_path` is tried against `cwd`, then against the run
/// root (the folder's parent).
pub fn read(dir: &Path, cwd: &Path) -> Result<RunFolder> {
    let path = dir.join(MANIFEST);
    let text = crate::fsutil::read_regular_to_string(&path)?;
    let manifest: RunManifest = {
        let de = &mut serde_json::Deserializer::from_str(&text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let pointer = json_pointer(e.path());
            let field = pointer.rsplit('/').next().unwrap_or("").to_string();
            let inner = e.into_inner();
            let (line, column) = (inner.line(), inner.column());
            // serde_json appends " at line L column C": the location is said once.
            let why = inner.to_string();
            let why = why.split(" at line ").next().unwrap_or(&why).to_string();
            let message = if field.is_empty() {
                format!("not a Karenina run manifest: {why}")
            } else {
                format!("not a Karenina run manifest: `{field}`: {why}")
            };
            located(&path, line, column, &pointer, message)
        })?
    };
    let at = |field: &str, m: &str| located(&path, 1, 1, &format!("/{field}"), m);
    if manifest.schema_version != "1.0" {
        return Err(at(
            "schema_version",
            &format!(
                "schema version {:?}: kld reads run manifests 1.0",
                manifest.schema_version
            ),
        ));
    }
    if manifest.replicate_count < 1 {
        return Err(at("replicate_count", "must be at least 1"));
    }
    let inside = |rel: &str, field: &str| -> Result<PathBuf> {
        let p = Path::new(rel);
        if p.is_absolute() || p.components().any(|c| c == std::path::Component::ParentDir) {
            return Err(at(field, &format!("{rel:?} leaves the run folder")));
        }
        Ok(dir.join(p))
    };
    let results_file = inside(&manifest.results_path, "results_path")?;
    let (state_file, jsonl) = super::progress::sidecars(&results_file);
    // A results file or sidecar that is there but not a regular file (a
    // FIFO, a device) is an error, not "no results".
    for f in [&results_file, &state_file, &jsonl] {
        if let Some(e) = crate::fsutil::not_regular(f) {
            return Err(e);
        }
    }
    let results = results_file.is_file().then(|| results_file.clone());
    let sidecar = (results.is_none() && jsonl.is_file()).then_some(jsonl);
    let state = match results.is_none() && state_file.is_file() {
        true => Some((
            state_file.clone(),
            super::progress::read_state(&state_file)?,
        )),
        false => None,
    };
    // Run folders came with the JSONL sidecar (state format 2.0); a legacy
    // state's `.tmp` results are read only outside one.
    if let Some((f, s)) = &state {
        if s.is_legacy() {
            return Err(super::located(
                f,
                1,
                1,
                "/format_version",
                "a run folder's progressive-save state is format 2.0 (its results are the .results.jsonl sidecar)",
            ));
        }
    }
    let mut benchmark = find_benchmark(&manifest.benchmark_path, dir, cwd);
    // The state's benchmark_path, if the manifest's leads nowhere.
    if let (Benchmark::Missing(_), Some((_, s))) = (&benchmark, &state) {
        if s.benchmark_path != manifest.benchmark_path {
            if let found @ Benchmark::File(_) = find_benchmark(&s.benchmark_path, dir, cwd) {
                benchmark = found;
            }
        }
    }
    Ok(RunFolder {
        dir: dir.to_path_buf(),
        manifest,
        results,
        sidecar,
        state,
        benchmark,
    })
}

fn find_benchmark(given: &str, dir: &Path, cwd: &Path) -> Benchmark {
    let p = Path::new(given);
    let tries: Vec<PathBuf> = if p.is_absolute() {
        vec![p.to_path_buf()]
    } else {
        let root = std::fs::canonicalize(dir)
            .ok()
            .and_then(|d| d.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| dir.join(".."));
        vec![cwd.join(p), root.join(p)]
    };
    for t in &tries {
        if t.is_file() {
            if let Ok(c) = std::fs::canonicalize(t) {
                return Benchmark::File(c);
            }
        } else if t.is_dir() {
            return Benchmark::Missing(format!(
                "benchmark_path {given:?} is a directory ({}), not a checkpoint",
                t.display()
            ));
        }
    }
    Benchmark::Missing(format!(
        "benchmark_path {given:?} not found (tried {})",
        tries
            .iter()
            .map(|t| t.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Why a run folder's workspaces are not read (`KLD-W201`): its manifest's
/// `workspaces_path` leaves the folder. The text is the located warning.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}:1:1: warning[KLD-W201] at /workspaces_path: {workspaces_path:?} leaves the run folder; its workspaces are not read", manifest.display())]
pub struct WorkspacesOutside {
    /// The run's manifest.
    pub manifest: PathBuf,
    /// The path it names.
    pub workspaces_path: String,
}

/// The folder's workspaces directory, if its manifest names one inside it
/// (else the located warning `KLD-W201` saying why it is not read).
pub fn workspaces_dir(run: &RunFolder) -> std::result::Result<PathBuf, WorkspacesOutside> {
    let rel = Path::new(&run.manifest.workspaces_path);
    if rel.is_absolute()
        || rel
            .components()
            .any(|c| c == std::path::Component::ParentDir)
    {
        return Err(WorkspacesOutside {
            manifest: run.dir.join(MANIFEST),
            workspaces_path: run.manifest.workspaces_path.clone(),
        });
    }
    Ok(run.dir.join(rel))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(extra: &str) -> String {
        format!(
            r#"{{"status": "completed", "label": "l", "run_name": "l", "created_at": "2026-01-01T00:00:00Z",
 "updated_at": "2026-01-01T00:00:00Z", "benchmark_path": "b.jsonld", "replicate_count": 1,
 "answering_models": [], "parsing_models": [], "configuration": {{}}{extra}}}"#
        )
    }

    fn read_text(text: &str) -> Result<RunFolder> {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join(MANIFEST), text).unwrap();
        read(d.path(), d.path())
    }

    #[test]
    fn a_valid_manifest_reads() {
        let r = read_text(&manifest("")).unwrap();
        assert_eq!(r.manifest.status, RunStatus::Completed);
        assert!(r.results.is_none() && r.sidecar.is_none());
        assert!(matches!(r.benchmark, Benchmark::Missing(_)));
    }

    #[test]
    fn unknown_fields_wrong_types_and_escapes_are_located() {
        for (extra, says) in [
            (r#", "colour": 1"#, "unknown field `colour`"),
            (
                r#", "selected_question_count": "many""#,
                "at /selected_question_count: not a Karenina run manifest: `selected_question_count`: invalid type",
            ),
            (r#", "results_path": "../x.json""#, "/results_path"),
        ] {
            let e = read_text(&manifest(extra)).unwrap_err().to_string();
            assert!(e.contains(MANIFEST) && e.contains(says), "{e}");
        }
        // Counts as pydantic's lax mode reads them (Karenina accepts these).
        let r = read_text(
            &manifest(r#", "selected_question_count": "2""#)
                .replace(r#""replicate_count": 1"#, r#""replicate_count": 3.0"#),
        )
        .unwrap();
        assert_eq!(
            (
                r.manifest.replicate_count,
                r.manifest.selected_question_count
            ),
            (3, Some(2))
        );
        for bad in ["3.5", "-1", "\"three\"", "[]"] {
            let e = read_text(&manifest("").replace(
                r#""replicate_count": 1"#,
                &format!(r#""replicate_count": {bad}"#),
            ))
            .unwrap_err()
            .to_string();
            assert!(e.contains(MANIFEST), "{bad}: {e}");
        }
        let e = read_text(&manifest("").replace("completed", "done"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown variant `done`"), "{e}");
    }
}
