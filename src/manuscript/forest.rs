//! The forest plot of paired differences: one row per pair of answering
//! models (`kld compare`'s pairs of one view, judges averaged by default),
//! the mean per-question difference A − B in points as a square, its t
//! interval as a line, zero as a dashed line; and its data as CSV.
//!
//! Why a module of its own: the figure draws the statistics layer's pairs
//! ([`crate::stats::report::PairRow`]) and nothing else, so its CSV holds
//! the numbers `kld compare --format csv --table pairs` gives, rounded.
//! Written as SVG by kld, as the leaderboard's figures are ([`super::svg`]).

use super::numerals::{level, signed};
use super::svg::{csv_out, cut, esc};
use super::Digits;
use crate::error::Result;
use crate::numbers::names::QUESTION_MEAN;
use crate::stats::report::{Comparison, PairRow};

/// The pairs of one view: `None` judges averaged, or one judge's index.
fn view(c: &Comparison, judge: Option<u32>) -> Vec<&PairRow> {
    c.pairs.iter().filter(|p| p.judge == judge).collect()
}

fn name(c: &Comparison, m: u32) -> &str {
    &c.obs.models[m as usize]
}

/// The view's words: "judges averaged" or "under the judge J".
fn view_words(c: &Comparison, judge: Option<u32>) -> String {
    match judge {
        None => "judges averaged".into(),
        Some(j) => format!("under the judge {}", c.obs.judges[j as usize]),
    }
}

/// A tick step giving at most ten ticks over `span` points.
fn step(span: f64) -> f64 {
    for s in [0.5, 1.0, 2.0, 2.5, 5.0, 10.0, 20.0, 25.0, 50.0] {
        if span / s <= 10.0 {
            return s;
        }
    }
    100.0
}

/// The forest plot of the pairs `judge` selects (see the module docs),
/// 900 px wide.
pub fn forest_svg(c: &Comparison, judge: Option<u32>, d: Digits) -> String {
    let rows = view(c, judge);
    let lv = level(c.options.confidence);
    let width = 900.0;
    // Each side cut on its own, so both models stay readable (the whole
    // names on hover).
    let labels: Vec<String> = rows
        .iter()
        .map(|p| format!("{} − {}", name(c, p.a), name(c, p.b)))
        .collect();
    let shown: Vec<String> = rows
        .iter()
        .map(|p| format!("{} − {}", cut(name(c, p.a), 34), cut(name(c, p.b), 34)))
        .collect();
    let longest = shown.iter().map(|l| l.chars().count()).max().unwrap_or(10);
    let left = (longest as f64 * 5.8 + 16.0).clamp(120.0, 440.0);
    let right = 170.0;
    let top = 56.0;
    let row_h = 22.0;
    let plot_h = rows.len().max(1) as f64 * row_h;
    // Points (percent) of every difference and bound, and zero.
    let mut lo = 0.0f64;
    let mut hi = 0.0f64;
    for p in &rows {
        if let Ok(x) = &p.paired {
            lo = lo.min(x.diff * 100.0);
            hi = hi.max(x.diff * 100.0);
            if let Ok(t) = &x.test {
                lo = lo.min(t.interval.low * 100.0);
                hi = hi.max(t.interval.high * 100.0);
            }
        }
    }
    let st = step((hi - lo).max(1.0));
    let a = (lo / st).floor() * st;
    let b = ((hi / st).ceil() * st).max(a + st);
    let px = |v: f64| left + (v - a) / (b - a) * (width - left - right);
    let height = top + plot_h + 44.0;
    let what = format!("Paired differences, {}", view_words(c, judge));
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="11" role="img" aria-label="{}"><rect width="{width}" height="{height}" fill="#fff"/>"##,
        esc(&what)
    );
    s.push_str(&format!(
        r##"<text x="10" y="18" font-size="13" font-weight="bold">{}</text><text x="10" y="36" fill="#333">{}</text>"##,
        esc(&what),
        esc(&format!(
            "A − B in points of the {} (squares) with {lv} % t intervals (lines); right: the difference, its interval and Holm-adjusted p",
            QUESTION_MEAN.name
        ))
    ));
    let mut t = a;
    while t <= b + 1e-9 {
        let xt = px(t);
        let zero = t.abs() < 1e-9;
        s.push_str(&format!(
            r##"<line x1="{xt:.1}" y1="{top}" x2="{xt:.1}" y2="{:.1}" stroke="{}"{}/><text x="{xt:.1}" y="{:.1}" text-anchor="middle" fill="#333">{}</text>"##,
            top + plot_h,
            if zero { "#000" } else { "#ddd" },
            if zero { r#" stroke-dasharray="4 3""# } else { "" },
            top + plot_h + 14.0,
            if t > 0.0 { format!("+{t}") } else { format!("{t}") }.replace('-', "−")
        ));
        t += st;
    }
    s.push_str(&format!(
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#333">A − B (points)</text>"##,
        (left + width - right) / 2.0,
        top + plot_h + 30.0
    ));
    for (i, ((p, label), short)) in rows.iter().zip(&labels).zip(&shown).enumerate() {
        let y = top + i as f64 * row_h + row_h / 2.0;
        let (tip, right_text, mark) = match &p.paired {
            Ok(x) => {
                let diff = signed(d, x.diff);
                let (iv, line) = match &x.test {
                    Ok(t) => (
                        format!(
                            " [{}, {}]",
                            d.percent(t.interval.low),
                            d.percent(t.interval.high)
                        ),
                        format!(
                            r##"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#0072B2" stroke-width="1.6"/>"##,
                            px(t.interval.low * 100.0),
                            px(t.interval.high * 100.0)
                        ),
                    ),
                    Err(e) => (format!(" (no interval: {})", e.0), String::new()),
                };
                let holm = p
                    .holm
                    .map(|h| format!(", p (Holm) {}", d.p(h)))
                    .unwrap_or_default();
                let xm = px(x.diff * 100.0);
                (
                    format!("{label}: {diff} points{iv}, n = {} questions{holm}", x.n),
                    format!("{diff}{}", iv.split(" (no").next().unwrap_or("")),
                    format!(
                        r##"{line}<rect x="{:.1}" y="{:.1}" width="8" height="8" fill="#000"/>"##,
                        xm - 4.0,
                        y - 4.0
                    ),
                )
            }
            Err(e) => (
                format!("{label}: not defined ({})", e.0),
                "n.d.".to_string(),
                String::new(),
            ),
        };
        s.push_str(&format!(
            r##"<g class="pair"><title>{}</title><line x1="{left}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#f2f2f2"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>{mark}<text x="{:.1}" y="{:.1}">{}</text></g>"##,
            esc(&tip),
            width - right,
            left - 8.0,
            y + 4.0,
            esc(short),
            width - right + 10.0,
            y + 4.0,
            esc(&right_text)
        ));
    }
    s.push_str("</svg>");
    s
}

/// The forest plot's data: a row per pair of the view, in percent and
/// points rounded to `d` (p to two digits more), with the column names of
/// `kld compare --format csv --table pairs` where they are its numbers.
pub fn forest_csv(c: &Comparison, judge: Option<u32>, d: Digits) -> Result<String> {
    let mut out = vec![[
        "a",
        "b",
        "judge",
        "questions",
        "mean_a (%)",
        "mean_b (%)",
        "diff (points)",
        "low (points)",
        "high (points)",
        "level (%)",
        "p",
        "p_holm",
        "rate_name",
    ]
    .map(String::from)
    .to_vec()];
    let pd = Digits(d.0 + 2);
    for p in view(c, judge) {
        let mut r = vec![
            name(c, p.a).to_string(),
            name(c, p.b).to_string(),
            p.judge
                .map(|j| c.obs.judges[j as usize].clone())
                .unwrap_or_default(),
        ];
        match &p.paired {
            Ok(x) => {
                r.push(x.n.to_string());
                r.push(d.percent(x.mean_a));
                r.push(d.percent(x.mean_b));
                r.push(d.percent(x.diff));
                match &x.test {
                    Ok(t) => {
                        r.push(d.percent(t.interval.low));
                        r.push(d.percent(t.interval.high));
                        r.push(level(c.options.confidence));
                        r.push(pd.fmt(t.p));
                    }
                    Err(_) => r.extend(std::iter::repeat_n(String::new(), 4)),
                }
            }
            Err(_) => r.extend(std::iter::repeat_n(String::new(), 8)),
        }
        r.push(p.holm.map(|h| pd.fmt(h)).unwrap_or_default());
        r.push(QUESTION_MEAN.name.to_string());
        out.push(r);
    }
    csv_out(out)
}

#[cfg(test)]
mod tests {
    use super::super::comparison::tests::comparison;
    use super::*;

    #[test]
    fn a_row_per_pair_with_its_interval_and_the_csv_holds_the_same_numbers() {
        let c = comparison();
        let svg = forest_svg(&c, None, Digits(1));
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.ends_with("</svg>"));
        assert_eq!(svg.matches(r#"<g class="pair">"#).count(), 3);
        // One interval line and one square per defined pair.
        assert_eq!(svg.matches(r##"stroke="#0072B2""##).count(), 3);
        assert!(svg.contains("m&amp;c − m_a: +37.5 points ["), "{svg}");
        assert!(svg.contains("stroke-dasharray"), "zero is drawn");
        let csv = forest_csv(&c, None, Digits(2)).unwrap();
        let rows = super::super::kappa_map::tests::csv_rows(&csv);
        assert_eq!(rows.len(), 3);
        let t = c.pairs[0].paired.as_ref().unwrap().test.as_ref().unwrap();
        assert_eq!(&rows[0][..4], ["m&c", "m_a", "", "4"]);
        assert_eq!(&rows[0][6], "37.50");
        assert_eq!(rows[0][7], format!("{:.2}", t.interval.low * 100.0));
        assert_eq!(rows[0][10], format!("{:.4}", t.p));
        // Under a judge: that view's pairs.
        let j = forest_csv(&c, Some(1), Digits(1)).unwrap();
        assert!(
            j.lines().nth(1).unwrap().starts_with("m&c,m_a,j2,4,"),
            "{j}"
        );
    }

    #[test]
    fn the_svg_is_well_formed_xml_with_names_escaped() {
        let c = comparison();
        let svg = forest_svg(&c, None, Digits(1));
        super::super::kappa_map::tests::well_formed(&svg);
        assert!(svg.contains("m|b"));
        assert!(!svg.contains("m&c"), "& is escaped");
    }
}
