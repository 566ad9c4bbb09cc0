//! `kld compare --format html`: one self-contained HTML report of a run's
//! comparison: the rates with their intervals, the forest plot of paired
//! differences and the pairwise tables, judge agreement with the κ heatmap
//! and its table, and the hardest questions; inline SVG, no script, nothing
//! fetched, so a reviewer opens it offline without kld.
//!
//! Why apart from the leaderboard's report ([`super::html_report`]): that
//! one reads checkpoints and a store (`kld leaderboard`), this one one
//! results file (`kld compare RESULTS`); both share the stylesheet, the
//! escaping and the table writers.

use super::comparison::{agreement, kappa, pairs, questions, rates};
use super::html_report::head;
use super::numerals::level;
use super::svg::esc;
use super::{forest_svg, kappa_svg, Digits};
use crate::stats::report::Comparison;

/// The report of `c` (see the module docs); `source` names the results
/// read, `hardest` how many questions the last table lists.
pub fn compare_report(c: &Comparison, source: &str, d: Digits, hardest: usize) -> String {
    let mut s = head("kld compare report");
    s.push_str("<h1>Comparison of answering models</h1>\n");
    let o = &c.obs;
    s.push_str(&format!(
        "<p>Written by kld {} from {}: {} rows of the template pass rate ({} left out: no template verification) over {} questions, {} answering × {} parsing models (judges). Every interval at {} %.</p>\n",
        esc(env!("CARGO_PKG_VERSION")),
        esc(source),
        o.rows.len(),
        o.left_out,
        o.questions.len(),
        o.models.len(),
        o.judges.len(),
        level(c.options.confidence)
    ));
    let mut table = 0;
    let mut figure = 0;
    let mut push_table = |s: &mut String, l: &super::Layout| {
        table += 1;
        s.push_str(&l.html(table));
    };
    for l in rates(c, d) {
        push_table(&mut s, &l);
    }
    figure += 1;
    s.push_str(&format!(
        "<h2>Paired differences</h2>\n<figure>{}<figcaption>Figure {figure}. Paired differences between answering models, judges averaged: the mean per-question difference A − B (points) with its t interval; the dashed line is no difference. Its numbers are the next table's.</figcaption></figure>\n",
        forest_svg(c, None, d)
    ));
    for l in pairs(c, d) {
        push_table(&mut s, &l);
    }
    push_table(&mut s, &agreement(c, d));
    if c.obs.judges.len() > 1 {
        figure += 1;
        s.push_str(&format!(
            "<h2>Agreement of each pair of judges</h2>\n<figure>{}<figcaption>Figure {figure}. Cohen's κ of each pair of judges on the template verdicts of the answers both rated; blue is agreement beyond chance, red below it, the colours stretched over this figure's κs (its legend gives the range), n.d. where κ is not defined. Its numbers are the next table's.</figcaption></figure>\n",
            kappa_svg(c, d)
        ));
        push_table(&mut s, &kappa(c, d));
    }
    push_table(&mut s, &questions(c, d, hardest));
    s.push_str("</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::super::comparison::tests::comparison;
    use super::super::kappa_map::tests::well_formed;
    use super::*;

    #[test]
    fn the_report_holds_every_table_and_both_figures_and_nothing_external() {
        let c = comparison();
        let html = compare_report(&c, "run <1>.json", Digits(1), 10);
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert_eq!(html.matches("<svg ").count(), 2);
        // rates ×2, three pair views, agreement, κ, questions.
        assert_eq!(html.matches("<p class=\"caption\">Table ").count(), 8);
        assert!(html.contains("from run &lt;1&gt;.json"));
        for external in ["src=", "href=", "@import", "url(", "<script"] {
            assert!(!html.contains(external), "{external}");
        }
        for svg in html.split("<svg ").skip(1) {
            let end = svg.find("</svg>").unwrap();
            well_formed(&format!("<svg {}</svg>", &svg[..end]));
        }
    }
}
