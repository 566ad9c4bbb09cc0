//! Query parameters (`QueryOptions::params`, behind `kld query --param` and
//! Python's `query_named(name, **params)`): for every catalogue query over
//! the corpus's runs and checkpoints, and every value of every variable of
//! its answer, the rows answered with the variable set are exactly the rows
//! of the whole answer where it has that value.

use karenina_ld::oxigraph::model::Term;
use karenina_ld::rdf::Processor;
use karenina_ld::sparql::{self, Answer, QueryOptions};
use karenina_ld::store::CheckpointStore;
use std::path::PathBuf;

type Row = Vec<Option<Term>>;

fn solutions(store: &CheckpointStore, text: &str, params: Vec<(String, Term)>) -> Vec<Row> {
    let opts = QueryOptions {
        params,
        ..QueryOptions::default()
    };
    match sparql::answer(store.store(), &sparql::parse(text).unwrap(), &opts).unwrap() {
        Answer::Solutions { mut rows, .. } => {
            rows.sort_by_key(|r| format!("{r:?}"));
            rows
        }
        other => panic!("not solutions: {other:?}"),
    }
}

#[test]
fn a_param_keeps_the_rows_where_the_variable_has_its_value() {
    let corpus = crate::common::corpus();
    let mut files: Vec<PathBuf> = crate::common::corpus_files("results")
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json" || e == "csv"))
        .filter(|p| !p.to_string_lossy().ends_with(".expect.json"))
        .collect();
    files.extend(crate::common::jsonld_in(&corpus.join("loads")));
    let mut store = CheckpointStore::in_memory().unwrap();
    let loaded = store
        .load_files(&files, Processor::Direct, &|_, _| ())
        .into_iter()
        .filter(|(_, r)| r.is_ok())
        .count();
    store.bind(&[]).unwrap();
    assert!(loaded > 20, "{loaded} files loaded");
    let (mut compared, mut queries) = (0, 0);
    for q in sparql::CATALOGUE {
        let whole = solutions(&store, q.text, Vec::new());
        let Answer::Solutions { variables, .. } = sparql::answer(
            store.store(),
            &sparql::parse(q.text).unwrap(),
            &QueryOptions::default(),
        )
        .unwrap() else {
            unreachable!()
        };
        queries += usize::from(!whole.is_empty());
        // Every distinct value of every column, up to a few per column.
        for (i, var) in variables.iter().enumerate() {
            let mut values: Vec<&Term> = whole.iter().filter_map(|r| r[i].as_ref()).collect();
            values.sort_by_key(|t| t.to_string());
            values.dedup();
            for value in values
                .into_iter()
                .filter(|t| !matches!(t, Term::BlankNode(_)))
                .take(4)
            {
                let got = solutions(&store, q.text, vec![(var.clone(), value.clone())]);
                let want: Vec<Row> = whole
                    .iter()
                    .filter(|r| r[i].as_ref() == Some(value))
                    .cloned()
                    .collect();
                assert_eq!(got, want, "{} with ?{var} = {value}", q.name);
                assert!(!got.is_empty());
                compared += 1;
            }
        }
    }
    assert!(
        queries >= 15 && compared > 150,
        "{compared} cases over {queries} queries"
    );
}
