//! The statistics layer beside Karenina's numbers (issue 46): intervals on
//! every rate, paired model comparisons, judge agreement, question
//! difficulty and replicate noise, each equal to the field's reference
//! implementation (statsmodels, scipy, krippendorff, scikit-learn).
//!
//! Karenina's own numbers (the `numbers` room) say what a run's
//! rates are; this module says how sure a reader can be of them. It exists
//! apart so that every face (`kld compare`, `kld info`, Python) computes
//! the same statistic from the same rows in one place.
//!
//! **The unit.** An [`Observation`] is one row Karenina's *template pass
//! rate* counts (`template.template_verification_performed` true): it
//! scores 1 when its template verification passed (`verify_result` true)
//! and 0 otherwise. For judge agreement a row without a verdict (null) is a
//! missing rating, not a failed one. Everything here is a pure function of
//! a slice of observations; nothing prints. A statistic that cannot be
//! computed is a typed [`NotDefined`] saying why, never NaN.
//!
//! Formulas, units of analysis and reference functions: `docs/numbers.md`.

pub mod agreement;
pub mod formats;
pub mod interval;
mod observe;
pub mod paired;
mod prose;
pub mod questions;
pub mod report;

pub use observe::{observations, observations_from_rows};
pub use report::{compare, Comparison, Options};

/// Why a statistic has no value (n < 2, one cluster, one category, …).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not defined: {0}")]
pub struct NotDefined(pub String);

/// A statistic, or why it is not defined.
pub(crate) type Stat<T> = Result<T, NotDefined>;

pub(crate) fn nd<T>(why: impl Into<String>) -> Stat<T> {
    Err(NotDefined(why.into()))
}

/// One row of Karenina's template pass rate. Names are indices into
/// [`Observations`]' tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Observation {
    /// `metadata.question_id`.
    pub question: u32,
    /// The answering model's display string.
    pub model: u32,
    /// The parsing model (the judge).
    pub judge: u32,
    /// `metadata.replicate` (absent in runs without replicates).
    pub replicate: Option<i64>,
    /// `metadata.run_name`.
    pub run: u32,
    /// `template.verify_result`: `None` where there was no verdict.
    pub verdict: Option<bool>,
}

impl Observation {
    /// 1 when the template verification passed, 0 otherwise.
    pub(crate) fn score(&self) -> f64 {
        f64::from(u8::from(self.verdict == Some(true)))
    }

    /// Whether it passed.
    pub(crate) fn passed(&self) -> bool {
        self.verdict == Some(true)
    }
}

/// The observations of a run (or of several), with their names.
#[derive(Clone, Debug, Default)]
pub struct Observations {
    /// Question IDs.
    pub questions: Vec<String>,
    /// Answering models.
    pub models: Vec<String>,
    /// Parsing models (judges).
    pub judges: Vec<String>,
    /// Run names (`None` for rows without one).
    pub runs: Vec<Option<String>>,
    /// The rows, in file order.
    pub rows: Vec<Observation>,
    /// Rows read but not in the template pass rate (no template
    /// verification).
    pub left_out: usize,
    /// Read from a CSV export, which writes a false and a missing verdict
    /// alike: every non-passed row then reads as a verdict of false.
    pub csv: bool,
}

/// Passed of n.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    /// Rows that passed.
    pub passed: usize,
    /// Rows.
    pub n: usize,
}

impl Count {
    /// passed / n.
    pub fn rate(&self) -> Stat<f64> {
        if self.n == 0 {
            return nd("no rows");
        }
        Ok(self.passed as f64 / self.n as f64)
    }

    /// Adds one observation.
    pub(crate) fn add(&mut self, passed: bool) {
        self.n += 1;
        self.passed += usize::from(passed);
    }
}

/// Arithmetic mean (None for no values).
pub(crate) fn mean(x: &[f64]) -> Option<f64> {
    (!x.is_empty()).then(|| x.iter().sum::<f64>() / x.len() as f64)
}

/// Sample variance (n − 1); None for fewer than two values.
pub(crate) fn variance(x: &[f64]) -> Option<f64> {
    if x.len() < 2 {
        return None;
    }
    let m = mean(x)?;
    Some(x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (x.len() - 1) as f64)
}

/// Pearson's correlation; not defined for fewer than two pairs or a
/// constant side.
pub(crate) fn correlation(x: &[f64], y: &[f64]) -> Stat<f64> {
    if x.len() < 2 || x.len() != y.len() {
        return nd("fewer than two pairs");
    }
    let (mx, my) = (mean(x).unwrap_or(0.0), mean(y).unwrap_or(0.0));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    if sxx == 0.0 || syy == 0.0 {
        return nd("one side has the same score on every question");
    }
    Ok(sxy / (sxx * syy).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_correlations_say_when_they_are_not_defined() {
        assert!(Count::default().rate().is_err());
        assert_eq!(Count { passed: 1, n: 4 }.rate(), Ok(0.25));
        assert!(correlation(&[1.0, 1.0], &[0.0, 1.0]).is_err());
        let r = correlation(&[1.0, 2.0, 3.0], &[2.0, 4.0, 7.0]).unwrap();
        assert!((r - 0.9933992677987828).abs() < 1e-12, "{r}");
    }
}
