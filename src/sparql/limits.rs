//! Bounds on what a query may cost before it runs.
//!
//! Why this module exists: SPARQL's parser, optimizer and evaluator all
//! recurse over the query, so a 6 KB query of 900 nested `{` (or 1,000 flat
//! `UNION`s, which parse into a tree 1,000 deep) overflowed a thread's stack
//! and aborted the whole process, and Oxigraph's optimizer takes time cubic in
//! the number of `OPTIONAL`s before any cancellation is checked. So every
//! query goes through three bounds:
//!
//! 1. a lexical scan (no recursion) refuses bracket nesting deeper than
//!    [`MAX_DEPTH`] before the parser sees the text;
//! 2. parsing, checking and dropping the parsed query run where enough stack
//!    remains, growing a fresh segment if needed (`with_stack`); the
//!    algebra tree's depth is measured without recursion and refused past
//!    [`MAX_DEPTH`];
//! 3. a query with more than `MAX_OPTIMIZED_OPERATORS` operators is
//!    evaluated without Oxigraph's optimizer (join order as written), whose
//!    cost would otherwise grow with the cube of the operator count.
//!
//! Evaluation runs with a stack sized by the query's depth (`stack_for`),
//! enough for every query below these bounds (tested at the bound in debug
//! builds, whose frames are the largest). Shallow queries, nearly all of
//! them, run on the caller's stack at no cost: a thread per query cost about
//! 2 ms a request in `kld serve`.

use crate::error::{Error, Result};
use spargebra::algebra::{
    AggregateExpression, Expression, Function, GraphPattern, OrderExpression,
    PropertyPathExpression,
};
use spargebra::Query;

/// Deepest nesting accepted: brackets in the text, and levels of the parsed
/// algebra (groups, `UNION`/`OPTIONAL`/`MINUS` chains, operators and
/// function arguments in an expression, property path steps, sequence paths
/// and the triples of one basic graph pattern, which are joined one into the
/// next).
pub const MAX_DEPTH: usize = 1000;

/// Queries with more operators (graph patterns, triple patterns and
/// property path steps) than this are evaluated without the optimizer.
pub(crate) const MAX_OPTIMIZED_OPERATORS: usize = 80;

/// Largest stack segment a query may grow into. It is reserved address
/// space: only the pages a query touches are ever committed, and the segment
/// is unmapped when the query is done.
pub(crate) const STACK_SIZE: usize = 256 << 20;

/// Stack a query of `depth` levels may need to be parsed, dropped or
/// evaluated: a margin of 1 MiB plus 64 KiB a level (debug builds, whose
/// frames are the largest, were measured at under 30 KiB a level).
pub(crate) fn stack_for(depth: usize) -> usize {
    (1 << 20) + depth.saturating_mul(64 << 10)
}

/// Runs `f` where at least `need` bytes of stack remain: on the current
/// stack when it has them (no cost), else on a fresh [`STACK_SIZE`] segment
/// of the same thread (stacker, as rustc does), unmapped afterwards. A panic
/// in `f` becomes [`Error::QueryPanicked`] with its message.
pub(crate) fn with_stack<T>(need: usize, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let run = std::panic::AssertUnwindSafe(|| stacker::maybe_grow(need, STACK_SIZE, f));
    std::panic::catch_unwind(run).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(Error::QueryPanicked(message))
    })
}

/// Most `BIND`s a query may hold. The parser checks each `BIND` against
/// every variable bound before it in its group, a walk of the whole group so
/// far, so its time grows with the square of their number (100,000 chained
/// `BIND`s, a 1.9 MB request, took 58 s to be refused for their depth). A
/// group of more than [`MAX_DEPTH`] is too deep anyway, so no query that
/// could run is refused by this bound that another would not refuse.
pub(crate) const MAX_BINDS: usize = MAX_DEPTH;

/// Most negations (`!`) a query may nest, one inside the operand of
/// another. The parser (spargebra, without its SPARQL 1.2 feature) reads the
/// operand of every `!` twice: once as a double negation, which it then
/// refuses, and again as what it is; so its time doubles with each level
/// (20 levels, a 70-byte query, took 20 s and ignored `--timeout`, since
/// parsing comes first). Twelve levels parse in milliseconds; no query a
/// person writes comes near.
pub(crate) const MAX_NEGATIONS: usize = 12;

/// Refuses text whose brackets (`{`, `(`, `[`) nest deeper than
/// [`MAX_DEPTH`], that holds more than [`MAX_BINDS`] `BIND`s, or that nests
/// more than [`MAX_NEGATIONS`] negations, without parsing it; returns the
/// deepest nesting. Strings, IRIs and comments are skipped, so brackets and
/// words inside them do not count.
pub(crate) fn check_text(sparql: &str) -> Result<usize> {
    let b = sparql.as_bytes();
    let (mut i, mut depth, mut max, mut binds) = (0usize, 0usize, 0usize, 0usize);
    // The depth each open negation's operand closes at.
    let mut negations: Vec<usize> = Vec::new();
    while i < b.len() {
        match b[i] {
            b'!' if b.get(i + 1) != Some(&b'=') => {
                // `!`s, then the operand: a bracket, a call, or a word.
                let mut bangs = 0;
                let mut j = i;
                while j < b.len() && b[j] == b'!' && b.get(j + 1) != Some(&b'=') {
                    bangs += 1;
                    j += 1;
                    while j < b.len() && b[j].is_ascii_whitespace() {
                        j += 1;
                    }
                }
                let word = j;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b"?$_:".contains(&b[j])) {
                    j += 1;
                }
                let mut k = j;
                while k < b.len() && b[k].is_ascii_whitespace() {
                    k += 1;
                }
                let open = negations.len() + bangs;
                if open > MAX_NEGATIONS {
                    return Err(Error::TooComplex {
                        what: "negations (`!`) nested in one another".into(),
                        limit: MAX_NEGATIONS,
                    });
                }
                if b.get(k) == Some(&b'(') {
                    negations.extend(std::iter::repeat_n(depth, bangs));
                    i = k;
                } else {
                    i = word;
                }
                continue;
            }
            b'#' | b'"' | b'\'' | b'<' => {
                if let Some(end) = skip_literal(b, i) {
                    i = end;
                    continue;
                }
            }
            c if c.is_ascii_alphabetic() || b"?$_:".contains(&c) => {
                // A word (a keyword, a variable, a prefixed name): only the
                // keyword BIND counts.
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b"?$_:-.".contains(&b[i])) {
                    i += 1;
                }
                if b[start..i].eq_ignore_ascii_case(b"bind") {
                    binds += 1;
                    if binds > MAX_BINDS {
                        return Err(Error::TooComplex {
                            what: "number of BINDs".into(),
                            limit: MAX_BINDS,
                        });
                    }
                }
                continue;
            }
            b'{' | b'(' | b'[' => {
                depth += 1;
                max = max.max(depth);
                if max > MAX_DEPTH {
                    return Err(too_deep());
                }
            }
            b'}' | b')' | b']' => {
                depth = depth.saturating_sub(1);
                while negations.last() == Some(&depth) {
                    negations.pop();
                }
            }
            _ => {}
        }
        i += 1;
    }
    Ok(max)
}

/// When `b[i]` opens a comment, a string (short or long) or an IRI
/// (`<…>` with no space or bracket; otherwise `<` is a comparison), the
/// index just past it: scans of query text skip what they hold.
pub(super) fn skip_literal(b: &[u8], mut i: usize) -> Option<usize> {
    match b[i] {
        b'#' => {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            Some(i)
        }
        q @ (b'"' | b'\'') => {
            let long = b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
            i += if long { 3 } else { 1 };
            while i < b.len() {
                if b[i] == b'\\' {
                    i += 2;
                    continue;
                }
                if b[i] == q && (!long || (b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q))) {
                    return Some(i + if long { 3 } else { 1 });
                }
                if !long && b[i] == b'\n' {
                    break;
                }
                i += 1;
            }
            Some(i.min(b.len()))
        }
        b'<' => b[i + 1..]
            .iter()
            .position(|&c| c == b'>' || c <= b' ' || b"<\"{}|^`\\".contains(&c))
            .filter(|&n| b[i + 1 + n] == b'>')
            .map(|n| i + n + 2),
        _ => None,
    }
}

/// The error for a query nested past [`MAX_DEPTH`].
pub(super) fn too_deep() -> Error {
    Error::TooComplex {
        what: "nesting depth".into(),
        limit: MAX_DEPTH,
    }
}

/// The size of a parsed query: the depth of its algebra tree and the number
/// of graph-pattern operators, triple patterns and property-path steps in it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Deepest level of nesting (patterns, expressions and paths together).
    pub depth: usize,
    /// Graph-pattern and property-path operators.
    pub operators: usize,
    /// Whether it calls a function whose value changes from one run to the
    /// next (`NOW()`, `RAND()`, `UUID()`, `STRUUID()`, `BNODE()`): its
    /// answer must not be kept and served again.
    pub volatile: bool,
}

enum Node<'a> {
    Pattern(&'a GraphPattern),
    Expr(&'a Expression),
    Path(&'a PropertyPathExpression),
}

/// Measures `query` without recursion (so a tree of any depth is measured
/// on any stack). Only the tests measure without the `SERVICE` check.
#[cfg(test)]
pub(crate) fn shape(query: &Query) -> Shape {
    shape_and_service(query).0
}

/// The query's shape, and the endpoint of a `SERVICE` clause without `SILENT`
/// (`<iri>` or `?var`) if the query has one (kld refuses to run it).
pub(super) fn shape_and_service(query: &Query) -> (Shape, Option<String>) {
    let mut service = None;
    let root = match query {
        Query::Select { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Ask { pattern, .. } => pattern,
    };
    let mut shape = Shape::default();
    let mut stack = vec![(Node::Pattern(root), 1usize)];
    while let Some((node, d)) = stack.pop() {
        shape.depth = shape.depth.max(d);
        let d = d + 1;
        match node {
            Node::Pattern(p) => {
                // A BGP's triples count too: the optimizer orders them, and
                // the evaluator joins them one into the next, a level each.
                // A sequence path (`<a>/<a>/…`) is parsed into such a BGP,
                // one triple per step, so its length is depth too.
                if let GraphPattern::Bgp { patterns } = p {
                    shape.depth = shape.depth.max(d.saturating_add(patterns.len()));
                }
                if let GraphPattern::Service {
                    name,
                    silent: false,
                    ..
                } = p
                {
                    service.get_or_insert_with(|| name.to_string());
                }
                shape.operators += match p {
                    GraphPattern::Bgp { patterns } => patterns.len().max(1),
                    _ => 1,
                };
                push_pattern(p, d, &mut stack);
            }
            Node::Path(p) => {
                shape.operators += 1;
                match p {
                    PropertyPathExpression::Reverse(a)
                    | PropertyPathExpression::ZeroOrMore(a)
                    | PropertyPathExpression::OneOrMore(a)
                    | PropertyPathExpression::ZeroOrOne(a) => stack.push((Node::Path(a), d)),
                    PropertyPathExpression::Sequence(a, b)
                    | PropertyPathExpression::Alternative(a, b) => {
                        stack.push((Node::Path(a), d));
                        stack.push((Node::Path(b), d));
                    }
                    _ => {}
                }
            }
            Node::Expr(e) => {
                if let Expression::FunctionCall(f, _) = e {
                    shape.volatile |= matches!(
                        f,
                        Function::Now
                            | Function::Rand
                            | Function::Uuid
                            | Function::StrUuid
                            | Function::BNode
                    );
                }
                push_expression(e, d, &mut stack)
            }
        }
    }
    (shape, service)
}

fn push_pattern<'a>(p: &'a GraphPattern, d: usize, stack: &mut Vec<(Node<'a>, usize)>) {
    match p {
        GraphPattern::Path { path, .. } => stack.push((Node::Path(path), d)),
        GraphPattern::Join { left, right }
        | GraphPattern::Union { left, right }
        | GraphPattern::Minus { left, right } => {
            stack.push((Node::Pattern(left), d));
            stack.push((Node::Pattern(right), d));
        }
        GraphPattern::LeftJoin {
            left,
            right,
            expression,
        } => {
            stack.push((Node::Pattern(left), d));
            stack.push((Node::Pattern(right), d));
            if let Some(e) = expression {
                stack.push((Node::Expr(e), d));
            }
        }
        GraphPattern::Filter { expr, inner } => {
            stack.push((Node::Expr(expr), d));
            stack.push((Node::Pattern(inner), d));
        }
        GraphPattern::Extend {
            inner, expression, ..
        } => {
            stack.push((Node::Expr(expression), d));
            stack.push((Node::Pattern(inner), d));
        }
        GraphPattern::OrderBy { inner, expression } => {
            stack.push((Node::Pattern(inner), d));
            for o in expression {
                let (OrderExpression::Asc(e) | OrderExpression::Desc(e)) = o;
                stack.push((Node::Expr(e), d));
            }
        }
        GraphPattern::Group {
            inner, aggregates, ..
        } => {
            stack.push((Node::Pattern(inner), d));
            for (_, a) in aggregates {
                if let AggregateExpression::FunctionCall { expr, .. } = a {
                    stack.push((Node::Expr(expr), d));
                }
            }
        }
        GraphPattern::Graph { inner, .. }
        | GraphPattern::Project { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. }
        | GraphPattern::Service { inner, .. } => stack.push((Node::Pattern(inner), d)),
        _ => {}
    }
}

fn push_expression<'a>(e: &'a Expression, d: usize, stack: &mut Vec<(Node<'a>, usize)>) {
    match e {
        Expression::Or(a, b)
        | Expression::And(a, b)
        | Expression::Equal(a, b)
        | Expression::SameTerm(a, b)
        | Expression::Greater(a, b)
        | Expression::GreaterOrEqual(a, b)
        | Expression::Less(a, b)
        | Expression::LessOrEqual(a, b)
        | Expression::Add(a, b)
        | Expression::Subtract(a, b)
        | Expression::Multiply(a, b)
        | Expression::Divide(a, b) => {
            stack.push((Node::Expr(a), d));
            stack.push((Node::Expr(b), d));
        }
        Expression::UnaryPlus(a) | Expression::UnaryMinus(a) | Expression::Not(a) => {
            stack.push((Node::Expr(a), d))
        }
        Expression::In(a, list) => {
            stack.push((Node::Expr(a), d));
            stack.extend(list.iter().map(|e| (Node::Expr(e), d)));
        }
        Expression::If(a, b, c) => {
            stack.extend([a, b, c].into_iter().map(|e| (Node::Expr(e), d)));
        }
        Expression::Coalesce(list) | Expression::FunctionCall(_, list) => {
            stack.extend(list.iter().map(|e| (Node::Expr(e), d)));
        }
        Expression::Exists(p) => stack.push((Node::Pattern(p), d)),
        _ => {}
    }
}

/// Refuses a parsed query deeper than [`MAX_DEPTH`]; returns its shape
/// (the tests' check; queries run through `shape_and_service`).
#[cfg(test)]
pub(crate) fn check(query: &Query) -> Result<Shape> {
    let s = shape(query);
    if s.depth > MAX_DEPTH {
        return Err(too_deep());
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(q: &str) -> Query {
        spargebra::SparqlParser::new().parse_query(q).unwrap()
    }

    #[test]
    fn the_lexical_scan_counts_brackets_outside_strings_iris_and_comments() {
        let deep = format!("SELECT * {}?s ?p ?o{}", "{".repeat(1001), "}".repeat(1001));
        assert!(matches!(
            check_text(&deep),
            Err(Error::TooComplex {
                limit: MAX_DEPTH,
                ..
            })
        ));
        let ok = format!("SELECT * {}?s ?p ?o{}", "{".repeat(999), "}".repeat(999));
        check_text(&ok).unwrap();
        let hidden = "{".repeat(5000);
        for q in [
            format!("SELECT * {{ ?s ?p \"{hidden}\" }}"),
            format!("SELECT * {{ ?s ?p '''{hidden}\n''' }}"),
            format!("SELECT * {{ ?s ?p ?o # {hidden}\n }}"),
            format!("SELECT * {{ ?s ?p \"a\\\"{hidden}\" }}"),
        ] {
            check_text(&q).unwrap_or_else(|e| panic!("{e}: {}", &q[..40]));
        }
        // BINDs are counted as keywords, not inside words, names or strings.
        let bind = |n: usize, what: &str| {
            format!(
                "SELECT * {{ ?s ?p ?o {} }}",
                (0..n)
                    .map(|i| what.replace('N', &i.to_string()))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        };
        let e = check_text(&bind(MAX_BINDS + 1, "bind(?o AS ?vN)")).unwrap_err();
        assert!(
            matches!(
                e,
                Error::TooComplex {
                    limit: MAX_BINDS,
                    ..
                }
            ),
            "{e}"
        );
        check_text(&bind(MAX_BINDS, "BIND(?o AS ?vN)")).unwrap();
        for other in [
            "?bind ?p \"BIND\" .",
            "?s ?p ?o . # BIND\n",
            "?s :bind ?o .",
        ] {
            check_text(&bind(MAX_BINDS + 1, other)).unwrap();
        }
        // `<` as a comparison does not swallow what follows.
        let cmp = format!("SELECT * {{ FILTER(1 < 2) {}}}", "{".repeat(1001));
        assert!(check_text(&cmp).is_err());
    }

    #[test]
    fn nested_negations_are_counted_and_side_by_side_ones_are_not() {
        let nested =
            |n: usize| format!("ASK {{ FILTER({}true{}) }}", "!(".repeat(n), ")".repeat(n));
        assert!(check_text(&nested(MAX_NEGATIONS)).is_ok());
        let e = check_text(&nested(MAX_NEGATIONS + 1)).unwrap_err();
        assert!(
            matches!(
                e,
                Error::TooComplex {
                    limit: MAX_NEGATIONS,
                    ..
                }
            ),
            "{e}"
        );
        // Through calls, double negations and other brackets too.
        let calls = format!(
            "ASK {{ FILTER({}?x{}) }}",
            "! BOUND(?y) || ! COALESCE(!!(".repeat(5),
            "))".repeat(5)
        );
        assert!(check_text(&calls).is_err(), "15 nested");
        assert!(check_text(&calls.replace("!!(", "(")).is_ok(), "5 nested");
        // Negations side by side, `!=`, negated property sets and text are not nested.
        let side = vec!["!(?a)"; 200].join(" && ");
        assert!(check_text(&format!("ASK {{ FILTER({side}) }}")).is_ok());
        let ne = vec!["?a != ?b"; 50].join(" && ");
        assert!(check_text(&format!("ASK {{ FILTER(!({ne})) }}")).is_ok());
        let q = format!(
            "ASK {{ ?s !(<urn:a>|^<urn:b>) ?o FILTER(STR(?o) = \"{}\") }}",
            "!(".repeat(40)
        );
        assert!(check_text(&q).is_ok());
        // Every level the bound allows parses (its time is the benchmark's).
        assert!(crate::sparql::parse(&nested(MAX_NEGATIONS)).is_ok());
    }

    #[test]
    fn flat_chains_are_measured_as_deep_trees() {
        let unions = format!(
            "SELECT * {{ {} }}",
            vec!["{ ?s ?p ?o }"; 50].join(" UNION ")
        );
        let s = shape(&parse(&unions));
        assert!(s.depth >= 50, "{s:?}");
        assert!(s.operators > MAX_OPTIMIZED_OPERATORS, "{s:?}");
        let plus = format!("SELECT * {{ ?s ?p ?o FILTER(?o {}) }}", "+ 1 ".repeat(200));
        assert!(shape(&parse(&plus)).depth >= 200);
        let path = format!("SELECT * {{ ?s {} ?o }}", vec!["<urn:p>*"; 30].join("/"));
        let s = shape(&parse(&path));
        assert!(s.depth >= 30 && s.operators >= 30, "{s:?}");
        // A sequence path becomes a BGP of one triple per step, joined one
        // into the next: 10,000 steps overflowed the evaluator's stack.
        let seq = format!("SELECT * {{ ?s {} ?o }}", vec!["<urn:a>"; 1500].join("/"));
        let refused = super::super::parse(&seq).unwrap_err();
        assert!(matches!(refused, Error::TooComplex { .. }), "{refused}");
        let ok = format!("SELECT * {{ ?s {} ?o }}", vec!["<urn:a>"; 900].join("/"));
        super::super::parse(&ok).unwrap();
        let small = shape(&parse("SELECT ?s { ?s ?p ?o OPTIONAL { ?s ?q ?x } }"));
        assert!(small.depth <= 5 && small.operators <= 5, "{small:?}");
    }

    #[test]
    fn calls_of_functions_that_change_between_runs_are_found_in_the_algebra() {
        for q in [
            "SELECT ?x { BIND(NOW() AS ?x) }",
            "SELECT ?s { ?s ?p ?o } ORDER BY RAND() LIMIT 3",
            "SELECT (UUID() AS ?u) {}",
            "SELECT ?s { ?s ?p ?o FILTER(STRUUID() != \"\") }",
            "SELECT (SAMPLE(BNODE()) AS ?b) { ?s ?p ?o }",
            "ASK { FILTER EXISTS { BIND(rand() AS ?r) } }",
            "SELECT ?s { ?s ?p ?o OPTIONAL { ?s ?q ?x FILTER(?x < NOW()) } }",
            "CONSTRUCT { ?s ?p ?n } { ?s ?p ?o BIND(BNODE(STR(?o)) AS ?n) }",
        ] {
            assert!(shape(&parse(q)).volatile, "{q}");
        }
        // Their names in strings, comments or IRIs are not calls.
        for q in [
            "SELECT (\"NOW()\" AS ?x) {}",
            "# RAND()\nSELECT * { ?s ?p ?o }",
            "SELECT * { ?s <http://x/UUID()> ?o }",
            "SELECT (STRLEN(\"x\") AS ?n) {}",
        ] {
            assert!(!shape(&parse(q)).volatile, "{q}");
        }
    }

    #[test]
    fn every_catalogue_query_is_optimized() {
        for q in super::super::CATALOGUE {
            let s = check(&parse(q.text)).unwrap();
            assert!(s.operators <= MAX_OPTIMIZED_OPERATORS, "{}: {s:?}", q.name);
        }
    }

    #[test]
    fn a_panic_on_the_query_thread_is_an_error() {
        let e = with_stack::<()>(1 << 20, || panic!("boom")).unwrap_err();
        assert!(matches!(&e, Error::QueryPanicked(m) if m == "boom"), "{e}");
    }
}
