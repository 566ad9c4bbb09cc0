//! The page's results table and leaderboard (issue 28): its scripts served
//! as written, and in a real browser a 5,000-row answer paged and sorted,
//! every leaderboard cell (unfiltered, per run, per benchmark, per trait)
//! the catalogue query's answer from `kld query` on the same files, and the
//! board under `--watch` redrawn only when a file changes.

use super::queries::query_rows;
use super::serve::{client, python, serve};
use super::{kld, stdout_of};
use crate::common::{close, corpus, read_fixture_string};
use serde_json::Value;
use std::path::Path;

#[test]
fn the_page_s_scripts_are_served_as_written_and_nothing_else_is_loaded() {
    let s = serve(std::slice::from_ref(&corpus().join("loads")), &[]);
    let c = client();
    let page = c
        .get(format!("{}/", s.base))
        .send()
        .unwrap()
        .text()
        .unwrap();
    let srcs: Vec<&str> = page
        .split("src=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap())
        .collect();
    // app.js runs at once and calls into the other two: they load first.
    let at = |name: &str| srcs.iter().position(|s| *s == name).unwrap();
    assert!(at("/table.js") < at("/app.js") && at("/leaderboard.js") < at("/app.js"));
    // Offline by construction: nothing the page loads or links names
    // another host.
    for attr in ["src=\"", "href=\""] {
        for rest in page.split(attr).skip(1) {
            let url = rest.split('"').next().unwrap();
            assert!(url.starts_with('/') || url.starts_with('#'), "{url}");
        }
    }
    for src in srcs {
        let r = c.get(format!("{}{src}", s.base)).send().unwrap();
        assert_eq!(r.status(), 200, "{src}");
        if ![
            "/table.js",
            "/leaderboard.js",
            "/figures.js",
            "/compare.js",
            "/app.js",
        ]
        .contains(&src)
        {
            continue;
        }
        assert_eq!(
            r.headers()["content-type"],
            "text/javascript; charset=utf-8",
            "{src}"
        );
        let file = Path::new(env!("KLD_SOURCE_ROOT"))
            .join("crates/serve/src/page")
            .join(src.trim_start_matches('/'));
        assert_eq!(r.text().unwrap(), std::fs::read_to_string(file).unwrap());
    }
}

/// The 5,000-row answer the results table pages through: ?n 0..4999, a
/// label, a decimal to round, an IRI under `schema:`, and one long cell.
const FIVE_THOUSAND: &str = r#"SELECT ?n ?label ?x ?iri ?text WHERE {
  VALUES ?a { 0 1 2 3 4 } VALUES ?b { 0 1 2 3 4 5 6 7 8 9 }
  VALUES ?c { 0 1 2 3 4 5 6 7 8 9 } VALUES ?d { 0 1 2 3 4 5 6 7 8 9 }
  BIND(?a * 1000 + ?b * 100 + ?c * 10 + ?d AS ?n)
  BIND(CONCAT("row ", STR(?n)) AS ?label)
  BIND(?n / 7 AS ?x)
  BIND(IRI(CONCAT("https://schema.org/r", STR(?n))) AS ?iri)
  BIND(IF(?n = 0, REPLACE("0123456789", "(.)", "$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1"), "short") AS ?text)
}"#;

/// Checkpoints and results exports of the corpus in `dir`, with two
/// checkpoints sharing one name (each with its own run) and a checkpoint
/// named with 300 characters, each with its runs.
fn board_inputs(dir: &Path) -> Vec<std::path::PathBuf> {
    let renamed = |from: &str, to: &str, name: &str| {
        let mut v: Value =
            serde_json::from_str(&read_fixture_string(&corpus().join("loads").join(from))).unwrap();
        v["name"] = Value::String(name.to_string());
        let path = dir.join(to);
        std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
        path
    };
    let long: String = "A very long benchmark name "
        .repeat(12)
        .chars()
        .take(300)
        .collect();
    let copy = |folder: &str, name: &str| crate::copy_to(dir, &corpus().join(folder).join(name));
    vec![
        copy("loads", "docs__notebooks__test_checkpoint.jsonld"),
        copy("results", "res-docs__notebooks__test_checkpoint.full.json"),
        copy(
            "results",
            "res-docs__notebooks__test_checkpoint.partial.csv",
        ),
        renamed(
            "tests__fixtures__checkpoints__with_rubrics.jsonld",
            "rubrics_same_name.jsonld",
            "Documentation Test Benchmark",
        ),
        copy(
            "results",
            "res-tests__fixtures__checkpoints__with_rubrics.full.json",
        ),
        renamed(
            "karenina-output__probe_dj.jsonld",
            "probe_long_name.jsonld",
            &long,
        ),
        copy("results", "res-karenina-output__probe_dj.full.csv"),
        copy("loads", "karenina-output__scenario_probe.jsonld"),
        copy(
            "results",
            "res-karenina-output__scenario_probe.scenario.json",
        ),
    ]
}

/// The cell of `cells` (the page's data attributes and text) for a row of
/// pass-rate-by-benchmark (one benchmark, run and combo), checked against
/// it: the rate and its n in the text.
fn assert_cell(cells: &[Value], want: &serde_json::Map<String, Value>) {
    let c = assert_cell_data(cells, want);
    let w = |k: &str| want.get(k).map_or("", |v| v.as_str().unwrap());
    let text = c["text"].as_str().unwrap();
    assert!(
        text.contains(&format!("{} of n={}", w("passed"), w("n"))),
        "{text}"
    );
    match w("pass_rate") {
        "" => assert!(text.contains("no rate"), "{text}"),
        rate => {
            let pct = (rate.parse::<f64>().unwrap() * 100.0).round();
            assert!(text.contains(&format!("{pct}%")), "{text} for {rate}");
        }
    }
}

/// [`assert_cell`] without the text: the one cell of the row's benchmark,
/// run and combo (one judge's: the combo names it), its data attributes the
/// row's values.
fn assert_cell_data<'a>(cells: &'a [Value], want: &serde_json::Map<String, Value>) -> &'a Value {
    let w = |k: &str| want.get(k).map_or("", |v| v.as_str().unwrap());
    let found: Vec<&Value> = cells
        .iter()
        .filter(|c| {
            c["checkpoint"] == w("graph")
                && c["run"] == w("results_graph")
                && c["combo"] == w("combo")
        })
        .collect();
    assert_eq!(found.len(), 1, "{want:?} in {cells:?}");
    let c = found[0];
    assert_eq!(c["judge"], w("parsing_model"));
    for (attr, var) in [
        ("passed", "passed"),
        ("total", "n"),
        ("results", "results"),
        ("content", "content"),
        ("abstained", "abstained"),
        ("autofail", "autofail"),
        ("retry", "retry"),
        ("system", "system"),
        ("noVerdict", "no_verdict"),
        ("unclassified", "unclassified"),
    ] {
        assert_eq!(c[attr], w(var), "{attr} of {want:?}");
    }
    match w("pass_rate") {
        "" => assert_eq!(c["passPct"], "", "{want:?}"),
        rate => {
            let ours: f64 = c["passPct"].as_str().unwrap().parse().unwrap();
            let theirs = rate.parse::<f64>().unwrap() * 100.0;
            assert!(close(ours, theirs), "{ours} {theirs}");
        }
    }
    c
}

/// The page's download links (`seen` by browser_board.py): these labels in
/// this order, each fetched with status 200 in its media type.
fn assert_downloads<'a>(seen: &'a Value, want: &[(&str, &str)]) -> &'a Vec<Value> {
    let links = seen.as_array().unwrap();
    let got: Vec<(&str, &str)> = links
        .iter()
        .map(|d| {
            assert_eq!(d["got"][0], 200, "{d}");
            (d["label"].as_str().unwrap(), d["got"][1].as_str().unwrap())
        })
        .collect();
    assert_eq!(got, want);
    links
}

#[test]
#[ignore = "interop: needs chromium, chromedriver and selenium: cargo test -- --include-ignored"]
fn the_results_table_pages_and_sorts_and_every_leaderboard_cell_is_kld_querys() {
    let dir = tempfile::tempdir().unwrap();
    let files = board_inputs(dir.path());
    let s = serve(&files, &[]);
    let shots = Path::new(env!("KLD_SOURCE_ROOT")).join("target/screenshots");
    let out = python(
        "browser_board.py",
        &[&s.base, FIVE_THOUSAND, shots.to_str().unwrap()],
    );
    let seen: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    };

    // ---- the results table ----
    let oracle: Value = serde_json::from_str(&stdout_of(
        kld()
            .args(["query", "--format", "json", "-e", FIVE_THOUSAND])
            .args(&files),
    ))
    .unwrap();
    let bindings = oracle["results"]["bindings"].as_array().unwrap();
    assert_eq!(bindings.len(), 5000);
    assert!(
        seen["status"].as_str().unwrap().starts_with("5000 rows in"),
        "{seen}"
    );
    assert_eq!(seen["total_attr"], "5000");
    assert_eq!(strings(&seen["vars"]), ["n", "label", "x", "iri", "text"]);
    assert_eq!(seen["headers_are_buttons"], true);
    // Every page, 100 rows each, every row once.
    let pages = seen["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 50);
    assert!(pages.iter().all(|p| p.as_array().unwrap().len() == 100));
    let mut all: Vec<u32> = pages
        .iter()
        .flat_map(&strings)
        .map(|n| n.parse().unwrap())
        .collect();
    all.sort_unstable();
    assert_eq!(all, (0..5000).collect::<Vec<u32>>());
    assert_eq!(
        strings(&seen["page_infos"]),
        [
            "rows 1–100 of 5000 · page 1 of 50",
            "rows 4901–5000 of 5000 · page 50 of 50"
        ]
    );
    // Sorted as numbers (10 after 9), both ways; a text column as text.
    let n: Vec<String> = (0..100).map(|i| i.to_string()).collect();
    assert_eq!(strings(&seen["n_asc"]), n);
    assert_eq!(seen["n_asc_aria"], "ascending");
    let n_desc: Vec<String> = (4900..5000).rev().map(|i| i.to_string()).collect();
    assert_eq!(strings(&seen["n_desc"]), n_desc);
    let mut labels: Vec<String> = (0..5000).map(|i| format!("row {i}")).collect();
    labels.sort();
    assert_eq!(strings(&seen["label_asc"]), labels[..100]);
    // A number rounded for display, its full value on hover; an IRI under
    // kld's prefix; a long cell cut, whole once expanded, not wider than
    // half the window.
    let value = |n: &str, var: &str| {
        bindings.iter().find(|b| b["n"]["value"] == n).unwrap()[var]["value"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let x1 = value("1", "x");
    assert_eq!(seen["x_shown"], "0.1429");
    assert_eq!(seen["x_title"], format!("{x1} (xsd:decimal)"));
    assert_eq!(seen["iri_text"], "schema:r1");
    assert_eq!(seen["iri_title"], "https://schema.org/r1");
    assert!(seen["iri_href"]
        .as_str()
        .unwrap()
        .contains("DESCRIBE%20%3Chttps%3A%2F%2Fschema.org%2Fr1%3E"));
    let long = value("0", "text");
    assert_eq!(long.chars().count(), 300);
    let cut = seen["long_cut"].as_str().unwrap();
    assert_eq!(cut, format!("{}…", &long[..160]));
    assert_eq!(seen["long_full"], long);
    let widths = &seen["widths"];
    assert!(
        widths[0].as_u64() <= widths[1].as_u64(),
        "the table is wider than its box: {widths}"
    );
    // Downloads: every format the endpoint writes for solutions, each
    // answered in its media type, CSV and TSV with every row.
    let downloads = assert_downloads(
        &seen["downloads"],
        &[
            ("JSON", "application/sparql-results+json"),
            ("XML", "application/sparql-results+xml"),
            ("CSV", "text/csv; charset=utf-8"),
            ("TSV", "text/tab-separated-values; charset=utf-8"),
        ],
    );
    assert_eq!(downloads[2]["got"][2], 5001);
    assert_eq!(downloads[3]["got"][2], 5001);
    // A question's IRI opens its DESCRIBE; a checkpoint graph's IRI the
    // benchmark view.
    let item = seen["item"].as_str().unwrap();
    assert!(
        seen["describe"].as_str().unwrap().contains(item),
        "{}",
        seen["describe"]
    );
    assert!(seen["describe"]
        .as_str()
        .unwrap()
        .contains("schema:DataFeedItem"));
    let checkpoints: Vec<Value> = client()
        .get(format!("{}/checkpoints", s.base))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let graph = seen["graph_link"][0].as_str().unwrap();
    let opened = checkpoints.iter().find(|c| c["graph"] == graph).unwrap();
    assert!(seen["graph_link"][1]
        .as_str()
        .unwrap()
        .contains("/checkpoint?graph="));
    assert!(seen["graph_opened"]
        .as_str()
        .unwrap()
        .starts_with(opened["name"].as_str().unwrap()));

    // A graph answer downloads in every RDF format the endpoint writes.
    assert_downloads(
        &seen["graph_downloads"],
        &[
            ("Turtle", "text/turtle"),
            ("N-Triples", "application/n-triples"),
            ("N-Quads", "application/n-quads"),
            ("TriG", "application/trig"),
            ("RDF/XML", "application/rdf+xml"),
            ("JSON-LD", "application/ld+json"),
        ],
    );

    // ---- the leaderboard: every cell is a row of kld query's ----
    let want = query_rows(&files, "pass-rate-by-benchmark");
    let cells = seen["cells"].as_array().unwrap();
    assert!(want.len() >= 8, "{want:?}");
    assert_eq!(cells.len(), want.len());
    for w in &want {
        assert_cell(cells, w);
    }
    // Unique labels: the two checkpoints named alike are told apart by
    // file; the 300-character name is cut (whole on hover) in a column of
    // a sane width.
    let columns = seen["columns"].as_array().unwrap();
    let texts: Vec<&str> = columns
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    let unique: std::collections::BTreeSet<&&str> = texts.iter().collect();
    assert_eq!(unique.len(), texts.len(), "{texts:?}");
    for file in [
        "docs__notebooks__test_checkpoint.jsonld",
        "rubrics_same_name.jsonld",
    ] {
        let c = columns
            .iter()
            .find(|c| c["label"].as_str().unwrap().contains(file))
            .unwrap_or_else(|| panic!("no column tells {file} apart: {texts:?}"));
        assert!(c["label"]
            .as_str()
            .unwrap()
            .starts_with("Documentation Test Benchmark"));
    }
    let long_name: String = "A very long benchmark name "
        .repeat(12)
        .chars()
        .take(300)
        .collect();
    let long_col = columns
        .iter()
        .find(|c| c["title"].as_str().unwrap().starts_with(&long_name))
        .expect("the long name whole on hover");
    assert!(long_col["label"].as_str().unwrap().len() < 200);
    assert!(long_col["width"].as_f64().unwrap() <= 260.0, "{long_col}");
    // The result bars: one per benchmark, run and combo (so one judge's),
    // each label unique (cut: benchmark, model, judge, and the run's file
    // where a benchmark has several), whole in their titles.
    let bars = strings(&seen["bar_labels"]);
    assert_eq!(bars.len(), want.len());
    let distinct: std::collections::BTreeSet<&String> = bars.iter().collect();
    assert_eq!(distinct.len(), bars.len(), "{bars:?}");
    assert!(bars.iter().all(|b| b.chars().count() <= 90), "{bars:?}");
    // Each row's model name level with its cells' first line.
    assert!(
        seen["row_head_offset"].as_f64().unwrap() < 4.0,
        "{}",
        seen["row_head_offset"]
    );
    // Every label whole inside the chart (a long name once lost its first
    // letters past the left edge).
    assert!(
        seen["bar_label_left"].as_f64().unwrap() >= 0.0,
        "{}",
        seen["bar_label_left"]
    );
    let titles = strings(&seen["bar_titles"]);
    assert!(titles.iter().any(|t| t.contains(&long_name)));
    assert!(titles
        .iter()
        .any(|t| t.contains("Documentation Test Benchmark (rubrics_same_name.jsonld)")));
    // Sorted by the first benchmark column, highest first, models without
    // results there last.
    let sorted: Vec<Option<f64>> = seen["sorted_column"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().map(|s| s.parse().unwrap_or(-1.0)))
        .collect();
    let present: Vec<f64> = sorted.iter().map_while(|v| *v).collect();
    assert!(present.windows(2).all(|w| w[0] >= w[1]), "{sorted:?}");
    assert!(
        sorted[present.len()..].iter().all(Option::is_none),
        "{sorted:?}"
    );
    assert_eq!(seen["sorted_aria"], "descending");
    // Sorted from the keyboard, the pressed header keeps the focus.
    assert_eq!(seen["sort_focus"], 1);
    // The run filter: each run bound to a benchmark, its cells kld query's
    // over that run's export and its checkpoint alone.
    let runs = query_rows(&files, "runs");
    let bound: Vec<&serde_json::Map<String, Value>> = runs
        .iter()
        .filter(|r| r.contains_key("checkpoint"))
        .collect();
    let mut options = strings(&seen["run_options"]);
    options.sort();
    let mut want_options: Vec<String> = bound
        .iter()
        .map(|r| r["graph"].as_str().unwrap().to_string())
        .collect();
    want_options.push(String::new());
    want_options.sort();
    assert_eq!(options, want_options);
    let file_of = |iri: &str| std::path::PathBuf::from(iri.strip_prefix("file://").unwrap());
    for r in &bound {
        let run = r["graph"].as_str().unwrap();
        let cp = r["checkpoint"].as_str().unwrap();
        let want = query_rows(&[file_of(cp), file_of(run)], "pass-rate-by-benchmark");
        let cells = seen["by_run"][run].as_array().unwrap();
        assert_eq!(cells.len(), want.len(), "{run}");
        for w in &want {
            assert_cell(cells, w);
        }
    }
    // The benchmark filter: that checkpoint's cells.
    let chosen = seen["by_benchmark"]["graph"].as_str().unwrap();
    let want_b: Vec<_> = want.iter().filter(|w| w["graph"] == chosen).collect();
    let cells_b = seen["by_benchmark"]["cells"].as_array().unwrap();
    assert_eq!(cells_b.len(), want_b.len());
    for w in want_b {
        assert_cell(cells_b, w);
    }
    // A cell opens its matrix (that benchmark, run and judge): one result
    // per question and replicate of its model, as many as the cell's
    // results, as many passed as it says.
    let o = &seen["opened"];
    let cell = want
        .iter()
        .find(|w| {
            w["graph"] == o["checkpoint"]
                && w["results_graph"] == o["run"]
                && w["combo"] == o["combo"]
        })
        .unwrap();
    assert!(o["status"]
        .as_str()
        .unwrap()
        .contains(cell["parsing_model"].as_str().unwrap()));
    let mine: Vec<&Value> = o["matrix"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["model"] == cell["answering_model"])
        .collect();
    let filled: usize = mine
        .iter()
        .map(|c| c["count"].as_str().unwrap().parse::<usize>().unwrap())
        .sum();
    assert_eq!(filled.to_string(), cell["results"].as_str().unwrap());
    let passed = mine.iter().filter(|c| c["outcome"] == "passed").count();
    assert_eq!(passed.to_string(), cell["outcome_passed"].as_str().unwrap());
    // Trait scores: each checkpoint's scores-by-trait-and-judge over it and
    // its runs, a cell per judge (never pooled).
    let traits = seen["traits"].as_array().unwrap();
    let mut expected = 0;
    for cp in checkpoints.iter().map(|c| c["graph"].as_str().unwrap()) {
        let mut inputs = vec![file_of(cp)];
        inputs.extend(
            bound
                .iter()
                .filter(|r| r["checkpoint"] == cp)
                .map(|r| file_of(r["graph"].as_str().unwrap())),
        );
        for w in query_rows(&inputs, "scores-by-trait-and-judge") {
            expected += 1;
            let c = traits
                .iter()
                .find(|c| {
                    c["graph"] == cp
                        && ["interface", "scope", "trait"]
                            .iter()
                            .all(|k| c[*k] == w[*k])
                        && c["model"] == w["model_name"]
                        && c["judge"] == w["parsing_model"]
                        && c["scoreKey"] == w["score_key"]
                })
                .unwrap_or_else(|| panic!("no trait cell for {w:?}"));
            assert_eq!(c["n"], w["n"]);
            assert_eq!(c["trueCount"], w["true_count"]);
            assert_eq!(c["mean"], w.get("mean").map_or("", |m| m.as_str().unwrap()));
        }
    }
    assert!(expected > 0);
    assert_eq!(traits.len(), expected);
    // A trait cell opens its scores: n of them with a value.
    let t = &seen["trait_opened"];
    let values = strings(&t["values"]);
    assert_eq!(
        t["total"].as_str().unwrap(),
        values.len().to_string(),
        "{t}"
    );
    let with_value = values.iter().filter(|v| !v.is_empty()).count();
    assert_eq!(with_value.to_string(), t["n"].as_str().unwrap(), "{t}");
    // Every text of every cell reads against its colour (WCAG AA, 4.5:1).
    assert!(
        seen["contrast"].as_f64().unwrap() >= 4.5,
        "{}",
        seen["contrast"]
    );
    // Every control has a name; a plain table sorts from the keyboard.
    assert_eq!(seen["unnamed"], Value::Array(vec![]));
    assert_eq!(seen["runs_sorted"][0], "ascending");
    let mut run_names = strings(&seen["runs_sorted"][1]);
    assert_eq!(run_names.len(), runs.len());
    let shown = run_names.clone();
    run_names.sort();
    assert_eq!(shown, run_names);
    // A 400 px window: the page is no wider than it.
    assert_eq!(seen["narrow"][0], 400);
    assert!(
        seen["narrow"][1].as_u64().unwrap() <= 400,
        "{}",
        seen["narrow"]
    );
    // On it the chart keeps its size (and scrolls sideways in its section)
    // rather than shrinking its 12 px labels to about 5 px.
    assert!(
        seen["narrow_chart_scale"].as_f64().unwrap() >= 0.99,
        "{}",
        seen["narrow_chart_scale"]
    );
    // Nothing left 127.0.0.1.
    let urls = strings(&seen["urls"]);
    assert!(urls.len() > 10, "{urls:?}");
    for u in &urls {
        assert!(
            u.starts_with(&format!("{}/", s.base)),
            "a request left the server: {u}"
        );
    }
    for shot in [
        "results-table.png",
        "leaderboard.png",
        "leaderboard-traits.png",
    ] {
        assert!(shots.join(shot).exists(), "{shot}");
    }
}

#[test]
#[ignore = "interop: needs chromium, chromedriver and selenium: cargo test -- --include-ignored"]
fn the_leaderboard_under_watch_is_redrawn_only_when_a_file_changes() {
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = crate::copy_to(
        dir.path(),
        &corpus().join("loads/docs__notebooks__test_checkpoint.jsonld"),
    );
    let results = crate::copy_to(
        dir.path(),
        &corpus().join("results/res-docs__notebooks__test_checkpoint.full.json"),
    );
    let files = [checkpoint.clone(), results.clone()];
    let before = query_rows(&files, "pass-rate-by-benchmark");
    let s = serve(&files, &["--watch"]);
    let partial = corpus().join("results/res-docs__notebooks__test_checkpoint.partial.json");
    let out = python(
        "browser_board_watch.py",
        &[
            &s.base,
            results.to_str().unwrap(),
            partial.to_str().unwrap(),
        ],
    );
    let seen: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    // Untouched, the board stays as drawn: its mark and the focus survive.
    assert_eq!(seen["kept"], serde_json::json!(["kept", true]));
    let (old, new) = (
        seen["before"].as_array().unwrap(),
        seen["after"].as_array().unwrap(),
    );
    assert_eq!(old.len(), before.len());
    for w in &before {
        assert_cell_data(old, w);
    }
    // Replaced on disk: the board shows kld query's answer on the new file.
    let after = query_rows(&files, "pass-rate-by-benchmark");
    assert_ne!(before, after);
    assert_eq!(new.len(), after.len());
    for w in &after {
        assert_cell_data(new, w);
    }
}
