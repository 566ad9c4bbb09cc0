//! Loading many files at once: they are read and mapped to quads on
//! several threads while one thread inserts them, because Oxigraph's
//! in-memory store takes one writer at a time. The inserting thread is the
//! load's critical path (nine tenths of a load of 200 checkpoints and their
//! runs is spent inside Oxigraph's insert), so everything else is kept off
//! it: reading gets one thread fewer than the machine has cores, and the
//! inserted batches of quads are freed on a thread of their own.

use super::{prepare_with, CheckpointStore, GraphInfo, Prepared};
use crate::error::{Error, Result};
use crate::rdf::Processor;
use oxigraph::model::Quad;
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

impl CheckpointStore {
    /// Loads checkpoint files and results (exports, run folders, database
    /// runs, told by content): parsed in parallel, inserted as they arrive,
    /// each all-or-nothing. `progress(done, total)` is called after each file.
    /// Runs are not yet linked to checkpoints: call [`Self::bind`] after a
    /// batch (as every `kld` command does).
    pub fn load_files(
        &mut self,
        files: &[PathBuf],
        processor: Processor,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Vec<(PathBuf, Result<GraphInfo>)> {
        self.load_files_until(files, processor, progress, &AtomicBool::new(false))
    }

    /// [`Self::load_files`], stopped between files once `stop` is set (the
    /// caller's cancellation token: Ctrl-C in the Python package): a file
    /// not yet inserted then is [`Error::LoadStopped`] and changes nothing;
    /// those inserted before stay.
    ///
    /// One thread inserts (Oxigraph's in-memory store takes one writer at a
    /// time) while the others read and map the next files: reading gets one
    /// thread fewer than the machine has cores, at least one, so that the
    /// inserting thread, the load's critical path, always has a core.
    pub fn load_files_until(
        &mut self,
        files: &[PathBuf],
        processor: Processor,
        progress: &(dyn Fn(usize, usize) + Sync),
        stop: &AtomicBool,
    ) -> Vec<(PathBuf, Result<GraphInfo>)> {
        let total = files.len();
        let persist = self.dir.is_some();
        let results_options = self.results_options;
        let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Result<Prepared>)>(8);
        let mut results: Vec<Option<Result<GraphInfo>>> = (0..total).map(|_| None).collect();
        let stopped = || stop.load(Ordering::Relaxed);
        std::thread::scope(|scope| {
            scope.spawn(move || {
                let read = || {
                    files
                        .par_iter()
                        .enumerate()
                        .try_for_each_with(tx, |tx, (i, f)| {
                            let p = if stopped() {
                                Err(Error::LoadStopped)
                            } else {
                                prepare_with(f, processor, results_options)
                            };
                            tx.send((i, p)).map_err(drop)
                        })
                };
                // (A send fails only once the inserting side is gone.)
                let _ = on_reading_pool(read);
            });
            let dropper = Dropper::spawn(scope);
            for (done, (i, prepared)) in rx.into_iter().enumerate() {
                results[i] = Some(match prepared {
                    Ok(_) if stopped() => Err(Error::LoadStopped),
                    Ok(p) => self.insert_with(p, persist, &dropper),
                    Err(e) => Err(e),
                });
                progress(done + 1, total);
            }
        });
        if persist {
            if let Err(e) = self.save_index() {
                let e = std::sync::Arc::new(e);
                results.iter_mut().for_each(|r| {
                    if matches!(r, Some(Ok(_))) {
                        *r = Some(Err(Error::IndexNotSaved(e.clone())));
                    }
                });
            }
        }
        files
            .iter()
            .cloned()
            .zip(
                results
                    .into_iter()
                    .map(|r| r.unwrap_or_else(|| Err(Error::Internal("not processed".into())))),
            )
            .collect()
    }
}

/// Runs `work` (parallel reading) on the threads that read and map files
/// while one thread inserts them: one fewer than the machine's cores (or
/// than `RAYON_NUM_THREADS`, when set), at least one; on rayon's global
/// pool if that pool cannot be built.
pub(super) fn on_reading_pool<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    let pool = POOL.get_or_init(|| {
        let cores = std::env::var("RAYON_NUM_THREADS")
            .ok()
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        rayon::ThreadPoolBuilder::new()
            .num_threads(cores.saturating_sub(1).max(1))
            .thread_name(|i| format!("kld-read-{i}"))
            .build()
            .ok()
    });
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Where inserted quads are freed. A million quads own three or four
/// million strings, and freeing them is a tenth of inserting them: a load
/// frees them on a thread of its own (a few batches in flight at most), so
/// that the inserting thread, the load's critical path, only inserts. (A
/// big checkpoint inserted from its model, quad by quad, has no batches:
/// each quad is freed where it was inserted.)
pub(super) enum Dropper {
    /// Here, now.
    Inline,
    /// On the freeing thread.
    Thread(std::sync::mpsc::SyncSender<Vec<Quad>>),
}

impl Dropper {
    /// A freeing thread in `scope`, ending when the dropper is dropped.
    pub(super) fn spawn<'scope>(scope: &'scope std::thread::Scope<'scope, '_>) -> Self {
        let (send, recv) = std::sync::mpsc::sync_channel::<Vec<Quad>>(2);
        let spawned = std::thread::Builder::new()
            .name("kld-free".into())
            .spawn_scoped(scope, move || recv.into_iter().for_each(drop));
        match spawned {
            Ok(_) => Dropper::Thread(send),
            Err(_) => Dropper::Inline,
        }
    }

    pub(super) fn dispose(&self, quads: Vec<Quad>) {
        if let Dropper::Thread(send) = self {
            // A freeing thread gone hands the quads back: freed here.
            let _ = send.send(quads);
        }
    }
}
