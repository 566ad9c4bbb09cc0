//! docs/serving.md's statuses and limits that no other test named: a 200 is
//! streamed in chunks of about 64 KiB (one is sent each time 64 KiB are
//! buffered, so it is 64 KiB plus the rest of the write that filled it), and `--max-result-bytes` answers 503
//! when nothing was sent yet and cuts the answer (an incomplete response)
//! when it was; a POST body of another type is 415.

use crate::serve::{client, serve};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

fn examples() -> Vec<PathBuf> {
    vec![Path::new(env!("KLD_SOURCE_ROOT")).join("examples")]
}

const ALL: &str = "CONSTRUCT%20%7B%3Fs%20%3Fp%20%3Fo%7D%20WHERE%20%7B%3Fs%20%3Fp%20%3Fo%7D";

/// The chunk sizes and body of a chunked HTTP/1.1 answer read off the wire.
fn chunks(raw: &[u8]) -> (Vec<usize>, Vec<u8>) {
    let head_end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let head = String::from_utf8_lossy(&raw[..head_end]).to_ascii_lowercase();
    assert!(head.contains("transfer-encoding: chunked"), "{head}");
    let (mut sizes, mut body, mut at) = (Vec::new(), Vec::new(), head_end);
    loop {
        let eol = at + raw[at..].windows(2).position(|w| w == b"\r\n").unwrap();
        let n =
            usize::from_str_radix(std::str::from_utf8(&raw[at..eol]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            return (sizes, body);
        }
        sizes.push(n);
        body.extend_from_slice(&raw[eol + 2..eol + 2 + n]);
        at = eol + 2 + n + 2;
    }
}

#[test]
fn an_answer_is_streamed_in_chunks_of_about_64_kib() {
    let s = serve(&examples(), &[]);
    let mut t = std::net::TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    write!(
        t,
        "GET /sparql?query={ALL} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/n-triples\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    t.read_to_end(&mut raw).unwrap();
    assert!(
        raw.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&raw[..200])
    );
    let (sizes, body) = chunks(&raw);
    assert!(sizes.len() >= 2, "one chunk only: {sizes:?}");
    let text = String::from_utf8(body.clone()).unwrap();
    let longest = text.lines().map(|l| l.len() + 1).max().unwrap();
    let (last, full) = sizes.split_last().unwrap();
    assert!(*last <= 64 * 1024 + longest, "{sizes:?}");
    assert!(
        full.iter()
            .all(|n| *n >= 64 * 1024 && *n <= 64 * 1024 + longest),
        "chunks of 64 KiB plus at most one write ({longest} bytes): {sizes:?}"
    );
    let local = examples_as_nt();
    let lines = |t: &str| t.lines().count();
    assert_eq!(lines(&String::from_utf8(body).unwrap()), lines(&local));
}

#[test]
fn max_result_bytes_answers_503_before_the_first_chunk_and_cuts_after_it() {
    let c = client();
    // Nothing sent yet: 503, and the server goes on.
    let s = serve(&examples(), &["--max-result-bytes", "1000"]);
    let url = format!("{}/sparql", s.base);
    let all = |url: &str| {
        c.get(format!("{url}?query={ALL}"))
            .header("Accept", "application/n-triples")
            .send()
            .unwrap()
    };
    let r = all(&url);
    assert_eq!(r.status(), 503);
    assert!(
        r.text().unwrap().contains("1000"),
        "the message names the limit"
    );
    let ask = c.get(format!("{url}?query=ASK%7B%7D")).send().unwrap();
    assert_eq!(ask.status(), 200);
    // Past the chunks held before the headers go out (the query runs ahead
    // of the connection by at most four 64 KiB chunks in the channel, and
    // what has arrived by then is held, so a failure by then still gets its
    // status): the status was sent, the body is cut. 330,000 bytes is past
    // five chunks and short of the whole answer.
    let whole = examples_as_nt();
    assert!(
        whole.len() > 330_000,
        "examples/ answer only {} bytes",
        whole.len()
    );
    let s = serve(&examples(), &["--max-result-bytes", "330000"]);
    let r = all(&format!("{}/sparql", s.base));
    assert_eq!(r.status(), 200);
    assert!(r.bytes().is_err(), "a cut answer must read as incomplete");
}

#[test]
fn a_post_body_neither_form_nor_sparql_query_is_415() {
    let s = serve(&examples(), &[]);
    let c = client();
    let post = |ct: &str| {
        c.post(format!("{}/sparql", s.base))
            .header("Content-Type", ct)
            .body("ASK {}")
            .send()
            .unwrap()
            .status()
    };
    assert_eq!(post("text/plain"), 415);
    assert_eq!(post("application/json"), 415);
    assert_eq!(post("application/sparql-query"), 200);
}

/// Every triple of the examples as N-Triples, as `kld query` writes them.
fn examples_as_nt() -> String {
    crate::stdout_of(
        crate::kld()
            .args([
                "query",
                "--format",
                "nt",
                "-e",
                "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }",
            ])
            .args(examples()),
    )
}
