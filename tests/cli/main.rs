//! The `kld` command line, end to end.

#[path = "../common/mod.rs"]
mod common;

mod batch_inputs;
mod checkpoint;
mod database;
mod database_live;
mod default_graph;
mod devices;
mod differential_db_benchmarks;
mod differential_import;
mod differential_karenina;
mod differential_numbers;
mod differential_prov;
mod differential_summary;
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
mod metadata;
mod numbers;
mod offline;
mod page_board;
mod page_leaderboard;
mod page_markup;
mod params;
mod preset;
mod prov;
mod push_stdin;
mod queries;
mod query_editor;
mod rdf;
mod remote;
mod results;
mod results_more;
mod runs;
mod runs_apart;
mod seams;
mod serve;
mod serve_cache;
mod serve_limits;
mod serving_claims;
mod sidecars;
mod siege_memory;
mod siege_serve;
mod siege_two;
mod taskeval;
mod terminal_names;
mod trust;
mod verdicts;
mod xml_out;

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The `kld` binary under test.
pub fn kld() -> Command {
    Command::cargo_bin("kld").unwrap()
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
