//! `Solutions` and `Triples`: a query's answer as Python values (rows as
//! dicts, pandas frames, the bytes `kld query --format` writes). Apart from
//! `store.rs`, which owns loading and the store's lock.

use crate::errors::to_py;
use crate::values::{frame, Ctors};
use karenina_ld::sparql::{self, ResultFormat};
use oxigraph::model::{Term, Triple, Variable};
use oxigraph::sparql::{QueryResults, QuerySolutionIter, QueryTripleIter};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::sync::Arc;

/// A SELECT query's answer: iterate it for one dict per row (variable →
/// int, float, Decimal, bool, datetime, date, str, or None when unbound);
/// `variables`, `len()`, `to_frame()`, `serialize(format=…)`, and `notes`.
#[pyclass(frozen, module = "karenina_ld")]
pub struct Solutions {
    pub(crate) variables: Vec<String>,
    pub(crate) rows: Vec<Vec<Option<Term>>>,
    pub(crate) notes: Vec<String>,
}

#[pymethods]
impl Solutions {
    /// The projected variables, in order (without `?`).
    #[getter]
    fn variables(&self) -> Vec<String> {
        self.variables.clone()
    }

    /// What the answer should be read with: the notes `kld query` prints
    /// after it (a query naming `http://schema.org/` terms that found
    /// nothing, decimals left unbound); each was also issued as a
    /// `UserWarning` when the query ran.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    fn __len__(&self) -> usize {
        self.rows.len()
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = Ctors::new(py)?;
        let out = PyList::empty(py);
        for row in &self.rows {
            let d = PyDict::new(py);
            for (v, t) in self.variables.iter().zip(row) {
                d.set_item(v, c.term(py, t.as_ref())?)?;
            }
            out.append(d)?;
        }
        out.try_iter().map(Bound::into_any)
    }

    /// The rows as a pandas DataFrame, one column per variable, values typed
    /// as in iteration.
    fn to_frame<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = Ctors::new(py)?;
        let mut columns = Vec::with_capacity(self.variables.len());
        for i in 0..self.variables.len() {
            let col = PyList::empty(py);
            for row in &self.rows {
                col.append(c.term(py, row[i].as_ref())?)?;
            }
            columns.push(col);
        }
        let names: Vec<&str> = self.variables.iter().map(String::as_str).collect();
        frame(py, &names, columns)
    }

    /// The answer in a SPARQL results format: `json`, `xml`, `csv`, `tsv`
    /// or `table`, written by the same code as `kld query --format`.
    #[pyo3(signature = (*, format="json"))]
    fn serialize(&self, format: &str) -> PyResult<String> {
        let variables: Arc<[Variable]> = self
            .variables
            .iter()
            .map(|v| Variable::new_unchecked(v.clone()))
            .collect();
        let rows = self.rows.iter().map(|r| Ok(r.clone()));
        let results = QueryResults::Solutions(QuerySolutionIter::from_tuples(variables, rows));
        write(results, solution_format(format)?)
    }

    fn __repr__(&self) -> String {
        format!(
            "<karenina_ld.Solutions: {} rows of ?{}>",
            self.rows.len(),
            self.variables.join(" ?")
        )
    }
}

/// A CONSTRUCT or DESCRIBE query's answer: iterate it for `(subject,
/// predicate, object)` tuples of Python values; `len()`,
/// `serialize(format=…)`.
#[pyclass(frozen, module = "karenina_ld")]
pub struct Triples {
    pub(crate) triples: Vec<Triple>,
    pub(crate) notes: Vec<String>,
}

#[pymethods]
impl Triples {
    /// The notes the answer came with (as [`Solutions::notes`]).
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    fn __len__(&self) -> usize {
        self.triples.len()
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = Ctors::new(py)?;
        let out = PyList::empty(py);
        for t in &self.triples {
            let s: Term = t.subject.clone().into();
            let p: Term = t.predicate.clone().into();
            out.append(PyTuple::new(
                py,
                [
                    c.term(py, Some(&s))?,
                    c.term(py, Some(&p))?,
                    c.term(py, Some(&t.object))?,
                ],
            )?)?;
        }
        out.try_iter().map(Bound::into_any)
    }

    /// The triples in an RDF syntax: `nt`, `ttl`, `nq`, `trig`, `rdfxml` or
    /// `jsonld` (compacted with Karenina's context), as `kld query --format`.
    #[pyo3(signature = (*, format="nt"))]
    fn serialize(&self, format: &str) -> PyResult<String> {
        let f = karenina_ld::export::ExportFormat::parse(format)
            .filter(|_| format != "json" && format != "xml")
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "format {format:?}: triples are written as {}",
                    sparql::GRAPH_FORMATS
                ))
            })?;
        let triples = self.triples.clone().into_iter().map(Ok);
        write(
            QueryResults::Graph(QueryTripleIter::new(triples)),
            ResultFormat::Rdf(f),
        )
    }

    fn __repr__(&self) -> String {
        format!("<karenina_ld.Triples: {}>", self.triples.len())
    }
}

fn solution_format(format: &str) -> PyResult<ResultFormat> {
    Ok(match format {
        "json" => ResultFormat::Json,
        "xml" => ResultFormat::Xml,
        "csv" => ResultFormat::Csv,
        "tsv" => ResultFormat::Tsv,
        "table" => ResultFormat::Table,
        other => {
            return Err(PyValueError::new_err(format!(
                "format {other:?}: solutions are written as {}",
                sparql::SOLUTION_FORMATS
            )))
        }
    })
}

fn write(results: QueryResults<'_>, format: ResultFormat) -> PyResult<String> {
    let mut out = Vec::new();
    sparql::write_results_of(results, format, &mut out).map_err(to_py)?;
    String::from_utf8(out).map_err(|e| PyValueError::new_err(e.to_string()))
}
