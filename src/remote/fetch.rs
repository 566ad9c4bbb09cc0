//! `kld extract --endpoint`: one graph from a server back into a canonical
//! checkpoint, checked against the canonical SHA-256 recorded when it was
//! pushed. Servers differ in what they keep (Virtuoso answers doubles with 6
//! significant digits and big integers as decimals): a file that would differ
//! from the pushed one is refused with the first altered value named, never
//! written.

use super::push::{numbers_of, server_provenance};
use super::RemoteClient;
use crate::error::{Error, Result};
use crate::model::Checkpoint;
use crate::rdf;
use crate::save::{write_checkpoint, WriteOptions};
use oxigraph::io::{RdfFormat, RdfParser};
use oxigraph::model::{Quad, Term};
use sha2::{Digest, Sha256};

/// Fetches `graph` and rebuilds its checkpoint, verified byte for byte (by the
/// canonical SHA-256 recorded at push time).
pub fn fetch_checkpoint(client: &RemoteClient, graph: &str) -> Result<Checkpoint> {
    let body = client.get_graph(graph)?;
    let quads: Vec<Quad> = RdfParser::from_format(RdfFormat::NTriples)
        .for_slice(&body)
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| Error::RemoteAnswer {
            what: format!("GET graph {graph}"),
            reason: format!("its N-Triples do not parse: {e}"),
        })?;
    if quads.is_empty() {
        return Err(Error::RemoteGraph {
            graph: graph.to_string(),
            reason: "empty or absent on the server".into(),
        });
    }
    let provenance = server_provenance(client)?;
    let Some(pushed) = provenance.get(graph) else {
        return Err(Error::RemoteGraph {
            graph: graph.to_string(),
            reason: "no provenance on the server (it was not pushed by kld push), so it cannot be checked; refusing to write an unverified file".into(),
        });
    };
    if pushed.kind == crate::store::GraphKind::Results {
        return Err(Error::RemoteGraph {
            graph: graph.to_string(),
            reason: "it holds a results export, and only checkpoints are rebuilt as files; query results instead".into(),
        });
    }
    let numbers = numbers_of(&quads);
    let cp = rdf::checkpoint_from_quads(quads.clone());
    let got = cp
        .as_ref()
        .map(|cp| {
            format!(
                "{:x}",
                Sha256::digest(write_checkpoint(cp, &WriteOptions::default()).as_bytes())
            )
        })
        .unwrap_or_default();
    if got == pushed.canonical_sha256 {
        return cp;
    }
    Err(Error::ServerAltered {
        graph: graph.to_string(),
        detail: format!(
            "canonical sha256 {} recorded at push, {} now: {}",
            pushed.canonical_sha256,
            if got.is_empty() {
                "none".to_string()
            } else {
                got
            },
            first_altered(&pushed.numbers, &numbers, &quads).unwrap_or_else(|| match &cp {
                Err(e) => format!("the graph no longer reads as a checkpoint ({e})"),
                Ok(_) => "a value changed".into(),
            })
        ),
    })
}

/// Names the first numeric literal the server altered: pushed values missing
/// from the answer, paired with the answer's numeric values (decimals
/// included) that were never pushed.
fn first_altered(pushed: &str, returned: &str, quads: &[Quad]) -> Option<String> {
    let pushed: Vec<String> = serde_json::from_str(pushed).ok()?;
    let returned: Vec<String> = serde_json::from_str(returned).ok()?;
    let mut left = returned.clone();
    let mut missing = Vec::new();
    for p in &pushed {
        match left.iter().position(|r| r == p) {
            Some(i) => {
                left.remove(i);
            }
            None => missing.push(p.clone()),
        }
    }
    let first = missing.first()?;
    // What the server answered instead: its numbers that were never pushed,
    // and any decimal (kld never pushes xsd:decimal).
    let mut extra: Vec<String> = left;
    extra.extend(quads.iter().filter_map(|q| match &q.object {
        Term::Literal(l) if l.datatype().as_str() == crate::vocab::XSD_DECIMAL => {
            Some(format!("{} {}", l.datatype().as_str(), l.value()))
        }
        _ => None,
    }));
    let short = |s: &str| {
        let (dt, v) = s.split_once(' ').unwrap_or(("", s));
        format!("{v} ({})", dt.rsplit('#').next().unwrap_or(dt))
    };
    let value = |s: &str| {
        s.split_once(' ')
            .and_then(|(_, v)| v.parse::<f64>().ok())
            .unwrap_or(f64::NAN)
    };
    let m = value(first);
    let closest = extra
        .iter()
        .min_by(|a, b| (value(a) - m).abs().total_cmp(&(value(b) - m).abs()));
    Some(match closest {
        Some(e) => format!(
            "the value {} was pushed but the server returned {} instead ({} value(s) altered)",
            short(first),
            short(e),
            missing.len()
        ),
        None => format!(
            "the value {} was pushed but is missing from the answer",
            short(first)
        ),
    })
}
