//! Which checkpoint each results graph ran: kept by the store (in the
//! provenance triple `<results graph> karenina:forBenchmark <checkpoint>` and
//! in `index.tsv`), so it survives a store directory being reopened, and
//! recomputed whenever graphs come or go, so a run loaded before its
//! checkpoint is bound once the checkpoint arrives. The matching itself is
//! [`crate::store::binding::link`]'s.

pub mod holdings;
pub mod link;
pub(crate) mod runs;

use super::{CheckpointStore, GraphKind};
use crate::error::{Error, Result};
use crate::store::binding::holdings::{Holdings, RunKeys};
use crate::store::binding::link::Link;
use crate::vocab;
use oxigraph::model::{GraphNameRef, Literal, NamedNode, Quad};

/// `karenina:forBenchmark`, local name.
pub(super) const FOR_BENCHMARK: &str = "forBenchmark";
/// `karenina:bindingNote`, local name: why a results graph is not bound.
pub(super) const BINDING_NOTE: &str = "bindingNote";

/// A results graph's checkpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The checkpoint graph IRI.
    pub checkpoint: String,
    /// Named by the user (`--for`) rather than found by question IDs.
    pub explicit: bool,
}

impl Binding {
    /// The `index.tsv` field: `for <iri>` or `auto <iri>`.
    pub(super) fn to_field(&self) -> String {
        format!(
            "{} {}",
            if self.explicit { "for" } else { "auto" },
            self.checkpoint
        )
    }

    /// Reads [`Binding::to_field`]'s text; `None` for an empty field.
    pub(super) fn parse(field: &str) -> Option<Binding> {
        let (how, iri) = field.split_once(' ')?;
        Some(Binding {
            checkpoint: iri.to_string(),
            explicit: how == "for",
        })
    }
}

/// What binding did to one results graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    /// The results graph.
    pub graph: String,
    /// Its source file.
    pub source: String,
    /// The outcome.
    pub link: Link,
    /// Named in the request (rather than re-bound because other graphs changed).
    pub requested: bool,
}

/// An input binding left out (see [`Bound::skipped`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Skip<'a> {
    /// The graph kept in its place.
    pub kept: &'a str,
    /// The run's results (None for a database's copy of a benchmark).
    pub results: Option<usize>,
    /// Why, as `kld load --format json` and Python's `store.skipped` say
    /// it: `same-run`, `contained` or `same-benchmark`.
    pub why: &'static str,
}

impl Bound {
    /// Left out as a copy of a run another input holds, or as a database's
    /// copy of a benchmark a loaded checkpoint file holds: what was kept
    /// and why. `None` for a graph binding kept.
    pub fn skipped(&self) -> Option<Skip<'_>> {
        Some(match &self.link {
            Link::Duplicate {
                of,
                results,
                contained,
            } => Skip {
                kept: of,
                results: Some(*results),
                why: if *contained { "contained" } else { "same-run" },
            },
            Link::Shadowed { by } => Skip {
                kept: by,
                results: None,
                why: "same-benchmark",
            },
            _ => return None,
        })
    }

    /// What to tell the user about it, if anything (`FILE: results …`): a
    /// requested run that was bound needs no word.
    pub fn message(&self) -> Option<String> {
        let file = &self.source;
        Some(match (&self.link, self.requested) {
            (Link::Bound(_), true) => return None,
            (Link::Bound(c), false) => format!("{file}: results now bound to {c}"),
            (Link::Orphan { questions: 0 }, true) => {
                format!("{file}: not bound: the export holds no results with a question ID")
            }
            (Link::Orphan { questions }, true) => format!(
                "{file}: results link to no loaded checkpoint (none holds all {questions} of its question IDs)"
            ),
            (Link::Orphan { .. }, false) => {
                format!("{file}: results no longer bound (their checkpoint is gone)")
            }
            (l @ Link::NotItsBenchmark { .. }, requested) => format!(
                "{file}: results {}: {}",
                if requested { "not bound" } else { "no longer bound" },
                l.reason().unwrap_or_default()
            ),
            (Link::Ambiguous(c), _) => format!(
                "{file}: results match {} loaded checkpoints ({}); not bound: name the one it ran",
                c.len(),
                c.join(", ")
            ),
            (
                Link::Duplicate {
                    of,
                    results,
                    contained,
                },
                _,
            ) => {
                if *contained {
                    format!("{file}: skipped: its {results} results are all in {of}")
                } else {
                    format!(
                        "{file}: skipped: the same run as {of} (the same {results} results; that one is kept)"
                    )
                }
            }
            (Link::Shadowed { by }, _) => format!(
                "{file}: not kept: the checkpoint {by} is the same benchmark (a loaded checkpoint file wins over the database's copy)"
            ),
            (
                Link::Overlap {
                    with,
                    shared,
                    results,
                    other,
                },
                _,
            ) => format!(
                "{file}: {shared} of its {results} results are also in {with} ({other} results): both are loaded, so those {shared} count twice"
            ),
            (Link::Refused(c), requested) => format!(
                "{file}: {}the checkpoint named for it, {}, does not hold {} of the run's {} question IDs (e.g. {}); not bound",
                if requested { "" } else { "no longer bound: " },
                c.checkpoint,
                c.missing,
                c.total,
                c.examples.join(", ")
            ),
        })
    }

    /// True when the user's `--for` was refused (the CLI exits 1).
    pub fn refused(&self) -> bool {
        matches!(self.link, Link::Refused(_))
    }
}

impl CheckpointStore {
    /// Whether checkpoint graph `checkpoint` is a placeholder benchmark
    /// ([`crate::model::placeholder`]): every answer (`schema:acceptedAnswer`
    /// / `schema:text`) Karenina's placeholder.
    pub fn placeholder(
        &self,
        checkpoint: &str,
    ) -> Result<Option<crate::model::placeholder::Placeholder>> {
        use crate::model::placeholder::{Placeholder, ANSWER, DESCRIPTION};
        use oxigraph::model::{NamedOrBlankNodeRef, Term};
        let g = crate::error::named_node(checkpoint)?;
        let schema = |l: &str| NamedNode::new_unchecked(format!("https://schema.org/{l}"));
        let (accepted, text, description) = (
            schema("acceptedAnswer"),
            schema("text"),
            schema("description"),
        );
        let (mut questions, mut placeholders) = (0, 0);
        for q in self.store.quads_for_pattern(
            None,
            Some(accepted.as_ref()),
            None,
            Some(g.as_ref().into()),
        ) {
            questions += 1;
            let answer = match q.map_err(Error::store)?.object {
                Term::NamedNode(n) => oxigraph::model::NamedOrBlankNode::NamedNode(n),
                Term::BlankNode(b) => oxigraph::model::NamedOrBlankNode::BlankNode(b),
                _ => continue,
            };
            let subject: NamedOrBlankNodeRef<'_> = answer.as_ref();
            for t in self.store.quads_for_pattern(
                Some(subject),
                Some(text.as_ref()),
                None,
                Some(g.as_ref().into()),
            ) {
                if matches!(t.map_err(Error::store)?.object, Term::Literal(l) if l.value() == ANSWER)
                {
                    placeholders += 1;
                    break;
                }
            }
        }
        let mut said = None;
        for q in self.store.quads_for_pattern(
            None,
            Some(description.as_ref()),
            None,
            Some(g.as_ref().into()),
        ) {
            if let Term::Literal(l) = q.map_err(Error::store)?.object {
                if l.value().starts_with(DESCRIPTION) {
                    said = Some(l.value().to_string());
                }
            }
        }
        Ok(Placeholder::of(placeholders, questions, said.as_deref()))
    }

    /// Binds the results graphs in `requested` (to the checkpoint graph given,
    /// or to the one loaded checkpoint holding all their question IDs), then
    /// re-binds every other results graph not bound by the user, since loaded
    /// or removed checkpoints may have changed its match. Returns the outcome
    /// for each requested graph and for each other graph whose binding
    /// changed. A store directory's index is written once, at the end, if
    /// anything was bound.
    ///
    /// Each request is `(results graph IRI, Some(checkpoint graph IRI))` to
    /// bind a run to that checkpoint (`kld --for`), or `(results graph IRI,
    /// None)` to bind it automatically and be told the outcome; `&[]` binds
    /// every run automatically. A graph still unbound afterwards says why in
    /// its [`GraphInfo::unbound`](super::GraphInfo::unbound).
    pub fn bind(&mut self, requested: &[(String, Option<String>)]) -> Result<Vec<Bound>> {
        // One benchmark, one graph: a database copy gives way to its file.
        let shadowed = self.shadow_database_copies()?;
        // What every checkpoint holds, read once for all the runs below
        // (a store without runs has none to bind: nothing is read).
        let held = if self.index.values().any(|i| i.kind == GraphKind::Results) {
            Holdings::read(&self.store)?
        } else {
            Holdings::default()
        };
        // One run, one count: exports of a run already loaded are dropped first.
        let mut out: Vec<Bound> = self
            .reconcile_runs(&held)?
            .into_iter()
            .map(|n| Bound {
                requested: requested.iter().any(|(g, _)| *g == n.graph),
                graph: n.graph,
                source: n.source,
                link: n.link,
            })
            .collect();
        let skipped =
            !shadowed.is_empty() || out.iter().any(|b| matches!(b.link, Link::Duplicate { .. }));
        out.extend(shadowed);
        let requested: Vec<&(String, Option<String>)> = requested
            .iter()
            .filter(|(g, _)| self.index.contains_key(g))
            .collect();
        for (graph, explicit) in requested.iter().copied() {
            let (link, named) = match explicit {
                Some(c) => (self.checked(&held, graph, c)?, true),
                None => self.auto(&held, graph)?,
            };
            let binding = match &link {
                Link::Bound(c) => Some(Binding {
                    checkpoint: c.clone(),
                    explicit: named,
                }),
                _ => None,
            };
            self.set_binding(graph, binding, link.reason())?;
            out.push(self.bound(graph, link, true));
        }
        let others: Vec<(String, Option<Binding>, Option<String>)> = self
            .index
            .values()
            .filter(|i| i.kind == GraphKind::Results)
            .filter(|i| !requested.iter().any(|(g, _)| *g == i.graph))
            .map(|i| (i.graph.clone(), i.binding.clone(), i.unbound.clone()))
            .collect();
        let mut changed = skipped || !out.is_empty();
        for (graph, old, old_note) in others {
            // A user's choice stands while its checkpoint is loaded and
            // still holds the run's questions.
            let (link, named) = match &old {
                Some(b) if b.explicit && self.index.contains_key(&b.checkpoint) => {
                    match self.checked(&held, &graph, &b.checkpoint)? {
                        Link::Bound(_) => continue,
                        refused => (refused, false),
                    }
                }
                _ => self.auto(&held, &graph)?,
            };
            let new = match &link {
                Link::Bound(c) => Some(Binding {
                    checkpoint: c.clone(),
                    explicit: named,
                }),
                _ => None,
            };
            if new != old {
                self.set_binding(&graph, new, link.reason())?;
                out.push(self.bound(&graph, link, false));
                changed = true;
            } else if link.reason() != old_note {
                // Still unbound, for another reason (orphan, now ambiguous).
                self.set_binding(&graph, new, link.reason())?;
                changed = true;
            }
        }
        // (Only a change is written: a command that changed nothing leaves
        // the store directory as it was.)
        if changed {
            self.save_index()?;
        }
        Ok(out)
    }

    /// For a run of Karenina's database (`karenina:runSource "database"` in
    /// its graph, so a reopened store directory knows it too): its
    /// benchmark's name, if the run has a benchmark.
    fn database_run(&self, graph: &str) -> Result<Option<Option<String>>> {
        let g = crate::error::named_node(graph)?;
        let literal = |local: &str| -> Result<Option<String>> {
            let p = NamedNode::new_unchecked(vocab::karenina(local));
            for q in
                self.store
                    .quads_for_pattern(None, Some(p.as_ref()), None, Some(g.as_ref().into()))
            {
                if let oxigraph::model::Term::Literal(l) = q.map_err(Error::store)?.object {
                    return Ok(Some(l.value().to_string()));
                }
            }
            Ok(None)
        };
        if literal("runSource")?.as_deref() != Some("database") {
            return Ok(None);
        }
        let name = match self.index.get(graph).and_then(|i| i.benchmark_name.clone()) {
            Some(n) => Some(n),
            None => literal("benchmarkName")?,
        };
        Ok(Some(name))
    }

    /// Removes each database copy of a benchmark (`DB#benchmark=NAME`) whose
    /// checkpoint file is loaded: a checkpoint graph from a file with the
    /// same `schema:name`, or the file at the copy's `checkpoint_path`. The
    /// file is what Karenina's `save_to_db(url, checkpoint_path)` calls the
    /// source of truth, and it holds what the database drops (dynamic
    /// rubrics, scenarios, unknown members, deep-judgment settings).
    fn shadow_database_copies(&mut self) -> Result<Vec<Bound>> {
        use super::database::is_benchmark_copy;
        let copies: Vec<(String, String, Option<String>, Option<String>)> = self
            .index
            .values()
            .filter(|i| i.kind == GraphKind::Checkpoint && is_benchmark_copy(&i.source))
            .map(|i| {
                (
                    i.graph.clone(),
                    i.source.clone(),
                    i.benchmark_name.clone(),
                    i.benchmark.clone(),
                )
            })
            .collect();
        if copies.is_empty() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for (graph, source, name, at_path) in copies {
            let name = name.or_else(|| {
                source
                    .split_once(crate::kind::DB_BENCHMARK)
                    .map(|(_, n)| n.to_string())
            });
            let is_file = |g: &String| {
                self.index.get(g).is_some_and(|i| {
                    i.kind == GraphKind::Checkpoint && !is_benchmark_copy(&i.source)
                })
            };
            let mut by: Option<String> = at_path.filter(|g| is_file(g));
            if by.is_none() {
                if let Some(n) = &name {
                    by = self.named_checkpoints(n)?.into_iter().find(|g| is_file(g));
                }
            }
            if let Some(by) = by {
                self.remove(&graph)?;
                out.push(Bound {
                    graph,
                    source,
                    link: Link::Shadowed { by },
                    requested: false,
                });
            }
        }
        Ok(out)
    }

    /// The loaded checkpoints whose benchmark (`schema:DataFeed`) has the
    /// `schema:name` `name`.
    fn named_checkpoints(&self, name: &str) -> Result<Vec<String>> {
        let schema_name = NamedNode::new_unchecked(vocab::schema("name"));
        let feed = NamedNode::new_unchecked(vocab::schema("DataFeed"));
        let rdf_type = NamedNode::new_unchecked(vocab::RDF_TYPE);
        let lit = Literal::new_simple_literal(name);
        let mut out = Vec::new();
        for i in self
            .index
            .values()
            .filter(|i| i.kind == GraphKind::Checkpoint)
        {
            let g = crate::error::named_node(i.graph.as_str())?;
            let named = self
                .store
                .quads_for_pattern(
                    None,
                    Some(schema_name.as_ref()),
                    Some(lit.as_ref().into()),
                    Some(g.as_ref().into()),
                )
                .filter_map(std::result::Result::ok)
                .any(|q| {
                    self.store
                        .contains(&Quad::new(
                            q.subject,
                            rdf_type.clone(),
                            feed.clone(),
                            g.clone(),
                        ))
                        .unwrap_or(false)
                });
            if named {
                out.push(i.graph.clone());
            }
        }
        Ok(out)
    }

    /// The checkpoint a run folder's manifest names, when it is loaded.
    fn manifest_benchmark(&self, graph: &str) -> Option<String> {
        self.index
            .get(graph)
            .and_then(|i| i.benchmark.clone())
            .filter(|b| self.index.contains_key(b))
    }

    /// Binding without `--for`. A run of Karenina's database: to the one
    /// loaded checkpoint named as its benchmark that holds its questions
    /// (several: the one at its `checkpoint_path`, else ambiguous), else to
    /// the loaded checkpoint at its `checkpoint_path` if it holds them, else
    /// not bound (never by question IDs alone). A run folder: to the loaded
    /// checkpoint its manifest names (`benchmark_path`) when it holds the
    /// run's questions, else as an export. An export: to the one loaded
    /// checkpoint holding all its question IDs. True when the database or
    /// the manifest named it (kept like a user's choice).
    pub(super) fn auto(&self, held: &Holdings, graph: &str) -> Result<(Link, bool)> {
        let at_path = self.manifest_benchmark(graph);
        let keys = held.run(graph);
        let holds = |c: &str| -> Result<bool> {
            Ok(matches!(
                self.covered(held, keys, graph, c)?,
                Link::Bound(_)
            ))
        };
        if let Some(name) = self.database_run(graph)? {
            let mut named = Vec::new();
            if let Some(n) = &name {
                for c in self.named_checkpoints(n)? {
                    if holds(&c)? {
                        named.push(c);
                    }
                }
            }
            let link = match (named.len(), &at_path) {
                (1, _) => Link::Bound(named.remove(0)),
                (0, Some(b)) if holds(b)? => Link::Bound(b.clone()),
                (0, _) => Link::NotItsBenchmark { benchmark: name },
                (_, Some(b)) if named.contains(b) => Link::Bound(b.clone()),
                _ => Link::Ambiguous(named),
            };
            let named = matches!(link, Link::Bound(_));
            return Ok((link, named));
        }
        if let Some(b) = at_path {
            if holds(&b)? {
                return Ok((Link::Bound(b), true));
            }
        }
        // By question IDs: a checkpoint file before a database's copy of a
        // benchmark (which holds the same questions under another name).
        Ok((
            match held.find(keys) {
                Link::Ambiguous(c) => {
                    let files: Vec<String> = c
                        .iter()
                        .filter(|g| {
                            self.index
                                .get(*g)
                                .is_none_or(|i| !super::database::is_benchmark_copy(&i.source))
                        })
                        .cloned()
                        .collect();
                    match files.len() {
                        1 => Link::Bound(files[0].clone()),
                        _ => Link::Ambiguous(c),
                    }
                }
                other => other,
            },
            false,
        ))
    }

    /// Binding to checkpoint graph `c` as the user asked, if it holds every
    /// question (and scenario node) of the run.
    fn checked(&self, held: &Holdings, graph: &str, c: &str) -> Result<Link> {
        self.covered(held, held.run(graph), graph, c)
    }

    /// [`Self::checked`] with the run's keys read.
    fn covered(&self, held: &Holdings, keys: &RunKeys, graph: &str, c: &str) -> Result<Link> {
        let cov = match held.coverage(keys, c) {
            Some(cov) => cov,
            // Not a checkpoint graph the index read: ask the store.
            None => link::coverage(self.store(), graph, c)?,
        };
        Ok(if cov.missing == 0 {
            Link::Bound(c.to_string())
        } else {
            Link::Refused(cov)
        })
    }

    fn bound(&self, graph: &str, link: Link, requested: bool) -> Bound {
        Bound {
            graph: graph.to_string(),
            source: self
                .index
                .get(graph)
                .map(|i| i.source.clone())
                .unwrap_or_default(),
            link,
            requested,
        }
    }

    /// Replaces the `forBenchmark` and `bindingNote` triples of `graph` and
    /// its index entry; `note` says why an unbound run is not bound.
    fn set_binding(
        &mut self,
        graph: &str,
        binding: Option<Binding>,
        note: Option<String>,
    ) -> Result<()> {
        let r = crate::error::named_node(graph)?;
        let p = vocab::term(FOR_BENCHMARK);
        let pn = vocab::term(BINDING_NOTE);
        for pred in [&p, &pn] {
            let old: Vec<Quad> = self
                .store
                .quads_for_pattern(
                    Some(r.as_ref().into()),
                    Some(pred.as_ref()),
                    None,
                    Some(GraphNameRef::DefaultGraph),
                )
                .collect::<std::result::Result<_, _>>()
                .map_err(Error::store)?;
            for q in &old {
                self.store.remove(q).map_err(Error::store)?;
            }
            self.dead += old.len();
        }
        if let Some(b) = &binding {
            let c = crate::error::named_node(b.checkpoint.as_str())?;
            self.store
                .insert(&Quad::new(r.clone(), p, c, GraphNameRef::DefaultGraph))
                .map_err(Error::store)?;
        }
        let note = note.filter(|_| binding.is_none());
        if let Some(n) = &note {
            self.store
                .insert(&Quad::new(
                    r,
                    pn,
                    Literal::new_simple_literal(n),
                    GraphNameRef::DefaultGraph,
                ))
                .map_err(Error::store)?;
        }
        if let Some(i) = self.index.get_mut(graph) {
            i.binding = binding;
            i.unbound = note;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_field_round_trips() {
        for explicit in [true, false] {
            let b = Binding {
                checkpoint: "file:///a%20b.jsonld".into(),
                explicit,
            };
            assert_eq!(Binding::parse(&b.to_field()), Some(b));
        }
        assert_eq!(Binding::parse(""), None);
    }
}
