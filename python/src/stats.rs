//! `karenina_ld.compare(path)` and `karenina_ld.rate_names()`: `kld
//! compare`'s statistics ([`karenina_ld::stats`]) as pandas DataFrames,
//! the same tables (columns, rows, values) `kld compare --format csv
//! --table …` writes, and the one table of rate names.

use crate::checkpoint::with_pipes;
use crate::errors::to_py;
use crate::values::{frame, json};
use karenina_ld::numbers::names::RATE_NAMES;
use karenina_ld::stats::{self, formats::Table, Options};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;
use std::path::PathBuf;

/// `kld compare` of one verification run: template pass rates with
/// intervals, paired model comparisons with adjusted p-values, judge
/// agreement and question difficulty (docs/numbers.md#statistics).
#[pyclass(frozen, module = "karenina_ld")]
pub struct Comparison {
    c: stats::Comparison,
}

impl Comparison {
    /// One table as a DataFrame: [`stats::Comparison::table`]'s columns
    /// and rows; a statistic that is not defined is None (its reason in
    /// `not_defined`, as the CSV writes it), never NaN. `attrs["rate_names"]`
    /// names the rate of each column that holds one.
    fn frame<'py>(&self, py: Python<'py>, table: Table) -> PyResult<Bound<'py, PyAny>> {
        let (cols, rows) = self.c.table(table);
        let columns: Vec<Bound<'py, PyList>> = cols.iter().map(|_| PyList::empty(py)).collect();
        for r in &rows {
            for (c, list) in cols.iter().zip(&columns) {
                match r.get(c) {
                    None | Some(Value::Null) => list.append(py.None())?,
                    Some(Value::Object(why)) if c == "not_defined" => list.append(
                        why.iter()
                            .map(|(k, v)| format!("{k}: {}", v.as_str().unwrap_or("")))
                            .collect::<Vec<_>>()
                            .join("; "),
                    )?,
                    Some(v) => list.append(json(py, v)?)?,
                }
            }
        }
        let names: Vec<&str> = cols.iter().map(String::as_str).collect();
        let df = frame(py, &names, columns)?;
        let rate = rows
            .first()
            .and_then(|r| r.get("rate_name"))
            .and_then(Value::as_str);
        let named = PyDict::new(py);
        if let Some(rate) = rate {
            for c in ["rate", "mean_a", "mean_b", "diff"] {
                if cols.iter().any(|x| x == c) {
                    named.set_item(c, rate)?;
                }
            }
        }
        df.getattr("attrs")?.set_item("rate_names", named)?;
        Ok(df)
    }
}

#[pymethods]
impl Comparison {
    /// Pairwise comparisons of answering models: judges averaged (`judge`
    /// None), then under each judge; the question-mean template pass rates
    /// `mean_a`, `mean_b`, their difference `diff` with `se`, the interval
    /// `low`..`high`, `t`, `df`, `p`, Holm's and BH's adjusted `p_holm`,
    /// `p_bh`, the correlation, the detectable difference, and McNemar
    /// where there is one judge and one replicate.
    fn pairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.frame(py, Table::Pairs)
    }

    /// Template pass rates with Wilson, Clopper-Pearson and clustered t
    /// intervals: per answering model (`judge` None), then per model ×
    /// judge.
    fn rates<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.frame(py, Table::Rates)
    }

    /// Judge agreement: every answer (`model` None), then per answering
    /// model: percent agreement, Fleiss' κ, Krippendorff's α.
    fn agreement<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.frame(py, Table::Agreement)
    }

    /// Cohen's κ of each pair of judges (`kld compare --table kappa`, the
    /// data of the κ heatmap `kld compare --figure kappa` draws).
    fn kappa<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.frame(py, Table::Kappa)
    }

    /// Per-question template pass rates with n, hardest first, and each
    /// question's discrimination.
    fn questions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.frame(py, Table::Questions)
    }

    /// Everything, as `kld compare --format json` prints it.
    fn to_json(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(json(py, &self.c.to_json())?.unbind())
    }

    /// `kld compare`'s text.
    #[pyo3(signature = (hardest = 10))]
    fn to_text(&self, hardest: usize) -> String {
        self.c.to_text(hardest)
    }

    fn __repr__(&self) -> String {
        format!(
            "<Comparison of {} answering models, {} judges, {} questions>",
            self.c.obs.models.len(),
            self.c.obs.judges.len(),
            self.c.obs.questions.len()
        )
    }
}

/// `kld compare PATH` (a results export, JSON or CSV, a run folder's
/// results or a Karenina database run): the statistics, whose tables are
/// DataFrames (`.pairs()`, `.rates()`, `.agreement()`, `.questions()`).
#[pyfunction]
#[pyo3(signature = (path, *, confidence = 0.95, reference_judge = None, seed = 0, resamples = 2000))]
pub fn compare(
    py: Python<'_>,
    path: PathBuf,
    confidence: f64,
    reference_judge: Option<String>,
    seed: u64,
    resamples: usize,
) -> PyResult<Comparison> {
    let options = Options {
        confidence,
        reference_judge,
        seed,
        resamples,
    };
    let c = with_pipes(py, std::slice::from_ref(&path), || {
        stats::observations(&path).map(|obs| stats::compare(obs, options))
    })?
    .map_err(to_py)?
    .map_err(|e| PyValueError::new_err(format!("{}: {e}", path.display())))?;
    Ok(Comparison { c })
}

/// Every rate kld prints, one dict each (`id`, `name`, `definition`, `n`,
/// `karenina`, `docs`): the names every face uses.
#[pyfunction]
pub fn rate_names(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyAny>>> {
    RATE_NAMES.iter().map(|r| json(py, &r.to_json())).collect()
}
