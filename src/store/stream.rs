//! Big files into the store without holding them: a results export or a
//! store directory's graph file is read (and mapped) on a second thread and
//! handed to the inserting thread in bounded chunks, the second thread also
//! writing the store's graph file, so each of the two cores has one job.

use super::Content;
use crate::error::{Error, Result};
use crate::fsutil;
use oxigraph::io::{RdfFormat, RdfParser};
use oxigraph::model::{GraphName, Quad};

/// A store directory's graph file being written.
pub(super) type NqWriter =
    oxigraph::io::WriterQuadSerializer<std::io::BufWriter<fsutil::AtomicFile>>;

/// Produces the quads of a streamed content, in chunks, on a second thread
/// while `consume` takes them on this one (at most a few chunks in flight).
/// The second thread also writes them to `nq` if given, so the inserting
/// thread only inserts. Returns the SHA-256 of a results export.
pub(super) fn stream_chunks(
    content: &Content,
    graph: &GraphName,
    nq: &mut Option<NqWriter>,
    mut consume: impl FnMut(Vec<Quad>),
) -> Result<Option<String>> {
    let (send, chunks) = std::sync::mpsc::sync_channel::<Vec<Quad>>(4);
    std::thread::scope(|scope| {
        let producer = scope.spawn(move || {
            let mut buf = Vec::with_capacity(CHUNK);
            let mut write_err = None;
            let mut hand_over = |buf: Vec<Quad>| {
                if let Some(w) = nq.as_mut() {
                    for q in &buf {
                        if let Err(e) = w.serialize_quad(q) {
                            write_err.get_or_insert(e);
                        }
                    }
                }
                let _ = send.send(buf);
            };
            let mut sink = |q: Quad| {
                buf.push(q);
                if buf.len() == CHUNK {
                    hand_over(std::mem::replace(&mut buf, Vec::with_capacity(CHUNK)));
                }
            };
            let r = match content {
                Content::ResultsFile(path, opts) => {
                    crate::rdf::verification::map_path(path, graph, *opts, &mut sink).map(Some)
                }
                Content::NQuadsFile(path) => crate::fsutil::open_regular(path).and_then(|f| {
                    for q in RdfParser::from_format(RdfFormat::NQuads)
                        .for_reader(std::io::BufReader::with_capacity(1 << 16, f))
                    {
                        sink(q.map_err(|source| Error::RdfSyntax {
                            path: path.to_path_buf(),
                            source,
                        })?);
                    }
                    Ok(None)
                }),
                _ => Ok(None),
            };
            hand_over(buf);
            match write_err {
                Some(e) => Err(Error::store(e)),
                None => r,
            }
        });
        for chunk in chunks {
            consume(chunk);
        }
        producer
            .join()
            .unwrap_or_else(|_| Err(Error::Internal("reading a graph panicked".into())))
    })
}

/// Quads per chunk handed from the mapping thread to the inserting one.
const CHUNK: usize = 16 * 1024;

/// Files at least this large are streamed into the store (see [`Content`]).
/// (`KLD_STREAM_THRESHOLD=BYTES` lowers it, so tests can take the streaming
/// paths with small files.)
pub(super) fn stream_threshold() -> u64 {
    static T: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *T.get_or_init(|| {
        std::env::var("KLD_STREAM_THRESHOLD")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(32 << 20)
    })
}
