//! Library values as Python values: RDF terms as int, float, Decimal, bool,
//! datetime, date, str or None by their datatype; JSON as dicts and lists;
//! rows as pandas DataFrames.

use oxigraph::model::vocab::xsd;
use oxigraph::model::{Literal, Term};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The Python constructors a conversion needs, looked up once per answer.
pub struct Ctors<'py> {
    decimal: Bound<'py, PyAny>,
    datetime: Bound<'py, PyAny>,
    date: Bound<'py, PyAny>,
    int: Bound<'py, PyAny>,
}

impl<'py> Ctors<'py> {
    /// Looks the constructors up.
    pub fn new(py: Python<'py>) -> PyResult<Self> {
        let dt = py.import("datetime")?;
        Ok(Ctors {
            decimal: py.import("decimal")?.getattr("Decimal")?,
            datetime: dt.getattr("datetime")?.getattr("fromisoformat")?,
            date: dt.getattr("date")?.getattr("fromisoformat")?,
            int: py.import("builtins")?.getattr("int")?,
        })
    }

    /// A term as a Python value: IRIs as str, blank nodes as `_:id`,
    /// literals by datatype (a lexical form that is not valid for its type
    /// stays a str); None for an unbound variable.
    pub fn term(&self, py: Python<'py>, t: Option<&Term>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match t {
            None => py.None().into_bound(py),
            Some(Term::NamedNode(n)) => n.as_str().into_pyobject(py)?.into_any(),
            Some(Term::BlankNode(b)) => b.to_string().into_pyobject(py)?.into_any(),
            Some(Term::Literal(l)) => self.literal(py, l)?,
            #[allow(unreachable_patterns)]
            Some(other) => other.to_string().into_pyobject(py)?.into_any(),
        })
    }

    fn literal(&self, py: Python<'py>, l: &Literal) -> PyResult<Bound<'py, PyAny>> {
        let v = l.value();
        let dt = l.datatype();
        let text = || -> PyResult<Bound<'py, PyAny>> { Ok(v.into_pyobject(py)?.into_any()) };
        let or_text = |r: PyResult<Bound<'py, PyAny>>| match r {
            Ok(x) => Ok(x),
            Err(_) => text(),
        };
        if dt == xsd::INTEGER
            || dt == xsd::INT
            || dt == xsd::LONG
            || dt == xsd::SHORT
            || dt == xsd::BYTE
            || dt == xsd::NON_NEGATIVE_INTEGER
            || dt == xsd::POSITIVE_INTEGER
            || dt == xsd::NEGATIVE_INTEGER
            || dt == xsd::NON_POSITIVE_INTEGER
            || dt == xsd::UNSIGNED_LONG
            || dt == xsd::UNSIGNED_INT
            || dt == xsd::UNSIGNED_SHORT
            || dt == xsd::UNSIGNED_BYTE
        {
            return match v.trim().parse::<i64>() {
                Ok(i) => Ok(i.into_pyobject(py)?.into_any()),
                Err(_) => or_text(self.int.call1((v,))),
            };
        }
        if dt == xsd::DECIMAL {
            return or_text(self.decimal.call1((v,)));
        }
        if dt == xsd::DOUBLE || dt == xsd::FLOAT {
            let f = match v.trim() {
                "INF" | "+INF" => f64::INFINITY,
                "-INF" => f64::NEG_INFINITY,
                "NaN" => f64::NAN,
                s => match s.parse::<f64>() {
                    Ok(f) => f,
                    Err(_) => return text(),
                },
            };
            return Ok(f.into_pyobject(py)?.into_any());
        }
        if dt == xsd::BOOLEAN {
            return match v.trim() {
                "true" | "1" => Ok(true.into_pyobject(py)?.to_owned().into_any()),
                "false" | "0" => Ok(false.into_pyobject(py)?.to_owned().into_any()),
                _ => text(),
            };
        }
        if dt == xsd::DATE_TIME {
            return or_text(self.datetime.call1((v,)));
        }
        if dt == xsd::DATE {
            return or_text(self.date.call1((v,)));
        }
        text()
    }
}

/// Query parameters from Python keyword arguments (see `Store.query`):
/// each value as the term it stands for; a list or tuple gives several
/// values of one variable; a str that is an absolute IRI stands for the IRI
/// too, so a value read from an answer's IRI column finds its rows.
pub fn params(d: &Bound<'_, PyDict>) -> PyResult<Vec<(String, Term)>> {
    let iri_class = d.py().import("karenina_ld")?.getattr("IRI")?;
    let mut out = Vec::new();
    for (k, v) in d.iter() {
        let name: String = k.extract()?;
        let values: Vec<Bound<'_, PyAny>> =
            if v.is_instance_of::<PyList>() || v.is_instance_of::<pyo3::types::PyTuple>() {
                v.try_iter()?.collect::<PyResult<_>>()?
            } else {
                vec![v]
            };
        if values.is_empty() {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{name}: give at least one value"
            )));
        }
        for v in values {
            for t in terms(&name, &v, &iri_class)? {
                out.push((name.clone(), t));
            }
        }
    }
    Ok(out)
}

/// The terms a Python value stands for as a parameter.
fn terms(name: &str, v: &Bound<'_, PyAny>, iri_class: &Bound<'_, PyAny>) -> PyResult<Vec<Term>> {
    use oxigraph::model::NamedNode;
    use pyo3::types::{PyBool, PyFloat, PyInt, PyString};
    let typed = |value: String, dt: oxigraph::model::NamedNodeRef<'_>| -> Vec<Term> {
        vec![Literal::new_typed_literal(value, dt).into()]
    };
    if v.is_instance(iri_class)? {
        let s: String = v.extract()?;
        return NamedNode::new(s.as_str())
            .map(|n| vec![n.into()])
            .map_err(|e| {
                pyo3::exceptions::PyValueError::new_err(format!("{name}: {s:?} is not an IRI: {e}"))
            });
    }
    if v.is_instance_of::<PyBool>() {
        let b: bool = v.extract()?;
        return Ok(typed(b.to_string(), xsd::BOOLEAN));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(typed(v.str()?.to_string(), xsd::INTEGER));
    }
    if v.is_instance_of::<PyFloat>() {
        let f: f64 = v.extract()?;
        let lexical = if f.is_nan() {
            "NaN".to_string()
        } else if f.is_infinite() {
            if f > 0.0 { "INF" } else { "-INF" }.to_string()
        } else {
            format!("{f:?}")
        };
        return Ok(typed(lexical, xsd::DOUBLE));
    }
    if v.is_instance_of::<PyString>() {
        let s: String = v.extract()?;
        let mut out: Vec<Term> = vec![Literal::new_simple_literal(s.as_str()).into()];
        if let Ok(n) = NamedNode::new(s.as_str()) {
            out.push(n.into());
        }
        return Ok(out);
    }
    let class: String = v.get_type().name()?.to_string();
    let iso = || -> PyResult<String> { v.call_method0("isoformat")?.extract() };
    match class.as_str() {
        "Decimal" => Ok(typed(v.str()?.to_string(), xsd::DECIMAL)),
        "datetime" => Ok(typed(iso()?, xsd::DATE_TIME)),
        "date" => Ok(typed(iso()?, xsd::DATE)),
        _ => Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{name}: a parameter is a str, int, float, bool, Decimal, datetime, date or IRI, not {class}"
        ))),
    }
}

/// JSON as Python: objects as dicts (in order), arrays as lists, numbers as
/// int or float.
pub fn json<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => match n.to_string() {
                s if s.contains(['.', 'e', 'E']) => s
                    .parse::<f64>()
                    .unwrap_or(f64::NAN)
                    .into_pyobject(py)?
                    .into_any(),
                s => py.import("builtins")?.getattr("int")?.call1((s,))?,
            },
        },
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(json(py, x)?)?;
            }
            l.into_any()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, json(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// A pandas DataFrame with these columns (each a list of Python values).
pub fn frame<'py>(
    py: Python<'py>,
    names: &[&str],
    columns: Vec<Bound<'py, PyList>>,
) -> PyResult<Bound<'py, PyAny>> {
    let data = PyDict::new(py);
    for (n, c) in names.iter().zip(columns) {
        data.set_item(n, c)?;
    }
    let kwargs = PyDict::new(py);
    kwargs.set_item("columns", names)?;
    py.import("pandas")?
        .getattr("DataFrame")?
        .call((data,), Some(&kwargs))
}
