//! What a push sends. The inputs are first read as `kld query` reads them
//! (one local load: the same readers, one run one count, the same
//! bindings), so a server fed by `kld push` answers the catalogue as the
//! local store does over the same inputs: a run that reaches kld twice (its
//! JSON and CSV exports, a renamed copy, a database row beside its export)
//! is sent once, the copy that binds before one that cannot. What is left is
//! compared with the server's provenance graph: files unchanged since the
//! last push are not sent again, and a run already on the server under
//! another file (pushed earlier) is recognised by its result keys
//! ([`RunIdentity`]) and kept once there too.

use super::push::{server_provenance, Pushed};
use super::RemoteClient;
use crate::error::Result;
use crate::store::binding::link::Link;
pub use crate::store::{read_inputs, Local};
use crate::store::{GraphKind, RunIdentity, RunRank};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Why a file is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Not on the server yet.
    New,
    /// On the server, but the file changed since.
    Changed,
}

/// Why a graph on the server is deleted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Deletion {
    /// `--prune`: its file is no longer among the inputs.
    Pruned,
    /// A copy of a run that is kept under another graph (named here).
    SameRun(String),
}

/// What a push will do.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// Files to send, with their graph and why.
    pub send: Vec<(PathBuf, String, Reason)>,
    /// Files whose graph on the server is up to date.
    pub unchanged: Vec<(PathBuf, String)>,
    /// Input files not sent: their run is on the server already, under the
    /// graph named (pushed earlier from another file).
    pub same_run: Vec<(PathBuf, String)>,
    /// Graphs to delete, and why.
    pub delete: Vec<(String, Deletion)>,
    /// What the server's provenance graph holds now.
    pub server: BTreeMap<String, Pushed>,
    /// For each results graph to send or keep: its run's identity.
    pub runs: BTreeMap<String, RunIdentity>,
}

/// Decides what to send, keep and delete, for the inputs `files` as read
/// into `local`.
pub fn plan(client: &RemoteClient, local: &Local, files: &[PathBuf], prune: bool) -> Result<Plan> {
    let server = server_provenance(client)?;
    let mut p = Plan::default();
    let failed: BTreeSet<&Path> = local.failed.iter().map(|(f, _)| f.as_path()).collect();
    let mut inputs = BTreeSet::new();
    for f in files.iter().filter(|f| !failed.contains(f.as_path())) {
        let graph = crate::store::graph_name_for(f)?;
        inputs.insert(graph.clone());
        let Some(info) = local.store.resolve(&graph) else {
            // A copy of a run kept under another input: if an earlier
            // push sent it, it goes, or the run would count twice.
            if server.contains_key(&graph) {
                let of = local
                    .runs
                    .iter()
                    .find(|b| b.graph == graph)
                    .and_then(|b| match &b.link {
                        Link::Duplicate { of, .. } => Some(of.clone()),
                        _ => None,
                    })
                    .unwrap_or_default();
                p.delete.push((graph, Deletion::SameRun(of)));
            }
            continue;
        };
        if info.kind == GraphKind::Results {
            p.runs
                .insert(graph.clone(), local.store.run_identity(&graph)?);
        }
        match server.get(&graph) {
            Some(s) if s.sha256 == info.sha256 => p.unchanged.push((f.clone(), graph)),
            Some(_) => p.send.push((f.clone(), graph, Reason::Changed)),
            None => p.send.push((f.clone(), graph, Reason::New)),
        }
    }
    same_runs_on_server(local, &server, &inputs, &mut p);
    if prune {
        let listed: BTreeSet<String> = p.delete.iter().map(|(g, _)| g.clone()).collect();
        p.delete.extend(
            server
                .keys()
                .filter(|g| !inputs.contains(*g) && !listed.contains(*g))
                .map(|g| (g.clone(), Deletion::Pruned)),
        );
    }
    p.server = server;
    Ok(p)
}

/// A run on the server under a graph that is not among the inputs (an
/// earlier push of another file) and also among the inputs: one copy stays,
/// ranked as a local load ranks copies ([`RunRank`]).
fn same_runs_on_server(
    local: &Local,
    server: &BTreeMap<String, Pushed>,
    inputs: &BTreeSet<String>,
    p: &mut Plan,
) {
    let mut dropped_inputs = BTreeSet::new();
    for (graph, id) in &p.runs {
        if id.results == 0 {
            continue;
        }
        let Some(info) = local.store.resolve(graph) else {
            continue;
        };
        for s in server.values().filter(|s| {
            s.kind == GraphKind::Results
                && !inputs.contains(&s.graph)
                && s.run_keys == id.keys_digest
        }) {
            // Bound to two different checkpoints: two runs, both stay.
            if let (Some(b), Some(theirs)) = (&info.binding, &s.bound_to) {
                if b.checkpoint != *theirs {
                    continue;
                }
            }
            let mine = RunRank {
                explicit: false,
                binds: info.binding.is_some(),
                results: id.results,
                carries: 0,
                json: id.json,
                source: &info.source,
            };
            let theirs = RunRank {
                explicit: false,
                binds: s.bound_to.is_some(),
                results: id.results,
                carries: 0,
                json: s.run_format == "json",
                source: &s.source,
            };
            if mine.keep_order(&theirs).is_le() {
                if !p.delete.iter().any(|(g, _)| *g == s.graph) {
                    p.delete
                        .push((s.graph.clone(), Deletion::SameRun(info.source.clone())));
                }
            } else {
                dropped_inputs.insert((graph.clone(), s.graph.clone()));
            }
        }
    }
    for (graph, kept) in dropped_inputs {
        let take = |v: &mut Vec<(PathBuf, String)>| {
            v.iter()
                .position(|(_, g)| *g == graph)
                .map(|i| v.remove(i).0)
        };
        let file = take(&mut p.unchanged).or_else(|| {
            p.send
                .iter()
                .position(|(_, g, _)| *g == graph)
                .map(|i| p.send.remove(i).0)
        });
        if let Some(f) = file {
            p.same_run.push((f, kept.clone()));
        }
        // Pushed before: it goes, the server's copy stays.
        if server.contains_key(&graph) && !p.delete.iter().any(|(g, _)| *g == graph) {
            p.delete.push((graph.clone(), Deletion::SameRun(kept)));
        }
        p.runs.remove(&graph);
    }
}
