//! Query parameters: `kld query --param VAR=VALUE`, Python's
//! `query_named(name, **params)`. A parameter keeps the rows of the answer
//! where the variable has that value, and nothing else.
//!
//! Oxigraph's own `substitute_variable` pre-binds the variable before
//! evaluation instead; under an `OPTIONAL` that did not match, the row then
//! gains the value rather than being left out (`benchmark-stats` with
//! `version = "1.0.0"` answered four benchmarks where one has that version),
//! and a trailing `VALUES` joins the same way. So the query is rewritten:
//! `FILTER(sameTerm(?VAR, VALUE))` over the pattern, inside `DISTINCT`,
//! `REDUCED` and `LIMIT`/`OFFSET` so that those apply to the filtered rows.

use super::Parsed;
use crate::error::{Error, Result};
use oxigraph::model::{Term, Variable};
use spargebra::algebra::{Expression, GraphPattern};
use spargebra::Query;

impl Parsed {
    /// Variable `name` (with or without its `?`) as a parameter of this
    /// query: one in scope of its outermost pattern (a SELECT's projection);
    /// any other is [`Error::Usage`], never silently ignored.
    pub fn param(&self, name: &str) -> Result<Variable> {
        let bare = name.trim_start_matches(['?', '$']);
        let mut in_scope = Vec::new();
        pattern(&self.query).on_in_scope_variable(|v| in_scope.push(v.as_str().to_string()));
        if in_scope.iter().any(|v| v == bare) {
            return Ok(Variable::new_unchecked(bare));
        }
        in_scope.sort();
        in_scope.dedup();
        Err(Error::Usage(format!(
            "the query has no variable ?{bare} to set (its variables: {})",
            in_scope
                .iter()
                .map(|v| format!("?{v}"))
                .collect::<Vec<_>>()
                .join(" ")
        )))
    }

    /// The query keeping only the rows where each parameter's variable has
    /// its value (see the module doc); a variable given several values
    /// keeps the rows where it has any of them.
    pub(super) fn with_params(&self, params: &[(String, Term)]) -> Result<Query> {
        // Variable → the tests of its values, in the order given.
        let mut by_var: Vec<(Variable, Vec<Expression>)> = Vec::new();
        for (name, value) in params {
            let var = self.param(name)?;
            let value = match value {
                Term::NamedNode(n) => Expression::NamedNode(n.clone()),
                Term::Literal(l) => Expression::Literal(l.clone()),
                Term::BlankNode(_) => {
                    return Err(Error::Usage(format!(
                        "?{name}: a blank node cannot be a parameter's value"
                    )))
                }
                #[allow(unreachable_patterns)]
                other => return Err(Error::Usage(format!("?{name}: {other} is not a value"))),
            };
            let test =
                Expression::SameTerm(Box::new(Expression::Variable(var.clone())), Box::new(value));
            match by_var.iter_mut().find(|(v, _)| *v == var) {
                Some((_, tests)) => tests.push(test),
                None => by_var.push((var, vec![test])),
            }
        }
        let cond = by_var
            .into_iter()
            .filter_map(|(_, tests)| {
                tests
                    .into_iter()
                    .reduce(|a, b| Expression::Or(Box::new(a), Box::new(b)))
            })
            .reduce(|a, b| Expression::And(Box::new(a), Box::new(b)));
        let mut query = self.query.clone();
        if let Some(cond) = cond {
            let p = pattern_mut(&mut query);
            *p = filtered(std::mem::take(p), cond);
        }
        Ok(query)
    }
}

/// When `value`, a parameter's value given as a plain string, reads as a
/// number or a boolean: the advice for an answer it left empty. A plain
/// string is never `sameTerm` with `3` or `true` (as Karenina's counts,
/// scores and flags are typed), so `--param questions=3` keeps no row; the
/// advice names the typed literal that would.
pub fn typed_value_hint(name: &str, value: &oxigraph::model::Term) -> Option<String> {
    use oxigraph::model::vocab::xsd;
    let oxigraph::model::Term::Literal(l) = value else {
        return None;
    };
    if l.datatype() != xsd::STRING || l.language().is_some() {
        return None;
    }
    let v = l.value();
    let datatype = if v.parse::<i64>().is_ok() {
        xsd::INTEGER
    } else if v == "true" || v == "false" {
        xsd::BOOLEAN
    } else if v.parse::<f64>().is_ok_and(f64::is_finite) && v.contains('.') {
        xsd::DECIMAL
    } else {
        return None;
    };
    let name = name.trim_start_matches(['?', '$']);
    Some(format!(
        "?{name}={v} was compared as the string \"{v}\", which no number or boolean equals; \
         for the typed value give --param '{name}=\"{v}\"^^<{}>'",
        datatype.as_str()
    ))
}

fn pattern(q: &Query) -> &GraphPattern {
    match q {
        Query::Select { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Ask { pattern, .. } => pattern,
    }
}

fn pattern_mut(q: &mut Query) -> &mut GraphPattern {
    match q {
        Query::Select { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Ask { pattern, .. } => pattern,
    }
}

/// `FILTER(cond)` under the solution modifiers that must see filtered rows.
fn filtered(p: GraphPattern, cond: Expression) -> GraphPattern {
    match p {
        GraphPattern::Slice {
            inner,
            start,
            length,
        } => GraphPattern::Slice {
            inner: Box::new(filtered(*inner, cond)),
            start,
            length,
        },
        GraphPattern::Distinct { inner } => GraphPattern::Distinct {
            inner: Box::new(filtered(*inner, cond)),
        },
        GraphPattern::Reduced { inner } => GraphPattern::Reduced {
            inner: Box::new(filtered(*inner, cond)),
        },
        other => GraphPattern::Filter {
            expr: cond,
            inner: Box::new(other),
        },
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_plain_string_that_reads_as_a_number_or_boolean_gets_advice() {
        use oxigraph::model::{Literal, NamedNode, Term};
        let plain = |v: &str| Term::from(Literal::new_simple_literal(v));
        let hint = super::typed_value_hint("?questions", &plain("3")).unwrap();
        assert!(hint.contains("XMLSchema#integer"), "{hint}");
        assert!(hint.starts_with("?questions=3 "), "{hint}");
        assert!(super::typed_value_hint("x", &plain("true"))
            .unwrap()
            .contains("#boolean"));
        assert!(super::typed_value_hint("x", &plain("0.5"))
            .unwrap()
            .contains("#decimal"));
        // Not numbers: a version, a name, NaN; and values already typed.
        for v in ["1.0.0", "gpt-4.1-mini", "NaN", "inf", ""] {
            assert_eq!(super::typed_value_hint("x", &plain(v)), None, "{v}");
        }
        let typed = Term::from(Literal::new_typed_literal(
            "3",
            oxigraph::model::vocab::xsd::INTEGER,
        ));
        assert_eq!(super::typed_value_hint("x", &typed), None);
        let iri = Term::from(NamedNode::new_unchecked("urn:x:3"));
        assert_eq!(super::typed_value_hint("x", &iri), None);
    }

    use super::super::{answer, parse, Answer, QueryOptions};
    use oxigraph::model::{GraphName, Literal, NamedNode, Quad};
    use oxigraph::store::Store;

    fn rows(store: &Store, q: &str, params: &[(&str, &str)]) -> Vec<Vec<Option<String>>> {
        let opts = QueryOptions {
            params: params
                .iter()
                .map(|(k, v)| (k.to_string(), Literal::new_simple_literal(*v).into()))
                .collect(),
            ..QueryOptions::default()
        };
        let Answer::Solutions { rows, .. } = answer(store, &parse(q).unwrap(), &opts).unwrap()
        else {
            panic!("not solutions")
        };
        rows.into_iter()
            .map(|r| r.into_iter().map(|t| t.map(|t| t.to_string())).collect())
            .collect()
    }

    #[test]
    fn a_param_filters_rows_and_limit_counts_the_filtered_ones() {
        let store = Store::new().unwrap();
        for (s, name, version) in [("a", "x", Some("1")), ("b", "y", None), ("c", "x", None)] {
            let s = NamedNode::new_unchecked(format!("urn:{s}"));
            let add = |p: &str, o: &str| {
                store
                    .insert(&Quad::new(
                        s.clone(),
                        NamedNode::new_unchecked(p),
                        Literal::new_simple_literal(o),
                        GraphName::DefaultGraph,
                    ))
                    .unwrap();
            };
            add("urn:name", name);
            if let Some(v) = version {
                add("urn:version", v);
            }
        }
        let q =
            "SELECT ?s ?v WHERE { ?s <urn:name> ?n OPTIONAL { ?s <urn:version> ?v } } ORDER BY ?s";
        // Pre-binding ?v would give all three rows ?v = "1"; a filter keeps one.
        assert_eq!(rows(&store, q, &[("v", "1")]).len(), 1);
        let q = "SELECT DISTINCT ?n WHERE { ?s <urn:name> ?n } ORDER BY DESC(?n) LIMIT 1";
        assert_eq!(
            rows(&store, q, &[("n", "x")]),
            vec![vec![Some("\"x\"".to_string())]]
        );
        // One variable, two values: either; two variables: both.
        let q = "SELECT ?s ?n WHERE { ?s <urn:name> ?n }";
        assert_eq!(rows(&store, q, &[("n", "x"), ("n", "y")]).len(), 3);
        assert_eq!(rows(&store, q, &[("n", "x"), ("s", "urn:a")]).len(), 0);
        let e = parse(q).unwrap().param("m").unwrap_err().to_string();
        assert!(e.contains("no variable ?m") && e.contains("?n"), "{e}");
    }
}
