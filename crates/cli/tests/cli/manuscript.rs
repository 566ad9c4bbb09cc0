//! `kld leaderboard` and `kld figure` (issue 47): the leaderboard as a
//! model × judge table for a manuscript (CSV, Markdown, LaTeX, an HTML
//! report, JSON) and the figures (SVG, their data as CSV), on
//! `tests/data/board/` (written by Karenina's own pipeline): every rate is
//! `kld info`'s `template_pass_by_combo` for its combo, rounded as asked,
//! with its n. The interop tier also parses the Markdown with
//! markdown-it-py, compiles the LaTeX with pdflatex and opens the HTML
//! report offline in Chromium.

use super::{kld, stdout_of};
use crate::common::close;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("KLD_SOURCE_ROOT"))
        .join("tests/data/board")
        .join(name)
}

/// `kld info`'s template_pass_by_combo of a run: combo -> (pass_pct, total).
pub(crate) fn info_rates(run: &Path) -> BTreeMap<String, (f64, usize)> {
    let info: Value = serde_json::from_str(&stdout_of(
        kld().arg("info").arg(run).args(["--format", "json"]),
    ))
    .unwrap();
    info["summary"]["template_pass_by_combo"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                (
                    v["pass_pct"].as_f64().unwrap(),
                    v["total"].as_u64().unwrap() as usize,
                ),
            )
        })
        .collect()
}

fn leaderboard(files: &[PathBuf], args: &[&str]) -> String {
    stdout_of(kld().arg("leaderboard").args(files).args(args))
}

fn run1() -> Vec<PathBuf> {
    vec![data("board.jsonld"), data("board-run-1.json")]
}

/// The grids' JSON: (answering model, judge) -> (combo, rate, n).
fn grid_cells(grids: &Value) -> Vec<(String, String, String, Option<f64>, usize)> {
    let mut out = Vec::new();
    for g in grids.as_array().unwrap() {
        let judges = g["judges"].as_array().unwrap();
        for r in g["rows"].as_array().unwrap() {
            for (j, c) in judges.iter().zip(r["cells"].as_array().unwrap()) {
                if c.is_null() {
                    continue;
                }
                out.push((
                    r["label"].as_str().unwrap().to_string(),
                    j.as_str().unwrap().to_string(),
                    c["combo"].as_str().unwrap().to_string(),
                    c["rate"].as_f64(),
                    c["n"].as_u64().unwrap() as usize,
                ));
            }
        }
    }
    out
}

#[test]
fn every_grid_cell_is_kld_info_s_template_pass_rate_with_its_n() {
    let info = info_rates(&data("board-run-1.json"));
    let grids: Value = serde_json::from_str(&leaderboard(&run1(), &["-f", "json"])).unwrap();
    assert_eq!(grids.as_array().unwrap().len(), 1);
    assert_eq!(grids[0]["rate"], "template pass rate");
    let cells = grid_cells(&grids);
    assert_eq!(cells.len(), info.len(), "one cell per combo");
    for (_, _, combo, rate, n) in &cells {
        let (pct, total) = info[combo];
        assert!(close(rate.unwrap(), pct), "{combo}");
        assert_eq!(*n, total, "{combo}");
    }
    // Two runs: two grids, never one pooled.
    let both: Value = serde_json::from_str(&leaderboard(
        &[
            data("board.jsonld"),
            data("board-run-1.json"),
            data("board-run-2.json"),
        ],
        &["-f", "json"],
    ))
    .unwrap();
    assert_eq!(both.as_array().unwrap().len(), 2);
}

#[test]
fn the_csv_markdown_and_latex_hold_the_same_rounded_rates_and_n() {
    let info = info_rates(&data("board-run-1.json"));
    let grids: Value = serde_json::from_str(&leaderboard(&run1(), &["-f", "json"])).unwrap();
    let cells = grid_cells(&grids);
    for digits in [0usize, 1, 3] {
        let d = digits.to_string();
        let csv = leaderboard(&run1(), &["-f", "csv", "--digits", &d]);
        let mut r = csv::Reader::from_reader(csv.as_bytes());
        let head: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        let rows: Vec<Vec<String>> = r
            .records()
            .map(|x| x.unwrap().iter().map(String::from).collect())
            .collect();
        let md = leaderboard(&run1(), &["-f", "markdown", "--digits", &d]);
        let tex = leaderboard(&run1(), &["-f", "latex", "--digits", &d]);
        for (model, judge, combo, _, n) in &cells {
            let want = format!("{:.*}", digits, info[combo].0);
            let at = |name: String| head.iter().position(|h| *h == name).unwrap();
            let row = rows
                .iter()
                .find(|x| combo.starts_with(&format!("{} | ", x[2])))
                .unwrap();
            assert_eq!(row[at(format!("{judge}: template pass rate (%)"))], want);
            assert_eq!(row[at(format!("{judge}: n"))], n.to_string());
            let lo = &row[at(format!("{judge}: interval lower (%)"))];
            let hi = &row[at(format!("{judge}: interval upper (%)"))];
            let want = format!("{want} [{lo}, {hi}]");
            // Markdown: the model's line holds "rate [lo, hi] (n=N)" in the
            // judge's column.
            let line = md
                .lines()
                .find(|l| l.starts_with(&format!("| {} |", model.replace('|', "\\|"))))
                .unwrap();
            let heads: Vec<&str> = md
                .lines()
                .find(|l| l.starts_with("| Answering model"))
                .unwrap()
                .split(" | ")
                .collect();
            let col = heads
                .iter()
                .position(|h| h.trim_end_matches(" |") == judge)
                .unwrap();
            assert_eq!(
                line.split(" | ").nth(col).unwrap(),
                format!("{want} (n={n})")
            );
            assert!(
                tex.contains(&format!("{want} {{\\scriptsize ({n})}}")),
                "{combo}"
            );
        }
        // The caption names the rate, its definition, its n and the
        // interval (replicates repeat each question: the clustered one).
        for text in [md.clone(), tex.replace("\\_", "_").replace("\\%", "%")] {
            assert!(text.contains("Template pass rate (%)"));
            assert!(text.contains("t interval on the question-clustered standard error"));
            assert!(text.contains("template_pass_by_combo"));
            assert!(text.contains(&format!("Rounded to {digits} decimal")));
        }
    }
}

/// Each cell's interval is `kld compare`'s for its combo and each mean's
/// `kld compare`'s for the model over every judge: the question-clustered t
/// interval (the fixture's three replicates repeat every question), and a
/// run without replicates gets the Wilson interval.
#[test]
fn every_interval_is_kld_compare_s_for_the_same_rows() {
    let grids: Value = serde_json::from_str(&leaderboard(&run1(), &["-f", "json"])).unwrap();
    let cmp: Value = serde_json::from_str(&stdout_of(
        kld()
            .arg("compare")
            .arg(data("board-run-1.json"))
            .args(["--format", "json"]),
    ))
    .unwrap();
    let find = |key: &str, model: &str, judge: Option<&str>| -> Value {
        cmp[key]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["model"] == model && r["judge"].as_str() == judge)
            .unwrap_or_else(|| panic!("{key} {model} {judge:?}"))
            .clone()
    };
    // The grid prints percentages; statsmodels' bounds are fractions.
    let same_pct = |a: &Value, b: &Value| close(a.as_f64().unwrap(), b.as_f64().unwrap() * 100.0);
    let (mut cells, mut means) = (0, 0);
    for g in grids.as_array().unwrap() {
        assert_eq!(g["cell_interval"], "question-clustered t");
        assert_eq!(g["mean_interval"], "question-clustered t");
        let judges = g["judges"].as_array().unwrap();
        for r in g["rows"].as_array().unwrap() {
            let model = r["model"]["answering"].as_str().unwrap();
            for (j, c) in judges.iter().zip(r["cells"].as_array().unwrap()) {
                let Some(i) = c.get("interval").filter(|i| !i.is_null()) else {
                    continue;
                };
                let want = find("combos", model, j.as_str());
                assert!(
                    same_pct(&i["lower"], &want["t_low"]),
                    "{model} {j}: {i} {want}"
                );
                assert!(
                    same_pct(&i["upper"], &want["t_high"]),
                    "{model} {j}: {i} {want}"
                );
                assert_eq!(i["level"], 0.95);
                cells += 1;
            }
            if let Some(i) = r["mean"].get("interval").filter(|i| !i.is_null()) {
                let want = find("rates", model, None);
                assert!(same_pct(&i["lower"], &want["t_low"]), "{model}: {i} {want}");
                assert!(
                    same_pct(&i["upper"], &want["t_high"]),
                    "{model}: {i} {want}"
                );
                means += 1;
            } else if r["mean"]["judges"].as_u64() > Some(1) {
                // No interval is the mean's own where the judges' n differ
                // (the rows together would weight one judge more).
                let ns: std::collections::BTreeSet<u64> = r["cells"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(|c| c["n"].as_u64())
                    .collect();
                assert!(ns.len() > 1, "{model}: {ns:?}");
            }
        }
    }
    assert!(cells >= 4 && means >= 1, "{cells} cells, {means} means");
    // One replicate: one row per question in a cell, the Wilson interval
    // (`kld compare`'s wilson_low / wilson_high of the combo).
    let dir = tempfile::tempdir().unwrap();
    let mut one: Value =
        serde_json::from_slice(&std::fs::read(data("board-run-1.json")).unwrap()).unwrap();
    one["results"]
        .as_array_mut()
        .unwrap()
        .retain(|r| r["metadata"]["replicate"] == 1);
    let file = dir.path().join("one-replicate.json");
    std::fs::write(&file, serde_json::to_vec(&one).unwrap()).unwrap();
    let g: Value = serde_json::from_str(&leaderboard(
        &[data("board.jsonld"), file.clone()],
        &["-f", "json"],
    ))
    .unwrap();
    let cmp: Value = serde_json::from_str(&stdout_of(
        kld().arg("compare").arg(&file).args(["--format", "json"]),
    ))
    .unwrap();
    assert_eq!(g[0]["cell_interval"], "Wilson");
    let mut wilson = 0;
    for r in g[0]["rows"].as_array().unwrap() {
        let model = r["model"]["answering"].as_str().unwrap();
        for (j, c) in g[0]["judges"]
            .as_array()
            .unwrap()
            .iter()
            .zip(r["cells"].as_array().unwrap())
        {
            let Some(i) = c.get("interval").filter(|i| !i.is_null()) else {
                continue;
            };
            let want = cmp["combos"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["model"] == model && x["judge"] == *j)
                .unwrap();
            assert!(same_pct(&i["lower"], &want["wilson_low"]), "{i} {want}");
            assert!(same_pct(&i["upper"], &want["wilson_high"]), "{i} {want}");
            wilson += 1;
        }
    }
    assert!(wilson >= 4, "{wilson}");
    // --confidence reaches the interval: a 50 % interval is narrower.
    let narrow: Value = serde_json::from_str(&leaderboard(
        &run1(),
        &["-f", "json", "--confidence", "0.5"],
    ))
    .unwrap();
    let width = |g: &Value| {
        let i = &g[0]["rows"][0]["cells"][0]["interval"];
        i["upper"].as_f64().unwrap() - i["lower"].as_f64().unwrap()
    };
    assert!(width(&narrow) < width(&grids));
    let bad = kld()
        .arg("leaderboard")
        .args(run1())
        .args(["--confidence", "1.5"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn the_figures_hold_the_grid_s_numbers() {
    let info = info_rates(&data("board-run-1.json"));
    let svg = stdout_of(kld().args(["figure", "dots"]).args(run1()));
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_eq!(svg.matches("<g class=\"point\">").count(), info.len());
    let csv = stdout_of(
        kld()
            .args(["figure", "dots", "-f", "csv", "--digits", "4"])
            .args(run1()),
    );
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let mut points = 0;
    for rec in r.records() {
        let rec = rec.unwrap();
        if &rec[3] == "mean of judges" {
            continue;
        }
        // (An answering model with MCP servers has them after the judge.)
        let (pct, n) = info
            .iter()
            .find(|(k, _)| {
                *k == &format!("{} | {}", &rec[2], &rec[3])
                    || k.starts_with(&format!("{} | {} | ", &rec[2], &rec[3]))
            })
            .map(|(_, v)| *v)
            .unwrap();
        assert_eq!(&rec[4], format!("{pct:.4}"));
        assert_eq!(&rec[6], n.to_string());
        points += 1;
    }
    assert_eq!(points, info.len());
    // The heatmap's last row is each model's rate under the judge: its
    // combo's rate.
    let judge = "langchain:gpt-4.1-nano";
    let csv = stdout_of(
        kld()
            .args([
                "figure", "heatmap", "-f", "csv", "--digits", "6", "--judge", judge,
            ])
            .args(run1()),
    );
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let head: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    assert_eq!(rows.len(), 9 + 1, "nine questions and the totals");
    let last = rows.last().unwrap();
    assert_eq!(&last[1], "all questions");
    let mut seen = 0;
    for (i, h) in head.iter().enumerate() {
        if let Some(model) = h.strip_suffix(": template pass rate (%)") {
            if model == "all models" {
                continue;
            }
            let (pct, n) = info
                .iter()
                .find(|(k, _)| k.starts_with(&format!("{model} | {judge}")))
                .map(|(_, v)| *v)
                .unwrap();
            assert_eq!(&last[i], format!("{pct:.6}"));
            assert_eq!(&last[i + 1], n.to_string());
            seen += 1;
        }
    }
    assert_eq!(seen, 2);
    // Hardest first: the "all models" rates never go down.
    let all = head
        .iter()
        .position(|h| h == "all models: template pass rate (%)")
        .unwrap();
    let rates: Vec<f64> = rows[..9].iter().map(|r| r[all].parse().unwrap()).collect();
    assert!(rates.windows(2).all(|w| w[0] <= w[1]), "{rates:?}");
}

#[test]
fn the_html_report_is_one_file_with_its_figures_inline() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.html");
    stdout_of(
        kld()
            .arg("leaderboard")
            .args(run1())
            .args(["-f", "html", "-o"])
            .arg(&out),
    );
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert_eq!(
        html.matches("<svg ").count(),
        2,
        "the dot plot and the heatmap"
    );
    for external in ["src=", "href=", "@import", "url(", "<script"] {
        assert!(!html.contains(external), "{external}");
    }
}

/// `GET /grid` and `GET /figure` answer the bytes `kld leaderboard` and
/// `kld figure` write, and refuse a format, kind, digits or column they
/// lack (docs/serving.md).
#[test]
fn the_grid_and_figure_routes_give_the_command_line_s_bytes_and_refuse_what_they_lack() {
    let files = run1();
    let s = super::serve::serve(&files, &[]);
    let get = |path: &str| {
        let r = super::serve::client()
            .get(format!("{}{path}", s.base))
            .send()
            .unwrap();
        let ct = r.headers()["content-type"].to_str().unwrap().to_string();
        (r.status().as_u16(), ct, r.text().unwrap())
    };
    let cli = |args: &[&str]| stdout_of(kld().args(args).args(&files));
    for (path, args, ct) in [
        (
            "/grid?format=csv&digits=2",
            &["leaderboard", "-f", "csv", "--digits", "2"][..],
            "text/csv",
        ),
        (
            "/grid?format=markdown",
            &["leaderboard", "-f", "markdown"][..],
            "text/markdown",
        ),
        (
            "/grid?format=latex",
            &["leaderboard", "-f", "latex"][..],
            "application/x-tex",
        ),
        (
            "/grid?format=html",
            &["leaderboard", "-f", "html"][..],
            "text/html",
        ),
        (
            "/figure?kind=dots&format=svg",
            &["figure", "dots"][..],
            "image/svg+xml",
        ),
        (
            "/figure?kind=dots&format=csv&confidence=0.9",
            &["figure", "dots", "-f", "csv", "--confidence", "0.9"][..],
            "text/csv",
        ),
        (
            "/figure?kind=heatmap&format=csv",
            &["figure", "heatmap", "-f", "csv"][..],
            "text/csv",
        ),
    ] {
        let (status, got_ct, body) = get(path);
        assert_eq!(status, 200, "{path}: {body}");
        assert!(got_ct.starts_with(ct), "{path}: {got_ct}");
        assert_eq!(body, cli(args), "{path}");
    }
    let (status, _, json) = get("/grid");
    assert_eq!(status, 200);
    let served: Value = serde_json::from_str(&json).unwrap();
    let written: Value = serde_json::from_str(&cli(&["leaderboard", "-f", "json"])).unwrap();
    assert_eq!(served, written);
    for (path, status) in [
        ("/grid?format=pdf", 400),
        ("/grid?digits=13", 400),
        ("/grid?confidence=2", 400),
        ("/figure?kind=pie", 400),
        ("/figure?kind=dots&format=gif", 400),
        ("/figure?kind=dots&column=9", 404),
    ] {
        assert_eq!(get(path).0, status, "{path}");
    }
}

#[test]
fn several_columns_ask_which_for_a_dot_plot() {
    let out = kld()
        .args(["figure", "dots"])
        .args([
            data("board.jsonld"),
            data("board-run-1.json"),
            data("board-run-2.json"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("2 benchmark columns") && err.contains("--run"),
        "{err}"
    );
}

/// The interop checks of the formats: markdown-it-py finds one table whose
/// cells are the CSV's; pdflatex compiles the LaTeX (booktabs); Chromium
/// opens the HTML report offline and draws every figure. Screenshots go to
/// target/screenshots/report-*.png.
#[test]
#[ignore = "interop: needs python3 with markdown-it-py and selenium, pdflatex (texlive-latex-recommended), chromium"]
fn markdown_parses_latex_compiles_and_the_report_opens_offline() {
    let dir = tempfile::tempdir().unwrap();
    let files = run1();
    let md = dir.path().join("t.md");
    let csv = dir.path().join("t.csv");
    let tex = dir.path().join("t.tex");
    let html = dir.path().join("report.html");
    for (f, p) in [
        ("markdown", &md),
        ("csv", &csv),
        ("latex", &tex),
        ("html", &html),
    ] {
        stdout_of(
            kld()
                .arg("leaderboard")
                .args(&files)
                .args(["-f", f, "--digits", "2", "-o"])
                .arg(p),
        );
    }
    let shots = Path::new(env!("KLD_SOURCE_ROOT")).join("target/screenshots");
    let out = super::serve::python(
        "manuscript_formats.py",
        &[
            md.to_str().unwrap(),
            csv.to_str().unwrap(),
            html.to_str().unwrap(),
            shots.to_str().unwrap(),
        ],
    );
    let seen: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(seen["tables"], 1, "{seen}");
    assert_eq!(seen["md_equals_csv"], true, "{seen}");
    assert!(seen["cells"].as_u64().unwrap() >= 4, "{seen}");
    assert_eq!(seen["svgs"], 2, "{seen}");
    assert_eq!(
        seen["drawn"], 2,
        "every figure has a size on screen: {seen}"
    );
    assert_eq!(seen["requests_elsewhere"], 0, "{seen}");
    // pdflatex: the table inside a minimal article.
    pdflatex(dir.path(), "t.tex");
}

/// Compiles `table` (a file in `dir`) inside a minimal article with
/// pdflatex (Debian's texlive-latex-recommended: booktabs), and asserts a
/// PDF came out; returns pdflatex's log (its standard output), where a
/// table too wide for the page shows as `Overfull \hbox`.
pub(crate) fn pdflatex(dir: &Path, table: &str) -> String {
    let doc = dir.join("doc.tex");
    std::fs::write(
        &doc,
        format!("\\documentclass{{article}}\n\\usepackage[utf8]{{inputenc}}\n\\usepackage{{booktabs}}\n\\begin{{document}}\n\\input{{{table}}}\n\\end{{document}}\n"),
    )
    .unwrap();
    let run = std::process::Command::new("pdflatex")
        .args(["-interaction=nonstopmode", "-halt-on-error", "doc.tex"])
        .current_dir(dir)
        .output()
        .expect("pdflatex (texlive-latex-recommended)");
    assert!(
        run.status.success(),
        "pdflatex failed:\n{}",
        String::from_utf8_lossy(&run.stdout)
    );
    assert!(dir.join("doc.pdf").metadata().unwrap().len() > 1000);
    String::from_utf8_lossy(&run.stdout).into_owned()
}
