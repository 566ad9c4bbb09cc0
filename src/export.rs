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
    pub(crate) fn rdf_format(self) -> RdfFormat {
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
pub(crate) fn rdf_serializer(format: ExportFormat) -> Result<RdfSerializer> {
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
pub(crate) fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

/// The formats that hold any term (what a refused XML answer can use).
pub const ANY_TERM_RDF: &str = "N-Triples, N-Quads, Turtle, TriG and JSON-LD";

/// Refuses `term` when XML 1.0 cannot hold one of its characters
/// ([`Error::NotRepresentable`], naming `format` and the formats that can).
pub(crate) fn check_xml_term(
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
pub(crate) fn escape_cr(xml: Vec<u8>) -> Vec<u8> {
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

/// True for a character Python's `re` takes for whitespace (`\s` in a
/// `str` pattern: `str.isspace()`) that N-Triples and N-Quads let stand raw
/// in an IRI or a string: every such character outside ASCII (U+0085,
/// U+00A0, U+1680, U+2000 to U+200A, U+2028, U+2029, U+202F, U+205F,
/// U+3000). The ASCII ones never stand raw in Oxigraph's output but as the
/// space between terms or inside a string, where rdflib reads them.
pub(crate) fn is_python_space(c: char) -> bool {
    matches!(
        c,
        '\u{85}' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

/// A writer for N-Triples and N-Quads that writes every character
/// `is_python_space` holds as a `\u` escape, which the grammar allows in
/// IRIs and strings alike. Oxigraph writes them raw, and rdflib (7.6) reads
/// N-Triples with patterns whose `\s` is Python's, matching every Unicode
/// space: a line holding U+2028 was split, an IRI holding U+00A0 or U+3000
/// refused. Nowhere else in those syntaxes can the characters stand (terms
/// are separated by ASCII spaces), so the bytes are rewritten as they pass.
///
/// Turtle and TriG pass through it too, for the line breaks (U+2028,
/// U+2029, U+0085); there U+1680, which a prefixed name may hold raw (where
/// no `\u` escape may stand), is left as it is (`LineSafe::turtle`).
pub(crate) struct LineSafe<W: Write> {
    inner: W,
    /// The first bytes of a character the last write ended within.
    held: Vec<u8>,
    /// Leave U+1680 raw (Turtle's prefixed names may hold it).
    turtle: bool,
}

impl<W: Write> LineSafe<W> {
    /// Wraps `inner` (N-Triples, N-Quads).
    pub fn new(inner: W) -> Self {
        LineSafe {
            inner,
            held: Vec::new(),
            turtle: false,
        }
    }

    /// Wraps `inner` for Turtle or TriG: every `is_python_space` escaped
    /// but U+1680, which can be part of a prefixed name.
    pub(crate) fn turtle(inner: W) -> Self {
        LineSafe {
            turtle: true,
            ..LineSafe::new(inner)
        }
    }

    /// [`LineSafe::new`] for N-Triples and N-Quads, [`LineSafe::turtle`]
    /// for the other formats.
    pub(crate) fn for_format(format: ExportFormat, inner: W) -> Self {
        match format {
            ExportFormat::NTriples | ExportFormat::NQuads => LineSafe::new(inner),
            _ => LineSafe::turtle(inner),
        }
    }

    /// The writer underneath (bytes written to it bypass the escaping).
    pub(crate) fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// The writer, with any held bytes written.
    pub(crate) fn into_inner(mut self) -> std::io::Result<W> {
        let held = std::mem::take(&mut self.held);
        self.inner.write_all(&held)?;
        Ok(self.inner)
    }
}

/// The character whose UTF-8 encoding starts `bytes`, when it is one
/// [`is_python_space`] holds: its length.
fn python_space_at(bytes: &[u8]) -> Option<usize> {
    // Each such character starts with 0xC2, 0xE1, 0xE2 or 0xE3.
    let len = match bytes.first()? {
        0xC2 => 2,
        0xE1..=0xE3 => 3,
        _ => return None,
    };
    let c = std::str::from_utf8(bytes.get(..len)?)
        .ok()?
        .chars()
        .next()?;
    is_python_space(c).then_some(len)
}

impl<W: Write> Write for LineSafe<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut data = std::mem::take(&mut self.held);
        data.extend_from_slice(buf);
        // Hold back a character cut at the end (its lead byte and what
        // followed it), to see it whole with the next write.
        let cut = data
            .iter()
            .rev()
            .take(3)
            .position(|b| b & 0xC0 != 0x80)
            .map(|i| data.len() - 1 - i)
            .filter(|&lead| {
                let need = match data[lead] {
                    b if b >= 0xF0 => 4,
                    b if b >= 0xE0 => 3,
                    b if b >= 0xC0 => 2,
                    _ => 1,
                };
                data.len() - lead < need
            });
        let end = cut.unwrap_or(data.len());
        let mut at = 0;
        let mut i = 0;
        while i < end {
            match python_space_at(&data[i..end]).filter(|_| !(self.turtle && data[i] == 0xE1)) {
                Some(len) => {
                    self.inner.write_all(&data[at..i])?;
                    let c = std::str::from_utf8(&data[i..i + len])
                        .ok()
                        .and_then(|s| s.chars().next())
                        .map_or(0, u32::from);
                    write!(self.inner, "\\u{c:04X}")?;
                    i += len;
                    at = i;
                }
                None => i += 1,
            }
        }
        self.inner.write_all(&data[at..end])?;
        self.held = data[end..].to_vec();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// [`check_xml_term`] for every term of `quads` (RDF/XML).
pub(crate) fn check_xml_quads(quads: &[Quad]) -> Result<()> {
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
    let mut w = rdf_serializer(format)?.for_writer(LineSafe::for_format(format, &mut *out));
    for q in quads {
        if format.has_graphs() {
            w.serialize_quad(q).map_err(io)?;
        } else {
            w.serialize_triple(q.as_ref()).map_err(io)?;
        }
    }
    w.finish().map_err(io)?.into_inner().map_err(io)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_separators_are_written_as_escapes_even_when_a_write_cuts_them() {
        let text = "<urn:a\u{2028}b> <urn:p> \"x\u{2029}y\u{85}z é\" .\n";
        let want = "<urn:a\\u2028b> <urn:p> \"x\\u2029y\\u0085z é\" .\n";
        for step in 1..=text.len() {
            let mut w = LineSafe::new(Vec::new());
            for chunk in text.as_bytes().chunks(step) {
                w.write_all(chunk).unwrap();
            }
            let got = String::from_utf8(w.into_inner().unwrap()).unwrap();
            assert_eq!(got, want, "writes of {step} bytes");
        }
    }

    /// The characters Python's `re` matches with `\s` in a `str` pattern
    /// (`[c for c in range(0x110000) if re.match(r"\s", chr(c))]`, CPython
    /// 3.11), outside ASCII.
    const PYTHON_SPACES: &[u32] = &[
        0x85, 0xA0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008,
        0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
    ];

    #[test]
    fn python_spaces_are_exactly_pythons_outside_ascii() {
        let ours: Vec<u32> = (0x80..=0x10FFFFu32)
            .filter_map(char::from_u32)
            .filter(|c| is_python_space(*c))
            .map(u32::from)
            .collect();
        assert_eq!(ours, PYTHON_SPACES);
        // Unicode's White_Space outside ASCII is the same set.
        let white: Vec<u32> = (0x80..=0x10FFFFu32)
            .filter_map(char::from_u32)
            .filter(|c| c.is_whitespace())
            .map(u32::from)
            .collect();
        assert_eq!(white, PYTHON_SPACES);
    }

    #[test]
    fn every_python_space_is_escaped_in_iris_and_strings_and_reads_back() {
        use oxigraph::model::{GraphName, Literal, NamedNode};
        let all: String = PYTHON_SPACES
            .iter()
            .map(|&c| char::from_u32(c).unwrap())
            .collect();
        // An IRI cannot hold U+0085 (a C1 control): the others.
        let iri: String = all.chars().filter(|c| *c != '\u{85}').collect();
        let q = Quad::new(
            NamedNode::new(format!("urn:uuid:question-{iri}")).unwrap(),
            NamedNode::new("https://schema.org/text").unwrap(),
            Literal::new_simple_literal(format!("a{all}b é \u{1F600}")),
            NamedNode::new(format!("urn:g:{iri}")).unwrap(),
        );
        for f in [ExportFormat::NTriples, ExportFormat::NQuads] {
            let mut out = Vec::new();
            write(std::slice::from_ref(&q), f, false, &mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            assert!(!text.chars().any(is_python_space), "{text}");
            assert!(text.contains("\\u00A0\\u1680\\u2000") && text.contains("\\u3000"));
            assert!(text.contains("é \u{1F600}"), "other characters stay raw");
            let back: Vec<Quad> = oxigraph::io::RdfParser::from_format(f.rdf_format())
                .for_slice(text.as_bytes())
                .collect::<std::result::Result<_, _>>()
                .unwrap();
            let mut want = q.clone();
            if f == ExportFormat::NTriples {
                want.graph_name = GraphName::DefaultGraph;
            }
            assert_eq!(back, vec![want]);
        }
    }

    #[test]
    fn n_triples_of_an_iri_with_a_line_separator_read_back_the_same() {
        use oxigraph::model::{GraphName, Literal, NamedNode};
        let q = Quad::new(
            NamedNode::new("urn:uuid:question-a\u{2028}b").unwrap(),
            NamedNode::new("https://schema.org/text").unwrap(),
            Literal::new_simple_literal("line\u{2029}sep"),
            GraphName::DefaultGraph,
        );
        for f in [ExportFormat::NTriples, ExportFormat::NQuads] {
            let mut out = Vec::new();
            write(std::slice::from_ref(&q), f, false, &mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            assert!(
                text.contains("a\\u2028b") && !text.contains('\u{2028}'),
                "{text}"
            );
            let back: Vec<Quad> = oxigraph::io::RdfParser::from_format(f.rdf_format())
                .for_slice(text.as_bytes())
                .collect::<std::result::Result<_, _>>()
                .unwrap();
            assert_eq!(back, vec![q.clone()]);
        }
    }
}
