//! The catalogue's number queries answered from the results table as the
//! SPARQL query answers them over the quads: the same variables, the same
//! terms (integers, Oxigraph's decimals, IRIs, strings) and the same order,
//! so that `kld query --store DIR --named NAME` answers from the store's
//! Parquet file without parsing its N-Quads, and writes the bytes the quads
//! would give (issue 45). A differential test keeps each equal to its query
//! on every fixture and on generated runs.
//!
//! Only queries whose every column the table holds are here
//! ([`ANSWERED`]; the trait scores' two in `super::score_answers`, with
//! the bound checkpoints' ratings in `super::ratings`); the others
//! (`replicate-pass-rates`' Newton iteration in doubles,
//! `tokens-by-combo`'s stages beyond the table's four) are answered by
//! SPARQL.

use super::{Sym, Table};
use crate::sparql::Answer;
use oxigraph::model::{Literal, NamedNode, Term};
use oxsdatatypes::Decimal;
use std::collections::BTreeMap;

/// The catalogue queries the table answers.
pub const ANSWERED: [&str; 4] = [
    "pass-rate-by-benchmark",
    "outcome-classes",
    "scores-by-trait",
    "scores-by-trait-and-judge",
];

/// The table answers catalogue query `name` ([`answer`] gives `Some`),
/// known without computing the answer: a caller that caches the answer's
/// bytes asks this first, and leaves the query to SPARQL otherwise.
pub fn answers(name: &str, t: &Table) -> bool {
    match name {
        "pass-rate-by-benchmark" | "outcome-classes" => true,
        "scores-by-trait" | "scores-by-trait-and-judge" => super::score_answers::answerable(t),
        _ => false,
    }
}

/// The answer of catalogue query `name` from the table; `None` when the
/// table does not answer that query ([`ANSWERED`]), or not this table: the
/// trait-score views need the scores' kinds and the bound checkpoints'
/// ratings, which a table file written before kld kept them lacks
/// (`super::score_answers`).
pub fn answer(name: &str, t: &Table) -> Option<Answer> {
    match name {
        "pass-rate-by-benchmark" => Some(pass_rate_by_benchmark(t)),
        "outcome-classes" => Some(outcome_classes(t)),
        "scores-by-trait" => super::score_answers::scores_by_trait(t, false),
        "scores-by-trait-and-judge" => super::score_answers::scores_by_trait(t, true),
        _ => None,
    }
}

/// The run name as the quads hold it (`karenina:runName`).
fn run_name(t: &Table, i: usize) -> &str {
    t.opt_text(t.run_name[i]).unwrap_or("(unnamed run)")
}

fn iri(s: &str) -> Option<Term> {
    NamedNode::new(s).ok().map(Term::from)
}

fn text(s: &str) -> Option<Term> {
    Some(Literal::new_simple_literal(s).into())
}

fn int(n: usize) -> Option<Term> {
    Some(Literal::from(n as i64).into())
}

/// `?a / ?b` of two integers as Oxigraph evaluates it: an `xsd:decimal`,
/// unbound when `b` is 0.
fn ratio(a: usize, b: usize) -> Option<Term> {
    Decimal::from(a as i64)
        .checked_div(Decimal::from(b as i64))
        .map(|d| Literal::from(d).into())
}

/// The `?mcp_servers` of `pass-rate-by-benchmark`: the combo after
/// `answering | parsing | ` (`SUBSTR(?combo, STRLEN(?a) + STRLEN(?p) + 7)`,
/// in characters), empty without MCP servers.
fn mcp_of(combo: &str, answering: &str, parsing: &str) -> String {
    let skip = answering.chars().count() + parsing.chars().count() + 6;
    combo.chars().skip(skip).collect()
}

fn vars(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_string()).collect()
}

/// `pass-rate-by-benchmark`.
fn pass_rate_by_benchmark(t: &Table) -> Answer {
    use super::catalogue_views::{outcome_column, OUTCOMES};
    let mut names = vec![
        "benchmark",
        "graph",
        "results_graph",
        "run",
        "combo",
        "answering_model",
        "parsing_model",
        "mcp_servers",
        "interface",
        "model_name",
        "results",
        "n",
        "passed",
        "pass_rate",
    ];
    names.extend(OUTCOMES.map(outcome_column));
    let variables = vars(&names);
    #[derive(Default)]
    struct Group<'t> {
        run: Option<&'t str>,
        results: usize,
        n: usize,
        passed: usize,
        outcomes: [usize; 8],
    }
    // (benchmark, graph, results graph, combo, answering, parsing,
    // interface, model name) → group, in the query's order.
    type Key<'t> = (
        &'t str,
        &'t str,
        &'t str,
        &'t str,
        &'t str,
        &'t str,
        &'t str,
        &'t str,
    );
    let mut groups: BTreeMap<Key<'_>, Group<'_>> = BTreeMap::new();
    for (r, p) in t.runs.iter().enumerate() {
        let (Some(graph), Some(name)) = (&p.benchmark, &p.benchmark_name) else {
            continue;
        };
        let mut by: BTreeMap<[Sym; 5], Group<'_>> = BTreeMap::new();
        for i in t.rows_of(r).filter(|i| t.in_benchmark[*i]) {
            let g = by
                .entry([
                    t.combo[i],
                    t.answering[i],
                    t.parsing[i],
                    t.answering_interface[i],
                    t.answering_model_name[i],
                ])
                .or_default();
            let rn = run_name(t, i);
            g.run = Some(g.run.map_or(rn, |m| m.min(rn)));
            g.results += 1;
            if t.template_performed[i] {
                g.n += 1;
                g.passed += usize::from(t.verify[i] == Some(true));
            }
            // (The query counts a result without an outcome as unclassified,
            // and no other value.)
            match t.opt_text(t.outcome[i]) {
                None => g.outcomes[7] += 1,
                Some(o) => {
                    if let Some(k) = OUTCOMES[..7].iter().position(|x| *x == o) {
                        g.outcomes[k] += 1;
                    }
                }
            }
        }
        for (k, g) in by {
            let key = (
                name.as_str(),
                graph.as_str(),
                p.graph.as_str(),
                t.text(k[0]),
                t.text(k[1]),
                t.text(k[2]),
                t.text(k[3]),
                t.text(k[4]),
            );
            groups.insert(key, g);
        }
    }
    let rows = groups
        .into_iter()
        .map(|((bench, graph, rg, combo, a, p, iface, model), g)| {
            let mut row = vec![
                text(bench),
                iri(graph),
                iri(rg),
                g.run.and_then(text),
                text(combo),
                text(a),
                text(p),
                text(&mcp_of(combo, a, p)),
                text(iface),
                text(model),
                int(g.results),
                int(g.n),
                int(g.passed),
                ratio(g.passed, g.n),
            ];
            row.extend(g.outcomes.iter().map(|n| int(*n)));
            row
        })
        .collect();
    Answer::Solutions { variables, rows }
}

/// `outcome-classes`.
fn outcome_classes(t: &Table) -> Answer {
    let variables = vars(&[
        "results_graph",
        "run",
        "combo",
        "outcome",
        "results",
        "share",
    ]);
    // (results graph, combo, outcome) → (min run name, results); and
    // (results graph, combo) → results.
    let mut groups: BTreeMap<(&str, &str, &str), (&str, usize)> = BTreeMap::new();
    let mut all: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (r, p) in t.runs.iter().enumerate() {
        for i in t.rows_of(r) {
            let combo = t.text(t.combo[i]);
            let outcome = t.opt_text(t.outcome[i]).unwrap_or("unclassified");
            let rn = run_name(t, i);
            let g = groups
                .entry((p.graph.as_str(), combo, outcome))
                .or_insert((rn, 0));
            g.0 = g.0.min(rn);
            g.1 += 1;
            *all.entry((p.graph.as_str(), combo)).or_default() += 1;
        }
    }
    let rows = groups
        .into_iter()
        .map(|((rg, combo, outcome), (run, n))| {
            vec![
                iri(rg),
                text(run),
                text(combo),
                text(outcome),
                int(n),
                ratio(n, all[&(rg, combo)]),
            ]
        })
        .collect();
    Answer::Solutions { variables, rows }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mcp_part_as_substr_takes_it() {
        assert_eq!(mcp_of("a:x | b:y", "a:x", "b:y"), "");
        assert_eq!(mcp_of("a:x | b:y | m1, m2", "a:x", "b:y"), "m1, m2");
        // Characters, not bytes.
        assert_eq!(mcp_of("é:x | b:y | m", "é:x", "b:y"), "m");
    }

    #[test]
    fn a_ratio_is_oxigraph_s_decimal() {
        let lit = |t: Option<Term>| match t {
            Some(Term::Literal(l)) => (l.value().to_string(), l.datatype().as_str().to_string()),
            other => panic!("{other:?}"),
        };
        let (v, dt) = lit(ratio(1, 3));
        assert_eq!(v, "0.333333333333333333");
        assert_eq!(dt, "http://www.w3.org/2001/XMLSchema#decimal");
        assert_eq!(lit(ratio(2, 2)).0, "1");
        assert_eq!(ratio(0, 0), None);
    }
}
