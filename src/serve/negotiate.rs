//! Content negotiation for the SPARQL Protocol and the Graph Store Protocol.
//!
//! A query's form decides which formats fit (solutions or RDF); the client's
//! `Accept` header (media ranges with `q` weights and wildcards) or a
//! `format=` parameter (browsers cannot set `Accept` on a link) picks one.

use crate::export::ExportFormat;
use crate::sparql::{QueryForm, ResultFormat};

/// A chosen format and the media type to send it as.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Negotiated {
    /// How to write the results.
    pub format: ResultFormat,
    /// `Content-Type` of the answer.
    pub media_type: &'static str,
}

/// (media type, short names for `format=`, format), preferred first.
const SOLUTIONS: &[(&str, &[&str], ResultFormat)] = &[
    (
        "application/sparql-results+json",
        &["json", "srj"],
        ResultFormat::Json,
    ),
    (
        "application/sparql-results+xml",
        &["xml", "srx"],
        ResultFormat::Xml,
    ),
    ("text/csv", &["csv"], ResultFormat::Csv),
    ("text/tab-separated-values", &["tsv"], ResultFormat::Tsv),
    // Aliases Oxigraph 0.5 also answers (answered with the media type above).
    ("application/json", &[], ResultFormat::Json),
    ("application/xml", &[], ResultFormat::Xml),
    ("text/xml", &[], ResultFormat::Xml),
    ("text/tsv", &[], ResultFormat::Tsv),
    ("text/plain", &["text"], ResultFormat::Csv),
];

const GRAPHS: &[(&str, &[&str], ExportFormat)] = &[
    (
        "text/turtle",
        &["ttl", "turtle", "n3"],
        ExportFormat::Turtle,
    ),
    (
        "application/n-triples",
        &["nt", "ntriples"],
        ExportFormat::NTriples,
    ),
    (
        "application/n-quads",
        &["nq", "nquads"],
        ExportFormat::NQuads,
    ),
    ("application/trig", &["trig"], ExportFormat::TriG),
    (
        "application/rdf+xml",
        &["rdfxml", "xml", "rdf"],
        ExportFormat::RdfXml,
    ),
    (
        "application/ld+json",
        &["jsonld", "json-ld", "json"],
        ExportFormat::JsonLd,
    ),
    // Aliases Oxigraph 0.5 also answers (answered with the media type above;
    // Turtle is N3 too).
    ("text/plain", &[], ExportFormat::NTriples),
    ("application/x-turtle", &[], ExportFormat::Turtle),
    ("text/n3", &[], ExportFormat::Turtle),
    ("text/rdf+n3", &[], ExportFormat::Turtle),
    ("application/xml", &[], ExportFormat::RdfXml),
    ("text/xml", &[], ExportFormat::RdfXml),
    ("application/json", &[], ExportFormat::JsonLd),
];

/// Media ranges of an `Accept` header with their weights, in header order.
fn ranges(accept: &str) -> Vec<(String, f32)> {
    accept
        .split(',')
        .filter_map(|part| {
            let mut it = part.split(';');
            let range = it.next()?.trim().to_ascii_lowercase();
            if range.is_empty() {
                return None;
            }
            let q = it
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|v| v.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            Some((range, q))
        })
        .collect()
}

/// How well `range` matches `media` (exact beats `type/*` beats `*/*`).
fn specificity(range: &str, media: &str) -> Option<u8> {
    if range == media {
        return Some(3);
    }
    if range == "*/*" {
        return Some(1);
    }
    let (rt, rs) = range.split_once('/')?;
    let (mt, _) = media.split_once('/')?;
    (rs == "*" && rt == mt).then_some(2)
}

/// Picks from `table` by `format=` (exact short name or media type) when it
/// names a format of the table, else by the best-weighted `Accept` range; no
/// header means the first entry. The media type answered is the format's
/// own (the first row holding it), whatever alias was asked for.
fn pick<T: Copy + PartialEq>(
    table: &[(&'static str, &[&str], T)],
    accept: Option<&str>,
    format: Option<&str>,
) -> Option<(T, &'static str)> {
    let canonical = |t: T| {
        let media = table.iter().find(|(_, _, u)| *u == t).map_or("", |r| r.0);
        (t, media)
    };
    if let Some(f) = format {
        let f = f.trim().to_ascii_lowercase();
        let named = table
            .iter()
            .find(|(m, names, _)| *m == f || names.contains(&f.as_str()));
        if let Some((_, _, t)) = named {
            return Some(canonical(*t));
        }
        // An unknown `format=` (SPARQLWrapper always sends one) leaves the
        // choice to `Accept`.
    }
    let Some(accept) = accept.filter(|a| !a.trim().is_empty()) else {
        return table.first().map(|(m, _, t)| (*t, *m));
    };
    let ranges = ranges(accept);
    let mut best: Option<(f32, u8, usize)> = None;
    for (i, (media, _, _)) in table.iter().enumerate() {
        let score = ranges
            .iter()
            .filter_map(|(r, q)| specificity(r, media).map(|s| (*q, s)))
            .max_by(|a, b| a.1.cmp(&b.1));
        if let Some((q, s)) = score {
            if q > 0.0 && best.is_none_or(|(bq, bs, _)| q > bq || (q == bq && s > bs)) {
                best = Some((q, s, i));
            }
        }
    }
    best.map(|(_, _, i)| canonical(table[i].2))
}

/// The media types a query of `form` can be answered in, for a 406.
pub fn supported(form: QueryForm) -> String {
    let media: Vec<&str> = if form.is_graph() {
        GRAPHS.iter().map(|r| r.0).collect()
    } else {
        SOLUTIONS.iter().map(|r| r.0).collect()
    };
    media.join(", ")
}

/// Chooses the answer format of a query of `form`.
pub fn negotiate(
    form: QueryForm,
    accept: Option<&str>,
    format: Option<&str>,
) -> Option<Negotiated> {
    if form.is_graph() {
        negotiate_rdf(accept, format).map(|(f, m)| Negotiated {
            format: ResultFormat::Rdf(f),
            media_type: m,
        })
    } else {
        pick(SOLUTIONS, accept, format).map(|(format, media_type)| Negotiated {
            format,
            media_type: with_charset(media_type),
        })
    }
}

/// The `Content-Type` answered for a media type: CSV and TSV say their
/// charset (RFC 4180 and the TSV registration default to US-ASCII, and
/// pandas, Excel and `curl | iconv` take them so).
fn with_charset(media: &'static str) -> &'static str {
    match media {
        "text/csv" => "text/csv; charset=utf-8",
        "text/tab-separated-values" => "text/tab-separated-values; charset=utf-8",
        m => m,
    }
}

/// Chooses an RDF format (Turtle when the client does not say).
pub fn negotiate_rdf(
    accept: Option<&str>,
    format: Option<&str>,
) -> Option<(ExportFormat, &'static str)> {
    pick(GRAPHS, accept, format)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The media-type tables agree with the one rule of which formats fit
    /// which query form ([`QueryForm::fits`]).
    #[test]
    fn every_negotiable_format_fits_its_form() {
        for (media, _, f) in SOLUTIONS {
            assert!(
                QueryForm::Select.fits(*f) && QueryForm::Ask.fits(*f),
                "{media}"
            );
            assert!(
                !QueryForm::Construct.fits(*f) || *f == ResultFormat::Table,
                "{media}"
            );
        }
        for (media, _, f) in GRAPHS {
            let f = ResultFormat::Rdf(*f);
            assert!(
                QueryForm::Construct.fits(f) && QueryForm::Describe.fits(f),
                "{media}"
            );
            assert!(!QueryForm::Select.fits(f), "{media}");
        }
    }

    #[test]
    fn accept_weights_wildcards_and_format_parameter() {
        let sel = QueryForm::Select;
        let m = |a: Option<&str>, f: Option<&str>| negotiate(sel, a, f).map(|n| n.media_type);
        assert_eq!(m(None, None), Some("application/sparql-results+json"));
        assert_eq!(
            m(Some("*/*"), None),
            Some("application/sparql-results+json")
        );
        assert_eq!(m(Some("text/csv"), None), Some("text/csv; charset=utf-8"));
        assert_eq!(
            m(Some("text/csv;q=0.5, application/sparql-results+xml"), None),
            Some("application/sparql-results+xml")
        );
        assert_eq!(m(Some("text/*"), None), Some("text/csv; charset=utf-8"));
        assert_eq!(m(Some("image/png"), None), None);
        assert_eq!(
            m(Some("text/csv"), Some("tsv")),
            Some("text/tab-separated-values; charset=utf-8")
        );
        let g = |a: Option<&str>| negotiate(QueryForm::Construct, a, None).map(|n| n.media_type);
        assert_eq!(g(None), Some("text/turtle"));
        assert_eq!(g(Some("application/ld+json")), Some("application/ld+json"));
        assert_eq!(
            g(Some("application/n-triples;q=0.9, text/turtle;q=0.1")),
            Some("application/n-triples")
        );
        assert_eq!(g(Some("application/sparql-results+json")), None);
    }
}
