//! What kind of Karenina file a path holds, told by its content.
//!
//! Why: users keep checkpoints, presets and results exports side by side,
//! and name them `.json` as often as `.jsonld`. Telling them apart by
//! extension skipped checkpoints named `*.json` in directories, took other
//! JSON for broken results exports, and answered `kld canon results.json`
//! with a page of "missing @context" errors. The first few KiB say which it
//! is; every command scans directories and checks named files with this.
//!
//! This is the one place that holds the order in which inputs are told
//! apart (`recognise` for an input to load, [`find`] for a directory
//! scan); each format's own test of its first bytes stays with its reader
//! (`crate::results::sniff`, `crate::sqlite::sniff_file`, …).

use crate::error::{Error, Result};
use crate::results::Layout;
use std::path::{Path, PathBuf};

/// The separator between a database file and a run id in an input name
/// (`DB#run=<id>`).
pub const DB_RUN: &str = "#run=";

/// The separator between a database file and a benchmark name in an input
/// name (`DB#benchmark=<name>`).
pub const DB_BENCHMARK: &str = "#benchmark=";

/// Splits an input `DB#run=<id>` naming a database run.
pub fn database_run(path: &Path) -> Option<(PathBuf, String)> {
    let s = path.to_str()?;
    let (db, id) = s.rsplit_once(DB_RUN)?;
    let db = PathBuf::from(db);
    (!path.exists() && crate::sqlite::sniff_file(&db)).then(|| (db, id.to_string()))
}

/// Splits an input `DB#benchmark=<name>` naming a database benchmark.
pub fn database_benchmark(path: &Path) -> Option<(PathBuf, String)> {
    let s = path.to_str()?;
    let (db, name) = s.split_once(DB_BENCHMARK)?;
    let db = PathBuf::from(db);
    (!path.exists() && crate::sqlite::sniff_file(&db)).then(|| (db, name.to_string()))
}

/// What one input to load is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// `DB#run=<id>`: one run of Karenina's database.
    DatabaseRun {
        /// The database file.
        db: PathBuf,
        /// The run's id.
        run: String,
    },
    /// `DB#benchmark=<name>`: a benchmark kept in Karenina's database.
    DatabaseBenchmark {
        /// The database file.
        db: PathBuf,
        /// The benchmark's name.
        name: String,
    },
    /// A run folder (a directory holding `run_manifest.json`).
    RunFolder,
    /// An unfinished run's progressive-save `.state` sidecar.
    Unfinished,
    /// A whole Karenina database (read run by run, `DB#run=ID`).
    Database,
    /// A results export, in one of the layouts Karenina writes.
    Export(Layout),
    /// Anything else: read as a checkpoint (whose reader says what is wrong).
    File,
}

/// What the input `path` is, told in the one order every command loads
/// inputs in: a database run or benchmark by name, a run folder, an
/// unfinished run's sidecars, a whole database, a results export by its
/// first bytes, else a file read as a checkpoint.
pub(crate) fn recognise(path: &Path) -> Result<Input> {
    if let Some((db, run)) = database_run(path) {
        return Ok(Input::DatabaseRun { db, run });
    }
    if let Some((db, name)) = database_benchmark(path) {
        return Ok(Input::DatabaseBenchmark { db, name });
    }
    if path.is_dir() && crate::results::run_folder::is_run_folder(path) {
        return Ok(Input::RunFolder);
    }
    if crate::results::progress::is_state_input(path, true) {
        return Ok(Input::Unfinished);
    }
    if crate::sqlite::sniff_file(path) {
        return Ok(Input::Database);
    }
    if let Some(layout) = crate::results::sniff_file(path)? {
        return Ok(Input::Export(layout));
    }
    Ok(Input::File)
}

/// A kind of file kld knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A benchmark checkpoint (JSON-LD `DataFeed`, or the legacy `Dataset`).
    Checkpoint,
    /// A verification-results export (JSON 2.x or older, CSV, a TaskEval
    /// export, a karenina-gui JSON or CSV export).
    Results,
    /// A verification preset (`{"name", "config", …}`).
    Preset,
    /// Anything else.
    Other,
}

impl Kind {
    /// What it is, for messages ("a results export").
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Checkpoint => "a checkpoint",
            Kind::Results => "a results export",
            Kind::Preset => "a verification preset",
            Kind::Other => "not a Karenina file",
        }
    }
}

/// The kind of a file from its first bytes.
pub fn sniff(head: &[u8]) -> Kind {
    if crate::results::sniff(head).is_some() {
        return Kind::Results;
    }
    let text = String::from_utf8_lossy(&head[..head.len().min(16 << 10)]);
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if !t.starts_with('{') {
        return Kind::Other;
    }
    let has = |key: &str| t.contains(&format!("\"{key}\""));
    if has("@context")
        && (has("DataFeed") || has("dataFeedElement") || has("Dataset") || has("@graph"))
    {
        return Kind::Checkpoint;
    }
    if has("config") && has("name") && !has("@context") {
        return Kind::Preset;
    }
    Kind::Other
}

/// The kind of the file at `path` (its first 16 KiB).
pub fn of_file(path: &Path) -> Result<Kind> {
    Ok(sniff(&crate::fsutil::input_head(path, 16 << 10)?))
}

/// The Karenina files under FILE|DIR arguments: named files as given,
/// directories searched recursively for `.jsonld`, `.json`, `.csv` and
/// SQLite files, run folders and unfinished runs' `.state` sidecars of the `wanted` kinds (by content). Returns the files found, the files
/// of other kinds skipped in directories, and the arguments that could not
/// be read.
pub struct Found {
    /// Files to work on, in argument order (directories sorted).
    pub files: Vec<PathBuf>,
    /// Files in directories that are not of a wanted kind, with their kind.
    pub skipped: Vec<(PathBuf, Kind)>,
    /// Arguments or directory entries that could not be read.
    pub failed: Vec<Error>,
}

/// See [`Found`].
pub fn find(args: &[PathBuf], wanted: &[Kind]) -> Found {
    let mut found = Found {
        files: Vec::new(),
        skipped: Vec::new(),
        failed: Vec::new(),
    };
    let exts = [
        ".jsonld", ".json", ".csv", ".db", ".sqlite", ".sqlite3", ".state",
    ];
    for r in crate::fsutil::collect_inputs_and_units(
        args,
        &exts,
        &crate::results::run_folder::is_run_folder,
    ) {
        match r {
            Ok(p) if args.contains(&p) => found.files.push(p),
            // Run folders, Karenina's database and an unfinished run's
            // sidecars hold results.
            Ok(p)
                if p.is_dir()
                    || crate::sqlite::sniff_file(&p)
                    || crate::results::progress::is_state_input(&p, false) =>
            {
                if wanted.contains(&Kind::Results) {
                    found.files.push(p)
                } else {
                    found.skipped.push((p, Kind::Results))
                }
            }
            Ok(p) => match of_file(&p) {
                Ok(k) if wanted.contains(&k) => found.files.push(p),
                Ok(k) => found.skipped.push((p, k)),
                Err(e) => found.failed.push(e),
            },
            Err(e) => found.failed.push(e),
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_examples_and_the_corpus_are_told_apart_by_content() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for f in [
            "examples/probe.jsonld",
            "examples/notebook.jsonld",
            "examples/scenario.jsonld",
        ] {
            assert_eq!(of_file(&root.join(f)).unwrap(), Kind::Checkpoint, "{f}");
        }
        for f in [
            "examples/runs/notebook.verification.json",
            "examples/runs/scenario.verification.json",
        ] {
            assert_eq!(of_file(&root.join(f)).unwrap(), Kind::Results, "{f}");
        }
        assert_eq!(
            sniff(br#"{"id": "x", "name": "fast", "description": "", "config": {"answering_models": []}}"#),
            Kind::Preset
        );
        assert_eq!(
            sniff(br#"{"questions": 3, "format_version_seen": "2.2"}"#),
            Kind::Other
        );
        assert_eq!(sniff(b"not json"), Kind::Other);
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        for f in [
            "taskeval/taskeval.json",
            "gui/custom.json",
            "gui/plain.json",
            "gui/custom.csv",
        ] {
            assert_eq!(of_file(&root.join(f)).unwrap(), Kind::Results, "{f}");
        }
    }
}
