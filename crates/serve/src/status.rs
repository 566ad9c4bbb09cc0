//! The HTTP status and message of each way a request can fail: one map
//! from the library's typed errors, so every route answers a failure alike.

use super::Answer;
use karenina_ld::error::Error;

/// The answer to an update request.
pub fn refuse_update() -> Answer {
    Answer::text(
        403,
        "SPARQL UPDATE is refused: kld serve is read-only (edit the checkpoint files instead)",
    )
}

/// Maps a library error to an HTTP answer: what the client got wrong 400
/// (syntax, a query past the complexity bound), updates 403, stopped
/// queries 503 (time limit, answer too large, server stopping), everything
/// else 500.
pub fn error_answer(e: &Error) -> Answer {
    match e {
        Error::UpdateRefused => refuse_update(),
        Error::Timeout { .. } => Answer::text(
            503,
            format!("{e} (the server's limit; a narrower query or a LIMIT helps)"),
        ),
        Error::ResultTooLarge { .. } => Answer::text(
            503,
            format!("{e} (the server's answer size limit; add LIMIT or narrow the query)"),
        ),
        Error::MemoryLimit { .. } => Answer::text(
            503,
            format!("{e} (the server's memory limit; a narrower query or a LIMIT helps)"),
        ),
        Error::Cancelled => Answer::text(503, e.to_string()),
        Error::Sparql(_)
        | Error::EmptyQuery
        | Error::SparqlSyntax { .. }
        | Error::Usage(_)
        | Error::Iri { .. }
        | Error::ServiceRefused { .. }
        | Error::TooComplex { .. } => Answer::text(400, e.to_string()),
        Error::NoSuchGraph(_) | Error::NoSuchRun { .. } => Answer::text(404, e.to_string()),
        // The answer exists; the format asked for cannot carry it.
        Error::NotRepresentable { .. } => Answer::text(406, e.to_string()),
        _ => Answer::text(500, e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Every typed error a request can end in gets the status its doc
    /// promises; matched on the variant, never on the message.
    #[test]
    fn each_typed_error_maps_to_its_status() {
        let iri_err = oxigraph::model::NamedNode::new("not an iri").unwrap_err();
        let cases: Vec<(Error, u16)> = vec![
            (Error::UpdateRefused, 403),
            (
                Error::ServiceRefused {
                    service: "<http://example.org/sparql>".into(),
                },
                400,
            ),
            (
                Error::Timeout {
                    limit: Duration::from_secs(3),
                },
                503,
            ),
            (Error::ResultTooLarge { limit: 10 }, 503),
            (
                Error::MemoryLimit {
                    limit: 10,
                    total: true,
                },
                503,
            ),
            (
                Error::NotRepresentable {
                    term: "\"a\\u{b}\"".into(),
                    ch: '\u{b}',
                    format: "RDF/XML",
                    formats: karenina_ld::export::ANY_TERM_RDF,
                },
                406,
            ),
            (Error::Cancelled, 503),
            (Error::sparql("bad"), 400),
            (Error::EmptyQuery, 400),
            (
                Error::SparqlSyntax {
                    line: 1,
                    column: 2,
                    message: "m".into(),
                    excerpt: String::new(),
                    hint: None,
                },
                400,
            ),
            (Error::Usage("u".into()), 400),
            (Error::iri("not an iri", iri_err), 400),
            (
                Error::TooComplex {
                    what: "nesting depth".into(),
                    limit: 1000,
                },
                400,
            ),
            (Error::NoSuchGraph("file:///x".into()), 404),
            (
                Error::NoSuchRun {
                    database: "k.db".into(),
                    run: "r".into(),
                },
                404,
            ),
            (Error::QueryPanicked("p".into()), 500),
            (Error::Internal("i".into()), 500),
        ];
        for (e, status) in cases {
            let a = error_answer(&e);
            assert_eq!(a.status, status, "{e:?}");
        }
    }
}
