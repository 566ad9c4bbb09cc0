//! Run labels given at load time (`kld load|query|serve --label KEY=VALUE`):
//! conditions of a run that its files do not say ("with tools" or not, a
//! prompt variant), so that comparing them is one catalogue query
//! (`pass-rate-by-label`). Each label becomes
//! `?run karenina:label [ karenina:labelKey "K" ; karenina:labelValue "V" ]`
//! on the run node of the results graph, written with the graph (a store
//! directory keeps them; a graph read again under `serve --watch` gets
//! them again).

use crate::error::{Error, Result};
use crate::vocab::{term as k, RDF_TYPE};
use oxigraph::model::{BlankNode, GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term};
use oxigraph::store::Transaction;

/// One label: key and value.
pub(crate) type Label = (String, String);

/// Parses `KEY=VALUE` (the key non-empty, without `=`; the value may be
/// empty and may hold `=`).
pub fn parse_label(s: &str) -> Result<Label> {
    match s.split_once('=') {
        Some((key, value)) if !key.trim().is_empty() => {
            Ok((key.trim().to_string(), value.to_string()))
        }
        _ => Err(Error::Usage(format!(
            "--label {s:?}: expected KEY=VALUE (e.g. regime=mcp)"
        ))),
    }
}

/// The quads labelling every `karenina:VerificationRun` node of graph `g`
/// as it stands in `tx` (a results graph has one).
pub(super) fn quads(tx: &Transaction<'_>, g: &NamedNode, labels: &[Label]) -> Result<Vec<Quad>> {
    let graph = GraphName::NamedNode(g.clone());
    let run_type = k("VerificationRun");
    let runs: Vec<NamedOrBlankNode> = tx
        .quads_for_pattern(
            None,
            Some(NamedNode::new_unchecked(RDF_TYPE).as_ref()),
            Some(run_type.as_ref().into()),
            Some(g.as_ref().into()),
        )
        .map(|q| q.map(|q| q.subject))
        .collect::<std::result::Result<_, _>>()
        .map_err(Error::store)?;
    let mut out = Vec::new();
    for run in runs {
        for (key, value) in labels {
            let l = BlankNode::default();
            out.push(Quad::new(
                run.clone(),
                k("label"),
                Term::BlankNode(l.clone()),
                graph.clone(),
            ));
            for (p, v) in [("labelKey", key), ("labelValue", value)] {
                out.push(Quad::new(
                    l.clone(),
                    k(p),
                    Literal::new_simple_literal(v),
                    graph.clone(),
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_key_equals_value() {
        assert_eq!(
            parse_label("regime=mcp").unwrap(),
            ("regime".into(), "mcp".into())
        );
        assert_eq!(
            parse_label("prompt=a=b").unwrap(),
            ("prompt".into(), "a=b".into())
        );
        assert_eq!(parse_label("empty=").unwrap(), ("empty".into(), "".into()));
        assert!(parse_label("=x").is_err());
        assert!(parse_label("novalue").is_err());
    }
}
