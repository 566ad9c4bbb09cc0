//! The number views of a store, computed from its results table and kept
//! per store generation: what `kld serve`'s `/leaderboard` and `/matrix`
//! read. A [`Views`] is built whole from one state of the store (graphs,
//! bindings, table) and replaced whole, so a request sees one run entirely
//! bound or not at all, never half.

use super::Table;
use crate::board::{BoardData, ResultRow, RunInfo};
use crate::store::CheckpointStore;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// Answers a generation's memo keeps at most (one per filter seen); past
/// it, answers are made and not kept, so no client grows it without bound.
pub(crate) const MEMO_ENTRIES: usize = 256;

/// The views of one store generation.
#[derive(Clone, Debug)]
pub struct Views {
    /// The store generation they were built from.
    pub generation: u64,
    /// The results table.
    pub table: Arc<Table>,
    /// The board's rows (bound runs, results of their benchmarks' questions).
    pub board: Arc<BoardData>,
    /// Results graphs left out of the table, and why.
    pub notes: Vec<String>,
    /// Answers derived from these views ([`Views::memoized`]), kept for
    /// the generation's life and dropped with it.
    memo: Arc<Mutex<HashMap<String, Arc<Vec<u8>>>>>,
}

impl Views {
    /// The views of `store` at `generation`; runs of `previous` whose
    /// source is unchanged are taken from it instead of read again.
    pub fn build(store: &CheckpointStore, generation: u64, previous: Option<&Table>) -> Self {
        let (table, notes) = super::stored::of_store(store, previous);
        let board = board_data(&table);
        Views {
            generation,
            table: Arc::new(table),
            board: Arc::new(board),
            notes,
            memo: Arc::default(),
        }
    }

    /// The bytes `make` derives from these views under `key` (a
    /// leaderboard's JSON under one filter), made once per generation: a
    /// warm request copies them instead of aggregating and serializing
    /// every cell again (at ten paper-size runs, 490 cells, that was
    /// 170 ms a request). A new generation starts with an empty memo, so an
    /// answer is never older than the views it was made from.
    pub fn memoized(&self, key: &str, make: impl FnOnce() -> Vec<u8>) -> Arc<Vec<u8>> {
        let lock = || self.memo.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = lock().get(key) {
            return b.clone();
        }
        let made = Arc::new(make());
        let mut memo = lock();
        if memo.len() < MEMO_ENTRIES {
            return memo.entry(key.to_string()).or_insert(made).clone();
        }
        made
    }
}

/// The board's data from the table: the bound runs and their results whose
/// question (a scenario turn: its scenario and node) is in the benchmark,
/// as [`crate::board::read`] reads them from the quads.
pub fn board_data(t: &Table) -> BoardData {
    let mut runs: BTreeMap<&str, RunInfo> = BTreeMap::new();
    let mut rows = Vec::new();
    for (r, p) in t.runs.iter().enumerate() {
        let (Some(checkpoint), Some(name)) = (&p.benchmark, &p.benchmark_name) else {
            continue;
        };
        let range = t.rows_of(r);
        let run_name = range
            .clone()
            .find_map(|i| t.opt_text(t.run_name[i]))
            .unwrap_or_default();
        runs.insert(
            &p.graph,
            RunInfo {
                graph: p.graph.clone(),
                run_name: run_name.to_string(),
                checkpoint: checkpoint.clone(),
                benchmark: name.clone(),
                exported: p.exported.clone().unwrap_or_default(),
                labels: p.labels.clone(),
            },
        );
        for i in range.filter(|i| t.in_benchmark[*i]) {
            let mcp = t
                .opt_text(t.mcp[i])
                .map(|m| m.split(", ").map(str::to_string).collect())
                .unwrap_or_default();
            rows.push(ResultRow {
                run: p.graph.clone(),
                checkpoint: checkpoint.clone(),
                question: t.text(t.question[i]).to_string(),
                answering: t.text(t.answering[i]).to_string(),
                parsing: t.text(t.parsing[i]).to_string(),
                mcp,
                replicate: t.replicate[i],
                timestamp: t.opt_text(t.timestamp[i]).unwrap_or_default().to_string(),
                verify: t.verify[i],
                performed: Some(t.template_performed[i]),
                outcome: t
                    .opt_text(t.outcome[i])
                    .unwrap_or("unclassified")
                    .to_string(),
            });
        }
    }
    rows.sort_by(|a, b| {
        (
            &a.run,
            &a.question,
            &a.answering,
            &a.parsing,
            a.replicate,
            &a.timestamp,
        )
            .cmp(&(
                &b.run,
                &b.question,
                &b.answering,
                &b.parsing,
                b.replicate,
                &b.timestamp,
            ))
    });
    BoardData {
        runs: runs.into_values().collect(),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty() -> Views {
        Views {
            generation: 1,
            table: Arc::new(Table::default()),
            board: Arc::new(BoardData::default()),
            notes: Vec::new(),
            memo: Arc::default(),
        }
    }

    #[test]
    fn an_answer_is_made_once_per_generation_and_the_memo_is_bounded() {
        let v = empty();
        let mut made = 0;
        let a = v.memoized("leaderboard", || {
            made += 1;
            b"one".to_vec()
        });
        let b = v.memoized("leaderboard", || {
            made += 1;
            b"two".to_vec()
        });
        assert_eq!(made, 1);
        assert!(Arc::ptr_eq(&a, &b));
        // Another generation's views start empty.
        assert_eq!(
            &*empty().memoized("leaderboard", || b"new".to_vec()),
            b"new"
        );
        // Past MEMO_ENTRIES keys, answers are made each time and not kept.
        for i in 0..MEMO_ENTRIES + 10 {
            v.memoized(&format!("k{i}"), Vec::new);
        }
        assert_eq!(v.memo.lock().unwrap().len(), MEMO_ENTRIES);
        let mut again = 0;
        for _ in 0..2 {
            v.memoized("past the bound", || {
                again += 1;
                Vec::new()
            });
        }
        assert_eq!(again, 2);
    }
}
