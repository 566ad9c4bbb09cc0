//! Each connection's clock and the table of live connections: what lets the
//! server loop close a connection that has no request finished in time, and
//! shed idle connections first when the limit is reached.
//!
//! Why it exists: hyper's header-read timer starts only once a connection
//! has sent a byte (and the HTTP/1-or-2 sniffing before it has no timer at
//! all), so 256 silent TCP connections kept the server unreachable for as
//! long as they stayed open; and a response blocked on a client that never
//! reads has no timer either. Here a connection is judged by what it does:
//! idle (no request in flight) longer than the header timeout, or with a
//! request in flight longer than the request limit, it is closed.

use axum::body::{Body, Bytes};
use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// When the request a handler serves arrived (its headers were read): the
/// start of its `--timeout`.
#[derive(Clone, Copy, Debug)]
pub struct Arrived(pub Instant);

/// One connection as the watchdog sees it.
pub(super) struct Clock {
    state: Mutex<ClockState>,
    /// Wakes the watchdog when a request starts or ends, or the connection
    /// is shed, so it recomputes its deadline.
    changed: Notify,
    shed: AtomicBool,
    idle_limit: Duration,
    request_limit: Duration,
}

struct ClockState {
    /// Requests in flight (HTTP/2 may have several), by id, with their start.
    in_flight: BTreeMap<u64, Instant>,
    next: u64,
    /// Since when no request has been in flight (the connection's start at
    /// first, then the first time its task ran).
    idle_since: Instant,
    /// Whether its task has run: until then, whatever the client sent is
    /// unread, so it cannot be judged idle (a loaded server may take a
    /// while to get to a burst of new connections).
    started: bool,
}

impl Clock {
    pub(super) fn new(idle_limit: Duration, request_limit: Duration) -> Arc<Self> {
        Arc::new(Clock {
            state: Mutex::new(ClockState {
                in_flight: BTreeMap::new(),
                next: 0,
                idle_since: Instant::now(),
                started: false,
            }),
            changed: Notify::new(),
            shed: AtomicBool::new(false),
            idle_limit,
            request_limit,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ClockState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A request's headers were read: it is in flight until the returned
    /// ticket is dropped (with its response body).
    pub(super) fn begin(self: &Arc<Self>) -> Ticket {
        let mut s = self.lock();
        let id = s.next;
        s.next += 1;
        let now = Instant::now();
        s.in_flight.insert(id, now);
        drop(s);
        self.changed.notify_one();
        Ticket {
            clock: self.clone(),
            id,
            arrived: now,
        }
    }

    /// When the connection is to be closed unless something changes: the
    /// idle limit after it fell idle, or the request limit after its oldest
    /// request in flight arrived.
    pub(super) fn deadline(&self) -> Instant {
        let s = self.lock();
        match s.in_flight.values().min() {
            Some(oldest) => *oldest + self.request_limit,
            None => s.idle_since + self.idle_limit,
        }
    }

    /// True once the connection is to be closed.
    pub(super) fn expired(&self) -> bool {
        self.shed.load(Ordering::SeqCst) || Instant::now() >= self.deadline()
    }

    /// Waits until a request starts or ends, or the connection is shed.
    pub(super) async fn changed(&self) {
        self.changed.notified().await;
    }

    /// The connection's task runs for the first time: it reads what the
    /// client has sent, so from now on no request in flight means idle.
    pub(super) fn start(&self) {
        let mut s = self.lock();
        if !s.started {
            s.started = true;
            if s.in_flight.is_empty() {
                s.idle_since = Instant::now();
            }
        }
    }

    /// No request in flight since when (`None` while one is, or before the
    /// connection's task ran).
    fn idle_since(&self) -> Option<Instant> {
        let s = self.lock();
        (s.started && s.in_flight.is_empty()).then_some(s.idle_since)
    }

    /// Marks the connection for closing (its watchdog closes it at once).
    fn shed(&self) {
        self.shed.store(true, Ordering::SeqCst);
        self.changed.notify_one();
    }
}

/// A request in flight on a connection; dropping it (when the response body
/// is finished or dropped) ends the request.
pub(super) struct Ticket {
    clock: Arc<Clock>,
    id: u64,
    arrived: Instant,
}

impl Ticket {
    /// When the request arrived.
    pub(super) fn arrived(&self) -> Arrived {
        Arrived(self.arrived)
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut s = self.clock.lock();
        s.in_flight.remove(&self.id);
        if s.in_flight.is_empty() {
            s.idle_since = Instant::now();
        }
        drop(s);
        self.clock.changed.notify_one();
    }
}

/// What a [`Watched`] body calls when it is cut: with the error it failed
/// with, or `None` when it was dropped unfinished (the connection went).
pub(super) type OnCut = Box<dyn FnOnce(Option<String>) + Send>;

/// A response body that calls `on_cut` once if it fails or is dropped before
/// its end, and drops it unused otherwise (what `on_cut` owns lives as long
/// as the body).
pub(super) struct Watched {
    body: Body,
    on_cut: Option<OnCut>,
    ended: bool,
}

impl Watched {
    pub(super) fn new(body: Body, on_cut: OnCut) -> Self {
        Watched {
            body,
            on_cut: Some(on_cut),
            ended: false,
        }
    }

    /// The body of a request on a watched connection: it holds the
    /// request's [`Ticket`] until it is sent whole or dropped, and a body
    /// that fails (an answer cut at its time or size limit) closes its
    /// connection at once: hyper would otherwise keep it until what it has
    /// buffered is written, which a client that does not read never lets
    /// happen.
    pub(super) fn tracked(body: Body, ticket: Ticket) -> Self {
        Watched::new(
            body,
            Box::new(move |failed| {
                // Dropped unfinished: hyper is closing it already, or it
                // answered a HEAD (its body is never sent).
                if failed.is_some() {
                    ticket.clock.shed();
                }
            }),
        )
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        if self.ended || http_body::Body::is_end_stream(&self.body) {
            return;
        }
        if let Some(f) = self.on_cut.take() {
            f(None);
        }
    }
}

impl http_body::Body for Watched {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        let frame = Pin::new(&mut self.body).poll_frame(cx);
        match &frame {
            Poll::Ready(Some(Err(e))) => {
                if let Some(f) = self.on_cut.take() {
                    f(Some(e.to_string()));
                }
            }
            Poll::Ready(None) => self.ended = true,
            _ if self.body.is_end_stream() => self.ended = true,
            _ => {}
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// The live connections, for the limit: when it is reached, the connection
/// idle the longest is shed to make room.
#[derive(Default)]
pub(super) struct Table {
    live: Mutex<BTreeMap<u64, Arc<Clock>>>,
    next: AtomicU64,
}

impl Table {
    /// Adds a connection; returns its key for [`Table::remove`].
    pub(super) fn add(&self, clock: Arc<Clock>) -> u64 {
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        self.lock().insert(id, clock);
        id
    }

    /// Removes a closed connection.
    pub(super) fn remove(&self, id: u64) {
        self.lock().remove(&id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<Clock>>> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes room for one more connection under `limit`: true when there
    /// is room, or a connection idle for at least `idle_for` (no request in
    /// flight, silent ones included) was shed for it, the idlest; false when
    /// none is (a burst of new clients is not shed before it could send).
    pub(super) fn make_room(&self, limit: usize, idle_for: Duration) -> bool {
        let live = self.lock();
        let counted = live
            .values()
            .filter(|c| !c.shed.load(Ordering::SeqCst))
            .count();
        if counted < limit {
            return true;
        }
        let idlest = live
            .values()
            .filter(|c| !c.shed.load(Ordering::SeqCst))
            .filter_map(|c| c.idle_since().map(|t| (t, c)))
            .filter(|(t, _)| t.elapsed() >= idle_for)
            .min_by_key(|(t, _)| *t);
        match idlest {
            Some((_, c)) => {
                c.shed();
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_expires_idle_or_busy_and_the_idlest_is_shed() {
        let idle = Duration::from_millis(200);
        let busy = Duration::from_millis(500);
        let a = Clock::new(idle, busy);
        let b = Clock::new(idle, busy);
        b.start();
        assert!(!a.expired());
        let t = a.begin();
        // In flight: the request limit counts, not the idle limit.
        std::thread::sleep(Duration::from_millis(300));
        assert!(!a.expired());
        assert!(a.idle_since().is_none());
        let table = Table::default();
        let (ka, _kb) = (table.add(a.clone()), table.add(b.clone()));
        assert!(table.make_room(3, Duration::ZERO));
        // Full: b, idle for 300 ms, is not shed if it has had less than a
        // second; it is after 100 ms; the busy one (a) never is.
        assert!(!table.make_room(2, Duration::from_secs(1)));
        assert!(table.make_room(2, Duration::from_millis(100)));
        assert!(b.expired() && !a.expired());
        // Both shed or busy: no room.
        assert!(!table.make_room(1, Duration::ZERO));
        std::thread::sleep(Duration::from_millis(250));
        assert!(a.expired(), "a request past the request limit");
        drop(t);
        assert!(!a.expired(), "idle again, from now");
        table.remove(ka);
        assert!(table.make_room(1, Duration::ZERO));
        // A connection whose task has not run yet (its request unread) is
        // never judged idle.
        let fresh = Table::default();
        let c = Clock::new(idle, busy);
        fresh.add(c.clone());
        std::thread::sleep(Duration::from_millis(50));
        assert!(!fresh.make_room(1, Duration::ZERO));
        c.start();
        assert!(fresh.make_room(1, Duration::ZERO));
    }
}
