//! Paired comparisons of two answering models on the questions both
//! answered: the paired t test over question means (scipy `ttest_rel`),
//! exact McNemar with its mid-p (statsmodels `mcnemar(exact=True)`, scipy
//! `binomtest`), the correlation of the two models' question scores, the
//! smallest difference detectable at 80 % power, and the Holm and
//! Benjamini-Hochberg adjustments across pairs (statsmodels
//! `multipletests`, `holm` and `fdr_bh`).

use super::interval::{t_ppf, z, Interval};
use super::{correlation, mean, nd, variance, Stat};
use statrs::distribution::{Binomial, ContinuousCDF, Discrete, DiscreteCDF, StudentsT};

/// The paired t test over question means.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TTest {
    /// Standard error of the mean difference (sample SD / √n).
    pub se: f64,
    /// mean ± t(n − 1) × se.
    pub interval: Interval,
    /// The t statistic.
    pub t: f64,
    /// Degrees of freedom (n − 1).
    pub df: f64,
    /// Two-sided p-value.
    pub p: f64,
}

/// Two models compared on the questions both answered.
#[derive(Clone, Debug, PartialEq)]
pub struct Paired {
    /// Questions both answered.
    pub n: usize,
    /// Mean of the first model's question scores.
    pub mean_a: f64,
    /// Mean of the second's.
    pub mean_b: f64,
    /// Mean difference (first − second).
    pub diff: f64,
    /// The paired t test.
    pub test: Stat<TTest>,
    /// Pearson's correlation of the two models' question scores.
    pub correlation: Stat<f64>,
    /// Smallest difference detectable at 80 % power, two-sided, at the
    /// confidence's level: (z_{1−α/2} + z_{0.8}) × se.
    pub detectable: Stat<f64>,
}

/// Compares question scores `a` and `b` (the same questions, in the same
/// order). Not defined for no questions; the test for fewer than two or
/// for the same difference on every question.
pub(crate) fn paired(a: &[f64], b: &[f64], confidence: f64) -> Stat<Paired> {
    let n = a.len().min(b.len());
    if n == 0 {
        return nd("no question both models answered");
    }
    let (a, b) = (&a[..n], &b[..n]);
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let diff = mean(&d).unwrap_or(0.0);
    let test = t_test(&d, confidence);
    let detectable = match &test {
        Ok(t) => Ok((z(confidence) + z(0.6)) * t.se),
        Err(e) => Err(e.clone()),
    };
    Ok(Paired {
        n,
        mean_a: mean(a).unwrap_or(0.0),
        mean_b: mean(b).unwrap_or(0.0),
        diff,
        test,
        correlation: correlation(a, b),
        detectable,
    })
}

/// One-sample t test of the differences against 0 (`ttest_rel`).
fn t_test(d: &[f64], confidence: f64) -> Stat<TTest> {
    let n = d.len();
    if n < 2 {
        return nd("fewer than two questions: no spread to estimate");
    }
    let m = mean(d).unwrap_or(0.0);
    let var = variance(d).unwrap_or(0.0);
    if var == 0.0 {
        return nd("the difference is the same on every question: no spread to test against");
    }
    let se = (var / n as f64).sqrt();
    let df = (n - 1) as f64;
    let t = m / se;
    let dist = StudentsT::new(0.0, 1.0, df).map_err(|e| super::NotDefined(e.to_string()))?;
    let p = (2.0 * dist.sf(t.abs())).min(1.0);
    let q = t_ppf(1.0 - (1.0 - confidence) / 2.0, df)?;
    Ok(TTest {
        se,
        interval: Interval {
            low: m - q * se,
            high: m + q * se,
        },
        t,
        df,
        p,
    })
}

/// Exact McNemar test on paired pass/fail outcomes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct McNemar {
    /// Questions the first passed and the second failed.
    pub only_a: u64,
    /// Questions the second passed and the first failed.
    pub only_b: u64,
    /// Exact two-sided p: min(1, 2 · Binom(n, ½).cdf(min(b, c))).
    pub p: f64,
    /// Mid-p: the exact p less the probability of the observed count.
    pub mid_p: f64,
}

/// Exact McNemar over discordant counts. Not defined without discordant
/// pairs.
pub(crate) fn mcnemar(only_a: u64, only_b: u64) -> Stat<McNemar> {
    let n = only_a + only_b;
    if n == 0 {
        return nd("no discordant pairs: the two models passed and failed the same questions");
    }
    let k = only_a.min(only_b);
    let bin = Binomial::new(0.5, n).map_err(|e| super::NotDefined(e.to_string()))?;
    let cdf = bin.cdf(k);
    let p = (2.0 * cdf).min(1.0);
    let mid_p = (2.0 * cdf - bin.pmf(k)).min(1.0);
    Ok(McNemar {
        only_a,
        only_b,
        p,
        mid_p,
    })
}

/// Holm's step-down adjustment (statsmodels `multipletests(method="holm")`),
/// in the input's order.
pub(crate) fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut idx: Vec<usize> = (0..m).collect();
    idx.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    let mut out = vec![0.0; m];
    let mut run = 0.0f64;
    for (rank, &i) in idx.iter().enumerate() {
        run = run.max(p[i] * (m - rank) as f64);
        out[i] = run.min(1.0);
    }
    out
}

/// Benjamini-Hochberg (statsmodels `multipletests(method="fdr_bh")`), in
/// the input's order.
pub(crate) fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut idx: Vec<usize> = (0..m).collect();
    idx.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    let mut out = vec![0.0; m];
    let mut run = f64::INFINITY;
    for (rank, &i) in idx.iter().enumerate().rev() {
        run = run.min(p[i] * m as f64 / (rank + 1) as f64);
        out[i] = run.min(1.0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    }

    #[test]
    fn adjustments_match_multipletests() {
        let p = [0.01, 0.04, 0.03, 0.2];
        // statsmodels multipletests(p, method="holm")[1]
        let h = holm(&p);
        for (a, b) in h.iter().zip([0.04, 0.09, 0.09, 0.2]) {
            close(*a, b);
        }
        // method="fdr_bh"
        let b = benjamini_hochberg(&p);
        for (a, e) in b
            .iter()
            .zip([0.04, 0.05333333333333334, 0.05333333333333334, 0.2])
        {
            close(*a, e);
        }
    }

    #[test]
    fn mcnemar_is_exact_and_says_when_nothing_is_discordant() {
        assert!(mcnemar(0, 0).is_err());
        let m = mcnemar(1, 5).unwrap();
        // 2 · (1 + 6) / 64
        close(m.p, 14.0 / 64.0);
        close(m.mid_p, 14.0 / 64.0 - 6.0 / 64.0);
        assert_eq!(mcnemar(3, 3).unwrap().p, 1.0);
    }

    #[test]
    fn paired_test_states_its_edge_cases() {
        let p = paired(&[1.0], &[0.0], 0.95).unwrap();
        assert!(p.test.is_err());
        let p = paired(&[1.0, 1.0], &[0.0, 0.0], 0.95).unwrap();
        assert_eq!(p.diff, 1.0);
        assert!(p.test.is_err() && p.correlation.is_err());
        let p = paired(&[1.0, 0.5, 1.0], &[0.0, 0.5, 0.5], 0.95).unwrap();
        let t = p.test.unwrap();
        close(t.se, (0.25f64 / 3.0).sqrt());
    }
}
