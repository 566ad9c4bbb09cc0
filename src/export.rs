//! RDF serializations of checkpoint graphs, by Oxigraph's serializers.
//!
//! Quad formats (N-Quads, TriG, JSON-LD) keep one named graph per checkpoint;
//! triple formats (N-Triples, Turtle, RDF/XML) take one graph, or the union of
//! all graphs when asked.

use crate::error::{Error, Result};
use crate::vocab;
use oxigraph::io::{JsonLdProfileSet, RdfFormat, RdfSerializer};
use oxigraph::model::{GraphName, Quad};
use std::io::Write;

/// An export format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// N-Triples (`nt`).
    NTriples,
    /// N-Quads (`nq`).
    NQuads,
    /// Turtle (`ttl`).
    Turtle,
    /// TriG (`trig`).
    TriG,
    /// RDF/XML (`rdfxml`, `.rdf`).
    RdfXml,
    /// JSON-LD compacted with Karenina's canonical context (`jsonld`).
    JsonLd,
    /// JSON-LD in expanded form, as Oxigraph writes it (`jsonld --expanded`).
    JsonLdExpanded,
}

impl ExportFormat {
    /// From a format name or file extension (`nt`, `nq`, `ttl`, `trig`, `rdf`,
    /// `rdfxml`, `owl`, `jsonld`, `json`).
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s.to_ascii_lowercase().as_str() {
            "nt" | "ntriples" | "n-triples" => Self::NTriples,
            "nq" | "nquads" | "n-quads" => Self::NQuads,
            "ttl" | "turtle" => Self::Turtle,
            "trig" => Self::TriG,
            "rdf" | "rdfxml" | "xml" | "owl" => Self::RdfXml,
            "jsonld" | "json-ld" | "json" => Self::JsonLd,
            _ => return None,
        })
    }

    /// True for formats that hold named graphs.
    pub fn has_graphs(self) -> bool {
        matches!(
            self,
            Self::NQuads | Self::TriG | Self::JsonLd | Self::JsonLdExpanded
        )
    }

    /// The Oxigraph format.
    pub fn rdf_format(self) -> RdfFormat {
        match self {
            Self::NTriples => RdfFormat::NTriples,
            Self::NQuads => RdfFormat::NQuads,
            Self::Turtle => RdfFormat::Turtle,
            Self::TriG => RdfFormat::TriG,
            Self::RdfXml => RdfFormat::RdfXml,
            Self::JsonLd | Self::JsonLdExpanded => RdfFormat::JsonLd {
                profile: JsonLdProfileSet::empty(),
            },
        }
    }
}

/// Oxigraph's streaming serializer for `format` (not JSON-LD, which is
/// compacted whole), with Karenina's prefixes where the syntax has prefixes.
pub fn rdf_serializer(format: ExportFormat) -> Result<RdfSerializer> {
    let mut ser = RdfSerializer::from_format(format.rdf_format());
    if !matches!(format, ExportFormat::NTriples | ExportFormat::NQuads) {
        for (p, iri) in [
            ("schema", vocab::SCHEMA),
            ("karenina", vocab::KARENINA),
            ("xsd", "http://www.w3.org/2001/XMLSchema#"),
            ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
        ] {
            ser = ser.with_prefix(p, iri).map_err(|e| Error::iri(iri, e))?;
        }
    }
    Ok(ser)
}

/// Writes quads in `format`. For triple formats the quads must all be in one
/// graph unless `union` (graph names are then dropped).
pub fn write(quads: &[Quad], format: ExportFormat, union: bool, out: &mut dyn Write) -> Result<()> {
    let io = Error::Output;
    if format == ExportFormat::JsonLd {
        let text = crate::rdf::compact::compacted(quads)?;
        out.write_all(text.as_bytes()).map_err(io)?;
        return out.write_all(b"\n").map_err(io);
    }
    let mut w = rdf_serializer(format)?.for_writer(&mut *out);
    if format.has_graphs() {
        for q in quads {
            w.serialize_quad(q).map_err(io)?;
        }
    } else {
        let mut graphs: Vec<&GraphName> = quads.iter().map(|q| &q.graph_name).collect();
        graphs.sort_by_key(|g| g.to_string());
        graphs.dedup();
        if graphs.len() > 1 && !union {
            return Err(Error::ManyGraphs {
                graphs: graphs.len(),
                format: format!("{format:?}"),
            });
        }
        for q in quads {
            w.serialize_triple(q.as_ref()).map_err(io)?;
        }
    }
    w.finish().map_err(io)?;
    Ok(())
}
