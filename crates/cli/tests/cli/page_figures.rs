//! The page's model × judge grid, its figures and the matrix (issue 47), on
//! a paper-size run written by Karenina's own pipeline at test time
//! (`karenina_paper_run.py`: 7 answering × 7 judges × 3 replicates, a small
//! number of questions), in headless Chromium at 1280 × 800 and 700 px:
//! - the default leaderboard shows all 49 cells, each with its n, within two
//!   screen heights, and the page never scrolls sideways;
//! - each cell is `kld info`'s template pass rate of its combo;
//! - the dot plot downloads as SVG, PNG (drawn by the browser at 300 dpi)
//!   and CSV, and that CSV, the grid's and the heatmap's are the bytes
//!   `kld figure` / `kld leaderboard` write;
//! - the matrix keeps its question column in view when scrolled sideways,
//!   orders questions hardest first, shows row and column totals, and a
//!   question opens its results.
//!
//! Screenshots: target/screenshots/figures-*.png.

use super::manuscript::info_rates;
use super::serve::{python, serve};
use super::{kld, stdout_of};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A paper-size run of `questions` questions written by Karenina's own
/// pipeline in `dir`: (checkpoint, results).
pub(crate) fn paper_run(dir: &Path, questions: usize) -> (PathBuf, PathBuf) {
    let out = Command::new(crate::common::karenina_python())
        .arg(crate::common::shared_tools().join("karenina_paper_run.py"))
        .arg(dir)
        .arg(questions.to_string())
        .arg("5")
        .env("PYTHONHASHSEED", "0")
        .output()
        .expect("the Karenina venv's python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (dir.join("ck-paper.jsonld"), dir.join("res-paper.json"))
}

#[test]
#[ignore = "interop: needs Karenina's venv (KLD_KARENINA_VENV), chromium, chromedriver and selenium"]
fn the_grid_shows_49_cells_with_n_and_the_figures_download_the_cli_s_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let (ck, res) = paper_run(dir.path(), 10);
    let files = [ck.clone(), res.clone()];
    let s = serve(&files, &[]);
    let shots = Path::new(env!("KLD_SOURCE_ROOT")).join("target/screenshots");
    let downloads = dir.path().join("downloads");
    let out = python(
        "browser_figures.py",
        &[
            &s.base,
            shots.to_str().unwrap(),
            downloads.to_str().unwrap(),
        ],
    );
    let seen: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let info = info_rates(&res);
    assert_eq!(info.len(), 49);
    for size in ["1280", "700"] {
        let g = &seen[format!("grid_{size}")];
        let cells = g["cells"].as_array().unwrap();
        assert_eq!(cells.len(), 49, "{size}");
        for c in cells {
            let (pct, n) = info[c["combo"].as_str().unwrap()];
            let shown: f64 = c["passPct"].as_str().unwrap().parse().unwrap();
            assert!(crate::common::close(shown, pct), "{c}");
            assert_eq!(c["total"].as_str().unwrap(), n.to_string());
            let text = c["text"].as_str().unwrap();
            assert_eq!(text, format!("{pct:.1}n={n}"), "{size}");
        }
        assert_eq!(g["means"].as_array().unwrap().len(), 7);
        // Within two screen heights (800 px each) of the grid's top.
        let height = g["bottom"].as_f64().unwrap() - g["top"].as_f64().unwrap();
        assert!(height <= 1600.0, "{size}: the cells reach {height} px down");
        // The page never scrolls sideways.
        let scroll = g["scroll"].as_array().unwrap();
        assert!(
            scroll[0].as_f64() <= scroll[1].as_f64(),
            "{size}: {scroll:?}"
        );
        // The benchmark is named once, in the table's heading.
        assert_eq!(g["h4"].as_array().unwrap().len(), 1);
        let bench = g["h4"][0]
            .as_str()
            .unwrap()
            .split(" · ")
            .next()
            .unwrap()
            .to_string();
        assert!(g["heads"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| !h.as_str().unwrap().contains(&bench)));
    }
    // Sorted by the first judge: highest first.
    let sorted: Vec<f64> = seen["sorted"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str().unwrap().parse().ok())
        .collect();
    assert_eq!(sorted.len(), 7);
    assert!(sorted.windows(2).all(|w| w[0] >= w[1]), "{sorted:?}");
    // The downloads: SVG with a point per cell, PNG at 300 dpi, and the
    // CSVs byte for byte the command line's.
    assert!(seen["svg"]["starts"].as_str().unwrap().starts_with("<svg"));
    assert_eq!(seen["svg"]["points"], 49);
    let png = seen["png"]["size"].as_array().unwrap();
    let svg_width = seen["png"]["svg_width"].as_f64().unwrap();
    assert_eq!(png[0].as_f64().unwrap(), (svg_width * 300.0 / 96.0).round());
    let cli = |args: &[&str]| stdout_of(kld().args(args).args(&files));
    assert_eq!(seen["dots_csv"], cli(&["figure", "dots", "-f", "csv"]));
    assert_eq!(
        seen["grid_csv"],
        cli(&["leaderboard", "-f", "csv", "--digits", "1"])
    );
    assert_eq!(
        seen["heatmap_csv"],
        cli(&["figure", "heatmap", "-f", "csv"])
    );
    assert_eq!(
        seen["grid_downloads"],
        serde_json::json!(["CSV", "HTML report", "LaTeX", "Markdown"])
    );
    assert!(seen["heatmap_png"][0].as_u64().unwrap() > 1000);
    // The matrix: the question column stays at the box's left edge when the
    // box scrolls sideways; hardest question first; totals.
    let m = &seen["matrix"];
    assert_eq!(m["wide"], true, "{m}");
    assert!(m["scrolled"].as_f64().unwrap() > 100.0, "{m}");
    let left = m["left_after"].as_f64().unwrap();
    assert!((left - m["box_left"].as_f64().unwrap()).abs() <= 2.0, "{m}");
    assert_eq!(m["rows"], 10);
    assert_eq!(m["totals"].as_array().unwrap().len(), 10);
    assert_eq!(m["col_totals"].as_array().unwrap().len(), 7);
    // Compact (colour only) by default; written out, the matrix above.
    assert_eq!(seen["matrix_compact"], true);
    assert_eq!(m["compact"], false);
    let rates: Vec<f64> = m["totals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let t = t.as_str().unwrap();
            let at = t.find(": ").unwrap();
            let (p, n) = t[at + 2..].split_once(" of n = ").unwrap();
            p.parse::<f64>().unwrap() / n.parse::<f64>().unwrap()
        })
        .collect();
    assert!(rates.windows(2).all(|w| w[0] <= w[1]), "{rates:?}");
    for s in [&m["scroll"], &seen["matrix_700"]] {
        assert!(s[0].as_f64() <= s[1].as_f64(), "{s}");
    }
    // A question's results: every judge, model and replicate of it.
    assert_eq!(seen["question_results"], 7 * 7 * 3);
    assert_eq!(seen["elsewhere"], serde_json::json!([]));
}
