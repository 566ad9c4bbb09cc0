//! One computation per answer: requests that miss the answer cache while
//! the same answer (same key, same store generation) is being computed for
//! another request wait for that computation, then take its answer from
//! the cache, instead of each computing it again.
//!
//! Why: a dashboard opened in several tabs, or a notebook cell run in a
//! loop, sends the same slow query many times at once. Each used to run
//! it (a core and a query slot each, for the same bytes); now one runs and
//! the others wait. A waiter waits at most until its own deadline, and
//! computes the answer itself when the first one ended without a cached
//! answer (failed, stopped, too big to keep): waiting never makes an answer
//! wrong or later than its time limit.

use super::cache::Key;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

/// The answers being computed now, by generation and key.
#[derive(Default)]
pub struct Flights {
    running: Mutex<HashMap<(u64, Key), Arc<Flight>>>,
    joined: AtomicU64,
}

/// One answer being computed.
#[derive(Default)]
pub struct Flight {
    done: Mutex<bool>,
    ended: Condvar,
}

/// What a request that missed the cache does.
pub enum Turn<'a> {
    /// Computes the answer; identical requests wait for it while this lives.
    Lead(Leading<'a>),
    /// Waits for the computation another request leads.
    Follow(Arc<Flight>),
}

/// Held by the request computing an answer; dropping it (answer stored,
/// failed or abandoned) wakes the requests waiting for it.
pub struct Leading<'a> {
    flights: &'a Flights,
    id: (u64, Key),
    flight: Arc<Flight>,
}

impl Flights {
    /// Leads the computation of `key`'s answer at `generation`, or follows
    /// the one already running.
    pub fn join(&self, generation: u64, key: &Key) -> Turn<'_> {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let id = (generation, key.clone());
        if let Some(flight) = running.get(&id) {
            self.joined.fetch_add(1, Ordering::Relaxed);
            return Turn::Follow(flight.clone());
        }
        let flight = Arc::new(Flight::default());
        running.insert(id.clone(), flight.clone());
        Turn::Lead(Leading {
            flights: self,
            id,
            flight,
        })
    }

    /// Requests that waited for another's computation of their answer.
    pub fn joined(&self) -> u64 {
        self.joined.load(Ordering::Relaxed)
    }
}

impl Flight {
    /// Waits until the computation ends (true), or until `deadline`.
    pub fn wait(&self, deadline: Instant) -> bool {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while !*done {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return false;
            };
            done = self
                .ended
                .wait_timeout(done, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }
}

impl Drop for Leading<'_> {
    fn drop(&mut self) {
        self.flights
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.id);
        *self.flight.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.flight.ended.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn key(text: &str) -> Key {
        Key::of(text)
    }

    #[test]
    fn the_second_request_follows_until_the_first_ends() {
        let f = Flights::default();
        let Turn::Lead(lead) = f.join(0, &key("q")) else {
            panic!("the first request leads")
        };
        // Another key, or the same key at another generation, leads too.
        assert!(matches!(f.join(0, &key("other")), Turn::Lead(_)));
        assert!(matches!(f.join(1, &key("q")), Turn::Lead(_)));
        let Turn::Follow(flight) = f.join(0, &key("q")) else {
            panic!("the same answer is followed")
        };
        assert_eq!(f.joined(), 1);
        // Not ended: the wait stops at its deadline.
        let t = Instant::now();
        assert!(!flight.wait(t + Duration::from_millis(50)));
        assert!(t.elapsed() >= Duration::from_millis(50));
        let waiter =
            std::thread::spawn(move || flight.wait(Instant::now() + Duration::from_secs(60)));
        drop(lead);
        assert!(waiter.join().unwrap(), "woken by the end, not the deadline");
        // Ended: the next request leads again.
        assert!(matches!(f.join(0, &key("q")), Turn::Lead(_)));
    }
}
