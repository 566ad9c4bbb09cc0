//! The differential suites in one place: each judges kld against the system
//! it mirrors on many generated or real cases, and reports what it compared
//! in `target/differential-reports/` (`.ci/run` prints them). Most are
//! interop tier (they run Karenina or Python); run them all with
//! `cargo test --test cli differential -- --include-ignored`.
//!
//! - [`karenina`]: Karenina's loader (`Benchmark.load`, rubric reading) for
//!   `kld validate`;
//! - [`summary`], [`numbers`]: Karenina's own numbers (`get_summary()`,
//!   `aggregate_pass_rate`) against kld's, on runs Karenina's pipeline makes
//!   at test time;
//! - [`db_benchmarks`]: benchmarks that live only in Karenina's database;
//! - [`prov`]: workspace captures and repairs (run folders Karenina writes);
//! - [`import`]: Karenina's `extract_questions_from_file` for `kld import`;
//! - [`re`]: Python's `re` for the regex lint (the library's `pyre`);
//! - [`coercion`]: Karenina's loader and `get_summary()` on exports with
//!   hand-typed values (pydantic's lax coercions and refusals).
//! - [`stats`]: statsmodels, scipy, krippendorff and scikit-learn for
//!   `kld compare`'s statistics.

mod coercion;
mod db_benchmarks;
mod import;
mod karenina;
mod numbers;
mod prov;
mod re;
mod stats;
mod summary;

pub(crate) use db_benchmarks::masked;

use crate::common::close;
use serde_json::Value;

/// Integers in [`json_diff`]: digit for digit (token sums past 2^53), or
/// within [`close`] as every other number.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Integers {
    Exact,
    Close,
}

/// Where Karenina's JSON value and kld's differ, one line each into `out`:
/// object keys in Karenina's order, arrays element by element, numbers within
/// [`close`] (integers as `ints` says), anything else equal. `leaves` counts
/// the numbers and other leaves compared.
pub(crate) fn json_diff(
    theirs: &Value,
    ours: &Value,
    path: &str,
    ints: Integers,
    out: &mut Vec<String>,
    leaves: &mut usize,
) {
    match (theirs, ours) {
        (Value::Object(a), Value::Object(b)) => {
            let (ka, kb): (Vec<&String>, Vec<&String>) = (a.keys().collect(), b.keys().collect());
            if ka != kb {
                out.push(format!("{path}: keys {ka:?} / kld {kb:?}"));
            }
            for (k, v) in a {
                if let Some(w) = b.get(k) {
                    json_diff(v, w, &format!("{path}.{k}"), ints, out, leaves);
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (v, w)) in a.iter().zip(b).enumerate() {
                json_diff(v, w, &format!("{path}[{i}]"), ints, out, leaves);
            }
        }
        (Value::Number(a), Value::Number(b)) => {
            *leaves += 1;
            let int = |n: &serde_json::Number| !n.to_string().contains(['.', 'e', 'E']);
            let same = if ints == Integers::Exact && int(a) && int(b) {
                a.to_string() == b.to_string()
            } else {
                close(a.as_f64().unwrap(), b.as_f64().unwrap())
            };
            if !same {
                out.push(format!("{path}: Karenina {a} / kld {b}"));
            }
        }
        _ => {
            *leaves += 1;
            if theirs != ours {
                out.push(format!("{path}: Karenina {theirs} / kld {ours}"));
            }
        }
    }
}
