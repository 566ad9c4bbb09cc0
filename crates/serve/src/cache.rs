//! The answer cache of `kld serve`: complete answers kept by store
//! generation, query, dataset and format, within a memory budget.
//!
//! Why it exists: the store behind `kld serve` only changes when `--watch`
//! replaces a graph, yet every visit of the page ran the same catalogue
//! queries again (0.5-1.3 s each over 200 × 50 checkpoints under a few
//! clients). Between two changes an answer cannot change, so it is computed
//! once per *generation* (a number [`super::State`] bumps with every change
//! of the store) and kept here.
//!
//! What a key holds is exactly what decides an answer: the query text as
//! sent (nothing normalised but the base IRI, dropped only when the query
//! cannot depend on it: see [`base_matters`]), the dataset
//! (`default-graph-uri`, `named-graph-uri`) and the negotiated media type.
//! Only complete answers are stored (the caller inserts after a query ended
//! well, never a timed-out, cancelled or failed one); an answer bigger than
//! a quarter of the budget ([`largest_answer`]) is not stored; the least recently used answers go first when
//! the budget is full; a new generation empties the cache, and an answer
//! computed for an older generation is refused.

use axum::body::Bytes;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

/// What decides an answer (besides the store's generation).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// The query text as sent.
    pub text: String,
    /// The base IRI relative IRIs resolve against, when the query can
    /// depend on it ([`base_matters`]).
    pub base: Option<String>,
    /// `default-graph-uri` values, as sent.
    pub default_graphs: Vec<String>,
    /// `named-graph-uri` values, as sent.
    pub named_graphs: Vec<String>,
    /// The negotiated media type (one per format).
    pub media_type: &'static str,
}

impl Key {
    /// The bytes an entry of this key costs besides its answer (its strings
    /// and the bookkeeping of two maps).
    fn weight(&self) -> u64 {
        let strings: usize = self.text.len()
            + self.base.as_ref().map_or(0, String::len)
            + self
                .default_graphs
                .iter()
                .chain(&self.named_graphs)
                .map(String::len)
                .sum::<usize>();
        (strings + ENTRY_OVERHEAD) as u64
    }

    /// A short, stable digest of the key (for ETags).
    pub fn digest(&self) -> u64 {
        // Fixed keys: the same key gives the same digest in every process
        // of one build.
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.hash(&mut h);
        h.finish()
    }
}

/// A request as it arrived (before parsing and negotiation): what
/// [`AnswerCache::alias`] maps to the [`Key`] its answer is kept under, so a
/// repeated request finds its answer without being parsed again.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Raw {
    /// The query text.
    pub text: String,
    /// The base IRI it came with.
    pub base: Option<String>,
    /// `default-graph-uri` values.
    pub default_graphs: Vec<String>,
    /// `named-graph-uri` values.
    pub named_graphs: Vec<String>,
    /// The `Accept` header.
    pub accept: Option<String>,
    /// The `format` parameter.
    pub format: Option<String>,
}

impl Raw {
    fn weight(&self) -> usize {
        self.text.len()
            + [&self.base, &self.accept, &self.format]
                .iter()
                .map(|s| s.as_ref().map_or(0, String::len))
                .sum::<usize>()
            + self
                .default_graphs
                .iter()
                .chain(&self.named_graphs)
                .map(String::len)
                .sum::<usize>()
            + ENTRY_OVERHEAD
    }
}

/// The longest query text remembered as a [`Raw`] request (looking one up
/// hashes its text on the server's network thread).
pub const RAW_TEXT_LIMIT: usize = 64 << 10;

/// Bookkeeping bytes counted per entry (the key's and the answer's handles,
/// two map slots).
const ENTRY_OVERHEAD: usize = 256;

/// The largest answer kept under a budget: a quarter of it, so one answer
/// never pushes out all the others, and a query streaming a large answer
/// holds at most that much more memory for its copy.
pub fn largest_answer(budget: u64) -> u64 {
    budget / 4
}

/// True when a query's answer may depend on the base IRI it is parsed
/// against: it holds a relative IRI (it does not parse without a base:
/// `algebra` is `None`) or calls `IRI()` / `URI()`, which resolve strings
/// against the base. `algebra` is the query parsed without a base and
/// written back ([`karenina_ld::sparql::Parsed::algebra`]: no comments, prefixed
/// names expanded); conservative, the name followed by `(` anywhere in it
/// (a string included) counts.
pub fn base_matters(algebra: Option<&str>) -> bool {
    let Some(text) = algebra else {
        return true;
    };
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    ["iri", "uri"].iter().any(|name| {
        lower.match_indices(name).any(|(at, _)| {
            let before_ok = at == 0 || {
                let c = bytes[at - 1];
                !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'?' | b'$'))
            };
            let after = lower[at + name.len()..].trim_start();
            before_ok && after.starts_with('(')
        })
    })
}

/// A stored answer.
#[derive(Clone, Debug)]
pub struct Cached {
    /// The answer's bytes (shared: sending one copies nothing).
    pub body: Bytes,
    /// Its `Content-Type`.
    pub media_type: &'static str,
    /// The notes the query's answer came with (`Kld-Note` headers).
    pub notes: std::sync::Arc<[String]>,
}

/// What the cache holds and has done, for the `/cache` route.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// The store generation the answers belong to.
    pub generation: u64,
    /// The budget in bytes (0: the cache is off).
    pub budget: u64,
    /// Bytes held (answers and keys).
    pub bytes: u64,
    /// Answers held.
    pub entries: usize,
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that found nothing.
    pub misses: u64,
    /// Answers stored.
    pub stored: u64,
    /// Answers not stored because they exceed [`largest_answer`].
    pub too_big: u64,
    /// Answers dropped to make room.
    pub evicted: u64,
}

struct Slot {
    tick: u64,
    weight: u64,
    answer: Cached,
}

#[derive(Default)]
struct Inner {
    map: HashMap<Arc<Key>, Slot>,
    /// Requests as they arrived, by the key they were prepared into (not
    /// tied to a generation: parsing and negotiation do not read the store).
    aliases: HashMap<Raw, Arc<Key>>,
    alias_bytes: usize,
    /// Least recently used first.
    order: BTreeMap<u64, Arc<Key>>,
    tick: u64,
    stats: Stats,
}

/// Answers by key for the current generation, least recently used dropped
/// past the budget. Thread-safe; every operation holds one short lock.
pub struct AnswerCache {
    budget: u64,
    inner: Mutex<Inner>,
}

impl AnswerCache {
    /// A cache of at most `budget` bytes; 0 turns it off (nothing is stored,
    /// every lookup misses).
    pub fn new(budget: u64) -> Self {
        AnswerCache {
            budget,
            inner: Mutex::new(Inner {
                stats: Stats {
                    budget,
                    ..Stats::default()
                },
                ..Inner::default()
            }),
        }
    }

    /// False when the budget is 0.
    pub fn enabled(&self) -> bool {
        self.budget > 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The answer to `key` at `generation`, if stored (and marks it used).
    pub fn get(&self, generation: u64, key: &Key) -> Option<Cached> {
        if !self.enabled() {
            return None;
        }
        let mut inner = self.lock();
        let inner = &mut *inner;
        if inner.stats.generation != generation {
            inner.stats.misses += 1;
            return None;
        }
        inner.tick += 1;
        let tick = inner.tick;
        let Some((k, slot)) = inner.map.get_key_value(key) else {
            inner.stats.misses += 1;
            return None;
        };
        let k = k.clone();
        let old = slot.tick;
        let answer = slot.answer.clone();
        if let Some(slot) = inner.map.get_mut(key) {
            slot.tick = tick;
        }
        inner.order.remove(&old);
        inner.order.insert(tick, k);
        inner.stats.hits += 1;
        Some(answer)
    }

    /// Remembers that requests like `raw` are answered under `key`. The
    /// aliases hold at most an eighth of the budget (all are dropped when
    /// the next would pass it).
    pub fn alias(&self, raw: Raw, key: &Key) {
        if !self.enabled() {
            return;
        }
        let weight = raw.weight() + key.weight() as usize;
        let room = (self.budget / 8) as usize;
        if weight > room {
            return;
        }
        let mut inner = self.lock();
        if inner.aliases.contains_key(&raw) {
            return;
        }
        if inner.alias_bytes + weight > room {
            inner.aliases.clear();
            inner.alias_bytes = 0;
        }
        inner.alias_bytes += weight;
        inner.aliases.insert(raw, Arc::new(key.clone()));
    }

    /// The key a request like `raw` was prepared into before, if known.
    pub fn key_of(&self, raw: &Raw) -> Option<Arc<Key>> {
        if !self.enabled() {
            return None;
        }
        self.lock().aliases.get(raw).cloned()
    }

    /// True when the answer to `key` at `generation` is stored (neither a
    /// hit nor a miss, nor a use).
    pub fn contains(&self, generation: u64, key: &Key) -> bool {
        let inner = self.lock();
        inner.stats.generation == generation && inner.map.contains_key(key)
    }

    /// Stores a complete answer to `key` computed at `generation`; returns
    /// whether it was stored (not when the cache is off, the generation is
    /// no longer the current one, or the answer exceeds [`largest_answer`]).
    pub fn insert(&self, generation: u64, key: Key, answer: Cached) -> bool {
        if !self.enabled() {
            return false;
        }
        let weight = answer.body.len() as u64 + key.weight();
        let mut inner = self.lock();
        let inner = &mut *inner;
        if inner.stats.generation != generation {
            return false;
        }
        if weight > largest_answer(self.budget) {
            inner.stats.too_big += 1;
            return false;
        }
        if let Some(old) = inner.map.remove(&key) {
            inner.order.remove(&old.tick);
            inner.stats.bytes -= old.weight;
        }
        while inner.stats.bytes + weight > self.budget {
            let Some((_, lru)) = inner.order.pop_first() else {
                break;
            };
            if let Some(gone) = inner.map.remove(&lru) {
                inner.stats.bytes -= gone.weight;
                inner.stats.evicted += 1;
            }
        }
        inner.tick += 1;
        let tick = inner.tick;
        let key = Arc::new(key);
        inner.order.insert(tick, key.clone());
        inner.map.insert(
            key,
            Slot {
                tick,
                weight,
                answer,
            },
        );
        inner.stats.bytes += weight;
        inner.stats.stored += 1;
        inner.stats.entries = inner.map.len();
        true
    }

    /// Counts an answer not stored because it exceeds [`largest_answer`]
    /// (its copy was dropped while it was written).
    pub fn too_big(&self) {
        if self.enabled() {
            self.lock().stats.too_big += 1;
        }
    }

    /// Moves to `generation`: every stored answer goes.
    pub fn invalidate(&self, generation: u64) {
        let mut inner = self.lock();
        inner.map.clear();
        inner.order.clear();
        inner.stats.bytes = 0;
        inner.stats.generation = generation;
    }

    /// What the cache holds now.
    pub fn stats(&self) -> Stats {
        let inner = self.lock();
        Stats {
            entries: inner.map.len(),
            ..inner.stats.clone()
        }
    }
}

#[cfg(test)]
impl Key {
    /// A key of `text` alone, answered in CSV (for tests).
    pub(super) fn of(text: &str) -> Key {
        Key {
            text: text.into(),
            base: None,
            default_graphs: Vec::new(),
            named_graphs: Vec::new(),
            media_type: "text/csv",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> Key {
        Key::of(text)
    }

    fn answer(n: usize) -> Cached {
        Cached {
            body: Bytes::from(vec![b'x'; n]),
            media_type: "text/csv",
            notes: Vec::new().into(),
        }
    }

    #[test]
    fn a_stored_answer_is_found_at_its_generation_only() {
        let c = AnswerCache::new(1 << 20);
        assert!(c.get(0, &key("q")).is_none());
        assert!(c.insert(0, key("q"), answer(10)));
        assert_eq!(c.get(0, &key("q")).unwrap().body.len(), 10);
        // Another format, dataset or text is another answer.
        let mut other = key("q");
        other.media_type = "application/sparql-results+json";
        assert!(c.get(0, &other).is_none());
        let mut graphs = key("q");
        graphs.default_graphs.push("urn:g".into());
        assert!(c.get(0, &graphs).is_none());
        assert!(c.get(0, &key("q ")).is_none());
        let s = c.stats();
        assert_eq!((s.hits, s.misses, s.entries), (1, 4, 1));
        // A new generation empties it, and refuses answers of the old one.
        c.invalidate(1);
        assert!(c.get(1, &key("q")).is_none());
        assert!(!c.insert(0, key("q"), answer(10)));
        assert_eq!(c.stats().bytes, 0);
        assert!(c.insert(1, key("q"), answer(10)));
        assert!(c.get(0, &key("q")).is_none(), "an old generation's lookup");
    }

    #[test]
    fn the_budget_holds_least_recently_used_go_first() {
        let per = 1000 + key("a").weight();
        let c = AnswerCache::new(per * 4);
        for q in ["a", "b", "c"] {
            assert!(c.insert(0, key(q), answer(1000)));
        }
        assert_eq!(c.stats().bytes, per * 3);
        assert!(c.insert(0, key("e"), answer(1000)));
        assert!(c.get(0, &key("e")).is_some());
        c.invalidate(0);
        for q in ["a", "b", "c", "e"] {
            assert!(c.insert(0, key(q), answer(1000)));
        }
        assert!(c.get(0, &key("e")).is_some());
        // `a` used: `b` is now the least recent and goes for `d`.
        assert!(c.get(0, &key("a")).is_some());
        assert!(c.insert(0, key("d"), answer(1000)));
        assert!(c.get(0, &key("b")).is_none());
        for q in ["a", "c", "d", "e"] {
            assert!(c.get(0, &key(q)).is_some(), "{q}");
        }
        let s = c.stats();
        assert_eq!((s.entries, s.evicted), (4, 1));
        assert!(s.bytes <= s.budget);
        // An answer bigger than a quarter of the budget is not stored and
        // evicts nothing.
        assert!(!c.insert(0, key("huge"), answer(1001)));
        let s = c.stats();
        assert_eq!((s.entries, s.too_big), (4, 1));
        // Storing a key again replaces it without counting it twice.
        assert!(c.insert(0, key("a"), answer(500)));
        assert_eq!(c.stats().bytes, per * 3 + 500 + key("a").weight());
    }

    #[test]
    fn a_request_seen_before_finds_its_key_and_aliases_stay_bounded() {
        let c = AnswerCache::new(64 << 10);
        let raw = |i: usize| Raw {
            text: format!("SELECT * {{ ?s ?p ?o }} LIMIT {i}"),
            base: Some("http://localhost/sparql".into()),
            default_graphs: Vec::new(),
            named_graphs: Vec::new(),
            accept: Some("application/json".into()),
            format: None,
        };
        assert!(c.key_of(&raw(0)).is_none());
        c.alias(raw(0), &key("q"));
        assert_eq!(*c.key_of(&raw(0)).unwrap(), key("q"));
        let mut other = raw(0);
        other.accept = Some("text/csv".into());
        assert!(c.key_of(&other).is_none(), "another Accept");
        // An eighth of 64 KiB holds about fifteen; many more never pass it.
        for i in 1..200 {
            c.alias(raw(i), &key("q"));
            let inner = c.lock();
            assert!(inner.alias_bytes <= 8 << 10, "{}", inner.alias_bytes);
        }
        assert!(c.key_of(&raw(199)).is_some());
        assert!(c.key_of(&raw(0)).is_none(), "dropped to make room");
    }

    #[test]
    fn a_zero_budget_stores_nothing() {
        let c = AnswerCache::new(0);
        assert!(!c.enabled());
        assert!(!c.insert(0, key("q"), answer(1)));
        assert!(c.get(0, &key("q")).is_none());
        assert_eq!(c.stats().entries, 0);
    }

    #[test]
    fn the_base_matters_only_to_relative_iris_and_iri_calls() {
        let matters = |q: &str| {
            let parsed = karenina_ld::sparql::parse(q).ok();
            base_matters(parsed.and_then(|p| p.algebra()).as_deref())
        };
        assert!(matters("SELECT * { <x> ?p ?o }"));
        assert!(!matters("SELECT * { ?s ?p ?o }"));
        assert!(matters("SELECT (IRI(\"x\") AS ?i) {}"));
        assert!(matters("SELECT (uri (\"x\") AS ?i) {}"));
        // Other names holding the letters, and comments, do not count.
        assert!(!matters("SELECT * { ?s ?p ?o FILTER(isIRI(?o)) }"));
        assert!(!matters("SELECT ?iri { ?iri ?p ?o }"));
        assert!(!matters(
            "# an IRI (relative)\nSELECT * { ?s schema:uri ?o }"
        ));
        // The catalogue depends on no base: its answers are shared by
        // `/queries/NAME` and the same text POSTed to `/sparql`.
        for q in karenina_ld::sparql::CATALOGUE {
            assert!(!matters(q.text), "{}", q.name);
        }
    }
}
