//! A table already rounded into text cells, with its title and caption,
//! written as Markdown (a pipe table), LaTeX (booktabs) or an HTML table.
//!
//! Why a module of its own: `kld compare`'s tables (pairs, rates,
//! agreement, κ, hardest questions) are many shapes of one thing, and each
//! writer must escape as the leaderboard's tables do (the same `md`, `tex`
//! and `esc` helpers, never a second escaper). The comparison module
//! ([`super::comparison`]) decides the cells; this one only writes them.

use super::svg::esc;
use super::tables::{md, tex};

/// The most rows one LaTeX float holds (at `\\footnotesize` a page holds
/// about 45 with the caption); a longer table goes on in parts.
const LATEX_ROWS: usize = 36;

/// A column's alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Names.
    Left,
    /// Numbers.
    Right,
}

/// One table: a title, a head, rows of text cells and a caption.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Short title (a heading in Markdown and HTML).
    pub title: String,
    /// Column heads.
    pub head: Vec<String>,
    /// Each column's alignment (as many as `head`).
    pub align: Vec<Align>,
    /// Rows, each as many cells as `head`.
    pub rows: Vec<Vec<String>>,
    /// The caption: what each number is, its n, the rounding.
    pub caption: String,
    /// A LaTeX label's last part (`tab:kld-compare-{label}`).
    pub label: String,
    /// Columns of long names that LaTeX writes as keys (`M1`, `J1`, …)
    /// listed in the caption, so the table fits a page: (column, key
    /// prefix, what the names are). Columns with one prefix share its
    /// numbering.
    pub keys: Vec<(usize, &'static str, &'static str)>,
    /// Cells of keyed columns that stay as they are (not a name:
    /// "every answering model").
    pub unkeyed: Vec<String>,
}

impl Layout {
    /// As Markdown: a heading, the pipe table, its caption.
    pub fn markdown(&self) -> String {
        let mut out = format!("### {}\n\n", md(&self.title));
        let head: Vec<String> = self.head.iter().map(|h| md(h)).collect();
        out.push_str(&format!("| {} |\n", head.join(" | ")));
        let align: Vec<&str> = self
            .align
            .iter()
            .map(|a| match a {
                Align::Left => ":---",
                Align::Right => "---:",
            })
            .collect();
        out.push_str(&format!("| {} |\n", align.join(" | ")));
        for r in &self.rows {
            let cells: Vec<String> = r.iter().map(|c| md(c)).collect();
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        out.push_str(&format!("\n{}\n\n", md(&self.caption)));
        out
    }

    /// As a LaTeX `table` float with a booktabs `tabular`, the caption on
    /// top (`\usepackage{booktabs}`).
    pub fn latex(&self) -> String {
        let spec: String = self
            .align
            .iter()
            .map(|a| match a {
                Align::Left => 'l',
                Align::Right => 'r',
            })
            .collect();
        // Names as keys, numbered by first appearance per prefix.
        let mut keyed: Vec<(&str, &str, Vec<&str>)> = Vec::new();
        for &(_, prefix, what) in &self.keys {
            if !keyed.iter().any(|k| k.0 == prefix) {
                keyed.push((prefix, what, Vec::new()));
            }
        }
        let mut rows: Vec<Vec<String>> = Vec::new();
        for r in &self.rows {
            let mut out = Vec::new();
            for (ci, c) in r.iter().enumerate() {
                let key = self.keys.iter().find(|k| k.0 == ci);
                match key {
                    Some(&(_, prefix, _)) if !self.unkeyed.contains(c) => {
                        let names = &mut keyed
                            .iter_mut()
                            .find(|k| k.0 == prefix)
                            .expect("every prefix listed")
                            .2;
                        let i = match names.iter().position(|n| n == c) {
                            Some(i) => i,
                            None => {
                                names.push(c);
                                names.len() - 1
                            }
                        };
                        out.push(format!("{prefix}{}", i + 1));
                    }
                    _ => out.push(tex(c)),
                }
            }
            rows.push(out);
        }
        let mut caption = tex(&self.caption);
        for (prefix, what, names) in &keyed {
            let list: Vec<String> = names
                .iter()
                .enumerate()
                .map(|(i, n)| format!("{prefix}{} = {}", i + 1, tex(n)))
                .collect();
            if !list.is_empty() {
                caption.push_str(&format!(" {what}: {}.", list.join("; ")));
            }
        }
        // A head wider than every cell under it stacks on two lines, so
        // the heads do not make a table wider than a page (the agreement
        // table was 7 pt too wide at 10 pt article width).
        let head: Vec<String> = self
            .head
            .iter()
            .enumerate()
            .map(|(ci, h)| {
                // As shown: a keyed column's keys, else the text unescaped.
                let shown = if self.keys.iter().any(|k| k.0 == ci) {
                    &rows
                } else {
                    &self.rows
                };
                let widest = shown
                    .iter()
                    .filter_map(|r| r.get(ci))
                    .map(|c| c.chars().count())
                    .max()
                    .unwrap_or(0);
                stacked(h, self.align[ci], widest)
            })
            .collect();
        let mut out = String::new();
        let parts = rows.len().div_ceil(LATEX_ROWS).max(1);
        let per = rows.len().div_ceil(parts).max(1);
        let chunks: Vec<&[Vec<String>]> = if rows.is_empty() {
            vec![&rows[..]]
        } else {
            rows.chunks(per).collect()
        };
        for (pi, chunk) in chunks.into_iter().enumerate() {
            out.push_str("\\begin{table}[htbp]\n\\centering\n\\footnotesize\n\\setlength{\\tabcolsep}{3pt}\n");
            if pi == 0 {
                out.push_str(&format!(
                    "\\caption{{{}. {}}}\n\\label{{tab:kld-compare-{}}}\n",
                    tex(&self.title),
                    caption,
                    tex(&self.label)
                ));
            } else {
                out.push_str(&format!(
                    "\\caption{{{} (continued, part {} of {parts}).}}\n",
                    tex(&self.title),
                    pi + 1
                ));
            }
            out.push_str(&format!("\\begin{{tabular}}{{{spec}}}\n\\toprule\n"));
            out.push_str(&format!("{} \\\\\n\\midrule\n", head.join(" & ")));
            for r in chunk {
                out.push_str(&format!("{} \\\\\n", r.join(" & ")));
            }
            out.push_str("\\bottomrule\n\\end{tabular}\n\\end{table}\n\n");
        }
        out
    }

    /// As JSON for a page to lay out: `title`, `head`, `align` (`left` or
    /// `right` per column), `rows` (the rounded text cells), `caption` and
    /// `label`.
    pub fn to_json(&self) -> serde_json::Value {
        let align: Vec<&str> = self
            .align
            .iter()
            .map(|a| match a {
                Align::Left => "left",
                Align::Right => "right",
            })
            .collect();
        serde_json::json!({
            "title": self.title,
            "head": self.head,
            "align": align,
            "rows": self.rows,
            "caption": self.caption,
            "label": self.label,
        })
    }

    /// As an HTML section: a heading, the table, its caption (numbered
    /// `number`).
    pub fn html(&self, number: usize) -> String {
        // The table scrolls in its box, never the page (700 px screens).
        let mut s = format!(
            "<h2>{}</h2>\n<div class=\"wide\"><table>\n<thead><tr>",
            esc(&self.title)
        );
        for (h, a) in self.head.iter().zip(&self.align) {
            let side = match a {
                Align::Left => "left",
                Align::Right => "right",
            };
            s.push_str(&format!("<th style=\"text-align:{side}\">{}</th>", esc(h)));
        }
        s.push_str("</tr></thead>\n<tbody>\n");
        for r in &self.rows {
            s.push_str("<tr>");
            for (c, a) in r.iter().zip(&self.align) {
                match a {
                    Align::Left => s.push_str(&format!(
                        "<th class=\"model\" title=\"{}\">{}</th>",
                        esc(c),
                        esc(c)
                    )),
                    Align::Right => s.push_str(&format!("<td class=\"num\">{}</td>", esc(c))),
                }
            }
            s.push_str("</tr>\n");
        }
        s.push_str(&format!(
            "</tbody></table></div>\n<p class=\"caption\">Table {number}. {}</p>\n",
            esc(&self.caption)
        ));
        s
    }
}

/// A LaTeX head: `h` escaped, on two lines (a nested `tabular`, split at
/// the space nearest its middle, aligned as its column) when it is wider
/// than `widest` characters, the column's widest cell.
fn stacked(h: &str, align: Align, widest: usize) -> String {
    let chars: Vec<char> = h.chars().collect();
    let middle = chars.len() / 2;
    let split = chars
        .iter()
        .enumerate()
        .filter(|(_, c)| **c == ' ')
        .map(|(i, _)| i)
        .min_by_key(|i| i.abs_diff(middle));
    match split {
        Some(at) if chars.len() > widest => {
            let first: String = chars[..at].iter().collect();
            let rest: String = chars[at + 1..].iter().collect();
            let side = match align {
                Align::Left => 'l',
                Align::Right => 'r',
            };
            format!(
                "\\begin{{tabular}}[b]{{@{{}}{side}@{{}}}}{}\\\\{}\\end{{tabular}}",
                tex(&first),
                tex(&rest)
            )
        }
        _ => tex(h),
    }
}

/// Every layout as Markdown.
pub fn markdown_all(tables: &[Layout]) -> String {
    tables.iter().map(Layout::markdown).collect()
}

/// Every layout as LaTeX, after a comment naming the package it needs.
pub fn latex_all(tables: &[Layout]) -> String {
    let mut s = String::from("% kld compare --format latex: needs \\usepackage{booktabs}\n");
    for t in tables {
        s.push_str(&t.latex());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t() -> Layout {
        Layout {
            title: "Pairs & co_1".into(),
            head: vec!["Model | A".into(), "Δ (points)".into()],
            align: vec![Align::Left, Align::Right],
            rows: vec![vec!["a_%<b>".into(), "+5.9 [3.6, 8.2]".into()]],
            caption: "What 50 % means.".into(),
            label: "pairs".into(),
            keys: vec![],
            unkeyed: vec![],
        }
    }

    #[test]
    fn each_writer_escapes_with_the_grid_s_escapers() {
        let m = t().markdown();
        assert!(
            m.contains("| Model \\| A | Δ (points) |\n| :--- | ---: |\n"),
            "{m}"
        );
        assert!(m.contains("| a_%<b> | +5.9 [3.6, 8.2] |"), "{m}");
        let l = t().latex();
        assert!(l.contains("\\begin{tabular}{lr}\n\\toprule\n"), "{l}");
        // Heads wider than their columns' cells stack on two lines.
        assert!(
            l.contains(
                "\\begin{tabular}[b]{@{}l@{}}Model\\\\\\textbar{} A\\end{tabular} & $\\Delta$ (points) \\\\\n"
            ),
            "{l}"
        );
        assert_eq!(stacked("Rate (%)", Align::Right, 9), "Rate (\\%)");
        assert_eq!(
            stacked("Answers of", Align::Left, 2),
            "\\begin{tabular}[b]{@{}l@{}}Answers\\\\of\\end{tabular}"
        );
        assert_eq!(stacked("Kappa", Align::Right, 1), "Kappa");
        assert!(
            l.contains("a\\_\\%$<$b$>$ & +5.9 [3.6, 8.2] \\\\\n\\bottomrule"),
            "{l}"
        );
        assert!(
            l.contains("\\caption{Pairs \\& co\\_1. What 50 \\% means.}"),
            "{l}"
        );
        let mut k = t();
        k.rows.push(vec!["every model".into(), "1".into()]);
        k.rows.push(vec!["a_%<b>".into(), "2".into()]);
        k.keys = vec![(0, "M", "Answering models")];
        k.unkeyed = vec!["every model".into()];
        let l = k.latex();
        assert!(
            l.contains("M1 & +5.9 [3.6, 8.2] \\\\\nevery model & 1 \\\\\nM1 & 2 \\\\\n"),
            "{l}"
        );
        assert!(l.contains("Answering models: M1 = a\\_\\%$<$b$>$.}"), "{l}");
        // A long table goes on in parts of at most LATEX_ROWS rows.
        let mut long = t();
        long.rows = (0..50)
            .map(|i| vec![format!("m{i}"), i.to_string()])
            .collect();
        let l = long.latex();
        // (Two parts, each with both heads stacked: the cells are short.)
        assert_eq!(l.matches("\\begin{tabular}{").count(), 2);
        assert_eq!(l.matches("\\begin{tabular}[b]").count(), 4);
        assert_eq!(l.matches(" \\\\\n").count(), 50 + 2, "rows and heads");
        assert!(l.contains("(continued, part 2 of 2)"));
        assert_eq!(l.matches("\\label{").count(), 1);
        let j = t().to_json();
        assert_eq!(j["align"], serde_json::json!(["left", "right"]));
        assert_eq!(j["rows"][0][1], "+5.9 [3.6, 8.2]");
        assert_eq!(j["caption"], "What 50 % means.");
        let h = t().html(3);
        assert!(h.contains("<th class=\"model\" title=\"a_%&lt;b&gt;\">a_%&lt;b&gt;</th>"));
        assert!(h.contains("Table 3. What 50 % means."));
    }
}
