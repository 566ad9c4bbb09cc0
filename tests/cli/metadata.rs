//! Structured question metadata (`src/rdf/metadata.rs`): Karenina's `author`
//! and `sources` JSON strings and `custom_…` properties are searchable in RDF,
//! and a search by author finds what Karenina's `get_questions_by_author`
//! finds (differential, in the Karenina venv). The round trip through these
//! extra triples stays byte for byte: `tests/library/rdf.rs` runs it on the
//! whole corpus and on generated files.

use super::common;
use super::differential_karenina::venv_python;
use super::kld;
use super::queries::query_rows;
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
        let file = graph.rsplit('/').next().unwrap().to_string();
        let n = b["n"]["value"].as_str().unwrap().parse().unwrap();
        counts.insert(
            (file, b["needle"]["value"].as_str().unwrap().to_string()),
            n,
        );
    }
    counts
}

#[test]
#[ignore = "interop tier, needs the Karenina venv (tests/scripts/karenina-venv.sh; $KLD_KARENINA_VENV) and python3 for the generator: cargo test -- --include-ignored"]
fn a_search_by_author_finds_what_karenina_finds() {
    let gen = common::generate(&["--checkpoints", "3", "--questions", "60", "--seed", "30"]);
    let mut files = common::corpus_files("loads");
    files.extend(common::jsonld_in(gen.path()));
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/scripts/karenina_authors.py"
    );
    let out = common::run_ok(Command::new(venv_python()).arg(script).args(&files));
    let mut theirs = BTreeMap::new();
    for line in out.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let file = Path::new(v["file"].as_str().unwrap())
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            v["error"].is_null(),
            "Karenina cannot search {file}: {}",
            v["error"]
        );
        let needle = v["needle"].as_str().unwrap().to_string();
        theirs.insert((file, needle), v["count"].as_u64().unwrap() as usize);
    }
    let mut needles: Vec<String> = theirs.keys().map(|(_, n)| n.clone()).collect();
    needles.sort();
    needles.dedup();
    let ours = kld_counts(&files, &needles);
    let mut disagreements = Vec::new();
    for ((file, needle), n) in &theirs {
        let mine = ours
            .get(&(file.clone(), needle.clone()))
            .copied()
            .unwrap_or(0);
        if mine != *n {
            disagreements.push(format!("{file} {needle:?}: Karenina {n}, kld {mine}"));
        }
    }
    let found: usize = theirs.values().sum();
    common::report_differential(
        "questions-by-author",
        theirs.len(),
        disagreements.len(),
        &format!(" ({found} questions found in all)"),
    );
    assert!(
        theirs.len() >= 40 && found >= 40,
        "too few cases: {theirs:?}"
    );
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}
