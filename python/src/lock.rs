//! The lock a `Store` sits behind. Python threads share a `Store`: queries
//! read it (several at once), `add` writes it. Without a lock, an `add`
//! while another thread queried (or two `add`s) was pyo3's bare
//! "RuntimeError: Already borrowed"; with it, each call waits for the
//! others' to end.
//!
//! The lock is waited for off the GIL (its holder may need the GIL to
//! finish) in short polls, so that a caller's Ctrl-C (a query's
//! cancellation, a load's stop flag) is heard while it waits; and a writer
//! that waits holds new readers back, so that a stream of queries from
//! other threads cannot keep `add` waiting for ever.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError};
use std::time::Duration;

/// How long a waiter sleeps between two tries.
const POLL: Duration = Duration::from_millis(2);

/// A value shared by Python threads: read by many at once or written by one.
pub struct Shared<T> {
    lock: RwLock<T>,
    writers_waiting: AtomicUsize,
}

/// Counts a writer as waiting while it lives.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A lock whose holder panicked (a bug the caller already reported as a
/// `RuntimeError`) is still used: the store holds what was inserted by then.
fn unpoisoned<G>(r: Result<G, TryLockError<G>>) -> Option<G> {
    match r {
        Ok(g) => Some(g),
        Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

impl<T> Shared<T> {
    /// Shares `value`.
    pub fn new(value: T) -> Self {
        Shared {
            lock: RwLock::new(value),
            writers_waiting: AtomicUsize::new(0),
        }
    }

    /// Read access, once no thread writes and none waits to; `None` when
    /// `stop` says so first. Call it without the GIL.
    pub fn read(&self, stop: &dyn Fn() -> bool) -> Option<RwLockReadGuard<'_, T>> {
        loop {
            if self.writers_waiting.load(Ordering::SeqCst) == 0 {
                if let Some(g) = unpoisoned(self.lock.try_read()) {
                    return Some(g);
                }
            }
            if stop() {
                return None;
            }
            std::thread::sleep(POLL);
        }
    }

    /// Write access, once no thread reads or writes; `None` when `stop`
    /// says so first. Call it without the GIL.
    pub fn write(&self, stop: &dyn Fn() -> bool) -> Option<RwLockWriteGuard<'_, T>> {
        self.writers_waiting.fetch_add(1, Ordering::SeqCst);
        let _waiting = Waiting(&self.writers_waiting);
        loop {
            if let Some(g) = unpoisoned(self.lock.try_write()) {
                return Some(g);
            }
            if stop() {
                return None;
            }
            std::thread::sleep(POLL);
        }
    }

    /// The value, when nothing else can hold the lock.
    pub fn get_mut(&mut self) -> &mut T {
        self.lock.get_mut().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::mpsc;

    #[test]
    fn a_waiting_writer_holds_new_readers_back() {
        let shared = Shared::new(0u32);
        let never = || false;
        let first = shared.read(&never).unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut w = shared.write(&never).unwrap();
                *w += 1;
                tx.send(()).unwrap();
            });
            while shared.writers_waiting.load(Ordering::SeqCst) == 0 {
                std::thread::sleep(POLL);
            }
            // A reader that comes now gives up (stop) rather than pass the writer.
            let tries = AtomicUsize::new(0);
            let give_up = || tries.fetch_add(1, Ordering::SeqCst) >= 3;
            assert!(shared.read(&give_up).is_none());
            drop(first);
            rx.recv().unwrap();
        });
        assert_eq!(*shared.read(&never).unwrap(), 1);
    }

    #[test]
    fn a_waiter_stops_when_told() {
        let shared = Shared::new(());
        let held = shared.write(&|| false).unwrap();
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let waiter = s.spawn(|| shared.write(&|| stop.load(Ordering::SeqCst)).is_none());
            stop.store(true, Ordering::SeqCst);
            assert!(waiter.join().unwrap());
        });
        drop(held);
        assert_eq!(shared.writers_waiting.load(Ordering::SeqCst), 0);
        assert!(shared.read(&|| false).is_some());
    }
}
