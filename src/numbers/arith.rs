//! The float arithmetic of Karenina's summary, step for step: numpy's
//! median and population standard deviation (with numpy's pairwise
//! summation), Python's left-to-right `sum()`, and `statistics.mean` /
//! `statistics.stdev`, so that kld's numbers equal Karenina's to the last
//! bit where the order of operations decides it.

/// numpy's `pairwise_sum` for float64 (`numpy/_core/src/umath/loops_utils.h.src`):
/// a plain loop under 8 values, eight accumulators up to 128, halves above.
pub(crate) fn pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for x in a {
            res += x;
        }
        res
    } else if n <= 128 {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&a[..8]);
        let mut i = 8;
        while i < n - (n % 8) {
            for j in 0..8 {
                r[j] += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res += a[i];
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// `float(np.median(np.array(values)))` of integers: the middle value, or
/// the mean of the two middle values.
pub(crate) fn np_median(values: &[i64]) -> f64 {
    let mut v: Vec<i64> = values.to_vec();
    v.sort_unstable();
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        // np.mean of the two: their float sum over 2.
        (v[n / 2 - 1] as f64 + v[n / 2] as f64) / 2.0
    }
}

/// `float(np.std(np.array(values)))` of integers: the population standard
/// deviation, `sqrt(sum((x - mean)**2) / n)`, summed as numpy sums.
pub(crate) fn np_std(values: &[i64]) -> f64 {
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    // The mean of integers: their sum is exact in float64 below 2**53.
    let sum: f64 = values.iter().map(|&x| x as f64).sum();
    let mean = sum / n as f64;
    let sq: Vec<f64> = values
        .iter()
        .map(|&x| {
            let d = x as f64 - mean;
            d * d
        })
        .collect();
    (pairwise_sum(&sq) / n as f64).sqrt()
}

/// Karenina's `compute_stats`: (median, std), both 0.0 for no values.
pub(crate) fn median_std(values: &[i64]) -> (f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let (m, s) = (np_median(values), np_std(values));
    (
        if m.is_nan() { 0.0 } else { m },
        if s.is_nan() { 0.0 } else { s },
    )
}

/// `statistics.mean` of floats: the exact mean, rounded once. Sums in
/// double-double (error-free transformations), which is exact to far below
/// the last bit for the few values a summary has.
pub(crate) fn py_mean(values: &[f64]) -> f64 {
    let (hi, lo) = two_sum_all(values);
    let n = values.len() as f64;
    // (hi + lo) / n, with the remainder of hi / n carried.
    let q = hi / n;
    let r = (-q).mul_add(n, hi) + lo;
    q + r / n
}

/// `statistics.stdev` (sample standard deviation, n - 1 in the
/// denominator) of floats; 0.0 for fewer than two values, as Karenina
/// asks it.
pub(crate) fn py_stdev(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 2 {
        return 0.0;
    }
    let mean = py_mean(values);
    let dev: Vec<f64> = values.iter().map(|&x| x - mean).collect();
    let sq: Vec<f64> = dev.iter().map(|d| d * d).collect();
    let (ss, ss_lo) = two_sum_all(&sq);
    // statistics._ss corrects by the squared sum of the deviations over n.
    let (c, c_lo) = two_sum_all(&dev);
    let c = c + c_lo;
    let ss = ss + ss_lo - c * c / n as f64;
    (ss / (n - 1) as f64).sqrt()
}

/// A sum carried as (high, low) parts with Knuth's two-sum.
fn two_sum_all(values: &[f64]) -> (f64, f64) {
    let (mut hi, mut lo) = (0.0f64, 0.0f64);
    for &x in values {
        let s = hi + x;
        let bp = s - hi;
        let err = (hi - (s - bp)) + (x - bp);
        hi = s;
        lo += err;
    }
    (hi, lo)
}

/// Python's built-in `sum()` of floats before 3.12: left to right.
pub(crate) fn py_sum(values: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in values {
        s += x;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_and_statistics_values() {
        // Values from numpy 2 / Python 3.11 on the same inputs.
        let v = [2357i64, 1200, 3341, 4100, 999, 3341, 12];
        assert_eq!(np_median(&v), 2357.0);
        assert_eq!(np_median(&v[..6]), 2849.0);
        assert_eq!(np_std(&v), 1387.0729127576974);
        assert_eq!(median_std(&[]), (0.0, 0.0));
        let rates = [0.125, 0.3333333333333333, 0.4444444444444444];
        assert_eq!(py_mean(&rates), 0.30092592592592593);
        assert!((py_stdev(&rates) - 0.16216925822349068).abs() < 1e-15);
        assert_eq!(py_stdev(&[0.5]), 0.0);
    }

    #[test]
    fn pairwise_sum_follows_numpy_s_blocks() {
        let v: Vec<f64> = (0..1000).map(|i| 0.1 * i as f64).collect();
        let naive: f64 = v.iter().sum();
        assert!((pairwise_sum(&v) - naive).abs() < 1e-9);
        assert_eq!(pairwise_sum(&[1.0, 2.0, 3.0]), 6.0);
    }
}
