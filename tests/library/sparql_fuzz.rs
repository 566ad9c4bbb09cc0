//! Random and nested SPARQL thrown at the query entry point (issue 17): any
//! text must give an answer or a typed error within its time limit, never a
//! crash (a stack overflow aborts the whole test binary, so a green run
//! means none happened).

use karenina_ld::sparql::{self, ResultFormat};
use karenina_ld::Error;
use oxigraph::model::{GraphNameRef, Literal, NamedNodeRef, QuadRef};
use oxigraph::store::Store;
use proptest::prelude::*;
use std::time::{Duration, Instant};

/// How long a chain gets: short, just past the depth bound, or far past it
/// (a 10,000-step sequence path aborted the process, issue 31).
fn length() -> impl Strategy<Value = usize> {
    prop_oneof![1usize..40, Just(1_001usize), Just(10_000usize)]
}

/// Every construct the parser and the evaluator recurse on, chained or
/// nested `n` deep: sequence paths, alternatives, inverses, negated sets,
/// closures over groups, function-call arguments, nested expressions.
fn recursive_construct() -> impl Strategy<Value = String> {
    (0usize..9, length()).prop_map(|(kind, n)| match kind {
        0 => format!("?s {} ?y", vec!["<urn:p>"; n].join("/")),
        1 => format!("?s {} ?y", vec!["<urn:p>"; n].join("|")),
        2 => format!("?s {}<urn:p>{} ?y", "^(".repeat(n), ")".repeat(n)),
        3 => {
            let set: Vec<String> = (0..n).map(|i| format!("^<urn:n{i}>")).collect();
            format!("?s !({}) ?y", set.join("|"))
        }
        4 => format!("?s ({})* ?y", vec!["^<urn:p>|!<urn:p>"; n].join("/")),
        5 => format!("BIND({}?s{} AS ?f)", "STR(".repeat(n), ")".repeat(n)),
        6 => format!("FILTER(?o{})", " + 1".repeat(n)),
        7 => format!("FILTER(CONCAT({}))", vec!["STR(?o)"; n].join(", ")),
        _ => format!("FILTER({}true{})", "!(".repeat(n), ")".repeat(n)),
    })
}

/// Pieces of SPARQL that nest, chain and mix types.
fn fragment() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("?s ?p ?o".to_string()),
        Just("?s <urn:p> ?x".to_string()),
        Just("BIND(1 AS ?b)".to_string()),
        Just("VALUES ?v { 1 \"a\" <urn:x> }".to_string()),
        Just("?s <urn:p>/<urn:p>* ?y".to_string()),
        recursive_construct(),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            inner.clone().prop_map(|a| format!("{{ {a} }}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{{ {a} }} UNION {{ {b} }}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} OPTIONAL {{ {b} }}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} MINUS {{ {b} }}")),
            inner
                .clone()
                .prop_map(|a| format!("{a} FILTER(!BOUND(?zz) || (?o + 1 > 0))")),
            inner.prop_map(|a| format!("{a} FILTER NOT EXISTS {{ {a} }}")),
        ]
    })
}

/// A whole query around a fragment, possibly repeated into a long chain or
/// wrapped into deep nesting, possibly cut short.
fn query() -> impl Strategy<Value = String> {
    (
        fragment(),
        0usize..4,
        prop_oneof![Just(1usize), 1usize..50, Just(1_500usize)],
        any::<bool>(),
        prop::option::of(0usize..200),
    )
        .prop_map(|(f, head, times, nest, cut)| {
            // A long construct is thrown alone: 1,500 copies of a 10,000-step
            // one would be a 200 MB query, past any request's size.
            let times = if f.len() > 4_000 { 1 } else { times };
            let heads = [
                "SELECT * WHERE",
                "SELECT (COUNT(*) AS ?n) WHERE",
                "ASK",
                "CONSTRUCT { ?s ?p ?o } WHERE",
            ];
            let body = if nest {
                format!("{}{f}{}", "{".repeat(times), "}".repeat(times))
            } else {
                vec![format!("{{ {f} }}"); times].join(" UNION ")
            };
            let mut q = format!("{} {{ {body} }} ORDER BY ?o ?s", heads[head]);
            if head == 2 || head == 3 {
                q = q.replace(" ORDER BY ?o ?s", "");
            }
            if let Some(c) = cut {
                let at = q.char_indices().nth(c).map_or(q.len(), |(i, _)| i);
                q.truncate(at);
            }
            q
        })
}

fn store() -> Store {
    let store = Store::new().unwrap();
    let p = NamedNodeRef::new_unchecked("urn:p");
    for i in 0..20 {
        let s = oxigraph::model::NamedNode::new(format!("urn:s{i}")).unwrap();
        let o = if i % 3 == 0 {
            Literal::from(i).into()
        } else if i % 3 == 1 {
            oxigraph::model::Term::from(Literal::new_simple_literal(format!("{}", 20 - i)))
        } else {
            oxigraph::model::Term::from(s.clone())
        };
        store
            .insert(QuadRef::new(&s, p, &o, GraphNameRef::DefaultGraph))
            .unwrap();
    }
    store
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn any_query_answers_or_fails_cleanly_in_time(q in query()) {
        let store = store();
        let limit = Duration::from_secs(2);
        let t = Instant::now();
        let mut out = Vec::new();
        let r = sparql::run(&store, &q, limit, ResultFormat::Tsv, &mut out);
        prop_assert!(t.elapsed() < limit + Duration::from_secs(3), "{:?} for {}", t.elapsed(), &q[..q.len().min(200)]);
        match r {
            Ok(_) => {}
            Err(Error::Sparql(_) | Error::EmptyQuery | Error::SparqlSyntax { .. } | Error::TooComplex { .. } | Error::Timeout { .. } | Error::Usage(_) | Error::WrongFormat { .. }) => {}
            Err(e) => prop_assert!(false, "unexpected error {e} for {}", &q[..q.len().min(200)]),
        }
    }
}
