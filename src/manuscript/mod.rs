//! Tables and figures for a manuscript: the leaderboard as an answering
//! model × judge grid, written as CSV, Markdown, LaTeX (booktabs) and one
//! self-contained HTML report, and the figures (a dot plot of each model's
//! rate under each judge with their mean; the question × model heatmap) as
//! SVG with their data as CSV (issue 47); and `kld compare`'s tables
//! (pairwise comparisons, rates, agreement, κ, hardest questions) as
//! Markdown, LaTeX and a report of their own, with the forest plot of
//! paired differences and the judges' κ heatmap; and that comparison of one
//! run the server's results table holds (`/compare`, [`compare_run`]).
//!
//! Why a module of its own: the board ([`crate::board`]) computes
//! the numbers once for every face; this module only arranges those same
//! numbers (never recomputes a rate another way), names each rate by its
//! definition with its n, and writes them in the formats a paper takes.
//! `kld leaderboard`, `kld figure`, the server's `/grid` and `/figure` and
//! the page all call it, so a number in a LaTeX table is the number on the
//! page.
//!
//! Intervals: every cell and mean carries the interval the statistics
//! layer ([`crate::stats`]) gives for its rows, chosen by `intervals`
//! as docs/numbers.md says; `None` where it is not defined, and no writer
//! prints a number for an interval it was not given.

mod compare_report;
pub(crate) mod comparison;
mod forest;
mod heatmap;
mod html_report;
pub(crate) mod intervals;
mod judge_grid;
mod kappa_map;
mod layout;
mod numerals;
mod svg;
mod table_compare;
mod tables;

pub use compare_report::compare_report;
pub use comparison::compare_tables;
pub use forest::{forest_csv, forest_svg};
pub use heatmap::{question_rates, Count, QuestionRates, QuestionRow};
pub use html_report::html_report;
pub use judge_grid::{Grid, GridCell, GridRow, Interval, JudgeMean};
pub use kappa_map::{kappa_csv, kappa_svg};
pub use layout::{latex_all, markdown_all, Align, Layout};
pub use svg::{dot_plot_csv, dot_plot_svg, heatmap_csv, heatmap_svg};
pub use table_compare::{choose_run, compare_run, observations_of_run, RunCompareError};
pub use tables::{caption, csv, latex, markdown};

/// The name every face gives the leaderboard's rate (the statistics
/// layer's, so a table and `kld compare` say the same).
pub(crate) const RATE_NAME: &str = crate::stats::formats::RATE_NAME;

/// The rate's definition in one sentence, for captions and tooltips.
pub(crate) const RATE_DEFINITION: &str = crate::stats::formats::RATE_DEFINITION;

/// What the mean column is (the one table of rate names' judges' mean).
pub(crate) const MEAN_DEFINITION: &str = crate::numbers::names::JUDGES_MEAN.definition;

/// The leaderboard `filter` asks of `data` as model × judge grids, in the
/// board's column order, each cell and mean with its interval at
/// `confidence` (0.95) from the statistics layer (`intervals`).
pub fn grids(
    data: &crate::board::BoardData,
    filter: &crate::board::Filter,
    confidence: f64,
) -> Vec<Grid> {
    let mut g = judge_grid::arrange(data, filter);
    intervals::fill(&mut g, data, filter, confidence);
    g
}

/// How numbers are written: digits after the decimal point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digits(pub usize);

impl Default for Digits {
    fn default() -> Self {
        Digits(1)
    }
}

impl Digits {
    /// `x` rounded to these digits (correctly rounded, as Python's
    /// `format(x, ".Nf")`).
    pub(crate) fn fmt(self, x: f64) -> String {
        format!("{:.*}", self.0, x)
    }

    /// A share (0–1) as a percentage rounded to these digits: `0.1234` at
    /// one digit is `12.3`.
    pub(crate) fn percent(self, share: f64) -> String {
        self.fmt(share * 100.0)
    }

    /// A coefficient (κ, α, r; −1 to 1) to two digits more than a
    /// percentage, so both carry the same precision (12.3 % ↔ 0.123).
    pub(crate) fn coefficient(self, x: f64) -> String {
        Digits(self.0 + 2).fmt(x)
    }

    /// A p-value to a coefficient's digits; below the smallest number
    /// those digits write, `< 0.001` (never a rounded 0.000).
    pub(crate) fn p(self, p: f64) -> String {
        let d = self.0 + 2;
        let floor = 10f64.powi(-(d as i32));
        if p < floor {
            format!("< {}", Digits(d).fmt(floor))
        } else {
            Digits(d).fmt(p)
        }
    }
}

/// A model's row label: the answering model, with its MCP servers when its
/// display string does not already list them (as the page writes it).
pub(crate) fn model_label(m: &crate::board::Model) -> String {
    if m.mcp.is_empty() || m.answering.contains("+[") {
        m.answering.clone()
    } else {
        format!("{} · MCP {}", m.answering, m.mcp.join(", "))
    }
}
