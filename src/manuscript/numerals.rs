//! How `kld compare`'s numbers become the cells and captions of its
//! manuscript tables and figures: a share as a percentage, a difference in
//! points with a true minus sign, an interval in brackets, the confidence
//! as a level, the rounding sentence, and `n.d.` for a statistic that is
//! not defined with its reason gathered for the caption.
//!
//! Why a module of its own: the tables ([`super::comparison`]) and the
//! figures ([`super::forest`], [`super::kappa_map`]) write the same numbers
//! the same way; one place keeps them equal.

use super::Digits;
use crate::stats::Stat;
use std::collections::BTreeSet;

/// What a cell holds when its statistic is not defined.
pub const NOT_DEFINED: &str = "n.d.";

/// The reasons of the `n.d.` cells of one table.
#[derive(Default)]
pub(super) struct Why(BTreeSet<String>);

impl Why {
    pub(super) fn cell<T>(&mut self, s: &Stat<T>, f: impl Fn(&T) -> String) -> String {
        match s {
            Ok(v) => f(v),
            Err(e) => {
                self.0.insert(e.0.clone());
                NOT_DEFINED.into()
            }
        }
    }

    /// The caption's last sentence.
    pub(super) fn sentence(&self) -> String {
        if self.0.is_empty() {
            return String::new();
        }
        let parts: Vec<&str> = self.0.iter().map(String::as_str).collect();
        format!(" {NOT_DEFINED}: not defined, because {}.", parts.join("; "))
    }
}

/// The confidence as a level in percent: `0.95` is `95`.
pub(super) fn level(confidence: f64) -> String {
    format!("{}", (confidence * 1000.0).round() / 10.0)
}

/// "Rounded to …": percentages and points to `d`, coefficients and p to
/// two more.
pub(super) fn rounding(d: Digits, coefficients: bool) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let mut s = format!(
        " Percentages and points rounded to {} decimal{}",
        d.0,
        plural(d.0)
    );
    if coefficients {
        s.push_str(&format!(
            "; κ, α, r and p to {} (p below that as < {})",
            d.0 + 2,
            Digits(d.0 + 2).fmt(10f64.powi(-((d.0 + 2) as i32)))
        ));
    }
    s.push('.');
    s
}

/// `[lo, hi]` in percent (or points).
pub(super) fn bracket(d: Digits, lo: f64, hi: f64) -> String {
    format!("[{}, {}]", d.percent(lo), d.percent(hi))
}

/// A signed difference in points (a true minus sign).
pub(super) fn signed(d: Digits, x: f64) -> String {
    let s = d.percent(x);
    if s.starts_with('-') {
        s.replacen('-', "−", 1)
    } else {
        format!("+{s}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_round_percentages_coefficients_and_p() {
        let d = Digits(1);
        assert_eq!(d.percent(0.1234), "12.3");
        assert_eq!(d.coefficient(0.12345), "0.123");
        assert_eq!(d.p(0.0004), "< 0.001");
        assert_eq!(d.p(0.0456), "0.046");
        assert_eq!(signed(d, -0.05), "−5.0");
        assert_eq!(signed(Digits(0), 0.5), "+50");
        assert_eq!(level(0.95), "95");
        assert_eq!(level(0.975), "97.5");
    }
}
