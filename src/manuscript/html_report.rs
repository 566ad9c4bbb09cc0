//! One self-contained HTML report: every grid as a table coloured over its
//! range with its caption, its dot plot, and each benchmark's question ×
//! model heatmap, inline SVG, no script and no external asset, so a
//! reviewer opens it offline without kld.

use super::svg::esc;
use super::{caption, dot_plot_svg, heatmap_svg, Digits, Grid, QuestionRates};

/// The colour of `rate` on a scale stretched over `[lo, hi]` (red through
/// yellow to green; light, for dark text).
pub(crate) fn stretched(rate: f64, lo: f64, hi: f64) -> String {
    let t = if hi > lo {
        (rate - lo) / (hi - lo)
    } else {
        0.5
    };
    format!("hsl({}, 70%, 84%)", (t * 120.0).round())
}

/// The reports' stylesheet (inline: nothing is fetched).
const STYLE: &str = r#"<style>
body{font:14px/1.45 Helvetica,Arial,sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#111}
table{border-collapse:collapse;margin:1em 0}th,td{padding:4px 8px;border-bottom:1px solid #ddd}
thead th{border-bottom:2px solid #111;vertical-align:bottom}td.num{text-align:right;white-space:nowrap}
th.model{text-align:left;max-width:22em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-weight:normal}
small{color:#333}figure{margin:1.5em 0;overflow-x:auto}div.wide{overflow-x:auto}figcaption,p.caption{font-size:13px;color:#222;max-width:60em}
</style>"#;

/// A report's head up to `<body>`, titled `title` (escaped).
pub(super) fn head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n{STYLE}</head><body>\n",
        esc(title)
    )
}

/// The report of `grids` and `heatmaps` (see the module docs).
pub fn html_report(grids: &[Grid], heatmaps: &[QuestionRates], digits: Digits) -> String {
    let mut s = head("kld leaderboard report");
    s.push_str("<h1>Leaderboard</h1>\n");
    s.push_str(&format!(
        "<p>Written by kld {}. Each rate is the {} ({}).</p>\n",
        esc(env!("CARGO_PKG_VERSION")),
        super::RATE_NAME,
        esc(super::RATE_DEFINITION)
    ));
    for (gi, g) in grids.iter().enumerate() {
        let (lo, hi) = g.rate_range().unwrap_or((0.0, 100.0));
        s.push_str(&format!(
            "<h2>{}</h2>\n<table>\n<thead><tr><th>Answering model</th>",
            esc(&g.title())
        ));
        for j in &g.judges {
            s.push_str(&format!("<th title=\"{}\">{}</th>", esc(j), esc(j)));
        }
        s.push_str("<th>Mean of judges</th></tr></thead>\n<tbody>\n");
        for r in &g.rows {
            s.push_str(&format!(
                "<tr><th class=\"model\" title=\"{}\">{}</th>",
                esc(&r.label),
                esc(&r.label)
            ));
            for c in &r.cells {
                match c {
                    Some(c) => match c.rate {
                        Some(x) => s.push_str(&format!(
                            "<td class=\"num\" style=\"background:{}\" title=\"{} of n = {}\">{} <small>n={}</small></td>",
                            stretched(x, lo, hi),
                            c.passed,
                            c.n,
                            digits.fmt(x),
                            c.n
                        )),
                        None => s.push_str(&format!("<td class=\"num\">no rate <small>n={}</small></td>", c.n)),
                    },
                    None => s.push_str("<td class=\"num\">–</td>"),
                }
            }
            match &r.mean {
                Some(m) => s.push_str(&format!(
                    "<td class=\"num\" style=\"background:{}\"><b>{}</b> <small>k={}</small></td></tr>\n",
                    stretched(m.mean, lo, hi),
                    digits.fmt(m.mean),
                    m.judges
                )),
                None => s.push_str("<td class=\"num\">no rate</td></tr>\n"),
            }
        }
        s.push_str(&format!(
            "</tbody></table>\n<p class=\"caption\">Table {}. {} Colours span this table's range, {} to {} %.</p>\n",
            gi + 1,
            esc(&caption(g, digits)),
            digits.fmt(lo),
            digits.fmt(hi)
        ));
        s.push_str(&format!(
            "<figure>{}<figcaption>Figure {}. {}: each judge's template pass rate (points) and their mean (bar) per answering model.</figcaption></figure>\n",
            dot_plot_svg(g, digits),
            gi + 1,
            esc(&g.title())
        ));
    }
    for q in heatmaps {
        s.push_str(&format!(
            "<h2>{}: questions</h2>\n<figure>{}<figcaption>Template pass rate of each answering model on each question under the judge {} (its replicates' results with template verification performed), hardest question first; the last column every model together, the last row every question.</figcaption></figure>\n",
            esc(&q.benchmark),
            heatmap_svg(q, digits),
            esc(q.judge.as_deref().unwrap_or(""))
        ));
    }
    s.push_str("</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::super::judge_grid::tests::data;
    use super::super::{grids, question_rates, Digits};
    use super::html_report;
    use crate::board::Filter;

    #[test]
    fn the_report_holds_the_table_and_its_figures_and_nothing_external() {
        let d = data();
        let g = grids(&d, &Filter::default(), 0.95);
        let q = question_rates(&d, &Filter::default(), &Default::default());
        let html = html_report(&g, &[q], Digits(1));
        assert_eq!(html.matches("<svg ").count(), 2);
        assert!(html.contains(">66.7 <small>n=3</small>"));
        for external in ["src=", "href=", "@import", "url("] {
            assert!(!html.contains(external), "{external}");
        }
    }
}
