//! One run, one count. Users keep the JSON and the CSV export of a run side
//! by side, or a copy under another name, and a directory scan picks up
//! both: loaded twice, every figure of the run would count twice. So after
//! results graphs come in, exports holding the same results are recognised
//! by their result IDs (which the JSON carries and kld recomputes for a CSV;
//! for a scenario turn, the ID its CSV recomputes to, `karenina:csvResultId`)
//! or by identical bytes, and only one is kept: the one holding more
//! results, then a JSON over a CSV (it tells verdicts and trait families
//! apart), then the first by file name. An export whose results are all in
//! another is skipped too; a partial overlap is reported and both stay.

use super::{CheckpointStore, GraphKind};
use crate::error::{Error, Result};
use crate::results::link::Link;
use crate::vocab;
use oxigraph::model::{GraphNameRef, NamedOrBlankNode, Term};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What reconciling did to one results graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunNote {
    /// The results graph.
    pub graph: String,
    /// Its source file.
    pub source: String,
    /// The outcome, as a [`Link`] (`Duplicate` or `Overlap`).
    pub link: Link,
}

/// A results graph's result keys, its size and its rank.
struct Run {
    graph: String,
    source: String,
    sha256: String,
    json: bool,
    explicit: bool,
    keys: BTreeSet<String>,
}

impl CheckpointStore {
    /// The result keys of a results graph: `csvResultId` where there is one,
    /// else `resultId`.
    fn run_keys(&self, graph: &str) -> Result<(BTreeSet<String>, bool)> {
        let g = crate::error::named_node(graph)?;
        let gn = GraphNameRef::NamedNode(g.as_ref());
        let literals = |local: &str| -> Result<HashMap<NamedOrBlankNode, String>> {
            let p = vocab::term(local);
            let mut m = HashMap::new();
            for q in self
                .store
                .quads_for_pattern(None, Some(p.as_ref()), None, Some(gn))
            {
                let q = q.map_err(Error::store)?;
                if let Term::Literal(l) = q.object {
                    m.insert(q.subject, l.value().to_string());
                }
            }
            Ok(m)
        };
        let mut ids = literals("resultId")?;
        ids.extend(literals(crate::results::CSV_RESULT_ID)?);
        let json = literals("sourceFormat")?.values().any(|f| f == "json");
        Ok((ids.into_values().collect(), json))
    }

    /// Finds the results graphs that hold the same results as another (see
    /// the module doc), removes all but one, and reports partial overlaps.
    /// Only pairs with a graph inserted since the last call are looked at.
    pub(super) fn reconcile_runs(&mut self) -> Result<Vec<RunNote>> {
        let fresh = std::mem::take(&mut self.fresh);
        if fresh.is_empty() {
            return Ok(Vec::new());
        }
        let mut runs = Vec::new();
        for i in self.index.values().filter(|i| i.kind == GraphKind::Results) {
            let (keys, json) = self.run_keys(&i.graph)?;
            runs.push(Run {
                graph: i.graph.clone(),
                source: i.source.clone(),
                sha256: i.sha256.clone(),
                json,
                explicit: i.binding.as_ref().is_some_and(|b| b.explicit),
                keys,
            });
        }
        // The ones to keep first: more results, a user's binding, JSON, name.
        runs.sort_by(|a, b| {
            b.keys
                .len()
                .cmp(&a.keys.len())
                .then(b.explicit.cmp(&a.explicit))
                .then(b.json.cmp(&a.json))
                .then(a.source.cmp(&b.source))
        });
        let mut kept: Vec<usize> = Vec::new();
        // Result key → the kept runs holding it.
        let mut holders: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut notes = Vec::new();
        let mut skipped = Vec::new();
        for (i, run) in runs.iter().enumerate() {
            let mut shared: BTreeMap<usize, usize> = BTreeMap::new();
            for k in &run.keys {
                for &h in holders.get(k.as_str()).into_iter().flatten() {
                    *shared.entry(h).or_default() += 1;
                }
            }
            let same_bytes = kept.iter().copied().find(|&k| runs[k].sha256 == run.sha256);
            let within = shared
                .iter()
                .find(|(_, n)| **n == run.keys.len() && !run.keys.is_empty())
                .map(|(k, _)| *k);
            let involved = |k: usize| fresh.contains(&run.graph) || fresh.contains(&runs[k].graph);
            if let Some(k) = same_bytes.or(within) {
                if involved(k) {
                    let other = &runs[k];
                    let link = Link::Duplicate {
                        of: other.source.clone(),
                        results: run.keys.len(),
                        contained: other.keys.len() > run.keys.len(),
                    };
                    notes.push(RunNote {
                        graph: run.graph.clone(),
                        source: run.source.clone(),
                        link,
                    });
                    skipped.push(run.graph.clone());
                    continue;
                }
            }
            for (&k, &n) in &shared {
                if involved(k) {
                    notes.push(RunNote {
                        graph: run.graph.clone(),
                        source: run.source.clone(),
                        link: Link::Overlap {
                            with: runs[k].source.clone(),
                            shared: n,
                            results: run.keys.len(),
                            other: runs[k].keys.len(),
                        },
                    });
                }
            }
            for key in &run.keys {
                holders.entry(key.as_str()).or_default().push(i);
            }
            kept.push(i);
        }
        for g in skipped {
            self.remove(&g)?;
        }
        Ok(notes)
    }
}
