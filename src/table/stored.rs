//! The table of a store: one run per results graph the store keeps (after
//! "one run, one count"), its rows read from the graph's source by `kld
//! info`'s readers, bound to the benchmark the store binds it to, with its
//! labels; and the Parquet file a store directory keeps beside its quads, so
//! that a store reopened needs no export again.

use super::{Builder, Table};
use crate::error::{Error, Result};
use crate::results::{progress, Visit};
use crate::store::binding::holdings::{Holdings, Members};
use crate::store::{CheckpointStore, GraphKind};
use oxigraph::model::{GraphNameRef, NamedNode, Term};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The table's file in a store directory.
pub(crate) const FILE: &str = "results.parquet";

/// The table of a store directory, when it keeps one.
pub(crate) fn file_of(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// Reads the rows of one results graph's source into `table` as run
/// `graph`: a results export (JSON, CSV, TaskEval, the GUI's CSV), a run
/// folder's export, or a run of Karenina's results database (`DB#run=ID`).
pub(crate) fn read_source(table: &mut Table, graph: &str, source: &str) -> Result<()> {
    let path = Path::new(source);
    if let Some((db, run_id)) = crate::kind::database_run(path) {
        let c = crate::sqlite::open(&db)?;
        let run = crate::sqlite::run(&db, &c, &run_id)?
            .ok_or_else(|| Error::Usage(format!("{}: no run {run_id}", db.display())))?;
        let mut b = Builder::new(table, graph);
        crate::sqlite::read_run(&db, &c, &run, &mut |row| {
            b.add(&row);
            Ok(())
        })?;
        return Ok(());
    }
    let file = if path.is_dir() && crate::results::is_run_folder(path) {
        let cwd = std::env::current_dir().map_err(|e| Error::io(path, e))?;
        let run = crate::results::run_folder::read(path, &cwd)?;
        match run.results {
            Some(f) => f,
            // An unfinished run: its progressive-save sidecar's rows, as
            // the store maps them (`rdf::verification::run_node`). A run
            // that wrote no results yet (failed early) is a run of no rows,
            // as its graph holds none.
            None => {
                let mut b = Builder::new(table, graph);
                let header = run.state.as_ref().map(|(_, s)| s.header());
                match (&run.sidecar, header) {
                    (Some(jsonl), h) => {
                        let h = h.unwrap_or_else(|| serde_json::json!({}));
                        progress::read_jsonl(jsonl, &h, &mut b)?;
                    }
                    (None, Some(h)) => b.header(&h),
                    (None, None) => {}
                }
                return Ok(());
            }
        }
    } else if progress::is_state_input(path, true) {
        // An unfinished run outside a run folder (its `.state`, the source
        // the store names): the rows of its `.results.jsonl`, or of a legacy
        // state's `.tmp` export, as `rdf::verification::run_node` maps them.
        let state = progress::read_state(path)?;
        let results = progress::results_sidecar(path, &state);
        let mut b = Builder::new(table, graph);
        if !results.is_file() {
            b.header(&state.header());
        } else if state.is_legacy() {
            crate::results::read_path_unhashed(&results, &mut b)?;
        } else {
            progress::read_jsonl(&results, &state.header(), &mut b)?;
        }
        return Ok(());
    } else {
        path.to_path_buf()
    };
    let mut b = Builder::new(table, graph);
    crate::results::read_path_unhashed(&file, &mut b)
}

/// The table of the plain results exports among `files`, each as the run of
/// the graph the store gives it (its file URL) with its SHA-256: read on a
/// core of its own while the store maps the same files to quads, then
/// handed to [`of_store`] as `known`, so that a server is ready without
/// reading every export twice in a row (at paper size the second reading
/// was a fifth of `kld serve`'s start). Other inputs (run folders, database
/// runs, unfinished runs, repaired exports) and files that cannot be read
/// here are left to [`of_store`], which reads and reports them as before.
/// Stops between files once `stop` is set.
pub fn read_exports(files: &[PathBuf], stop: &std::sync::atomic::AtomicBool) -> Table {
    let mut table = Table::default();
    for f in files {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        if !matches!(crate::kind::recognise(f), Ok(crate::kind::Input::Export(_)))
            || !crate::results::repair::sidecars(f).is_empty()
        {
            continue;
        }
        let Ok(graph) = crate::fsutil::canonical_input(f).and_then(|c| crate::rdf::file_url(&c))
        else {
            continue;
        };
        let before = table.runs.len();
        let read = {
            let mut b = Builder::new(&mut table, &graph);
            crate::results::read_path(f, &mut b)
        };
        match (read, table.runs.get_mut(before)) {
            (Ok(sha), Some(part)) => part.sha256 = sha,
            _ => table.truncate_runs(before),
        }
    }
    table
}

/// A graph's text property values (IRI or literal) in `graph`.
fn values(store: &CheckpointStore, graph: &str, property: &NamedNode) -> Vec<String> {
    let Ok(g) = NamedNode::new(graph) else {
        return Vec::new();
    };
    store
        .store()
        .quads_for_pattern(
            None,
            Some(property.as_ref()),
            None,
            Some(GraphNameRef::NamedNode(g.as_ref())),
        )
        .flatten()
        .map(|q| match q.object {
            Term::NamedNode(n) => n.into_string(),
            Term::Literal(l) => l.value().to_string(),
            t => t.to_string(),
        })
        .collect()
}

/// The values of `property` of the subjects of type `class` in `graph`.
fn typed_values(
    store: &CheckpointStore,
    graph: &str,
    class: &NamedNode,
    property: &NamedNode,
) -> Vec<String> {
    let Ok(g) = NamedNode::new(graph) else {
        return Vec::new();
    };
    let g = GraphNameRef::NamedNode(g.as_ref());
    let st = store.store();
    let ty = oxigraph::model::vocab::rdf::TYPE;
    let mut out = Vec::new();
    for q in st
        .quads_for_pattern(None, Some(ty), Some(class.as_ref().into()), Some(g))
        .flatten()
    {
        for v in st
            .quads_for_pattern(
                Some(q.subject.as_ref()),
                Some(property.as_ref()),
                None,
                Some(g),
            )
            .flatten()
        {
            if let Term::Literal(l) = v.object {
                out.push(l.value().to_string());
            }
        }
    }
    out
}

/// What each checkpoint graph of the store holds (question IDs, scenario
/// nodes), as the store's binding index reads it; a store that cannot be
/// read gives none, and a note.
fn members_of(store: &CheckpointStore, notes: &mut Vec<String>) -> HashMap<String, Members> {
    match Holdings::read(store.store()) {
        Ok(h) => h
            .members()
            .into_iter()
            .map(|(g, m)| (g.to_string(), m))
            .collect(),
        Err(e) => {
            notes.push(format!("the benchmarks' questions not read: {e}"));
            HashMap::new()
        }
    }
}

/// The table of the results graphs `store` keeps, each bound as the store
/// binds it. `known`: a table already read (a store directory's Parquet
/// file), whose runs are taken as they are when the store still holds their
/// graph; the others are read from their sources. Returns the table and,
/// for each graph whose source could not be read, why.
pub fn of_store(store: &CheckpointStore, known: Option<&Table>) -> (Table, Vec<String>) {
    let mut table = Table::default();
    let mut notes = Vec::new();
    let known_runs: HashMap<&str, usize> = known
        .map(|k| {
            k.runs
                .iter()
                .enumerate()
                .map(|(i, p)| (p.graph.as_str(), i))
                .collect()
        })
        .unwrap_or_default();
    let name_term = NamedNode::new_unchecked(crate::vocab::schema("name"));
    let feed = NamedNode::new_unchecked(crate::vocab::schema("DataFeed"));
    // (Read once, when a run is bound.)
    let mut members: Option<HashMap<String, Members>> = None;
    // The bound checkpoints' ratings, read from the store (never a known
    // table's: its checkpoint may have changed since).
    let mut ratings = std::collections::BTreeMap::new();
    let key = crate::vocab::term("labelKey");
    let value = crate::vocab::term("labelValue");
    for info in store.graphs().filter(|g| g.kind == GraphKind::Results) {
        let before = table.runs.len();
        // (A run of a table file without its scores' kinds is read again,
        // so the trait views come from the table.)
        let same = |r: usize| {
            known.is_some_and(|k| {
                !info.sha256.is_empty() && k.runs[r].sha256 == info.sha256 && !k.untyped_scores
            })
        };
        match (known, known_runs.get(info.graph.as_str())) {
            (Some(k), Some(&r)) if same(r) => {
                let mut one = Table::default();
                one.append_run(k, r);
                table.append(&one);
            }
            _ => {
                if let Err(e) = read_source(&mut table, &info.graph, &info.source) {
                    // Keep the table whole: a failed read leaves no half run.
                    table.truncate_runs(before);
                    // A source being rewritten (a watched run mid-save) keeps
                    // the rows the previous generation read, until the next
                    // reload reads it whole: never a run gone from the board.
                    if let (Some(k), Some(&r)) = (known, known_runs.get(info.graph.as_str())) {
                        let mut one = Table::default();
                        one.append_run(k, r);
                        table.append(&one);
                        notes.push(format!(
                            "{}: kept the previous reading in the results table: {e}",
                            info.graph
                        ));
                    } else {
                        notes.push(format!("{}: not in the results table: {e}", info.graph));
                        continue;
                    }
                }
            }
        }
        let Some(part) = table.runs.get_mut(before) else {
            continue;
        };
        part.sha256 = info.sha256.clone();
        let (keys, vals) = (
            values(store, &info.graph, &key),
            values(store, &info.graph, &value),
        );
        let mut labels: Vec<String> = keys
            .iter()
            .zip(vals.iter())
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        labels.sort();
        labels.dedup();
        part.labels = labels;
        let checkpoint = info.binding.as_ref().map(|b| b.checkpoint.clone());
        part.benchmark = checkpoint.clone();
        part.benchmark_name = checkpoint
            .as_ref()
            .and_then(|c| typed_values(store, c, &feed, &name_term).into_iter().next());
        if let Some(c) = checkpoint {
            if !ratings.contains_key(&c) {
                if let Some(r) = super::ratings::read(store, &c) {
                    ratings.insert(c.clone(), r);
                }
            }
            let all = members.get_or_insert_with(|| members_of(store, &mut notes));
            let none = Members::default();
            let m = all.get(&c).unwrap_or(&none);
            for i in table.rows_of(before) {
                let t = &table;
                let member = match (t.scenario[i], t.scenario_node[i]) {
                    (Some(sid), Some(nid)) => m
                        .nodes
                        .contains(&(t.text(sid).to_string(), t.text(nid).to_string())),
                    (Some(_), None) => false,
                    _ => m.questions.contains(t.text(t.question[i])),
                };
                table.in_benchmark[i] = member;
            }
        }
    }
    table.ratings = ratings;
    (table, notes)
}

/// The state of a store directory a table is computed for: the SHA-256
/// of its `index.tsv` (every graph's source, hash, load time and binding).
fn stamp(dir: &Path) -> Result<String> {
    use sha2::{Digest, Sha256};
    let bytes = crate::fsutil::read_regular(&dir.join("index.tsv"))?;
    Ok(Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Writes the table of a store directory beside its quads (atomically).
/// A `complete` table (every results graph of the store in it) is stamped
/// with the store's state: [`load_current`] takes it while the store is
/// unchanged; one that lacks a graph is kept for its rows only.
pub fn save(dir: &Path, table: &Table, complete: bool) -> Result<()> {
    if complete {
        super::parquet::write_stamped(table, &file_of(dir), &stamp(dir)?)
    } else {
        super::parquet::write(table, &file_of(dir))
    }
}

/// The table a store directory keeps, when it was written for the store as
/// it is now (the same `index.tsv`): what `kld query --store` answers a
/// number view from without parsing the quads. `None` when there is no
/// table, or the store changed since (a command that wrote the store
/// without it): then the quads answer.
pub fn load_current(dir: &Path) -> Result<Option<Table>> {
    let f = file_of(dir);
    if !f.is_file() {
        return Ok(None);
    }
    if super::parquet::stamp_of(&f)?.as_deref() != Some(stamp(dir)?.as_str()) {
        return Ok(None);
    }
    super::parquet::read(&f).map(Some)
}

/// The table a store directory keeps, if any.
pub fn load(dir: &Path) -> Result<Option<Table>> {
    let f = file_of(dir);
    if !f.exists() {
        return Ok(None);
    }
    super::parquet::read(&f).map(Some)
}

/// Writes a store directory's table again for what the store now holds:
/// runs whose source is unchanged are taken from the table the directory
/// kept, the others read from their sources. A store without results and
/// without a table gets none. Returns why a graph was left out.
pub fn refresh(dir: &Path, store: &CheckpointStore) -> Result<Vec<String>> {
    // A table that cannot be read is rebuilt from the sources.
    let known = load(dir).ok().flatten();
    let (t, notes) = of_store(store, known.as_ref());
    if t.runs.is_empty() && known.is_none() {
        return Ok(notes);
    }
    save(dir, &t, notes.is_empty())?;
    Ok(notes)
}

/// The table of a store directory opened for reading: its Parquet file,
/// with the runs it lacks (or holds from a changed source) read from
/// their sources; the runs the store no longer holds left out.
pub fn of_dir(dir: &Path, store: &CheckpointStore) -> (Table, Vec<String>) {
    let known = load(dir).ok().flatten();
    of_store(store, known.as_ref())
}
