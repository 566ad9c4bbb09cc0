//! Structured question metadata (`src/rdf/metadata.rs`): Karenina's `author`
//! and `sources` JSON strings and `custom_…` properties are searchable in RDF,
//! and a search by author finds what Karenina's `get_questions_by_author`
//! finds (differential, in the Karenina venv). The round trip through these
//! extra triples stays byte for byte: `tests/library/rdf.rs` runs it on the
//! whole corpus and on generated files.

use super::common;
use super::kld;
use super::queries::query_rows;
use crate::common::karenina_python;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Author names in a file as Karenina reads them: `json.loads` of a string
/// value that parses (UC:358-383), the `name` of the object.
fn author_names(p: &Path) -> Vec<String> {
    let v: Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
    let mut names = Vec::new();
    for it in v["dataFeedElement"].as_array().into_iter().flatten() {
        for prop in it["item"]["additionalProperty"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if prop["name"] != "author" {
                continue;
            }
            let a = match &prop["value"] {
                Value::String(s) => serde_json::from_str(s).unwrap_or(Value::String(s.clone())),
                x => x.clone(),
            };
            if let Some(n) = a["name"].as_str() {
                names.push(n.to_string());
            }
        }
    }
    names
}

#[test]
fn questions_by_author_lists_every_authored_question_of_the_corpus() {
    let files = common::corpus_files("loads");
    let mut expected: Vec<String> = files.iter().flat_map(|f| author_names(f)).collect();
    let rows = query_rows(&files, "questions-by-author");
    let mut got: Vec<String> = rows
        .iter()
        .map(|r| r["author"].as_str().unwrap().to_string())
        .collect();
    expected.sort();
    got.sort();
    assert!(
        expected.len() >= 3,
        "the corpus has authored questions: {expected:?}"
    );
    assert_eq!(got, expected);
    let example = rows
        .iter()
        .find(|r| r["author"] == "Example Author")
        .expect("example_benchmark's author");
    assert_eq!(example["email"], "author@example.com");
}

#[test]
fn sources_and_custom_keys_are_plain_rdf() {
    let probe = common::corpus().join("loads/karenina-output__probe_default.jsonld");
    let q = r#"PREFIX schema: <https://schema.org/>
        SELECT ?work ?url ?key ?value WHERE {
          ?q schema:citation ?c . ?c a schema:CreativeWork ; schema:name ?work ; schema:url ?url .
          ?q schema:additionalProperty ?p . ?p schema:propertyID ?key ; schema:value ?value .
          FILTER(?key = "difficulty")
        }"#;
    let out = super::stdout_of(
        kld()
            .args(["query", "--format", "tsv", "-e", q])
            .arg(&probe),
    );
    assert_eq!(
        out,
        "?work\t?url\t?key\t?value\n\"Atlas\"\t\"http://x\"\t\"difficulty\"\t\"easy\"\n"
    );
}

/// A file's folder and name (`…/loads/x.jsonld` → `loads/x.jsonld`), from a
/// path or a `file://` graph name: generated folders reuse file names.
fn short_name(path_or_url: &str) -> String {
    let mut parts: Vec<&str> = path_or_url.rsplit('/').take(2).collect();
    parts.reverse();
    parts.join("/")
}

/// kld's count of questions whose author's name contains each needle
/// (case-insensitive), per file, in one query over all files.
fn kld_counts(files: &[PathBuf], needles: &[String]) -> BTreeMap<(String, String), usize> {
    let values: Vec<String> = needles
        .iter()
        .map(|n| serde_json::to_string(n).unwrap())
        .collect();
    let q = format!(
        "PREFIX schema: <https://schema.org/>
         SELECT ?graph ?needle (COUNT(DISTINCT ?q) AS ?n) WHERE {{
           GRAPH ?graph {{
             VALUES ?needle {{ {} }}
             ?feed a schema:DataFeed ; schema:dataFeedElement/schema:item ?q .
             ?q schema:author/schema:name ?name .
             FILTER(CONTAINS(LCASE(?name), LCASE(?needle)))
           }}
         }} GROUP BY ?graph ?needle",
        values.join(" ")
    );
    let out = super::stdout_of(
        kld()
            .args(["query", "--format", "json", "-e", &q])
            .args(files),
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    let mut counts = BTreeMap::new();
    for b in v["results"]["bindings"].as_array().unwrap() {
        let graph = b["graph"]["value"].as_str().unwrap();
        let file = short_name(graph);
        let n = b["n"]["value"].as_str().unwrap().parse().unwrap();
        counts.insert(
            (file, b["needle"]["value"].as_str().unwrap().to_string()),
            n,
        );
    }
    counts
}

/// kld's custom properties: (file, question ID, key) → the values (one per
/// property: Karenina keeps the last of two that map to one key), as JSON.
fn kld_custom(files: &[PathBuf]) -> BTreeMap<(String, String, String), Vec<Value>> {
    let q = "PREFIX schema: <https://schema.org/> PREFIX karenina: <urn:karenina:vocab:>
             SELECT ?graph ?qid ?key ?value WHERE { GRAPH ?graph {
               ?feed a schema:DataFeed ; schema:dataFeedElement ?item .
               ?item karenina:id ?qid ; schema:item/schema:additionalProperty ?p .
               ?p schema:propertyID ?key ; schema:value ?value } }";
    let out = super::stdout_of(
        kld()
            .args(["query", "--format", "json", "-e", q])
            .args(files),
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    let mut map: BTreeMap<_, Vec<Value>> = BTreeMap::new();
    for b in v["results"]["bindings"].as_array().unwrap() {
        let s = |k: &str| b[k]["value"].as_str().unwrap().to_string();
        let lexical = s("value");
        let value = match b["value"]["datatype"].as_str().unwrap_or("") {
            "http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON" => {
                serde_json::from_str(&lexical).unwrap()
            }
            // serde_json reads an integer past 64 bits as a float, on
            // both sides.
            "http://www.w3.org/2001/XMLSchema#integer"
            | "http://www.w3.org/2001/XMLSchema#double" => serde_json::from_str(&lexical).unwrap(),
            "http://www.w3.org/2001/XMLSchema#boolean" => Value::from(lexical == "true"),
            _ => Value::String(lexical),
        };
        let file = short_name(&s("graph"));
        map.entry((file, s("qid"), s("key")))
            .or_default()
            .push(value);
    }
    map
}

/// The same number: `1.0` (Python float) is kld's `"1"^^xsd:double`.
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

#[test]
#[ignore = "interop: needs the Karenina venv (tests/scripts/karenina-venv.sh; $KLD_KARENINA_VENV) and python3 for the generator: cargo test -- --include-ignored"]
fn authors_and_custom_metadata_are_what_karenina_reads() {
    let gen = common::generate(&["--checkpoints", "3", "--questions", "60", "--seed", "30"]);
    // Awkward values too: integers past 64 bits, keys with spaces, IDs that
    // are not IRIs.
    let edge = common::generate(&["-n", "2", "-q", "40", "-s", "31", "--edge-rate", "0.3"]);
    let mut files = common::corpus_files("loads");
    files.extend(common::jsonld_in(gen.path()));
    files.extend(common::jsonld_in(edge.path()));
    let script = concat!(
        env!("KLD_SOURCE_ROOT"),
        "/tests/scripts/karenina_metadata.py"
    );
    let out = common::run_ok(Command::new(karenina_python()).arg(script).args(&files));
    let (mut by_author, mut custom) = (BTreeMap::new(), BTreeMap::new());
    for line in out.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let file = short_name(v["file"].as_str().unwrap());
        assert!(
            v["error"].is_null(),
            "Karenina cannot read {file}: {}",
            v["error"]
        );
        if let Some(needle) = v["needle"].as_str() {
            by_author.insert(
                (file, needle.to_string()),
                v["count"].as_u64().unwrap() as usize,
            );
        } else {
            let key = (
                file,
                v["qid"].as_str().unwrap().to_string(),
                v["key"].as_str().unwrap().to_string(),
            );
            custom.insert(key, v["value"].clone());
        }
    }
    // Questions by author: the same count for every needle.
    let mut needles: Vec<String> = by_author.keys().map(|(_, n)| n.clone()).collect();
    needles.sort();
    needles.dedup();
    let ours = kld_counts(&files, &needles);
    let mut disagreements = Vec::new();
    for ((file, needle), n) in &by_author {
        let mine = ours
            .get(&(file.clone(), needle.clone()))
            .copied()
            .unwrap_or(0);
        if mine != *n {
            disagreements.push(format!("{file} {needle:?}: Karenina {n}, kld {mine}"));
        }
    }
    let found: usize = by_author.values().sum();
    common::report_differential(
        "questions-by-author",
        by_author.len(),
        disagreements.len(),
        &format!(" ({found} questions found in all)"),
    );
    assert!(
        by_author.len() >= 40 && found >= 40,
        "too few cases: {by_author:?}"
    );
    assert!(disagreements.is_empty(), "{disagreements:#?}");
    // Custom metadata: the same (question, key) pairs, Karenina's value
    // among kld's (the last property of a key wins in Karenina).
    let ours = kld_custom(&files);
    let mut disagreements = Vec::new();
    for (k, v) in &custom {
        match ours.get(k) {
            Some(vs) if vs.iter().any(|x| same_json(x, v)) => {}
            other => disagreements.push(format!("{k:?}: Karenina {v}, kld {other:?}")),
        }
    }
    for k in ours.keys().filter(|k| !custom.contains_key(*k)) {
        disagreements.push(format!("{k:?}: only kld has it"));
    }
    common::report_differential(
        "custom-metadata",
        custom.len(),
        disagreements.len(),
        " (question, key, value) entries",
    );
    assert!(custom.len() >= 40, "too few cases: {}", custom.len());
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}
