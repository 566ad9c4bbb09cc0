//! Notes for queries that run without error but answer less than their
//! author meant, where the reason is a known trap of kld's data or of
//! SPARQL's arithmetic (the syntax hints are [`super::hints`]'s).
//!
//! Why: two users' queries came back empty or half unbound with no word.
//! One named `http://schema.org/` terms (schema.org's own examples and many
//! tutorials do) over kld's data, which is all `https://schema.org/` (the
//! IRI Karenina's context gives, and the `schema:` prefix kld predefines):
//! nothing can match. The other computed a variance over decimals
//! (`AVG((?x - ?mean) * (?x - ?mean))`): SPARQL's decimals are exact, and
//! Oxigraph's hold 18 fractional digits, so a product that needs more (the
//! square of a difference from an average already has 18), or that
//! overflows, is an error, and the aggregate over it unbound. Each trap is
//! recognised in the query and confirmed by the answer (no row; a value
//! unbound), then told with what to write instead.

use oxigraph::sparql::{QuerySolution, QuerySolutionIter, Variable};
use spargebra::algebra::{AggregateExpression, GraphPattern};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// schema.org's `http://` namespace, which kld's data never uses.
const HTTP_SCHEMA: &str = "http://schema.org/";

/// The note for a query that found no row and names `http://schema.org/`
/// terms (`algebra`: the query written back, prefixed names expanded).
pub(super) fn http_schema(algebra: &str) -> Option<String> {
    let at = algebra.find(&format!("<{HTTP_SCHEMA}"))?;
    let term: String = algebra[at..]
        .chars()
        .take_while(|c| *c != '>')
        .skip(1)
        .collect();
    Some(format!(
        "the query names <{term}>, but kld's data uses https://schema.org/ (Karenina's context; \
         the predefined schema: prefix is <{}>): no http://schema.org/ term can match. \
         Use schema:{} or drop your `PREFIX schema: <http://schema.org/>`",
        crate::vocab::SCHEMA,
        term.strip_prefix(HTTP_SCHEMA).unwrap_or(&term)
    ))
}

/// True for an expression (as written back) that multiplies without
/// casting to a floating-point type, or uses a variable such an expression
/// bound.
fn multiplies(text: &str, flagged: &HashSet<Variable>) -> bool {
    let cast = text.contains("XMLSchema#double>(") || text.contains("XMLSchema#float>(");
    let product = text.contains(" * ") && !cast;
    product
        || flagged.iter().any(|v| {
            let name = format!("?{}", v.as_str());
            text.match_indices(&name).any(|(i, _)| {
                text[i + name.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
            })
        })
}

/// The variables of `pattern` bound by an expression or aggregate that
/// multiplies (see [`multiplies`]), inner patterns first.
fn products(pattern: &GraphPattern, flagged: &mut HashSet<Variable>) {
    use GraphPattern as P;
    #[allow(unreachable_patterns)]
    match pattern {
        P::Join { left, right }
        | P::Union { left, right }
        | P::Minus { left, right }
        | P::LeftJoin { left, right, .. } => {
            products(left, flagged);
            products(right, flagged);
        }
        P::Filter { inner, .. }
        | P::Graph { inner, .. }
        | P::OrderBy { inner, .. }
        | P::Project { inner, .. }
        | P::Distinct { inner }
        | P::Reduced { inner }
        | P::Slice { inner, .. }
        | P::Service { inner, .. } => products(inner, flagged),
        P::Extend {
            inner,
            variable,
            expression,
        } => {
            products(inner, flagged);
            if multiplies(&expression.to_string(), flagged) {
                flagged.insert(variable.clone());
            }
        }
        P::Group {
            inner, aggregates, ..
        } => {
            products(inner, flagged);
            for (v, a) in aggregates {
                if let AggregateExpression::FunctionCall { expr, .. } = a {
                    if multiplies(&expr.to_string(), flagged) {
                        flagged.insert(v.clone());
                    }
                }
            }
        }
        _ => {}
    }
}

/// The variables every `SELECT` (the query's and its subqueries') projects.
fn projected(pattern: &GraphPattern, named: &mut HashSet<Variable>) {
    use GraphPattern as P;
    #[allow(unreachable_patterns)]
    match pattern {
        P::Join { left, right }
        | P::Union { left, right }
        | P::Minus { left, right }
        | P::LeftJoin { left, right, .. } => {
            projected(left, named);
            projected(right, named);
        }
        P::Project { inner, variables } => {
            named.extend(variables.iter().cloned());
            projected(inner, named);
        }
        P::Filter { inner, .. }
        | P::Graph { inner, .. }
        | P::OrderBy { inner, .. }
        | P::Distinct { inner }
        | P::Reduced { inner }
        | P::Slice { inner, .. }
        | P::Service { inner, .. }
        | P::Extend { inner, .. }
        | P::Group { inner, .. } => projected(inner, named),
        _ => {}
    }
}

/// Counts, as an answer's solutions pass, the rows in which each variable
/// bound by a product is unbound.
pub(super) struct Unbound {
    /// The watched variables, in the answer's order.
    vars: Vec<Variable>,
    /// Rows seen, then one count per watched variable.
    counts: Arc<Vec<AtomicUsize>>,
}

impl Unbound {
    /// Watches the answer's variables that `query` binds by a product; none
    /// for a query without one.
    pub(super) fn of(query: &spargebra::Query) -> Option<Unbound> {
        let spargebra::Query::Select { pattern, .. } = query else {
            return None;
        };
        let mut flagged = HashSet::new();
        products(pattern, &mut flagged);
        // Only variables a SELECT names are watched: an aggregate's own
        // variable (spargebra names it at random) only carries the flag to
        // the variable its result is bound to.
        let mut named = HashSet::new();
        projected(pattern, &mut named);
        flagged.retain(|v| named.contains(v));
        if flagged.is_empty() {
            return None;
        }
        let mut vars: Vec<Variable> = flagged.into_iter().collect();
        vars.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        let counts = Arc::new((0..=vars.len()).map(|_| AtomicUsize::new(0)).collect());
        Some(Unbound { vars, counts })
    }

    /// `solutions`, counted as they pass.
    pub(super) fn watch<'a>(&self, solutions: QuerySolutionIter<'a>) -> QuerySolutionIter<'a> {
        let variables: Arc<[Variable]> = solutions.variables().into();
        let vars: Vec<Variable> = self
            .vars
            .iter()
            .filter(|v| variables.contains(v))
            .cloned()
            .collect();
        let counts = Arc::clone(&self.counts);
        let own = self.vars.clone();
        QuerySolutionIter::new(
            variables,
            solutions.inspect(move |s| {
                if let Ok(s) = s {
                    count(s, &vars, &own, &counts);
                }
            }),
        )
    }

    /// The note for the watched variables some rows left unbound.
    pub(super) fn note(&self) -> Option<String> {
        let rows = self.counts[0].load(Ordering::Relaxed);
        let unbound: Vec<String> = self
            .vars
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let n = self.counts[i + 1].load(Ordering::Relaxed);
                (n > 0).then(|| format!("?{} in {n} of {rows} rows", v.as_str()))
            })
            .collect();
        if unbound.is_empty() {
            return None;
        }
        Some(format!(
            "{} unbound, and computed by multiplying: a product of xsd:decimal values that \
             needs more than 18 fractional digits or overflows is an error in SPARQL (decimals \
             are exact), which leaves the value, and any aggregate over it, unbound. Cast to \
             xsd:double before multiplying, e.g. AVG(xsd:double(?d) * xsd:double(?d))",
            unbound.join(", ")
        ))
    }
}

fn count(s: &QuerySolution, present: &[Variable], all: &[Variable], counts: &[AtomicUsize]) {
    counts[0].fetch_add(1, Ordering::Relaxed);
    for v in present {
        if s.get(v).is_none() {
            if let Some(i) = all.iter().position(|a| a == v) {
                counts[i + 1].fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(q: &str) -> Vec<String> {
        let parsed = super::super::parse(q).unwrap();
        Unbound::of(&parsed.query)
            .map(|u| u.vars.iter().map(|v| v.as_str().to_string()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn products_without_a_double_cast_are_watched() {
        assert_eq!(
            flagged(
                "SELECT ?m (AVG((?x - ?m) * (?x - ?m)) AS ?var) WHERE { ?s ?p ?x . BIND(1.5 AS ?m) } GROUP BY ?m"
            ),
            ["var"]
        );
        // One step removed: a BIND over a product's aggregate.
        assert_eq!(
            flagged(
                "SELECT ?v WHERE { { SELECT (SUM(?x * ?x) AS ?ss) (COUNT(*) AS ?n) WHERE { ?s ?p ?x } } BIND(?ss / ?n AS ?v) }"
            ),
            ["ss", "v"]
        );
        assert!(
            flagged("SELECT (AVG(xsd:double(?x) * xsd:double(?x)) AS ?v) WHERE { ?s ?p ?x }")
                .is_empty()
        );
        assert!(flagged("SELECT (COUNT(*) AS ?n) (SUM(?x) AS ?s) WHERE { ?s ?p ?x }").is_empty());
    }

    #[test]
    fn an_http_schema_term_is_named_with_its_https_form() {
        let p = super::super::parse(
            "PREFIX schema: <http://schema.org/> SELECT ?q { ?q a schema:Question }",
        )
        .unwrap();
        let note = http_schema(&p.algebra().unwrap()).unwrap();
        assert!(note.contains("<http://schema.org/Question>"), "{note}");
        assert!(note.contains("schema:Question"), "{note}");
        let own = super::super::parse("SELECT ?q { ?q a schema:Question }").unwrap();
        assert_eq!(http_schema(&own.algebra().unwrap()), None);
    }
}
