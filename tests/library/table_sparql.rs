//! SPARQL agrees with the results table (issue 45): on every fixture under
//! tests/data (the corpus checkpoints with their runs' JSON exports, the same
//! runs' CSV exports, the board's two-run benchmark, Karenina's results
//! database, run folders, unfinished runs' `.state`), each catalogue number query's answer over the
//! quads equals its table view (`karenina_ld::table::catalogue`), and the
//! board's rows read from the quads (`results::board::read`) equal those the
//! server now takes from the table (`table::views::board_data`).

use crate::common::close;
use karenina_ld::oxigraph::model::Term;
use karenina_ld::sparql::{self as query, Answer, QueryOptions};
use karenina_ld::store::{read_inputs, CheckpointStore};
use karenina_ld::table::{self, catalogue_views, Table};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(data(dir))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            n.ends_with(ext) && !n.ends_with(".expect.json") && n != "INDEX.json"
        })
        .collect();
    v.sort();
    v
}

/// The stores the fixtures make, each named.
fn stores() -> Vec<(&'static str, CheckpointStore)> {
    let loads = files("corpus/loads", ".jsonld");
    let with = |mut v: Vec<PathBuf>| {
        v.extend(loads.iter().cloned());
        v
    };
    let mut runs: Vec<PathBuf> = std::fs::read_dir(data("runs/root"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    runs.sort();
    runs.push(data("runs/karenina.db"));
    // Unfinished runs outside a run folder (a `.state` given): the early
    // run's sidecars on their own, and a legacy state whose results are a
    // `.tmp` export.
    let alone = Path::new(env!("CARGO_TARGET_TMPDIR")).join("table-sparql-state");
    std::fs::create_dir_all(&alone).unwrap();
    for f in ["results.json.state", "results.json.results.jsonl"] {
        std::fs::copy(
            data("runs/root/early_20261122T080500Z").join(f),
            alone.join(f),
        )
        .unwrap();
    }
    let states = vec![
        alone.join("results.json.state"),
        data("taskeval/legacy/results.json.state"),
        data("taskeval/adele.jsonld"),
    ];
    let sets = [
        ("json", with(files("corpus/results", ".json"))),
        ("csv", with(files("corpus/results", ".csv"))),
        (
            "board",
            files("board", ".json")
                .into_iter()
                .chain(files("board", ".jsonld"))
                .collect(),
        ),
        ("runs", with(runs)),
        ("states", with(states)),
    ];
    sets.into_iter()
        .map(|(name, inputs)| {
            let found = karenina_ld::store::input_files(&inputs);
            let b = read_inputs(&found.files, Default::default(), &|_, _| {}).unwrap();
            (name, b.store)
        })
        .collect()
}

fn text(t: &Term) -> String {
    match t {
        Term::NamedNode(n) => n.as_str().to_string(),
        Term::Literal(l) => l.value().to_string(),
        other => other.to_string(),
    }
}

/// A catalogue query's rows, each by variable name.
fn sparql(store: &CheckpointStore, name: &str) -> Vec<HashMap<String, String>> {
    let q = query::find(name).unwrap();
    let parsed = query::parse(q.text).unwrap();
    match query::answer(store.store(), &parsed, &QueryOptions::default()).unwrap() {
        Answer::Solutions { variables, rows } => rows
            .into_iter()
            .map(|r| {
                variables
                    .iter()
                    .zip(r)
                    .filter_map(|(v, t)| Some((v.clone(), text(&t?))))
                    .collect()
            })
            .collect(),
        _ => panic!("{name} is a SELECT"),
    }
}

fn num(m: &HashMap<String, String>, k: &str) -> f64 {
    m.get(k)
        .unwrap_or_else(|| panic!("no ?{k} in {m:?}"))
        .parse()
        .unwrap()
}

fn table_of(store: &CheckpointStore) -> Table {
    let (t, notes) = table::stored::of_store(store, None);
    assert!(notes.is_empty(), "{notes:?}");
    t
}

#[test]
fn each_catalogue_number_query_equals_its_table_view_on_every_fixture() {
    let mut compared = 0;
    for (name, store) in stores() {
        let t = table_of(&store);
        assert!(!t.is_empty(), "{name}: an empty table");

        // pass-rate-by-benchmark
        let ours = catalogue_views::pass_rate_by_benchmark(&t);
        let theirs = sparql(&store, "pass-rate-by-benchmark");
        assert_eq!(
            ours.len(),
            theirs.len(),
            "{name}: pass-rate-by-benchmark rows"
        );
        for o in &ours {
            let s = theirs
                .iter()
                .find(|s| s["results_graph"] == o.results_graph && s["combo"] == o.combo)
                .unwrap_or_else(|| {
                    panic!("{name}: no SPARQL row for {} {}", o.results_graph, o.combo)
                });
            assert_eq!(s["graph"], o.graph, "{name}");
            assert_eq!(s["benchmark"], o.benchmark, "{name}");
            for (k, v) in [("results", o.results), ("n", o.n), ("passed", o.passed)] {
                assert_eq!(num(s, k), v as f64, "{name} {} ?{k}", o.combo);
            }
            match o.pass_rate {
                Some(r) => assert!(close(num(s, "pass_rate"), r), "{name} {}", o.combo),
                None => assert!(!s.contains_key("pass_rate"), "{name} {}", o.combo),
            }
            for (k, class) in catalogue_views::OUTCOMES.iter().enumerate() {
                let col = catalogue_views::outcome_column(class);
                assert_eq!(
                    num(s, col),
                    o.outcomes[k] as f64,
                    "{name} {} ?{col}",
                    o.combo
                );
            }
            compared += 1;
        }

        // outcome-classes
        let ours = catalogue_views::outcome_classes(&t);
        let theirs = sparql(&store, "outcome-classes");
        assert_eq!(ours.len(), theirs.len(), "{name}: outcome-classes rows");
        for o in &ours {
            let s = theirs
                .iter()
                .find(|s| {
                    s["results_graph"] == o.results_graph
                        && s["combo"] == o.combo
                        && s["outcome"] == o.outcome
                })
                .unwrap_or_else(|| panic!("{name}: no SPARQL row for {o:?}"));
            assert_eq!(num(s, "results"), o.results as f64, "{name} {o:?}");
            assert!(close(num(s, "share"), o.share), "{name} {o:?}");
            compared += 1;
        }

        // replicate-pass-rates
        let ours = catalogue_views::replicate_pass_rates(&t);
        let theirs = sparql(&store, "replicate-pass-rates");
        assert_eq!(
            ours.len(),
            theirs.len(),
            "{name}: replicate-pass-rates rows"
        );
        for o in &ours {
            let s = theirs
                .iter()
                .find(|s| {
                    s["results_graph"] == o.results_graph
                        && num(s, "replicate") == o.replicate as f64
                })
                .unwrap_or_else(|| panic!("{name}: no SPARQL row for {o:?}"));
            assert_eq!(num(s, "n"), o.n as f64, "{name} {o:?}");
            assert_eq!(num(s, "passed"), o.passed as f64, "{name} {o:?}");
            assert_eq!(num(s, "replicates"), o.replicates as f64, "{name} {o:?}");
            assert!(close(num(s, "pass_rate"), o.pass_rate), "{name} {o:?}");
            assert!(close(num(s, "mean"), o.mean), "{name} {o:?}");
            assert!(close(num(s, "std"), o.std), "{name} {o:?}");
            compared += 1;
        }

        // tokens-by-combo, stage total (Karenina's tokens_by_combo)
        let ours = catalogue_views::tokens_by_combo(&t);
        let theirs: Vec<_> = sparql(&store, "tokens-by-combo")
            .into_iter()
            .filter(|s| s["stage"] == "total")
            .collect();
        assert_eq!(ours.len(), theirs.len(), "{name}: tokens-by-combo rows");
        for o in &ours {
            let s = theirs
                .iter()
                .find(|s| s["results_graph"] == o.results_graph && s["combo"] == o.combo)
                .unwrap_or_else(|| panic!("{name}: no SPARQL row for {o:?}"));
            assert_eq!(num(s, "input"), o.input as f64, "{name} {o:?}");
            assert_eq!(num(s, "output"), o.output as f64, "{name} {o:?}");
            compared += 1;
        }

        // The board: from the quads, and from the table.
        let quads = karenina_ld::board::read(store.store(), &QueryOptions::default()).unwrap();
        let from_table = table::views::board_data(&t);
        assert_eq!(from_table, quads, "{name}: the board's rows");
        compared += quads.rows.len();
    }
    assert!(compared > 100, "only {compared} values compared");
}

/// A catalogue query's answer over the quads, whole: variables and terms.
fn sparql_answer(store: &CheckpointStore, name: &str) -> Answer {
    let q = query::find(name).unwrap();
    let parsed = query::parse(q.text).unwrap();
    query::answer(store.store(), &parsed, &QueryOptions::default()).unwrap()
}

/// Each number view the table answers (`table::answers`) equals the
/// query's answer over the quads term for term, row for row, in order, and
/// so does the table read back from its Parquet file.
fn answers_agree(what: &str, store: &CheckpointStore) -> HashMap<&'static str, usize> {
    let t = table_of(store);
    let mut rows = HashMap::new();
    for name in table::answers::ANSWERED {
        assert!(table::answers::answers(name, &t), "{what}: {name}");
        let ours = table::answers::answer(name, &t).unwrap_or_else(|| {
            let bound: Vec<_> = t.runs.iter().filter_map(|p| p.benchmark.as_ref()).collect();
            panic!("{what}: the table does not answer {name} (runs bound to {bound:?})")
        });
        let theirs = sparql_answer(store, name);
        let (
            Answer::Solutions {
                variables: v1,
                rows: r1,
            },
            Answer::Solutions {
                variables: v2,
                rows: r2,
            },
        ) = (&ours, &theirs)
        else {
            panic!("{name} is a SELECT");
        };
        assert_eq!(v1, v2, "{what}: {name}'s variables");
        assert_eq!(r1.len(), r2.len(), "{what}: {name}'s rows");
        // (Doubles too, to the last bit: a mean of doubles is the sum
        // Oxigraph takes in its order, `table::score_answers` says which.)
        for (i, (a, b)) in r1.iter().zip(r2).enumerate() {
            assert_eq!(a, b, "{what}: {name}, row {i} ({v1:?})");
        }
        *rows.entry(name).or_default() += r1.len();
    }
    // The same answers from the table's Parquet file.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.parquet");
    table::parquet::write(&t, &file).unwrap();
    let back = table::parquet::read(&file).unwrap();
    for name in table::answers::ANSWERED {
        assert_eq!(
            table::answers::answer(name, &back),
            table::answers::answer(name, &t),
            "{what}: {name} from the Parquet file"
        );
    }
    rows
}

#[test]
fn the_number_views_the_table_answers_equal_sparql_on_every_fixture() {
    let mut rows: HashMap<&str, usize> = HashMap::new();
    for (name, store) in stores() {
        for (q, n) in answers_agree(name, &store) {
            *rows.entry(q).or_default() += n;
        }
    }
    for q in table::answers::ANSWERED {
        assert!(rows[q] > 20, "{q}: only {} rows compared", rows[q]);
    }
}

/// A run generated from the board's rows: questions in and out of the
/// benchmark, answering models of other interfaces and names (with and
/// without MCP servers), verdicts, template verification, failures of every
/// group and of none, replicates and run names (some absent), by `seed`.
fn generated_run(seed: u64, rows: usize, out: &Path) {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut templates = Vec::new();
    for f in ["board-run-1.json", "board-run-2.json"] {
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(data("board").join(f)).unwrap()).unwrap();
        templates.extend(v["results"].as_array().unwrap().iter().cloned());
    }
    let questions: Vec<String> = templates
        .iter()
        .map(|r| r["metadata"]["question_id"].as_str().unwrap().to_string())
        .collect();
    let models = [
        ("langchain", "gpt-4.1-mini", None, vec![]),
        (
            "openai_endpoint",
            "Qwen/Qwen3-8B",
            Some("qwen-local"),
            vec!["pubmed"],
        ),
        ("anthropic", "claude-é", None, vec![]),
        ("manual", "x/y", Some(""), vec!["a", "b"]),
    ];
    let failures = [
        serde_json::Value::Null,
        serde_json::Value::Null,
        serde_json::json!({"category": "content", "stage": "parse"}),
        serde_json::json!({"category": "timeout", "stage": "answer"}),
        serde_json::json!({"category": "abstention", "stage": "parse"}),
        serde_json::json!({"category": "recursion_limit", "stage": "answer"}),
        serde_json::json!({"category": "parsing", "stage": "parse"}),
        serde_json::json!({"category": "no_such_category", "stage": "parse"}),
    ];
    let mut results = Vec::new();
    for i in 0..rows {
        let mut r = templates[next(templates.len())].clone();
        let m = &mut r["metadata"];
        m["question_id"] = questions[next(questions.len())].clone().into();
        // A turn of a scenario without its node: not the benchmark's
        // question (and no key of the run's binding).
        if next(8) == 0 {
            m["scenario_id"] = format!("no-such-scenario-{}", next(3)).into();
        }
        let (iface, name, config, tools) = &models[next(models.len())];
        m["answering"] = serde_json::json!({"interface": iface, "model_name": name,
            "tools": tools, "config_id": config});
        m["failure"] = failures[next(failures.len())].clone();
        m["replicate"] = match next(5) {
            0 => serde_json::Value::Null,
            k => k.into(),
        };
        match next(4) {
            0 => {
                m.as_object_mut().unwrap().remove("run_name");
            }
            k => m["run_name"] = format!("gen-{seed}-{k}").into(),
        }
        m["result_id"] = format!("{seed:08x}{i:08x}").into();
        r["rubric"] = generated_scores(&mut next);
        let t = &mut r["template"];
        t["template_verification_performed"] = (next(6) != 0).into();
        t["verify_result"] = match next(3) {
            0 => serde_json::Value::Null,
            k => (k == 1).into(),
        };
        t["answering_mcp_servers"] = match next(3) {
            0 => serde_json::json!(["zeta", "alpha"]),
            _ => serde_json::Value::Null,
        };
        results.push(r);
    }
    let header: serde_json::Value =
        serde_json::from_slice(&std::fs::read(data("board/board-run-1.json")).unwrap()).unwrap();
    let mut doc = header.clone();
    doc["metadata"]["job_id"] = format!("generated-{seed}").into();
    doc["results"] = serde_json::Value::Array(results);
    std::fs::write(out, serde_json::to_vec(&doc).unwrap()).unwrap();
}

/// Rubric scores of a generated result: traits the rated checkpoint
/// ([`rated_checkpoint`]) defines globally, per question and not at all,
/// of every family, with booleans, integers, doubles, nulls, strings,
/// lists and metric dicts (a metric null or missing), keys with a `.`
/// (an LLM trait's `trait.field`, a regex trait's own name), each key
/// sometimes left out.
fn generated_scores(next: &mut impl FnMut(usize) -> usize) -> serde_json::Value {
    use serde_json::{json, Value};
    let value = |kinds: &[&str], next: &mut dyn FnMut(usize) -> usize| -> Option<Value> {
        if next(5) == 0 {
            return None;
        }
        Some(match kinds[next(kinds.len())] {
            "int" => json!(next(6)),
            "float" => json!(next(1000) as f64 / 7.0),
            "bool" => json!(next(2) == 0),
            "null" => Value::Null,
            "text" => json!("high"),
            "list" => json!([1, 2]),
            // (A metric trait's metrics are floats, one sometimes missing.)
            _ => match next(3) {
                0 => json!({"precision": next(100) as f64 / 3.0}),
                _ => json!({"precision": next(100) as f64 / 3.0, "recall": next(4) as f64}),
            },
        })
    };
    let dict = |keys: &[(&str, &[&str])], next: &mut dyn FnMut(usize) -> usize| {
        let mut m = serde_json::Map::new();
        for (k, kinds) in keys {
            if let Some(v) = value(kinds, next) {
                m.insert((*k).to_string(), v);
            }
        }
        Value::Object(m)
    };
    let next: &mut dyn FnMut(usize) -> usize = next;
    json!({
        "rubric_evaluation_performed": true,
        "llm_trait_scores": dict(&[
            ("Clarity", &["int", "int", "float", "null", "bool", "text"]),
            ("Safe", &["bool", "bool", "null"]),
            ("conciseness", &["int", "bool"]),
            ("Clarity.detail", &["int", "list"]),
            ("Undefined", &["int"]),
            ("explanation_quality", &["int", "dict", "float"]),
        ], next),
        // (Karenina's model types the other families' values.)
        "regex_trait_scores": dict(&[("HasCitations", &["bool"]), ("Has.Dot", &["bool"])], next),
        "callable_trait_scores": dict(&[("ResponseLength", &["int", "float", "bool"])], next),
        "metric_trait_scores": dict(&[("Safe", &["dict"]), ("Clarity", &["dict"])], next),
        "agentic_trait_scores": dict(&[("conciseness", &["int", "null", "text"])], next),
    })
}

/// The board's checkpoint with rubric traits: global ones (the
/// with_rubrics fixture's), and question-specific ones on every other
/// question (the docs notebook's, one renamed to a global trait's name).
fn rated_checkpoint(out: &Path) {
    let read = |p: PathBuf| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
    };
    let mut board = read(data("board/board.jsonld"));
    let rubrics = read(data(
        "corpus/loads/tests__fixtures__checkpoints__with_rubrics.jsonld",
    ));
    board["rating"] = rubrics["rating"].clone();
    let notebook = read(data(
        "corpus/loads/docs__notebooks__test_checkpoint@ddd2932a.jsonld",
    ));
    let mut specific: Vec<serde_json::Value> = notebook["dataFeedElement"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["item"]["rating"].as_array())
        .flatten()
        .cloned()
        .collect();
    assert!(
        specific.len() >= 2,
        "the notebook's question-specific traits"
    );
    specific[1]["name"] = "Clarity".into();
    for (k, e) in board["dataFeedElement"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        if k % 2 == 0 {
            e["item"]["rating"] = serde_json::Value::Array(specific.clone());
        }
    }
    std::fs::write(out, serde_json::to_vec(&board).unwrap()).unwrap();
}

#[test]
fn the_number_views_the_table_answers_equal_sparql_on_generated_runs() {
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("rated.jsonld");
    rated_checkpoint(&checkpoint);
    let mut rows: HashMap<&str, usize> = HashMap::new();
    for seed in 1..=6 {
        let run = dir.path().join(format!("gen-{seed}.json"));
        generated_run(seed, 400, &run);
        let inputs = vec![checkpoint.clone(), run];
        let local = read_inputs(&inputs, Default::default(), &|_, _| {}).unwrap();
        assert!(
            local.failed.is_empty() && local.partial.is_empty(),
            "seed {seed}: {:?} {:?}",
            local.failed,
            local.partial
        );
        let store = local.store;
        let t = table_of(&store);
        assert!(
            t.in_benchmark.iter().any(|m| !m),
            "seed {seed}: every row is the benchmark's"
        );
        assert!(
            t.runs[0].benchmark.is_some(),
            "seed {seed}: the generated run is not bound"
        );
        for (q, n) in answers_agree(&format!("generated run {seed}"), &store) {
            *rows.entry(q).or_default() += n;
        }
        // The trait views meet both scopes, and means of each kind.
        let Answer::Solutions { variables, rows: r } =
            table::answers::answer("scores-by-trait", &t).unwrap()
        else {
            unreachable!()
        };
        let at = |v: &str| variables.iter().position(|x| x == v).unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for row in &r {
            seen.insert(text(row[at("scope")].as_ref().unwrap()));
            seen.insert(match &row[at("mean")] {
                Some(Term::Literal(l)) => l.datatype().as_str().to_string(),
                _ => "unbound".into(),
            });
        }
        for s in [
            "global",
            "question",
            "unbound",
            "http://www.w3.org/2001/XMLSchema#decimal",
            "http://www.w3.org/2001/XMLSchema#double",
        ] {
            assert!(seen.contains(s), "seed {seed}: no {s} in {seen:?}");
        }
    }
    for q in table::answers::ANSWERED {
        assert!(rows[q] > 50, "{q}: only {} rows compared", rows[q]);
    }
}

/// The `BIND` that gives a scenario turn's question ID in SPARQL, as `file`
/// (relative to the repository) writes it.
fn turn_bind(file: &str) -> String {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains(r#"BIND(CONCAT("urn:uuid:question-""#))
        .unwrap_or_else(|| panic!("{file}: no scenario-turn BIND"));
    line.trim().trim_end_matches('}').trim().to_string()
}

/// Scenario-turn question IDs are computed in Rust in one place
/// (`holdings::turn_question_id`, which the binding index and the results
/// table share) and in SPARQL by one `BIND`, written the same in the
/// catalogue queries and the board's quad reader: on every fixture and on
/// turn texts made to differ (case, punctuation, spaces, non-ASCII, past 50
/// characters, language-tagged and typed literals), the SPARQL gives each
/// checkpoint the question IDs the accessor gives it.
#[test]
fn scenario_turn_ids_in_sparql_equal_the_one_rust_accessor() {
    use karenina_ld::oxigraph::model::{GraphName, Literal, NamedNode, Quad};
    use karenina_ld::store::binding::holdings::Holdings;
    let binds: Vec<String> = [
        "queries/pass-rate-by-benchmark.rq",
        "queries/scores-by-trait.rq",
        "src/board/mod.rs",
    ]
    .iter()
    .map(|f| turn_bind(f))
    .collect();
    assert!(binds.iter().all(|b| *b == binds[0]), "{binds:#?}");
    let members = format!(
        r#"PREFIX karenina: <urn:karenina:vocab:>
PREFIX schema: <https://schema.org/>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
SELECT DISTINCT ?graph ?qid WHERE {{
  {{ GRAPH ?graph {{ ?item a schema:DataFeedItem ; karenina:id ?qid }} }}
  UNION
  {{ GRAPH ?graph {{ ?ts a karenina:Scenario ; karenina:node/schema:question/schema:text ?text FILTER(DATATYPE(?text) = xsd:string) }}
    {} }}
}}"#,
        binds[0]
    );
    let mut compared = 0;
    for (name, store) in stores() {
        // A checkpoint graph of turn texts that differ where the ID's
        // rules do.
        let g = NamedNode::new("urn:test:turns").unwrap();
        let s = |l: &str| NamedNode::new(format!("urn:test:{l}")).unwrap();
        let k = |l: &str| NamedNode::new(format!("urn:karenina:vocab:{l}")).unwrap();
        let o = |l: &str| NamedNode::new(format!("https://schema.org/{l}")).unwrap();
        let ty = karenina_ld::oxigraph::model::vocab::rdf::TYPE.into_owned();
        let st = store.store();
        let add = |sub: &NamedNode, p: &NamedNode, obj: karenina_ld::oxigraph::model::Term| {
            st.insert(&Quad::new(sub.clone(), p.clone(), obj, g.clone()))
                .unwrap();
        };
        st.insert(&Quad::new(
            g.clone(),
            ty.clone(),
            k("CheckpointGraph"),
            GraphName::DefaultGraph,
        ))
        .unwrap();
        add(&s("scenario"), &ty, k("Scenario").into());
        let texts: Vec<Literal> = vec![
            Literal::new_simple_literal("What Is  the Dose, Really?"),
            Literal::new_simple_literal("Ünïcode façade: größe? Ja."),
            Literal::new_simple_literal(
                "a very long question text that goes well past the fifty characters kept",
            ),
            Literal::new_simple_literal("tabs\tand-dashes..., commas"),
            Literal::new_language_tagged_literal("Tagged text?", "en").unwrap(),
            Literal::new_typed_literal("12", karenina_ld::oxigraph::model::vocab::xsd::INTEGER),
        ];
        for (i, t) in texts.into_iter().enumerate() {
            let (node, q) = (s(&format!("node{i}")), s(&format!("q{i}")));
            add(&s("scenario"), &k("node"), node.clone().into());
            add(&node, &o("question"), q.clone().into());
            add(&q, &o("text"), t.into());
        }
        let h = Holdings::read(st).unwrap();
        let ours: std::collections::BTreeSet<(String, String)> = h
            .members()
            .into_iter()
            .flat_map(|(g, m)| m.questions.into_iter().map(move |q| (g.to_string(), q)))
            .collect();
        let parsed = query::parse(&members).unwrap();
        let theirs: std::collections::BTreeSet<(String, String)> =
            match query::answer(st, &parsed, &QueryOptions::default()).unwrap() {
                Answer::Solutions { rows, .. } => rows
                    .into_iter()
                    .map(|r| (text(r[0].as_ref().unwrap()), text(r[1].as_ref().unwrap())))
                    .collect(),
                _ => unreachable!(),
            };
        assert_eq!(ours, theirs, "{name}: question IDs by checkpoint");
        let turns = ours.iter().filter(|(g, _)| g == "urn:test:turns").count();
        assert_eq!(turns, 4, "{name}: the plain-string turn texts' IDs");
        compared += ours.len();
    }
    assert!(compared > 100, "only {compared} IDs compared");
}

/// `kld serve` reads the exports' table beside the load
/// (`table::stored::read_exports`) and hands it to the views as known runs:
/// each run it reads is the store's graph from the same bytes (so it is
/// taken, not read again), and the table made with it equals the one read
/// from the sources after the load, on the JSON and CSV exports and the
/// board's runs.
#[test]
fn the_table_read_beside_the_load_is_the_table_read_after_it() {
    let loads = files("corpus/loads", ".jsonld");
    let board: Vec<PathBuf> = files("board", ".json")
        .into_iter()
        .chain(files("board", ".jsonld"))
        .collect();
    for (name, mut inputs) in [
        ("json", files("corpus/results", ".json")),
        ("csv", files("corpus/results", ".csv")),
        ("board", board),
    ] {
        let exports = inputs.len();
        inputs.extend(loads.iter().cloned());
        let found = karenina_ld::store::input_files(&inputs);
        let store = read_inputs(&found.files, Default::default(), &|_, _| {})
            .unwrap()
            .store;
        let stop = std::sync::atomic::AtomicBool::new(false);
        let beside = table::stored::read_exports(&found.files, &stop);
        assert!(
            !beside.runs.is_empty() && beside.runs.len() <= exports,
            "{name}: {} runs read beside the load",
            beside.runs.len()
        );
        for run in &beside.runs {
            assert!(
                store
                    .graphs()
                    .any(|g| g.graph == run.graph && g.sha256 == run.sha256),
                "{name}: {} is not a stored graph from the same bytes",
                run.graph
            );
        }
        let (with, notes) = table::stored::of_store(&store, Some(&beside));
        assert!(notes.is_empty(), "{name}: {notes:?}");
        let after = table_of(&store);
        assert_eq!(with.len(), after.len(), "{name}");
        let views = |t: &Table| {
            format!(
                "{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
                table::views::board_data(t),
                catalogue_views::pass_rate_by_benchmark(t),
                catalogue_views::outcome_classes(t),
                catalogue_views::replicate_pass_rates(t),
                catalogue_views::tokens_by_combo(t)
            )
        };
        assert_eq!(views(&with), views(&after), "{name}");
        // A stop before the first file reads nothing.
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(table::stored::read_exports(&found.files, &stop)
            .runs
            .is_empty());
    }
}
