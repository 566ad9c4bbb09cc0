//! A workspace manifest's entries as PROV-O on the run's results (see the
//! module doc of [`super`] and docs/results.md, "Workspaces and repairs").

use super::{warning, CaptureStatus, Entry, Manifest, MAX_FILES};
use crate::results::k;
use crate::vocab::{prov, RDF_TYPE};
use oxigraph::model::{BlankNode, GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term};
use std::collections::HashMap;
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
    /// The entry's row key, as [`crate::results::outcome::row_key`] writes a row's.
    fn row_key(&self) -> String {
        [
            self.question_id.clone(),
            crate::results::outcome::canonical_key(&self.answering),
            crate::results::outcome::canonical_key(&self.parsing),
            self.replicate.map_or("none".into(), |r| r.to_string()),
            self.run_name.clone().unwrap_or_default(),
        ]
        .join("|")
    }
}

/// Maps `manifest` (of the run folder `run_dir`, whose workspaces are in
/// `workspaces`) into `graph`; returns its warnings and those of mapping
/// (an entry that matches no result, a copy folder not found).
pub(crate) fn map(
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
        let here = |m: String| warning(&manifest.file, placed.line, placed.column, at, m);
        let c = NamedOrBlankNode::BlankNode(BlankNode::default());
        out(&c, a(), prov("Activity").into());
        out(&c, a(), k("WorkspaceCapture").into());
        out(&c, k("captureStatus"), string(e.status.as_str()));
        out(&c, k("captureMode"), string(&e.capture_mode));
        out(
            &c,
            k("copiedFileCount"),
            crate::results::int(e.copied_file_count),
        );
        out(
            &c,
            k("copyErrorCount"),
            crate::results::int(e.copy_errors.len() as u64),
        );
        out(&c, k("entryResultId"), string(&e.result_id));
        out(&c, k("entryQuestionId"), string(&e.question_id));
        for (side, v) in [("Answering", &e.answering), ("Parsing", &e.parsing)] {
            let shown =
                crate::results::outcome::identity_display(v).unwrap_or_else(|| "unknown".into());
            out(&c, k(&format!("entry{side}Model")), string(&shown));
        }
        if let Some(r) = &e.run_name {
            out(&c, k("entryRunName"), string(r));
        }
        if let Some(r) = e.replicate {
            out(
                &c,
                k("entryReplicate"),
                crate::results::int(r.max(0) as u64),
            );
        }
        out(&c, k("manifestFile"), string(&manifest_rel));
        out(&c, k("entryIndex"), crate::results::int(index as u64));
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
        out(&copy, k("filesOnDisk"), crate::results::int(total as u64));
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
                out(&f, k("byteSize"), crate::results::int(n));
            }
            out(&copy, prov("hadMember"), f.clone().into());
            out(&c, prov("generated"), f.into());
        }
    }
    warnings
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
