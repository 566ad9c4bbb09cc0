//! Two hints the parser's own message cannot give: which bracket is not
//! closed (and where it was opened), and which keyword a misspelled word
//! was meant to be.
//!
//! Why: for `FILTER(?q != 1 }` the parser says "expected one of
//! STRLANGDIR, hasLangDir" and for `LIMT 3` it lists keywords without
//! LIMIT, because it stops where the text stops making sense, not where
//! the slip is. Both slips are found by reading the query's tokens
//! (outside strings, IRIs and comments): brackets with a stack, words by
//! their edit distance to SPARQL's keywords.

/// A token of the query that matters to the hints, with its 1-based line
/// and column (in characters).
#[derive(Debug, PartialEq)]
enum Token<'a> {
    Open(char),
    Close(char),
    /// A bare word: not a variable, prefixed name, language tag or number.
    Word(&'a str),
}

/// The query's brackets and bare words, in order, with their positions.
/// Linear in the query's length (a fuzzed query may be a megabyte of
/// brackets on one line).
fn tokens(sparql: &str) -> Vec<(Token<'_>, usize, usize)> {
    let b = sparql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut pos = Position::default();
    while i < b.len() {
        let c = b[i];
        if matches!(c, b'#' | b'"' | b'\'' | b'<') {
            if let Some(end) = super::limits::skip_literal(b, i) {
                i = end;
                continue;
            }
        }
        match c {
            b'(' | b'{' | b'[' => out.push((Token::Open(c as char), pos.at(b, i))),
            b')' | b'}' | b']' => out.push((Token::Close(c as char), pos.at(b, i))),
            c if c.is_ascii_alphabetic() => {
                let start = i;
                while i + 1 < b.len() && (b[i + 1].is_ascii_alphanumeric() || b[i + 1] == b'_') {
                    i += 1;
                }
                let before = start.checked_sub(1).map(|p| b[p]);
                let after = b.get(i + 1).copied();
                // Variables, prefixed names (and their local parts),
                // language tags and datatypes are not bare words.
                let bare = !matches!(before, Some(b'?' | b'$' | b':' | b'@' | b'_' | b'.' | b'-'))
                    && !before.is_some_and(|p| p.is_ascii_alphanumeric() || p >= 0x80)
                    && !matches!(after, Some(b':' | b'-' | b'.'))
                    && after.is_none_or(|a| a < 0x80);
                if bare {
                    out.push((Token::Word(&sparql[start..=i]), pos.at(b, start)));
                }
            }
            _ => {}
        }
        i += 1;
    }
    out.into_iter().map(|(t, (l, c))| (t, l, c)).collect()
}

/// Line and column (1-based, in characters) of byte offsets asked for in
/// increasing order, counted on from the last one asked.
#[derive(Default)]
struct Position {
    byte: usize,
    line: usize,
    column: usize,
}

impl Position {
    fn at(&mut self, b: &[u8], i: usize) -> (usize, usize) {
        for &x in &b[self.byte..i] {
            if x == b'\n' {
                self.line += 1;
                self.column = 0;
            } else if x & 0xC0 != 0x80 {
                // A character starts here (not a UTF-8 continuation byte).
                self.column += 1;
            }
        }
        self.byte = i;
        (self.line + 1, self.column + 1)
    }
}

fn closer(open: char) -> char {
    match open {
        '(' => ')',
        '{' => '}',
        _ => ']',
    }
}

/// Where the brackets of `sparql` do not pair up: an opener never closed
/// (named with its line:column), a closer of the wrong kind, or a closer
/// with nothing open.
pub(super) fn unbalanced(sparql: &str) -> Option<String> {
    let mut open: Vec<(char, usize, usize)> = Vec::new();
    for (t, line, column) in tokens(sparql) {
        match t {
            Token::Open(c) => open.push((c, line, column)),
            Token::Close(c) => match open.pop() {
                Some((o, ..)) if closer(o) == c => {}
                // No bracket of its kind open: the closer is the extra one.
                _ if !open.iter().any(|(o, ..)| closer(*o) == c) => {
                    return Some(format!("the `{c}` at {line}:{column} closes nothing"))
                }
                Some((o, l, col)) => {
                    return Some(format!(
                        "the `{o}` at {l}:{col} is not closed: the `{c}` at {line}:{column} comes first (a `{}` is missing)",
                        closer(o)
                    ))
                }
                None => return Some(format!("the `{c}` at {line}:{column} closes nothing")),
            },
            Token::Word(_) => {}
        }
    }
    open.pop().map(|(o, l, col)| {
        format!(
            "the `{o}` at {l}:{col} is not closed (a `{}` is missing)",
            closer(o)
        )
    })
}

/// SPARQL 1.1's keywords and built-in function names.
const KEYWORDS: &[&str] = &[
    "SELECT",
    "CONSTRUCT",
    "DESCRIBE",
    "ASK",
    "WHERE",
    "PREFIX",
    "BASE",
    "DISTINCT",
    "REDUCED",
    "FROM",
    "NAMED",
    "ORDER",
    "BY",
    "ASC",
    "DESC",
    "LIMIT",
    "OFFSET",
    "GROUP",
    "HAVING",
    "VALUES",
    "OPTIONAL",
    "GRAPH",
    "SERVICE",
    "SILENT",
    "BIND",
    "UNDEF",
    "MINUS",
    "UNION",
    "FILTER",
    "NOT",
    "IN",
    "EXISTS",
    "AS",
    "COUNT",
    "SUM",
    "MIN",
    "MAX",
    "AVG",
    "SAMPLE",
    "GROUP_CONCAT",
    "SEPARATOR",
    "STR",
    "LANG",
    "LANGMATCHES",
    "DATATYPE",
    "BOUND",
    "IRI",
    "URI",
    "BNODE",
    "RAND",
    "ABS",
    "CEIL",
    "FLOOR",
    "ROUND",
    "CONCAT",
    "STRLEN",
    "UCASE",
    "LCASE",
    "ENCODE_FOR_URI",
    "CONTAINS",
    "STRSTARTS",
    "STRENDS",
    "STRBEFORE",
    "STRAFTER",
    "YEAR",
    "MONTH",
    "DAY",
    "HOURS",
    "MINUTES",
    "SECONDS",
    "TIMEZONE",
    "TZ",
    "NOW",
    "UUID",
    "STRUUID",
    "MD5",
    "SHA1",
    "SHA256",
    "SHA384",
    "SHA512",
    "COALESCE",
    "IF",
    "STRLANG",
    "STRDT",
    "SAMETERM",
    "ISIRI",
    "ISURI",
    "ISBLANK",
    "ISLITERAL",
    "ISNUMERIC",
    "REGEX",
    "SUBSTR",
    "REPLACE",
    "TRUE",
    "FALSE",
    "A",
];

/// Edit distance with adjacent transpositions (optimal string alignment,
/// `strsim::osa_distance`).
fn distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

/// The keyword a word one or two edits away was meant to be (one edit for
/// words of up to four letters), if any.
fn nearest_keyword(word: &str) -> Option<&'static str> {
    let upper = word.to_ascii_uppercase();
    // The longest keyword is 14 letters: a longer word is no slip of one.
    if word.len() < 3 || word.len() > 16 || KEYWORDS.contains(&upper.as_str()) {
        return None;
    }
    let most = if word.len() <= 4 { 1 } else { 2 };
    KEYWORDS
        .iter()
        .map(|k| (distance(&upper, k), *k))
        .filter(|(d, _)| *d <= most)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// "did you mean LIMIT?" for the last misspelled keyword at or before the
/// error's position. A capitalised word (`Question`, `Rating`) is taken for
/// a term with its prefix forgotten, not a keyword.
pub(super) fn misspelled_keyword(sparql: &str, line: usize, column: usize) -> Option<String> {
    tokens(sparql)
        .into_iter()
        .filter(|(_, l, c)| (*l, *c) <= (line, column))
        .filter_map(|(t, l, c)| match t {
            Token::Word(w) => Some((w, l, c)),
            _ => None,
        })
        .filter(|(w, ..)| {
            let mut cs = w.chars();
            let first_upper = cs.next().is_some_and(|c| c.is_ascii_uppercase());
            !(first_upper && cs.any(|c| c.is_ascii_lowercase()))
        })
        .filter_map(|(w, l, c)| nearest_keyword(w).map(|k| (w, l, c, k)))
        .next_back()
        .map(|(w, l, c, k)| format!("`{w}` at {l}:{c} is not a SPARQL keyword: did you mean {k}?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint(q: &str) -> String {
        match super::super::parse(q).unwrap_err() {
            crate::Error::SparqlSyntax { hint, .. } => hint.unwrap_or_default(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn misspelled_keywords_get_did_you_mean() {
        for (q, want) in [
            (
                "SELECT * WHERE { ?s ?p ?o } LIMT 3",
                "`LIMT` at 1:29 is not a SPARQL keyword: did you mean LIMIT?",
            ),
            ("SELCT * WHERE { ?s ?p ?o }", "did you mean SELECT?"),
            ("SELECT * WHRE { ?s ?p ?o }", "did you mean WHERE?"),
            (
                "SELECT * WHERE { ?s ?p ?o } ORDR BY ?s",
                "did you mean ORDER?",
            ),
            (
                "SELECT * WHERE { ?s ?p ?o FILTR(?o) }",
                "did you mean FILTER?",
            ),
            (
                "select * where {\n  ?s ?p ?o\n  optinal { ?s schema:name ?n }\n}",
                "`optinal` at 3:3 is not a SPARQL keyword: did you mean OPTIONAL?",
            ),
            (
                "SELECT * WHERE { ?s ?p ?o FILTER(CONTIANS(?o, \"x\")) }",
                "did you mean CONTAINS?",
            ),
        ] {
            let h = hint(q);
            assert!(h.contains(want), "{q}: {h}");
        }
    }

    #[test]
    fn terms_strings_and_far_words_are_not_taken_for_keywords() {
        // A capitalised class name keeps the prefixed-name hint.
        assert!(hint("SELECT * WHERE { ?s a Question }").contains("schema:Question"));
        assert_eq!(nearest_keyword("xyzzy"), None);
        assert_eq!(nearest_keyword("LIMIT"), None);
        assert_eq!(nearest_keyword("ab"), None);
        // Words in strings, IRIs, comments, prefixed names and variables are no words.
        let q = "# LIMT\nSELECT ?limt WHERE { ?s <http://x/LIMT> \"LIMT\" ; schema:LIMT ?o }";
        assert!(tokens(q)
            .iter()
            .all(|(t, ..)| !matches!(t, Token::Word(w) if w.eq_ignore_ascii_case("limt"))));
        assert_eq!(distance("LIMT", "LIMIT"), 1);
        assert_eq!(distance("SLEECT", "SELECT"), 1);
    }

    #[test]
    fn an_unclosed_bracket_is_named_with_its_position() {
        for (q, want) in [
            (
                "SELECT ?q WHERE { ?q a schema:Question FILTER(?q != 1 }",
                "the `(` at 1:46 is not closed: the `}` at 1:55 comes first (a `)` is missing)",
            ),
            (
                "SELECT * {\n  ?s ?p ?o",
                "the `{` at 1:10 is not closed (a `}` is missing)",
            ),
            (
                "SELECT * { ?s ?p ?o FILTER(?o = 1)) }",
                "the `)` at 1:35 closes nothing",
            ),
            (
                "SELECT * { ?s ?p [ schema:name ?o }",
                "the `[` at 1:18 is not closed",
            ),
            (
                "SELECT * { ?s ?p \"(\" . FILTER((?s = ?s) }",
                "the `(` at 1:30 is not closed",
            ),
        ] {
            let h = hint(q);
            assert!(h.contains(want), "{q}: {h}");
        }
        assert_eq!(unbalanced("SELECT * { ?s ?p \"}\" } # ("), None);
    }
}
