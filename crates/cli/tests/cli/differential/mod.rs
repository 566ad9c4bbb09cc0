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
