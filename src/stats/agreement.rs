//! Judge agreement: the unit is an answer (question × answering model ×
//! replicate × run), the raters are the parsing models, a missing verdict
//! is a missing rating. Percent agreement, Fleiss' κ (statsmodels
//! `fleiss_kappa`), Krippendorff's α for nominal data
//! (`krippendorff.alpha(level_of_measurement="nominal")`), Cohen's κ
//! (scikit-learn `cohen_kappa_score`, statsmodels `cohens_kappa`), and each
//! judge's bias against the others with a seeded bootstrap over questions.

use super::{nd, Stat};
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;

/// One answer's ratings: one slot per judge, `None` where the judge gave
/// none. A rating is a category (a verdict: 1 passed, 0 not passed; other
/// nominal data any small integers). `question` is the bootstrap's cluster.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Unit {
    /// The question (cluster) index.
    pub question: u32,
    /// The answering model index.
    pub model: u32,
    /// Per judge: the category, or `None`.
    pub ratings: Vec<Option<u32>>,
}

/// Count per category of a unit's ratings (index: category).
fn counts(r: &[Option<u32>], ncat: usize) -> Vec<usize> {
    let mut c = vec![0; ncat];
    for &v in r.iter().flatten() {
        c[v as usize] += 1;
    }
    c
}

/// Categories span 0..ncat.
fn ncat(units: &[Unit]) -> usize {
    units
        .iter()
        .flat_map(|u| u.ratings.iter().flatten())
        .max()
        .map_or(0, |&m| m as usize + 1)
}

/// Percent agreement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Percent {
    /// Answers with two ratings or more.
    pub units: usize,
    /// Mean over those answers of the share of agreeing judge pairs.
    pub pairwise: f64,
    /// Share of those answers on which every rating is the same.
    pub unanimous: f64,
}

/// Percent agreement over the answers with two ratings or more.
pub(crate) fn percent(units: &[Unit]) -> Stat<Percent> {
    let k = ncat(units);
    let (mut n, mut pw, mut un) = (0usize, 0.0, 0usize);
    for u in units {
        let c = counts(&u.ratings, k);
        let m: usize = c.iter().sum();
        if m < 2 {
            continue;
        }
        n += 1;
        let agree: usize = c.iter().map(|&x| x * x.saturating_sub(1)).sum();
        pw += agree as f64 / (m * (m - 1)) as f64;
        un += usize::from(c.iter().filter(|&&x| x > 0).count() == 1);
    }
    if n == 0 {
        return nd("no answer has two ratings");
    }
    Ok(Percent {
        units: n,
        pairwise: pw / n as f64,
        unanimous: un as f64 / n as f64,
    })
}

/// Fleiss' κ over the answers every judge rated (statsmodels
/// `fleiss_kappa(table, method="fleiss")`); returns κ and the answers used.
pub(crate) fn fleiss(units: &[Unit]) -> Stat<(f64, usize)> {
    let raters = units.first().map_or(0, |u| u.ratings.len());
    if raters < 2 {
        return nd("fewer than two judges");
    }
    let k = ncat(units);
    let table: Vec<Vec<usize>> = units
        .iter()
        .filter(|u| u.ratings.iter().all(Option::is_some))
        .map(|u| counts(&u.ratings, k))
        .collect();
    if table.is_empty() {
        return nd("no answer was rated by every judge");
    }
    let r = raters as f64;
    let total = table.len() as f64 * r;
    let mut p_cat = vec![0.0; k];
    for row in &table {
        for (c, &x) in row.iter().enumerate() {
            p_cat[c] += x as f64;
        }
    }
    if p_cat.iter().filter(|&&x| x > 0.0).count() < 2 {
        return nd("one category observed: every verdict is the same");
    }
    let p_exp: f64 = p_cat.iter().map(|x| (x / total) * (x / total)).sum();
    let p_mean = table
        .iter()
        .map(|row| (row.iter().map(|&x| (x * x) as f64).sum::<f64>() - r) / (r * (r - 1.0)))
        .sum::<f64>()
        / table.len() as f64;
    Ok(((p_mean - p_exp) / (1.0 - p_exp), table.len()))
}

/// Krippendorff's α for nominal data over every answer with two ratings
/// or more (missing ratings allowed); returns α and the pairable values.
pub(crate) fn krippendorff(units: &[Unit]) -> Stat<(f64, usize)> {
    let k = ncat(units);
    // Coincidences o[c][d].
    let mut o = vec![vec![0.0; k]; k];
    let mut pairable = 0usize;
    for u in units {
        let c = counts(&u.ratings, k);
        let m: usize = c.iter().sum();
        if m < 2 {
            continue;
        }
        pairable += m;
        let w = 1.0 / (m - 1) as f64;
        for a in 0..k {
            for b in 0..k {
                let pairs = if a == b {
                    c[a] * c[a].saturating_sub(1)
                } else {
                    c[a] * c[b]
                };
                o[a][b] += pairs as f64 * w;
            }
        }
    }
    if pairable == 0 {
        return nd("no answer has two ratings");
    }
    let n_c: Vec<f64> = o.iter().map(|row| row.iter().sum()).collect();
    let n: f64 = n_c.iter().sum();
    if n_c.iter().filter(|&&x| x > 0.0).count() < 2 {
        return nd("one category observed: every verdict is the same");
    }
    let (mut d_o, mut d_e) = (0.0, 0.0);
    for a in 0..k {
        for b in 0..k {
            if a != b {
                d_o += o[a][b];
                d_e += n_c[a] * n_c[b];
            }
        }
    }
    Ok((1.0 - (n - 1.0) * d_o / d_e, pairable))
}

/// Cohen's κ of two raters over the items both rated.
#[derive(Clone, Debug, PartialEq)]
pub struct Cohen {
    /// Items both rated.
    pub n: usize,
    /// Share on which they agree.
    pub agreement: f64,
    /// κ, or why not.
    pub kappa: Stat<f64>,
}

/// Cohen's κ (unweighted) over pairs of ratings.
pub(crate) fn cohen(pairs: &[(u32, u32)]) -> Stat<Cohen> {
    let n = pairs.len();
    if n == 0 {
        return nd("no answer both judges rated");
    }
    let k = pairs
        .iter()
        .map(|p| p.0.max(p.1))
        .max()
        .map_or(0, |m| m as usize + 1);
    let (mut ra, mut rb) = (vec![0usize; k], vec![0usize; k]);
    let mut agree = 0usize;
    for &(a, b) in pairs {
        ra[a as usize] += 1;
        rb[b as usize] += 1;
        agree += usize::from(a == b);
    }
    let nf = n as f64;
    let po = agree as f64 / nf;
    let pe: f64 = ra
        .iter()
        .zip(&rb)
        .map(|(&x, &y)| (x as f64 / nf) * (y as f64 / nf))
        .sum();
    let observed = ra.iter().zip(&rb).filter(|(&x, &y)| x + y > 0).count();
    let kappa = if observed < 2 {
        nd("one category observed: both judges gave every answer the same verdict")
    } else {
        Ok((po - pe) / (1.0 - pe))
    };
    Ok(Cohen {
        n,
        agreement: po,
        kappa,
    })
}

/// The pairs of ratings judges `i` and `j` both gave.
pub(crate) fn pairs_of(units: &[Unit], i: usize, j: usize) -> Vec<(u32, u32)> {
    units
        .iter()
        .filter_map(|u| Some((u.ratings[i]?, u.ratings[j]?)))
        .collect()
}

/// A judge's bias: its pass rate minus the other judges' on the same
/// answers.
#[derive(Clone, Debug, PartialEq)]
pub struct Bias {
    /// Answers this judge and at least one other rated.
    pub n: usize,
    /// Questions they cover (the bootstrap's clusters).
    pub questions: usize,
    /// Mean over those answers of (this verdict − mean of the others').
    pub bias: f64,
    /// Percentile bootstrap interval over questions (seeded).
    pub interval: Stat<super::interval::Interval>,
}

/// numpy's `percentile` (linear interpolation) of sorted values.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    let pos = q / 100.0 * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// Judge `j`'s bias, with a percentile bootstrap over questions:
/// `resamples` draws of the questions with replacement from a ChaCha8
/// generator seeded with `seed`.
pub(crate) fn bias(
    units: &[Unit],
    j: usize,
    confidence: f64,
    resamples: usize,
    seed: u64,
) -> Stat<Bias> {
    // Per question: (sum of differences, answers).
    let mut per_q: BTreeMap<u32, (f64, usize)> = BTreeMap::new();
    for u in units {
        let Some(mine) = u.ratings[j] else { continue };
        let mine = mine == 1;
        let others: Vec<bool> = u
            .ratings
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != j)
            .filter_map(|(_, r)| r.map(|v| v == 1))
            .collect();
        if others.is_empty() {
            continue;
        }
        let rest = others.iter().filter(|&&v| v).count() as f64 / others.len() as f64;
        let e = per_q.entry(u.question).or_default();
        e.0 += f64::from(u8::from(mine)) - rest;
        e.1 += 1;
    }
    let (s, n) = per_q
        .values()
        .fold((0.0, 0usize), |(a, b), &(x, k)| (a + x, b + k));
    if n == 0 {
        return nd("no answer this judge and another both rated");
    }
    let qs: Vec<(f64, usize)> = per_q.values().copied().collect();
    let interval = if qs.len() < 2 {
        nd("one question: nothing to resample")
    } else if resamples < 2 {
        nd("fewer than two bootstrap resamples")
    } else {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut stats = Vec::with_capacity(resamples);
        for _ in 0..resamples {
            let (mut a, mut b) = (0.0, 0usize);
            for _ in 0..qs.len() {
                let (x, k) = qs[rng.random_range(0..qs.len())];
                a += x;
                b += k;
            }
            stats.push(a / b as f64);
        }
        stats.sort_by(f64::total_cmp);
        let tail = (1.0 - confidence) / 2.0 * 100.0;
        Ok(super::interval::Interval {
            low: percentile(&stats, tail),
            high: percentile(&stats, 100.0 - tail),
        })
    };
    Ok(Bias {
        n,
        questions: qs.len(),
        bias: s / n as f64,
        interval,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(r: &[Option<u32>]) -> Unit {
        Unit {
            question: 0,
            model: 0,
            ratings: r.to_vec(),
        }
    }

    #[test]
    fn one_category_is_not_defined() {
        let u = vec![unit(&[Some(1), Some(1)]), unit(&[Some(1), None])];
        assert!(fleiss(&u).is_err());
        assert!(krippendorff(&u).is_err());
        assert!(cohen(&pairs_of(&u, 0, 1)).unwrap().kappa.is_err());
        assert_eq!(percent(&u).unwrap().units, 1);
    }

    #[test]
    fn krippendorff_two_raters_matches_the_textbook() {
        // Krippendorff (2011), nominal, two coders, ten units.
        let a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0];
        let b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0];
        let u: Vec<Unit> = a
            .iter()
            .zip(b)
            .map(|(&x, y)| unit(&[Some(x), Some(y)]))
            .collect();
        let (alpha, n) = krippendorff(&u).unwrap();
        assert_eq!(n, 20);
        assert!((alpha - 0.095).abs() < 1e-3, "{alpha}");
    }

    #[test]
    fn bias_bootstrap_is_seeded() {
        let u: Vec<Unit> = (0..10)
            .map(|q| Unit {
                question: q,
                model: 0,
                ratings: vec![Some(1), Some(u32::from(q % 3 == 0))],
            })
            .collect();
        let a = bias(&u, 0, 0.95, 200, 7).unwrap();
        let b = bias(&u, 0, 0.95, 200, 7).unwrap();
        assert_eq!(a, b);
        assert!((a.bias - 0.6).abs() < 1e-12);
    }

    /// Units from a subjects × categories count table (each subject's
    /// raters listed category by category).
    fn from_table(table: &[[u32; 5]]) -> Vec<Unit> {
        table
            .iter()
            .map(|row| {
                let ratings = row
                    .iter()
                    .enumerate()
                    .flat_map(|(c, &n)| std::iter::repeat_n(Some(c as u32), n as usize))
                    .collect();
                unit_of(ratings)
            })
            .collect()
    }

    fn unit_of(ratings: Vec<Option<u32>>) -> Unit {
        Unit {
            question: 0,
            model: 0,
            ratings,
        }
    }

    #[test]
    fn fleiss_wikipedia_example() {
        let t = [
            [0, 0, 0, 0, 14],
            [0, 2, 6, 4, 2],
            [0, 0, 3, 5, 6],
            [0, 3, 9, 2, 0],
            [2, 2, 8, 1, 1],
            [7, 7, 0, 0, 0],
            [3, 2, 6, 3, 0],
            [2, 5, 3, 2, 2],
            [6, 5, 2, 1, 0],
            [0, 2, 2, 3, 7],
        ];
        let (k, n) = fleiss(&from_table(&t)).unwrap();
        assert_eq!(n, 10);
        assert!((k - 0.210).abs() < 5e-4, "{k}");
    }

    #[test]
    fn krippendorff_docstring_example() {
        let nan = None;
        let s = Some;
        let data: [[Option<u32>; 15]; 3] = [
            [
                nan,
                nan,
                nan,
                nan,
                nan,
                s(3),
                s(4),
                s(1),
                s(2),
                s(1),
                s(1),
                s(3),
                s(3),
                nan,
                s(3),
            ],
            [
                s(1),
                nan,
                s(2),
                s(1),
                s(3),
                s(3),
                s(4),
                s(3),
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
                nan,
            ],
            [
                nan,
                nan,
                s(2),
                s(1),
                s(3),
                s(4),
                s(4),
                nan,
                s(2),
                s(1),
                s(1),
                s(3),
                s(3),
                nan,
                s(4),
            ],
        ];
        let units: Vec<Unit> = (0..15)
            .map(|i| unit_of(data.iter().map(|r| r[i]).collect()))
            .collect();
        let (a, _) = krippendorff(&units).unwrap();
        assert!((a - 0.691358).abs() < 5e-7, "{a}");
    }

    #[test]
    fn cohen_scikit_learn_example() {
        let y1: Vec<u32> = [0; 46].into_iter().chain([1; 44]).chain([2; 10]).collect();
        let y2: Vec<u32> = [0; 50].into_iter().chain([1; 40]).chain([2; 10]).collect();
        let pairs: Vec<(u32, u32)> = y1.into_iter().zip(y2).collect();
        let k = cohen(&pairs).unwrap().kappa.unwrap();
        assert!((k - 0.9315).abs() < 5e-5, "{k}");
    }
}
