//! Intervals on a rate: Wilson and Clopper-Pearson for a rate over
//! independent rows (statsmodels `proportion_confint`, methods `wilson` and
//! `beta`), and the question-clustered standard error with its t interval
//! for a rate whose rows repeat questions (replicates, judges): Inspect's
//! clustered form with the C/(C−1) correction, equal to statsmodels' OLS on
//! a constant with `cov_type="cluster"`.

use super::{nd, Count, Stat};
use statrs::distribution::{Beta, ContinuousCDF, Normal, StudentsT};
use std::collections::HashMap;

/// A two-sided interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

/// The standard normal's quantile z with P(Z > z) = (1 − confidence) / 2.
pub(crate) fn z(confidence: f64) -> f64 {
    let n = Normal::new(0.0, 1.0).expect("standard normal");
    n.inverse_cdf(1.0 - (1.0 - confidence) / 2.0)
}

/// Student's t quantile at `p` on `df` degrees of freedom (scipy
/// `t.ppf(p, df)`); df must be positive.
pub(crate) fn t_ppf(p: f64, df: f64) -> Stat<f64> {
    if df.is_nan() || df <= 0.0 {
        return nd("no degrees of freedom");
    }
    let t = StudentsT::new(0.0, 1.0, df).map_err(|e| super::NotDefined(e.to_string()))?;
    Ok(t.inverse_cdf(p))
}

fn check_confidence(confidence: f64) -> Stat<()> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return nd(format!("confidence {confidence} is not between 0 and 1"));
    }
    Ok(())
}

/// Wilson score interval (statsmodels `proportion_confint(method="wilson")`,
/// the same arithmetic). Not defined for no rows.
pub(crate) fn wilson(c: Count, confidence: f64) -> Stat<Interval> {
    check_confidence(confidence)?;
    if c.n == 0 {
        return nd("no rows");
    }
    let nobs = c.n as f64;
    let q = c.passed as f64 / nobs;
    let crit = z(confidence);
    let crit2 = crit * crit;
    let denom = 1.0 + crit2 / nobs;
    let center = (q + crit2 / (2.0 * nobs)) / denom;
    let dist = crit * (q * (1.0 - q) / nobs + crit2 / (4.0 * nobs * nobs)).sqrt() / denom;
    Ok(Interval {
        low: center - dist,
        high: center + dist,
    })
}

/// Clopper-Pearson (exact) interval (statsmodels
/// `proportion_confint(method="beta")`): beta quantiles, 0 and 1 at the
/// ends. Not defined for no rows.
pub(crate) fn clopper_pearson(c: Count, confidence: f64) -> Stat<Interval> {
    check_confidence(confidence)?;
    if c.n == 0 {
        return nd("no rows");
    }
    let a2 = (1.0 - confidence) / 2.0;
    let (k, n) = (c.passed as f64, c.n as f64);
    let beta = |a: f64, b: f64| Beta::new(a, b).map_err(|e| super::NotDefined(e.to_string()));
    let low = if c.passed == 0 {
        0.0
    } else {
        beta(k, n - k + 1.0)?.inverse_cdf(a2)
    };
    let high = if c.passed == c.n {
        1.0
    } else {
        beta(k + 1.0, n - k)?.inverse_cdf(1.0 - a2)
    };
    Ok(Interval { low, high })
}

/// A mean with its question-clustered standard error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clustered {
    /// The mean of the scores.
    pub mean: f64,
    /// Clustered standard error.
    pub se: f64,
    /// Observations.
    pub n: usize,
    /// Clusters (questions).
    pub clusters: usize,
    /// Degrees of freedom of the t interval (clusters − 1).
    pub df: f64,
    /// mean ± t(df) × se.
    pub interval: Interval,
}

/// The clustered standard error of the mean of `scores`, one cluster
/// label per score: var = C/(C−1) · Σ_c (Σ_{i∈c} (x_i − x̄))² / n², and a t
/// interval on C − 1 degrees of freedom. Not defined for no rows or one
/// cluster.
pub(crate) fn clustered(scores: &[(f64, u32)], confidence: f64) -> Stat<Clustered> {
    check_confidence(confidence)?;
    let n = scores.len();
    if n == 0 {
        return nd("no rows");
    }
    let mean = scores.iter().map(|s| s.0).sum::<f64>() / n as f64;
    let mut sums: HashMap<u32, f64> = HashMap::new();
    let mut order: Vec<u32> = Vec::new();
    for &(x, c) in scores {
        let e = sums.entry(c).or_insert_with(|| {
            order.push(c);
            0.0
        });
        *e += x - mean;
    }
    let cl = order.len();
    if cl < 2 {
        return nd("one cluster (one question): no spread between questions to estimate");
    }
    let ss: f64 = order.iter().map(|c| sums[c] * sums[c]).sum();
    let c = cl as f64;
    let se = (c / (c - 1.0) * ss / (n as f64 * n as f64)).sqrt();
    let df = c - 1.0;
    let t = t_ppf(1.0 - (1.0 - confidence) / 2.0, df)?;
    Ok(Clustered {
        mean,
        se,
        n,
        clusters: cl,
        df,
        interval: Interval {
            low: mean - t * se,
            high: mean + t * se,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} vs {b}");
    }

    #[test]
    fn wilson_and_exact_intervals_match_statsmodels() {
        // statsmodels 0.15 proportion_confint(7, 20, method=…)
        let w = wilson(Count { passed: 7, n: 20 }, 0.95).unwrap();
        close(w.low, 0.18119182410108203);
        close(w.high, 0.5671457233147638);
        let b = clopper_pearson(Count { passed: 7, n: 20 }, 0.95).unwrap();
        close(b.low, 0.15390920478454118);
        close(b.high, 0.5921885345328282);
        let b = clopper_pearson(Count { passed: 0, n: 5 }, 0.95).unwrap();
        assert_eq!(b.low, 0.0);
        let b = clopper_pearson(Count { passed: 5, n: 5 }, 0.95).unwrap();
        assert_eq!(b.high, 1.0);
        assert!(wilson(Count::default(), 0.95).is_err());
    }

    #[test]
    fn clustered_needs_two_clusters() {
        assert!(clustered(&[(1.0, 0), (0.0, 0)], 0.95).is_err());
        let c = clustered(&[(1.0, 0), (0.0, 0), (1.0, 1), (1.0, 1)], 0.95).unwrap();
        // residuals: cluster 0: 0.25 − 0.75 = −0.5, cluster 1: 0.5; var = 2 · 0.5 / 16
        close(c.se, (2.0f64 * 0.5 / 16.0).sqrt());
        assert_eq!(c.df, 1.0);
    }
}
