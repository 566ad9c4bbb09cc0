//! The page's "Compare models" and `GET /compare` (issue 47): the route
//! gives, for the one run its filters leave, the bytes `kld compare`
//! writes for that run's file (every CSV table cell for cell, the JSON,
//! Markdown, LaTeX and both figures), refuses to pool two runs, and in
//! headless Chromium (interop tier) the section draws the forest plot and
//! the κ heatmap, its download links answer 200 in their media types, the
//! page never scrolls sideways at 1280 × 800 and 700 px, and with two runs
//! loaded it says they are never pooled and offers a choice.
//!
//! Screenshots: target/screenshots/compare-*.png.

use super::page_figures::paper_run;
use super::serve::{client, python, serve};
use super::{kld, stdout_of};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("KLD_SOURCE_ROOT"))
        .join("tests/data/board")
        .join(name)
}

/// A CSV as its header and records.
fn records(csv: &str) -> Vec<Vec<String>> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(csv.as_bytes());
    r.records()
        .map(|x| x.unwrap().iter().map(String::from).collect())
        .collect()
}

/// GET `path` of `base`: (status, media type, body).
fn get(base: &str, path: &str) -> (u16, String, String) {
    let r = client().get(format!("{base}{path}")).send().unwrap();
    let ct = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (r.status().as_u16(), ct, r.text().unwrap())
}

/// The results graph of the served run whose file is `name`.
fn graph_of(base: &str, name: &str) -> String {
    let r = client()
        .get(format!("{base}/queries/runs"))
        .header("Accept", "application/sparql-results+json")
        .send()
        .unwrap();
    let v: Value = r.json().unwrap();
    v["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["graph"]["value"].as_str().unwrap().to_string())
        .find(|g| g.ends_with(name))
        .unwrap_or_else(|| panic!("no run {name} in {v}"))
}

fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[test]
fn the_compare_route_gives_kld_compare_s_bytes_for_one_run_and_never_pools_two() {
    let files = [
        data("board.jsonld"),
        data("board-run-1.json"),
        data("board-run-2.json"),
    ];
    let s = serve(&files, &[]);
    // Two runs and none chosen: 400, naming both.
    let (status, _, body) = get(&s.base, "/compare?format=csv");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("never pooled"), "{body}");
    assert!(
        body.contains("board-run-1.json") && body.contains("board-run-2.json"),
        "{body}"
    );
    for name in ["board-run-1.json", "board-run-2.json"] {
        let run = format!("run={}", enc(&graph_of(&s.base, name)));
        let cli = |args: &[&str]| stdout_of(kld().arg("compare").arg(data(name)).args(args));
        // Every table's CSV, cell for cell (and so byte for byte).
        for table in ["pairs", "rates", "agreement", "kappa", "questions"] {
            let (status, ct, body) =
                get(&s.base, &format!("/compare?{run}&format=csv&table={table}"));
            assert_eq!(status, 200, "{table}: {body}");
            assert!(ct.starts_with("text/csv"), "{ct}");
            let want = cli(&["--format", "csv", "--table", table]);
            let (got, want_cells) = (records(&body), records(&want));
            assert!(got.len() > 1, "{table}: {body}");
            assert_eq!(got, want_cells, "{name} {table}");
            assert_eq!(body, want, "{name} {table}");
        }
        // The default table is pairs, as kld compare's.
        assert_eq!(
            get(&s.base, &format!("/compare?{run}&format=csv")).2,
            cli(&["--format", "csv"])
        );
        // Everything else the command line writes for the run.
        for (q, args, ct) in [
            (
                "format=markdown&digits=2",
                &["--format", "markdown", "--digits", "2"][..],
                "text/markdown",
            ),
            (
                "format=latex&table=agreement",
                &["--format", "latex", "--table", "agreement"][..],
                "application/x-tex",
            ),
            (
                "format=markdown&table=questions&hardest=3",
                &[
                    "--format",
                    "markdown",
                    "--table",
                    "questions",
                    "--hardest",
                    "3",
                ][..],
                "text/markdown",
            ),
            (
                "figure=forest",
                &["--figure", "forest"][..],
                "image/svg+xml",
            ),
            (
                "figure=forest&format=csv&digits=3",
                &["--figure", "forest", "--format", "csv", "--digits", "3"][..],
                "text/csv",
            ),
            ("figure=kappa", &["--figure", "kappa"][..], "image/svg+xml"),
            (
                "figure=kappa&format=csv",
                &["--figure", "kappa", "--format", "csv"][..],
                "text/csv",
            ),
            (
                "format=csv&confidence=0.9",
                &["--format", "csv", "--confidence", "0.9"][..],
                "text/csv",
            ),
        ] {
            let (status, got_ct, body) = get(&s.base, &format!("/compare?{run}&{q}"));
            assert_eq!(status, 200, "{q}: {body}");
            assert!(got_ct.starts_with(ct), "{q}: {got_ct}");
            assert_eq!(body, cli(args), "{name} {q}");
        }
        let (status, _, json) = get(&s.base, &format!("/compare?{run}"));
        assert_eq!(status, 200);
        let served: Value = serde_json::from_str(&json).unwrap();
        let written: Value = serde_json::from_str(&cli(&["--format", "json"])).unwrap();
        assert_eq!(served, written);
        // The page's form: the table's rounded layouts, the Markdown's cells.
        let (_, _, layouts) = get(
            &s.base,
            &format!("/compare?{run}&table=pairs&format=json&digits=2"),
        );
        let layouts: Value = serde_json::from_str(&layouts).unwrap();
        let md = cli(&["--format", "markdown", "--table", "pairs", "--digits", "2"]);
        let first = &layouts[0];
        let row: Vec<&str> = first["rows"][0]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert!(
            md.contains(&format!("| {} |", row[2..].join(" | "))),
            "{row:?}\n{md}"
        );
        assert!(first["caption"].as_str().unwrap().contains("n = questions"));
        let (status, ct, html) = get(&s.base, &format!("/compare?{run}&format=html"));
        assert_eq!(status, 200);
        assert!(ct.starts_with("text/html"), "{ct}");
        assert_eq!(html.matches("<svg ").count(), 2);
    }
    // The filters choose runs as the board's do; what is not a want is 400.
    let one = format!("run={}", enc(&graph_of(&s.base, "board-run-1.json")));
    for (q, status) in [
        ("run=file:///nowhere.json", 404),
        ("table=pie", 400),
        ("digits=11", 400),
        ("confidence=1.5", 400),
        ("figure=pie", 400),
        ("figure=forest&format=gif", 400),
        ("figure=forest&table=pairs", 400),
        ("format=pdf", 400),
        ("figure=forest&judge=nobody", 400),
    ] {
        let path = format!("/compare?{one}&{q}");
        assert_eq!(get(&s.base, &path).0, status, "{path}");
    }
}

#[test]
#[ignore = "interop: needs Karenina's venv (KLD_KARENINA_VENV), chromium, chromedriver and selenium"]
fn the_compare_section_draws_both_figures_and_its_downloads_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (ck, res) = paper_run(dir.path(), 10);
    let s = serve(&[ck, res.clone()], &[]);
    let shots = Path::new(env!("KLD_SOURCE_ROOT")).join("target/screenshots");
    let downloads = dir.path().join("downloads");
    let two = serve(
        &[
            data("board.jsonld"),
            data("board-run-1.json"),
            data("board-run-2.json"),
        ],
        &[],
    );
    let out = python(
        "browser_compare.py",
        &[
            &s.base,
            shots.to_str().unwrap(),
            downloads.to_str().unwrap(),
            &two.base,
        ],
    );
    let seen: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let media = |label: &str| match label {
        "CSV" | "CSV (its data)" => "text/csv",
        "Markdown" => "text/markdown",
        "LaTeX" => "application/x-tex",
        "HTML report" => "text/html",
        "SVG" => "image/svg+xml",
        other => panic!("a download labelled {other}"),
    };
    for size in ["1280", "700"] {
        let v = &seen[size];
        // Both figures drawn: an SVG each, with a size on screen.
        let figures = v["figures"].as_array().unwrap();
        assert_eq!(figures.len(), 2, "{size}: {v}");
        for f in figures {
            assert!(f["width"].as_f64().unwrap() > 100.0, "{size}: {f}");
            assert!(f["height"].as_f64().unwrap() > 100.0, "{size}: {f}");
        }
        // The forest plot: a line per pair of the 7 models (judges
        // averaged); the κ heatmap: 7 × 7 judges.
        assert_eq!(figures[0]["pairs"], 21, "{size}");
        assert_eq!(figures[1]["cells"], 49, "{size}");
        // The pairs tables (judges averaged, then each of the 7 judges):
        // 21 pairs of 7 models; agreement over every answer, then each
        // model; Cohen's κ of 21 pairs of judges.
        let tables = &v["tables"];
        assert_eq!(tables["compare-table-pairs"], 21, "{size}: {v}");
        for j in 1..=7 {
            assert_eq!(
                tables[format!("compare-table-pairs-{j}")],
                21,
                "{size}: {v}"
            );
        }
        assert_eq!(tables["compare-table-agreement"], 8, "{size}: {v}");
        assert_eq!(tables["compare-table-kappa"], 21, "{size}: {v}");
        // Long names are cut, each with its whole name on hover.
        assert!(v["cut"].as_u64().unwrap() > 0, "{size}: {v}");
        assert_eq!(v["cut"], v["cut_titled"], "{size}");
        // Every download answers 200 in its media type.
        let links = v["links"].as_array().unwrap();
        assert!(links.len() >= 10, "{size}: {links:?}");
        for l in links {
            let label = l["label"].as_str().unwrap();
            assert_eq!(l["status"], 200, "{size}: {l}");
            assert!(
                l["type"].as_str().unwrap().starts_with(media(label)),
                "{size}: {l}"
            );
        }
        // Two PNG buttons, one per figure.
        assert_eq!(v["png_buttons"], 2, "{size}");
        // The page never scrolls sideways.
        let scroll = v["scroll"].as_array().unwrap();
        assert!(
            scroll[0].as_f64() <= scroll[1].as_f64(),
            "{size}: {scroll:?}"
        );
    }
    // The pairs CSV the page downloads is `kld compare`'s of the file.
    assert_eq!(
        seen["pairs_csv"],
        stdout_of(kld().arg("compare").arg(&res).args(["--format", "csv"]))
    );
    // The forest plot's PNG: drawn by the browser at 300 dpi.
    let png = seen["png"].as_array().unwrap();
    assert!(png[0].as_u64().unwrap() > 1000, "{png:?}");
    assert_eq!(seen["elsewhere"], serde_json::json!([]));
    // Two runs: never pooled; the section names the reason and offers them.
    let t = &seen["two"];
    assert!(
        t["refusal"].as_str().unwrap().contains("never pooled"),
        "{t}"
    );
    assert_eq!(t["options"], 2, "{t}");
    assert!(
        t["status"].as_str().unwrap().contains("board-run-2.json"),
        "{t}"
    );
}
