//! The answer cache of `kld serve` (issue 28): answers kept per store
//! generation, the catalogue computed ahead, nothing stale after a reload,
//! the budget held, only complete answers kept. Each against a real server
//! on loopback; where a cached answer could differ from a computed one, it
//! is compared with a server run with `--cache-mb 0`.

use crate::common::*;
use crate::serve::{client, rows, serve, Server, RUNAWAY};
use reqwest::blocking::{Client, Response};
use serde_json::Value;
use std::time::{Duration, Instant};

const NAMES: &str = "SELECT ?g ?name WHERE { GRAPH ?g { ?f a <https://schema.org/DataFeed> ; <https://schema.org/name> ?name } } ORDER BY ?g";

/// POSTs `query` as a form, asking for SPARQL JSON.
fn post(c: &Client, s: &Server, query: &str) -> Response {
    c.post(format!("{}/sparql", s.base))
        .header("Accept", "application/sparql-results+json")
        .form(&[("query", query)])
        .send()
        .unwrap()
}

/// The `X-Kld-Cache` header and the body of an answer (asserted 200).
fn answer(r: Response) -> (String, Vec<u8>) {
    assert_eq!(r.status(), 200);
    let mark = r.headers()["x-kld-cache"].to_str().unwrap().to_string();
    (mark, r.bytes().unwrap().to_vec())
}

/// `n` clients POST `query` at once: each answer's cache mark and body.
fn at_once(s: &Server, query: &str, n: usize) -> Vec<(String, Vec<u8>)> {
    std::thread::scope(|scope| {
        let hs: Vec<_> = (0..n)
            .map(|_| scope.spawn(|| answer(post(&client(), s, query))))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

pub(crate) fn cache(c: &Client, s: &Server) -> Value {
    c.get(format!("{}/cache", s.base))
        .send()
        .unwrap()
        .json()
        .unwrap()
}

/// Waits until the warm-up of `generation` has finished.
fn warmed(c: &Client, s: &Server, generation: u64) -> Value {
    let t = Instant::now();
    loop {
        let v = cache(c, s);
        if v["warmed"]["generation"] == generation {
            return v;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "generation {generation} not warmed: {v}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn catalogue_names() -> Vec<&'static str> {
    karenina_ld::sparql::CATALOGUE
        .iter()
        .map(|q| q.name)
        .collect()
}

/// Two servers of the corpus's `loads`: with the cache, and with
/// `--cache-mb 0` (every answer computed).
fn with_and_without_cache() -> (Server, Server) {
    let inputs = [corpus().join("loads")];
    (serve(&inputs, &[]), serve(&inputs, &["--cache-mb", "0"]))
}

#[test]
fn a_repeated_query_is_a_hit_with_the_same_bytes_as_a_server_without_cache() {
    let (s, plain) = with_and_without_cache();
    let c = client();
    let (first, body) = answer(post(&c, &s, NAMES));
    assert_eq!(first, "miss");
    let (second, again) = answer(post(&c, &s, NAMES));
    assert_eq!(second, "hit");
    assert!(again == body, "a hit sends other bytes than computed");
    // The same query by GET is the same answer (the same key).
    let r = c
        .get(format!("{}/sparql", s.base))
        .query(&[("query", NAMES)])
        .send()
        .unwrap();
    let (mark, by_get) = answer(r);
    assert_eq!(mark, "hit");
    assert!(by_get == body, "GET and POST answers differ");
    // Another format or dataset is another answer.
    let r = c
        .get(format!("{}/sparql", s.base))
        .query(&[("query", NAMES), ("format", "csv")])
        .send()
        .unwrap();
    assert_eq!(answer(r).0, "miss");
    let (_, plain_body) = answer(post(&c, &plain, NAMES));
    assert!(body == plain_body, "cached and computed answers differ");
    let stats = cache(&c, &s);
    assert!(stats["hits"].as_u64().unwrap() >= 2, "{stats}");
    assert!(stats["bytes"].as_u64().unwrap() <= stats["budget"].as_u64().unwrap());

    // The catalogue is computed ahead: once warmed, every catalogue query's
    // first request is a hit, by its route and as text POSTed to /sparql,
    // with the rows a server without cache computes.
    // The number views the results table answers are its rows by route
    // (`table`), and the same rows as SPARQL's POSTed.
    warmed(&c, &s, 0);
    for name in catalogue_names() {
        let url = format!("{}/queries/{name}", s.base);
        let (mark, cached) = answer(c.get(&url).send().unwrap());
        let by_table = karenina_ld::table::answers::ANSWERED.contains(&name);
        assert_eq!(mark, if by_table { "table" } else { "hit" }, "{name}");
        let text = karenina_ld::sparql::find(name).unwrap().text;
        let (mark, posted) = answer(post(&c, &s, text));
        assert_eq!(mark, "hit", "{name} POSTed");
        if by_table {
            let rows_of = |b: &[u8]| rows(&serde_json::from_slice(b).unwrap());
            assert_eq!(rows_of(&cached), rows_of(&posted), "{name}");
        } else {
            assert!(cached == posted, "{name}: by route and POSTed differ");
        }
        let computed = c
            .get(format!("{}/queries/{name}", plain.base))
            .send()
            .unwrap();
        assert_eq!(
            computed.headers()["x-kld-cache"],
            if by_table { "table" } else { "off" }
        );
        let computed: Value = computed.json().unwrap();
        let cached: Value = serde_json::from_slice(&cached).unwrap();
        assert_eq!(rows(&cached), rows(&computed), "{name}");
    }
    // Downloads (CSV, TSV) are warmed too.
    let r = c
        .get(format!("{}/queries/benchmark-stats?format=csv", s.base))
        .send()
        .unwrap();
    assert_eq!(answer(r).0, "hit");
}

/// POSTs [`NAMES`] with `If-None-Match: tag`.
fn if_none_match(c: &Client, s: &Server, tag: &str) -> Response {
    c.post(format!("{}/sparql", s.base))
        .header("If-None-Match", tag)
        .form(&[("query", NAMES)])
        .send()
        .unwrap()
}

#[test]
fn an_entity_tag_answers_304_until_the_store_changes() {
    let (_dir, f, s) = watched_minimal();
    let c = client();
    let r = post(&c, &s, NAMES);
    let tag = r.headers()["etag"].to_str().unwrap().to_string();
    assert!(tag.starts_with("W/\""), "{tag}");
    let r = if_none_match(&c, &s, &tag);
    assert_eq!(r.status(), 304);
    assert!(r.bytes().unwrap().is_empty());
    touch_name(&f, "renamed");
    wait_for_name(&c, &s, "renamed");
    let r = if_none_match(&c, &s, &tag);
    assert_eq!(r.status(), 200, "an old generation's tag");
    assert_ne!(r.headers()["etag"].to_str().unwrap(), tag);
}

/// A server watching a directory holding one small checkpoint: the
/// directory (removed when dropped), the checkpoint's path and the server.
fn watched_minimal() -> (tempfile::TempDir, std::path::PathBuf, Server) {
    let dir = tempfile::tempdir().unwrap();
    let f = crate::copy_to(
        dir.path(),
        &corpus().join("loads/tests__fixtures__checkpoints__minimal.jsonld"),
    );
    let s = serve(&[dir.path().to_path_buf()], &["--watch"]);
    (dir, f, s)
}

/// Renames the checkpoint in `f`.
fn touch_name(f: &std::path::Path, name: &str) {
    let mut j: Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
    j["name"] = Value::String(name.into());
    std::fs::write(f, serde_json::to_string_pretty(&j).unwrap()).unwrap();
}

/// Waits until `/checkpoints` (which reads the store, not the cache) lists
/// a checkpoint named `name`.
fn wait_for_name(c: &Client, s: &Server, name: &str) {
    let t = Instant::now();
    loop {
        let v: Value = c
            .get(format!("{}/checkpoints", s.base))
            .send()
            .unwrap()
            .json()
            .unwrap();
        if v.as_array().unwrap().iter().any(|cp| cp["name"] == name) {
            return;
        }
        assert!(t.elapsed() < Duration::from_secs(10), "not reloaded: {v}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn names_of(body: &[u8]) -> Vec<String> {
    let v: Value = serde_json::from_slice(body).unwrap();
    v["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"]["value"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn no_answer_of_the_old_store_is_served_once_a_reload_is_visible() {
    let (_dir, f, s) = watched_minimal();
    let c = client();
    let name_rows = karenina_ld::sparql::find("benchmark-stats").unwrap();
    warmed(&c, &s, 0);
    let (_, before) = answer(post(&c, &s, NAMES));
    assert_eq!(names_of(&before), ["minimal-test"]);
    assert_eq!(answer(post(&c, &s, NAMES)).0, "hit");
    // Three edits in a row: after each, as soon as /checkpoints shows it,
    // the cached query answers the new name, and the catalogue is warmed
    // again with it.
    for (i, name) in ["first-rename", "second-rename", "third-rename"]
        .iter()
        .enumerate()
    {
        touch_name(&f, name);
        wait_for_name(&c, &s, name);
        let (_, now) = answer(post(&c, &s, NAMES));
        assert_eq!(names_of(&now), [*name], "edit {i}: a stale answer");
        let r = c
            .get(format!("{}/queries/{}", s.base, name_rows.name))
            .send()
            .unwrap();
        let (_, stats) = answer(r);
        assert!(
            String::from_utf8_lossy(&stats).contains(name),
            "edit {i}: benchmark-stats is stale"
        );
    }
    // The warm-up reaches the last generation: the catalogue hits again.
    let generation = cache(&c, &s)["generation"].as_u64().unwrap();
    assert!(generation >= 3, "{generation}");
    warmed(&c, &s, generation);
    let r = c
        .get(format!("{}/queries/{}", s.base, name_rows.name))
        .send()
        .unwrap();
    let (mark, stats) = answer(r);
    assert_eq!(mark, "hit");
    assert!(String::from_utf8_lossy(&stats).contains("third-rename"));
}

#[test]
fn cache_mb_0_never_hits() {
    let s = serve(&[corpus().join("loads")], &["--cache-mb", "0"]);
    let c = client();
    for _ in 0..3 {
        assert_eq!(answer(post(&c, &s, NAMES)).0, "off");
        let r = c.get(format!("{}/queries/graphs", s.base)).send().unwrap();
        assert_eq!(answer(r).0, "off");
    }
    let stats = cache(&c, &s);
    assert_eq!(stats["budget"], 0);
    assert_eq!(stats["entries"], 0);
    assert_eq!(stats["hits"], 0);
    assert_eq!(stats["warmed"], Value::Null, "nothing to warm");
}

#[test]
fn a_huge_answer_is_not_cached_and_the_budget_holds() {
    // 1 MiB: answers over 256 KiB are not kept.
    let s = serve(&[corpus().join("loads")], &["--cache-mb", "1"]);
    let c = client();
    let all = "SELECT * WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g ?s ?p ?o";
    let (mark, body) = answer(post(&c, &s, all));
    assert_eq!(mark, "miss");
    assert!(body.len() > 256 << 10, "{} bytes", body.len());
    let (mark, again) = answer(post(&c, &s, all));
    assert_eq!(mark, "miss", "an answer past a quarter of the budget");
    assert!(again == body, "two runs of the same query differ");
    let stats = cache(&c, &s);
    assert!(stats["too_big"].as_u64().unwrap() >= 2, "{stats}");
    // Many distinct answers: the least recently used go, the budget holds.
    for i in 0..60 {
        let q = format!(
            "SELECT ?s ?o WHERE {{ GRAPH ?g {{ ?s <https://schema.org/text> ?o }} }} ORDER BY ?s LIMIT {}",
            200 + i
        );
        answer(post(&c, &s, &q));
        let stats = cache(&c, &s);
        assert!(
            stats["bytes"].as_u64().unwrap() <= 1 << 20,
            "past the budget: {stats}"
        );
    }
    let stats = cache(&c, &s);
    assert!(stats["evicted"].as_u64().unwrap() > 0, "{stats}");
}

#[test]
fn concurrent_identical_queries_are_all_answered_alike() {
    let (s, plain) = with_and_without_cache();
    let c = client();
    let q = "SELECT ?g ?o WHERE { GRAPH ?g { ?s <https://schema.org/text> ?o } } ORDER BY ?g ?o";
    let (_, expected) = answer(post(&c, &plain, q));
    let got = at_once(&s, q, 16);
    for (mark, body) in &got {
        assert!(mark == "hit" || mark == "miss", "{mark}");
        assert!(body == &expected, "a concurrent answer differs");
    }
    let (mark, body) = answer(post(&c, &s, q));
    assert_eq!(mark, "hit");
    assert!(body == expected, "the hit differs");
}

#[test]
fn a_timed_out_query_is_not_cached() {
    let s = serve(&[corpus().join("loads")], &["--timeout", "1"]);
    let c = client();
    warmed(&c, &s, 0);
    let runaway = RUNAWAY;
    for _ in 0..2 {
        let r = post(&c, &s, runaway);
        assert_eq!(r.status(), 503);
        assert_eq!(r.headers().get("x-kld-cache"), None);
    }
    let before = cache(&c, &s)["stored"].as_u64().unwrap();
    // The same text still runs (and is stopped) rather than being answered.
    let r = post(&c, &s, runaway);
    assert_eq!(r.status(), 503);
    let stats = cache(&c, &s);
    assert_eq!(stats["stored"].as_u64().unwrap(), before, "{stats}");
    assert_eq!(stats["hits"], 0, "{stats}");
}

#[test]
fn a_repeated_request_is_answered_while_every_query_slot_is_busy() {
    let s = serve(
        &[corpus().join("loads")],
        &["--max-concurrent", "1", "--timeout", "4"],
    );
    let c = client();
    answer(post(&c, &s, NAMES));
    let runaway = {
        let url = format!("{}/sparql", s.base);
        std::thread::spawn(move || {
            client()
                .post(url)
                .form(&[("query", RUNAWAY)])
                .send()
                .unwrap()
                .status()
        })
    };
    // The runaway holds the one slot (the warm-up runs beside the slots).
    std::thread::sleep(Duration::from_millis(500));
    let (mark, _) = answer(post(&c, &s, NAMES));
    assert_eq!(mark, "hit");
    assert!(
        !runaway.is_finished(),
        "the hit waited for the slot the runaway held"
    );
    assert_eq!(runaway.join().unwrap(), 503);
}

/// Identical requests arriving while their answer is being computed wait
/// for that computation and are answered from the cache: one computes
/// (`miss`), the others get its bytes (`hit`), and `/cache` counts them as
/// `joined`.
#[test]
fn identical_requests_at_once_compute_their_answer_once() {
    let s = serve(&[corpus().join("loads")], &["--max-concurrent", "4"]);
    let c = client();
    warmed(&c, &s, 0);
    // About a second of work (a count over a cartesian product).
    let q = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d <https://schema.org/name> ?f }";
    let got = at_once(&s, q, 4);
    let marks: Vec<&str> = got.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(
        marks.iter().filter(|m| **m == "miss").count(),
        1,
        "{marks:?}"
    );
    assert!(got.iter().all(|(_, body)| body == &got[0].1), "{marks:?}");
    let stats = cache(&c, &s);
    assert!(stats["joined"].as_u64().unwrap() >= 1, "{stats}");
}

/// Identical runaways, the second a second after the first: the first
/// runs to the time limit (2 s), and the others, with less time left than
/// it ran, get its 503 when it stops instead of each running on to its own
/// limit (`/cache` counts them in `shared_failures`).
#[test]
fn identical_runaways_share_the_first_one_s_time_limit() {
    let s = serve(
        &[corpus().join("loads")],
        &["--max-concurrent", "4", "--timeout", "2"],
    );
    let c = client();
    warmed(&c, &s, 0);
    let before = cache(&c, &s)["shared_failures"].as_u64().unwrap();
    let q = RUNAWAY;
    let got: Vec<(u16, String)> = std::thread::scope(|scope| {
        let hs: Vec<_> = (0..3)
            .map(|i| {
                let s = &s;
                scope.spawn(move || {
                    std::thread::sleep(Duration::from_millis(if i == 0 { 0 } else { 1000 }));
                    let r = post(&client(), s, q);
                    (r.status().as_u16(), r.text().unwrap())
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (status, body) in &got {
        assert_eq!(*status, 503, "{body}");
        assert!(body.contains("time limit"), "{body}");
    }
    let stats = cache(&c, &s);
    assert_eq!(
        stats["shared_failures"].as_u64().unwrap(),
        before + 2,
        "{stats}"
    );
}

/// Requests waiting for another's computation of their answer leave their
/// query slots to other queries: with two slots, a runaway and three
/// identical copies of it, another query is still answered (before, the
/// runaway and one copy held both slots, and it got 503 when its time ran
/// out waiting for one).
#[test]
fn requests_waiting_for_an_identical_one_leave_their_slots_to_others() {
    let s = serve(
        &[corpus().join("loads")],
        &["--max-concurrent", "2", "--timeout", "4"],
    );
    let c = client();
    warmed(&c, &s, 0);
    let runaway = RUNAWAY;
    let (copies, other) = std::thread::scope(|scope| {
        let copies: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| post(&client(), &s, runaway).status().as_u16()))
            .collect();
        // Once all four are in (the first running, three waiting for it).
        let t = Instant::now();
        while cache(&c, &s)["joined"].as_u64().unwrap() < 3 {
            assert!(
                t.elapsed() < Duration::from_secs(3),
                "the copies never joined"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let other = post(&c, &s, "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }");
        let other = (other.status().as_u16(), other.text().unwrap());
        let copies: Vec<u16> = copies.into_iter().map(|h| h.join().unwrap()).collect();
        (copies, other)
    });
    assert_eq!(copies, vec![503; 4]);
    assert_eq!(other.0, 200, "{}", other.1);
}
