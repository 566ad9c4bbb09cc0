//! `kld compare RESULTS`: which answering models differ, how sure, whether
//! the judges agree, which questions are hard ([`karenina_ld::stats`]).

use super::{INVALID, OK};
use clap::{Args, ValueEnum};
use karenina_ld::stats::{self, formats::Table, Options};
use std::path::PathBuf;

/// Output format of `kld compare`.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum CompareFormat {
    /// Tables for people.
    Text,
    /// One JSON document with every statistic.
    Json,
    /// One table (`--table`) as CSV.
    Csv,
}

/// The table `--format csv` writes.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum TableArg {
    /// Pairwise model comparisons (judges averaged, then per judge).
    Pairs,
    /// Template pass rates with intervals (per model, per model x judge).
    Rates,
    /// Judge agreement (every answer, per answering model).
    Agreement,
    /// Per-question template pass rates, hardest first.
    Questions,
}

/// `kld compare` arguments.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Results export (JSON or CSV) of a verification run, a run folder's results.json, or a run of Karenina's results database (DB#run=ID, or DB when it holds one run).
    pub input: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: CompareFormat,
    /// With --format csv: which table.
    #[arg(long, value_enum, default_value = "pairs")]
    pub table: TableArg,
    /// How many of the hardest questions the text lists.
    #[arg(long, default_value_t = 10)]
    pub hardest: usize,
    /// A parsing model (as `kld compare` names it) the other judges are compared with.
    #[arg(long, value_name = "JUDGE")]
    pub reference_judge: Option<String>,
    /// Confidence of every interval.
    #[arg(long, default_value_t = 0.95)]
    pub confidence: f64,
    /// Seed of the judge-bias bootstrap.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Resamples of the judge-bias bootstrap.
    #[arg(long, default_value_t = 2000)]
    pub resamples: usize,
}

/// Runs `kld compare`.
pub fn compare(a: CompareArgs) -> anyhow::Result<u8> {
    let obs = match stats::observations(&a.input) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return Ok(INVALID);
        }
    };
    let options = Options {
        confidence: a.confidence,
        reference_judge: a.reference_judge,
        seed: a.seed,
        resamples: a.resamples,
    };
    let c = match stats::compare(obs, options) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{}: {e}", a.input.display());
            return Ok(INVALID);
        }
    };
    match a.format {
        CompareFormat::Json => outln!("{}", serde_json::to_string_pretty(&c.to_json())?),
        CompareFormat::Csv => {
            let table = match a.table {
                TableArg::Pairs => Table::Pairs,
                TableArg::Rates => Table::Rates,
                TableArg::Agreement => Table::Agreement,
                TableArg::Questions => Table::Questions,
            };
            out!("{}", c.to_csv(table));
        }
        CompareFormat::Text => out!(
            "{}",
            karenina_ld::terminal::escape_controls(&c.to_text(a.hardest))
        ),
    }
    Ok(OK)
}
