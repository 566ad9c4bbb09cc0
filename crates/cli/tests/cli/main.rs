//! The `kld` command line, end to end.

#[path = "../../../../tests/common/mod.rs"]
mod common;

mod batch_inputs;
mod checkpoint;
mod compare;
mod database;
mod database_live;
mod database_siege;
mod default_graph;
mod devices;
mod differential;
mod doc_claims;
mod eee_paths;
mod find;
mod first_hour;
mod git;
mod git_merge;
mod git_merge_siege;
mod git_recipes;
mod hostile;
mod hostile_eval;
mod hostile_files;
mod hostile_serve;
mod hostile_watch;
mod identity;
mod import;
mod import_inspect;
mod import_siege;
mod interop;
mod interop_clients;
mod interop_hostile;
mod interop_page;
mod manners;
mod manners_endpoint;
mod manuscript;
mod manuscript_compare;
mod metadata;
mod nt_spaces;
mod numbers;
mod offline;
mod page_board;
mod page_compare;
mod page_figures;
mod page_leaderboard;
mod page_markup;
mod params;
mod preset;
mod prov;
mod push_stdin;
mod queries;
mod query_editor;
mod rate_names;
mod rdf;
mod remote;
mod results;
mod results_more;
mod runs;
mod runs_apart;
mod seams;
mod serve;
mod serve_cache;
mod serve_keys;
mod serve_limits;
mod serving_claims;
mod sidecars;
mod siege_left;
mod siege_memory;
mod siege_notes;
mod siege_serve;
mod siege_two;
mod siege_values;
mod table_interop;
mod table_query;
mod table_watch;
mod taskeval;
mod terminal_names;
mod trust;
mod verdicts;
mod xml_out;
mod zip_bomb;

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The `kld` binary under test, run from the repository's folder (as a
/// user runs it there; relative paths in fixtures, such as a results
/// database's `checkpoint_path`, resolve from it). Cargo runs this test
/// binary in `crates/cli`.
pub fn kld() -> Command {
    let mut cmd = Command::cargo_bin("kld").unwrap();
    cmd.current_dir(env!("KLD_SOURCE_ROOT"));
    cmd
}

/// Copies `src` into `dir`, returning the new path.
pub fn copy_to(dir: &Path, src: &Path) -> PathBuf {
    let dst = dir.join(src.file_name().unwrap());
    std::fs::copy(src, &dst).unwrap();
    dst
}

/// stdout of a successful run.
pub fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{:?} failed: {}",
        cmd,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
