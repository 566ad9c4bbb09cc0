//! Writing a query's answer: the standard SPARQL result formats (JSON, XML,
//! CSV, TSV) and RDF syntaxes by Oxigraph's serializers, streamed solution by
//! solution and triple by triple, or an aligned text table for people.
//!
//! Streaming matters for the endpoint: a `SELECT *` over a cartesian product
//! used to be buffered whole (gigabytes) before its first byte was sent.
//! Compacted JSON-LD is compacted and written a batch of about 1 MB at a
//! time. Only the table (which needs every row's width) and the XML formats
//! (RDF/XML, SPARQL XML results: XML 1.0 cannot hold some characters, so
//! the answer is checked whole and refused before its first byte rather
//! than cut into an invalid file) hold an answer in memory, bounded by the
//! byte limit.

use super::{QueryForm, ResultFormat};
use crate::error::{Error, Result};
use crate::export::ExportFormat;
use oxigraph::model::Term;
use oxigraph::sparql::results::{QueryResultsFormat, QueryResultsSerializer};
use oxigraph::sparql::{QueryEvaluationError, QueryResults};
use std::io::Write;

/// A numeric literal as TSV writes it plainly (Turtle's shorthand): a
/// number whose lexical form is an integer, a decimal or a double with an
/// exponent gets the datatype that shorthand stands for, so a zero pass
/// rate (`"0"^^xsd:decimal`, which Turtle cannot shorten) is written `0`
/// instead of with its datatype IRI. Other terms (NaN, INF, text) as they are.
fn plain_number(t: &Term) -> Term {
    use oxigraph::model::vocab::xsd;
    use oxigraph::model::Literal;
    let Term::Literal(l) = t else {
        return t.clone();
    };
    let numeric = [
        xsd::INTEGER,
        xsd::DECIMAL,
        xsd::DOUBLE,
        xsd::FLOAT,
        xsd::LONG,
        xsd::INT,
        xsd::SHORT,
        xsd::BYTE,
        xsd::NON_NEGATIVE_INTEGER,
        xsd::NON_POSITIVE_INTEGER,
        xsd::POSITIVE_INTEGER,
        xsd::NEGATIVE_INTEGER,
        xsd::UNSIGNED_LONG,
        xsd::UNSIGNED_INT,
        xsd::UNSIGNED_SHORT,
        xsd::UNSIGNED_BYTE,
    ];
    if !numeric.contains(&l.datatype()) {
        return t.clone();
    }
    let v = l.value();
    let body = v.strip_prefix(['+', '-']).unwrap_or(v);
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let datatype = if digits(body) {
        xsd::INTEGER
    } else if let Some((m, e)) = body.split_once(['e', 'E']) {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        let mantissa = match m.split_once('.') {
            Some((i, f)) => (digits(i) || i.is_empty()) && (digits(f) || f.is_empty()) && m != ".",
            None => digits(m),
        };
        if !(mantissa && digits(e)) {
            return t.clone();
        }
        xsd::DOUBLE
    } else {
        match body.split_once('.') {
            Some((i, f)) if (digits(i) || i.is_empty()) && digits(f) => xsd::DECIMAL,
            _ => return t.clone(),
        }
    };
    Literal::new_typed_literal(v, datatype).into()
}

fn io_err(e: std::io::Error) -> Error {
    Error::Output(e)
}

/// Writes results obtained elsewhere (a remote server's, parsed) exactly as a
/// local query's; returns the number of rows.
pub fn write_results_of(
    results: QueryResults<'_>,
    format: ResultFormat,
    out: &mut dyn Write,
) -> Result<usize> {
    write_results(Ok(results), format, None, None, &|| false, out)
}

/// Writes solutions computed elsewhere (a number view answered from the
/// results table, `crate::table::answers`) exactly as a local query's:
/// `variables` (without `?`) and one row of terms per solution, `None`
/// where unbound; `width` is the table's (a terminal's columns). Returns
/// the number of rows.
pub fn write_solutions(
    variables: &[String],
    rows: Vec<Vec<Option<Term>>>,
    format: ResultFormat,
    width: Option<usize>,
    out: &mut dyn Write,
) -> Result<usize> {
    use oxigraph::sparql::{QuerySolution, QuerySolutionIter, Variable};
    use std::sync::Arc;
    let vars: Arc<[Variable]> = variables
        .iter()
        .map(|v| Variable::new(v.as_str()).map_err(|e| Error::Internal(e.to_string())))
        .collect::<Result<Vec<_>>>()?
        .into();
    let solutions = QuerySolutionIter::new(
        Arc::clone(&vars),
        rows.into_iter()
            .map(move |r| Ok(QuerySolution::from((Arc::clone(&vars), r)))),
    );
    write_results(
        Ok(QueryResults::Solutions(solutions)),
        format,
        None,
        width,
        &|| false,
        out,
    )
}

/// Writes `results` in `format`; `max_bytes` bounds what the XML formats
/// (checked whole) may collect before writing; `width` is the
/// table's (a terminal's columns); `stopped` ends a JSON-LD compaction when
/// the query was stopped meanwhile.
pub(super) fn write_results(
    results: std::result::Result<QueryResults<'_>, QueryEvaluationError>,
    format: ResultFormat,
    max_bytes: Option<u64>,
    width: Option<usize>,
    stopped: &dyn Fn() -> bool,
    out: &mut dyn Write,
) -> Result<usize> {
    let results = results.map_err(Error::sparql)?;
    let std_format = match format {
        ResultFormat::Table => None,
        ResultFormat::Csv => Some(QueryResultsFormat::Csv),
        ResultFormat::Tsv => Some(QueryResultsFormat::Tsv),
        ResultFormat::Json => Some(QueryResultsFormat::Json),
        ResultFormat::Xml => Some(QueryResultsFormat::Xml),
        ResultFormat::Rdf(_) => {
            if !matches!(results, QueryResults::Graph(_)) {
                return QueryForm::Select.check(format).map(|()| 0);
            }
            None
        }
    };
    match results {
        QueryResults::Boolean(b) => {
            match std_format {
                Some(f) => {
                    QueryResultsSerializer::from_format(f)
                        .serialize_boolean_to_writer(&mut *out, b)
                        .map_err(io_err)?;
                    // CSV and TSV are lines of text; the serializer leaves
                    // the boolean's unterminated.
                    if matches!(f, QueryResultsFormat::Csv | QueryResultsFormat::Tsv) {
                        out.write_all(b"\n").map_err(io_err)?;
                    }
                }
                None => writeln!(out, "{b}").map_err(io_err)?,
            }
            Ok(1)
        }
        QueryResults::Solutions(solutions) => {
            let vars = solutions.variables().to_vec();
            match std_format {
                Some(f) => {
                    // XML cannot hold every term: its answer is checked whole
                    // before the first byte goes out (within the byte limit).
                    let xml = f == QueryResultsFormat::Xml;
                    let mut held = Vec::new();
                    let target: &mut dyn Write = if xml { &mut held } else { &mut *out };
                    let mut ser = QueryResultsSerializer::from_format(f)
                        .serialize_solutions_to_writer(target, vars)
                        .map_err(io_err)?;
                    let mut n = 0;
                    for s in solutions {
                        let s = s.map_err(Error::sparql)?;
                        if xml {
                            for (_, t) in s.iter() {
                                crate::export::check_xml_term(
                                    t.as_ref(),
                                    "SPARQL XML results",
                                    "SPARQL JSON, CSV and TSV results",
                                )?;
                            }
                        }
                        if f == QueryResultsFormat::Tsv {
                            let row: Vec<_> = s.iter().map(|(v, t)| (v, plain_number(t))).collect();
                            ser.serialize(row.iter().map(|(v, t)| (*v, t)))
                                .map_err(io_err)?;
                        } else {
                            ser.serialize(s.iter()).map_err(io_err)?;
                        }
                        n += 1;
                    }
                    ser.finish().map_err(io_err)?;
                    if xml {
                        if let Some(limit) = max_bytes.filter(|m| held.len() as u64 > *m) {
                            return Err(Error::ResultTooLarge { limit });
                        }
                        out.write_all(&crate::export::escape_cr(held))
                            .map_err(io_err)?;
                    }
                    Ok(n)
                }
                None => {
                    let mut rows: Vec<Vec<String>> = Vec::new();
                    for s in solutions {
                        let s = s.map_err(Error::sparql)?;
                        rows.push(
                            vars.iter()
                                .map(|v| s.get(v).map(cell).unwrap_or_default())
                                .collect(),
                        );
                    }
                    let header: Vec<String> = vars.iter().map(|v| v.as_str().to_string()).collect();
                    write_table(out, &header, &rows, width).map_err(io_err)?;
                    Ok(rows.len())
                }
            }
        }
        QueryResults::Graph(triples) => {
            let format = match format {
                ResultFormat::Rdf(f) => f,
                // The table of a graph: N-Triples lines.
                ResultFormat::Table => ExportFormat::NTriples,
                _ => return QueryForm::Construct.check(format).map(|()| 0),
            };
            let in_default =
                |t: oxigraph::model::Triple| t.in_graph(oxigraph::model::GraphName::DefaultGraph);
            if format == ExportFormat::JsonLd {
                // Compacted a batch at a time and written as it goes.
                let quads = triples.map(|t| t.map(in_default).map_err(Error::sparql));
                return crate::rdf::compact::write_compacted(quads, stopped, out);
            }
            // RDF/XML cannot hold every term: checked whole before the
            // first byte goes out (within the byte limit).
            let xml = format == ExportFormat::RdfXml;
            let mut held = Vec::new();
            // N-Triples and N-Quads: line separators as `\u` escapes.
            let line_based = matches!(format, ExportFormat::NTriples | ExportFormat::NQuads);
            let mut safe = crate::export::LineSafe::for_format(format, &mut *out);
            let target: &mut dyn Write = if xml {
                &mut held
            } else if line_based {
                &mut safe
            } else {
                safe.get_mut()
            };
            let mut ser = crate::export::rdf_serializer(format)?.for_writer(target);
            let mut n = 0;
            for t in triples {
                let t = t.map_err(Error::sparql)?;
                if xml {
                    let q = in_default(t.clone());
                    crate::export::check_xml_quads(std::slice::from_ref(&q))?;
                }
                if format.has_graphs() {
                    ser.serialize_quad(&in_default(t)).map_err(io_err)?;
                } else {
                    ser.serialize_triple(&t).map_err(io_err)?;
                }
                n += 1;
            }
            ser.finish().map_err(io_err)?;
            safe.into_inner().map_err(io_err)?;
            if xml {
                if let Some(limit) = max_bytes.filter(|m| held.len() as u64 > *m) {
                    return Err(Error::ResultTooLarge { limit });
                }
                out.write_all(&crate::export::escape_cr(held))
                    .map_err(io_err)?;
            }
            Ok(n)
        }
    }
}

/// A term for the table: literal values bare (decimals and doubles rounded
/// to 4 places for reading; the other formats keep every digit), IRIs in
/// `<>`, blank nodes `_:`; control characters shown visibly.
fn cell(t: &Term) -> String {
    let s = match t {
        Term::Literal(l) => {
            let dt = l.datatype().as_str();
            let rounded = matches!(
                dt.strip_prefix(crate::vocab::XSD),
                Some("double" | "float" | "decimal")
            )
            .then(|| l.value().parse::<f64>().ok())
            .flatten()
            .filter(|f| f.is_finite() && f.abs() < 1e15 && f.abs() >= 1e-4 || *f == 0.0)
            .map(|f| {
                let s = format!("{f:.4}");
                let s = s.trim_end_matches('0').trim_end_matches('.');
                if s == "-0" {
                    "0".to_string()
                } else {
                    s.to_string()
                }
            });
            rounded.unwrap_or_else(|| l.value().to_string())
        }
        Term::NamedNode(n) => format!("<{}>", n.as_str()),
        other => other.to_string(),
    };
    s.chars()
        .map(|c| match c {
            '\n' => '⏎',
            '\t' => '⇥',
            c if c.is_control() => '�',
            c => c,
        })
        .collect()
}

/// `s` cut to `max` characters by an ellipsis in the middle: both ends of an
/// IRI (its scheme and its file name) stay readable.
fn shorten(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max || max < 5 {
        return s.to_string();
    }
    let keep = max - 1;
    let (head, tail) = (keep / 2, keep - keep / 2);
    let start: String = s.chars().take(head).collect();
    let end: String = s.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}

/// Column widths for `natural` widths within `width` characters (two spaces
/// between columns): the widest columns give up space first, none below 8.
fn fit(natural: &[usize], width: Option<usize>) -> Vec<usize> {
    let mut w = natural.to_vec();
    let Some(total) = width else {
        // No terminal: values are still cut at 80 characters.
        return w.iter().map(|&c| c.min(80)).collect();
    };
    let gaps = 2 * w.len().saturating_sub(1);
    let budget = total.saturating_sub(gaps);
    while w.iter().sum::<usize>() > budget {
        let (i, &widest) = w
            .iter()
            .enumerate()
            .max_by_key(|(_, c)| **c)
            .unwrap_or((0, &0));
        if widest <= 8 {
            break;
        }
        w[i] = widest - 1;
    }
    w
}

fn write_table(
    out: &mut dyn Write,
    header: &[String],
    rows: &[Vec<String>],
    width: Option<usize>,
) -> std::io::Result<()> {
    let mut natural: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            natural[i] = natural[i].max(c.chars().count());
        }
    }
    let widths = fit(&natural, width);
    let line = |out: &mut dyn Write, cells: &[String]| -> std::io::Result<()> {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let c = shorten(c, widths[i]);
                let pad = widths[i].saturating_sub(c.chars().count());
                format!("{c}{}", " ".repeat(pad))
            })
            .collect();
        writeln!(out, "{}", padded.join("  ").trim_end())
    };
    line(out, header)?;
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    line(out, &rule)?;
    for r in rows {
        line(out, r)?;
    }
    writeln!(
        out,
        "({} row{})",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxigraph::model::{Literal, NamedNode};

    #[test]
    fn tsv_writes_numbers_plainly_whatever_their_numeric_datatype() {
        use oxigraph::model::vocab::xsd;
        use oxigraph::model::Literal;
        let tsv = |v: &str, dt| {
            let t: Term = Literal::new_typed_literal(v, dt).into();
            let mut out = Vec::new();
            let var = oxigraph::model::Variable::new_unchecked("x");
            let mut ser = QueryResultsSerializer::from_format(QueryResultsFormat::Tsv)
                .serialize_solutions_to_writer(&mut out, vec![var.clone()])
                .unwrap();
            ser.serialize([(var.as_ref(), plain_number(&t).as_ref())])
                .unwrap();
            ser.finish().unwrap();
            String::from_utf8(out)
                .unwrap()
                .lines()
                .nth(1)
                .unwrap()
                .to_string()
        };
        assert_eq!(tsv("0", xsd::DECIMAL), "0");
        assert_eq!(tsv("0.25", xsd::DECIMAL), "0.25");
        assert_eq!(tsv("1.5", xsd::DOUBLE), "1.5");
        assert_eq!(tsv("1.5E0", xsd::DOUBLE), "1.5E0");
        assert_eq!(tsv("-3", xsd::LONG), "-3");
        assert_eq!(tsv("7", xsd::INTEGER), "7");
        assert!(tsv("NaN", xsd::DOUBLE).contains("XMLSchema#double"));
        assert!(tsv("12", xsd::STRING).starts_with('"'));
    }

    #[test]
    fn table_cells_round_floats_and_shorten_iris_in_the_middle() {
        let d = |v: &str, t: &str| {
            Term::from(Literal::new_typed_literal(
                v,
                NamedNode::new(format!("http://www.w3.org/2001/XMLSchema#{t}")).unwrap(),
            ))
        };
        assert_eq!(cell(&d("0.333333333333333333", "decimal")), "0.3333");
        assert_eq!(cell(&d("2.5E0", "double")), "2.5");
        assert_eq!(cell(&d("1.0E0", "double")), "1");
        assert_eq!(cell(&d("1.0E-9", "double")), "1.0E-9");
        assert_eq!(cell(&d("12", "integer")), "12");
        let iri = "<file:///home/someone/projects/benchmarks/very/deep/folder/bench.jsonld>";
        let s = shorten(iri, 30);
        assert_eq!(s.chars().count(), 30);
        assert!(
            s.starts_with("<file:///") && s.ends_with("bench.jsonld>"),
            "{s}"
        );
        assert_eq!(fit(&[10, 100, 20], Some(60)), vec![10, 26, 20]);
        assert_eq!(fit(&[10, 200], None), vec![10, 80]);
    }
}
