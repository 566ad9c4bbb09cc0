//! A run's provenance as PROV-O (docs/results.md, "Workspaces and
//! repairs"): a workspace manifest's entries on the run's results
//! ([`crate::results::workspace`] reads them), and the repairs of
//! `karenina repair` on the results they replaced
//! ([`crate::results::repair`] reads the sidecars).

use super::rows::RowFacts;
use super::{int, k};
use crate::results::repair::{read, sidecars, source_check, SourceState};
use crate::results::workspace::{CaptureStatus, Entry, Manifest, MAX_FILES};
use crate::results::{outcome, read_path_unhashed, RowError, Visit};
use crate::vocab::{prov, RDF_TYPE, XSD_DATETIME};
use oxigraph::model::{BlankNode, GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// What a manifest is matched against: the run's results by ID, and the
/// results its repairs replaced (by their old IDs).
pub(crate) struct Targets<'a> {
    /// Result ID → the result's node, for the run's results.
    pub(crate) results: &'a HashMap<String, NamedOrBlankNode>,
    /// Result ID → the node of a result a repair replaced.
    pub(crate) replaced: &'a HashMap<String, NamedOrBlankNode>,
    /// Row key → the node of a result a repair replaced whose ID is
    /// unknown (its backup gone): an entry is matched by its row key.
    pub(crate) replaced_keys: &'a HashMap<String, NamedOrBlankNode>,
}

impl Entry {
    /// The entry's row key, as [`outcome::row_key`] writes a row's.
    fn row_key(&self) -> String {
        [
            self.question_id.clone(),
            outcome::canonical_key(&self.answering),
            outcome::canonical_key(&self.parsing),
            self.replicate.map_or("none".into(), |r| r.to_string()),
            self.run_name.clone().unwrap_or_default(),
        ]
        .join("|")
    }
}

/// Maps `manifest` (of the run folder `run_dir`, whose workspaces are in
/// `workspaces`) into `graph`; returns its warnings and those of mapping
/// (an entry that matches no result, a copy folder not found).
pub(crate) fn map_workspaces(
    manifest: &Manifest,
    workspaces: &Path,
    run_dir: &Path,
    targets: &Targets<'_>,
    graph: &GraphName,
    sink: &mut dyn FnMut(Quad),
) -> Vec<String> {
    let mut warnings = manifest.warnings.clone();
    let mut out = |s: &NamedOrBlankNode, p: NamedNode, o: Term| {
        sink(Quad::new(s.clone(), p, o, graph.clone()))
    };
    let a = || NamedNode::new_unchecked(RDF_TYPE);
    let string = |s: &str| Term::Literal(Literal::new_simple_literal(s));
    let rel = |p: &Path| {
        p.strip_prefix(run_dir)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/")
    };
    let manifest_rel = rel(&manifest.file);
    for (index, placed) in manifest.entries.iter().enumerate() {
        let (e, at) = (&placed.entry, placed.at.as_str());
        let here = |m: String| {
            crate::results::located_warning(
                crate::results::workspace::CODE,
                &manifest.file,
                placed.line,
                placed.column,
                at,
                m,
            )
        };
        let c = NamedOrBlankNode::BlankNode(BlankNode::default());
        out(&c, a(), prov("Activity").into());
        out(&c, a(), k("WorkspaceCapture").into());
        out(&c, k("captureStatus"), string(e.status.as_str()));
        out(&c, k("captureMode"), string(&e.capture_mode));
        out(&c, k("copiedFileCount"), int(e.copied_file_count));
        out(&c, k("copyErrorCount"), int(e.copy_errors.len() as u64));
        out(&c, k("entryResultId"), string(&e.result_id));
        out(&c, k("entryQuestionId"), string(&e.question_id));
        for (side, v) in [("Answering", &e.answering), ("Parsing", &e.parsing)] {
            let shown = outcome::identity_display(v).unwrap_or_else(|| "unknown".into());
            out(&c, k(&format!("entry{side}Model")), string(&shown));
        }
        if let Some(r) = &e.run_name {
            out(&c, k("entryRunName"), string(r));
        }
        if let Some(r) = e.replicate {
            out(&c, k("entryReplicate"), int(r.max(0) as u64));
        }
        out(&c, k("manifestFile"), string(&manifest_rel));
        out(&c, k("entryIndex"), int(index as u64));
        if let Some(r) = &e.skip_reason {
            out(&c, k("skipReason"), string(r));
        }
        for ce in &e.copy_errors {
            let n = NamedOrBlankNode::BlankNode(BlankNode::default());
            out(&c, k("copyError"), n.clone().into());
            out(&n, k("path"), string(&ce.path));
            out(&n, k("message"), string(&ce.error));
        }
        let src = e.source_workspace_path.as_ref().map(|p| {
            let s = NamedOrBlankNode::BlankNode(BlankNode::default());
            out(&s, a(), prov("Entity").into());
            out(&s, a(), k("Workspace").into());
            out(&s, k("path"), string(p));
            out(&c, prov("used"), s.clone().into());
            s
        });
        match targets
            .results
            .get(&e.result_id)
            .map(|n| (n, false))
            .or_else(|| targets.replaced.get(&e.result_id).map(|n| (n, true)))
            .or_else(|| {
                (!targets.replaced_keys.is_empty())
                    .then(|| targets.replaced_keys.get(&e.row_key()).map(|n| (n, true)))
                    .flatten()
            })
        {
            Some((node, replaced)) => {
                out(node, k("workspaceCapture"), c.clone().into());
                if replaced {
                    out(&c, k("ofReplacedResult"), Term::Literal(Literal::from(true)));
                }
            }
            None => warnings.push(here(format!(
                "result_id {:?} (question {:?}) is no result of this run: its capture is kept, tied to no result",
                e.result_id, e.question_id
            ))),
        }
        if e.status == CaptureStatus::Skipped {
            continue;
        }
        // The copy, found in this run folder by the destination's name.
        let name = Path::new(&e.destination)
            .file_name()
            .filter(|n| !n.is_empty() && *n != "." && *n != "..")
            .map(|n| workspaces.join(n));
        let copy = NamedOrBlankNode::BlankNode(BlankNode::default());
        out(&copy, a(), prov("Entity").into());
        out(&copy, a(), prov("Collection").into());
        out(&copy, a(), k("WorkspaceCopy").into());
        out(&c, prov("generated"), copy.clone().into());
        if let Some(s) = &src {
            out(&copy, prov("wasDerivedFrom"), s.clone().into());
        }
        let Some(dir) = name.filter(|d| d.is_dir()) else {
            out(&copy, k("path"), string(&e.destination));
            if e.copied_file_count > 0 {
                warnings.push(here(format!(
                    "{} file(s) copied to {:?}, which is not in the run folder's workspaces",
                    e.copied_file_count, e.destination
                )));
            }
            continue;
        };
        out(&copy, k("path"), string(&rel(&dir)));
        let mut files = Vec::new();
        let total = list_files(&dir, &dir, &mut files);
        out(&copy, k("filesOnDisk"), int(total as u64));
        if total > files.len() {
            warnings.push(here(format!(
                "{total} files in {}: the first {MAX_FILES} are listed",
                dir.display()
            )));
        }
        for (path, size) in files {
            let f = NamedOrBlankNode::BlankNode(BlankNode::default());
            out(&f, a(), prov("Entity").into());
            out(&f, a(), k("WorkspaceFile").into());
            out(&f, k("path"), string(&path));
            if let Some(n) = size {
                out(&f, k("byteSize"), int(n));
            }
            out(&copy, prov("hadMember"), f.clone().into());
            out(&c, prov("generated"), f.into());
        }
    }
    warnings
}

/// What a row said before a repair.
#[derive(Clone, Debug, Default)]
struct Before {
    result_id: Option<String>,
    outcome: Option<&'static str>,
    verify_result: Option<bool>,
}

/// Collects the rows of `keys` from an export.
struct Collect<'a> {
    keys: &'a HashSet<&'a str>,
    found: HashMap<String, Before>,
}

impl Visit for Collect<'_> {
    fn header(&mut self, _: &Value) {}
    fn row(&mut self, row: Value) -> Result<(), RowError> {
        let key = outcome::row_key(&row);
        if self.keys.contains(key.as_str()) {
            let before = Before {
                result_id: row["metadata"]["result_id"].as_str().map(str::to_string),
                outcome: outcome::outcome(&row),
                verify_result: row["template"]["verify_result"].as_bool(),
            };
            self.found.insert(key, before);
        }
        Ok(())
    }
}

/// What mapping a run's repairs gives back.
#[derive(Debug, Default)]
pub(crate) struct Repairs {
    /// Located warnings.
    pub(crate) warnings: Vec<String>,
    /// The old result ID of each replaced row → its node (so a workspace
    /// captured for the replaced row is tied to it).
    pub(crate) replaced: HashMap<String, NamedOrBlankNode>,
    /// The key of each replaced row whose old result ID is unknown (no
    /// backup to read) → its node.
    pub(crate) replaced_keys: HashMap<String, NamedOrBlankNode>,
    /// The sidecars' bytes (for the run's digest).
    pub(crate) bytes: Vec<u8>,
}

/// Maps the repairs of `export` (whose rows are `rows`, mapped into
/// `graph` with the run node `run`).
pub(crate) fn map_repairs(
    export: &Path,
    run: &NamedOrBlankNode,
    rows: &[RowFacts],
    graph: &GraphName,
    sink: &mut dyn FnMut(Quad),
) -> Repairs {
    let mut m = Repairs::default();
    let files = sidecars(export);
    if files.is_empty() {
        return m;
    }
    let beside = export.parent().unwrap_or(Path::new("."));
    let mut out = |s: &NamedOrBlankNode, p: NamedNode, o: Term| {
        sink(Quad::new(s.clone(), p, o, graph.clone()))
    };
    let a = || NamedNode::new_unchecked(RDF_TYPE);
    let string = |s: &str| Term::Literal(Literal::new_simple_literal(s));
    // Each key's row as it stands after the repairs read so far (newest
    // first): a key repaired twice is the older repair's new row in the
    // newer one's backup.
    let mut current: HashMap<String, NamedOrBlankNode> = rows
        .iter()
        .map(|r| (r.key.clone(), r.node.clone()))
        .collect();
    let mut newest = true;
    for file in files.iter().rev() {
        if let Ok(b) = crate::fsutil::read_regular(file) {
            m.bytes.extend_from_slice(&b);
        }
        let s = match read(file) {
            Ok(s) => s,
            Err(w) => {
                m.warnings.push(w.to_string());
                continue;
            }
        };
        let rep = NamedOrBlankNode::BlankNode(BlankNode::default());
        out(&rep, a(), prov("Activity").into());
        out(&rep, a(), k("Repair").into());
        out(&rep, k("repairMode"), string(&s.mode));
        out(
            &rep,
            k("repairSidecar"),
            string(&file.file_name().unwrap_or_default().to_string_lossy()),
        );
        out(&rep, k("selectedCount"), int(s.selected_count));
        out(&rep, k("replacedCount"), int(s.replaced_count));
        if let Some(t) = timestamp(&s.timestamp) {
            out(
                &rep,
                prov("endedAtTime"),
                Term::Literal(Literal::new_typed_literal(
                    t,
                    NamedNode::new_unchecked(XSD_DATETIME),
                )),
            );
        }
        for key in &s.selected_keys {
            out(&rep, k("selectedKey"), string(key));
        }
        out(run, k("repair"), rep.clone().into());
        if newest {
            out(run, prov("wasGeneratedBy"), rep.clone().into());
            newest = false;
        }
        // The source: its bytes are the backup's after an in-place repair.
        let src = NamedOrBlankNode::BlankNode(BlankNode::default());
        out(&src, a(), prov("Entity").into());
        out(&src, a(), k("ResultsExport").into());
        out(&src, k("path"), string(&s.source_path));
        out(&src, k("sourceSha256"), string(&s.source_sha256));
        out(&rep, prov("used"), src.clone().into());
        out(run, prov("wasDerivedFrom"), src.clone().into());
        if s.source_path == s.output_path {
            if let Some(b) = &s.backup_path {
                out(&src, k("backupPath"), string(b));
            }
        }
        let (check, holder) = source_check(&s, file, beside);
        if let Some(w) = check.warning.clone() {
            m.warnings.push(w);
        }
        let check = (check.state, holder);
        out(&src, k("sourceCheck"), string(check.0.as_str()));
        let keys: HashSet<&str> = s.selected_keys.iter().map(String::as_str).collect();
        let before = match check.1.filter(|_| check.0 == SourceState::Matches) {
            Some(h) => {
                let mut c = Collect {
                    keys: &keys,
                    found: HashMap::new(),
                };
                match read_path_unhashed(&h, &mut c) {
                    Ok(()) => c.found,
                    Err(e) => {
                        m.warnings.push(crate::results::located_warning(
                            crate::results::repair::CODE,
                            file,
                            1,
                            1,
                            "/",
                            format!("the repair's source does not read: {e}"),
                        ));
                        HashMap::new()
                    }
                }
            }
            None => HashMap::new(),
        };
        for (i, key) in s.selected_keys.iter().enumerate() {
            let Some(new) = current.get(key.as_str()).cloned() else {
                m.warnings.push(crate::results::located_warning(
                    crate::results::repair::CODE,
                    file,
                    1,
                    1,
                    &format!("/selected_keys/{i}"),
                    format!("{key:?} names no result of the repaired export"),
                ));
                continue;
            };
            let q = NamedOrBlankNode::BlankNode(BlankNode::default());
            out(&new, prov("qualifiedRevision"), q.clone().into());
            out(&q, a(), prov("Revision").into());
            out(&q, prov("hadActivity"), rep.clone().into());
            out(&q, k("rowKey"), string(key));
            let b = before.get(key.as_str()).cloned().unwrap_or_default();
            if let Some(o) = b.outcome {
                out(&q, k("previousOutcome"), string(o));
            }
            if let Some(v) = b.verify_result {
                out(
                    &q,
                    k("previousVerifyResult"),
                    Term::Literal(Literal::from(v)),
                );
            }
            let old = match &b.result_id {
                Some(id) => {
                    out(&q, k("previousResultId"), string(id));
                    let node = NamedNode::new(format!("urn:karenina:result:{id}"))
                        .ok()
                        .filter(|n| NamedOrBlankNode::NamedNode(n.clone()) != new)
                        .map(NamedOrBlankNode::NamedNode)
                        .unwrap_or_else(|| NamedOrBlankNode::BlankNode(BlankNode::default()));
                    m.replaced.insert(id.clone(), node.clone());
                    node
                }
                None => {
                    let node = NamedOrBlankNode::BlankNode(BlankNode::default());
                    m.replaced_keys.insert(key.clone(), node.clone());
                    node
                }
            };
            out(&old, a(), prov("Entity").into());
            out(&q, prov("entity"), old.clone().into());
            out(&new, prov("wasRevisionOf"), old.clone().into());
            current.insert(key.clone(), old);
        }
    }
    m
}

/// `YYYYmmddTHHMMSSZ` as `xsd:dateTime` text.
fn timestamp(t: &str) -> Option<String> {
    chrono::NaiveDateTime::parse_from_str(t, "%Y%m%dT%H%M%SZ")
        .ok()
        .map(|d| d.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// The files under `dir` (symbolic links not followed), as paths relative
/// to `root` with their sizes (none for a link), in name order, at most
/// [`MAX_FILES`] kept; returns how many there are.
fn list_files(root: &Path, dir: &Path, out: &mut Vec<(String, Option<u64>)>) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut entries: Vec<_> = rd.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    let mut n = 0;
    for e in entries {
        let Ok(t) = e.file_type() else { continue };
        let p = e.path();
        if t.is_dir() {
            n += list_files(root, &p, out);
            continue;
        }
        n += 1;
        if out.len() < MAX_FILES {
            let rel = p
                .strip_prefix(root)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            let size = t
                .is_file()
                .then(|| e.metadata().ok().map(|m| m.len()))
                .flatten();
            out.push((rel, size));
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repair_s_timestamp_becomes_xsd_date_time_text() {
        assert_eq!(
            timestamp("20261122T100000Z").as_deref(),
            Some("2026-11-22T10:00:00Z")
        );
        assert_eq!(timestamp("2026-11-22"), None);
    }
}
