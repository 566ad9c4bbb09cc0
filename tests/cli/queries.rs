//! The SPARQL catalogue and `kld query`: rows checked against values computed
//! from the raw JSON files with serde_json.

use crate::common::*;
use crate::rdf::raw;
use crate::{kld, stdout_of};
use predicates::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// SPARQL JSON results of a catalogue query over `files`, as rows of var → value.
pub(crate) fn query_rows(files: &[PathBuf], name: &str) -> Vec<serde_json::Map<String, Value>> {
    rows_of(files, &["--named", name])
}

/// [`query_rows`] of the SPARQL text `sparql`.
pub(crate) fn expr_rows(files: &[PathBuf], sparql: &str) -> Vec<serde_json::Map<String, Value>> {
    rows_of(files, &["-e", sparql])
}

fn rows_of(files: &[PathBuf], query: &[&str]) -> Vec<serde_json::Map<String, Value>> {
    let out = stdout_of(
        kld()
            .args(["query", "--format", "json"])
            .args(query)
            .args(files),
    );
    json_rows(&serde_json::from_str(&out).unwrap())
}

/// `rows` without their `key` column (the results graph, when two sources
/// of one run are compared).
pub(crate) fn without(
    rows: Vec<serde_json::Map<String, Value>>,
    key: &str,
) -> Vec<serde_json::Map<String, Value>> {
    rows.into_iter()
        .map(|mut r| {
            r.remove(key);
            r
        })
        .collect()
}

/// A SPARQL JSON answer's rows as variable → value text.
pub(crate) fn json_rows(v: &Value) -> Vec<serde_json::Map<String, Value>> {
    v["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            b.as_object()
                .unwrap()
                .iter()
                .map(|(k, x)| (k.clone(), x["value"].clone()))
                .collect()
        })
        .collect()
}

fn items(p: &Path) -> Vec<Value> {
    raw(p)["dataFeedElement"].as_array().unwrap().clone()
}

#[test]
fn catalogue_questions_templates_and_ids() {
    let f = corpus().join("loads/karenina-output__probe_default.jsonld");
    let rows = query_rows(std::slice::from_ref(&f), "questions");
    let its = items(&f);
    assert_eq!(rows.len(), its.len());
    for (r, it) in rows.iter().zip(&its) {
        assert_eq!(r["qid"], it["@id"]);
        assert_eq!(r["question"], it["item"]["text"]);
        assert_eq!(r["answer"], it["item"]["acceptedAnswer"]["text"]);
    }
    let rows = query_rows(std::slice::from_ref(&f), "templates");
    assert_eq!(rows.len(), its.len());
    assert_eq!(rows[0]["template"], its[0]["item"]["hasPart"]["text"]);
}

#[test]
fn catalogue_traits_and_regex_traits_match_the_files() {
    for f in corpus_files("loads") {
        let j = raw(&f);
        let mut ratings: Vec<Value> = j["rating"].as_array().cloned().unwrap_or_default();
        for it in j["dataFeedElement"].as_array().unwrap() {
            ratings.extend(it["item"]["rating"].as_array().cloned().unwrap_or_default());
        }
        let rows = query_rows(std::slice::from_ref(&f), "traits");
        assert_eq!(rows.len(), ratings.len(), "{}", f.display());
        let names: Vec<_> = rows
            .iter()
            .map(|r| r["trait"].as_str().unwrap().to_string())
            .collect();
        let expected: Vec<_> = ratings
            .iter()
            .map(|r| r["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(names, expected, "{}: trait order", f.display());
        let regex = ratings
            .iter()
            .filter(|r| {
                r["additionalType"]
                    .as_str()
                    .unwrap()
                    .ends_with("RegexTrait")
            })
            .count();
        assert_eq!(
            query_rows(std::slice::from_ref(&f), "regex-traits").len(),
            regex,
            "{}",
            f.display()
        );
    }
    let probe = corpus().join("loads/karenina-output__probe_default.jsonld");
    let rows = query_rows(std::slice::from_ref(&probe), "traits");
    let kind = |name: &str| {
        rows.iter().find(|r| r["trait"] == name).unwrap()["kind"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(kind("clarity"), "boolean");
    assert_eq!(kind("quality"), "score");
    assert_eq!(kind("tone"), "literal");
    assert_eq!(kind("structured"), "template");
    let rx = query_rows(std::slice::from_ref(&probe), "regex-traits");
    assert_eq!(rx[0]["pattern"], "\\[\\d+\\]");
    assert_eq!(rx[0]["case_sensitive"], "false");
}

/// `traits`, `benchmark-stats` and `kld info` give every trait Karenina's
/// kind and scope: the same (scope, kind) counts, and dynamic rubric members
/// counted apart from the global traits.
#[test]
fn traits_benchmark_stats_and_info_agree_on_kinds() {
    use std::collections::BTreeMap;
    let mut files = corpus_files("loads");
    files.extend(jsonld_in(&data("generated/n_3_q_12_s_5_all-kinds")));
    let mut dynamic_seen = BTreeMap::new();
    for f in files {
        let info: Value =
            serde_json::from_str(&stdout_of(kld().args(["info", "--format", "json"]).arg(&f)))
                .unwrap();
        let mut want: BTreeMap<(String, String), u64> = BTreeMap::new();
        let (mut global, mut dynamic, mut question) = (0, 0, 0);
        for t in info["traits"].as_array().unwrap() {
            let n = t["count"].as_u64().unwrap();
            *want
                .entry((
                    t["scope"].as_str().unwrap().into(),
                    t["kind"].as_str().unwrap().into(),
                ))
                .or_default() += n;
            match (t["scope"].as_str().unwrap(), t["family"].as_str().unwrap()) {
                ("global", "dynamic") => {
                    dynamic += n;
                    *dynamic_seen
                        .entry(t["kind"].as_str().unwrap().to_string())
                        .or_insert(0) += n;
                }
                ("global", _) => global += n,
                _ => question += n,
            }
        }
        let mut got: BTreeMap<(String, String), u64> = BTreeMap::new();
        for r in query_rows(std::slice::from_ref(&f), "traits") {
            *got.entry((
                r["scope"].as_str().unwrap().into(),
                r["kind"].as_str().unwrap().into(),
            ))
            .or_default() += 1;
        }
        assert_eq!(got, want, "{}: traits vs info", f.display());
        let stats = query_rows(std::slice::from_ref(&f), "benchmark-stats");
        let count = |k: &str| stats[0][k].as_str().unwrap().parse::<u64>().unwrap();
        assert_eq!(
            (
                count("global_traits"),
                count("dynamic_traits"),
                count("question_traits")
            ),
            (global, dynamic, question),
            "{}: benchmark-stats vs info",
            f.display()
        );
    }
    // The sets hold dynamic regex and metric members (labelled boolean before).
    assert!(
        dynamic_seen.contains_key("regex") && dynamic_seen.contains_key("metric"),
        "{dynamic_seen:?}"
    );
}

#[test]
fn catalogue_unfinished_keywords_and_templates_without_code() {
    let files = corpus_files("loads");
    let mut unfinished = 0;
    let mut placeholder = 0;
    let mut kw: std::collections::BTreeMap<String, usize> = Default::default();
    for f in &files {
        for it in items(f) {
            let q = &it["item"];
            let finished = q["additionalProperty"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|p| p["name"] == "finished" && p["value"] == Value::Bool(true));
            unfinished += usize::from(!finished);
            let t = q["hasPart"]["text"].as_str().unwrap();
            placeholder +=
                usize::from(t.trim().is_empty() || t.contains("Default template: returns False"));
            let mut ks: Vec<String> = q["keywords"]
                .as_array()
                .or(it["keywords"].as_array())
                .into_iter()
                .flatten()
                .map(|k| k.as_str().unwrap().to_string())
                .collect();
            ks.sort();
            ks.dedup();
            for k in ks {
                *kw.entry(k).or_default() += 1;
            }
        }
    }
    assert_eq!(query_rows(&files, "unfinished").len(), unfinished);
    assert_eq!(
        query_rows(&files, "questions-without-template").len(),
        placeholder
    );
    let rows = query_rows(&files, "keywords");
    let got: std::collections::BTreeMap<String, usize> = rows
        .iter()
        .map(|r| {
            (
                r["keyword"].as_str().unwrap().to_string(),
                r["questions"].as_str().unwrap().parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, kw);
    assert!(!kw.is_empty());
}

#[test]
fn catalogue_stats_shared_questions_duplicates_and_scenarios() {
    let probe = corpus().join("loads/karenina-output__probe_default.jsonld");
    let rows = query_rows(std::slice::from_ref(&probe), "benchmark-stats");
    assert_eq!(rows.len(), 1);
    let info: Value = serde_json::from_str(&stdout_of(
        kld().args(["info", "--format", "json"]).arg(&probe),
    ))
    .unwrap();
    assert_eq!(
        rows[0]["questions"].as_str().unwrap(),
        info["questions"].to_string()
    );
    assert_eq!(
        rows[0]["finished"].as_str().unwrap(),
        info["finished"].to_string()
    );
    // 8 global ratings: 6 global traits and 2 members of the dynamic rubric.
    assert_eq!(rows[0]["global_traits"], "6");
    assert_eq!(rows[0]["dynamic_traits"], "2");
    // Same questions, one answer changed in a copy: exactly one shared row.
    let d = tempfile::tempdir().unwrap();
    let a = corpus().join("loads/docs__notebooks__test_checkpoint.jsonld");
    let mut j = raw(&a);
    let old = j["dataFeedElement"][1]["item"]["acceptedAnswer"]["text"]
        .as_str()
        .unwrap()
        .to_string();
    j["dataFeedElement"][1]["item"]["acceptedAnswer"]["text"] = Value::String(format!("not {old}"));
    let b = d.path().join("changed.jsonld");
    std::fs::write(&b, serde_json::to_string_pretty(&j).unwrap()).unwrap();
    let rows = query_rows(&[a.clone(), b], "shared-questions");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["question"], j["dataFeedElement"][1]["item"]["text"]);
    // The lossy file holds one ID twice.
    let rows = query_rows(&[data("lossy/lossy.jsonld")], "duplicate-ids");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["count"], "2");
    let rows = query_rows(
        &[corpus().join("loads/karenina-output__scenario_probe.jsonld")],
        "scenarios",
    );
    assert_eq!(
        (rows[0]["nodes"].as_str(), rows[0]["edges"].as_str()),
        (Some("3"), Some("4"))
    );
    let rows = query_rows(&[a, probe], "graphs");
    assert_eq!(rows.len(), 2);
}

#[test]
fn query_sources_formats_and_refusals() {
    let f = corpus().join("loads/karenina-output__dyn.jsonld");
    let d = tempfile::tempdir().unwrap();
    let rq = d.path().join("q.rq");
    std::fs::write(&rq, "SELECT ?n WHERE { GRAPH ?g { ?f a <https://schema.org/DataFeed> ; <https://schema.org/name> ?n } }").unwrap();
    let out = stdout_of(kld().args(["query", "--format", "csv"]).arg(&f).arg(&rq));
    assert_eq!(out.replace("\r\n", "\n"), "n\ndyn\n");
    let out = stdout_of(
        kld()
            .args([
                "query",
                "--format",
                "table",
                "-e",
                "ASK { GRAPH ?g { ?s ?p ?o } }",
            ])
            .arg(&f),
    );
    assert_eq!(out, "true\n");
    let out = stdout_of(
        kld()
            .args(["query", "--format", "xml", "-n", "graphs"])
            .arg(&f),
    );
    assert!(out.contains("<sparql"));
    kld()
        .args(["query", "-e", "DELETE WHERE { ?s ?p ?o }"])
        .arg(&f)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("read-only"));
    kld().args(["query", "-n", "nope"]).arg(&f).assert().code(2);
    kld()
        .args(["query", "-e", "SELECT * {"])
        .arg(&f)
        .assert()
        .code(1);
    let out = stdout_of(kld().arg("queries"));
    assert_eq!(
        out.lines().filter(|l| !l.starts_with(' ')).count(),
        karenina_ld::sparql::CATALOGUE.len()
    );
    assert!(stdout_of(kld().args(["queries", "traits"])).starts_with("# Every rubric trait"));
}

#[test]
fn query_goes_on_past_a_bad_file_and_says_so() {
    let good = corpus().join("loads/karenina-output__dyn.jsonld");
    let bad = corpus().join("rejects/example_benchmark@439a051e.jsonld");
    let out = kld()
        .args(["query", "--format", "tsv", "-n", "graphs"])
        .arg(&good)
        .arg(&bad)
        .assert()
        .code(1);
    let o = out.get_output();
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("KLD-E015"));
}

#[test]
fn every_processor_gives_the_same_query_rows() {
    let files = corpus_files("loads");
    let mut outs = Vec::new();
    for p in ["direct", "oxigraph", "json-ld"] {
        outs.push(stdout_of(
            kld()
                .args(["query", "--format", "tsv", "-n", "traits", "--processor", p])
                .args(&files),
        ));
    }
    assert!(outs[0].lines().count() > 20);
    assert_eq!(outs[0], outs[1]);
    assert_eq!(outs[0], outs[2]);
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

#[test]
fn karenina_s_prefixes_need_no_declaration_and_errors_point_at_the_mistake() {
    // An undeclared schema: runs (issue 19): the same count as with PREFIX.
    let short = stdout_of(
        kld()
            .args(["query", "--format", "tsv"])
            .arg(example("probe.jsonld"))
            .args([
                "-e",
                "SELECT (COUNT(?q) AS ?n) WHERE { ?q a schema:Question }",
            ]),
    );
    let long = stdout_of(kld().args(["query", "--format", "tsv"]).arg(example("probe.jsonld")).args([
        "-e",
        "PREFIX schema: <https://schema.org/> SELECT (COUNT(?q) AS ?n) WHERE { ?q a schema:Question }",
    ]));
    assert_eq!(short, long);
    assert_ne!(short.lines().nth(1), Some("0"));
    // A syntax error: the line, a caret, a hint; exit 1.
    kld()
        .args(["query"])
        .arg(example("probe.jsonld"))
        .args(["-e", "SELECT ?q WHERE {\n  ?q a foaf:Person }"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("syntax error at 2:8:")
                .and(predicate::str::contains("   2 |   ?q a foaf:Person }"))
                .and(predicate::str::contains("     |        ^"))
                .and(predicate::str::contains("PREFIX foaf:"))
                .and(predicate::str::contains("'0' ..= '9'").not()),
        );
    // A catalogue typo suggests the nearest name.
    kld()
        .args(["query", "--named", "benchmark-stat"])
        .arg(example("probe.jsonld"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean \"benchmark-stats\""));
    // Piped ASK ends its line.
    let ask = stdout_of(
        kld()
            .args(["query"])
            .arg(example("probe.jsonld"))
            .args(["-e", "ASK {}"]),
    );
    assert_eq!(ask, "true\n");
}

#[test]
fn a_reader_that_stops_early_ends_the_output_quietly() {
    // `kld query … | head -1`: the pipe closes, kld exits 0 with nothing on
    // stderr (it used to print `Broken pipe` and exit 2).
    let dir = tempfile::tempdir().unwrap();
    let err = dir.path().join("stderr");
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "set -o pipefail; '{}' query '{}' -e 'SELECT * {{ ?s ?p ?o }}' --format tsv 2>'{}' | head -1 >/dev/null",
            assert_cmd::cargo::cargo_bin("kld").display(),
            Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").display(),
            err.display()
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(std::fs::read_to_string(&err).unwrap(), "", "stderr of kld");
}

#[test]
fn a_query_read_from_stdin_answers_into_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("names.tsv");
    let q = "SELECT ?name WHERE { ?f a schema:DataFeed ; schema:name ?name } ORDER BY ?name";
    kld()
        .arg("query")
        .arg(example("probe.jsonld"))
        .args(["-e", "-", "-o"])
        .arg(&out)
        .write_stdin(q)
        .assert()
        .success()
        .stdout("");
    let piped = stdout_of(
        kld()
            .arg("query")
            .arg(example("probe.jsonld"))
            .args(["-e", q]),
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), piped);
    assert!(piped.contains("\"Spec Probe\""), "{piped}");
    // A failing query leaves the earlier file as it was.
    kld()
        .arg("query")
        .arg(example("probe.jsonld"))
        .args(["-e", "SELECT nonsense", "-o"])
        .arg(&out)
        .assert()
        .code(1);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), piped);
}

#[test]
fn help_has_examples_and_exit_codes_and_completions_and_a_man_page_exist() {
    for cmd in ["query", "validate", "canon", "serve", "diff", "hash"] {
        let help = stdout_of(kld().args([cmd, "--help"]));
        assert!(help.contains("Examples:\n  kld "), "{cmd}: {help}");
        assert!(help.contains("Exit codes: 0 ok"), "{cmd}");
        // No code identifiers standing in for values (it said `PLAIN_BASE`).
        assert!(!help.contains("PLAIN_BASE"), "{cmd}: {help}");
    }
    let bash = stdout_of(kld().args(["completions", "bash"]));
    assert!(
        bash.contains("complete -F _kld") && bash.contains("--named"),
        "{bash}"
    );
    assert!(stdout_of(kld().args(["completions", "zsh"])).contains("#compdef kld"));
    let man = stdout_of(kld().arg("man"));
    assert!(man.contains(".TH kld 1") && man.contains("serve"), "{man}");
}

/// TSV writes numbers plainly (issue 40): a zero pass rate (`0` divided by
/// a count is the decimal `"0"`, which Turtle's shorthand cannot write) is
/// `0`, not `"0"^^<http://www.w3.org/2001/XMLSchema#decimal>`.
#[test]
fn tsv_writes_a_zero_pass_rate_and_other_numbers_plainly() {
    let probe = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/probe.jsonld");
    let out = crate::kld()
        .arg("query")
        .arg(&probe)
        .args([
            "-e",
            "SELECT (0 / 15 AS ?zero) (1 / 4 AS ?quarter) (1.5e0 AS ?d) (\"7\"^^xsd:long AS ?l) (\"x\" AS ?s) WHERE {}",
            "--format",
            "tsv",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text, "?zero\t?quarter\t?d\t?l\t?s\n0\t0.25\t1.5\t7\t\"x\"\n",
        "{text}"
    );
}
