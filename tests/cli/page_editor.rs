//! The page's SPARQL editor as `kld serve` serves it (issue 28): the
//! CodeMirror bundle gzipped to clients that accept it and within its size
//! budget, the licences of every package in web/package-lock.json beside
//! it, and the prefixes the editor offers being exactly the ones the
//! endpoint accepts undeclared.

use super::serve::{client, serve};
use crate::common::corpus;
use serde_json::Value;
use std::io::Read;
use std::path::Path;

fn page_file(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src/serve/page")
            .join(name),
    )
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
    let gz = client()
        .get(&url)
        .header("Accept-Encoding", "gzip, deflate, br")
        .send()
        .unwrap();
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
    let again = client()
        .get(&url)
        .header("Accept-Encoding", "gzip")
        .header("If-None-Match", &etag)
        .send()
        .unwrap();
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);
    assert!(again.bytes().unwrap().is_empty());
    let other = client()
        .get(&url)
        .header("If-None-Match", "\"other\"")
        .send()
        .unwrap();
    assert_eq!(other.status(), 200);
    assert_eq!(other.bytes().unwrap().len(), raw.len());
    // No gzip asked, or gzip refused: the bundle as it is.
    for accept in [None, Some("identity"), Some("gzip;q=0, *")] {
        let mut req = client().get(&url);
        if let Some(a) = accept {
            req = req.header("Accept-Encoding", a);
        }
        let r = req.send().unwrap();
        assert!(r.headers().get("content-encoding").is_none(), "{accept:?}");
        assert_eq!(r.bytes().unwrap().to_vec(), raw, "{accept:?}");
    }
    // The page loads it, and its own script, from this server only.
    let html = client()
        .get(format!("{}/", s.base))
        .send()
        .unwrap()
        .text()
        .unwrap();
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
    let js = client()
        .get(format!("{}/editor.js", s.base))
        .send()
        .unwrap()
        .bytes()
        .unwrap();
    assert_eq!(js.to_vec(), page_file("editor.js"));
}

#[test]
fn every_package_of_the_lock_file_in_the_bundle_has_its_licence_served_beside_it() {
    let s = one_checkpoint();
    let served = client()
        .get(format!("{}/editor.bundle.LICENSES.txt", s.base))
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert_eq!(
        served.as_bytes(),
        page_file("editor.bundle.LICENSES.txt").as_slice()
    );
    let lock: Value = serde_json::from_slice(
        &std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("web/package-lock.json"))
            .unwrap(),
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
    let prefixes: Value = client()
        .get(format!("{}/prefixes", s.base))
        .send()
        .unwrap()
        .json()
        .unwrap();
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
