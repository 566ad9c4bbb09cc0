//! What every loaded checkpoint holds, read once, so that binding many runs
//! costs one pass over the checkpoints and one pass over each run.
//!
//! [`super::link::find`] and [`super::link::coverage`] say in SPARQL which
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
    GraphNameRef, Literal, NamedNode, NamedNodeRef, NamedOrBlankNode, Term, TermRef,
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
}

/// A run's keys, read from its results graph as [`super::link`]'s `KEYS`
/// pattern reads them.
#[derive(Debug, Default)]
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

/// Subjects typed `class` in `graph`.
fn typed(
    store: &Store,
    class: NamedNodeRef<'_>,
    graph: GraphNameRef<'_>,
) -> Result<HashSet<NamedOrBlankNode>> {
    store
        .quads_for_pattern(None, Some(rdf::TYPE), Some(class.into()), Some(graph))
        .map(|q| q.map(|q| q.subject).map_err(Error::store))
        .collect()
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
    /// Reads every checkpoint graph's question IDs and scenario nodes.
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
        let mut h = Holdings::default();
        for (c, iri) in checkpoints.iter().enumerate() {
            let g = crate::error::named_node(iri.as_str())?;
            let g = GraphNameRef::NamedNode(g.as_ref());
            let items = typed(store, item.as_ref(), g)?;
            for (s, ids) in by_subject(store, id.as_ref(), g)? {
                if items.contains(&s) {
                    for qid in ids {
                        push_once(h.items.entry(qid).or_default(), c);
                    }
                }
            }
            let scenarios = typed(store, scenario.as_ref(), g)?;
            if scenarios.is_empty() {
                continue;
            }
            let names = by_subject(store, name.as_ref(), g)?;
            let node_ids = by_subject(store, node_id.as_ref(), g)?;
            for (s, nodes) in by_subject(store, node.as_ref(), g)? {
                let Some(sids) = names.get(&s).filter(|_| scenarios.contains(&s)) else {
                    continue;
                };
                for n in nodes {
                    let n = match n {
                        Term::NamedNode(n) => NamedOrBlankNode::NamedNode(n),
                        Term::BlankNode(b) => NamedOrBlankNode::BlankNode(b),
                        Term::Literal(_) => continue,
                    };
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
    pub fn coverage(&self, run: &RunKeys, checkpoint: &str) -> Option<Coverage> {
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
    /// Reads the keys of the run in results graph `results`.
    pub fn read(store: &Store, results: &str) -> Result<RunKeys> {
        let g = crate::error::named_node(results)?;
        let g = GraphNameRef::NamedNode(g.as_ref());
        let qids = by_subject(store, vocab::term("questionId").as_ref(), g)?;
        let sids = by_subject(store, vocab::term("scenarioId").as_ref(), g)?;
        let nids = by_subject(store, vocab::term("scenarioNode").as_ref(), g)?;
        let mut run = RunKeys::default();
        let none = Vec::new();
        for (r, qs) in &qids {
            let (s, n) = (sids.get(r).unwrap_or(&none), nids.get(r).unwrap_or(&none));
            if s.is_empty() {
                run.questions.extend(qs.iter().cloned());
            }
            for q in qs {
                if s.is_empty() || n.is_empty() {
                    run.total.insert(q.clone());
                }
                for sid in s {
                    for nid in n {
                        if let Some(key) = concat("scenario@@", sid, "@@", nid) {
                            run.total.insert(key);
                        }
                    }
                }
            }
        }
        for (r, s) in &sids {
            for sid in s {
                for nid in nids.get(r).unwrap_or(&none) {
                    let key = concat("scenario@@", sid, "@@", nid);
                    run.nodes.insert((sid.clone(), nid.clone()), key);
                }
            }
        }
        Ok(run)
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
                    add(n.into(), p(&vocab::schema("nodeId")), term(rng, 4), gr);
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
                if rng.chance(90) {
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
