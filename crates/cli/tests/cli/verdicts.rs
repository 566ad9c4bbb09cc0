//! Three-valued verdicts everywhere (issue 18, case 3): true, false and null
//! (no verdict) told apart, and a CSV's "false or null" shown as such, in
//! `kld info` and on the page (headless Chromium), whose question filters
//! agree with the catalogue queries of the same name.

use crate::common::*;
use crate::trust::{expect, num, query};
use crate::{kld, stdout_of};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const NOTEBOOK: &str = "res-docs__notebooks__test_checkpoint.full";
const SCENARIO: &str = "res-karenina-output__scenario_probe.scenario";
const RUBRICS: &str = "res-tests__fixtures__checkpoints__with_rubrics.full";
const ORPHAN: &str = "res-orphan.orphan";

/// Per "interface:model_name": verify_result true, false, null from the facts.
fn verdicts(run: &str) -> BTreeMap<String, [u64; 3]> {
    expect(run)["facts"]["per_answering_model"]
        .as_object()
        .unwrap()
        .values()
        .map(|m| {
            let id = &m["identity"];
            let v = &m["verify_result"];
            (
                format!(
                    "{}:{}",
                    id["interface"].as_str().unwrap(),
                    id["model_name"].as_str().unwrap()
                ),
                ["true", "false", "null"].map(|k| v[k].as_u64().unwrap()),
            )
        })
        .collect()
}

#[test]
fn info_tells_no_verdict_and_false_or_null_apart() {
    let res = corpus().join("results");
    let text = stdout_of(kld().arg("info").arg(res.join(format!("{SCENARIO}.json"))));
    let mut no_verdict = 0;
    for (model, [t, f, n]) in verdicts(SCENARIO) {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{model}:")))
            .unwrap();
        if t + f == 0 {
            assert!(line.contains("no verdict") && !line.contains('%'), "{line}");
            no_verdict += 1;
        }
        assert!(
            line.contains(&format!("{t} true, {f} false, {n} null")),
            "{line}"
        );
    }
    assert!(no_verdict > 0);
    let csv = res.join(format!("{RUBRICS}.csv"));
    let text = stdout_of(kld().arg("info").arg(&csv));
    let json: Value = serde_json::from_str(&stdout_of(
        kld().args(["info", "--format", "json"]).arg(&csv),
    ))
    .unwrap();
    for (model, [t, f, n]) in verdicts(RUBRICS) {
        let short = model.split(" (").next().unwrap();
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(short))
            .unwrap();
        assert!(
            line.contains(&format!("{t} true, {} false or null", f + n)),
            "{line}"
        );
        let m = json["models"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(k, _)| k.starts_with(short))
            .unwrap()
            .1;
        assert_eq!(m["verified_false_or_null"], f + n);
        assert_eq!(
            (m["verified_false"].as_u64(), m["verified_null"].as_u64()),
            (Some(0), Some(0))
        );
    }
}

fn examples() -> PathBuf {
    Path::new(env!("KLD_SOURCE_ROOT")).join("examples")
}

/// Rows of a catalogue query over one file.
fn rows_of(file: &Path, name: &str) -> Vec<Map<String, Value>> {
    let (code, rows, err) = query(&[&file], name);
    assert_eq!(code, 0, "{err}");
    rows
}

#[test]
#[ignore = "interop: needs chromium, chromedriver and selenium: cargo test -- --include-ignored"]
fn the_page_draws_each_verdict_lists_unbound_runs_and_filters_like_the_catalogue() {
    let d = tempfile::tempdir().unwrap();
    let res = corpus().join("results");
    let copy = |src: PathBuf| -> PathBuf {
        let p = d.path().join(src.file_name().unwrap());
        std::fs::copy(&src, &p).unwrap();
        p
    };
    let checkpoints: Vec<PathBuf> = vec![
        copy(examples().join("notebook.jsonld")),
        copy(examples().join("probe.jsonld")),
        copy(examples().join("scenario.jsonld")),
        copy(corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld")),
    ];
    for f in [
        examples().join("runs/notebook.verification.json"),
        examples().join("runs/scenario.verification.json"),
        // The CSV of the notebook run beside its JSON: skipped, listed once.
        res.join(format!("{NOTEBOOK}.csv")),
        // A run known only from its CSV: false and null look alike.
        res.join(format!("{RUBRICS}.csv")),
        res.join(format!("{ORPHAN}.json")),
    ] {
        copy(f);
    }
    let catalogue = rows_of(d.path(), "pass-rate-by-benchmark");
    let server = crate::serve::serve(&[d.path().to_path_buf()], &[]);
    let shot = Path::new(env!("KLD_SOURCE_ROOT")).join("target/serve-verdicts.png");
    let out = crate::serve::python(
        "browser_verdicts.py",
        &[&server.base, shot.to_str().unwrap()],
    );
    let seen: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();

    // A legend entry and a colour for each verdict, all different.
    let legend = seen["legend"].as_object().unwrap();
    let colours: BTreeSet<&str> = legend
        .values()
        .map(|l| l["background"].as_str().unwrap())
        .collect();
    assert_eq!(colours.len(), 4, "{legend:?}");
    assert!(legend["unknown"]["text"]
        .as_str()
        .unwrap()
        .contains("false or null"));

    // One bar per catalogue row, its segments the verdict counts.
    let bars = seen["bars"].as_array().unwrap();
    assert_eq!(bars.len(), catalogue.len());
    // The run behind each benchmark, by the benchmark name its facts give.
    let run_of = |benchmark: &Value| -> &str {
        [NOTEBOOK, SCENARIO, RUBRICS]
            .into_iter()
            .find(|r| expect(r)["benchmark_name"] == *benchmark)
            .unwrap_or_else(|| panic!("no run for {benchmark}"))
    };
    let (mut no_verdict_bars, mut outcome_styles) = (0, BTreeMap::new());
    // The facts are per answering model: a model's bars (one per judge and
    // run) add up to them.
    type Counts = [u64; 4];
    let mut by_model: BTreeMap<(&str, String), (Counts, Counts)> = BTreeMap::new();
    for b in bars {
        // One bar per catalogue row: its benchmark, run and combo.
        let r = catalogue
            .iter()
            .find(|r| {
                r["graph"] == b["graph"]
                    && r["results_graph"] == b["run"]
                    && r["combo"] == b["combo"]
            })
            .unwrap_or_else(|| panic!("no catalogue row for {b}"));
        assert_eq!(r["parsing_model"], b["judge"]);
        assert_eq!(r["results"], b["results"]);
        let run = run_of(&b["benchmark"]);
        let csv = run == RUBRICS;
        let model = format!(
            "{}:{}",
            b["interface"].as_str().unwrap(),
            b["model"].as_str().unwrap()
        );
        let [t, f, n] = verdicts(run)
            .into_iter()
            .find(|(k, _)| *k == model)
            .unwrap_or_else(|| panic!("no facts for {model}"))
            .1;
        let want: [u64; 4] = if csv { [t, 0, 0, f + n] } else { [t, f, n, 0] };
        let got: [u64; 4] = ["passed", "failed", "no-verdict", "false-or-null"]
            .map(|k| b[k].as_str().unwrap().parse().unwrap());
        let sums = by_model
            .entry((run, model.clone()))
            .or_insert(([0; 4], want));
        for (s, g) in sums.0.iter_mut().zip(got) {
            *s += g;
        }
        let results: u64 = b["results"].as_str().unwrap().parse().unwrap();
        for (cls, count) in ["fill", "fail", "none", "unknown"].iter().zip(got) {
            let ratio = b["segments"][cls]["ratio"].as_f64().unwrap();
            assert!(
                (ratio - count as f64 / results as f64).abs() < 1e-6,
                "{cls} {b}"
            );
        }
        if got[0] + got[1] + got[3] == 0 {
            // A scenario run without verdicts: "no verdict", not 0 %.
            assert!(
                b["label"].as_str().unwrap().starts_with("no verdict"),
                "{b}"
            );
            assert!(!b["label"].as_str().unwrap().contains('%'));
            no_verdict_bars += 1;
        }
        // The outcomes behind the bar: each result once, its verdict styled.
        let outcomes = b["outcomes"].as_array().unwrap();
        assert_eq!(outcomes.len() as u64, results, "{b}");
        for o in outcomes {
            let verdict = o["verdict"].as_str().unwrap();
            assert_ne!(verdict, "—");
            let want_class = match verdict {
                "true" => "verdict-true",
                "false" => "verdict-false",
                "null (no verdict)" => "verdict-null",
                "false or null" => "verdict-unknown",
                other => panic!("verdict {other:?}"),
            };
            assert_eq!(o["class"], want_class);
            assert!(
                csv == (verdict == "false or null") || verdict == "true",
                "{o}"
            );
            outcome_styles.insert(
                want_class.to_string(),
                o["color"].as_str().unwrap().to_string(),
            );
        }
    }
    for ((run, model), (got, want)) in &by_model {
        assert_eq!(got, want, "{model} on {run}");
    }
    assert!(no_verdict_bars > 0);
    assert_eq!(outcome_styles.len(), 4, "{outcome_styles:?}");
    assert_eq!(
        outcome_styles.values().collect::<BTreeSet<_>>().len(),
        4,
        "four distinct verdict colours: {outcome_styles:?}"
    );
    // The notebook run is listed once, though its CSV lies beside it.
    let notebook_outcomes: usize = bars
        .iter()
        .filter(|b| b["benchmark"] == expect(NOTEBOOK)["benchmark_name"])
        .map(|b| b["outcomes"].as_array().unwrap().len())
        .sum();
    assert_eq!(
        notebook_outcomes as u64,
        expect(NOTEBOOK)["results_count"].as_u64().unwrap()
    );

    // The orphan run is listed, with its size and why.
    let unbound = seen["unbound"].as_array().unwrap();
    assert_eq!(unbound.len(), 1, "{unbound:?}");
    assert!(unbound[0]["source"]
        .as_str()
        .unwrap()
        .ends_with(&format!("{ORPHAN}.json")));
    assert_eq!(
        unbound[0]["results"],
        expect(ORPHAN)["results_count"].to_string()
    );
    assert!(unbound[0]["reason"]
        .as_str()
        .unwrap()
        .contains("no loaded checkpoint holds all"));

    // Each benchmark's filters count what the catalogue's queries list.
    let filters = seen["filters"].as_object().unwrap();
    assert_eq!(filters.len(), checkpoints.len());
    let mut without_template = 0;
    for cp in &checkpoints {
        let graph = format!("file://{}", cp.canonicalize().unwrap().display());
        let f = &filters[&graph];
        assert_eq!(
            f["f-unfinished"],
            rows_of(cp, "unfinished").len(),
            "{graph}"
        );
        let n = rows_of(cp, "questions-without-template").len();
        assert_eq!(f["f-notemplate"], n, "{graph}");
        without_template += n;
        let keywords: BTreeMap<String, u64> = rows_of(cp, "keywords")
            .iter()
            .map(|r| {
                (
                    r["keyword"].as_str().unwrap().to_string(),
                    num(r, "questions"),
                )
            })
            .collect();
        let page: BTreeMap<String, u64> = serde_json::from_value(f["f-keyword"].clone()).unwrap();
        assert_eq!(page, keywords, "{graph}");
        let mut traits: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for r in rows_of(cp, "traits")
            .iter()
            .filter(|r| r["scope"] == "question")
        {
            traits
                .entry(
                    r["type"]
                        .as_str()
                        .unwrap()
                        .trim_start_matches("karenina:")
                        .to_string(),
                )
                .or_default()
                .insert(r["qid"].as_str().unwrap().to_string());
        }
        let page: BTreeMap<String, u64> = serde_json::from_value(f["f-trait"].clone()).unwrap();
        let want: BTreeMap<String, u64> = traits
            .into_iter()
            .map(|(k, v)| (k, v.len() as u64))
            .collect();
        assert_eq!(page, want, "{graph}");
    }
    // The notebook's default-placeholder template is "without template".
    assert!(without_template > 0);
    assert!(shot.exists());
}
