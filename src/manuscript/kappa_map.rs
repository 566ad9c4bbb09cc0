//! The judge agreement heatmap: judge × judge, each cell Cohen's κ of the
//! two judges' template verdicts on the answers both rated (`kld compare`'s
//! `cohen_kappa`), coloured on a scale from −1 (red) through 0 (white) to 1
//! (blue) with its value written in; and its data as CSV.
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

/// The fill of κ: white at 0, blue towards 1, red towards −1; and whether
/// its text wants to be white.
fn fill(kappa: f64) -> (String, bool) {
    let k = kappa.clamp(-1.0, 1.0);
    let light = 100.0 - 62.0 * k.abs();
    let hue = if k >= 0.0 { 210 } else { 8 };
    (format!("hsl({hue}, 65%, {light:.0}%)"), light < 58.0)
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
    let height = top + k as f64 * ch + 64.0;
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
                            let (bg, white) = fill(*kv);
                            (
                                bg,
                                d.coefficient(*kv),
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
    // Legend: κ from −1 to 1.
    let ly = top + k as f64 * ch + 22.0;
    s.push_str(&format!(
        r#"<text x="10" y="{:.1}">Cohen's κ</text>"#,
        ly + 10.0
    ));
    for (i, v) in [-1.0, -0.5, 0.0, 0.5, 1.0].iter().enumerate() {
        let x = 80.0 + i as f64 * 44.0;
        s.push_str(&format!(
            r##"<rect x="{x}" y="{ly:.1}" width="44" height="12" fill="{}" stroke="#ccc" stroke-width="0.5"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            fill(*v).0,
            x + 22.0,
            ly + 25.0,
            format!("{v}").replace('-', "−")
        ));
    }
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
        let text = format!(">{:.3}</text>", k);
        assert_eq!(svg.matches(&text).count(), 2, "both triangles: {svg}");
        let csv = kappa_csv(&c, Digits(1)).unwrap();
        let rows = csv_rows(&csv);
        assert_eq!(rows.len(), 1);
        assert_eq!(&rows[0][..3], ["j1", "j2", &co.n.to_string()]);
        assert_eq!(rows[0][4], format!("{k:.3}"));
    }

    #[test]
    fn the_scale_runs_from_red_through_white_to_blue() {
        assert_eq!(fill(0.0).0, "hsl(210, 65%, 100%)");
        assert_eq!(fill(1.0), ("hsl(210, 65%, 38%)".into(), true));
        assert_eq!(fill(-1.0).0, "hsl(8, 65%, 38%)");
        assert!(!fill(0.3).1);
    }

    #[test]
    fn a_broken_svg_is_caught() {
        let r = std::panic::catch_unwind(|| well_formed("<svg><g></svg>"));
        assert!(r.is_err());
    }
}
