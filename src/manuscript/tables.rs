//! The grids as tables: CSV (one row per model, every judge's rate and n,
//! then the mean), Markdown (a pipe table, then its caption), LaTeX
//! (booktabs, judges keyed J1… in the caption), each with the same
//! rounded numbers and a caption naming each rate and its n.

use super::{Digits, Grid, GridCell, JudgeMean};
use crate::error::{Error, Result};

/// The caption of `grid`: what the rate is, its n, the mean, the rounding.
pub fn caption(grid: &Grid, digits: Digits) -> String {
    let n = match grid.n_range() {
        Some((a, b)) if a == b => format!("n = {a} results in every cell"),
        Some((a, b)) => format!("n from {a} to {b} results per cell"),
        None => "no cell has a rate".into(),
    };
    format!(
        "{}. Template pass rate (%) of each answering model (rows) under each judge (parsing model, columns): {}{}; each cell gives the rate and its n ({}). Mean of judges: {}, with the number of judges k when a model lacks one.{} Rounded to {} decimal{}.",
        grid.title(),
        super::RATE_DEFINITION,
        crate::numbers::names::TEMPLATE_PASS_RATE
            .karenina
            .map(|k| format!(" (Karenina's {k})"))
            .unwrap_or_default(),
        n,
        super::MEAN_DEFINITION,
        interval_sentence(grid),
        digits.0,
        if digits.0 == 1 { "" } else { "s" },
    )
}

/// What the brackets are, when a grid has intervals.
fn interval_sentence(grid: &Grid) -> String {
    let level = grid
        .cells()
        .find_map(|c| c.interval.as_ref())
        .or_else(|| {
            grid.rows
                .iter()
                .find_map(|r| r.mean.as_ref().and_then(|m| m.interval.as_ref()))
        })
        .map(|i| format!("{}", (i.level * 100.0).round()));
    let Some(level) = level else {
        return String::new();
    };
    let what = |m: &str| {
        if m == super::intervals::WILSON {
            "Wilson interval over the results".to_string()
        } else {
            "t interval on the question-clustered standard error (replicates and judges repeat a question)".to_string()
        }
    };
    let mut s = format!(" In brackets, {level} % intervals:");
    if let Some(m) = grid.cell_interval {
        s.push_str(&format!(" cells, the {}", what(m)));
    }
    if let Some(m) = grid.mean_interval {
        if grid.cell_interval.is_some() {
            s.push(';');
        }
        s.push_str(&format!(
            " means, the {} over every judge's results (given where each judge has the same n)",
            what(m)
        ));
    }
    s.push_str(" (docs/numbers.md, as kld compare gives them).");
    s
}

fn rate_text(c: &GridCell, d: Digits) -> Option<String> {
    let r = c.rate?;
    let mut s = d.fmt(r);
    if let Some(i) = &c.interval {
        s.push_str(&format!(" [{}, {}]", d.fmt(i.lower), d.fmt(i.upper)));
    }
    Some(s)
}

fn mean_text(m: &JudgeMean, judges: usize, d: Digits) -> String {
    let mut s = d.fmt(m.mean);
    if let Some(i) = &m.interval {
        s.push_str(&format!(" [{}, {}]", d.fmt(i.lower), d.fmt(i.upper)));
    }
    if m.judges < judges {
        s.push_str(&format!(" (k = {})", m.judges));
    }
    s
}

/// The grids as one CSV: a row per benchmark column and model; for each
/// judge its rate (rounded) and n; then the judges' mean, their number,
/// SD, min and max. Judges are the union over the grids (empty where a
/// grid lacks one). An interval adds `… lower`/`… upper` columns only
/// when some cell has one.
pub fn csv(grids: &[Grid], digits: Digits) -> Result<String> {
    let mut judges: Vec<&str> = Vec::new();
    for g in grids {
        for j in &g.judges {
            if !judges.contains(&j.as_str()) {
                judges.push(j);
            }
        }
    }
    let intervals = grids.iter().any(|g| {
        g.cells().any(|c| c.interval.is_some())
            || g.rows
                .iter()
                .any(|r| r.mean.as_ref().is_some_and(|m| m.interval.is_some()))
    });
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let mut head: Vec<String> = ["benchmark", "run", "answering model", "mcp servers"]
        .map(String::from)
        .to_vec();
    for j in &judges {
        head.push(format!("{j}: template pass rate (%)"));
        head.push(format!("{j}: n"));
        if intervals {
            head.push(format!("{j}: interval lower (%)"));
            head.push(format!("{j}: interval upper (%)"));
        }
    }
    for h in [
        "mean of judges (%)",
        "judges",
        "sd of judges (points)",
        "min of judges (%)",
        "max of judges (%)",
    ] {
        head.push(h.into());
    }
    if intervals {
        head.push("mean of judges: interval lower (%)".into());
        head.push("mean of judges: interval upper (%)".into());
        head.push("cell interval".into());
        head.push("mean interval".into());
    }
    let err = |e: ::csv::Error| Error::Internal(format!("writing CSV: {e}"));
    w.write_record(&head).map_err(err)?;
    let d = digits;
    let opt = |x: Option<f64>| x.map(|x| d.fmt(x)).unwrap_or_default();
    for g in grids {
        for r in &g.rows {
            let mut rec = vec![
                g.column.benchmark.clone(),
                g.column.run_name.clone().unwrap_or_default(),
                r.model.answering.clone(),
                r.model.mcp.join(", "),
            ];
            for j in &judges {
                let c = g
                    .judges
                    .iter()
                    .position(|x| x == j)
                    .and_then(|i| r.cells[i].as_ref());
                rec.push(opt(c.and_then(|c| c.rate)));
                rec.push(c.map(|c| c.n.to_string()).unwrap_or_default());
                if intervals {
                    let i = c.and_then(|c| c.interval.as_ref());
                    rec.push(opt(i.map(|i| i.lower)));
                    rec.push(opt(i.map(|i| i.upper)));
                }
            }
            let m = r.mean.as_ref();
            rec.push(opt(m.map(|m| m.mean)));
            rec.push(m.map(|m| m.judges.to_string()).unwrap_or_default());
            rec.push(opt(m.and_then(|m| m.sd)));
            rec.push(opt(m.map(|m| m.min)));
            rec.push(opt(m.map(|m| m.max)));
            if intervals {
                let i = m.and_then(|m| m.interval.as_ref());
                rec.push(opt(i.map(|i| i.lower)));
                rec.push(opt(i.map(|i| i.upper)));
                let name = |m: Option<&str>, c: Option<&super::Interval>| match (m, c) {
                    (Some(m), Some(c)) => format!("{} % {m}", (c.level * 100.0).round()),
                    _ => String::new(),
                };
                let any_cell = g.cells().find_map(|c| c.interval.as_ref());
                rec.push(name(g.cell_interval, any_cell));
                rec.push(name(g.mean_interval, i));
            }
            w.write_record(&rec).map_err(err)?;
        }
    }
    let bytes = w
        .into_inner()
        .map_err(|e| Error::Internal(format!("writing CSV: {e}")))?;
    String::from_utf8(bytes).map_err(|e| Error::Internal(format!("writing CSV: {e}")))
}

/// A Markdown table cell: pipes and backslashes escaped, no line breaks.
pub(super) fn md(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

/// The grids as Markdown: per grid a heading, a pipe table (model, each
/// judge's "rate (n=…)", the mean) and its caption.
pub fn markdown(grids: &[Grid], digits: Digits) -> String {
    let mut out = String::new();
    for g in grids {
        out.push_str(&format!("### {}\n\n", md(&g.title())));
        let mut head = vec!["Answering model".to_string()];
        head.extend(g.judges.iter().map(|j| md(j)));
        head.push("Mean of judges".into());
        out.push_str(&format!("| {} |\n", head.join(" | ")));
        let mut align = vec![":---".to_string()];
        align.extend(std::iter::repeat_n("---:".to_string(), g.judges.len() + 1));
        out.push_str(&format!("| {} |\n", align.join(" | ")));
        for r in &g.rows {
            let mut cells = vec![md(&r.label)];
            for c in &r.cells {
                cells.push(match c {
                    Some(c) => match rate_text(c, digits) {
                        Some(t) => format!("{t} (n={})", c.n),
                        None => format!("no rate (n={})", c.n),
                    },
                    None => "–".into(),
                });
            }
            cells.push(
                r.mean
                    .as_ref()
                    .map(|m| mean_text(m, g.judges.len(), digits))
                    .unwrap_or_else(|| "no rate".into()),
            );
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        out.push_str(&format!("\n{}\n\n", md(&caption(g, digits))));
    }
    out
}

/// LaTeX text: the ten special characters escaped.
pub(super) fn tex(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\\' => o.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                o.push('\\');
                o.push(ch);
            }
            '~' => o.push_str("\\textasciitilde{}"),
            '^' => o.push_str("\\textasciicircum{}"),
            '×' => o.push_str("$\\times$"),
            '–' => o.push_str("--"),
            '·' => o.push_str("$\\cdot$"),
            // The statistics' symbols, in math mode (pdflatex's text fonts
            // lack them and stop the build).
            'κ' => o.push_str("$\\kappa$"),
            'α' => o.push_str("$\\alpha$"),
            'Δ' => o.push_str("$\\Delta$"),
            '−' => o.push_str("$-$"),
            '±' => o.push_str("$\\pm$"),
            '≥' => o.push_str("$\\geq$"),
            '≤' => o.push_str("$\\leq$"),
            '…' => o.push_str("\\ldots{}"),
            // OT1's text fonts print < and > as ¡ and ¿.
            '<' => o.push_str("$<$"),
            '|' => o.push_str("\\textbar{}"),
            '>' => o.push_str("$>$"),
            c if c.is_ascii() => o.push(c),
            // pdflatex's default input encoding is UTF-8, but its fonts
            // lack most scripts: keep the text, never break the build.
            c => o.push(c),
        }
    }
    o
}

/// The grids as LaTeX: one `table` per grid with a booktabs `tabular`
/// (`\usepackage{booktabs}`), judges as J1… with the key in the caption,
/// each cell the rate with its n in small type.
pub fn latex(grids: &[Grid], digits: Digits) -> String {
    let mut out = String::from("% kld leaderboard --format latex: needs \\usepackage{booktabs}\n");
    for (gi, g) in grids.iter().enumerate() {
        let keys: Vec<String> = g
            .judges
            .iter()
            .enumerate()
            .map(|(i, j)| format!("J{} = {}", i + 1, tex(j)))
            .collect();
        out.push_str("\\begin{table}[htbp]\n\\centering\n\\small\n");
        out.push_str(&format!(
            "\\caption{{{} Judges: {}.}}\n\\label{{tab:kld-leaderboard-{}}}\n",
            tex(&caption(g, digits)),
            keys.join("; "),
            gi + 1
        ));
        out.push_str(&format!(
            "\\begin{{tabular}}{{l{}r}}\n\\toprule\n",
            "r".repeat(g.judges.len())
        ));
        let mut head = vec!["Answering model".to_string()];
        head.extend((1..=g.judges.len()).map(|i| format!("J{i}")));
        head.push("Mean".into());
        out.push_str(&format!("{} \\\\\n\\midrule\n", head.join(" & ")));
        for r in &g.rows {
            let mut cells = vec![tex(&r.label)];
            for c in &r.cells {
                cells.push(match c {
                    Some(c) => match rate_text(c, digits) {
                        Some(t) => format!("{} {{\\scriptsize ({})}}", tex(&t), c.n),
                        None => format!("-- {{\\scriptsize ({})}}", c.n),
                    },
                    None => "--".into(),
                });
            }
            cells.push(
                r.mean
                    .as_ref()
                    .map(|m| tex(&mean_text(m, g.judges.len(), digits)))
                    .unwrap_or_else(|| "--".into()),
            );
            out.push_str(&format!("{} \\\\\n", cells.join(" & ")));
        }
        out.push_str("\\bottomrule\n\\end{tabular}\n\\end{table}\n\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::judge_grid::tests::data;
    use super::super::{grids, Digits};
    use super::{csv, latex, markdown, tex};
    use crate::board::Filter;

    fn g() -> Vec<super::Grid> {
        grids(&data(), &Filter::default(), 0.95)
    }

    #[test]
    fn the_csv_has_each_judge_s_rounded_rate_and_n_then_the_mean() {
        let text = csv(&g(), Digits(2)).unwrap();
        let mut r = ::csv::Reader::from_reader(text.as_bytes());
        let head: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        assert_eq!(head[4], "lc:j1: template pass rate (%)");
        assert_eq!(head[5], "lc:j1: n");
        let rows: Vec<Vec<String>> = r
            .records()
            .map(|x| x.unwrap().iter().map(String::from).collect())
            .collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(head[6], "lc:j1: interval lower (%)");
        // lc:a: j1 2/3, j2 1/3, mean 50; Wilson intervals as statsmodels'
        // proportion_confint(2, 3, method="wilson") gives them.
        let a = rows.iter().find(|x| x[2] == "lc:a").unwrap();
        assert_eq!(
            &a[4..13],
            ["66.67", "3", "20.77", "93.85", "33.33", "3", "6.15", "79.23", "50.00"]
        );
        let b = rows.iter().find(|x| x[2] == "lc:b_%").unwrap();
        assert_eq!(&b[8..12], ["", "", "", ""]);
        let at = |h: &str| head.iter().position(|x| x == h).unwrap();
        assert_eq!(a[at("cell interval")], "95 % Wilson");
        assert_eq!(a[at("mean interval")], "95 % question-clustered t");
    }

    #[test]
    fn markdown_and_latex_hold_the_same_numbers_escaped() {
        let m = markdown(&g(), Digits(1));
        assert!(
            m.contains(
                "| lc:a | 66.7 [20.8, 93.9] (n=3) | 33.3 [6.1, 79.2] (n=3) | 50.0 [50.0, 50.0] |"
            ),
            "{m}"
        );
        assert!(
            m.contains("| lc:b_% | 100.0 [43.9, 100.0] (n=3) | – | 100.0 [43.9, 100.0] (k = 1) |"),
            "{m}"
        );
        assert!(m.contains("n = 3 results in every cell"));
        assert!(m.contains("In brackets, 95 % intervals: cells, the Wilson interval"));
        let l = latex(&g(), Digits(1));
        assert!(
            l.contains("lc:b\\_\\% & 100.0 [43.9, 100.0] {\\scriptsize (3)} & -- & 100.0 [43.9, 100.0] (k = 1) \\\\"),
            "{l}"
        );
        assert!(l.contains("J1 = lc:j1; J2 = lc:j2"));
        assert!(l.contains("Bench \\#1, run paper \\& co\\_1"));
        assert_eq!(
            tex("κ < 0.001, −1 ≥ α"),
            "$\\kappa$ $<$ 0.001, $-$1 $\\geq$ $\\alpha$"
        );
        assert_eq!(
            tex("a\\b~^"),
            "a\\textbackslash{}b\\textasciitilde{}\\textasciicircum{}"
        );
    }
}
