//! Existing SPARQL servers as stores: past one machine, checkpoints go into a
//! proven triple store (Oxigraph server, Virtuoso, Fuseki, QLever) over the
//! standard protocols, and the same catalogue runs there. We never build our
//! own database.
//!
//! - [`client`]: SPARQL 1.1 Protocol and Graph Store Protocol over HTTP
//!   (reqwest, rustls), retries, basic/digest auth.
//! - [`plan`]: what a push sends: the inputs read as a local load reads
//!   them (one run, one count), compared with the provenance graph on the
//!   server (what changed since the last push).
//! - [`push`]: sending graphs, their provenance, binding runs on the server.
//! - [`fetch`]: a graph back into a canonical checkpoint, checked against the
//!   canonical SHA-256 recorded at push time, so a server that altered a value
//!   (Virtuoso shortens doubles) never yields a silently different file.
//! - [`run_query`]: catalogue and ad-hoc queries on the server, written in the
//!   same formats as local queries.
//! - [`default_graph`]: whether the server's default graph is the union of
//!   its named graphs, as the catalogue's queries need.

pub mod client;
pub mod default_graph;
pub mod fetch;
pub mod plan;
pub mod push;

pub use client::RemoteClient;

use crate::error::{Error, Result};
use crate::sparql::{self, ResultFormat};
use oxigraph::io::{RdfFormat, RdfParser};
use oxigraph::sparql::results::{QueryResultsFormat, QueryResultsParser};
use std::io::Write;

/// The graph holding the provenance of every pushed checkpoint graph.
pub const PROVENANCE_GRAPH: &str = "urn:karenina:provenance";

/// A server's SPARQL query endpoint and Graph Store Protocol endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoints {
    /// SPARQL 1.1 Protocol query URL.
    pub query: String,
    /// Graph Store HTTP Protocol URL (`?graph=IRI` is appended).
    pub graph_store: Option<String>,
    /// The graph parameter of the Graph Store endpoint: `graph` in the
    /// standard, `graph-uri` on Virtuoso.
    pub graph_param: String,
}

/// How to authenticate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthKind {
    /// HTTP Basic.
    Basic,
    /// HTTP Digest (Virtuoso's `/sparql-graph-crud-auth`).
    Digest,
    /// `Authorization: Bearer TOKEN` (QLever's write token); the token is
    /// the [`Auth::password`], the user empty.
    Bearer,
}

/// Credentials (from flags and the environment only; never printed).
#[derive(Clone, PartialEq, Eq)]
pub struct Auth {
    /// Basic or digest.
    pub kind: AuthKind,
    /// User name.
    pub user: String,
    /// Password.
    pub password: String,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Auth({:?}, {}, ***)", self.kind, self.user)
    }
}

/// `url` as messages show it: a password in it, and the values of query
/// parameters that carry secrets (`access-token`, `token`, `key`,
/// `password`, …), replaced by `***`, so that a token given in a URL (as
/// QLever takes one) is never printed.
pub fn redact(url: &str) -> String {
    let Ok(mut u) = reqwest::Url::parse(url) else {
        return url.to_string();
    };
    if u.password().is_some() {
        let _ = u.set_password(Some("***"));
    }
    let secret = |k: &str| {
        let k = k.to_ascii_lowercase();
        ["token", "key", "password", "secret", "auth"]
            .iter()
            .any(|s| k.contains(s))
    };
    if u.query_pairs().any(|(k, _)| secret(&k)) {
        let pairs: Vec<(String, String)> = u
            .query_pairs()
            .map(|(k, v)| {
                let v = if secret(&k) {
                    "***".into()
                } else {
                    v.into_owned()
                };
                (k.into_owned(), v)
            })
            .collect();
        u.query_pairs_mut().clear().extend_pairs(pairs);
    }
    u.to_string()
}

/// The servers `--server KIND BASE_URL` knows.
pub const SERVERS: &[&str] = &["oxigraph", "virtuoso", "fuseki", "qlever"];

/// The endpoints of a known server at `base` (no trailing slash needed):
/// - oxigraph: `BASE/query`, `BASE/store` (`oxigraph serve`);
/// - virtuoso: `BASE/sparql`, `BASE/sparql-graph-crud-auth?graph-uri=` (digest auth);
/// - fuseki: `BASE` is the dataset URL (`http://host:3030/ds`): `BASE/query`, `BASE/data`;
/// - qlever: `BASE` for queries, `BASE` for the Graph Store Protocol (QLever's
///   built-in GSP; needs an access token for writes).
pub fn server(kind: &str, base: &str) -> Result<Endpoints> {
    let b = base.trim_end_matches('/');
    let (q, g) = match kind {
        "oxigraph" => (format!("{b}/query"), format!("{b}/store")),
        "virtuoso" => (format!("{b}/sparql"), format!("{b}/sparql-graph-crud-auth")),
        "fuseki" => (format!("{b}/query"), format!("{b}/data")),
        "qlever" => (b.to_string(), b.to_string()),
        other => {
            return Err(Error::Usage(format!(
                "unknown server {other:?}: one of {}",
                SERVERS.join(", ")
            )))
        }
    };
    Ok(Endpoints {
        query: q,
        graph_store: Some(g),
        graph_param: if kind == "virtuoso" {
            "graph-uri"
        } else {
            "graph"
        }
        .into(),
    })
}

/// Runs `sparql` on the server and writes the answer in `format`, like a
/// local query: SELECT/ASK results go through the same serializers, graphs
/// through the same RDF writers. Returns the number of rows.
pub fn run_query(
    client: &RemoteClient,
    sparql: &str,
    format: ResultFormat,
    out: &mut dyn Write,
) -> Result<usize> {
    let form = sparql::form(sparql)?;
    form.check(format)?;
    // The server need not predefine the prefixes kld does.
    let text = sparql::with_prefixes(sparql);
    let sparql = text.as_str();
    if form.is_graph() {
        let body = client.query(sparql, "application/n-triples")?;
        let quads = RdfParser::from_format(RdfFormat::NTriples)
            .for_slice(&body)
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| Error::RemoteAnswer {
                what: "query".into(),
                reason: format!("its N-Triples do not parse: {e}"),
            })?;
        match format {
            ResultFormat::Rdf(f) => crate::export::write(&quads, f, true, out)?,
            ResultFormat::Table => {
                crate::export::write(&quads, crate::export::ExportFormat::NTriples, true, out)?
            }
            other => return form.check(other).map(|()| 0),
        }
        return Ok(quads.len());
    }
    let body = client.query(sparql, "application/sparql-results+json")?;
    let parsed = QueryResultsParser::from_format(QueryResultsFormat::Json)
        .for_reader(std::io::Cursor::new(body))
        .map_err(|e| Error::RemoteAnswer {
            what: "query".into(),
            reason: format!("its SPARQL results do not parse: {e}"),
        })?;
    sparql::write_results_of(oxigraph::sparql::QueryResults::from(parsed), format, out)
}

#[cfg(test)]
mod redact_tests {
    use super::redact;

    #[test]
    fn secrets_in_urls_are_masked_and_the_rest_kept() {
        assert_eq!(
            redact("http://h:7019/?access-token=s3cret&graph=urn:g"),
            "http://h:7019/?access-token=***&graph=urn%3Ag"
        );
        assert_eq!(
            redact("http://dba:pw@h:8890/sparql"),
            "http://dba:***@h:8890/sparql"
        );
        assert_eq!(redact("http://h/sparql?graph=x"), "http://h/sparql?graph=x");
        for k in ["token", "api_key", "PASSWORD", "client_secret", "auth"] {
            assert!(
                !redact(&format!("http://h/?{k}=leak")).contains("leak"),
                "{k}"
            );
        }
        assert_eq!(redact("not a url"), "not a url");
    }
}
