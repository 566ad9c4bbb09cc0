//! What kind of Karenina file a path holds, told by its content.
//!
//! Why: users keep checkpoints, presets and results exports side by side,
//! and name them `.json` as often as `.jsonld`. Telling them apart by
//! extension skipped checkpoints named `*.json` in directories, took other
//! JSON for broken results exports, and answered `kld canon results.json`
//! with a page of "missing @context" errors. The first few KiB say which it
//! is; every command scans directories and checks named files with this.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

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
                    || crate::results::database::sniff_file(&p)
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
