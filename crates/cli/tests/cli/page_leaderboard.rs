//! The leaderboard by judge, run and outcome (issue 35) and the benchmarks
//! table's width (issue 40), on `tests/data/board/`: one benchmark run twice
//! (a full run and a later re-run of four questions) by two answering
//! models, each judged by two parsing models, three replicates, written by
//! Karenina's own pipeline (`tests/data/board/README.md`).
//! - `GET /leaderboard` never pools judges or runs: one cell per run and
//!   judge, or per benchmark over the latest result of each question;
//! - its numbers are Karenina's `get_summary()["template_pass_by_combo"]`
//!   for each run (Karenina's venv computes them at test time);
//! - in Chromium, the page shows each judge's rate with its n, their mean
//!   and spread, the matrix, and never a question counted twice;
//! - the benchmarks table stays within the window with a 300-character
//!   benchmark name.

use super::serve::{client, python, serve};
use crate::common::close;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const JUDGES: [&str; 2] = [
    "langchain:claude-haiku-4-5-20251001 (claude-haiku-4.5)",
    "langchain:gpt-4.1-nano",
];

fn data(name: &str) -> PathBuf {
    Path::new(env!("KLD_SOURCE_ROOT"))
        .join("tests/data/board")
        .join(name)
}

/// The benchmark and its two runs, copied into `dir`.
fn board_inputs(dir: &Path) -> Vec<PathBuf> {
    ["board.jsonld", "board-run-1.json", "board-run-2.json"]
        .iter()
        .map(|f| crate::copy_to(dir, &data(f)))
        .collect()
}

/// A server over the benchmark and its two runs, the full run labelled
/// `regime=full`, the re-run `regime=rerun` (`--label` before each).
fn serve_labelled(inputs: &[PathBuf], more: &[PathBuf]) -> super::serve::Server {
    let p = |i: usize| inputs[i].to_str().unwrap().to_string();
    let mut args = vec![
        p(0),
        "--label".into(),
        "regime=full".into(),
        p(1),
        "--label".into(),
        "regime=rerun".into(),
        p(2),
    ];
    args.extend(more.iter().map(|m| m.to_str().unwrap().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    serve(&[], &args)
}

fn get(base: &str, path: &str) -> Value {
    let r = client().get(format!("{base}{path}")).send().unwrap();
    assert_eq!(r.status(), 200, "{path}");
    r.json().unwrap()
}

fn num(v: &Value) -> usize {
    v.as_u64().unwrap() as usize
}

#[test]
fn the_leaderboard_never_pools_judges_or_runs() {
    let dir = tempfile::tempdir().unwrap();
    let s = serve_labelled(&board_inputs(dir.path()), &[]);
    let lb = get(&s.base, "/leaderboard");
    assert_eq!(lb["judges"], serde_json::json!(JUDGES));
    assert_eq!(
        lb["labels"],
        serde_json::json!(["regime=full", "regime=rerun"])
    );
    // A label filters runs: the re-run's column alone.
    let rerun = get(&s.base, "/leaderboard?label=regime%3Drerun");
    let cols = rerun["columns"].as_array().unwrap();
    assert_eq!(cols.len(), 1);
    assert!(cols[0]["run"]
        .as_str()
        .unwrap()
        .ends_with("board-run-2.json"));
    assert_eq!(cols[0]["labels"], serde_json::json!(["regime=rerun"]));
    assert_eq!(rerun["cells"].as_array().unwrap().len(), 4);
    // One column per run, two models, one cell per (run, model, judge).
    let columns = lb["columns"].as_array().unwrap();
    let runs: BTreeSet<&str> = columns.iter().map(|c| c["run"].as_str().unwrap()).collect();
    assert_eq!(columns.len(), 2);
    assert_eq!(runs.len(), 2);
    let cells = lb["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2 * 2 * 2);
    for c in cells {
        // The combo names the cell's judge, and only it.
        let combo = c["combo"].as_str().unwrap();
        let judge = c["judge"].as_str().unwrap();
        assert_eq!(combo.split(" | ").nth(1), Some(judge), "{c}");
        assert_eq!(c["most_per_question"], 1, "{c}");
        // n: the results whose template was verified; the rest by outcome,
        // infrastructure failures apart from wrong answers.
        let o = &c["outcomes"];
        let total: usize = o.as_object().unwrap().values().map(num).sum();
        assert_eq!(total, num(&c["results"]));
        assert!(num(&c["total"]) <= num(&c["results"]));
        assert_eq!(num(&c["passed"]), num(&o["passed"]), "{c}");
        let pct = c["pass_pct"].as_f64().unwrap();
        assert!((pct - 100.0 * num(&c["passed"]) as f64 / num(&c["total"]) as f64).abs() < 1e-12);
    }
    // Every failure group occurs in the fixture, so each is told apart.
    for group in ["content", "abstained", "autofail", "retry", "system"] {
        assert!(
            cells.iter().any(|c| num(&c["outcomes"][group]) > 0),
            "{group}"
        );
    }
    // The judges side by side: mean and spread of their rates.
    for sp in lb["spreads"].as_array().unwrap() {
        let rates: Vec<f64> = cells
            .iter()
            .filter(|c| c["column"] == sp["column"] && c["model"] == sp["model"])
            .map(|c| c["pass_pct"].as_f64().unwrap())
            .collect();
        assert_eq!(rates.len(), 2);
        let mean = (rates[0] + rates[1]) / 2.0;
        assert!(close(sp["mean"].as_f64().unwrap(), mean), "{sp}");
        let sd = (rates[0] - rates[1]).abs() / 2f64.sqrt();
        assert!(close(sp["sd"].as_f64().unwrap(), sd), "{sp}");
    }
    // One judge: only its cells.
    let one = get(&s.base, &format!("/leaderboard?judge={}", JUDGES[1]));
    let one_cells = one["cells"].as_array().unwrap();
    assert_eq!(one_cells.len(), 4);
    assert!(one_cells.iter().all(|c| c["judge"] == JUDGES[1]));
    // The latest result per question: one column, each (question,
    // replicate) once, every question of the benchmark (9 × 3 replicates).
    let latest = get(&s.base, "/leaderboard?latest=1");
    assert_eq!(latest["columns"].as_array().unwrap().len(), 1);
    assert_eq!(latest["columns"][0]["run"], Value::Null);
    for c in latest["cells"].as_array().unwrap() {
        assert_eq!(c["most_per_question"], 1, "{c}");
        assert_eq!((num(&c["results"]), num(&c["questions"])), (27, 9), "{c}");
    }
    // The matrix: every (question, model, replicate) slot once.
    let m = get(&s.base, &format!("/matrix?judge={}", JUDGES[0]));
    assert_eq!(m["latest"], true);
    let slots: BTreeSet<(u64, u64, u64)> = m["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["question"].as_u64().unwrap(),
                c["model"].as_u64().unwrap(),
                c["replicate"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(slots.len(), 9 * 2 * 3);
    assert_eq!(m["cells"].as_array().unwrap().len(), slots.len());
    assert!(m["questions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|q| q["text"].is_string()));
}

/// Karenina's `template_pass_by_combo` of each run file, by file name.
fn karenina_pass_by_combo(files: &[PathBuf]) -> BTreeMap<String, Value> {
    let out = std::process::Command::new(crate::common::karenina_python())
        .arg(concat!(
            env!("KLD_SOURCE_ROOT"),
            "/tests/scripts/karenina_board_summary.py"
        ))
        .args(files)
        .output()
        .expect("the Karenina venv's python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
#[ignore = "interop: needs the Karenina venv (tests/scripts/karenina-venv.sh; $KLD_KARENINA_VENV): cargo test -- --include-ignored"]
fn the_leaderboard_s_rates_are_karenina_s_template_pass_by_combo() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = board_inputs(dir.path());
    let want = karenina_pass_by_combo(&inputs[1..]);
    let s = serve(&inputs, &[]);
    for query in ["", "?judge=langchain:gpt-4.1-nano"] {
        let lb = get(&s.base, &format!("/leaderboard{query}"));
        let columns = lb["columns"].as_array().unwrap();
        let mut seen = 0;
        for c in lb["cells"].as_array().unwrap() {
            let run = columns[num(&c["column"])]["run"].as_str().unwrap();
            let file = run.rsplit('/').next().unwrap();
            let combo = c["combo"].as_str().unwrap();
            let k = &want[file][combo];
            assert!(k.is_object(), "{file}: {combo} is not Karenina's");
            assert_eq!(c["total"], k["total"], "{file} {combo}");
            assert_eq!(c["passed"], k["passed"], "{file} {combo}");
            let (ours, theirs) = (
                c["pass_pct"].as_f64().unwrap(),
                k["pass_pct"].as_f64().unwrap(),
            );
            assert!(close(ours, theirs), "{file} {combo}: {ours} {theirs}");
            seen += 1;
        }
        // Every combo of Karenina's, and no other.
        let expected: usize = want
            .values()
            .map(|v| {
                v.as_object()
                    .unwrap()
                    .keys()
                    .filter(|k| query.is_empty() || k.contains("| langchain:gpt-4.1-nano"))
                    .count()
            })
            .sum();
        assert_eq!(seen, expected, "{query}");
        assert!(seen >= 4);
    }
}

/// A checkpoint (the bundled example's questions, so its runs still bind to
/// their own) named with 300 characters and no space, in `dir`.
fn long_named(dir: &Path) -> PathBuf {
    let file = Path::new(env!("KLD_SOURCE_ROOT")).join("examples/notebook.jsonld");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    v["name"] = Value::String("Lorem_ipsum_".repeat(25));
    let path = dir.join("long_name.jsonld");
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    path
}

fn shots() -> PathBuf {
    Path::new(env!("KLD_SOURCE_ROOT")).join("target/screenshots")
}

#[test]
#[ignore = "interop: needs chromium, chromedriver and selenium: cargo test -- --include-ignored"]
fn the_page_shows_each_judge_s_rate_with_its_n_and_counts_no_question_twice() {
    let dir = tempfile::tempdir().unwrap();
    let s = serve_labelled(&board_inputs(dir.path()), &[]);
    let lb = get(&s.base, "/leaderboard");
    let out = python("browser_judges.py", &[&s.base, shots().to_str().unwrap()]);
    let seen: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let mut judges = vec![""];
    judges.extend(JUDGES);
    assert_eq!(seen["judges"], serde_json::json!(judges));
    let str_of = |v: &Value| v.as_str().unwrap_or("").to_string();
    // All judges: every cell of the endpoint, each its own judge's, with
    // its rate and its n in the text.
    let columns = lb["columns"].as_array().unwrap();
    let shown = seen["all"].as_array().unwrap();
    let want = lb["cells"].as_array().unwrap();
    assert_eq!(shown.len(), want.len());
    for w in want {
        let run = str_of(&columns[num(&w["column"])]["run"]);
        let c = shown
            .iter()
            .find(|c| c["run"] == run.as_str() && c["combo"] == w["combo"])
            .unwrap_or_else(|| panic!("no cell for {w}"));
        assert_eq!(c["judge"], w["judge"]);
        assert_eq!(str_of(&c["total"]), w["total"].to_string());
        assert_eq!(str_of(&c["passed"]), w["passed"].to_string());
        let pct = w["pass_pct"].as_f64().unwrap();
        assert_eq!(str_of(&c["passPct"]).parse::<f64>().unwrap(), pct);
        // The model × judge grid: the rate and its n in the cell, its
        // other results by outcome (wrong answers apart from
        // infrastructure failures) on hover.
        let text = str_of(&c["text"]);
        assert_eq!(text, format!("{pct:.1}n={}", w["total"]), "{c}");
        let title = str_of(&c["title"]);
        assert!(title.starts_with(w["combo"].as_str().unwrap()), "{title}");
        assert!(
            title.contains(" wrong") && title.contains(" infra"),
            "{title}"
        );
        // The judges' mean beside, never one pooled rate.
        let spread = &c["spread"];
        assert_eq!(spread["judges"], "2");
        let mean = lb["spreads"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["column"] == w["column"] && s["model"] == w["model"])
            .unwrap();
        assert_eq!(
            str_of(&spread["mean"]).parse::<f64>().unwrap(),
            mean["mean"].as_f64().unwrap(),
            "{spread}"
        );
    }
    // One judge at a time: its cells only.
    for j in JUDGES {
        let cells = seen["by_judge"][j].as_array().unwrap();
        assert_eq!(cells.len(), 4, "{j}");
        assert!(cells
            .iter()
            .all(|c| c["judge"] == j && c["spread"].is_null()));
    }
    // The label filter: each label its run's cells.
    assert_eq!(
        seen["labels"],
        serde_json::json!(["", "regime=full", "regime=rerun"])
    );
    for (label, file) in [
        ("regime=full", "board-run-1.json"),
        ("regime=rerun", "board-run-2.json"),
    ] {
        let cells = seen["by_label"][label].as_array().unwrap();
        assert_eq!(cells.len(), 4, "{label}");
        assert!(
            cells.iter().all(|c| str_of(&c["run"]).ends_with(file)),
            "{label}"
        );
    }
    // The latest result per question: one column, each question once per
    // replicate, all 9 of them.
    let latest = seen["latest"].as_array().unwrap();
    assert_eq!(latest.len(), 4);
    for c in latest {
        assert_eq!(c["run"], "", "{c}");
        assert_eq!(
            (str_of(&c["results"]), str_of(&c["questions"])),
            ("27".into(), "9".into())
        );
    }
    // No cell counts a question (and replicate) twice.
    for c in shown.iter().chain(latest) {
        assert_eq!(c["mostPerQuestion"], "1", "{c}");
    }
    // A cell opens its matrix: that judge, that run.
    let opened = &seen["opened"];
    assert_eq!(opened["view"], "matrix");
    assert!(str_of(&opened["status"]).contains(opened["judge"].as_str().unwrap()));
    // The matrix, per judge and per run or latest: every slot at most once;
    // latest, every (question, model, replicate) once.
    for (key, m) in seen["matrix"].as_object().unwrap() {
        let cells = m["cells"].as_array().unwrap();
        assert!(
            cells.iter().all(|c| c["count"] == "0" || c["count"] == "1"),
            "{key}"
        );
        let filled = cells.iter().filter(|c| c["count"] == "1").count();
        let run = key.split('\u{0}').nth(1).unwrap();
        let questions = if run.ends_with("board-run-2.json") {
            4
        } else {
            9
        };
        assert_eq!(filled, questions * 2 * 3, "{key}");
        assert_eq!(m["heads"].as_array().unwrap().len(), questions, "{key}");
    }
    assert_eq!(seen["matrix"].as_object().unwrap().len(), 2 * 3);
}

#[test]
#[ignore = "interop: needs chromium, chromedriver and selenium: cargo test -- --include-ignored"]
fn the_benchmarks_table_stays_within_the_window_with_a_300_character_name() {
    let dir = tempfile::tempdir().unwrap();
    let long = long_named(dir.path());
    let s = serve_labelled(&board_inputs(dir.path()), &[long]);
    let out = python(
        "browser_judges.py",
        &[&s.base, shots().to_str().unwrap(), "fits"],
    );
    let seen: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    for size in ["fits_wide", "fits_narrow"] {
        let f: Vec<f64> = seen[size]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let [right, window, page, last_head, section, table] = f[..] else {
            panic!("{size}: {f:?}")
        };
        // The page is no wider than the window, the table no wider than its
        // section, and its last column's header within the window.
        assert!(page <= window, "{size}: {f:?}");
        assert!(table <= section, "{size}: {f:?}");
        assert!(right <= window && last_head <= window, "{size}: {f:?}");
    }
}
