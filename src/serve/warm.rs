//! Computing the catalogue's answers ahead of the first visitor.
//!
//! Why it exists: the page opens on catalogue queries (`/queries/NAME`, or
//! the same text POSTed to `/sparql`), and over a few hundred checkpoints
//! each takes up to a second to compute. The store only changes between
//! generations ([`super::State::with_store_mut`]), so after loading and after
//! every `--watch` reload one background thread runs every catalogue query
//! in the page's formats into the answer cache ([`super::cache`]): the first
//! visitor then gets cached answers. The editor's completion vocabulary
//! ([`super::vocabulary`]) is computed first and kept apart.
//!
//! A reload during that work cancels the running query (through the
//! [`crate::sparql::Control`] every query takes) and the warm-up starts over
//! on the new generation once the store has been still for [`SETTLE`].

use super::{SparqlRequest, State};
use crate::sparql;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long the store must stay at one generation before it is warmed (a
/// reload changes it in several steps: a graph replaced, results bound
/// again).
pub const SETTLE: Duration = Duration::from_millis(100);

/// How often the thread looks for a new generation.
const POLL: Duration = Duration::from_millis(25);

/// The formats warmed, in order: the one the page reads (SPARQL JSON), then
/// the page's downloads (CSV, TSV), each only while the cache is less than
/// half full, so they never push out the page's own answers.
pub const FORMATS: &[&str] = &["json", "csv", "tsv"];

/// One finished warm-up.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Warmed {
    /// The generation warmed.
    pub generation: u64,
    /// Answers computed (those already cached are not counted).
    pub answers: usize,
    /// Seconds it took.
    pub seconds: f64,
}

/// Receives a line when a warm-up ends (the CLI prints it).
pub type Log = Arc<dyn Fn(String) + Send + Sync>;

/// The running warm-up thread; dropping it stops it (its query cancelled).
pub struct Warmer {
    stop: Arc<AtomicBool>,
    state: Arc<State>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Warmer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.state.cancel_warming();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Starts warming `state`'s cache now and after every change of its store;
/// `None` when the cache is off (nothing to warm).
pub fn spawn(state: Arc<State>, log: Option<Log>) -> crate::Result<Option<Warmer>> {
    if !state.caching() {
        return Ok(None);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let thread = {
        let (state, stop) = (state.clone(), stop.clone());
        std::thread::Builder::new()
            .name("kld-warm".into())
            .spawn(move || watch_generations(&state, &stop, log))
            .map_err(|e| crate::Error::Usage(format!("cannot start the cache warm-up: {e}")))?
    };
    Ok(Some(Warmer {
        stop,
        state,
        thread: Some(thread),
    }))
}

fn watch_generations(state: &State, stop: &AtomicBool, log: Option<Log>) {
    let mut warmed = None;
    while !stop.load(Ordering::SeqCst) {
        let generation = state.generation();
        if warmed == Some(generation) {
            std::thread::sleep(POLL);
            continue;
        }
        std::thread::sleep(SETTLE);
        if state.generation() != generation {
            continue;
        }
        if let Some(w) = warm(state, generation, stop) {
            if let Some(log) = &log {
                log(format!(
                    "kld serve: catalogue answers ready ({} computed in {:.2} s)",
                    w.answers, w.seconds
                ));
            }
            state.set_warmed(w);
            warmed = Some(generation);
        }
    }
}

/// Computes every catalogue answer in [`FORMATS`] not yet cached at
/// `generation`; `None` when the store changed (or `stop` was set) before
/// the end.
pub fn warm(state: &State, generation: u64, stop: &AtomicBool) -> Option<Warmed> {
    let started = Instant::now();
    let mut answers = 0;
    // The editor's completion vocabulary first (a page's first focus reads
    // it), kept apart from the cache.
    if state.vocabulary_generation() != Some(generation) {
        let set = |c| state.set_warming(Some(c));
        let done = state.compute_vocabulary(generation, Some(&set));
        state.set_warming(None);
        if stop.load(Ordering::SeqCst) || state.generation() != generation {
            return None;
        }
        answers += usize::from(done.is_ok());
    }
    for (i, format) in FORMATS.iter().enumerate() {
        let stats = state.cache_stats();
        if i > 0 && stats.bytes.saturating_mul(2) > stats.budget {
            break;
        }
        for q in sparql::CATALOGUE {
            let req = SparqlRequest {
                query: Some(q.text.to_string()),
                format: Some((*format).to_string()),
                ..SparqlRequest::default()
            };
            // (A catalogue query always parses; a failing one is skipped.)
            let Ok(prepared) = state.prepare(&req, None) else {
                continue;
            };
            if state.is_cached(&prepared) {
                continue;
            }
            // A request computing the same answer now: it will be kept.
            // Otherwise requests for it meanwhile wait for this one.
            let leading = match state.join(&prepared) {
                Some(super::flight::Turn::Follow(_)) => continue,
                Some(super::flight::Turn::Lead(leading)) => Some(leading),
                None => None,
            };
            state.set_warming(Some(prepared.control()));
            // Checked after the control is set: a change from now on
            // cancels the query.
            if stop.load(Ordering::SeqCst) || state.generation() != generation {
                state.set_warming(None);
                return None;
            }
            let done = state.run_leading(&prepared, &mut std::io::sink(), leading.as_ref());
            state.set_warming(None);
            match done {
                Ok(_) => answers += 1,
                Err(_) if stop.load(Ordering::SeqCst) || state.generation() != generation => {
                    return None
                }
                // A time or memory limit: that answer is left uncached (and
                // not tried again before the next change).
                Err(_) => {}
            }
        }
    }
    Some(Warmed {
        generation,
        answers,
        seconds: started.elapsed().as_secs_f64(),
    })
}

impl State {
    /// Sets (or clears) the warm-up's running query, which a change of the
    /// store cancels.
    pub(super) fn set_warming(&self, control: Option<sparql::Control>) {
        *self.warming.lock().unwrap_or_else(|e| e.into_inner()) = control;
    }

    /// Cancels the warm-up's running query, if any.
    pub(super) fn cancel_warming(&self) {
        if let Some(c) = self
            .warming
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
        {
            c.cancel();
        }
    }

    /// Records a finished warm-up.
    pub(super) fn set_warmed(&self, w: Warmed) {
        *self.warmed.lock().unwrap_or_else(|e| e.into_inner()) = Some(w);
    }
}
