//! The judge agreement heatmap: judge × judge, each cell Cohen's κ of the
//! two judges' template verdicts on the answers both rated (`kld compare`'s
//! `cohen_kappa`), coloured on a scale stretched over the κs shown (a
//! run's κs of 0.0–0.3 on a fixed −1…1 scale all looked alike): blue
//! from light to dark over their range when every κ is at least 0 (red
//! when at most 0), and diverging, red through white at 0 to blue, over
//! ±the largest |κ| when they cross 0; the legend says the range. Each
//! cell has its value written in; its data as CSV.
//!
//! Why a module of its own: it draws the statistics layer's κ
//! ([`crate::stats::report::Comparison::cohen`]) and nothing else, so its
//! CSV holds the numbers `kld compare --format csv --table kappa` gives,
//! rounded. Written as SVG by kld, as the leaderboard's figures are.

use super::svg::{csv_out, cut, esc};
use super::Digits;
use crate::error::Result;
use crate::stats::agreement::Cohen;
use crate::stats::report::Comparison;
use crate::stats::Stat;

/// The colour scale of one heatmap, stretched over the κs it shows.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Scale {
    /// The scale's lowest κ.
    lo: f64,
    /// Its highest.
    hi: f64,
    /// Red through white (0) to blue, over −hi…hi.
    diverging: bool,
}

impl Scale {
    /// The scale of `kappas` (the defined ones): diverging over ±the
    /// largest |κ| when they cross 0, else over their range; −1…1 when
    /// there is none.
    fn of(kappas: &[f64]) -> Scale {
        let lo = kappas.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = kappas.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !(lo.is_finite() && hi.is_finite()) {
            return Scale {
                lo: -1.0,
                hi: 1.0,
                diverging: true,
            };
        }
        if lo < 0.0 && hi > 0.0 {
            let m = lo.abs().max(hi);
            return Scale {
                lo: -m,
                hi: m,
                diverging: true,
            };
        }
        Scale {
            lo,
            hi,
            diverging: false,
        }
    }

    /// The fill of κ, and whether its text wants to be white.
    fn fill(&self, kappa: f64) -> (String, bool) {
        let k = kappa.clamp(self.lo, self.hi);
        let (hue, light) = if self.diverging {
            let t = k / self.hi;
            (if t >= 0.0 { 210 } else { 8 }, 100.0 - 62.0 * t.abs())
        } else {
            // Light at the end nearest 0, dark at the far end.
            let span = self.hi - self.lo;
            let t = if span > 0.0 {
                (k - self.lo) / span
            } else {
                0.5
            };
            if self.hi > 0.0 {
                (210, 90.0 - 52.0 * t)
            } else {
                (8, 90.0 - 52.0 * (1.0 - t))
            }
        };
        (format!("hsl({hue}, 65%, {light:.0}%)"), light < 58.0)
    }

    /// The legend's five stops, lowest first.
    fn stops(&self) -> [f64; 5] {
        std::array::from_fn(|i| self.lo + (self.hi - self.lo) * i as f64 / 4.0)
    }
}

/// κ as the figure writes it: rounded as a coefficient, a minus sign
/// (U+2212) for a negative, and no sign on a κ that rounds to 0.
fn typeset(d: Digits, v: f64) -> String {
    let t = d.coefficient(v);
    match t.strip_prefix('-') {
        Some(x) if x.chars().any(|c| c.is_ascii_digit() && c != '0') => format!("−{x}"),
        Some(x) => x.to_string(),
        None => t,
    }
}

/// κ of judges `i` and `j` (either order).
fn pair(c: &Comparison, i: u32, j: u32) -> Option<&Stat<Cohen>> {
    let (a, b) = (i.min(j), i.max(j));
    c.cohen
        .iter()
        .find(|(x, y, _)| *x == a && *y == b)
        .map(|(_, _, k)| k)
}

/// The heatmap (see the module docs).
pub fn kappa_svg(c: &Comparison, d: Digits) -> String {
    let judges = &c.obs.judges;
    let k = judges.len();
    let cw = 64.0;
    let ch = 30.0;
    let longest = judges.iter().map(|j| j.chars().count()).max().unwrap_or(8);
    let left = (longest.min(40) as f64 * 6.2 + 16.0).max(80.0);
    let top = 60.0 + longest.min(28) as f64 * 4.6;
    // Column heads run up and right at 45°: room for the last one.
    let width = (left + k as f64 * cw + 24.0 + longest.min(28) as f64 * 4.6).max(520.0);
    let height = top + k as f64 * ch + 78.0;
    let defined: Vec<f64> = c
        .cohen
        .iter()
        .filter_map(|(_, _, k)| k.as_ref().ok()?.kappa.as_ref().ok().copied())
        .collect();
    let scale = Scale::of(&defined);
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="11" role="img" aria-label="Judge agreement: Cohen's kappa of each pair of judges"><rect width="{width}" height="{height}" fill="#fff"/><text x="10" y="18" font-size="13" font-weight="bold">Judge agreement: Cohen's κ</text><text x="10" y="36" fill="#333">{}</text>"##,
        esc("Each pair of judges (parsing models) on the template verdicts of the answers both rated")
    );
    for (i, j) in judges.iter().enumerate() {
        let x = left + i as f64 * cw + cw / 2.0;
        s.push_str(&format!(
            r#"<text transform="translate({x:.1},{:.1}) rotate(-45)"><title>{}</title>{}</text>"#,
            top - 6.0,
            esc(j),
            esc(&cut(j, 28))
        ));
        let y = top + i as f64 * ch + ch / 2.0 + 4.0;
        s.push_str(&format!(
            r#"<text x="{:.1}" y="{y:.1}" text-anchor="end"><title>{}</title>{}</text>"#,
            left - 6.0,
            esc(j),
            esc(&cut(j, 40))
        ));
    }
    for i in 0..k as u32 {
        for j in 0..k as u32 {
            let (x, y) = (left + j as f64 * cw, top + i as f64 * ch);
            let names = format!("{} × {}", judges[i as usize], judges[j as usize]);
            let (bg, text, white, tip) = if i == j {
                (
                    "#f4f4f4".to_string(),
                    "–".to_string(),
                    false,
                    format!("{}: the same judge", judges[i as usize]),
                )
            } else {
                match pair(c, i, j) {
                    Some(Ok(co)) => match &co.kappa {
                        Ok(kv) => {
                            let (bg, white) = scale.fill(*kv);
                            (
                                bg,
                                typeset(d, *kv),
                                white,
                                format!(
                                    "{names}: Cohen's κ {}, agreement {} % over n = {} answers",
                                    d.coefficient(*kv),
                                    d.percent(co.agreement),
                                    co.n
                                ),
                            )
                        }
                        Err(e) => (
                            "#dddddd".into(),
                            "n.d.".into(),
                            false,
                            format!(
                                "{names}: κ not defined ({}); agreement {} % over n = {} answers",
                                e.0,
                                d.percent(co.agreement),
                                co.n
                            ),
                        ),
                    },
                    Some(Err(e)) => (
                        "#dddddd".into(),
                        "n.d.".into(),
                        false,
                        format!("{names}: not defined ({})", e.0),
                    ),
                    None => ("#dddddd".into(), "n.d.".into(), false, names.clone()),
                }
            };
            s.push_str(&format!(
                r##"<g class="cell"><title>{}</title><rect x="{x:.1}" y="{y:.1}" width="{cw}" height="{ch}" fill="{bg}" stroke="#fff"/><text x="{:.1}" y="{:.1}" text-anchor="middle" fill="{}">{}</text></g>"##,
                esc(&tip),
                x + cw / 2.0,
                y + ch / 2.0 + 4.0,
                if white { "#fff" } else { "#111" },
                esc(&text)
            ));
        }
    }
    // Legend: the scale's range, five stops.
    let ly = top + k as f64 * ch + 22.0;
    s.push_str(&format!(
        r#"<text x="10" y="{:.1}">Cohen's κ</text>"#,
        ly + 10.0
    ));
    let minus = |v: f64| typeset(d, v);
    for (i, v) in scale.stops().iter().enumerate() {
        let x = 80.0 + i as f64 * 52.0;
        s.push_str(&format!(
            r##"<rect x="{x}" y="{ly:.1}" width="52" height="12" fill="{}" stroke="#ccc" stroke-width="0.5"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            scale.fill(*v).0,
            x + 26.0,
            ly + 25.0,
            esc(&minus(*v))
        ));
    }
    let note = match (defined.is_empty(), scale.diverging) {
        (true, _) => "no κ is defined".to_string(),
        (false, true) => format!(
            "the colours span ±{} (the largest |κ| here): red below 0, white at 0, blue above",
            minus(scale.hi)
        ),
        (false, false) => format!(
            "the colours span this figure's κs, {} to {} (not −1 to 1)",
            minus(scale.lo),
            minus(scale.hi)
        ),
    };
    s.push_str(&format!(
        r##"<text class="scale" x="10" y="{:.1}" fill="#333">{}</text>"##,
        ly + 44.0,
        esc(&note)
    ));
    s.push_str("</svg>");
    s
}

/// The heatmap's data: a row per pair of judges (as `kld compare
/// --format csv --table kappa` orders them), agreement in percent rounded
/// to `d`, κ to two digits more.
pub fn kappa_csv(c: &Comparison, d: Digits) -> Result<String> {
    let mut rows = vec![[
        "judge_a",
        "judge_b",
        "n",
        "agreement (%)",
        "kappa",
        "not_defined",
    ]
    .map(String::from)
    .to_vec()];
    for (i, j, co) in &c.cohen {
        let mut r = vec![
            c.obs.judges[*i as usize].clone(),
            c.obs.judges[*j as usize].clone(),
        ];
        match co {
            Ok(co) => {
                r.push(co.n.to_string());
                r.push(d.percent(co.agreement));
                match &co.kappa {
                    Ok(k) => {
                        r.push(d.coefficient(*k));
                        r.push(String::new());
                    }
                    Err(e) => {
                        r.push(String::new());
                        r.push(format!("kappa: {}", e.0));
                    }
                }
            }
            Err(e) => {
                r.extend([String::new(), String::new(), String::new()]);
                r.push(format!("n: {}", e.0));
            }
        }
        rows.push(r);
    }
    csv_out(rows)
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::comparison::tests::comparison;
    use super::*;

    /// The records of a CSV text (its header left out), as strings.
    pub(crate) fn csv_rows(csv: &str) -> Vec<Vec<String>> {
        ::csv::Reader::from_reader(csv.as_bytes())
            .records()
            .map(|x| x.unwrap().iter().map(String::from).collect())
            .collect()
    }

    /// Asserts `svg` is well-formed XML (quick-xml reads it to the end,
    /// every element closed) with one root `svg` element.
    pub(crate) fn well_formed(svg: &str) {
        let mut r = quick_xml::Reader::from_str(svg);
        let mut depth = 0i64;
        let mut roots = 0;
        loop {
            match r.read_event() {
                Ok(quick_xml::events::Event::Start(e)) => {
                    if depth == 0 {
                        roots += 1;
                        assert_eq!(e.name().as_ref(), b"svg");
                    }
                    depth += 1;
                }
                Ok(quick_xml::events::Event::End(_)) => depth -= 1,
                Ok(quick_xml::events::Event::Eof) => break,
                Ok(_) => {}
                Err(e) => panic!("not well-formed at {}: {e}", r.buffer_position()),
            }
            assert!(depth >= 0);
        }
        assert_eq!((depth, roots), (0, 1));
    }

    #[test]
    fn a_cell_per_judge_pair_and_the_csv_holds_the_kappas() {
        let c = comparison();
        let svg = kappa_svg(&c, Digits(1));
        well_formed(&svg);
        // 2 judges: 2 × 2 cells, the diagonal "–".
        assert_eq!(svg.matches(r#"<g class="cell">"#).count(), 4);
        let co = c.cohen[0].2.as_ref().unwrap();
        let k = *co.kappa.as_ref().unwrap();
        let text = format!(">{:.3}</text></g>", k);
        assert_eq!(svg.matches(&text).count(), 2, "both triangles: {svg}");
        let csv = kappa_csv(&c, Digits(1)).unwrap();
        let rows = csv_rows(&csv);
        assert_eq!(rows.len(), 1);
        assert_eq!(&rows[0][..3], ["j1", "j2", &co.n.to_string()]);
        assert_eq!(rows[0][4], format!("{k:.3}"));
    }

    #[test]
    fn the_scale_stretches_over_the_data_and_diverges_when_they_cross_0() {
        // κs of 0.0–0.3 (a real run's): blue, light to dark over 0.05–0.3.
        let s = Scale::of(&[0.05, 0.3, 0.12]);
        assert!(!s.diverging);
        assert_eq!((s.lo, s.hi), (0.05, 0.3));
        assert_eq!(s.fill(0.05), ("hsl(210, 65%, 90%)".into(), false));
        assert_eq!(s.fill(0.3), ("hsl(210, 65%, 38%)".into(), true));
        assert_eq!(s.fill(0.175).0, "hsl(210, 65%, 64%)");
        assert_eq!(s.stops(), [0.05, 0.1125, 0.175, 0.2375, 0.3]);
        // Crossing 0: red through white to blue, over ±the largest |κ|.
        let d = Scale::of(&[-0.1, 0.4]);
        assert!(d.diverging);
        assert_eq!((d.lo, d.hi), (-0.4, 0.4));
        assert_eq!(d.fill(0.0).0, "hsl(210, 65%, 100%)");
        assert_eq!(d.fill(0.4), ("hsl(210, 65%, 38%)".into(), true));
        assert_eq!(d.fill(-0.4).0, "hsl(8, 65%, 38%)");
        assert_eq!(d.fill(-0.1).0, "hsl(8, 65%, 84%)");
        // Every κ at most 0: red, darkest at the lowest.
        let n = Scale::of(&[-0.3, -0.1]);
        assert_eq!(n.fill(-0.3).0, "hsl(8, 65%, 38%)");
        assert_eq!(n.fill(-0.1).0, "hsl(8, 65%, 90%)");
        // One κ: the middle of the scale; none: −1…1.
        assert_eq!(Scale::of(&[0.2]).fill(0.2).0, "hsl(210, 65%, 64%)");
        assert_eq!(
            Scale::of(&[]),
            Scale {
                lo: -1.0,
                hi: 1.0,
                diverging: true
            }
        );
    }

    #[test]
    fn a_negative_kappa_takes_a_minus_sign_and_a_rounded_0_none() {
        assert_eq!(typeset(Digits(1), -0.0093), "−0.009");
        assert_eq!(typeset(Digits(1), -0.0001), "0.000");
        assert_eq!(typeset(Digits(1), 0.215), "0.215");
    }

    #[test]
    fn the_legend_says_the_range_the_colours_span() {
        let c = comparison();
        let k = *c.cohen[0].2.as_ref().unwrap().kappa.as_ref().unwrap();
        let svg = kappa_svg(&c, Digits(1));
        let v = format!("{:.3}", k.abs());
        assert!(svg.contains(&v), "{svg}");
        assert!(
            svg.contains("the colours span this figure") || svg.contains("the colours span ±"),
            "{svg}"
        );
        // The one pair's κ is both ends of the scale: its cells the middle.
        assert!(
            svg.contains("hsl(210, 65%, 64%)") || svg.contains("hsl(8, 65%, 64%)"),
            "{svg}"
        );
    }

    #[test]
    fn a_broken_svg_is_caught() {
        let r = std::panic::catch_unwind(|| well_formed("<svg><g></svg>"));
        assert!(r.is_err());
    }
}
