//! `kld compare` of one run of the results table: the observations of a
//! run the store holds, read from [`crate::table::Table`] instead of its
//! file, and the choice of that run under the board's filters.
//!
//! Why it exists: `kld serve`'s `/compare` (the page's "Compare models")
//! has no file to hand to [`crate::stats::observations`]; the server's
//! results table holds the same rows, read by the same readers and rules as
//! `kld compare` reads the file, in the file's order, so the observations
//! (and every statistic over them) are the ones `kld compare FILE` gives.
//! The statistics layer sits a floor below the table, so the bridge lives
//! here, beside the comparison's tables. A comparison is of one run: runs
//! are never pooled, so a filter that leaves several asks which.

use crate::board::Filter;
use crate::stats::{self, Comparison, Observation, Observations, Options};
use crate::table::{RunPart, Table};
use std::collections::HashMap;

/// Why no comparison was made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RunCompareError {
    /// No run of the table passes the filter.
    #[error("no run matches: {0}")]
    NoRun(String),
    /// Several runs pass the filter; runs are never pooled.
    #[error("{} runs match, and runs are never pooled: choose one with run= (its results graph): {}", .0.len(), .0.join("; "))]
    SeveralRuns(Vec<String>),
    /// The statistics refused (an unknown reference judge, a confidence
    /// out of range).
    #[error(transparent)]
    Compare(#[from] stats::report::CompareError),
}

/// `graph (run name, benchmark)` of a run, for the several-runs message.
fn describe(t: &Table, r: usize) -> String {
    let p = &t.runs[r];
    let name = t.rows_of(r).find_map(|i| t.opt_text(t.run_name[i]));
    let mut s = p.graph.clone();
    let extra: Vec<&str> = name
        .into_iter()
        .chain(p.benchmark_name.as_deref())
        .collect();
    if !extra.is_empty() {
        s.push_str(&format!(" ({})", extra.join(", ")));
    }
    s
}

/// The one run of `t` that `filter`'s run (a results graph), benchmark (a
/// checkpoint graph) and label (`K=V`) leave; its judge and `latest` do
/// not choose runs. Several left is [`RunCompareError::SeveralRuns`].
pub fn choose_run(t: &Table, filter: &Filter) -> Result<usize, RunCompareError> {
    let keep = |p: &RunPart| {
        filter.run.as_ref().is_none_or(|g| *g == p.graph)
            && filter
                .benchmark
                .as_ref()
                .is_none_or(|b| p.benchmark.as_ref() == Some(b))
            && filter.label.as_ref().is_none_or(|l| p.labels.contains(l))
    };
    let runs: Vec<usize> = (0..t.runs.len()).filter(|&r| keep(&t.runs[r])).collect();
    match runs[..] {
        [one] => Ok(one),
        [] => {
            let mut asked: Vec<String> = Vec::new();
            if let Some(g) = &filter.run {
                asked.push(format!("run={g}"));
            }
            if let Some(b) = &filter.benchmark {
                asked.push(format!("benchmark={b}"));
            }
            if let Some(l) = &filter.label {
                asked.push(format!("label={l}"));
            }
            Err(RunCompareError::NoRun(if t.runs.is_empty() {
                "the store holds no verification results".into()
            } else if asked.is_empty() {
                "no run".into()
            } else {
                format!(
                    "{} (the runs: {})",
                    asked.join(", "),
                    (0..t.runs.len())
                        .map(|r| describe(t, r))
                        .collect::<Vec<_>>()
                        .join("; ")
                )
            }))
        }
        _ => Err(RunCompareError::SeveralRuns(
            runs.iter().map(|&r| describe(t, r)).collect(),
        )),
    }
}

/// The observations of run `r` of `t`, as [`crate::stats::observations`]
/// reads the run's file: its rows in order, those with template
/// verification performed; a CSV export's non-passed rows read as a
/// verdict of false.
pub fn observations_of_run(t: &Table, r: usize) -> Observations {
    let csv = t.runs[r].csv;
    let mut o = Observations {
        csv,
        ..Default::default()
    };
    // Symbol of the table → index of the observations, per name table.
    let mut questions: HashMap<u32, u32> = HashMap::new();
    let mut models: HashMap<u32, u32> = HashMap::new();
    let mut judges: HashMap<u32, u32> = HashMap::new();
    let mut runs: HashMap<Option<u32>, u32> = HashMap::new();
    fn index(map: &mut HashMap<u32, u32>, names: &mut Vec<String>, t: &Table, s: u32) -> u32 {
        *map.entry(s).or_insert_with(|| {
            names.push(t.text(s).to_string());
            names.len() as u32 - 1
        })
    }
    for i in t.rows_of(r) {
        if !t.template_performed[i] {
            o.left_out += 1;
            continue;
        }
        let question = index(&mut questions, &mut o.questions, t, t.question[i]);
        let model = index(&mut models, &mut o.models, t, t.answering[i]);
        let judge = index(&mut judges, &mut o.judges, t, t.parsing[i]);
        let name = t.run_name[i];
        let run = *runs.entry(name).or_insert_with(|| {
            o.runs.push(t.opt_text(name).map(str::to_string));
            o.runs.len() as u32 - 1
        });
        let verdict = match t.verify[i] {
            None if csv => Some(false),
            v => v,
        };
        o.rows.push(Observation {
            question,
            model,
            judge,
            replicate: t.replicate[i],
            run,
            verdict,
        });
    }
    o
}

/// `kld compare` of the one run `filter` leaves of `t`: that run's index
/// and the comparison.
pub fn compare_run(
    t: &Table,
    filter: &Filter,
    options: Options,
) -> Result<(usize, Comparison), RunCompareError> {
    let r = choose_run(t, filter)?;
    Ok((r, stats::compare(observations_of_run(t, r), options)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        let mut t = Table::default();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/board");
        for (i, f) in ["board-run-1.json", "board-run-2.json"].iter().enumerate() {
            let mut one = crate::table::from_path(&dir.join(f)).unwrap();
            one.runs[0].graph = format!("urn:run:{i}");
            one.runs[0].labels = vec![format!("n={i}")];
            t.append(&one);
        }
        t
    }

    #[test]
    fn a_run_s_observations_are_its_file_s() {
        let t = table();
        let file = crate::stats::observations(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/data/board/board-run-1.json"),
        )
        .unwrap();
        let o = observations_of_run(&t, 0);
        assert_eq!(o.rows, file.rows);
        assert_eq!(
            (&o.questions, &o.models, &o.judges, &o.runs),
            (&file.questions, &file.models, &file.judges, &file.runs)
        );
        assert_eq!((o.left_out, o.csv), (file.left_out, file.csv));
    }

    #[test]
    fn one_run_is_chosen_and_several_are_never_pooled() {
        let t = table();
        let several = choose_run(&t, &Filter::default()).unwrap_err();
        let RunCompareError::SeveralRuns(runs) = &several else {
            panic!("{several:?}")
        };
        assert_eq!(runs.len(), 2);
        assert!(several.to_string().contains("never pooled"), "{several}");
        assert!(several.to_string().contains("urn:run:1"), "{several}");
        let by_run = Filter {
            run: Some("urn:run:1".into()),
            ..Default::default()
        };
        assert_eq!(choose_run(&t, &by_run), Ok(1));
        let by_label = Filter {
            label: Some("n=0".into()),
            ..Default::default()
        };
        assert_eq!(choose_run(&t, &by_label), Ok(0));
        let none = Filter {
            run: Some("urn:run:9".into()),
            ..Default::default()
        };
        let e = choose_run(&t, &none).unwrap_err();
        assert!(matches!(e, RunCompareError::NoRun(_)), "{e:?}");
        assert!(e.to_string().contains("run=urn:run:9"), "{e}");
        // Unbound, no run has the benchmark.
        let bench = Filter {
            benchmark: Some("urn:ck".into()),
            ..Default::default()
        };
        assert!(choose_run(&t, &bench).is_err());
        let (r, c) = compare_run(&t, &by_run, Options::default()).unwrap();
        assert_eq!(r, 1);
        assert!(!c.pairs.is_empty());
    }
}
