//! One run, one count. Users keep the JSON and the CSV export of a run side
//! by side, or a copy under another name, and a directory scan picks up
//! both: loaded twice, every figure of the run would count twice. So after
//! results graphs come in, exports holding the same results are recognised
//! by their result IDs (which the JSON carries and kld recomputes for a CSV;
//! for a scenario turn, the ID its CSV recomputes to, `karenina:csvResultId`)
//! or by identical bytes. Two such copies are the same run only if they
//! would also bind to the same benchmark: two run folders holding the same
//! results file but whose manifests name different checkpoints are two runs,
//! both kept (each bound to its own). Of the copies of one run only one is
//! kept: a copy bound by the user, then one that binds to a loaded
//! checkpoint over one that cannot (a database row whose benchmark was
//! renamed beside the export that names it), then the one holding more
//! results, then the one that carries more than the bare export (a run
//! folder's manifest and label, a database run's name and benchmark; more
//! yet when its checkpoint was named by them rather than found by question
//! IDs), then a JSON over a CSV (it tells verdicts and trait families
//! apart), then the first by file name. An export whose results are all in
//! another is skipped too; a partial overlap is reported and both stay.
//!
//! Two copies that each carry a run record of the same kind (two run
//! folders' manifests, two database runs) naming another run (its run name)
//! or another benchmark (its `benchmark_path`) are two runs even when
//! neither binds: a copy of a run folder renamed for another benchmark was
//! folded into the first when no checkpoint was loaded, and `kld query
//! runs/ --named runs` lost it. A true copy (the same record, or a bare
//! export beside its run folder) is still one run.

use crate::error::{Error, Result};
use crate::store::binding::holdings::Holdings;
use crate::store::binding::link::Link;
use crate::store::{CheckpointStore, GraphKind};
use crate::vocab;
use oxigraph::model::{GraphName, GraphNameRef, NamedOrBlankNode, Term};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A run's result keys and whether it was read from JSON.
type RunKeyset = (BTreeSet<String>, bool);

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

/// What tells one run from another, for a results graph: the digest of its
/// sorted result keys (equal for the JSON and the CSV export of one run), how
/// many results it holds and whether it was read from a JSON export. `kld
/// push` records it on the server, so a copy pushed later is recognised.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunIdentity {
    /// SHA-256 (hex) of the sorted result keys, one per line.
    pub keys_digest: String,
    /// Number of results.
    pub results: usize,
    /// Read from a JSON export (it tells verdicts apart; a CSV does not).
    pub json: bool,
}

/// How two copies of one run are ranked: the first is kept. The order
/// [`CheckpointStore::bind`] keeps copies in, shared with `kld push`.
#[derive(Clone, Copy, Debug)]
pub struct RunRank<'a> {
    /// Bound by the user (`--for`).
    pub explicit: bool,
    /// Binds to a loaded checkpoint.
    pub binds: bool,
    /// Number of results.
    pub results: usize,
    /// What it carries beyond the results: one for a run that is not a bare
    /// export (a run folder, a database run, progressive-save sidecars: a
    /// label, a manifest, a run name), one more when that record named the
    /// checkpoint it is bound to.
    pub carries: u8,
    /// Read from a JSON export.
    pub json: bool,
    /// Its source, the last tie-break.
    pub source: &'a str,
}

impl RunRank<'_> {
    /// `Less` when `self` is kept before `other`.
    pub fn keep_order(&self, other: &RunRank<'_>) -> std::cmp::Ordering {
        other
            .explicit
            .cmp(&self.explicit)
            .then(other.binds.cmp(&self.binds))
            .then(other.results.cmp(&self.results))
            .then(other.carries.cmp(&self.carries))
            .then(other.json.cmp(&self.json))
            .then(self.source.cmp(other.source))
    }
}

/// A results graph's result keys, its size and its rank.
struct Run {
    graph: String,
    source: String,
    sha256: String,
    json: bool,
    explicit: bool,
    /// Binds to a loaded checkpoint (asked only of runs that share results
    /// or bytes with another).
    binds: bool,
    /// The checkpoint it binds to, if it does (asked as `binds`).
    target: Option<String>,
    /// [`RunRank::carries`].
    carries: u8,
    /// Its run record, when it carries one: kind (`runSource`), run name
    /// and benchmark path.
    record: Option<RunRecord>,
    keys: BTreeSet<String>,
}

/// What a run record (a run folder's manifest, a database run) says the run
/// is: its kind, run name and benchmark path, where given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct RunRecord {
    kind: String,
    name: Option<String>,
    benchmark: Option<String>,
}

impl Run {
    fn rank(&self) -> RunRank<'_> {
        RunRank {
            explicit: self.explicit,
            binds: self.binds,
            results: self.keys.len(),
            carries: self.carries,
            json: self.json,
            source: &self.source,
        }
    }

    /// Whether `self` and `other`, holding the same results, can be one run:
    /// not when each binds to a checkpoint and the two differ, nor when each
    /// carries a record of the same kind and the records name another run or
    /// another benchmark.
    fn same_benchmark(&self, other: &Run) -> bool {
        let targets = match (&self.target, &other.target) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        let records = match (&self.record, &other.record) {
            (Some(a), Some(b)) if a.kind == b.kind => a == b,
            _ => true,
        };
        targets && records
    }
}

impl CheckpointStore {
    /// What tells results graph `graph`'s run from another ([`RunIdentity`]).
    pub fn run_identity(&self, graph: &str) -> Result<RunIdentity> {
        use sha2::{Digest, Sha256};
        let (keys, json) = self.run_keys(graph)?;
        let mut h = Sha256::new();
        for k in &keys {
            h.update(k.as_bytes());
            h.update(b"\n");
        }
        Ok(RunIdentity {
            keys_digest: format!("{:x}", h.finalize()),
            results: keys.len(),
            json,
        })
    }

    /// The result keys of a results graph: `csvResultId` where there is one,
    /// else `resultId`.
    fn run_keys(&self, graph: &str) -> Result<RunKeyset> {
        let g = crate::error::named_node(graph)?;
        let mut keys = self.run_keys_in(Some(GraphNameRef::NamedNode(g.as_ref())))?;
        Ok(keys.remove(graph).unwrap_or_default())
    }

    /// [`Self::run_keys`] of graph `graph`, or of every named graph at once
    /// (one pass over each predicate's quads), by graph IRI; whether each
    /// run was read from JSON.
    fn run_keys_in(&self, graph: Option<GraphNameRef<'_>>) -> Result<HashMap<String, RunKeyset>> {
        let literals = |local: &str| -> Result<HashMap<String, HashMap<NamedOrBlankNode, String>>> {
            let p = vocab::term(local);
            let mut m: HashMap<String, HashMap<NamedOrBlankNode, String>> = HashMap::new();
            for q in self
                .store
                .quads_for_pattern(None, Some(p.as_ref()), None, graph)
            {
                let q = q.map_err(Error::store)?;
                if let (GraphName::NamedNode(g), Term::Literal(l)) = (q.graph_name, q.object) {
                    m.entry(g.into_string())
                        .or_default()
                        .insert(q.subject, l.value().to_string());
                }
            }
            Ok(m)
        };
        let mut ids = literals("resultId")?;
        for (g, csv) in literals(crate::rdf::verification::CSV_RESULT_ID)? {
            ids.entry(g).or_default().extend(csv);
        }
        let mut formats = literals("sourceFormat")?;
        let graphs: BTreeSet<String> = ids.keys().chain(formats.keys()).cloned().collect();
        Ok(graphs
            .into_iter()
            .map(|g| {
                let json = formats
                    .remove(&g)
                    .is_some_and(|f| f.values().any(|f| f == "json"));
                let keys = ids.remove(&g).unwrap_or_default().into_values().collect();
                (g, (keys, json))
            })
            .collect())
    }

    /// The results graphs that are not a bare export, by graph IRI: those
    /// whose run records a `karenina:runSource` (a run folder, a database
    /// run, progressive-save sidecars), with what the record says.
    fn run_sources(&self) -> Result<HashMap<String, RunRecord>> {
        let values = |local: &str| -> Result<HashMap<String, String>> {
            let p = vocab::term(local);
            let mut out = HashMap::new();
            for q in self
                .store
                .quads_for_pattern(None, Some(p.as_ref()), None, None)
            {
                let q = q.map_err(Error::store)?;
                if let (GraphName::NamedNode(g), Term::Literal(l)) = (q.graph_name, q.object) {
                    out.entry(g.into_string())
                        .or_insert_with(|| l.value().to_string());
                }
            }
            Ok(out)
        };
        let (mut names, mut paths) = (values("manifestRunName")?, values("benchmarkPath")?);
        Ok(values("runSource")?
            .into_iter()
            .map(|(g, kind)| {
                let record = RunRecord {
                    kind,
                    name: names.remove(&g),
                    benchmark: paths.remove(&g),
                };
                (g, record)
            })
            .collect())
    }

    /// Finds the results graphs that hold the same results as another (see
    /// the module doc), removes all but one, and reports partial overlaps.
    /// Only pairs with a graph inserted since the last call are looked at.
    pub(in crate::store) fn reconcile_runs(&mut self, held: &Holdings) -> Result<Vec<RunNote>> {
        let fresh = std::mem::take(&mut self.fresh);
        if fresh.is_empty() {
            return Ok(Vec::new());
        }
        let mut runs = Vec::new();
        let mut all = self.run_keys_in(None)?;
        let sources = self.run_sources()?;
        for i in self.index.values().filter(|i| i.kind == GraphKind::Results) {
            let (keys, json) = all.remove(&i.graph).unwrap_or_default();
            runs.push(Run {
                graph: i.graph.clone(),
                source: i.source.clone(),
                sha256: i.sha256.clone(),
                json,
                explicit: i.binding.as_ref().is_some_and(|b| b.explicit),
                binds: false,
                target: None,
                carries: u8::from(sources.contains_key(&i.graph)),
                record: sources.get(&i.graph).cloned(),
                keys,
            });
        }
        // Whether a copy binds decides which copy is kept, so it is asked of
        // every run that shares a result or its bytes with another.
        let mut seen_keys: HashMap<&str, usize> = HashMap::new();
        let mut seen_sha: HashMap<&str, usize> = HashMap::new();
        for r in &runs {
            *seen_sha.entry(r.sha256.as_str()).or_default() += 1;
            for k in &r.keys {
                *seen_keys.entry(k.as_str()).or_default() += 1;
            }
        }
        let shared: Vec<bool> = runs
            .iter()
            .map(|r| {
                seen_sha[r.sha256.as_str()] > 1 || r.keys.iter().any(|k| seen_keys[k.as_str()] > 1)
            })
            .collect();
        for (r, shared) in runs.iter_mut().zip(shared) {
            if !shared {
                continue;
            }
            let explicit = self
                .index
                .get(&r.graph)
                .and_then(|i| i.binding.clone())
                .filter(|b| b.explicit);
            let (target, named) = match explicit {
                Some(b) => (Some(b.checkpoint), false),
                None => match self.auto(held, &r.graph)? {
                    (Link::Bound(c), named) => (Some(c), named),
                    _ => (None, false),
                },
            };
            r.binds = r.explicit || target.is_some();
            r.carries += u8::from(named);
            r.target = target;
        }
        // The ones to keep first: a user's binding, a copy that binds, more
        // results, JSON, name.
        runs.sort_by(|a, b| a.rank().keep_order(&b.rank()));
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
            // The same run: the same bytes or results, and no other benchmark.
            let same_bytes = kept
                .iter()
                .copied()
                .find(|&k| runs[k].sha256 == run.sha256 && runs[k].same_benchmark(run));
            let within = shared
                .iter()
                .find(|(k, n)| {
                    **n == run.keys.len() && !run.keys.is_empty() && runs[**k].same_benchmark(run)
                })
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
                // Results of two benchmarks' runs count once for each.
                if involved(k) && runs[k].same_benchmark(run) {
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
