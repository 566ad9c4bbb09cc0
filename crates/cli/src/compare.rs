//! `kld compare RESULTS`: which answering models differ, how sure, whether
//! the judges agree, which questions are hard ([`karenina_ld::stats`]);
//! its tables for a manuscript and its figures
//! ([`karenina_ld::manuscript`]).

use super::{INVALID, OK};
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use karenina_ld::manuscript::{self, Digits};
use karenina_ld::stats::{self, formats::Table, Options};
use std::io::Write;
use std::path::PathBuf;

/// Output format of `kld compare`.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum CompareFormat {
    /// Tables for people.
    Text,
    /// One JSON document with every statistic.
    Json,
    /// One table (`--table`) as CSV, unrounded; with `--figure`, the
    /// figure's data, rounded.
    Csv,
    /// Tables for a manuscript (`--table`, or every one), rounded, each
    /// with its caption.
    Markdown,
    /// The same as booktabs tables (`\usepackage{booktabs}`).
    Latex,
    /// One self-contained HTML report: every table and both figures.
    Html,
    /// A figure (`--figure`) as SVG.
    Svg,
}

/// The figures of `kld compare`.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum FigureArg {
    /// Paired differences between answering models with their intervals,
    /// judges averaged.
    Forest,
    /// Cohen's kappa of each pair of judges as a judge x judge heatmap.
    Kappa,
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
    /// Cohen's kappa of each pair of judges.
    Kappa,
    /// Per-question template pass rates, hardest first.
    Questions,
}

/// `kld compare` arguments.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Results export (JSON or CSV) of a verification run, a run folder's results.json, or a run of Karenina's results database (DB#run=ID, or DB when it holds one run).
    pub input: PathBuf,
    /// Output format [default: text; with --figure, svg].
    #[arg(long, value_enum)]
    pub format: Option<CompareFormat>,
    /// Which table: with --format csv one (default pairs); with markdown or latex every one unless given.
    #[arg(long, value_enum)]
    pub table: Option<TableArg>,
    /// A figure instead of tables: --format svg draws it, --format csv writes its data.
    #[arg(long, value_enum)]
    pub figure: Option<FigureArg>,
    /// With --figure forest: the pairs under this judge (parsing model, as kld compare names it) instead of judges averaged.
    #[arg(long, value_name = "JUDGE")]
    pub judge: Option<String>,
    /// Digits after the decimal point of percentages and points in markdown, latex, html, svg and a figure's csv (kappa, alpha, r and p get two more).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=10))]
    pub digits: u8,
    /// Write to FILE (atomically) instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// How many of the hardest questions the text, markdown, latex and html list.
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
    // Text, or with --figure its SVG.
    let format = a.format.unwrap_or(match a.figure {
        Some(_) => CompareFormat::Svg,
        None => CompareFormat::Text,
    });
    match (format, a.figure) {
        (CompareFormat::Svg, None) => {
            bail!("--format svg draws a figure: add --figure forest or --figure kappa")
        }
        (CompareFormat::Csv | CompareFormat::Svg, Some(_)) | (_, None) => {}
        (f, Some(_)) => bail!(
            "--figure writes svg or csv, not {} (--format svg or --format csv)",
            format!("{f:?}").to_lowercase()
        ),
    }
    if a.figure.is_some() && a.table.is_some() {
        bail!("give --table or --figure, not both");
    }
    if a.judge.is_some() && a.figure != Some(FigureArg::Forest) {
        bail!("--judge chooses the pairs of --figure forest");
    }
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
    let d = Digits(a.digits.into());
    let view = match &a.judge {
        None => None,
        Some(name) => match c.obs.judges.iter().position(|j| j == name) {
            Some(j) => Some(j as u32),
            None => {
                eprintln!(
                    "{}: no parsing model is named {name:?}; the run's are: {}",
                    a.input.display(),
                    c.obs.judges.join(", ")
                );
                return Ok(INVALID);
            }
        },
    };
    let table = a.table.map(|t| match t {
        TableArg::Pairs => Table::Pairs,
        TableArg::Rates => Table::Rates,
        TableArg::Agreement => Table::Agreement,
        TableArg::Kappa => Table::Kappa,
        TableArg::Questions => Table::Questions,
    });
    // Every table a manuscript takes, in the report's order.
    let every = [
        Table::Rates,
        Table::Pairs,
        Table::Agreement,
        Table::Questions,
    ];
    let layouts = |only: Option<Table>| -> Vec<manuscript::Layout> {
        let tables: Vec<Table> = only.map_or(every.to_vec(), |t| vec![t]);
        tables
            .into_iter()
            .flat_map(|t| manuscript::compare_tables(&c, t, d, a.hardest))
            .collect()
    };
    let text = match (format, a.figure) {
        (CompareFormat::Svg, Some(FigureArg::Forest)) => manuscript::forest_svg(&c, view, d),
        (CompareFormat::Svg, Some(FigureArg::Kappa)) => manuscript::kappa_svg(&c, d),
        (_, Some(FigureArg::Forest)) => manuscript::forest_csv(&c, view, d)?,
        (_, Some(FigureArg::Kappa)) => manuscript::kappa_csv(&c, d)?,
        (CompareFormat::Json, None) => serde_json::to_string_pretty(&c.to_json())? + "\n",
        (CompareFormat::Csv, None) => c.to_csv(table.unwrap_or(Table::Pairs)),
        (CompareFormat::Markdown, None) => manuscript::markdown_all(&layouts(table)),
        (CompareFormat::Latex, None) => manuscript::latex_all(&layouts(table)),
        (CompareFormat::Html, None) => {
            manuscript::compare_report(&c, &a.input.display().to_string(), d, a.hardest)
        }
        (CompareFormat::Text | CompareFormat::Svg, None) => {
            karenina_ld::terminal::escape_controls(&c.to_text(a.hardest)).to_string()
        }
    };
    match super::output_file(a.output) {
        Some(path) => karenina_ld::fsutil::write_atomic(&path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?,
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(OK)
}
