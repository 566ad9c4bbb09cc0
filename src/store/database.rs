//! Karenina's results database into the store ([`crate::sqlite`]):
//! each run is one input, `DB#run=<run id>`, and one results graph named
//! `<the database's file URL>#run=<run id>`.

use super::{CheckpointStore, Content, GraphInfo, Prepared};
use crate::error::{Error, Result};
use crate::kind::{DB_BENCHMARK, DB_RUN};
use crate::rdf::verification::ResultsOptions;
use crate::rdf::{self, Processor};
use crate::sqlite;
use crate::store::binding::link::Link;
use crate::vocab;
use oxigraph::model::{BlankNode, GraphName, Literal, NamedNode, Quad};
use std::path::{Path, PathBuf};

/// The inputs of a database file: one per benchmark (`DB#benchmark=<name>`,
/// a checkpoint graph rebuilt as Karenina's `load_from_db` rebuilds it),
/// then one per run (`DB#run=<id>`).
pub(crate) fn inputs(file: &Path) -> Result<Vec<PathBuf>> {
    let c = sqlite::open(file)?;
    let mut out: Vec<PathBuf> = if sqlite::benchmark::has_questions(&c) {
        sqlite::benchmark::names(file, &c)?
            .into_iter()
            .map(|n| PathBuf::from(format!("{}{DB_BENCHMARK}{n}", file.display())))
            .collect()
    } else {
        Vec::new()
    };
    drop(c);
    out.extend(run_inputs(file)?);
    Ok(out)
}

/// True when a graph's source is a database benchmark (`DB#benchmark=<name>`):
/// the database's copy of a benchmark, which a loaded checkpoint file of the
/// same benchmark replaces (docs/results.md, "Benchmarks in the database").
pub(crate) fn is_benchmark_copy(source: &str) -> bool {
    source.contains(DB_BENCHMARK)
}

/// The graph IRI of benchmark `name` of database `db`:
/// `<the database's file URL>#benchmark=<name, form-encoded>`.
pub(crate) fn benchmark_graph_name(db: &Path, name: &str) -> Result<String> {
    let canon = std::fs::canonicalize(db).map_err(|e| Error::io(db, e))?;
    let enc: String = url::form_urlencoded::byte_serialize(name.as_bytes()).collect();
    Ok(format!("{}{DB_BENCHMARK}{enc}", rdf::file_url(&canon)?))
}

/// Reads benchmark `name` of database `db`: its checkpoint graph (the
/// lossless mapping of the bytes `load_from_db(...).save()` writes) plus one
/// `karenina:TemplateVersion` node per template version of each question.
pub(super) fn prepare_benchmark(db: &Path, name: &str, processor: Processor) -> Result<Prepared> {
    let c = sqlite::open(db)?;
    let b = sqlite::benchmark::read(db, &c, name)?;
    drop(c);
    let canon = std::fs::canonicalize(db).map_err(|e| Error::io(db, e))?;
    let graph = benchmark_graph_name(db, name)?;
    let mut info = GraphInfo::results(
        graph.clone(),
        format!("{}{DB_BENCHMARK}{name}", canon.display()),
    );
    info.kind = super::GraphKind::Checkpoint;
    info.sha256 = super::sha256_hex(b.bytes.as_bytes());
    info.benchmark_name = Some(name.to_string());
    if let Some(n) = &b.karenina_refuses {
        info.notes.push(n.clone());
    }
    if let Some(f) = b
        .checkpoint_path
        .as_deref()
        .and_then(|p| checkpoint_at(db, p))
    {
        info.benchmark = Some(rdf::file_url(&f)?);
    }
    let g = GraphName::NamedNode(crate::error::named_node(graph)?);
    let mut quads = rdf::lossless_quads(&b.checkpoint, &g, processor)?;
    history_quads(&b.history, &g, &mut quads);
    info.quads = quads.len();
    Ok(Prepared {
        info,
        content: Content::Quads(quads),
    })
}

/// One node per template version (docs/mapping.md, "Template history"):
/// `a karenina:TemplateVersion`, `karenina:questionId`, `karenina:templateId`,
/// `schema:text` (none: Karenina's default template), `karenina:finished`,
/// `schema:dateCreated`, `schema:dateModified`, `karenina:currentVersion`.
fn history_quads(
    history: &[sqlite::benchmark::TemplateVersion],
    g: &GraphName,
    out: &mut Vec<Quad>,
) {
    let k = |l: &str| NamedNode::new_unchecked(vocab::karenina(l));
    let sc = |l: &str| NamedNode::new_unchecked(vocab::schema(l));
    let s = |v: &str| Literal::new_simple_literal(v);
    let b = |v: bool| Literal::from(v);
    for v in history {
        let n = BlankNode::default();
        let mut add = |p: NamedNode, o: oxigraph::model::Term| {
            out.push(Quad::new(n.clone(), p, o, g.clone()));
        };
        add(
            NamedNode::new_unchecked(vocab::RDF_TYPE),
            k("TemplateVersion").into(),
        );
        add(k("questionId"), s(&v.question_id).into());
        add(k("templateId"), s(&v.template_id).into());
        if let Some(t) = &v.template {
            add(sc("text"), s(t).into());
        }
        add(k("finished"), b(v.finished).into());
        add(sc("dateCreated"), s(&v.created_at).into());
        add(sc("dateModified"), s(&v.updated_at).into());
        add(k("currentVersion"), b(v.current).into());
    }
}

/// The inputs of a database file's runs: one per run (`DB#run=<id>`).
pub fn run_inputs(file: &Path) -> Result<Vec<PathBuf>> {
    let c = sqlite::open(file)?;
    Ok(sqlite::runs(file, &c)?
        .into_iter()
        .map(|r| PathBuf::from(format!("{}{DB_RUN}{}", file.display(), r.id)))
        .collect())
}

/// The graph IRI of run `run_id` of database `db`:
/// `<the database's file URL>#run=<run id, form-encoded>`.
pub(crate) fn graph_name(db: &Path, run_id: &str) -> Result<String> {
    let canon = std::fs::canonicalize(db).map_err(|e| Error::io(db, e))?;
    let id_enc: String = url::form_urlencoded::byte_serialize(run_id.as_bytes()).collect();
    Ok(format!("{}{DB_RUN}{id_enc}", rdf::file_url(&canon)?))
}

/// The SHA-256 of a database file's bytes and, in WAL mode, of its
/// write-ahead log's (`DB-wal`, where SQLite keeps commits until a
/// checkpoint copies them into the file), read streaming and remembered for
/// the files' sizes and modification times: the runs of one database are
/// read in parallel, each needing it, and a database can be gigabytes.
pub fn file_digest(db: &Path) -> Result<String> {
    type Stamp = (u64, std::time::SystemTime);
    type Seen = std::collections::HashMap<PathBuf, (Stamp, Option<Stamp>, String)>;
    static SEEN: std::sync::Mutex<Option<Seen>> = std::sync::Mutex::new(None);
    let canon = std::fs::canonicalize(db).map_err(|e| Error::io(db, e))?;
    let stamp_of = |p: &Path| -> Result<Stamp> {
        let meta = std::fs::metadata(p).map_err(|e| Error::io(p, e))?;
        Ok((meta.len(), meta.modified().map_err(|e| Error::io(p, e))?))
    };
    let mut wal = canon.as_os_str().to_owned();
    wal.push("-wal");
    let wal = PathBuf::from(wal);
    // (An empty log, as a reader leaves it, holds nothing.)
    let wal_stamp = stamp_of(&wal).ok().filter(|s| s.0 > 0);
    let stamp = stamp_of(&canon)?;
    // (Held while hashing: the other runs of the database wait, then reuse it.)
    let mut seen = SEEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let seen = seen.get_or_insert_with(Seen::new);
    if let Some((s, w, sha)) = seen.get(&canon) {
        if (*s, *w) == (stamp, wal_stamp) {
            return Ok(sha.clone());
        }
    }
    let mut h = <sha2::Sha256 as sha2::Digest>::new();
    let mut f = crate::fsutil::open_regular(&canon)?;
    std::io::copy(&mut f, &mut h).map_err(|e| Error::io(db, e))?;
    if wal_stamp.is_some() {
        if let Ok(mut w) = crate::fsutil::open_regular(&wal) {
            sha2::Digest::update(&mut h, b"\0-wal\0");
            std::io::copy(&mut w, &mut h).map_err(|e| Error::io(&wal, e))?;
        }
    }
    let sha = format!("{:x}", sha2::Digest::finalize(h));
    seen.insert(canon, (stamp, wal_stamp, sha.clone()));
    Ok(sha)
}

/// A run's digest from its database's ([`file_digest`]) and its id: two runs
/// of one database are never "the same bytes", and any write to the
/// database is a change of every run.
pub fn run_digest(file_digest: &str, run_id: &str) -> String {
    let mut h = <sha2::Sha256 as sha2::Digest>::new();
    sha2::Digest::update(&mut h, file_digest.as_bytes());
    sha2::Digest::update(&mut h, run_id.as_bytes());
    format!("{:x}", sha2::Digest::finalize(h))
}

/// The checkpoint file a benchmark's `checkpoint_path` leads to (canonical):
/// as Karenina stored it, tried against the current directory, then the
/// database's directory.
pub(crate) fn checkpoint_at(db: &Path, checkpoint_path: &str) -> Option<PathBuf> {
    let dir = std::fs::canonicalize(db).ok()?.parent()?.to_path_buf();
    let cwd = std::env::current_dir().ok();
    cwd.map(|c| c.join(checkpoint_path))
        .into_iter()
        .chain([dir.join(checkpoint_path)])
        .find(|t| t.is_file())
        .and_then(|f| std::fs::canonicalize(f).ok())
}

/// The checkpoint graph the run `run_id` of `db` names by its benchmark's
/// `checkpoint_path`, if that file exists.
pub(crate) fn named_checkpoint(db: &Path, run_id: &str) -> Result<Option<String>> {
    let c = sqlite::open(db)?;
    let path = sqlite::checkpoint_path_of(db, &c, run_id)?;
    match path.and_then(|p| checkpoint_at(db, &p)) {
        Some(f) => Ok(Some(rdf::file_url(&f)?)),
        None => Ok(None),
    }
}

/// Which loaded checkpoint one run of a database binds to.
#[derive(Clone, Debug)]
pub struct RunBinding {
    /// The run.
    pub run: sqlite::Run,
    /// The outcome: bound (to a checkpoint graph), or why not.
    pub link: Link,
    /// The bound checkpoint's file.
    pub checkpoint_file: Option<String>,
}

/// [`bindings`]' answer.
#[derive(Debug)]
pub struct Bindings {
    /// The database's benchmarks.
    pub benchmarks: Vec<sqlite::Benchmark>,
    /// Database benchmarks that could not be rebuilt, with why.
    pub unbuilt: Vec<(String, Error)>,
    /// Its runs, each with its binding.
    pub runs: Vec<RunBinding>,
    /// Checkpoints that could not be loaded, with why.
    pub failed: Vec<(PathBuf, Error)>,
}

/// What `kld info DB` says of a database: its benchmarks, and each run with
/// the checkpoint it binds to among `checkpoints` and the files its
/// benchmarks' `checkpoint_path`s lead to, bound exactly as loading binds
/// ([`CheckpointStore::bind`]) but over the runs' question IDs only (their
/// results are not mapped). Checkpoints that fail to load are returned with
/// their error.
pub fn bindings(db: &Path, checkpoints: &[PathBuf]) -> Result<Bindings> {
    let c = sqlite::open(db)?;
    let benchmarks = sqlite::benchmarks(db, &c)?;
    let runs = sqlite::runs(db, &c)?;
    let mut files: Vec<PathBuf> = checkpoints.to_vec();
    for b in &benchmarks {
        if let Some(f) = b
            .checkpoint_path
            .as_deref()
            .and_then(|p| checkpoint_at(db, p))
        {
            if !files
                .iter()
                .any(|g| std::fs::canonicalize(g).ok().as_ref() == Some(&f))
            {
                files.push(f);
            }
        }
    }
    let mut store = CheckpointStore::in_memory()?;
    let failed: Vec<(PathBuf, Error)> = store
        .load_files(&files, Processor::Direct, &|_, _| {})
        .into_iter()
        .filter_map(|(f, r)| r.err().map(|e| (f, e)))
        .collect();
    // The database's own benchmarks, as loading rebuilds them.
    let mut unbuilt = Vec::new();
    if sqlite::benchmark::has_questions(&c) {
        for b in &benchmarks {
            match prepare_benchmark(db, &b.name, Processor::Direct) {
                Ok(p) => {
                    store.insert(p, false)?;
                }
                Err(e) => unbuilt.push((b.name.clone(), e)),
            }
        }
    }
    let file_digest = file_digest(db)?;
    let canon = std::fs::canonicalize(db).map_err(|e| Error::io(db, e))?;
    let mut graphs = Vec::new();
    for run in &runs {
        let mut info = GraphInfo::results(
            graph_name(db, &run.id)?,
            format!("{}{DB_RUN}{}", canon.display(), run.id),
        );
        info.sha256 = run_digest(&file_digest, &run.id);
        let g = crate::error::named_node(info.graph.clone())?;
        let quads = key_quads(&g, run, &sqlite::run_keys(db, &c, &run.id)?);
        if let Some(b) = &run.benchmark {
            info.benchmark_name = Some(b.name.clone());
            if let Some(f) = b
                .checkpoint_path
                .as_deref()
                .and_then(|p| checkpoint_at(db, p))
            {
                info.benchmark = Some(rdf::file_url(&f)?);
            }
        }
        graphs.push((info.graph.clone(), None));
        store.insert(
            Prepared {
                info,
                content: Content::Quads(quads),
            },
            false,
        )?;
    }
    let bound = store.bind(&graphs)?;
    let out = runs
        .into_iter()
        .zip(&graphs)
        .map(|(run, (g, _))| {
            let link = bound
                .iter()
                .find(|b| b.graph == *g)
                .map(|b| b.link.clone())
                .unwrap_or(Link::Orphan { questions: 0 });
            let checkpoint_file = match &link {
                Link::Bound(c) => store.resolve(c).map(|i| i.source.clone()),
                _ => None,
            };
            RunBinding {
                run,
                link,
                checkpoint_file,
            }
        })
        .collect();
    Ok(Bindings {
        benchmarks,
        unbuilt,
        runs: out,
        failed,
    })
}

/// A run's graph as binding reads it: the run node (`runSource "database"`,
/// `benchmarkName`) and one node per key.
fn key_quads(g: &NamedNode, run: &sqlite::Run, keys: &[sqlite::RunKey]) -> Vec<Quad> {
    let k = |l: &str| NamedNode::new_unchecked(vocab::karenina(l));
    let s = |v: &str| Literal::new_simple_literal(v);
    let gn = GraphName::NamedNode(g.clone());
    let node = BlankNode::default();
    let mut quads = vec![Quad::new(
        node.clone(),
        k("runSource"),
        s("database"),
        gn.clone(),
    )];
    if let Some(b) = &run.benchmark {
        quads.push(Quad::new(node, k("benchmarkName"), s(&b.name), gn.clone()));
    }
    for (qid, sid, nid) in keys {
        let r = BlankNode::default();
        quads.push(Quad::new(r.clone(), k("questionId"), s(qid), gn.clone()));
        if let (Some(sid), Some(nid)) = (sid, nid) {
            quads.push(Quad::new(r.clone(), k("scenarioId"), s(sid), gn.clone()));
            quads.push(Quad::new(r, k("scenarioNode"), s(nid), gn.clone()));
        }
    }
    quads
}

/// The values of run `run` of `db` that Karenina refuses, each a located
/// `KLD-E203` message: those of its `verification_runs` row, then `bad`, those
/// of its result rows (`sqlite::read_run`). Loading (`kld load`, `query`,
/// `serve`) and `kld info DB` report these same messages.
pub fn value_errors(db: &Path, run: &sqlite::Run, bad: &[sqlite::BadValue]) -> Vec<String> {
    run.bad_values
        .iter()
        .chain(bad)
        .map(|value| {
            Error::DatabaseValue {
                path: db.to_path_buf(),
                value: value.clone(),
            }
            .to_string()
        })
        .collect()
}

/// Reads one run of a database.
pub(super) fn prepare(db: &Path, run_id: &str, opts: ResultsOptions) -> Result<Prepared> {
    // (Hashed before the read: a write landing in between makes the next
    // look at the file see a change, never the reverse.)
    let file_digest = file_digest(db)?;
    let c = sqlite::open(db)?;
    let run = sqlite::run(db, &c, run_id)?;
    let run = run.as_ref().ok_or_else(|| Error::NoSuchRun {
        database: db.to_path_buf(),
        run: run_id.to_string(),
    })?;
    let canon = std::fs::canonicalize(db).map_err(|e| Error::io(db, e))?;
    let mut info = GraphInfo::results(
        graph_name(db, run_id)?,
        format!("{}{DB_RUN}{run_id}", canon.display()),
    );
    if run.status != "completed" {
        info.notes.push(format!("run status {}", run.status));
    }
    if let Some(n) = sqlite::recorded_differs(run) {
        info.notes.push(n);
    }
    if run.missing_questions > 0 {
        info.notes.push(format!(
            "{} of its {} results reference a question the database does not hold",
            run.missing_questions, run.results
        ));
    }
    if let Some(b) = &run.benchmark {
        info.benchmark_name = Some(b.name.clone());
        if let Some(p) = &b.placeholder {
            info.notes.push(format!(
                "its benchmark {:?} in the database is {}",
                b.name,
                p.describe()
            ));
        }
        if let Some(p) = &b.checkpoint_path {
            match checkpoint_at(db, p) {
                Some(f) => info.benchmark = Some(rdf::file_url(&f)?),
                None => info.notes.push(format!(
                    "benchmark {:?}: checkpoint_path {p:?} not found",
                    b.name
                )),
            }
        }
    }
    let g = GraphName::NamedNode(crate::error::named_node(info.graph.clone())?);
    let mut quads = Vec::new();
    let bad = sqlite::map_run(db, &c, run, &g, opts, &mut |q| quads.push(q))?;
    info.errors = value_errors(db, run, &bad);
    info.quads = quads.len();
    info.sha256 = run_digest(&file_digest, run_id);
    Ok(Prepared {
        info,
        content: Content::Quads(quads),
    })
}
