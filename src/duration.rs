//! Durations given as a number of seconds (`--timeout`, Python's
//! `timeout=`, `KLD_STORE_WAIT`, `KLD_SQLITE_DEADLINE`), checked before
//! they become a [`Duration`].
//!
//! Why: `Duration::from_secs_f64` panics on a value it cannot hold, so
//! `--timeout 1e20` ended kld with a panic (exit 101) and Python with a
//! `PanicException` that `except Exception` does not catch. Every duration
//! read from a user goes through [`seconds`]: NaN, infinities, negative
//! and absurd values are an [`Error::Usage`] (exit 2, Python's
//! `ValueError`).

use crate::error::{Error, Result};
use std::time::Duration;

/// The longest duration accepted: a year. Past it a value is a mistake
/// (a deadline that never comes is what a year already is), and a deadline
/// of `now + value` stays far from what a clock can hold.
pub(crate) const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// `secs` as a [`Duration`] when it is a positive number of seconds no
/// larger than `MAX_SECONDS` (zero too when `zero_ok`); otherwise an
/// [`Error::Usage`] naming `what` (`--timeout`, `timeout`).
pub fn seconds(what: &str, secs: f64, zero_ok: bool) -> Result<Duration> {
    let low_ok = if zero_ok { secs >= 0.0 } else { secs > 0.0 };
    if !(low_ok && secs <= MAX_SECONDS) {
        let least = if zero_ok { "0" } else { "above 0" };
        return Err(Error::Usage(format!(
            "{what} must be a number of seconds {least} and at most {MAX_SECONDS} (a year), not {secs}"
        )));
    }
    Duration::try_from_secs_f64(secs).map_err(|e| Error::Usage(format!("{what}: {e}")))
}

/// A number of seconds read from environment variable `var` (trimmed),
/// when it is set and [`seconds`] takes it; `None` otherwise (the caller's
/// default applies).
pub(crate) fn from_env(var: &str, zero_ok: bool) -> Option<Duration> {
    let v = std::env::var(var).ok()?;
    seconds(var, v.trim().parse::<f64>().ok()?, zero_ok).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absurd_nan_infinite_and_negative_durations_are_errors_not_panics() {
        for v in [
            1e20,
            f64::NAN,
            f64::INFINITY,
            -1.0,
            0.0,
            MAX_SECONDS * 2.0,
            1e300,
        ] {
            let e = seconds("--timeout", v, false).unwrap_err();
            assert!(matches!(e, Error::Usage(_)), "{v}: {e}");
            assert!(e.to_string().contains("--timeout"), "{e}");
        }
        assert_eq!(seconds("t", 0.0, true).unwrap(), Duration::ZERO);
        assert_eq!(
            seconds("t", 1.5, false).unwrap(),
            Duration::from_millis(1500)
        );
        assert_eq!(
            seconds("t", MAX_SECONDS, false).unwrap(),
            Duration::from_secs(365 * 24 * 3600)
        );
    }
}
