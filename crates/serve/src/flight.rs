//! One computation per answer: requests that miss the answer cache while
//! the same answer (same key, same store generation) is being computed for
//! another request wait for that computation, then take its answer from
//! the cache, instead of each computing it again.
//!
//! Why: a dashboard opened in several tabs, or a notebook cell run in a
//! loop, sends the same slow query many times at once. Each used to run
//! it (a core and a query slot each, for the same bytes); now one runs and
//! the others wait. A waiter waits at most until its own deadline. When the
//! first one failed as the same computation would fail again (past its own
//! memory limit or the answer size limit, or past the time limit after
//! running at least as long as the waiter has left), the waiter gets that
//! failure; when it ended otherwise without a cached answer (stopped, its
//! client gone, too big to keep, past the memory of all queries together),
//! the waiter computes the answer itself. Waiting never makes an answer
//! wrong or later than its time limit.
//!
//! The waiters never wait on the leading request's client: the moment its
//! answer would wait for that client to read, the leader lets them go
//! ([`Leading::release`]) and they compute the answer side by side. One
//! client that never read its answer used to hold every identical request
//! until that request's own time limit.

use super::cache::Key;
use super::Answer;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The answers being computed now, by generation and key.
#[derive(Default)]
pub struct Flights {
    running: Mutex<HashMap<(u64, Key), Arc<Flight>>>,
    joined: AtomicU64,
    shared: Arc<AtomicU64>,
}

/// One answer being computed: how it ended, once it has.
struct Flight {
    end: watch::Sender<Option<Ended>>,
    /// Set once its leader let the waiters go ([`Leading::release`]).
    released: AtomicBool,
}

impl Default for Flight {
    fn default() -> Self {
        Flight {
            end: watch::Sender::new(None),
            released: AtomicBool::new(false),
        }
    }
}

/// How a computation ended, for the requests that waited for it.
#[derive(Clone, Debug, PartialEq)]
enum Ended {
    /// With its answer in the cache, or without one a waiter may share:
    /// the waiter looks the answer up, or computes it.
    Done,
    /// With a failure the same computation meets again: `answer` is the
    /// waiter's too, except after a time limit (`ran` is how long the
    /// computation ran) for a waiter with more time left than that.
    Failed {
        /// The failure's answer (a 503).
        answer: Answer,
        /// How long it ran before its time limit stopped it.
        ran: Option<Duration>,
    },
}

impl Ended {
    /// The failure a waiter with `left` of its time gets without computing,
    /// if any.
    fn shared(&self, left: Duration) -> Option<&Answer> {
        match self {
            Ended::Failed { answer, ran } if ran.is_none_or(|ran| left <= ran) => Some(answer),
            _ => None,
        }
    }
}

/// What waiting for another request's computation came to.
#[derive(Debug, PartialEq)]
pub enum Waited {
    /// The waiter's deadline passed first.
    Late,
    /// The computation failed as the waiter's own would: its answer.
    Shared(Answer),
    /// The computation ended: the answer is in the cache, or the waiter
    /// computes it.
    Ended,
}

/// Held by a request waiting for another's computation of its answer;
/// owned, so the waiting is done on the request's task, not on a thread.
pub struct Following {
    shared: Arc<AtomicU64>,
    flight: Arc<Flight>,
}

/// What a request that missed the cache does.
pub enum Turn<'a> {
    /// Computes the answer; identical requests wait for it while this lives.
    Lead(Leading<'a>),
    /// Waits for the computation another request leads.
    Follow(Following),
}

/// Held by the request computing an answer; dropping it (answer stored,
/// failed or abandoned) wakes the requests waiting for it.
pub struct Leading<'a> {
    flights: &'a Flights,
    id: (u64, Key),
    flight: Arc<Flight>,
    failed: Mutex<Option<Ended>>,
}

impl Flights {
    /// Leads the computation of `key`'s answer at `generation`, or follows
    /// the one already running.
    pub fn join(&self, generation: u64, key: &Key) -> Turn<'_> {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let id = (generation, key.clone());
        if let Some(flight) = running.get(&id) {
            self.joined.fetch_add(1, Ordering::Relaxed);
            return Turn::Follow(Following {
                shared: self.shared.clone(),
                flight: flight.clone(),
            });
        }
        let flight = Arc::new(Flight::default());
        running.insert(id.clone(), flight.clone());
        Turn::Lead(Leading {
            flights: self,
            id,
            flight,
            failed: Mutex::new(None),
        })
    }

    /// Requests that waited for another's computation of their answer.
    pub fn joined(&self) -> u64 {
        self.joined.load(Ordering::Relaxed)
    }

    /// Requests answered with the failure of the computation they waited
    /// for ([`Waited::Shared`]).
    pub fn shared(&self) -> u64 {
        self.shared.load(Ordering::Relaxed)
    }
}

impl Following {
    /// Waits until the computation ends or `deadline` passes.
    pub async fn wait(&self, deadline: Instant) -> Waited {
        let Some(ended) = self.flight.wait(deadline).await else {
            return Waited::Late;
        };
        match ended.shared(deadline.saturating_duration_since(Instant::now())) {
            Some(a) => {
                self.shared.fetch_add(1, Ordering::Relaxed);
                Waited::Shared(a.clone())
            }
            None => Waited::Ended,
        }
    }
}

impl Flight {
    /// Waits until the computation ends (how it ended), or until
    /// `deadline` (None).
    async fn wait(&self, deadline: Instant) -> Option<Ended> {
        let mut end = self.end.subscribe();
        let ended = tokio::time::timeout_at(deadline.into(), async {
            match end.wait_for(Option::is_some).await {
                Ok(e) => e.clone(),
                // (The sender lives in this flight, which `self` holds.)
                Err(_) => Some(Ended::Done),
            }
        });
        ended.await.unwrap_or(None)
    }
}

impl Leading<'_> {
    /// Records that the computation failed as it would again (see
    /// [`Ended::Failed`]); the waiters learn it when this is dropped.
    pub fn failed(&self, answer: Answer, ran: Option<Duration>) {
        *self.failed.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(Ended::Failed { answer, ran });
    }
}

impl Leading<'_> {
    /// Ends the computation for the requests waiting on it, now (the
    /// answer is in the cache, or will not be): they take it from the
    /// cache or compute it, whatever this request's client does next.
    /// Later requests lead their own. Done once; dropping does it too.
    pub fn release(&self) {
        if self.flight.released.swap(true, Ordering::SeqCst) {
            return;
        }
        {
            let mut running = self
                .flights
                .running
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if running
                .get(&self.id)
                .is_some_and(|f| Arc::ptr_eq(f, &self.flight))
            {
                running.remove(&self.id);
            }
        }
        let ended = self
            .failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .unwrap_or(Ended::Done);
        self.flight.end.send_replace(Some(ended));
    }
}

impl Drop for Leading<'_> {
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn key(text: &str) -> Key {
        Key::of(text)
    }

    fn secs(n: u64) -> Instant {
        Instant::now() + Duration::from_secs(n)
    }

    fn block<T>(f: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(f)
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
        let Turn::Follow(following) = f.join(0, &key("q")) else {
            panic!("the same answer is followed")
        };
        assert_eq!(f.joined(), 1);
        // Not ended: the wait stops at its deadline.
        let t = Instant::now();
        assert_eq!(
            block(following.wait(t + Duration::from_millis(50))),
            Waited::Late
        );
        assert!(t.elapsed() >= Duration::from_millis(50));
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| block(following.wait(secs(60))));
            std::thread::sleep(Duration::from_millis(50));
            drop(lead);
            assert_eq!(
                waiter.join().unwrap(),
                Waited::Ended,
                "woken by the end, not the deadline"
            );
        });
        // Ended: the next request leads again.
        assert!(matches!(f.join(0, &key("q")), Turn::Lead(_)));
        assert_eq!(f.shared(), 0);
    }

    #[test]
    fn a_released_computation_wakes_its_waiters_before_it_ends() {
        let f = Flights::default();
        let Turn::Lead(lead) = f.join(0, &key("q")) else {
            panic!("leads")
        };
        let Turn::Follow(following) = f.join(0, &key("q")) else {
            panic!("follows")
        };
        lead.release();
        assert_eq!(block(following.wait(secs(60))), Waited::Ended);
        // A new request leads its own computation, and the first one's end
        // leaves it running.
        let Turn::Lead(second) = f.join(0, &key("q")) else {
            panic!("a new computation")
        };
        lead.release();
        drop(lead);
        assert!(matches!(f.join(0, &key("q")), Turn::Follow(_)));
        drop(second);
        assert!(matches!(f.join(0, &key("q")), Turn::Lead(_)));
    }

    #[test]
    fn a_failure_that_would_recur_is_shared_and_a_time_limit_only_with_less_time_left() {
        let f = Flights::default();
        let lead_and_follow = || {
            let Turn::Lead(lead) = f.join(0, &key("q")) else {
                panic!("leads")
            };
            let Turn::Follow(following) = f.join(0, &key("q")) else {
                panic!("follows")
            };
            (lead, following)
        };
        // Past its own memory limit: every waiter gets it.
        let busy = Answer::text(503, "past its memory limit");
        let (lead, following) = lead_and_follow();
        lead.failed(busy.clone(), None);
        drop(lead);
        assert_eq!(block(following.wait(secs(100))), Waited::Shared(busy));
        assert_eq!(f.shared(), 1);
        // Past the time limit after 3 s: a waiter with 2 s left gets it, one
        // with 4 s left computes.
        let late = Answer::text(503, "past the time limit");
        let (lead, following) = lead_and_follow();
        let Turn::Follow(later) = f.join(0, &key("q")) else {
            panic!("a second waiter follows")
        };
        lead.failed(late.clone(), Some(Duration::from_secs(3)));
        drop(lead);
        assert_eq!(block(following.wait(secs(2))), Waited::Shared(late));
        assert_eq!(
            block(later.wait(secs(4))),
            Waited::Ended,
            "more time: computes"
        );
        assert_eq!(f.shared(), 2);
        // Ended otherwise: computes.
        let (lead, following) = lead_and_follow();
        drop(lead);
        assert_eq!(block(following.wait(secs(1))), Waited::Ended);
    }
}
