//! The table of a store: one run per results graph the store keeps (after
//! "one run, one count"), its rows read from the graph's source by `kld
//! info`'s readers, bound to the benchmark the store binds it to, with its
//! labels; and the Parquet file a store directory keeps beside its quads, so
//! that a store reopened needs no export again.

use super::{Builder, Table};
use crate::error::{Error, Result};
use crate::store::{CheckpointStore, GraphKind};
use oxigraph::model::{GraphNameRef, NamedNode, Term};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The table's file in a store directory.
pub const FILE: &str = "results.parquet";

/// The table of a store directory, when it keeps one.
pub fn file_of(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// Reads the rows of one results graph's source into `table` as run
/// `graph`: a results export (JSON, CSV, TaskEval, the GUI's CSV), a run
/// folder's export, or a run of Karenina's results database (`DB#run=ID`).
pub fn read_source(table: &mut Table, graph: &str, source: &str) -> Result<()> {
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
        match crate::results::run_folder::read(path, &cwd)?.results {
            Some(f) => f,
            // A run that wrote no results yet (failed early): a run of no
            // rows, as its graph holds none.
            None => {
                Builder::new(table, graph);
                return Ok(());
            }
        }
    } else {
        path.to_path_buf()
    };
    let mut b = Builder::new(table, graph);
    crate::results::read_path_unhashed(&file, &mut b)
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

/// The question IDs of a checkpoint graph (its items' `karenina:id`), for
/// "a result counts for a benchmark only if its question is in it".
fn members(store: &CheckpointStore, graph: &str) -> HashSet<String> {
    let item = NamedNode::new_unchecked(crate::vocab::schema("DataFeedItem"));
    let mut ids: HashSet<String> = typed_values(store, graph, &item, &crate::vocab::term("id"))
        .into_iter()
        .collect();
    ids.extend(scenario_turn_ids(store, graph));
    ids
}

/// The question IDs a CSV export gives a scenario's turns: Karenina's
/// `generate_question_id` of each node's question text (plain strings only,
/// as the store's binding index and the catalogue's SPARQL take them).
fn scenario_turn_ids(store: &CheckpointStore, graph: &str) -> Vec<String> {
    use oxigraph::model::NamedOrBlankNode;
    let Ok(g) = NamedNode::new(graph) else {
        return Vec::new();
    };
    let g = GraphNameRef::NamedNode(g.as_ref());
    let st = store.store();
    let ty = oxigraph::model::vocab::rdf::TYPE;
    let scenario = crate::vocab::term("Scenario");
    let node = crate::vocab::term("node");
    let question = NamedNode::new_unchecked(crate::vocab::schema("question"));
    let text = NamedNode::new_unchecked(crate::vocab::schema("text"));
    let subject = |t: Term| match t {
        Term::NamedNode(x) => Some(NamedOrBlankNode::from(x)),
        Term::BlankNode(x) => Some(NamedOrBlankNode::from(x)),
        _ => None,
    };
    let objects = |s: &NamedOrBlankNode, p: &NamedNode| -> Vec<Term> {
        st.quads_for_pattern(Some(s.as_ref()), Some(p.as_ref()), None, Some(g))
            .flatten()
            .map(|q| q.object)
            .collect()
    };
    let mut out = Vec::new();
    for q in st
        .quads_for_pattern(None, Some(ty), Some(scenario.as_ref().into()), Some(g))
        .flatten()
    {
        for n in objects(&q.subject, &node).into_iter().filter_map(subject) {
            for qn in objects(&n, &question).into_iter().filter_map(subject) {
                for t in objects(&qn, &text) {
                    if let Term::Literal(l) = t {
                        if l.datatype() == oxigraph::model::vocab::xsd::STRING {
                            out.push(crate::model::qid::question_id(l.value()));
                        }
                    }
                }
            }
        }
    }
    out
}

/// The (scenario name, node id) pairs of a checkpoint graph's scenarios:
/// a scenario turn counts for the benchmark by these.
fn scenario_nodes(store: &CheckpointStore, graph: &str) -> HashSet<(String, String)> {
    let mut out = HashSet::new();
    let Ok(g) = NamedNode::new(graph) else {
        return out;
    };
    let g = GraphNameRef::NamedNode(g.as_ref());
    let st = store.store();
    let ty = oxigraph::model::vocab::rdf::TYPE;
    let scenario = crate::vocab::term("Scenario");
    let name = NamedNode::new_unchecked(crate::vocab::schema("name"));
    let node = crate::vocab::term("node");
    let node_id = NamedNode::new_unchecked(crate::vocab::schema("nodeId"));
    let text = |t: &Term| match t {
        Term::Literal(l) => Some(l.value().to_string()),
        _ => None,
    };
    for q in st
        .quads_for_pattern(None, Some(ty), Some(scenario.as_ref().into()), Some(g))
        .flatten()
    {
        let s = q.subject;
        let names: Vec<String> = st
            .quads_for_pattern(Some(s.as_ref()), Some(name.as_ref()), None, Some(g))
            .flatten()
            .filter_map(|q| text(&q.object))
            .collect();
        for n in st
            .quads_for_pattern(Some(s.as_ref()), Some(node.as_ref()), None, Some(g))
            .flatten()
        {
            let subject = match n.object {
                Term::NamedNode(x) => oxigraph::model::NamedOrBlankNode::from(x),
                Term::BlankNode(x) => oxigraph::model::NamedOrBlankNode::from(x),
                _ => continue,
            };
            for id in st
                .quads_for_pattern(
                    Some(subject.as_ref()),
                    Some(node_id.as_ref()),
                    None,
                    Some(g),
                )
                .flatten()
                .filter_map(|q| text(&q.object))
            {
                for sid in &names {
                    out.insert((sid.clone(), id.clone()));
                }
            }
        }
    }
    out
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
    type Members = (HashSet<String>, HashSet<(String, String)>);
    let mut member_cache: HashMap<String, Members> = HashMap::new();
    let key = crate::vocab::term("labelKey");
    let value = crate::vocab::term("labelValue");
    for info in store.graphs().filter(|g| g.kind == GraphKind::Results) {
        let before = table.runs.len();
        let same = |r: usize| {
            known.is_some_and(|k| !info.sha256.is_empty() && k.runs[r].sha256 == info.sha256)
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
            let (qs, nodes) = member_cache
                .entry(c.clone())
                .or_insert_with(|| (members(store, &c), scenario_nodes(store, &c)));
            for i in table.rows_of(before) {
                let t = &table;
                let member = match (t.scenario[i], t.scenario_node[i]) {
                    (Some(sid), Some(nid)) => {
                        nodes.contains(&(t.text(sid).to_string(), t.text(nid).to_string()))
                    }
                    (Some(_), None) => false,
                    _ => qs.contains(t.text(t.question[i])),
                };
                table.in_benchmark[i] = member;
            }
        }
    }
    (table, notes)
}

/// Writes the table of a store directory beside its quads (atomically).
pub fn save(dir: &Path, table: &Table) -> Result<()> {
    super::parquet::write(table, &file_of(dir))
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
    save(dir, &t)?;
    Ok(notes)
}

/// The table of a store directory opened for reading: its Parquet file,
/// with the runs it lacks (or holds from a changed source) read from
/// their sources; the runs the store no longer holds left out.
pub fn of_dir(dir: &Path, store: &CheckpointStore) -> (Table, Vec<String>) {
    let known = load(dir).ok().flatten();
    of_store(store, known.as_ref())
}
