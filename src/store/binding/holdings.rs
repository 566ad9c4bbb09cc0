//! What every loaded checkpoint holds, and every run's keys, read once, so
//! that binding many runs costs one pass over each predicate it reads
//! rather than one per graph.
//!
//! [`super::link::find`] and `super::link::coverage` say in SPARQL which
//! checkpoint holds a run's keys; asked once per run, each question joined
//! every checkpoint's items again (a notebook loading 200 checkpoints and
//! 200 runs spent 52 s there). [`Holdings`] answers the same two questions
//! from an index of the checkpoints' question IDs and scenario nodes, with
//! the same rules term for term: a test runs both on generated stores and
//! asserts they agree. The SPARQL stays the reference, and what `kld push`
//! asks a server, which has no such index.

use super::link::{Coverage, Link, EXAMPLES};
use crate::error::{Error, Result};
use crate::vocab;
use oxigraph::model::vocab::{rdf, xsd};
use oxigraph::model::{
    GraphName, GraphNameRef, Literal, NamedNode, NamedNodeRef, NamedOrBlankNode, Term, TermRef,
};
use oxigraph::store::Store;
use std::collections::{BTreeSet, HashMap, HashSet};

/// A scenario node as a run names it: (scenario name, node id), by term.
type NodeKey = (Term, Term);

/// The keys each loaded checkpoint graph (typed `karenina:CheckpointGraph`
/// in the default graph) holds: question IDs of its `schema:DataFeedItem`s
/// and (name, node id) pairs of its `karenina:Scenario`s.
#[derive(Debug, Default)]
pub struct Holdings {
    /// The checkpoint graphs, in IRI order; holders below index it.
    checkpoints: Vec<String>,
    /// Question ID (`karenina:id` of an item) → checkpoints holding it.
    items: HashMap<Term, Vec<usize>>,
    /// Scenario node → checkpoints holding it.
    nodes: HashMap<NodeKey, Vec<usize>>,
    /// Every graph's run keys, by graph IRI ([`RunKeys::read_all`]).
    runs: HashMap<String, RunKeys>,
}

/// A run's keys, read from its results graph as [`super::link`]'s `KEYS`
/// pattern reads them.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct RunKeys {
    /// Every distinct key: what all of the run a checkpoint must hold.
    total: HashSet<Term>,
    /// Question IDs of rows with no scenario at all.
    questions: HashSet<Term>,
    /// Scenario rows with a name and a node: the pair and its key (none
    /// where `CONCAT` fails on a term that is not a string).
    nodes: HashMap<NodeKey, Option<Term>>,
}

fn p(iri: &str) -> NamedNode {
    NamedNode::new_unchecked(iri)
}

/// Objects of `(s?, pred, ?, graph)`, by subject.
fn by_subject(
    store: &Store,
    pred: NamedNodeRef<'_>,
    graph: GraphNameRef<'_>,
) -> Result<HashMap<NamedOrBlankNode, Vec<Term>>> {
    let mut out: HashMap<NamedOrBlankNode, Vec<Term>> = HashMap::new();
    for q in store.quads_for_pattern(None, Some(pred), None, Some(graph)) {
        let q = q.map_err(Error::store)?;
        out.entry(q.subject).or_default().push(q.object);
    }
    Ok(out)
}

/// Objects of `(?s, pred, ?o)` in every named graph, by graph IRI, then by
/// subject: one pass over the predicate's quads.
fn by_graph(
    store: &Store,
    pred: NamedNodeRef<'_>,
) -> Result<HashMap<String, HashMap<NamedOrBlankNode, Vec<Term>>>> {
    let mut out: HashMap<String, HashMap<NamedOrBlankNode, Vec<Term>>> = HashMap::new();
    for q in store.quads_for_pattern(None, Some(pred), None, None) {
        let q = q.map_err(Error::store)?;
        if let GraphName::NamedNode(g) = q.graph_name {
            out.entry(g.into_string())
                .or_default()
                .entry(q.subject)
                .or_default()
                .push(q.object);
        }
    }
    Ok(out)
}

/// Subjects typed `class` in every named graph, by graph IRI: one pass
/// over the quads whose object is `class`.
fn typed_by_graph(
    store: &Store,
    class: NamedNodeRef<'_>,
) -> Result<HashMap<String, HashSet<NamedOrBlankNode>>> {
    let mut out: HashMap<String, HashSet<NamedOrBlankNode>> = HashMap::new();
    for q in store.quads_for_pattern(None, Some(rdf::TYPE), Some(class.into()), None) {
        let q = q.map_err(Error::store)?;
        if let GraphName::NamedNode(g) = q.graph_name {
            out.entry(g.into_string()).or_default().insert(q.subject);
        }
    }
    Ok(out)
}

/// A string literal's value, as SPARQL's `CONCAT` takes it (simple or
/// language-tagged); `None` where `CONCAT` fails and leaves the key unbound.
fn string_value(t: &Term) -> Option<&str> {
    match t.as_ref() {
        TermRef::Literal(l) if l.datatype() == xsd::STRING || l.datatype() == rdf::LANG_STRING => {
            Some(l.value())
        }
        _ => None,
    }
}

/// `CONCAT(parts…)` over terms: a simple literal, or none.
fn concat(prefix: &str, sid: &Term, sep: &str, nid: &Term) -> Option<Term> {
    let (s, n) = (string_value(sid)?, string_value(nid)?);
    Some(Literal::new_simple_literal(format!("{prefix}{s}{sep}{n}")).into())
}

impl Holdings {
    /// Reads every checkpoint graph's question IDs and scenario nodes, and
    /// the keys of every run in the store.
    ///
    /// Items, their IDs and run keys are read in one pass over all graphs
    /// for each predicate or class (Oxigraph keeps a list of the quads of
    /// each predicate and of each object), not graph by graph: asking
    /// `(?s, karenina:id, ?o, <g>)` of each of 200 checkpoints walks every
    /// quad of every graph, twenty times the quads the answer holds. Only a
    /// checkpoint holding scenarios has their names and nodes read graph by
    /// graph (`schema:name` is on nearly everything).
    pub fn read(store: &Store) -> Result<Holdings> {
        let class = p(&vocab::karenina(vocab::k::CHECKPOINT_GRAPH));
        let mut checkpoints: Vec<String> = store
            .quads_for_pattern(
                None,
                Some(rdf::TYPE),
                Some(class.as_ref().into()),
                Some(GraphNameRef::DefaultGraph),
            )
            .filter_map(|q| match q {
                Ok(q) => match q.subject {
                    NamedOrBlankNode::NamedNode(n) => Some(Ok(n.into_string())),
                    NamedOrBlankNode::BlankNode(_) => None,
                },
                Err(e) => Some(Err(Error::store(e))),
            })
            .collect::<Result<_>>()?;
        checkpoints.sort();
        checkpoints.dedup();
        let (item, id) = (p(&vocab::schema("DataFeedItem")), vocab::term("id"));
        let (scenario, name) = (vocab::term("Scenario"), p(&vocab::schema("name")));
        let (node, node_id) = (vocab::term("node"), p(&vocab::schema("nodeId")));
        let (question, text) = (p(&vocab::schema("question")), p(&vocab::schema("text")));
        let mut h = Holdings {
            runs: RunKeys::read_all(store)?,
            ..Holdings::default()
        };
        let items = typed_by_graph(store, item.as_ref())?;
        let mut ids = by_graph(store, id.as_ref())?;
        let scenarios = typed_by_graph(store, scenario.as_ref())?;
        let none = HashSet::new();
        for (c, iri) in checkpoints.iter().enumerate() {
            let items = items.get(iri).unwrap_or(&none);
            for (s, ids) in ids.remove(iri).unwrap_or_default() {
                if items.contains(&s) {
                    for qid in ids {
                        push_once(h.items.entry(qid).or_default(), c);
                    }
                }
            }
            let Some(scenarios) = scenarios.get(iri) else {
                continue;
            };
            let g = crate::error::named_node(iri.as_str())?;
            let g = GraphNameRef::NamedNode(g.as_ref());
            let names = by_subject(store, name.as_ref(), g)?;
            let node_ids = by_subject(store, node_id.as_ref(), g)?;
            let questions = by_subject(store, question.as_ref(), g)?;
            let texts = by_subject(store, text.as_ref(), g)?;
            for (s, nodes) in by_subject(store, node.as_ref(), g)? {
                if !scenarios.contains(&s) {
                    continue;
                }
                for n in nodes.iter().filter_map(subject) {
                    // The question ID a CSV export gives a turn at this node.
                    for q in questions.get(&n).into_iter().flatten().filter_map(subject) {
                        for t in texts.get(&q).into_iter().flatten() {
                            if let TermRef::Literal(l) = t.as_ref() {
                                if let Some(qid) = turn_question_id(l) {
                                    let qid = Literal::new_simple_literal(qid).into();
                                    push_once(h.items.entry(qid).or_default(), c);
                                }
                            }
                        }
                    }
                }
                let Some(sids) = names.get(&s) else {
                    continue;
                };
                for n in nodes.into_iter().filter_map(|n| subject(&n)) {
                    for nid in node_ids.get(&n).into_iter().flatten() {
                        for sid in sids {
                            push_once(h.nodes.entry((sid.clone(), nid.clone())).or_default(), c);
                        }
                    }
                }
            }
        }
        h.checkpoints = checkpoints;
        Ok(h)
    }

    /// What each checkpoint graph holds, as text (literal values; other
    /// terms left out), by graph IRI: the question IDs of its items and of
    /// its scenarios' turns (`turn_question_id`), and its (scenario
    /// name, node id) pairs. The results table counts a row for the
    /// benchmark its run is bound to by these (`crate::table::stored`).
    pub fn members(&self) -> HashMap<&str, Members> {
        let mut out: HashMap<&str, Members> = HashMap::new();
        let value = |t: &Term| match t {
            Term::Literal(l) => Some(l.value().to_string()),
            _ => None,
        };
        for (qid, holders) in &self.items {
            let Some(q) = value(qid) else { continue };
            for &c in holders {
                out.entry(&self.checkpoints[c])
                    .or_default()
                    .questions
                    .insert(q.clone());
            }
        }
        for ((sid, nid), holders) in &self.nodes {
            let (Some(s), Some(n)) = (value(sid), value(nid)) else {
                continue;
            };
            for &c in holders {
                out.entry(&self.checkpoints[c])
                    .or_default()
                    .nodes
                    .insert((s.clone(), n.clone()));
            }
        }
        out
    }

    /// The keys of the run in results graph `results`, as read with the
    /// checkpoints (none for a graph without results).
    pub fn run(&self, results: &str) -> &RunKeys {
        static EMPTY: std::sync::OnceLock<RunKeys> = std::sync::OnceLock::new();
        self.runs
            .get(results)
            .unwrap_or_else(|| EMPTY.get_or_init(RunKeys::default))
    }

    /// The one checkpoint holding every key of the run: what
    /// [`super::link::find`] answers.
    pub fn find(&self, run: &RunKeys) -> Link {
        let total = run.total.len();
        let mut held: HashMap<usize, HashSet<&Term>> = HashMap::new();
        for qid in &run.questions {
            for &c in self.items.get(qid).into_iter().flatten() {
                held.entry(c).or_default().insert(qid);
            }
        }
        for (pair, key) in &run.nodes {
            let Some(key) = key else { continue };
            for &c in self.nodes.get(pair).into_iter().flatten() {
                held.entry(c).or_default().insert(key);
            }
        }
        let mut full: Vec<String> = held
            .into_iter()
            .filter(|(_, keys)| keys.len() == total && total > 0)
            .map(|(c, _)| self.checkpoints[c].clone())
            .collect();
        full.sort();
        match full.len() {
            0 => Link::Orphan { questions: total },
            1 => Link::Bound(full.remove(0)),
            _ => Link::Ambiguous(full),
        }
    }

    /// Which of the run's keys checkpoint graph `checkpoint` lacks: what
    /// [`super::link::coverage`] answers; `None` for a graph not typed a
    /// checkpoint graph, which this index did not read.
    pub(crate) fn coverage(&self, run: &RunKeys, checkpoint: &str) -> Option<Coverage> {
        let c = self
            .checkpoints
            .binary_search_by(|g| g.as_str().cmp(checkpoint))
            .ok()?;
        let holds = |holders: Option<&Vec<usize>>| holders.is_some_and(|h| h.contains(&c));
        let mut missing: BTreeSet<(u8, String, String)> = BTreeSet::new();
        for qid in &run.questions {
            if !holds(self.items.get(qid)) {
                missing.insert(order_key(qid));
            }
        }
        for (sid, nid) in run.nodes.keys() {
            if !holds(self.nodes.get(&(sid.clone(), nid.clone()))) {
                missing.insert(match concat("", sid, " / ", nid) {
                    Some(key) => order_key(&key),
                    // An unbound ?key: one more row of SELECT DISTINCT.
                    None => (UNBOUND, String::new(), String::new()),
                });
            }
        }
        Some(Coverage {
            checkpoint: checkpoint.to_string(),
            total: run.total.len(),
            missing: missing.len(),
            examples: missing
                .iter()
                .filter(|(kind, _, _)| *kind == LITERAL)
                .take(EXAMPLES)
                .map(|(_, v, _)| v.clone())
                .collect(),
        })
    }
}

/// What a checkpoint graph holds, as text ([`Holdings::members`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Members {
    /// Question IDs: its items' and its scenarios' turns'.
    pub questions: HashSet<String>,
    /// (scenario name, node id) pairs of its scenarios.
    pub nodes: HashSet<(String, String)>,
}

/// The question ID a CSV export gives a scenario's turn whose node asks
/// `text` (`schema:text` of the node's question): Karenina's
/// `generate_question_id` of a plain string; none for a language-tagged or
/// typed text. kld's one Rust definition of it; the catalogue's SPARQL
/// (`pass-rate-by-benchmark`, `scores-by-trait`) and the board's quad
/// reader compute it by a `BIND` that a test keeps equal to this.
pub(crate) fn turn_question_id(text: oxigraph::model::LiteralRef<'_>) -> Option<String> {
    (text.datatype() == xsd::STRING).then(|| crate::model::qid::question_id(text.value()))
}

/// A term as a subject (none for a literal).
fn subject(t: &Term) -> Option<NamedOrBlankNode> {
    match t {
        Term::NamedNode(n) => Some(n.clone().into()),
        Term::BlankNode(b) => Some(b.clone().into()),
        Term::Literal(_) => None,
    }
}

fn push_once(v: &mut Vec<usize>, c: usize) {
    if v.last() != Some(&c) {
        v.push(c);
    }
}

/// SPARQL's `ORDER BY` rank of an unbound value and of a term's kind
/// (unbound, blank nodes, IRIs, literals).
const UNBOUND: u8 = 0;
const LITERAL: u8 = 3;

/// A key as `ORDER BY ?key` sorts it (kind, then value), and distinct as
/// `SELECT DISTINCT` keeps it (by the whole term).
fn order_key(t: &Term) -> (u8, String, String) {
    let (kind, value) = match t {
        Term::BlankNode(b) => (1, b.as_str()),
        Term::NamedNode(n) => (2, n.as_str()),
        Term::Literal(l) => (LITERAL, l.value()),
    };
    (kind, value.to_string(), t.to_string())
}

impl RunKeys {
    /// Reads the keys of the run in results graph `results` (the tests' oracle
    /// for [`Self::read_all`]).
    #[cfg(test)]
    fn read(store: &Store, results: &str) -> Result<RunKeys> {
        let g = crate::error::named_node(results)?;
        let g = GraphNameRef::NamedNode(g.as_ref());
        let qids = by_subject(store, vocab::term("questionId").as_ref(), g)?;
        let sids = by_subject(store, vocab::term("scenarioId").as_ref(), g)?;
        let nids = by_subject(store, vocab::term("scenarioNode").as_ref(), g)?;
        Ok(Self::from_rows(&qids, &sids, &nids))
    }

    /// [`Self::read`] for every graph at once, by graph IRI (graphs without
    /// a question ID, scenario or node are left out: their keys are none).
    /// Scenario rows, which are few, are read first; question IDs are then
    /// taken as they come, so no map of every row of every run is held.
    pub(crate) fn read_all(store: &Store) -> Result<HashMap<String, RunKeys>> {
        let sids = by_graph(store, vocab::term("scenarioId").as_ref())?;
        let nids = by_graph(store, vocab::term("scenarioNode").as_ref())?;
        let (no_rows, none) = (HashMap::new(), Vec::new());
        let mut out: HashMap<String, RunKeys> = HashMap::new();
        let qid = vocab::term("questionId");
        for q in store.quads_for_pattern(None, Some(qid.as_ref()), None, None) {
            let q = q.map_err(Error::store)?;
            let GraphName::NamedNode(g) = q.graph_name else {
                continue;
            };
            let g = g.into_string();
            let row = |rows: &'_ HashMap<String, HashMap<NamedOrBlankNode, Vec<Term>>>| {
                rows.get(&g)
                    .unwrap_or(&no_rows)
                    .get(&q.subject)
                    .unwrap_or(&none)
                    .clone()
            };
            let (s, n) = (row(&sids), row(&nids));
            out.entry(g).or_default().add_question(q.object, &s, &n);
        }
        for (g, rows) in &sids {
            let run = out.entry(g.clone()).or_default();
            run.add_nodes(rows, nids.get(g).unwrap_or(&no_rows));
        }
        for g in nids.keys() {
            out.entry(g.clone()).or_default();
        }
        Ok(out)
    }

    /// The keys of a run's rows: question IDs, scenario IDs and scenario
    /// nodes, each by row.
    #[cfg(test)]
    fn from_rows(
        qids: &HashMap<NamedOrBlankNode, Vec<Term>>,
        sids: &HashMap<NamedOrBlankNode, Vec<Term>>,
        nids: &HashMap<NamedOrBlankNode, Vec<Term>>,
    ) -> RunKeys {
        let mut run = RunKeys::default();
        let none = Vec::new();
        for (r, qs) in qids {
            let (s, n) = (sids.get(r).unwrap_or(&none), nids.get(r).unwrap_or(&none));
            for q in qs {
                run.add_question(q.clone(), s, n);
            }
        }
        run.add_nodes(sids, nids);
        run
    }

    /// One question ID of a row whose scenario IDs are `s` and scenario
    /// nodes `n` (none for a question outside scenarios).
    fn add_question(&mut self, q: Term, s: &[Term], n: &[Term]) {
        for sid in s {
            for nid in n {
                if let Some(key) = concat("scenario@@", sid, "@@", nid) {
                    self.total.insert(key);
                }
            }
        }
        if s.is_empty() {
            self.questions.insert(q.clone());
        }
        if s.is_empty() || n.is_empty() {
            self.total.insert(q);
        }
    }

    /// The (scenario, node) pairs of the rows, by row.
    fn add_nodes(
        &mut self,
        sids: &HashMap<NamedOrBlankNode, Vec<Term>>,
        nids: &HashMap<NamedOrBlankNode, Vec<Term>>,
    ) {
        let none = Vec::new();
        for (r, s) in sids {
            for sid in s {
                for nid in nids.get(r).unwrap_or(&none) {
                    let key = concat("scenario@@", sid, "@@", nid);
                    self.nodes.insert((sid.clone(), nid.clone()), key);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The index against the SPARQL it replaces, on generated stores: every
    //! run's [`Holdings::find`] equals [`link::find`], and its coverage of
    //! every graph equals [`link::coverage`].
    use super::super::link;
    use super::*;
    use oxigraph::model::{BlankNode, Quad};

    /// A small deterministic generator (xorshift), so a failure reproduces.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.below(100) < percent
        }
    }

    /// A key's term: mostly the strings kld writes, sometimes what a hand-
    /// made graph may hold (an IRI, an integer, a language-tagged string).
    fn term(rng: &mut Rng, pool: u64) -> Term {
        let v = format!("k{}", rng.below(pool));
        match rng.below(20) {
            0 => NamedNode::new_unchecked(format!("urn:x:{v}")).into(),
            1 => Literal::new_typed_literal(rng.below(3).to_string(), xsd::INTEGER).into(),
            2 => Literal::new_language_tagged_literal_unchecked(v, "en").into(),
            _ => Literal::new_simple_literal(v).into(),
        }
    }

    /// A scenario node's question text, from a few (a language-tagged one
    /// gives no ID: SPARQL's MD5 takes plain strings).
    fn turn_text(rng: &mut Rng) -> Term {
        let texts = [
            "What is X?",
            "Are you sure?",
            "Actually, X is Z.",
            "Ünïcode ΣΑΣ. Why?",
        ];
        let t = texts[rng.below(texts.len() as u64) as usize];
        if rng.chance(10) {
            Literal::new_language_tagged_literal_unchecked(t, "en").into()
        } else {
            Literal::new_simple_literal(t).into()
        }
    }

    fn store(rng: &mut Rng) -> (Store, Vec<String>, Vec<String>) {
        let s = Store::new().unwrap();
        let add = |sub: NamedOrBlankNode, pred: NamedNode, obj: Term, g: GraphNameRef<'_>| {
            s.insert(&Quad::new(sub, pred, obj, g.into_owned()))
                .unwrap();
        };
        let ty = || NamedNode::from(rdf::TYPE);
        let pool = 3 + rng.below(8);
        let mut graphs = Vec::new();
        for c in 0..rng.below(5) {
            let iri = format!("urn:c:{c}");
            let g = NamedNode::new_unchecked(&iri);
            let gr = GraphNameRef::NamedNode(g.as_ref());
            if rng.chance(85) {
                add(
                    g.clone().into(),
                    ty(),
                    vocab::term(vocab::k::CHECKPOINT_GRAPH).into(),
                    GraphNameRef::DefaultGraph,
                );
            }
            for _ in 0..rng.below(8) {
                let item: NamedOrBlankNode = BlankNode::default().into();
                if rng.chance(90) {
                    add(
                        item.clone(),
                        ty(),
                        p(&vocab::schema("DataFeedItem")).into(),
                        gr,
                    );
                }
                add(item, vocab::term("id"), term(rng, pool), gr);
            }
            for _ in 0..rng.below(3) {
                let sc: NamedOrBlankNode = BlankNode::default().into();
                if rng.chance(90) {
                    add(sc.clone(), ty(), vocab::term("Scenario").into(), gr);
                }
                add(sc.clone(), p(&vocab::schema("name")), term(rng, 3), gr);
                for _ in 0..rng.below(3) {
                    let n = BlankNode::default();
                    add(sc.clone(), vocab::term("node"), n.clone().into(), gr);
                    add(
                        n.clone().into(),
                        p(&vocab::schema("nodeId")),
                        term(rng, 4),
                        gr,
                    );
                    // The node's question, whose text a CSV turn's ID is.
                    if rng.chance(70) {
                        let q = BlankNode::default();
                        add(
                            n.into(),
                            p(&vocab::schema("question")),
                            q.clone().into(),
                            gr,
                        );
                        add(q.into(), p(&vocab::schema("text")), turn_text(rng), gr);
                    }
                }
            }
            graphs.push(iri);
        }
        let mut runs = Vec::new();
        for r in 0..1 + rng.below(4) {
            let iri = format!("urn:r:{r}");
            let g = NamedNode::new_unchecked(&iri);
            let gr = GraphNameRef::NamedNode(g.as_ref());
            for _ in 0..rng.below(7) {
                let row: NamedOrBlankNode = BlankNode::default().into();
                if rng.chance(20) {
                    // A CSV scenario turn: the ID of a node's question text.
                    let qid = match turn_text(rng) {
                        Term::Literal(l) => crate::model::qid::question_id(l.value()),
                        _ => unreachable!(),
                    };
                    add(
                        row.clone(),
                        vocab::term("questionId"),
                        Literal::new_simple_literal(qid).into(),
                        gr,
                    );
                } else if rng.chance(90) {
                    add(row.clone(), vocab::term("questionId"), term(rng, pool), gr);
                }
                if rng.chance(25) {
                    add(row.clone(), vocab::term("scenarioId"), term(rng, 3), gr);
                    if rng.chance(85) {
                        add(row, vocab::term("scenarioNode"), term(rng, 4), gr);
                    }
                }
            }
            runs.push(iri);
        }
        (s, graphs, runs)
    }

    #[test]
    fn the_index_answers_as_the_sparql_does() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut found, mut bound, mut covered) = (0, 0, 0);
        for case in 0..400 {
            let (s, graphs, runs) = store(&mut rng);
            let held = Holdings::read(&s).unwrap();
            for r in &runs {
                let keys = RunKeys::read(&s, r).unwrap();
                // Read with the checkpoints, all runs at once: the same keys.
                assert_eq!(held.run(r), &keys, "case {case}, run {r}");
                let want = link::find(&s, r).unwrap();
                assert_eq!(held.find(&keys), want, "case {case}, run {r}");
                found += 1;
                bound += usize::from(matches!(want, Link::Bound(_)));
                for c in &graphs {
                    if let Some(got) = held.coverage(&keys, c) {
                        let want = link::coverage(&s, r, c).unwrap();
                        assert_eq!(got, want, "case {case}, run {r}, checkpoint {c}");
                        covered += 1;
                    }
                }
            }
        }
        // The generator reaches the cases that matter.
        assert!(bound > 50 && found - bound > 50, "{bound} of {found} bound");
        assert!(covered > 500, "{covered} coverages compared");
    }
}
