//! The page's SPARQL query editor (issue 28). As served: the CodeMirror
//! bundle gzipped to clients that accept it and within its size budget, the
//! licences of every package in web/package-lock.json beside it, and the
//! prefixes the editor offers being exactly the ones the endpoint accepts
//! undeclared. In a real browser (interop tier): completion, Ctrl-Enter,
//! marked syntax errors, permalinks, history, the catalogue's documentation,
//! keyboard use, contrast and a narrow window, with no request leaving
//! 127.0.0.1.

use super::queries::{expr_rows, query_rows};
use super::serve::{client, python, serve};
use crate::common::corpus;
use serde_json::Value;
use std::io::Read;
use std::path::Path;

fn page_file(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("KLD_SOURCE_ROOT"))
            .join("crates/serve/src/page")
            .join(name),
    )
    .unwrap()
}

/// GET `url` with the request headers `headers`.
fn get(url: &str, headers: &[(&str, &str)]) -> reqwest::blocking::Response {
    headers
        .iter()
        .fold(client().get(url), |r, (k, v)| r.header(*k, *v))
        .send()
        .unwrap()
}

fn one_checkpoint() -> super::serve::Server {
    serve(
        &[corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld")],
        &[],
    )
}

#[test]
fn the_editor_bundle_is_served_gzipped_to_who_accepts_it_and_whole_to_who_does_not() {
    let s = one_checkpoint();
    let raw = page_file("editor.bundle.js");
    assert!(raw.len() <= 500_000, "bundle of {} bytes", raw.len());
    let url = format!("{}/editor.bundle.js", s.base);
    let gz = get(&url, &[("Accept-Encoding", "gzip, deflate, br")]);
    assert_eq!(gz.status(), 200);
    assert_eq!(gz.headers()["content-encoding"], "gzip");
    assert_eq!(gz.headers()["vary"], "accept-encoding");
    assert_eq!(gz.headers()["cache-control"], "no-cache");
    let gz_etag = gz.headers()["etag"].to_str().unwrap().to_string();
    assert!(gz.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/javascript"));
    let body = gz.bytes().unwrap();
    assert!(
        body.len() * 2 < raw.len(),
        "{} gzipped of {}",
        body.len(),
        raw.len()
    );
    let mut back = Vec::new();
    flate2::read::GzDecoder::new(&body[..])
        .read_to_end(&mut back)
        .unwrap();
    assert_eq!(back, raw);
    // Revalidation: its tag gets 304 and no body; another tag the bundle.
    let etag = gz_etag;
    assert_eq!(etag.len(), 34, "{etag}");
    let again = get(
        &url,
        &[("Accept-Encoding", "gzip"), ("If-None-Match", &etag)],
    );
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);
    assert!(again.bytes().unwrap().is_empty());
    let other = get(&url, &[("If-None-Match", "\"other\"")]);
    assert_eq!(other.status(), 200);
    assert_eq!(other.bytes().unwrap().len(), raw.len());
    // No gzip asked, or gzip refused: the bundle as it is.
    for accept in [None, Some("identity"), Some("gzip;q=0, *")] {
        let headers: Vec<(&str, &str)> = accept.iter().map(|a| ("Accept-Encoding", *a)).collect();
        let r = get(&url, &headers);
        assert!(r.headers().get("content-encoding").is_none(), "{accept:?}");
        assert_eq!(r.bytes().unwrap().to_vec(), raw, "{accept:?}");
    }
    // The page loads it, and its own script, from this server only.
    let html = get(&format!("{}/", s.base), &[]).text().unwrap();
    assert!(html.contains(r#"<script src="/editor.bundle.js"></script>"#));
    assert!(html.contains(r#"<script src="/editor.js"></script>"#));
    // Nothing it loads or links names another host (IRIs in the sample
    // query are text).
    for attr in ["src=\"", "href=\""] {
        for v in html.split(attr).skip(1) {
            let v = v.split('"').next().unwrap();
            assert!(v.starts_with('/') || v.starts_with('#'), "{attr}{v}");
        }
    }
    let js = get(&format!("{}/editor.js", s.base), &[]).bytes().unwrap();
    assert_eq!(js.to_vec(), page_file("editor.js"));
}

#[test]
fn every_package_of_the_lock_file_in_the_bundle_has_its_licence_served_beside_it() {
    let s = one_checkpoint();
    let served = get(&format!("{}/editor.bundle.LICENSES.txt", s.base), &[])
        .text()
        .unwrap();
    assert_eq!(
        served.as_bytes(),
        page_file("editor.bundle.LICENSES.txt").as_slice()
    );
    let lock: Value = serde_json::from_slice(
        &std::fs::read(Path::new(env!("KLD_SOURCE_ROOT")).join("web/package-lock.json")).unwrap(),
    )
    .unwrap();
    // esbuild (and its platform binaries) builds the bundle; every other
    // locked package is code in it.
    let mut locked: Vec<(String, String)> = lock["packages"]
        .as_object()
        .unwrap()
        .iter()
        .filter_map(|(path, p)| {
            let name = path.strip_prefix("node_modules/")?;
            (!name.contains("esbuild"))
                .then(|| (name.to_string(), p["version"].as_str().unwrap().to_string()))
        })
        .collect();
    locked.sort();
    // Each package's heading: `NAME VERSION (LICENCE)` between rules.
    let mut named: Vec<(String, String)> = served
        .split("=".repeat(72).as_str())
        .skip(1)
        .step_by(2)
        .map(|head| {
            let mut w = head.split_whitespace();
            (w.next().unwrap().to_string(), w.next().unwrap().to_string())
        })
        .collect();
    named.sort();
    assert_eq!(named, locked);
    assert!(locked.iter().any(|(n, _)| n == "codemirror-lang-sparql"));
    assert!(served.matches("Permission is hereby granted").count() >= locked.len());
}

#[test]
fn the_prefixes_the_editor_offers_are_the_ones_the_endpoint_takes_undeclared() {
    let s = one_checkpoint();
    let prefixes: Value = get(&format!("{}/prefixes", s.base), &[]).json().unwrap();
    let list = prefixes.as_array().unwrap();
    let iri = |p: &str| {
        list.iter()
            .find(|e| e["prefix"] == p)
            .map(|e| e["iri"].as_str().unwrap().to_string())
    };
    assert_eq!(iri("schema").as_deref(), Some("https://schema.org/"));
    assert_eq!(iri("karenina").as_deref(), Some("urn:karenina:vocab:"));
    let ask = |query: String| {
        client()
            .post(format!("{}/sparql", s.base))
            .form(&[("query", query)])
            .header("Accept", "application/sparql-results+json")
            .send()
            .unwrap()
    };
    for e in list {
        let p = e["prefix"].as_str().unwrap();
        let r = ask(format!("ASK {{ GRAPH ?g {{ ?s {p}:x ?o }} }}"));
        assert_eq!(r.status(), 200, "{p}: {}", r.text().unwrap());
        // Undeclared, p:local means the served IRI + local.
        let full = e["iri"].as_str().unwrap();
        let same = ask(format!("ASK {{ FILTER(STR({p}:name) = \"{full}name\") }}"));
        assert_eq!(same.json::<Value>().unwrap()["boolean"], true, "{p}");
    }
    // A prefix it does not serve is one the endpoint does not take.
    assert!(iri("foaf").is_none());
    assert_eq!(ask("ASK { ?s foaf:name ?o }".into()).status(), 400);
}

#[test]
#[ignore = "interop: needs chromium, chromedriver and selenium: cargo test -- --include-ignored"]
fn the_sparql_editor_completes_runs_marks_errors_keeps_permalinks_and_history_offline() {
    let checkpoint = corpus().join("loads/tests__fixtures__checkpoints__with_rubrics.jsonld");
    let files = vec![checkpoint];
    let s = serve(&files, &[]);
    let shots = Path::new(env!("KLD_SOURCE_ROOT")).join("target/screenshots");
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
    // The permalink reopened it in a new tab: the same text, waiting for
    // Run (no rows yet), then the same rows; the address bar holds it too.
    assert_eq!(
        seen["permalink_waiting"],
        serde_json::json!(["Opened from a link: press Run to run it.", 0])
    );
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
    let position = |after: &str| -> (u64, u64) {
        let at = body.split(after).nth(1).unwrap();
        let mut pos = at
            .split([':', ' '])
            .take(2)
            .map(|n| n.parse::<u64>().unwrap());
        (pos.next().unwrap(), pos.next().unwrap())
    };
    let (line, _parser_column) = position("syntax error at ");
    assert_eq!(line, 3, "{body}");
    // The hint names the misspelled word and where it is: that is marked
    // (the parser stopped further on, at the parenthesis).
    let (hint_line, column) = position("`FILTR` at ");
    assert_eq!((hint_line, column), (3, 3), "{body}");
    let m = &seen["marked"];
    assert_eq!(m["line"].as_u64().unwrap(), line, "{m}");
    assert_eq!(m["column"].as_u64().unwrap(), column, "{m}");
    assert_eq!(m["text"], "FILTR", "{m}");
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
    // The reload reopened the bad query's permalink without running it.
    assert_eq!(seen["reload_text"], bad);
    assert!(seen["reload_status"]
        .as_str()
        .unwrap()
        .contains("press Run"));
    assert_eq!(history, vec![bad, bad_end, typed]);
    assert_eq!(seen["recalled"], typed);
    assert_eq!(rows("recalled_rows"), got);

    // A catalogue query: its documentation (the comment header, as GET
    // /queries gives it) beside the editor; its permalink names it and
    // reopens it with the documentation and kld query's rows.
    let catalogue: Value = get(&format!("{}/queries", s.base), &[]).json().unwrap();
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
    // Its link gives the answer as JSON (a browser's own Accept would get
    // XML): kld query's rows.
    let link = seen["doc_link"].as_str().unwrap();
    assert_eq!(link, format!("{}/queries/traits?format=json", s.base));
    let answer: Value = get(
        link,
        &[("Accept", "text/html,application/xml;q=0.9,*/*;q=0.8")],
    )
    .json()
    .unwrap();
    let want = query_rows(&files, "traits");
    assert_eq!(
        answer["results"]["bindings"].as_array().unwrap().len(),
        want.len()
    );
    assert!(seen["catalogue_permalink"]
        .as_str()
        .unwrap()
        .ends_with("&name=traits"));
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
