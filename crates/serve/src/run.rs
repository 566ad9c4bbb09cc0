//! The query path of `kld serve`: a protocol request parsed and
//! negotiated ([`State::prepare`]), looked up in the answer cache
//! ([`State::lookup`]), or run with its answer streamed and a complete one
//! kept ([`State::run_prepared`]).
//!
//! Why it is apart from the routes' other state: it is the one path every
//! SPARQL request takes, and the one the cache ([`super::cache`]) and its
//! warm-up ([`super::warm`]) hook into.

use super::{
    cache, error_answer, flight, negotiate, refuse_update, Answer, Negotiated, SparqlRequest, State,
};
use karenina_ld::error::Error;
use karenina_ld::sparql::{self, QueryOptions};
use std::time::{Duration, Instant};

/// A request ready to run: parsed, its format negotiated.
pub struct PreparedQuery {
    parsed: sparql::Parsed,
    /// The chosen format and media type.
    pub negotiated: Negotiated,
    opts: QueryOptions,
    /// What its answer is cached under (`None`: the cache is off, or the
    /// answer changes from run to run).
    key: Option<cache::Key>,
    /// How long it waited for another request's computation of its answer
    /// (said apart from the wait for a slot when it runs out of time).
    followed: Duration,
    /// How long it waited for query slots.
    slot_waited: Duration,
}

impl PreparedQuery {
    /// Cancels it (from another thread) if it is running or about to.
    pub fn control(&self) -> sparql::Control {
        self.opts.control.clone()
    }

    /// Lets it run for at most `limit` (what is left of the request's time
    /// after waiting for a slot).
    pub fn limit_time(&mut self, limit: Duration) {
        self.opts.timeout = self.opts.timeout.min(limit);
    }

    /// Records that it waited `d` for another request's computation.
    pub(super) fn followed(&mut self, d: Duration) {
        self.followed += d;
    }

    /// Records that it waited `d` for a query slot.
    pub(super) fn waited_for_slot(&mut self, d: Duration) {
        self.slot_waited += d;
    }
}

/// What [`State::lookup`] found for a prepared query.
#[derive(Clone, Debug, Default)]
pub struct Lookup {
    /// The answer, if the cache holds it for the current generation.
    pub hit: Option<cache::Cached>,
    /// The answer's entity tag (weak: the generation and the key), when the
    /// cache is on.
    pub etag: Option<String>,
}

impl State {
    /// What the answer cache holds.
    pub fn cache_stats(&self) -> cache::Stats {
        self.cache.stats()
    }

    /// The cache's figures and the last finished warm-up, as the `/cache`
    /// route shows them.
    pub fn cache_report(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self.cache.stats()).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            let warmed = self
                .warmed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone();
            o.insert(
                "warmed".into(),
                serde_json::to_value(warmed).unwrap_or_default(),
            );
            o.insert("joined".into(), self.flights.joined().into());
            o.insert(
                "vocabulary_generation".into(),
                self.vocabulary_generation().into(),
            );
            o.insert("shared_failures".into(), self.flights.shared().into());
        }
        v
    }

    /// For a request that missed the cache: leads the computation of its
    /// answer, or follows the one another request is running for the same
    /// answer (the `flight` module). None when the cache is off.
    pub(super) fn join(&self, prepared: &PreparedQuery) -> Option<flight::Turn<'_>> {
        let key = prepared.key.as_ref()?;
        Some(self.flights.join(self.generation(), key))
    }

    /// True when the cache holds the answer to `prepared` now (not counted
    /// as a hit or miss).
    pub fn is_cached(&self, prepared: &PreparedQuery) -> bool {
        prepared
            .key
            .as_ref()
            .is_some_and(|k| self.cache.contains(self.generation(), k))
    }

    /// True when answers are cached (`--cache-mb` above 0).
    pub fn caching(&self) -> bool {
        self.cache.enabled()
    }

    /// The cached answer to a prepared query at the current generation, and
    /// its entity tag.
    pub fn lookup(&self, prepared: &PreparedQuery) -> Lookup {
        match &prepared.key {
            Some(key) => self.lookup_key(key),
            None => Lookup::default(),
        }
    }

    /// [`State::lookup`] for a request prepared before with the same text,
    /// dataset, base, `Accept` and `format`: no parsing, so a repeated
    /// request is answered before it takes a query slot. `None` when no
    /// such request was prepared (or the cache is off).
    pub fn quick_lookup(&self, req: &SparqlRequest, accept: Option<&str>) -> Option<Lookup> {
        if req.update.is_some() {
            return None;
        }
        let key = self.cache.key_of(&raw(req, accept)?)?;
        // (Called on the server's network threads: never waits for a reload
        // holding the store; the request then takes the usual path.)
        let generation = self.generation_now()?;
        Some(self.lookup_at(generation, &key))
    }

    fn lookup_key(&self, key: &cache::Key) -> Lookup {
        self.lookup_at(self.generation(), key)
    }

    fn lookup_at(&self, generation: u64, key: &cache::Key) -> Lookup {
        Lookup {
            hit: self.cache.get(generation, key),
            etag: Some(format!(
                "W/\"kld-{:x}-{generation}-{:016x}\"",
                self.boot,
                key.digest()
            )),
        }
    }

    /// Checks, parses and negotiates a protocol request; `accept` is the
    /// request's `Accept` header. A request that cannot run is answered here
    /// (400, 403, 406).
    pub fn prepare(
        &self,
        req: &SparqlRequest,
        accept: Option<&str>,
    ) -> Result<PreparedQuery, Answer> {
        if req.update.is_some() {
            return Err(refuse_update());
        }
        let Some(text) = req.query.as_deref() else {
            return Err(Answer::text(
                400,
                "no query: pass `query` (GET or form POST) or a application/sparql-query body",
            ));
        };
        if text.trim().is_empty() {
            return Err(Answer::text(400, "the query is empty"));
        }
        // A query that cannot depend on the base IRI is parsed without it,
        // so its answer is cached once for every URL it arrives by
        // (`/queries/NAME`, `/sparql` under any Host).
        let unbased = match req.base {
            Some(_) if self.cache.enabled() => sparql::parse_with_base(text, None)
                .ok()
                .filter(|p| !cache::base_matters(p.algebra().as_deref())),
            _ => None,
        };
        let base = if unbased.is_some() {
            None
        } else {
            req.base.clone()
        };
        let parsed = match unbased {
            Some(p) => p,
            None => sparql::parse_with_base(text, base.as_deref()).map_err(|e| error_answer(&e))?,
        };
        let form = parsed.form;
        let Some(negotiated) = negotiate(form, accept, req.format.as_deref()) else {
            return Err(Answer::text(
                406,
                format!(
                    "cannot answer a {form:?} query in {}; supported: {}",
                    req.format.as_deref().or(accept).unwrap_or(""),
                    negotiate::supported(form)
                ),
            ));
        };
        let opts = QueryOptions {
            timeout: self.settings.timeout,
            default_graphs: req.default_graphs.clone(),
            named_graphs: req.named_graphs.clone(),
            max_result_bytes: self.settings.max_result_bytes,
            control: sparql::Control::new(),
            table_width: None,
            memory: self.settings.memory,
            params: Vec::new(),
        };
        // An answer that changes from run to run (`NOW()`, `RAND()`, …) is
        // never kept, nor tagged: a second request must run it again.
        let key = (self.cache.enabled() && !parsed.shape.volatile).then(|| cache::Key {
            text: text.to_string(),
            base,
            default_graphs: req.default_graphs.clone(),
            named_graphs: req.named_graphs.clone(),
            media_type: negotiated.media_type,
        });
        if let (Some(key), Some(raw)) = (&key, raw(req, accept)) {
            self.cache.alias(raw, key);
        }
        Ok(PreparedQuery {
            parsed,
            negotiated,
            opts,
            key,
            followed: Duration::ZERO,
            slot_waited: Duration::ZERO,
        })
    }

    /// Runs a prepared query into `out` (streamed as it is produced); the
    /// query is listed as running meanwhile, so [`State::cancel_all`] stops it.
    /// A complete answer is also kept in the cache, for the generation of
    /// the store it was computed on.
    pub fn run_prepared(
        &self,
        prepared: &PreparedQuery,
        out: &mut (dyn std::io::Write + Send),
    ) -> Result<usize, Answer> {
        self.run_leading(prepared, out, None)
    }

    /// [`State::run_prepared`], for the request leading the computation of
    /// its answer (`leading`): a failure the same run would meet again is
    /// told to the requests waiting for it. (`out` lets the waiters go when
    /// it would wait for its client: see [`flight::Leading::release`].)
    pub(super) fn run_leading(
        &self,
        prepared: &PreparedQuery,
        out: &mut (dyn std::io::Write + Send),
        leading: Option<&flight::Leading<'_>>,
    ) -> Result<usize, Answer> {
        let id = self
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, prepared.control());
        let (store, generation) = self.snapshot();
        let mut tee = Tee {
            out,
            written: 0,
            kept: prepared.key.as_ref().map(|_| Vec::new()),
            room: cache::largest_answer(self.settings.cache_bytes),
        };
        let started = Instant::now();
        let r = sparql::run_parsed(
            &store,
            &prepared.parsed,
            &prepared.opts,
            prepared.negotiated.format,
            &mut tee,
        );
        let written = tee.written;
        let kept = karenina_ld::memory::uncharged(|| tee.kept.take());
        if let (Ok(_), Some(key)) = (&r, &prepared.key) {
            match kept {
                Some(body) => {
                    self.cache.insert(
                        generation,
                        key.clone(),
                        cache::Cached {
                            body: body.into(),
                            media_type: prepared.negotiated.media_type,
                            notes: prepared.control().notes().into(),
                        },
                    );
                }
                None => self.cache.too_big(),
            }
        }
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
        r.map_err(|e| match e {
            // It ran for what was left of the request's time: say the
            // configured limit, and where the rest went if it matters.
            Error::Timeout { .. } => {
                let limit = self.settings.timeout;
                let plain = error_answer(&Error::Timeout { limit });
                // Shared only when its time went computing: less than a
                // streamed chunk written, it never waited on its client (a
                // slow reader is not the waiters' fate).
                if let (Some(l), true) = (leading, written < super::stream::CHUNK as u64) {
                    l.failed(plain.clone(), Some(started.elapsed()));
                }
                // The waits measured; the rest of what went before it ran
                // (reading, parsing, thread hops) is neither.
                let waited = limit.saturating_sub(prepared.opts.timeout);
                let followed = prepared.followed.min(waited);
                let slot = prepared.slot_waited.min(waited - followed);
                let enough = |d: Duration| d >= Duration::from_millis(100);
                let parts: Vec<(Duration, &str)> = [
                    (slot, "waiting for a query slot"),
                    (followed, "waiting for an identical query's answer"),
                ]
                .into_iter()
                .filter(|(d, _)| enough(*d))
                .collect();
                if parts.is_empty() {
                    return plain;
                }
                let total: Duration = parts.iter().map(|(d, _)| *d).sum();
                let what = parts
                    .iter()
                    .map(|(d, w)| {
                        if parts.len() == 1 {
                            w.to_string()
                        } else {
                            format!("{w} ({:.3} s)", d.as_secs_f64())
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" and ");
                Answer::text(
                    503,
                    format!(
                        "SPARQL: query stopped at the server's {} s time limit, {:.3} s of it spent {} (the server is busy; try again shortly, or narrow the query)",
                        limit.as_secs_f64(),
                        total.as_secs_f64(),
                        what
                    ),
                )
            }
            // Past its own memory limit, or the answer's size limit: so
            // would the same query be on the same store.
            e @ (Error::MemoryLimit { total: false, .. } | Error::ResultTooLarge { .. }) => {
                let a = error_answer(&e);
                if let Some(l) = leading {
                    l.failed(a.clone(), None);
                }
                a
            }
            e => error_answer(&e),
        })
    }

    /// Runs a protocol request into one buffered answer, from the cache
    /// when it holds it (see [`State::prepare`], [`State::lookup`] and
    /// [`State::run_prepared`]; the HTTP layer streams instead).
    pub fn run_query(&self, req: &SparqlRequest, accept: Option<&str>) -> Answer {
        let prepared = match self.prepare(req, accept) {
            Ok(p) => p,
            Err(a) => return a,
        };
        if let Some(hit) = self.lookup(&prepared).hit {
            return Answer {
                status: 200,
                content_type: hit.media_type.to_string(),
                body: hit.body.to_vec(),
            };
        }
        let mut body = Vec::new();
        match self.run_prepared(&prepared, &mut body) {
            Ok(_) => Answer {
                status: 200,
                content_type: prepared.negotiated.media_type.to_string(),
                body,
            },
            Err(a) => a,
        }
    }
}

/// A request as it arrived, for the cache's aliases;
/// `None` past [`cache::RAW_TEXT_LIMIT`].
fn raw(req: &SparqlRequest, accept: Option<&str>) -> Option<cache::Raw> {
    let text = req.query.as_ref()?;
    if text.len() > cache::RAW_TEXT_LIMIT {
        return None;
    }
    Some(cache::Raw {
        text: text.clone(),
        base: req.base.clone(),
        default_graphs: req.default_graphs.clone(),
        named_graphs: req.named_graphs.clone(),
        accept: accept.map(str::to_string),
        format: req.format.clone(),
    })
}

/// Passes an answer on to its writer and keeps a copy for the cache, up to
/// `room` bytes (past it the copy is dropped: too big to cache).
struct Tee<'a> {
    out: &'a mut (dyn std::io::Write + Send),
    written: u64,
    kept: Option<Vec<u8>>,
    room: u64,
}

impl std::io::Write for Tee<'_> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(data)?;
        self.written += n as u64;
        // The copy is the cache's, bounded by its budget: not charged to the
        // query's memory (an answer was cut at 37 MB under a 96 MB limit
        // because its copy counted twice).
        karenina_ld::memory::uncharged(|| {
            if let Some(kept) = &mut self.kept {
                if (kept.len() + n) as u64 > self.room {
                    self.kept = None;
                } else {
                    kept.extend_from_slice(&data[..n]);
                }
            }
        });
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}
