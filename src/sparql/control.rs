//! Stopping a running query: at its deadline, when its answer grows too big,
//! or when its reader goes away, and telling afterwards which it was.
//!
//! Oxigraph's evaluator takes one cancellation token; the reason a query was
//! cancelled lives beside it, so the caller gets a typed error
//! ([`Error::Timeout`], [`Error::ResultTooLarge`], [`Error::MemoryLimit`],
//! [`Error::Cancelled`])
//! rather than a message to read. Deadlines are enforced by one shared thread
//! rather than a watchdog thread per query (which cost a thread spawn and join
//! on every request of `kld serve`).

use crate::error::Error;
use oxigraph::sparql::CancellationToken;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

const RUNNING: u8 = 0;
const DEADLINE: u8 = 1;
const TOO_LARGE: u8 = 2;
const CANCELLED: u8 = 3;
const MEMORY: u8 = 4;

/// A handle on one query's cancellation, shareable across threads: the
/// caller keeps a clone to cancel the query from outside (a client that went
/// away, a server stopping).
#[derive(Clone, Default)]
pub struct Control {
    token: CancellationToken,
    reason: Arc<AtomicU8>,
    /// What the query's answer should be read with ([`Control::notes`]).
    notes: Arc<Mutex<Vec<String>>>,
}

impl std::fmt::Debug for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control")
            .field("stopped", &self.is_stopped())
            .finish()
    }
}

impl Control {
    /// A control for a query not yet started.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels the query (its error becomes [`Error::Cancelled`]).
    pub fn cancel(&self) {
        self.stop(CANCELLED);
    }

    /// True once the query was stopped for any reason.
    pub fn is_stopped(&self) -> bool {
        self.token.is_cancelled()
    }

    /// Notes on the answer of a query that ran (a known trap its author
    /// fell into: `super::traps`), for the caller to show.
    pub fn notes(&self) -> Vec<String> {
        self.notes.lock().map(|n| n.clone()).unwrap_or_default()
    }

    pub(super) fn note(&self, note: String) {
        if let Ok(mut n) = self.notes.lock() {
            n.push(note);
        }
    }

    pub(super) fn token(&self) -> CancellationToken {
        self.token.clone()
    }

    pub(super) fn stop_too_large(&self) {
        self.stop(TOO_LARGE);
    }

    /// Stops the query for its memory (called inside the allocator: atomics
    /// only, no allocation).
    pub(super) fn stop_memory(&self) {
        self.stop(MEMORY);
    }

    fn stop(&self, reason: u8) {
        // The first reason wins: a query cut at its byte limit stays "too
        // large" even if its deadline passes while it unwinds.
        let _ = self
            .reason
            .compare_exchange(RUNNING, reason, Ordering::SeqCst, Ordering::SeqCst);
        self.token.cancel();
    }

    /// The error to report for `e`, a failure of the query this controls: a
    /// stopped query's error says why it stopped.
    pub(super) fn classify(
        &self,
        e: Error,
        timeout: Duration,
        max_bytes: Option<u64>,
        memory: Option<crate::memory::Exceeded>,
    ) -> Error {
        use crate::memory::Exceeded;
        match self.reason.load(Ordering::SeqCst) {
            DEADLINE => Error::Timeout { limit: timeout },
            TOO_LARGE => Error::ResultTooLarge {
                limit: max_bytes.unwrap_or(0),
            },
            MEMORY => match memory {
                Some(Exceeded::Total(limit)) => Error::MemoryLimit { limit, total: true },
                Some(Exceeded::Query(limit)) => Error::MemoryLimit {
                    limit,
                    total: false,
                },
                None => e,
            },
            CANCELLED => Error::Cancelled,
            _ => e,
        }
    }
}

type Key = (Instant, u64);

struct Shared {
    /// (next id, deadline → control), earliest first.
    state: Mutex<(u64, BTreeMap<Key, Control>)>,
    wake: Condvar,
}

static SHARED: OnceLock<Shared> = OnceLock::new();

fn shared() -> &'static Shared {
    let mut first = false;
    let s = SHARED.get_or_init(|| {
        first = true;
        Shared {
            state: Mutex::new((0, BTreeMap::new())),
            wake: Condvar::new(),
        }
    });
    if first {
        let _ = std::thread::Builder::new()
            .name("kld-query-deadlines".into())
            .spawn(|| run(SHARED.get().expect("initialized")));
    }
    s
}

fn run(s: &Shared) {
    let mut st = s.state.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let now = Instant::now();
        let next = st.1.keys().next().copied();
        st = match next {
            None => s.wake.wait(st).unwrap_or_else(|e| e.into_inner()),
            Some(k) if k.0 <= now => {
                if let Some(control) = st.1.remove(&k) {
                    control.stop(DEADLINE);
                }
                st
            }
            Some(k) => {
                s.wake
                    .wait_timeout(st, k.0 - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
        };
    }
}

/// Takes the query off the deadline list when dropped.
pub(super) struct Guard(Key);

impl Drop for Guard {
    fn drop(&mut self) {
        shared()
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .1
            .remove(&self.0);
    }
}

/// Stops `control`'s query at `at` (as a timeout) unless the guard is
/// dropped first.
pub(super) fn watch(control: &Control, at: Instant) -> Guard {
    let s = shared();
    let mut st = s.state.lock().unwrap_or_else(|e| e.into_inner());
    st.0 += 1;
    let key = (at, st.0);
    st.1.insert(key, control.clone());
    s.wake.notify_one();
    Guard(key)
}

/// A writer that stops its query when the answer passes `max` bytes or the
/// query was stopped meanwhile (so a deadline also ends serialization, not
/// only evaluation).
pub(super) struct Guarded<'a> {
    pub(super) inner: &'a mut (dyn std::io::Write + Send),
    pub(super) control: &'a Control,
    pub(super) written: u64,
    pub(super) max: Option<u64>,
}

impl std::io::Write for Guarded<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.control.is_stopped() {
            return Err(std::io::Error::other("query stopped"));
        }
        self.written += buf.len() as u64;
        if self.max.is_some_and(|m| self.written > m) {
            self.control.stop_too_large();
            return Err(std::io::Error::other("answer too large"));
        }
        // A failing reader (a closed pipe, a client gone) ends the query
        // through this error, reported as what it is.
        self.inner.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_reason_wins_and_names_the_error() {
        let c = Control::new();
        let _g = watch(&c, Instant::now());
        let t0 = Instant::now();
        while !c.is_stopped() && t0.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(1));
        }
        c.cancel();
        let e = c.classify(Error::Cancelled, Duration::from_secs(2), None, None);
        assert!(matches!(e, Error::Timeout { limit } if limit == Duration::from_secs(2)));
        let c = Control::new();
        c.stop_too_large();
        c.cancel();
        let e = c.classify(Error::Cancelled, Duration::from_secs(2), Some(10), None);
        assert!(matches!(e, Error::ResultTooLarge { limit: 10 }));
        assert!(matches!(
            Control::new().classify(Error::UpdateRefused, Duration::ZERO, None, None),
            Error::UpdateRefused
        ));
        let c = Control::new();
        c.stop_memory();
        let memory = Some(crate::memory::Exceeded::Total(7));
        let e = c.classify(Error::Cancelled, Duration::from_secs(2), None, memory);
        assert!(
            matches!(
                e,
                Error::MemoryLimit {
                    limit: 7,
                    total: true
                }
            ),
            "{e}"
        );
    }
}
