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
            ("xsd", vocab::XSD),
            ("rdf", vocab::RDF),
        ] {
            ser = ser.with_prefix(p, iri).map_err(|e| Error::iri(iri, e))?;
        }
    }
    Ok(ser)
}

/// True for a character XML 1.0 can hold (its `Char` production: tab, line
/// feed, carriage return and everything from U+0020 but the surrogates,
/// U+FFFE and U+FFFF).
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

/// The formats that hold any term (what a refused XML answer can use).
pub const ANY_TERM_RDF: &str = "N-Triples, N-Quads, Turtle, TriG and JSON-LD";

/// Refuses `term` when XML 1.0 cannot hold one of its characters
/// ([`Error::NotRepresentable`], naming `format` and the formats that can).
pub fn check_xml_term(
    term: oxigraph::model::TermRef<'_>,
    format: &'static str,
    formats: &'static str,
) -> Result<()> {
    use oxigraph::model::TermRef;
    let texts: Vec<&str> = match term {
        TermRef::NamedNode(n) => vec![n.as_str()],
        TermRef::BlankNode(b) => vec![b.as_str()],
        TermRef::Literal(l) => vec![l.value(), l.datatype().as_str()],
        #[allow(unreachable_patterns)]
        _ => Vec::new(),
    };
    for t in texts {
        if let Some(ch) = t.chars().find(|c| !is_xml_char(*c)) {
            // N-Triples syntax: control characters escaped, one line.
            let whole = term.to_string();
            let mut shown: String = whole.chars().take(60).collect();
            if shown.len() < whole.len() {
                shown.push('…');
            }
            return Err(Error::NotRepresentable {
                term: shown,
                ch,
                format,
                formats,
            });
        }
    }
    Ok(())
}

/// XML text with every carriage return written `&#xD;`: an XML parser turns
/// a raw one into a line feed (end-of-line handling), so a literal holding
/// `\r` would read back changed. Oxigraph's XML writers leave it raw; in
/// their output a raw `\r` can only stand inside a value, where the
/// character reference keeps it.
pub fn escape_cr(xml: Vec<u8>) -> Vec<u8> {
    if !xml.contains(&b'\r') {
        return xml;
    }
    let mut out = Vec::with_capacity(xml.len() + 64);
    for b in xml {
        if b == b'\r' {
            out.extend_from_slice(b"&#xD;");
        } else {
            out.push(b);
        }
    }
    out
}

/// [`check_xml_term`] for every term of `quads` (RDF/XML).
pub fn check_xml_quads(quads: &[Quad]) -> Result<()> {
    for q in quads {
        check_xml_term(q.subject.as_ref().into(), "RDF/XML", ANY_TERM_RDF)?;
        check_xml_term(q.predicate.as_ref().into(), "RDF/XML", ANY_TERM_RDF)?;
        check_xml_term(q.object.as_ref(), "RDF/XML", ANY_TERM_RDF)?;
    }
    Ok(())
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
    if !format.has_graphs() {
        let mut graphs: Vec<&GraphName> = quads.iter().map(|q| &q.graph_name).collect();
        graphs.sort_by_key(|g| g.to_string());
        graphs.dedup();
        if graphs.len() > 1 && !union {
            return Err(Error::ManyGraphs {
                graphs: graphs.len(),
                format: format!("{format:?}"),
            });
        }
    }
    if format == ExportFormat::RdfXml {
        // Refused before a byte is written, never an invalid file; carriage
        // returns kept as character references.
        check_xml_quads(quads)?;
        let mut w = rdf_serializer(format)?.for_writer(Vec::new());
        for q in quads {
            w.serialize_triple(q.as_ref()).map_err(io)?;
        }
        let xml = escape_cr(w.finish().map_err(io)?);
        return out.write_all(&xml).map_err(io);
    }
    let mut w = rdf_serializer(format)?.for_writer(&mut *out);
    for q in quads {
        if format.has_graphs() {
            w.serialize_quad(q).map_err(io)?;
        } else {
            w.serialize_triple(q.as_ref()).map_err(io)?;
        }
    }
    w.finish().map_err(io)?;
    Ok(())
}
