//! The figures as SVG written here (no charting library: the page's asset
//! budget pays nothing, and the SVG is the same bytes on the page, in the
//! report and from the command line), and their data as CSV.
//! - the dot plot: a row per answering model, each judge's rate a point
//!   (colour and shape per judge, Okabe–Ito's colour-blind-safe palette),
//!   the judges' mean a black bar with its value, its interval a line when
//!   the statistics layer gives one;
//! - the heatmap: a row per question (hardest first), a column per model,
//!   then every model together; the bottom row each model over every
//!   question; colour only, the numbers on hover (`<title>`) and in the CSV.

use super::heatmap::Count;
use super::{Digits, Grid, QuestionRates};
use crate::error::{Error, Result};

/// XML text and attribute escaping.
pub(super) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `s` cut to `max` characters with an ellipsis.
pub(super) fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// Okabe & Ito's eight colours (colour-blind safe).
const PALETTE: [&str; 8] = [
    "#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#F0E442", "#999999",
];

/// A judge's marker at (x, y): circle, square, triangle, diamond in turn.
fn marker(i: usize, x: f64, y: f64) -> String {
    let c = PALETTE[i % PALETTE.len()];
    let s = 5.0;
    match (i / PALETTE.len() + i) % 4 {
        0 => format!(
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="{s}" fill="{c}" stroke="#333" stroke-width="0.6"/>"##
        ),
        1 => format!(
            r##"<rect x="{:.1}" y="{:.1}" width="{}" height="{}" fill="{c}" stroke="#333" stroke-width="0.6"/>"##,
            x - s * 0.85,
            y - s * 0.85,
            s * 1.7,
            s * 1.7
        ),
        2 => format!(
            r##"<path d="M{x:.1},{:.1}L{:.1},{:.1}L{:.1},{:.1}Z" fill="{c}" stroke="#333" stroke-width="0.6"/>"##,
            y - s,
            x + s,
            y + s * 0.8,
            x - s,
            y + s * 0.8
        ),
        _ => format!(
            r##"<path d="M{x:.1},{:.1}L{:.1},{y:.1}L{x:.1},{:.1}L{:.1},{y:.1}Z" fill="{c}" stroke="#333" stroke-width="0.6"/>"##,
            y - s * 1.1,
            x + s * 1.1,
            y + s * 1.1,
            x - s * 1.1
        ),
    }
}

/// The dot plot of `grid` (see the module docs), 900 px (9.4 in at 96 px
/// per inch) wide: a printed figure has no hover, so names are cut only
/// past 56 characters (the model's) and 64 (a judge's, two to a legend
/// line).
pub fn dot_plot_svg(grid: &Grid, digits: Digits) -> String {
    let width = 900.0;
    let longest = grid
        .rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(10);
    let left = (longest.min(56) as f64 * 6.0 + 16.0).max(90.0);
    let right = 56.0;
    let top = 52.0;
    let row_h = 26.0;
    let plot_h = grid.rows.len().max(1) as f64 * row_h;
    let (lo, hi) = grid.rate_range().unwrap_or((0.0, 100.0));
    let mut a = ((lo / 10.0).floor() * 10.0).max(0.0);
    let mut b = ((hi / 10.0).ceil() * 10.0).min(100.0);
    if b - a < 10.0 {
        a = (a - 5.0).max(0.0);
        b = (a + 10.0).min(100.0);
        a = b - 10.0;
    }
    let step = if b - a > 50.0 { 10.0 } else { 5.0 };
    let x = |v: f64| left + (v - a) / (b - a) * (width - left - right);
    // Legend: judges two to a line.
    let entry = 440.0;
    let per_line = ((width - 20.0) / entry).floor().max(1.0) as usize;
    let legend_lines = grid.judges.len().div_ceil(per_line) + 1;
    let height = top + plot_h + 34.0 + legend_lines as f64 * 18.0 + 10.0;
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="11" role="img" aria-label="{}">"#,
        esc(&format!("{}: template pass rate by judge", grid.title()))
    );
    s.push_str(&format!(
        r##"<rect width="{width}" height="{height}" fill="#fff"/><text x="10" y="18" font-size="13" font-weight="bold">{}</text><text x="10" y="36" fill="#333">{}</text>"##,
        esc(&cut(&grid.title(), 100)),
        esc("Template pass rate (%) under each judge (points) and the judges' mean (bar)")
    ));
    // Grid lines and ticks.
    let mut t = a;
    while t <= b + 1e-9 {
        let xt = x(t);
        s.push_str(&format!(
            r##"<line x1="{xt:.1}" y1="{top}" x2="{xt:.1}" y2="{:.1}" stroke="#ddd"/><text x="{xt:.1}" y="{:.1}" text-anchor="middle" fill="#333">{t}</text>"##,
            top + plot_h,
            top + plot_h + 14.0
        ));
        t += step;
    }
    s.push_str(&format!(
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#333">template pass rate (%)</text><text x="{:.1}" y="{:.1}" text-anchor="end" fill="#333">mean</text>"##,
        (left + width - right) / 2.0,
        top + plot_h + 28.0,
        width - 6.0,
        top - 4.0
    ));
    for (ri, r) in grid.rows.iter().enumerate() {
        let y = top + ri as f64 * row_h + row_h / 2.0;
        s.push_str(&format!(
            r##"<g class="row"><title>{}</title><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text><line x1="{left}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#eee"/></g>"##,
            esc(&r.label),
            left - 8.0,
            y + 4.0,
            esc(&cut(&r.label, 56)),
            width - right
        ));
        if let Some(m) = &r.mean {
            if let Some(i) = &m.interval {
                s.push_str(&format!(
                    r##"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#000" stroke-width="1.5"/>"##,
                    x(i.lower),
                    x(i.upper)
                ));
            }
            let xm = x(m.mean);
            s.push_str(&format!(
                r##"<g class="mean"><title>{}</title><rect x="{:.1}" y="{:.1}" width="3" height="18" fill="#000"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text></g>"##,
                esc(&format!(
                    "{}: mean of {} judges {} %",
                    r.label,
                    m.judges,
                    digits.fmt(m.mean)
                )),
                xm - 1.5,
                y - 9.0,
                width - 6.0,
                y + 4.0,
                digits.fmt(m.mean)
            ));
        }
        for (ji, c) in r.cells.iter().enumerate() {
            if let Some((c, rate)) = c.as_ref().and_then(|c| Some((c, c.rate?))) {
                s.push_str(&format!(
                    r#"<g class="point"><title>{}</title>{}</g>"#,
                    esc(&format!(
                        "{} under {}: {} % ({} of n = {})",
                        r.label,
                        grid.judges[ji],
                        digits.fmt(rate),
                        c.passed,
                        c.n
                    )),
                    marker(ji, x(rate), y)
                ));
            }
        }
    }
    // Legend.
    let ly = top + plot_h + 46.0;
    for (ji, j) in grid.judges.iter().enumerate() {
        let lx = 14.0 + (ji % per_line) as f64 * entry;
        let y = ly + (ji / per_line) as f64 * 18.0;
        s.push_str(&format!(
            r#"<g class="legend"><title>{}</title>{}<text x="{:.1}" y="{:.1}">{}</text></g>"#,
            esc(j),
            marker(ji, lx, y - 4.0),
            lx + 10.0,
            y,
            esc(&cut(j, 64))
        ));
    }
    let y = ly + grid.judges.len().div_ceil(per_line) as f64 * 18.0;
    s.push_str(&format!(
        r##"<rect x="12.5" y="{:.1}" width="3" height="12" fill="#000"/><text x="24" y="{y:.1}">mean of judges</text></svg>"##,
        y - 10.0
    ));
    s
}

pub(super) fn csv_out(rows: Vec<Vec<String>>) -> Result<String> {
    let err = |e: String| Error::Internal(format!("writing CSV: {e}"));
    let mut w = ::csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.write_record(&r).map_err(|e| err(e.to_string()))?;
    }
    String::from_utf8(w.into_inner().map_err(|e| err(e.to_string()))?)
        .map_err(|e| err(e.to_string()))
}

/// The dot plot's data: a row per model and judge (rate, passed, n), then
/// per model the judges' mean (n = the judges).
pub fn dot_plot_csv(grid: &Grid, digits: Digits) -> Result<String> {
    let mut rows = vec![[
        "benchmark",
        "run",
        "answering model",
        "judge",
        "template pass rate (%)",
        "passed",
        "n",
        "interval lower (%)",
        "interval upper (%)",
        "interval",
    ]
    .map(String::from)
    .to_vec()];
    let interval = |i: Option<&super::Interval>| match i {
        Some(i) => vec![
            digits.fmt(i.lower),
            digits.fmt(i.upper),
            format!("{} % {}", (i.level * 100.0).round(), i.method),
        ],
        None => vec![String::new(); 3],
    };
    let run = grid.column.run_name.clone().unwrap_or_default();
    for r in &grid.rows {
        for (ji, c) in r.cells.iter().enumerate() {
            if let Some(c) = c {
                rows.push(vec![
                    grid.column.benchmark.clone(),
                    run.clone(),
                    r.label.clone(),
                    grid.judges[ji].clone(),
                    c.rate.map(|x| digits.fmt(x)).unwrap_or_default(),
                    c.passed.to_string(),
                    c.n.to_string(),
                ]);
                rows.last_mut()
                    .expect("just pushed")
                    .extend(interval(c.interval.as_ref()));
            }
        }
        if let Some(m) = &r.mean {
            rows.push(vec![
                grid.column.benchmark.clone(),
                run.clone(),
                r.label.clone(),
                "mean of judges".into(),
                digits.fmt(m.mean),
                String::new(),
                m.judges.to_string(),
            ]);
            rows.last_mut()
                .expect("just pushed")
                .extend(interval(m.interval.as_ref()));
        }
    }
    csv_out(rows)
}

/// The colour of a rate (0–100): red through yellow to green, light enough
/// for dark text, as the page colours its cells.
fn colour(rate: f64) -> String {
    format!("hsl({}, 70%, 84%)", (rate * 1.2).round())
}

/// The question × model heatmap (see the module docs).
pub fn heatmap_svg(q: &QuestionRates, digits: Digits) -> String {
    let cols = q.models.len() + 1;
    let cw = 44.0;
    let rh = 10.0;
    let left = 250.0;
    let top = 150.0;
    let rows = q.questions.len() + 1;
    let width = left + cols as f64 * cw + 20.0;
    let height = top + rows as f64 * rh + 8.0 + 50.0;
    let judge = q.judge.clone().unwrap_or_default();
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="9" role="img" aria-label="{}"><rect width="{width}" height="{height}" fill="#fff"/>"##,
        esc(&format!(
            "{}: template pass rate per question and model under {judge}",
            q.benchmark
        ))
    );
    s.push_str(&format!(
        r#"<text x="10" y="16" font-size="13" font-weight="bold">{}</text><text x="10" y="32" font-size="11">{}</text>"#,
        esc(&cut(&q.benchmark, 90)),
        esc(&cut(&format!("Template pass rate per question (rows, hardest first) and answering model, judge {judge}"), 120))
    ));
    let mut heads: Vec<String> = q.labels.clone();
    heads.push("all models".into());
    for (i, h) in heads.iter().enumerate() {
        let x = left + i as f64 * cw + cw / 2.0;
        s.push_str(&format!(
            r#"<text transform="translate({x:.1},{:.1}) rotate(-45)" font-size="10"><title>{}</title>{}</text>"#,
            top - 4.0,
            esc(h),
            esc(&cut(h, 22))
        ));
    }
    let cell = |s: &mut String, x: f64, y: f64, c: &Count, what: &str| {
        let (fill, tip) = match c.rate {
            Some(r) => (
                colour(r),
                format!("{what}: {} % ({} of n = {})", digits.fmt(r), c.passed, c.n),
            ),
            None => ("#eeeeee".to_string(), format!("{what}: no verified result")),
        };
        s.push_str(&format!(
            r##"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{fill}" stroke="#fff" stroke-width="0.5"><title>{}</title></rect>"##,
            cw,
            rh,
            esc(&tip)
        ));
    };
    for (qi, row) in q.questions.iter().enumerate() {
        let y = top + qi as f64 * rh;
        let name = row.text.as_deref().unwrap_or(&row.id);
        s.push_str(&format!(
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end"><title>{}</title>{}</text>"#,
            left - 4.0,
            y + rh - 2.0,
            esc(&format!("{} ({})", name, row.id)),
            esc(&cut(name, 52))
        ));
        for (mi, c) in row.cells.iter().enumerate() {
            cell(
                &mut s,
                left + mi as f64 * cw,
                y,
                c,
                &format!("{} · {}", cut(name, 60), q.labels[mi]),
            );
        }
        cell(
            &mut s,
            left + q.models.len() as f64 * cw,
            y,
            &row.total,
            &format!("{} · all models", cut(name, 60)),
        );
    }
    let y = top + q.questions.len() as f64 * rh + 4.0;
    s.push_str(&format!(
        r#"<text x="{:.1}" y="{:.1}" text-anchor="end" font-weight="bold">all questions</text>"#,
        left - 4.0,
        y + rh - 2.0
    ));
    for (mi, c) in q.totals.iter().enumerate() {
        cell(
            &mut s,
            left + mi as f64 * cw,
            y,
            c,
            &format!("{} · all questions", q.labels[mi]),
        );
    }
    // Legend: the scale in five steps.
    let ly = y + rh + 18.0;
    s.push_str(&format!(
        r#"<text x="10" y="{:.1}" font-size="10">template pass rate (%)</text>"#,
        ly + 9.0
    ));
    for (i, v) in [0.0, 25.0, 50.0, 75.0, 100.0].iter().enumerate() {
        let x = 130.0 + i as f64 * 40.0;
        s.push_str(&format!(
            r##"<rect x="{x}" y="{ly:.1}" width="40" height="12" fill="{}"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{v}</text>"##,
            colour(*v),
            x + 20.0,
            ly + 24.0
        ));
    }
    s.push_str("</svg>");
    s
}

/// The heatmap's data: a row per question (hardest first) with each
/// model's rate and n, then every model's; a last row over every question.
pub fn heatmap_csv(q: &QuestionRates, digits: Digits) -> Result<String> {
    let mut head = vec!["question id".to_string(), "question".to_string()];
    for l in q.labels.iter().map(String::as_str).chain(["all models"]) {
        head.push(format!("{l}: template pass rate (%)"));
        head.push(format!("{l}: n"));
    }
    let push = |rec: &mut Vec<String>, c: &Count| {
        rec.push(c.rate.map(|r| digits.fmt(r)).unwrap_or_default());
        rec.push(c.n.to_string());
    };
    let mut rows = vec![head];
    for r in &q.questions {
        let mut rec = vec![r.id.clone(), r.text.clone().unwrap_or_default()];
        for c in r.cells.iter().chain([&r.total]) {
            push(&mut rec, c);
        }
        rows.push(rec);
    }
    let mut rec = vec![String::new(), "all questions".to_string()];
    for c in &q.totals {
        push(&mut rec, c);
    }
    rec.push(String::new());
    rec.push(String::new());
    rows.push(rec);
    csv_out(rows)
}

#[cfg(test)]
mod tests {
    use super::super::judge_grid::tests::data;
    use super::super::{grids, question_rates, Digits};
    use super::*;
    use crate::board::Filter;

    #[test]
    fn the_dot_plot_draws_a_point_per_judge_rate_and_a_mean_per_model() {
        let g = &grids(&data(), &Filter::default(), 0.95)[0];
        let svg = dot_plot_svg(g, Digits(1));
        assert_eq!(svg.matches(r#"<g class="point">"#).count(), 3);
        assert_eq!(svg.matches(r#"<g class="mean">"#).count(), 2);
        assert!(svg.contains("lc:a under lc:j1: 66.7 % (2 of n = 3)"));
        assert!(svg.contains("Bench #1, run paper &amp; co_1"));
        let csv = dot_plot_csv(g, Digits(1)).unwrap();
        assert!(
            csv.contains("Bench #1,paper & co_1,lc:a,lc:j1,66.7,2,3,20.8,93.9,95 % Wilson"),
            "{csv}"
        );
        assert!(
            csv.contains("lc:a,mean of judges,50.0,,2,50.0,50.0,95 % question-clustered t"),
            "{csv}"
        );
    }

    #[test]
    fn the_heatmap_has_a_cell_per_question_and_model_and_the_totals() {
        let q = question_rates(&data(), &Filter::default(), &Default::default());
        let svg = heatmap_svg(&q, Digits(0));
        // 3 questions × (2 models + all) + 2 totals.
        assert_eq!(svg.matches("<rect x=").count() - 5, 11);
        let csv = heatmap_csv(&q, Digits(1)).unwrap();
        let mut r = ::csv::Reader::from_reader(csv.as_bytes());
        let rows: Vec<_> = r.records().map(|x| x.unwrap()).collect();
        assert_eq!(rows.len(), 4);
        assert_eq!(&rows[0][0], "q3");
        assert_eq!(&rows[3][1], "all questions");
    }
}
