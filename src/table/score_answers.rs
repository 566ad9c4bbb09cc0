//! `scores-by-trait` and `scores-by-trait-and-judge` answered from the
//! results table as their SPARQL answers them over the quads (issue 45):
//! at paper size (some 160,000 scores) the join over the quads took 42 s
//! and 6 GB, past the server's per-query budget; here it is a loop over the
//! table's score columns and the bound checkpoints' ratings
//! ([`super::ratings`]).
//!
//! The query's join, mirrored: a result counts when its question is in
//! the benchmark its run is bound to (`in_benchmark`); each of its scores
//! (as `rdf::verification` writes them: one per key, a metric trait's dict
//! one per metric) meets each global rating of its trait's name and each
//! question-specific rating of its question and trait name, one solution
//! per rating (a rating twice counts twice), grouped by the benchmark's
//! name. `?n` counts the bound values, `?true_count` the booleans true,
//! `?mean` is `SUM / COUNT` of the numbers in Oxigraph's arithmetic
//! (integers sum exactly and divide into an `xsd:decimal`; a double
//! anywhere makes an `xsd:double`; none leaves it unbound).
//!
//! A sum of doubles depends on its order. Oxigraph's evaluation of the
//! query meets a group's scores in the reverse of the rows' order (the
//! runs' and the rows' within each), so the table adds them so too: the
//! differential tests (`tests/library/table_sparql.rs`: every fixture, and
//! generated runs of thousands of doubles) and the paper-size run give the
//! quads' doubles to the last bit. That order is Oxigraph's, not SPARQL's:
//! should an Oxigraph upgrade change it, those tests say so, and a mean
//! may then differ from the quads' in its last bits only.

use super::ratings::Ratings;
use super::{ScoreKind, Sym, Table};
use crate::sparql::Answer;
use oxigraph::model::{Literal, Term};
use oxsdatatypes::Decimal;
use std::collections::HashMap;

/// `SUM(COALESCE(?num, 0))` as Oxigraph accumulates it: integers until a
/// double comes, an overflow an error.
#[derive(Clone, Copy, Debug)]
enum Sum {
    Int(i64),
    Double(f64),
    Error,
}

impl Sum {
    fn add_int(self, x: i64) -> Sum {
        match self {
            Sum::Int(s) => s.checked_add(x).map_or(Sum::Error, Sum::Int),
            Sum::Double(d) => Sum::Double(d + x as f64),
            Sum::Error => Sum::Error,
        }
    }

    fn add_double(self, x: f64) -> Sum {
        match self {
            Sum::Int(s) => Sum::Double(s as f64 + x),
            Sum::Double(d) => Sum::Double(d + x),
            Sum::Error => Sum::Error,
        }
    }
}

/// One group's aggregates.
#[derive(Clone, Copy, Debug)]
struct Group {
    n: i64,
    true_count: i64,
    sum: Sum,
    numbers: i64,
}

impl Default for Group {
    fn default() -> Self {
        Group {
            n: 0,
            true_count: 0,
            sum: Sum::Int(0),
            numbers: 0,
        }
    }
}

impl Group {
    fn add(&mut self, kind: ScoreKind, value: Option<f64>) {
        self.n += i64::from(kind.bound());
        match (kind, value) {
            (ScoreKind::Bool, Some(v)) => {
                self.true_count += i64::from(v == 1.0);
                self.sum = self.sum.add_int(0);
            }
            (ScoreKind::Integer, Some(v)) => {
                self.sum = self.sum.add_int(v as i64);
                self.numbers += 1;
            }
            (ScoreKind::Double, Some(v)) => {
                self.sum = self.sum.add_double(v);
                self.numbers += 1;
            }
            _ => self.sum = self.sum.add_int(0),
        }
    }

    /// `IF(COUNT(?num) > 0, SUM(…) / COUNT(?num), 1/0)`.
    fn mean(&self) -> Option<Term> {
        if self.numbers == 0 {
            return None;
        }
        match self.sum {
            Sum::Int(s) => Decimal::from(s)
                .checked_div(Decimal::from(self.numbers))
                .map(|d| Literal::from(d).into()),
            Sum::Double(d) => Some(Literal::from(d / self.numbers as f64).into()),
            Sum::Error => None,
        }
    }
}

/// One score of a row as the quads hold it: its trait's name, its key, the
/// value's kind and number.
struct Score<'t> {
    trait_name: &'t str,
    key: &'t str,
    kind: &'t [ScoreKind],
    value: &'t [Option<f64>],
}

/// The scores a trait column holds, as `rdf::verification` writes them:
/// the value under the key (its trait the key's part before the first `.`,
/// but for regex and callable traits), and in the families whose dicts
/// are metrics, one per metric (`trait.metric`).
fn scores_of<'t>(c: &'t super::TraitColumn, keys: &'t [String]) -> Vec<Score<'t>> {
    let main = match c.family {
        "regex" | "callable" => c.name.as_str(),
        _ => c.name.split_once('.').map_or(c.name.as_str(), |(t, _)| t),
    };
    let mut out = vec![Score {
        trait_name: main,
        key: &c.name,
        kind: &c.kind,
        value: &c.value,
    }];
    if matches!(c.family, "metric" | super::UNTYPED_FAMILY) {
        for (k, (_, v)) in c.fields.iter().enumerate() {
            out.push(Score {
                trait_name: &c.name,
                key: &keys[k],
                kind: &c.field_kinds[k],
                value: v,
            });
        }
    }
    out
}

/// A checkpoint's ratings by trait name: global, and by question ID.
struct Index<'r> {
    global: HashMap<&'r str, Vec<&'r str>>,
    question: HashMap<&'r str, HashMap<&'r str, Vec<&'r str>>>,
    /// Each type's term (kept in N-Triples).
    types: HashMap<&'r str, Term>,
}

impl<'r> Index<'r> {
    /// `None` when a type does not read back as a term.
    fn new(r: &'r Ratings) -> Option<Self> {
        let mut global: HashMap<&str, Vec<&str>> = HashMap::new();
        for (name, ty) in &r.global {
            global.entry(name).or_default().push(ty);
        }
        let mut question: HashMap<&str, HashMap<&str, Vec<&str>>> = HashMap::new();
        for (qid, pairs) in &r.question {
            let by = question.entry(qid).or_default();
            for (name, ty) in pairs {
                by.entry(name).or_default().push(ty);
            }
        }
        let types = r
            .global
            .iter()
            .chain(r.question.values().flatten())
            .map(|(_, ty)| Some((ty.as_str(), ty.parse::<Term>().ok()?)))
            .collect::<Option<_>>()?;
        Some(Index {
            global,
            question,
            types,
        })
    }
}

/// A group: (benchmark, scope, trait, score key, interface, model name,
/// parsing model, type), the ORDER BY's keys first.
type Key<'t> = (&'t str, &'t str, &'t str, &'t str, Sym, Sym, Sym, &'t str);

/// The table answers the trait views as the quads would: it has its
/// scores' kinds, holds every value exactly, and has the ratings of every
/// checkpoint a run is bound to (and its name). Cheaper than the answer: a
/// server asks it first, to leave the query to SPARQL otherwise.
pub(super) fn answerable(t: &Table) -> bool {
    !t.untyped_scores
        && t.traits.iter().all(|c| {
            c.kind
                .iter()
                .chain(c.field_kinds.iter().flatten())
                .all(|k| *k != ScoreKind::Inexact)
        })
        && t.runs.iter().all(|p| match &p.benchmark {
            None => true,
            Some(g) => {
                p.benchmark_name.is_some() && t.ratings.get(g).and_then(Index::new).is_some()
            }
        })
}

/// `scores-by-trait` (`judge` false) or `scores-by-trait-and-judge`
/// (`judge` true); `None` when the table cannot answer it as the quads
/// would: scores without their kinds (an older table file), a value it
/// does not hold exactly, or a bound run whose checkpoint's ratings it
/// lacks.
pub(super) fn scores_by_trait(t: &Table, judge: bool) -> Option<Answer> {
    if !answerable(t) {
        return None;
    }
    let keys: Vec<Vec<String>> = t
        .traits
        .iter()
        .map(|c| {
            c.fields
                .iter()
                .map(|(f, _)| format!("{}.{f}", c.name))
                .collect()
        })
        .collect();
    let columns: Vec<Vec<Score<'_>>> = t
        .traits
        .iter()
        .zip(&keys)
        .map(|(c, k)| scores_of(c, k))
        .collect();
    let mut indexes: HashMap<&str, Index<'_>> = HashMap::new();
    let mut groups: HashMap<Key<'_>, Group> = HashMap::new();
    let none: Sym = Sym::MAX;
    // (In reverse, as Oxigraph meets them: see the module's docs.)
    for (r, p) in t.runs.iter().enumerate().rev() {
        let Some(graph) = &p.benchmark else {
            continue;
        };
        let bench = p.benchmark_name.as_deref()?;
        if !indexes.contains_key(graph.as_str()) {
            indexes.insert(graph, Index::new(t.ratings.get(graph)?)?);
        }
        let index = &indexes[graph.as_str()];
        for i in t.rows_of(r).rev().filter(|i| t.in_benchmark[*i]) {
            let question = index.question.get(t.text(t.question[i]));
            let (iface, model) = (t.answering_interface[i], t.answering_model_name[i]);
            let parsing = if judge { t.parsing[i] } else { none };
            for (c, scores) in t.traits.iter().zip(&columns) {
                if !c.present[i] {
                    continue;
                }
                for s in scores {
                    let kind = s.kind[i];
                    if kind == ScoreKind::Absent {
                        continue;
                    }
                    let global = index.global.get(s.trait_name).into_iter().flatten();
                    let specific = question
                        .and_then(|q| q.get(s.trait_name))
                        .into_iter()
                        .flatten();
                    for (scope, ty) in global
                        .map(|ty| ("global", ty))
                        .chain(specific.map(|ty| ("question", ty)))
                    {
                        groups
                            .entry((bench, scope, s.trait_name, s.key, iface, model, parsing, ty))
                            .or_default()
                            .add(kind, s.value[i]);
                    }
                }
            }
        }
    }
    let types: HashMap<&str, Term> = indexes
        .into_values()
        .flat_map(|i| i.types.into_iter())
        .collect();
    let mut groups: Vec<(Key<'_>, Group)> = groups.into_iter().collect();
    let sym = |s: Sym| if s == none { "" } else { t.text(s) };
    groups.sort_by(|(a, _), (b, _)| {
        (a.0, a.1, a.2, a.3, sym(a.4), sym(a.5), sym(a.6), a.7).cmp(&(
            b.0,
            b.1,
            b.2,
            b.3,
            sym(b.4),
            sym(b.5),
            sym(b.6),
            b.7,
        ))
    });
    let text = |s: &str| Some(Term::from(Literal::new_simple_literal(s)));
    let int = |n: i64| Some(Term::from(Literal::from(n)));
    let mut variables: Vec<String> = [
        "benchmark",
        "scope",
        "trait",
        "type",
        "score_key",
        "interface",
        "model_name",
    ]
    .iter()
    .map(|v| (*v).to_string())
    .collect();
    if judge {
        variables.push("parsing_model".into());
    }
    variables.extend(["n", "true_count", "mean"].map(String::from));
    let rows = groups
        .into_iter()
        .map(
            |((bench, scope, name, key, iface, model, parsing, ty), g)| {
                let mut row = vec![
                    text(bench),
                    text(scope),
                    text(name),
                    Some(types[ty].clone()),
                    text(key),
                    text(t.text(iface)),
                    text(t.text(model)),
                ];
                if judge {
                    row.push(text(t.text(parsing)));
                }
                row.extend([int(g.n), int(g.true_count), g.mean()]);
                row
            },
        )
        .collect();
    Some(Answer::Solutions { variables, rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(t: Option<Term>) -> (String, String) {
        match t {
            Some(Term::Literal(l)) => (l.value().to_string(), l.datatype().as_str().to_string()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_mean_is_oxigraph_s_sum_over_count() {
        let mut g = Group::default();
        g.add(ScoreKind::Integer, Some(1.0));
        g.add(ScoreKind::Bool, Some(1.0));
        g.add(ScoreKind::Integer, Some(2.0));
        g.add(ScoreKind::Integer, Some(2.0));
        g.add(ScoreKind::Null, None);
        g.add(ScoreKind::Other, None);
        assert_eq!((g.n, g.true_count, g.numbers), (5, 1, 3));
        let (v, dt) = lit(g.mean());
        assert_eq!(v, "1.666666666666666666");
        assert!(dt.ends_with("#decimal"), "{dt}");
        g.add(ScoreKind::Double, Some(0.5));
        let (v, dt) = lit(g.mean());
        assert_eq!(v, "1.375");
        assert!(dt.ends_with("#double"), "{dt}");
        // No number: unbound, as 1/0 leaves it.
        let mut g = Group::default();
        g.add(ScoreKind::Bool, Some(0.0));
        assert_eq!((g.n, g.true_count), (1, 0));
        assert_eq!(g.mean(), None);
        // An integer overflow is SUM's error.
        let mut g = Group::default();
        g.add(ScoreKind::Integer, Some(9e15));
        g.sum = g.sum.add_int(i64::MAX);
        assert_eq!(g.mean(), None);
    }
}
