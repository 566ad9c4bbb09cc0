//! What a run folder's manifest (`run_manifest.json`) and an unfinished
//! run's progressive-save state say about the run, on its node, with the
//! run's results mapped as an export's are ([`super::Mapping`]) and its
//! provenance ([`super::prov`]). [`crate::results::run_folder`] and
//! [`crate::results::progress`] read the files.

use super::{int, json, k, prov, time, Mapping, ResultsOptions};
use crate::error::Result;
use crate::results::progress::{self, ProgressState};
use crate::results::run_folder::{workspaces_dir, ModelIdentity, RunFolder, MANIFEST};
use crate::results::{read_path, repair, workspace, Visit};
use oxigraph::model::{GraphName, Literal, NamedOrBlankNode, Quad, Term};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::Path;

/// What mapping a run folder gives back.
#[derive(Clone, Debug, Default)]
pub struct RunMapped {
    /// The folder's digest: SHA-256 of the manifest's bytes, the results'
    /// SHA-256, the progressive-save state, the workspace manifest and the
    /// repair sidecars.
    pub sha256: String,
    /// Located warnings about its workspace manifest and repair sidecars
    /// (`KLD-W201`, `KLD-W202`): the run loads, these say what was left out
    /// or does not match.
    pub warnings: Vec<String>,
}

/// Maps a run folder into `graph`: its results (export or sidecar) as an
/// export is mapped, the manifest on the run node, its workspace captures
/// and repairs with PROV-O.
pub(crate) fn map_run_folder(
    run: &RunFolder,
    graph: &GraphName,
    opts: ResultsOptions,
    sink: &mut dyn FnMut(Quad),
) -> Result<RunMapped> {
    let mut warnings = Vec::new();
    let workspaces = match workspaces_dir(run) {
        Ok(d) => Some(d),
        Err(w) => {
            warnings.push(w.to_string());
            None
        }
    };
    let manifest = workspaces.as_deref().and_then(workspace::read);
    let repairs = run
        .results
        .as_deref()
        .map(repair::sidecars)
        .unwrap_or_default();
    let mut m = Mapping::new(graph, opts, sink);
    if manifest.is_some() || !repairs.is_empty() {
        m.mapper.record_rows();
    }
    let header = run
        .state
        .as_ref()
        .map_or_else(|| serde_json::json!({}), |(_, s)| s.header());
    let results_sha = match (&run.results, &run.sidecar) {
        (Some(f), _) => read_path(f, &mut m)?,
        (None, Some(jsonl)) => progress::read_jsonl(jsonl, &header, &mut m)?,
        (None, None) => {
            if run.state.is_some() {
                m.header(&header);
            }
            String::new()
        }
    };
    // The folder's digest: its manifest's bytes and its results' digest, so
    // a new status is a change too.
    let p = run.dir.join(MANIFEST);
    let bytes = crate::fsutil::read_regular(&p)?;
    let mut h = Sha256::new();
    h.update(&bytes);
    h.update(results_sha.as_bytes());
    if let Some((f, _)) = &run.state {
        h.update(crate::fsutil::read_regular(f)?);
    }
    if !m.header_seen {
        m.mapper.run(&serde_json::json!({}), m.sink);
    }
    let node = NamedOrBlankNode::BlankNode(m.mapper.run_node().clone());
    let rows = m.mapper.take_recorded();
    let repaired = match &run.results {
        Some(f) if !repairs.is_empty() => prov::map_repairs(f, &node, &rows, graph, &mut *m.sink),
        _ => prov::Repairs::default(),
    };
    h.update(&repaired.bytes);
    warnings.extend(repaired.warnings);
    if let (Some(mf), Some(dir)) = (&manifest, &workspaces) {
        if let Ok(b) = crate::fsutil::read_regular(&mf.file) {
            h.update(b);
        }
        let results: std::collections::HashMap<String, NamedOrBlankNode> = rows
            .iter()
            .filter_map(|r| Some((r.result_id.clone()?, r.node.clone())))
            .collect();
        let targets = prov::Targets {
            results: &results,
            replaced: &repaired.replaced,
            replaced_keys: &repaired.replaced_keys,
        };
        warnings.extend(prov::map_workspaces(
            mf,
            dir,
            &run.dir,
            &targets,
            graph,
            &mut *m.sink,
        ));
    }
    let sha = format!("{:x}", h.finalize());
    let mf = &run.manifest;
    let string = |s: &str| Term::Literal(Literal::new_simple_literal(s));
    let mut facts: Vec<(&str, Term)> = vec![
        ("runSource", string("run-folder")),
        ("runStatus", string(mf.status.as_str())),
        ("runLabel", string(&mf.label)),
        ("manifestRunName", string(&mf.run_name)),
        ("createdAt", time(&mf.created_at)),
        ("updatedAt", time(&mf.updated_at)),
        ("benchmarkPath", string(&mf.benchmark_path)),
        ("replicateCount", int(mf.replicate_count)),
        ("answeringModels", json(&models(&mf.answering_models))),
        ("parsingModels", json(&models(&mf.parsing_models))),
        ("configuration", json(&mf.configuration)),
    ];
    if let Some(t) = &mf.completed_at {
        facts.push(("completedAt", time(t)));
    }
    if let Some(n) = mf.selected_question_count {
        facts.push(("selectedQuestionCount", int(n)));
    }
    if let Some(t) = &mf.failure_type {
        facts.push(("runFailureType", string(t)));
    }
    if let Some(t) = &mf.failure_message {
        facts.push(("runFailureMessage", string(t)));
    }
    if let Some((_, st)) = &run.state {
        for (p, n) in [
            ("plannedTasks", st.total_tasks),
            ("completedTasks", st.completed_count),
            ("failedTasks", st.failed_count),
        ] {
            if let Some(n) = n {
                facts.push((p, int(n)));
            }
        }
        if let Some(t) = &st.last_updated_at {
            facts.push(("progressUpdatedAt", time(t)));
        }
    }
    if run.results.is_none() {
        let from = if run.sidecar.is_some() || run.state.is_some() {
            "progressive-save sidecar"
        } else {
            "none"
        };
        facts.push(("resultsFrom", string(from)));
    }
    for (p, o) in facts {
        (m.sink)(Quad::new(node.clone(), k(p), o, graph.clone()));
    }
    Ok(RunMapped {
        sha256: sha,
        warnings,
    })
}

/// Maps an unfinished run from its sidecars (`state_file` and the
/// `.results.jsonl` beside it, if any) into `graph`: its results as Karenina
/// would have exported them, and on the run node `runSource
/// "progressive-save"`, `runStatus "incomplete"`, `createdAt`, `updatedAt`,
/// `benchmarkPath`, `configuration` (`rdf:JSON`, secrets as Karenina masked
/// them), `plannedTasks`, `completedTasks`, `failedTasks`, `resultsFrom`.
/// Returns its digest: SHA-256 of the state's bytes and the JSONL's digest.
pub(crate) fn map_progress(
    state_file: &Path,
    state: &ProgressState,
    graph: &GraphName,
    opts: ResultsOptions,
    sink: &mut dyn FnMut(Quad),
) -> Result<String> {
    let mut m = Mapping::new(graph, opts, sink);
    let jsonl = progress::results_sidecar(state_file, state);
    let header = state.header();
    let jsonl_sha = match (jsonl.is_file(), state.is_legacy()) {
        // A legacy state's `.tmp` is a whole export, with its own header.
        (true, true) => read_path(&jsonl, &mut m)?,
        (true, false) => progress::read_jsonl(&jsonl, &header, &mut m)?,
        (false, _) => {
            m.header(&header);
            String::new()
        }
    };
    let sha = progress::combine(state_file, &jsonl_sha)?;
    let node = NamedOrBlankNode::BlankNode(m.mapper.run_node().clone());
    let string = |s: &str| Term::Literal(Literal::new_simple_literal(s));
    let mut facts: Vec<(&str, Term)> = vec![
        ("runSource", string("progressive-save")),
        ("runStatus", string("incomplete")),
        ("benchmarkPath", string(&state.benchmark_path)),
        ("configuration", json(&state.config)),
        (
            "resultsFrom",
            string(if state.is_legacy() {
                "progressive-save .tmp export (state format 1.0)"
            } else {
                "progressive-save sidecar"
            }),
        ),
    ];
    for (p, n) in [
        ("plannedTasks", state.total_tasks),
        ("completedTasks", state.completed_count),
        ("failedTasks", state.failed_count),
    ] {
        if let Some(n) = n {
            facts.push((p, int(n)));
        }
    }
    if let Some(t) = &state.created_at {
        facts.push(("createdAt", time(t)));
    }
    if let Some(t) = &state.last_updated_at {
        facts.push(("updatedAt", time(t)));
    }
    for (p, o) in facts {
        (m.sink)(Quad::new(node.clone(), k(p), o, graph.clone()));
    }
    Ok(sha)
}

fn models(ms: &[ModelIdentity]) -> Value {
    Value::Array(
        ms.iter()
            .map(|m| {
                serde_json::json!({
                    "interface": m.interface, "model_name": m.model_name,
                    "tools": m.tools, "config_id": m.config_id,
                })
            })
            .collect(),
    )
}
