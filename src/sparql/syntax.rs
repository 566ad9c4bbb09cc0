//! What a person needs from a SPARQL syntax error, and the prefixes a query
//! need not declare.
//!
//! The parser says `error at 3:17: expected one of Prefix not found, ['%'],
//! ['-' | '0' ..= '9' …` for a forgotten `PREFIX schema:`; a user needs the
//! line with a caret under the place and, for the common mistakes, what to
//! write instead. And since Karenina's data is all `schema:` and `karenina:`
//! terms, those prefixes (with `rdf:`, `rdfs:`, `xsd:`, and `prov:` for the
//! provenance of workspaces and repairs) are predefined, as
//! several public endpoints do; a query's own `PREFIX` lines win.

use crate::error::Error;
use crate::vocab;

/// The prefixes every query may use without declaring them.
pub const PREDEFINED: &[(&str, &str)] = &[
    ("schema", vocab::SCHEMA),
    ("karenina", vocab::KARENINA),
    ("rdf", crate::vocab::RDF),
    ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
    ("xsd", crate::vocab::XSD),
    ("prov", crate::vocab::PROV),
];

/// `sparql` with `PREFIX` lines for the predefined prefixes it uses without
/// declaring, for a server that does not predefine them.
pub fn with_prefixes(sparql: &str) -> String {
    let declared = declared_prefixes(sparql);
    let used = used_prefixes(sparql);
    let mut head = String::new();
    for (p, iri) in PREDEFINED {
        if used.iter().any(|u| u == p) && !declared.iter().any(|d| d == p) {
            head.push_str(&format!("PREFIX {p}: <{iri}>\n"));
        }
    }
    head + sparql
}

/// The prefixes declared by `PREFIX p: <…>` lines (case-insensitive keyword).
fn declared_prefixes(sparql: &str) -> Vec<String> {
    let lower = sparql.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = lower[at..].find("prefix") {
        let rest = sparql[at + i + 6..].trim_start();
        if let Some(colon) = rest.find(':') {
            let name = rest[..colon].trim();
            if name
                .chars()
                .all(|c| c.is_alphanumeric() || "_-.".contains(c))
            {
                out.push(name.to_string());
            }
        }
        at += i + 6;
    }
    out
}

/// Prefixed names' prefixes used in `sparql` (outside strings, IRIs and
/// comments), in order of first use.
fn used_prefixes(sparql: &str) -> Vec<String> {
    let b = sparql.as_bytes();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'#' | b'"' | b'\'' | b'<' => {
                if let Some(end) = super::limits::skip_literal(b, i) {
                    i = end;
                    continue;
                }
            }
            b'?' | b'$' => {
                while i + 1 < b.len() && (b[i + 1].is_ascii_alphanumeric() || b[i + 1] == b'_') {
                    i += 1;
                }
            }
            c if c.is_ascii_alphabetic() => {
                let start = i;
                while i + 1 < b.len()
                    && (b[i + 1].is_ascii_alphanumeric() || b"_-.".contains(&b[i + 1]))
                {
                    i += 1;
                }
                if b.get(i + 1) == Some(&b':') {
                    let name = &sparql[start..=i];
                    if !out.iter().any(|o| o == name) {
                        out.push(name.to_string());
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// A syntax error of `sparql` as the parser reported it (`message`), with
/// the line, a caret under the position and a hint for common mistakes.
pub(super) fn syntax_error(sparql: &str, message: &str) -> Error {
    let (mut line, mut column) = position(message).unwrap_or((1, 1));
    let mut message = shorten_expected(message);
    let declared = declared_prefixes(sparql);
    let undeclared: Vec<String> = used_prefixes(sparql)
        .into_iter()
        .filter(|p| !declared.contains(p) && !PREDEFINED.iter().any(|(d, _)| d == p))
        .collect();
    let hint = if let Some(p) = undeclared.first() {
        // Point at its first use rather than where the parser gave up.
        if let Some((l, c)) = first_use(sparql, &format!("{p}:")) {
            (line, column) = (l, c);
        }
        message = format!("the prefix `{p}:` is not declared");
        Some(format!(
            "add `PREFIX {p}: <IRI>` before the query (schema:, karenina:, rdf:, rdfs: and xsd: need none)"
        ))
    } else if let Some(h) = super::hints::unbalanced(sparql) {
        Some(h)
    } else if let Some(h) = super::hints::misspelled_keyword(sparql, line, column) {
        Some(h)
    } else {
        caret_hint(sparql, line, column)
    };
    let text = sparql.lines().nth(line.saturating_sub(1)).unwrap_or("");
    let excerpt = format!(
        "{line:>4} | {text}\n     | {}^",
        " ".repeat(column.saturating_sub(1).min(text.chars().count()))
    );
    Error::SparqlSyntax {
        line,
        column,
        message,
        excerpt,
        hint,
    }
}

/// Hints read off the query text before the caret, for two common slips:
/// a bare word where a term goes (`?s a Question`), and a triple pattern
/// with no object (`{ ?x ?y }`).
fn caret_hint(sparql: &str, line: usize, column: usize) -> Option<String> {
    let text = sparql.lines().nth(line.checked_sub(1)?)?;
    let at = text
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(text.len(), |(i, _)| i);
    let (before, after) = text.split_at(at);
    let before = before.trim_end();
    // The last whitespace-separated token before the caret.
    let last = before.rsplit(char::is_whitespace).next().unwrap_or("");
    const KEYWORDS: &[&str] = &[
        "a",
        "select",
        "where",
        "construct",
        "describe",
        "ask",
        "optional",
        "filter",
        "union",
        "minus",
        "graph",
        "bind",
        "values",
        "distinct",
        "reduced",
        "as",
        "from",
        "named",
        "order",
        "by",
        "group",
        "having",
        "limit",
        "offset",
        "prefix",
        "base",
        "service",
        "true",
        "false",
        "not",
        "in",
        "exists",
    ];
    let bare = !last.is_empty()
        && last.chars().next().is_some_and(|c| c.is_alphabetic())
        && last
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        && !KEYWORDS.contains(&last.to_ascii_lowercase().as_str());
    if bare {
        return Some(format!(
            "`{last}` is not a term: write a prefixed name (schema:{last}), a variable (?{last}) or an IRI (<…>)"
        ));
    }
    // The pattern since the last `{`, `.` or `;` (outside IRIs and strings
    // this rough split is enough for a hint).
    // The parser may stop at the closer or just past it.
    let (before, next) = match after.trim_start().chars().next() {
        Some(c @ ('}' | '.')) => (before, Some(c)),
        _ => match before.chars().next_back() {
            Some(c @ ('}' | '.')) => (before[..before.len() - 1].trim_end(), Some(c)),
            _ => (before, None),
        },
    };
    if matches!(next, Some('}') | Some('.')) {
        let start = before.rfind(['{', '.', ';']).map_or(0, |i| i + 1);
        let terms = before[start..].split_whitespace().count();
        let after_semicolon = before[..start].ends_with(';');
        if terms == 2 || (after_semicolon && terms == 1) {
            return Some(
                "a triple pattern needs a subject, a predicate and an object (`?s ?p ?o`)".into(),
            );
        }
    }
    None
}

/// Line and column (1-based, in characters) of the first `needle` that
/// starts a word.
fn first_use(sparql: &str, needle: &str) -> Option<(usize, usize)> {
    for (i, text) in sparql.lines().enumerate() {
        let mut from = 0;
        while let Some(at) = text[from..].find(needle) {
            let at = from + at;
            let before = text[..at].chars().next_back();
            if !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '?') {
                return Some((i + 1, text[..at].chars().count() + 1));
            }
            from = at + needle.len();
        }
    }
    None
}

/// `error at L:C: …` as the parser writes it.
fn position(message: &str) -> Option<(usize, usize)> {
    let rest = message.split_once("at ")?.1;
    let (lc, _) = rest.split_once(": ").unwrap_or((rest, ""));
    let (l, c) = lc.split_once(':')?;
    Some((l.trim().parse().ok()?, c.trim().parse().ok()?))
}

/// The parser's message without its position, its "expected one of" list
/// cut to the tokens a person types (character classes dropped).
fn shorten_expected(message: &str) -> String {
    let m = message
        .split_once(": ")
        .filter(|(head, _)| head.contains(" at "))
        .map_or(message, |(_, rest)| rest);
    let Some((head, list)) = m.split_once("expected one of ") else {
        return m.to_string();
    };
    // Split at top-level commas (character classes hold commas too).
    let (mut items, mut depth, mut cur) = (Vec::new(), 0i32, String::new());
    for c in list.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    items.push(cur.trim().to_string());
    let tokens: Vec<String> = items
        .into_iter()
        .filter(|i| !i.starts_with('[') && !i.is_empty() && !i.contains("not found"))
        .collect();
    match tokens.len() {
        0 => format!("{head}unexpected text here"),
        n if n > 8 => format!("{head}expected one of {}, …", tokens[..8].join(", ")),
        _ => format!("{head}expected one of {}", tokens.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_undeclared_prefix_is_named_under_a_caret() {
        let q = "SELECT ?x WHERE {\n  ?x foaf:name ?n\n}";
        let e = super::super::parse(q).unwrap_err();
        let shown = e.to_string();
        assert!(matches!(e, Error::SparqlSyntax { line: 2, .. }), "{shown}");
        assert!(shown.contains("   2 |   ?x foaf:name ?n"), "{shown}");
        assert!(shown.contains("\n     |      ^"), "{shown}");
        assert!(shown.contains("`foaf:` is not declared"), "{shown}");
        assert!(shown.contains("PREFIX foaf:"), "{shown}");
        assert!(!shown.contains("'0' ..= '9'"), "{shown}");
    }

    #[test]
    fn predefined_prefixes_need_no_declaration_and_declared_ones_win() {
        let p = super::super::parse("SELECT ?q { ?q a schema:Question ; karenina:x ?y }");
        assert!(p.is_ok(), "{p:?}");
        let own = "PREFIX schema: <http://schema.org/> SELECT ?q { ?q a schema:Question }";
        let text = format!("{:?}", super::super::parse(own).unwrap());
        assert!(text.contains("http://schema.org/Question"), "{text}");
        assert_eq!(
            with_prefixes("SELECT * { ?s a schema:Q ; rdfs:label \"x:y\" } # xsd:no"),
            format!(
                "PREFIX schema: <{}>\nPREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\nSELECT * {{ ?s a schema:Q ; rdfs:label \"x:y\" }} # xsd:no",
                vocab::SCHEMA
            )
        );
        assert_eq!(with_prefixes(own), own);
    }

    #[test]
    fn a_bare_word_and_a_missing_object_get_hints() {
        let hint = |q: &str| match super::super::parse(q).unwrap_err() {
            Error::SparqlSyntax { hint, .. } => hint.unwrap_or_default(),
            other => panic!("{other:?}"),
        };
        let h = hint("SELECT * WHERE { ?s a Question }");
        assert!(h.contains("schema:Question"), "{h}");
        for q in [
            "SELECT ?x WHERE { ?x ?y }",
            "SELECT ?x WHERE { ?x schema:name }",
            "SELECT ?x WHERE { ?x ?y . ?a ?b ?c }",
            "SELECT ?x WHERE { ?x a schema:Question ; schema:name }",
        ] {
            assert!(
                hint(q).contains("subject, a predicate and an object"),
                "{q}: {}",
                hint(q)
            );
        }
        // A well-formed query that fails elsewhere gets neither.
        let h = hint("SELECT ?x WHERE { ?x ?y ?z } LIMIT x");
        assert!(!h.contains("triple pattern"), "{h}");
    }

    #[test]
    fn an_unclosed_group_is_pointed_out() {
        let e = super::super::parse("SELECT * { ?s ?p ?o").unwrap_err();
        assert!(e.to_string().contains("not closed"), "{e}");
    }
}
