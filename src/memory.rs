//! What a query allocates, measured, so that each query runs within a
//! memory budget.
//!
//! Why this module exists: a 60-byte `SELECT * { ?a ?b ?c . ?d ?e ?f }
//! ORDER BY ?c ?f` grew `kld serve` to 6 GB in 19 s, and four compacted
//! JSON-LD answers at once passed 6 GB; nothing bounded a query's memory
//! (issue 31). A budget needs a measure, not a guess: [`CountingAllocator`]
//! wraps the process's global allocator (kld's binary wraps mimalloc; an
//! embedding such as the Python extension may wrap its own) and charges
//! every allocation and free made on a thread to the `Account` open on
//! that thread, if any. An account past its own limit, or the accounts of
//! all running queries past their shared limit, calls its caller's `on_exceed`
//! once (the SPARQL layer cancels the query there; the evaluator checks its
//! token for every tuple). Where the allocator is not installed, accounts
//! see nothing and no budget holds.
//!
//! What is charged: bytes asked of the allocator (not its own overhead)
//! on the query's thread while the account is open, minus what that thread
//! frees meanwhile. Memory handed to another thread (an answer's chunks in
//! `kld serve`) stays charged until the query ends: the measure errs on the
//! safe side. A single allocation is charged after it is made, so a query
//! may pass its limit by its largest allocation (a vector doubling).

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering::Relaxed};
use std::sync::OnceLock;

/// A global allocator that counts what each thread's open `Account`
/// allocates, around any other allocator `A`:
/// `#[global_allocator] static A: CountingAllocator<System> = CountingAllocator(System);`
pub struct CountingAllocator<A>(pub A);

/// Set by the first allocation that goes through a [`CountingAllocator`].
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Bytes charged to all open accounts together (each reports in steps of
/// [`REPORT_STEP`], so the sum is exact to a step per open account).
static IN_QUERIES: AtomicI64 = AtomicI64::new(0);

/// How far an account's charge moves before the shared sum is updated: one
/// atomic update per MiB, not per allocation, so queries on several threads
/// do not contend on it.
const REPORT_STEP: i64 = 1 << 20;

thread_local! {
    /// The account charged for this thread's allocations (null: none).
    static CURRENT: Cell<*const Account> = const { Cell::new(std::ptr::null()) };
}

#[inline]
fn charge(delta: i64) {
    if !INSTALLED.load(Relaxed) {
        INSTALLED.store(true, Relaxed);
    }
    // `try_with`: a thread being torn down has no account (and must not
    // panic inside the allocator).
    let _ = CURRENT.try_with(|c| {
        let account = c.get();
        if !account.is_null() {
            // SAFETY: `Account::enter` sets the pointer and its guard
            // (which borrows the account) resets it before the account can
            // be moved or dropped; only this thread reads it.
            unsafe { (*account).charge(delta) }
        }
    });
}

// SAFETY: every call is passed to `A` unchanged; counting only reads the
// layout and touches atomics and a thread-local cell, and never allocates.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAllocator<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = self.0.alloc(layout);
        if !p.is_null() {
            charge(layout.size() as i64);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = self.0.alloc_zeroed(layout);
        if !p.is_null() {
            charge(layout.size() as i64);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.0.dealloc(ptr, layout);
        charge(-(layout.size() as i64));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = self.0.realloc(ptr, layout, new_size);
        if !p.is_null() {
            charge(new_size as i64 - layout.size() as i64);
        }
        p
    }
}

/// Which limit a query passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exceeded {
    /// Its own limit, in bytes.
    Query(u64),
    /// The limit of all running queries together, in bytes.
    Total(u64),
}

/// The memory limits of queries: each one's, and all running queries'
/// together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most bytes one query may hold (`None`: no limit).
    pub per_query: Option<u64>,
    /// Most bytes all running queries may hold together (`None`: no limit).
    pub total: Option<u64>,
}

impl Limits {
    /// No limits (the tests' account).
    #[cfg(test)]
    pub(crate) const NONE: Limits = Limits {
        per_query: None,
        total: None,
    };

    /// Limits sized to the machine: a quarter of its memory for all queries
    /// together, a sixteenth for one (see `physical_memory`).
    pub fn for_machine() -> Limits {
        let total = physical_memory();
        Limits {
            per_query: Some(total / 16),
            total: Some(total / 4),
        }
    }
}

impl Default for Limits {
    /// [`Limits::for_machine`].
    fn default() -> Self {
        Limits::for_machine()
    }
}

/// The memory this process may use: the machine's (`MemTotal` in
/// `/proc/meminfo`), or its cgroup's limit when lower (a container); 8 GiB
/// where neither can be read.
pub(crate) fn physical_memory() -> u64 {
    static MEMORY: OnceLock<u64> = OnceLock::new();
    *MEMORY.get_or_init(|| {
        let total = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| {
                m.lines()
                    .find_map(|l| l.strip_prefix("MemTotal:"))
                    .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            })
            .map(|kb| kb * 1024);
        let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok());
        match (total, cgroup) {
            (Some(t), Some(c)) => t.min(c),
            (Some(t), None) => t,
            (None, Some(c)) => c,
            (None, None) => 8 << 30,
        }
    })
}

/// The bytes charged to one query: open it on the query's thread with
/// `Account::enter` for as long as the query runs there.
pub(crate) struct Account {
    limits: Limits,
    used: Cell<i64>,
    peak: Cell<i64>,
    reported: Cell<i64>,
    exceeded: Cell<Option<Exceeded>>,
    on_exceed: Box<dyn Fn(Exceeded)>,
}

impl Account {
    /// An account with `limits`; `on_exceed` is called once, on the
    /// query's thread, when one is passed. It runs inside the allocator, so
    /// it must not allocate (setting an atomic flag is what it is for).
    pub fn new(limits: Limits, on_exceed: impl Fn(Exceeded) + 'static) -> Self {
        Account {
            limits,
            used: Cell::new(0),
            peak: Cell::new(0),
            reported: Cell::new(0),
            exceeded: Cell::new(None),
            on_exceed: Box::new(on_exceed),
        }
    }

    /// Charges this thread's allocations to this account until the guard
    /// is dropped (an account open before is charged again afterwards).
    pub(crate) fn enter(&self) -> Entered<'_> {
        let previous = CURRENT.with(|c| c.replace(self as *const Account));
        Entered {
            account: self,
            previous,
        }
    }

    /// The most bytes the query held at once, so far.
    pub(crate) fn peak(&self) -> u64 {
        self.peak.get().max(0) as u64
    }

    /// The limit passed, if one was.
    pub(crate) fn exceeded(&self) -> Option<Exceeded> {
        self.exceeded.get()
    }

    fn charge(&self, delta: i64) {
        let used = self.used.get().saturating_add(delta);
        self.used.set(used);
        if used > self.peak.get() {
            self.peak.set(used);
        }
        let step = used - self.reported.get();
        let mut total = None;
        if step.abs() >= REPORT_STEP {
            total = Some(IN_QUERIES.fetch_add(step, Relaxed) + step);
            self.reported.set(used);
        }
        if delta <= 0 || self.exceeded.get().is_some() {
            return;
        }
        let exceeded = match (self.limits.per_query, self.limits.total, total) {
            (Some(limit), _, _) if used > limit as i64 => Exceeded::Query(limit),
            (_, Some(limit), Some(sum)) if sum > limit as i64 => Exceeded::Total(limit),
            _ => return,
        };
        self.exceeded.set(Some(exceeded));
        (self.on_exceed)(exceeded);
    }
}

impl Account {
    /// Whether `bytes` more fit within the limits; if not, the limit is
    /// marked passed and the caller told, as an allocation past it would.
    fn admits(&self, bytes: i64) -> bool {
        if self.exceeded.get().is_some() {
            return false;
        }
        let used = self.used.get().saturating_add(bytes);
        let unreported = self.used.get() - self.reported.get();
        let sum = IN_QUERIES
            .load(Relaxed)
            .saturating_add(unreported)
            .saturating_add(bytes);
        let exceeded = match (self.limits.per_query, self.limits.total) {
            (Some(limit), _) if used > limit as i64 => Exceeded::Query(limit),
            (_, Some(limit)) if sum > limit as i64 => Exceeded::Total(limit),
            _ => return true,
        };
        self.exceeded.set(Some(exceeded));
        (self.on_exceed)(exceeded);
        false
    }
}

/// Asks, before a large allocation, whether the account open on this
/// thread (if any) can take `bytes` more within its limits. When it cannot,
/// the account is marked past its limit and its caller told (the query is
/// stopped) without the allocation being made: a query that doubles a
/// string (`CONCAT(?x, ?x)` chained) used to pass its limit by the whole
/// doubling before the allocator could see it. The evaluator asks this
/// before a string function allocates its result, and before the dataset
/// copies a large value in or out (vendor/spareval, patches 5 and 6).
pub(crate) fn reserve(bytes: usize) -> bool {
    CURRENT
        .try_with(|c| {
            let account = c.get();
            // SAFETY: as in `charge`: the pointer is set by `Account::enter`
            // and reset by its guard before the account can go.
            account.is_null() || unsafe { (*account).admits(bytes as i64) }
        })
        .unwrap_or(true)
}

/// An [`Account`] open on this thread; dropping it closes it.
pub(crate) struct Entered<'a> {
    account: &'a Account,
    previous: *const Account,
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.previous));
        // What it reported leaves the shared sum with it.
        IN_QUERIES.fetch_sub(self.account.reported.replace(0), Relaxed);
    }
}

/// Runs `f` with no account charged for this thread's allocations and
/// frees: for memory a query's thread holds on behalf of something with its
/// own budget (the answer cache's copy of an answer in `kld serve`), which
/// must not cut the query short. What `f` allocates, it (or another
/// uncharged scope, or another thread) must free, or the account would be
/// credited for bytes it was never charged.
pub fn uncharged<T>(f: impl FnOnce() -> T) -> T {
    struct Restore(*const Account);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.replace(std::ptr::null())));
    f()
}

/// Bytes charged to all open accounts together (to a MiB per account).
#[cfg(test)]
fn in_queries() -> u64 {
    IN_QUERIES.load(Relaxed).max(0) as u64
}

static RELEASE: OnceLock<fn()> = OnceLock::new();

/// Registers how to hand freed memory back to the system (kld's binary:
/// mimalloc's `mi_collect`); [`release`] calls it. The first one wins.
pub fn set_release(f: fn()) {
    let _ = RELEASE.set(f);
}

/// Hands memory freed on this thread back to the system, through the
/// function given to [`set_release`] (nothing if none was): after a query
/// that held much, so the process's size falls back.
pub fn release() {
    if let Some(f) = RELEASE.get() {
        f();
    }
}

/// Why a text is not a size ([`parse_size`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    /// Not a number with an optional unit.
    #[error("{0:?} is not a size (e.g. 512M, 2G or a number of bytes)")]
    NotASize(String),
    /// Zero, negative or not finite.
    #[error("{0:?}: a size must be positive")]
    NotPositive(String),
}

/// Parses a size: bytes, or a number with a `K`, `M`, `G` or `T` suffix
/// (powers of 1024; an optional `B` or `iB` after it), e.g. `512M`, `1.5G`.
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let digits = lower.trim_end_matches("ib").trim_end_matches('b');
    let (number, shift) = match digits.chars().last() {
        Some('k') => (&digits[..digits.len() - 1], 10),
        Some('m') => (&digits[..digits.len() - 1], 20),
        Some('g') => (&digits[..digits.len() - 1], 30),
        Some('t') => (&digits[..digits.len() - 1], 40),
        _ => (digits, 0),
    };
    let n: f64 = number
        .trim()
        .parse()
        .map_err(|_| SizeError::NotASize(t.to_string()))?;
    if !(n.is_finite() && n > 0.0) {
        return Err(SizeError::NotPositive(t.to_string()));
    }
    Ok((n * (1u64 << shift) as f64) as u64)
}

/// `bytes` for a message: `1.5 GiB`, `512 MiB`, `900 KiB`.
pub(crate) fn show_size(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= (1u64 << 30) as f64 {
        format!("{:.1} GiB", b / (1u64 << 30) as f64)
    } else if b >= (1u64 << 20) as f64 {
        format!("{:.0} MiB", b / (1u64 << 20) as f64)
    } else {
        format!("{:.0} KiB", b / 1024.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("512M").unwrap(), 512 << 20);
        assert_eq!(parse_size("1.5g").unwrap(), 3 << 29);
        assert_eq!(parse_size("2GiB").unwrap(), 2 << 30);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert!(parse_size("lots").is_err());
        assert!(parse_size("0").is_err());
        assert_eq!(show_size(3 << 29), "1.5 GiB");
    }

    #[test]
    fn the_machine_sizes_the_default_limits() {
        let l = Limits::for_machine();
        let m = physical_memory();
        assert!(m >= 64 << 20, "{m}");
        assert_eq!(l.per_query, Some(m / 16));
        assert_eq!(l.total, Some(m / 4));
    }

    /// The charge itself, driven directly (the library's tests do not
    /// install the allocator; crates/cli/tests/cli/hostile_eval.rs checks the binary).
    /// One test, as the shared sum is the process's.
    #[test]
    fn an_account_calls_its_caller_once_past_a_limit() {
        let calls = Rc::new(Cell::new(0));
        let seen = calls.clone();
        let limits = Limits {
            per_query: Some(10 << 20),
            total: None,
        };
        let a = Account::new(limits, move |e| {
            assert_eq!(e, Exceeded::Query(10 << 20));
            seen.set(seen.get() + 1);
        });
        a.charge(6 << 20);
        a.charge(-(2 << 20));
        a.charge(5 << 20);
        assert_eq!(calls.get(), 0);
        assert_eq!(a.peak(), 9 << 20);
        a.charge(2 << 20);
        a.charge(2 << 20);
        assert_eq!(calls.get(), 1);
        assert_eq!(a.exceeded(), Some(Exceeded::Query(10 << 20)));
        assert_eq!(a.peak(), 13 << 20);
        // Closing an account takes its charge out of the shared sum.
        let before = in_queries();
        drop(a.enter());
        assert_eq!(in_queries(), before - (13 << 20));

        // Nothing is charged inside an uncharged scope, and the account is
        // charged again after it.
        let c = Account::new(Limits::NONE, |_| {});
        {
            let _open = c.enter();
            uncharged(|| charge(5 << 20));
            assert_eq!(c.peak(), 0);
            charge(1);
            assert_eq!(c.used.get(), 1);
        }

        // A reservation past the limit is refused and stops the query; one
        // within it is allowed and charges nothing.
        let hits = Rc::new(Cell::new(0));
        let seen = hits.clone();
        let r = Account::new(
            Limits {
                per_query: Some(8 << 20),
                total: None,
            },
            move |_| seen.set(seen.get() + 1),
        );
        assert!(reserve(1 << 40), "no account open: allowed");
        {
            let _open = r.enter();
            charge(4 << 20);
            assert!(reserve(3 << 20));
            assert_eq!(r.used.get(), 4 << 20);
            assert_eq!(hits.get(), 0);
            assert!(!reserve(5 << 20));
            assert_eq!(hits.get(), 1);
            assert_eq!(r.exceeded(), Some(Exceeded::Query(8 << 20)));
            assert!(!reserve(1));
            assert_eq!(hits.get(), 1, "told once");
        }

        // Two accounts together pass the total limit.
        let limits = Limits {
            per_query: Some(1 << 40),
            total: Some(in_queries() + (8 << 20)),
        };
        let a = Account::new(limits, |_| {});
        let b = Account::new(limits, |_| {});
        a.charge(5 << 20);
        assert_eq!(a.exceeded(), None);
        b.charge(5 << 20);
        assert_eq!(b.exceeded(), Some(Exceeded::Total(limits.total.unwrap())));
        assert_eq!(a.exceeded(), None);
        drop(a.enter());
        drop(b.enter());
    }
}
