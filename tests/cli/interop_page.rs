//! The page's downloads in the formats the field shares (issue 22), clicked
//! in a real browser: Inspect and Croissant on a benchmark, a run's Every
//! Eval Ever files, each the bytes `kld export` (or `GET /export`) gives.

use super::interop::files_under;
use super::queries::{expr_rows, query_rows};
use super::serve::{client, python, serve};
use super::{kld, stdout_of};
use crate::common::corpus;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

fn by_name(files: impl IntoIterator<Item = std::path::PathBuf>) -> BTreeMap<String, Vec<u8>> {
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

#[test]
#[ignore = "interop tier, needs chromium, chromedriver, selenium and mlcroissant: cargo test -- --include-ignored"]
fn the_page_downloads_inspect_croissant_and_a_runs_eee_files() {
    let checkpoint = corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld");
    let results = corpus().join("results/res-tests__fixtures__checkpoints__with_rubrics.full.json");
    let s = serve(&[checkpoint.clone(), results.clone()], &[]);
    let dl = tempfile::tempdir().unwrap();
    let out = python(
        "browser_downloads.py",
        &[&s.base, dl.path().to_str().unwrap()],
    );
    let seen: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let path = |k: &str| Path::new(seen[k].as_str().unwrap()).to_path_buf();

    // Inspect: the bytes kld export writes.
    let want = stdout_of(kld().args(["export", "-f", "inspect"]).arg(&checkpoint));
    assert_eq!(std::fs::read_to_string(path("inspect")).unwrap(), want);

    // Croissant: a licence the server refuses is shown with the reason; with
    // CC-BY-4.0 the body /export gives, which mlcroissant validates and reads
    // through the server's /checkpoint: kld query's question IDs, in order.
    let refusal = seen["refusal"].as_str().unwrap();
    assert!(refusal.contains("SPDX"), "{refusal}");
    let croissant = std::fs::read(path("croissant")).unwrap();
    let list: Value = client()
        .get(format!("{}/checkpoints", s.base))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let graph = list[0]["graph"].as_str().unwrap();
    let served = client()
        .get(format!("{}/export", s.base))
        .query(&[
            ("graph", graph),
            ("format", "croissant"),
            ("license", "CC-BY-4.0"),
        ])
        .send()
        .unwrap()
        .bytes()
        .unwrap();
    assert_eq!(croissant, served.to_vec());
    let read: Vec<Value> = serde_json::from_str(&python(
        "croissant_load.py",
        &[path("croissant").to_str().unwrap()],
    ))
    .unwrap();
    assert_eq!(read[0]["issues"], Value::Array(vec![]));
    let ids: Vec<&Value> = read[0]["sets"]["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["id"])
        .collect();
    let rows = query_rows(std::slice::from_ref(&checkpoint), "questions");
    let want: Vec<&Value> = rows.iter().map(|r| &r["qid"]).collect();
    assert_eq!(ids, want);

    // EEE: one link per file of kld export -f eee, byte for byte, and valid
    // against the pinned schemas.
    let dir = tempfile::tempdir().unwrap();
    stdout_of(
        kld()
            .args(["export", "-f", "eee"])
            .arg(&results)
            .arg("--for")
            .arg(&checkpoint)
            .arg("-o")
            .arg(dir.path()),
    );
    let want = by_name(files_under(dir.path()));
    let got_paths: Vec<std::path::PathBuf> = seen["eee"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| Path::new(p.as_str().unwrap()).to_path_buf())
        .collect();
    assert_eq!(seen["eee_links"].as_array().unwrap().len(), want.len());
    assert!(want.len() >= 2, "{:?}", want.keys());
    assert_eq!(by_name(got_paths.clone()), want);
    let schemas = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/eee");
    let mut args = vec![schemas.to_str().unwrap()];
    args.extend(got_paths.iter().map(|p| p.to_str().unwrap()));
    let v: Value = serde_json::from_str(&python("eee_validate.py", &args)).unwrap();
    assert_eq!(v["errors"], Value::Array(vec![]));
}

#[test]
#[ignore = "interop tier, needs chromium, chromedriver and selenium: cargo test -- --include-ignored"]
fn the_sparql_editor_completes_runs_marks_errors_keeps_permalinks_and_history_offline() {
    let checkpoint = corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld");
    let files = vec![checkpoint];
    let s = serve(&files, &[]);
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    let out = python(
        "browser_editor.py",
        &[&s.base, shots.to_str().unwrap(), "traits"],
    );
    let seen: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let rows = |k: &str| seen[k].as_array().unwrap().clone();

    // The store's terms came in when the editor was first focused (not on
    // load); schema:DataFeed was offered under
    // kld's prefix, and choosing it declared the prefix with https.
    assert_eq!(seen["vocabulary_before_focus"], Value::Null);
    assert!(seen["vocabulary"].as_str().unwrap().contains(" classes"));
    let offered = seen["completions"].as_array().unwrap();
    assert!(
        offered[0].as_str().unwrap().starts_with("schema:DataFeed"),
        "{offered:?}"
    );
    let typed = seen["typed"].as_str().unwrap();
    assert_eq!(
        typed,
        "PREFIX schema: <https://schema.org/>\n\
         SELECT ?graph ?name WHERE { GRAPH ?graph { ?feed a schema:DataFeed ; schema:name ?name } }"
    );
    // Highlighted: keywords, variables and plain text in different colours.
    let c = &seen["colours"];
    assert_ne!(c["SELECT"], c["plain"]);
    assert_ne!(c["SELECT"], c["?graph"]);
    // Ctrl-Enter ran it: kld query's rows, the names shown.
    let names: Vec<Value> = expr_rows(&files, typed)
        .into_iter()
        .map(|r| r["name"].clone())
        .collect();
    let got = rows("rows");
    assert_eq!(got.len(), names.len());
    assert!(!names.is_empty());
    for n in &names {
        assert!(got.iter().any(|r| r[1] == *n), "{n} not in {got:?}");
    }
    // The permalink reopened it in a new tab: the same text, the same rows;
    // the address bar holds it too.
    let link = seen["permalink"].as_str().unwrap();
    assert!(link.starts_with(&format!("{}/#query=", s.base)), "{link}");
    assert_eq!(seen["location"], seen["permalink"]);
    assert_eq!(seen["permalink_text"], typed);
    assert_eq!(rows("permalink_rows"), got);

    // The syntax error is marked where the server's 400 says.
    let bad = seen["bad"].as_str().unwrap();
    let r = client()
        .post(format!("{}/sparql", s.base))
        .form(&[("query", bad)])
        .send()
        .unwrap();
    assert_eq!(r.status(), 400);
    let body = r.text().unwrap();
    let at = body.split("syntax error at ").nth(1).unwrap();
    let mut pos = at.split(':').take(2).map(|n| n.parse::<u64>().unwrap());
    let (line, column) = (pos.next().unwrap(), pos.next().unwrap());
    assert_eq!(line, 3, "{body}");
    let m = &seen["marked"];
    assert_eq!(m["line"].as_u64().unwrap(), line, "{m}");
    assert_eq!(m["column"].as_u64().unwrap(), column, "{m}");
    assert_eq!(m["data_line"], line.to_string());
    assert_eq!(m["data_column"], column.to_string());
    assert!(seen["error_box"]
        .as_str()
        .unwrap()
        .starts_with(body.lines().next().unwrap()));
    assert_eq!(seen["mark_after_edit"], 0, "an edit clears the mark");
    // At the end of a line: the server's column is past it; its last
    // character is marked.
    let end = &seen["marked_end"];
    let line3 = seen["bad_end"].as_str().unwrap().lines().nth(2).unwrap();
    assert_eq!(end["data_line"], "3");
    assert_eq!(end["data_column"], (line3.chars().count() + 1).to_string());
    assert_eq!(end["line"], line3);
    assert_eq!(end["text"], "}");

    // History (localStorage, across a reload): newest first, each query
    // once; three arrow keys on the list bring the typed query back.
    let history: Vec<&str> = seen["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let bad_end = seen["bad_end"].as_str().unwrap();
    assert_eq!(history, vec![bad, bad_end, typed]);
    assert_eq!(seen["recalled"], typed);
    assert_eq!(rows("recalled_rows"), got);

    // A catalogue query: its documentation (the comment header, as GET
    // /queries gives it) beside the editor; its permalink names it and
    // reopens it with the documentation and kld query's rows.
    let catalogue: Value = client()
        .get(format!("{}/queries", s.base))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let traits = catalogue
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["name"] == "traits")
        .unwrap();
    assert_eq!(seen["doc_shown"], true);
    assert_eq!(seen["doc_beside"], true);
    assert_eq!(seen["doc_text"], traits["description"]);
    let returns: Vec<String> = traits["returns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| format!("?{}", v.as_str().unwrap()))
        .collect();
    assert_eq!(seen["doc_returns"], returns.join(" "));
    assert!(seen["catalogue_permalink"]
        .as_str()
        .unwrap()
        .ends_with("&name=traits"));
    let want = query_rows(&files, "traits");
    assert_eq!(rows("catalogue_rows").len(), want.len());
    assert_eq!(rows("catalogue_permalink_rows"), rows("catalogue_rows"));
    assert_eq!(seen["catalogue_permalink_chosen"], "traits");
    assert_eq!(seen["catalogue_permalink_doc"], traits["description"]);
    assert_eq!(seen["name_only_text"], traits["query"]);
    assert_eq!(rows("name_only_rows"), rows("catalogue_rows"));
    // The history keeps the 30 newest, the newest first; Clear history
    // empties it.
    let kept = &seen["history_kept"];
    assert_eq!(kept[0], 30);
    assert_eq!(kept[1], traits["query"]);
    assert_eq!(kept[2], "ASK { ?s ?p 28 }");
    assert_eq!(seen["history_cleared"], serde_json::json!([null, 1]));

    // Keyboard: Tab reaches the editor and leaves it; every control has a
    // name; text contrast at least 4.5:1 (WCAG AA).
    let order: Vec<&str> = seen["tab_order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let i = order
        .iter()
        .position(|o| *o == "editor")
        .expect("Tab reaches the editor");
    // Tab leaves the editor: the next focus is another element.
    let next = order.get(i + 1).expect("a Tab after the editor");
    assert_ne!(*next, "editor", "{order:?}");
    assert_eq!(seen["unnamed"], Value::Array(vec![]));
    assert!(
        seen["contrast"]["ratio"].as_f64().unwrap() >= 4.5,
        "{}",
        seen["contrast"]
    );

    // 400 px wide: the editor area fits, the documentation below the editor.
    let n = &seen["narrow"];
    assert_eq!(n["inner"], 400);
    assert!(n["area_overflow"].as_f64().unwrap() <= 0.0, "{n}");
    assert!(n["bar_overflow"].as_f64().unwrap() <= 0.0, "{n}");
    assert!(n["editor_right"].as_f64().unwrap() <= 400.0, "{n}");
    assert_eq!(n["doc_below"], true);

    // Every request went to this server (all other hosts resolved to nothing).
    assert!(seen["requests"].as_u64().unwrap() >= 10);
    assert_eq!(seen["foreign"], Value::Array(vec![]));
    for shot in [
        "editor-completion.png",
        "editor-results.png",
        "editor-error.png",
        "editor-catalogue.png",
    ] {
        assert!(shots.join(shot).exists(), "{shot}");
    }
}
