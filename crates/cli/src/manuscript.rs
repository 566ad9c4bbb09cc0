//! `kld leaderboard` and `kld figure`: the leaderboard as a model × judge
//! table (CSV, Markdown, LaTeX, an HTML report, JSON) and the figures (SVG
//! and their data as CSV), from loaded files or a store; the numbers are
//! the library's (`board`, arranged by `manuscript`, intervals by
//! `stats`), as the server's `/grid` and `/figure` give them.

use super::inputs::{files_of_strict, open_store};
use super::rdf::{load_into, ResultsArgs};
use super::ProcessorArg;
use anyhow::{bail, Context};
use karenina_ld::board::{self, Filter};
use karenina_ld::manuscript::{self, Digits};
use std::io::Write;
use std::path::PathBuf;

/// What to read and which part of the board: shared by both commands.
#[derive(clap::Args, Debug)]
pub struct BoardInputs {
    /// Store directory to open.
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Checkpoints, results exports or directories to load.
    pub inputs: Vec<PathBuf>,
    /// One judge (parsing model display string, as in `kld info`).
    #[arg(long)]
    pub judge: Option<String>,
    /// One run (its results graph IRI).
    #[arg(long)]
    pub run: Option<String>,
    /// One benchmark (its checkpoint graph IRI).
    #[arg(long)]
    pub benchmark: Option<String>,
    /// Only runs loaded with this label (`KEY=VALUE`).
    #[arg(long, value_name = "KEY=VALUE")]
    pub with_label: Option<String>,
    /// The latest result per question across a benchmark's runs (one
    /// column per benchmark instead of one per run).
    #[arg(long)]
    pub latest: bool,
    /// Digits after the decimal point.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=12))]
    pub digits: u8,
    /// Confidence of every interval (as `kld compare --confidence`).
    #[arg(long, default_value_t = 0.95)]
    pub confidence: f64,
    /// Write to FILE (atomically) instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// How checkpoints become quads.
    #[arg(long, value_enum, default_value = "direct")]
    pub processor: ProcessorArg,
    /// Results exports among the inputs.
    #[command(flatten)]
    pub results: ResultsArgs,
}

/// `kld leaderboard`'s formats.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum TableFormat {
    /// One row per model: each judge's rate and n, the judges' mean.
    Csv,
    /// A pipe table per benchmark column, with its caption.
    Markdown,
    /// A booktabs table per benchmark column (`\usepackage{booktabs}`).
    Latex,
    /// One self-contained HTML report: tables, captions, figures inline.
    Html,
    /// The grids as JSON (every number unrounded).
    Json,
}

/// Arguments of `kld leaderboard`.
#[derive(clap::Args, Debug)]
pub struct LeaderboardArgs {
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "markdown")]
    pub format: TableFormat,
    #[command(flatten)]
    pub board: BoardInputs,
}

/// `kld figure`'s figures.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum FigureKind {
    /// Each model's rate under each judge (points) and their mean.
    Dots,
    /// Question × model rates under one judge, hardest question first.
    Heatmap,
}

/// `kld figure`'s formats.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum FigureFormat {
    /// The figure.
    Svg,
    /// Its data.
    Csv,
}

/// Arguments of `kld figure`.
#[derive(clap::Args, Debug)]
pub struct FigureArgs {
    /// Which figure.
    #[arg(value_enum)]
    pub kind: FigureKind,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "svg")]
    pub format: FigureFormat,
    #[command(flatten)]
    pub board: BoardInputs,
}

struct Loaded {
    store: karenina_ld::store::CheckpointStore,
    data: board::BoardData,
    filter: Filter,
    opts: karenina_ld::sparql::QueryOptions,
    status: u8,
}

fn load(b: &BoardInputs) -> anyhow::Result<Loaded> {
    if !(b.confidence > 0.0 && b.confidence < 1.0) {
        bail!(
            "--confidence {}: give a number between 0 and 1",
            b.confidence
        );
    }
    if b.inputs.is_empty() && b.store.is_none() {
        bail!("give checkpoints and results exports (or directories), or --store DIR");
    }
    let files = files_of_strict(&b.inputs, b.store.is_some())?;
    let mut store = open_store(b.store.as_deref())?;
    let status = load_into(&mut store, &files, b.processor.into(), false, &b.results);
    let opts = karenina_ld::sparql::QueryOptions::default();
    let data = board::read(store.store(), &opts).context("reading the results")?;
    if data.rows.is_empty() {
        bail!("no verification results bound to a loaded benchmark: give the checkpoint with its results exports");
    }
    let filter = Filter {
        judge: b.judge.clone(),
        run: b.run.clone(),
        benchmark: b.benchmark.clone(),
        label: b.with_label.clone(),
        latest: b.latest,
    };
    Ok(Loaded {
        store,
        data,
        filter,
        opts,
        status,
    })
}

fn write(b: &BoardInputs, text: &str, status: u8) -> anyhow::Result<u8> {
    match super::output_file(b.output.clone()) {
        Some(path) => karenina_ld::fsutil::write_atomic(&path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?,
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(status)
}

/// The heatmap of each benchmark the grids cover, under the filter's judge
/// (or each benchmark's first).
fn heatmaps(
    l: &Loaded,
    grids: &[manuscript::Grid],
) -> anyhow::Result<Vec<manuscript::QuestionRates>> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for g in grids {
        if seen.contains(&g.column.checkpoint) {
            continue;
        }
        seen.push(g.column.checkpoint.clone());
        let texts = board::question_texts(l.store.store(), &g.column.checkpoint, &l.opts)?;
        let f = Filter {
            benchmark: Some(g.column.checkpoint.clone()),
            run: g.column.run.clone(),
            ..l.filter.clone()
        };
        out.push(manuscript::question_rates(&l.data, &f, &texts));
    }
    Ok(out)
}

/// `kld leaderboard`.
pub fn leaderboard(a: LeaderboardArgs) -> anyhow::Result<u8> {
    let l = load(&a.board)?;
    let d = Digits(a.board.digits.into());
    let grids = manuscript::grids(&l.data, &l.filter, a.board.confidence);
    if grids.is_empty() {
        bail!("no results under these filters");
    }
    let text = match a.format {
        TableFormat::Csv => manuscript::csv(&grids, d)?,
        TableFormat::Markdown => manuscript::markdown(&grids, d),
        TableFormat::Latex => manuscript::latex(&grids, d),
        TableFormat::Html => manuscript::html_report(&grids, &heatmaps(&l, &grids)?, d),
        TableFormat::Json => serde_json::to_string_pretty(&grids)? + "\n",
    };
    write(&a.board, &text, l.status)
}

/// `kld figure`.
pub fn figure(a: FigureArgs) -> anyhow::Result<u8> {
    let l = load(&a.board)?;
    let d = Digits(a.board.digits.into());
    let text =
        match a.kind {
            FigureKind::Dots => {
                let grids = manuscript::grids(&l.data, &l.filter, a.board.confidence);
                let g =
                    match grids.as_slice() {
                        [g] => g,
                        [] => bail!("no results under these filters"),
                        many => bail!(
                    "{} benchmark columns ({}): choose one with --run, --benchmark or --latest",
                    many.len(),
                    many.iter().map(|g| g.title()).collect::<Vec<_>>().join("; ")
                ),
                    };
                match a.format {
                    FigureFormat::Svg => manuscript::dot_plot_svg(g, d),
                    FigureFormat::Csv => manuscript::dot_plot_csv(g, d)?,
                }
            }
            FigureKind::Heatmap => {
                let cp = l
                    .filter
                    .benchmark
                    .clone()
                    .or_else(|| l.data.rows.first().map(|r| r.checkpoint.clone()))
                    .unwrap_or_default();
                let texts = board::question_texts(l.store.store(), &cp, &l.opts)?;
                let q = manuscript::question_rates(&l.data, &l.filter, &texts);
                match a.format {
                    FigureFormat::Svg => manuscript::heatmap_svg(&q, d),
                    FigureFormat::Csv => manuscript::heatmap_csv(&q, d)?,
                }
            }
        };
    write(&a.board, &text, l.status)
}
