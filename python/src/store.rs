//! `Store`: checkpoints and results loaded into an Oxigraph store, bound as
//! `kld query` binds them, and queried with the same dataset and limits,
//! from any number of Python threads (the store sits behind
//! [`crate::lock::Shared`]).

use crate::answers::{Solutions, Triples};
use crate::errors::{query_to_py, to_py};
use crate::interrupt;
use crate::lock::Shared;
use karenina_ld::rdf::Processor;
use karenina_ld::sparql::{self, Answer, QueryOptions};
use karenina_ld::store::CheckpointStore;
use pyo3::exceptions::{PyKeyError, PyRuntimeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// One path or several, as the API takes them.
#[derive(FromPyObject)]
pub enum Paths {
    /// One.
    One(PathBuf),
    /// Several.
    Many(Vec<PathBuf>),
}

impl Paths {
    /// As a list.
    pub fn into_vec(self) -> Vec<PathBuf> {
        match self {
            Paths::One(p) => vec![p],
            Paths::Many(v) => v,
        }
    }
}

/// Checkpoints and results (exports, run folders, Karenina's database) in an
/// Oxigraph store, one named graph per file, runs bound to the checkpoints
/// they ran: what `kld query FILES` loads.
///
/// >>> store = Store(["benchmarks/", "runs/"])
/// >>> store.query_named("pass-rate-by-benchmark").to_frame()
///
/// Threads may share a store: queries run side by side, and `add` waits
/// for the queries running to end (and they for it).
#[pyclass(frozen, module = "karenina_ld")]
pub struct Store {
    state: Shared<State>,
}

/// What a `Store` holds, behind its lock.
struct State {
    inner: CheckpointStore,
    failures: Vec<(String, String)>,
    /// Inputs read and then left out: the same run as another input.
    skipped: Vec<Skipped>,
}

/// An input left out of the store, and why (`kld load` says it on stderr
/// and under `skipped` in `--format json`).
#[derive(Clone)]
struct Skipped {
    file: String,
    graph: String,
    kept: String,
    /// The run's results (None for a database's copy of a benchmark).
    results: Option<usize>,
    /// `kld load --format json`'s `why`.
    why: &'static str,
    message: String,
}

impl Skipped {
    /// The inputs binding left out: copies of a run, and a database's
    /// copies of a benchmark a loaded checkpoint file holds.
    fn of(bound: &[karenina_ld::store::Bound]) -> Vec<Skipped> {
        bound
            .iter()
            .filter_map(|b| {
                let s = b.skipped()?;
                Some(Skipped {
                    file: b.source.clone(),
                    graph: b.graph.clone(),
                    kept: s.kept.to_string(),
                    results: s.results,
                    why: s.why,
                    message: b.message().unwrap_or_default(),
                })
            })
            .collect()
    }
}

/// A `FileNotFoundError` for the first input that does not exist (the CLI
/// exits 2 for it): a typo is not an empty store.
fn missing_input(inputs: &[PathBuf]) -> PyResult<()> {
    match inputs
        .iter()
        .find(|p| std::fs::symlink_metadata(p).is_err())
    {
        Some(p) => Err(pyo3::exceptions::PyFileNotFoundError::new_err((
            2,
            "No such file or directory",
            p.display().to_string(),
        ))),
        None => Ok(()),
    }
}

#[pymethods]
impl Store {
    /// Loads `paths` (files or directories; directories are searched for
    /// Karenina files by content). With `store_dir`, the store is that
    /// directory (`kld load --store`'s format), created if missing, and the
    /// files are added to it. A path that does not exist raises
    /// `FileNotFoundError`; files that fail to load are skipped and listed
    /// in `failures` (a warning is issued); copies of a run already loaded
    /// are listed in `skipped`. Ctrl-C stops the load.
    /// `labels` (`{"regime": "mcp"}`) labels the runs among `paths`, as
    /// `kld load --label regime=mcp` does (`pass-rate-by-label`).
    #[new]
    #[pyo3(signature = (paths=None, *, store_dir=None, labels=None))]
    fn new(
        py: Python<'_>,
        paths: Option<Paths>,
        store_dir: Option<PathBuf>,
        labels: Option<std::collections::BTreeMap<String, String>>,
    ) -> PyResult<Self> {
        let inputs = paths.map(Paths::into_vec).unwrap_or_default();
        missing_input(&inputs)?;
        let inner = match &store_dir {
            Some(d) => CheckpointStore::open_dir(d),
            None => CheckpointStore::in_memory(),
        }
        .map_err(to_py)?;
        let store = Store {
            state: Shared::new(State {
                inner,
                failures: Vec::new(),
                skipped: Vec::new(),
            }),
        };
        store.load_more(py, &inputs, labels)?;
        Ok(store)
    }

    /// Loads more `paths` into this store, as the constructor does, and
    /// binds every run again (a checkpoint added now binds the runs loaded
    /// before it). New failures and skipped copies are appended to
    /// `failures` and `skipped`. A store opened with `store_dir` keeps what
    /// is added here in memory (the directory is written by the
    /// constructor only; `kld load --store` adds to it). Called while other
    /// threads query this store, it waits for their queries to end, and
    /// queries started meanwhile wait for it.
    ///
    /// `labels` labels the runs among `paths`, as the constructor's does.
    ///
    /// >>> store.add(["more-runs/"], labels={"regime": "mcp"})
    #[pyo3(signature = (paths, *, labels=None))]
    fn add(
        &self,
        py: Python<'_>,
        paths: Paths,
        labels: Option<std::collections::BTreeMap<String, String>>,
    ) -> PyResult<()> {
        let inputs = paths.into_vec();
        missing_input(&inputs)?;
        self.load_more(py, &inputs, labels)
    }

    /// The graphs loaded: one dict per graph: `graph`, `source`, `kind`
    /// (`"checkpoint"` or `"results"`, as `kld load --format json` says),
    /// `quads`, `sha256`, `loaded_at`; for a run, `benchmark` (the
    /// checkpoint graph it is bound to, None when unbound), `bound_by`
    /// (`"user"` or `"auto"`), `binding_note` (why it is not bound) and
    /// `names_checkpoint` (the checkpoint its run folder's manifest or its
    /// database row names, when that file exists).
    #[getter]
    fn graphs<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.read(py, |s| s.inner.graphs().cloned().collect::<Vec<_>>())?
            .iter()
            .map(|g| {
                let d = PyDict::new(py);
                d.set_item("graph", &g.graph)?;
                d.set_item("source", &g.source)?;
                d.set_item("kind", g.kind.name())?;
                d.set_item("quads", g.quads)?;
                d.set_item("sha256", &g.sha256)?;
                d.set_item("loaded_at", &g.loaded_at)?;
                d.set_item("benchmark", g.binding.as_ref().map(|b| &b.checkpoint))?;
                d.set_item(
                    "bound_by",
                    g.binding
                        .as_ref()
                        .map(|b| if b.explicit { "user" } else { "auto" }),
                )?;
                d.set_item("binding_note", &g.unbound)?;
                d.set_item("names_checkpoint", &g.benchmark)?;
                Ok(d)
            })
            .collect()
    }

    /// `(file, message)` for each input that failed to load.
    #[getter]
    fn failures(&self, py: Python<'_>) -> PyResult<Vec<(String, String)>> {
        self.read(py, |s| s.failures.clone())
    }

    /// The inputs read and then left out because another input holds the
    /// same run (`kld load` says so on stderr): one dict each: `file`,
    /// `graph`, `kept` (the input kept instead), `results`, `why`
    /// (`"same-run"`, or `"contained"`: all its results are in the one
    /// kept) and `message`.
    #[getter]
    fn skipped<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.read(py, |s| s.skipped.clone())?
            .iter()
            .map(|s| {
                let d = PyDict::new(py);
                d.set_item("file", &s.file)?;
                d.set_item("graph", &s.graph)?;
                d.set_item("kept", &s.kept)?;
                d.set_item("results", s.results)?;
                d.set_item("why", s.why)?;
                d.set_item("message", &s.message)?;
                Ok(d)
            })
            .collect()
    }

    /// One row per verification result (the catalogue's `results` query)
    /// as a pandas DataFrame: `graph` (the run's results graph: two runs of
    /// one name stay apart), `checkpoint` (the checkpoint graph it is bound
    /// to, None when unbound), `run`, `question_id`, `interface`,
    /// `model_name`, `parsing_interface`, `parsing_model_name`,
    /// `replicate`, `verify_result` (None: no verdict, or a CSV's empty
    /// cell), `source_format`, `failure`.
    #[pyo3(signature = (*, timeout=60.0))]
    fn results_frame<'py>(&self, py: Python<'py>, timeout: f64) -> PyResult<Bound<'py, PyAny>> {
        let q = sparql::find("results")
            .ok_or_else(|| PyKeyError::new_err("no catalogue query \"results\""))?;
        let answer = self.query(py, q.text, timeout, None, None)?;
        answer.bind(py).call_method0("to_frame")
    }

    /// Runs a read-only SPARQL query as `kld query` does: the union of all
    /// graphs as the default graph, Karenina's prefixes predeclared, the
    /// same depth bound; stopped after `timeout` seconds
    /// (`QueryTimeoutError`), past `max_result_bytes` of answer
    /// (`ResultTooLargeError`), or by Ctrl-C (KeyboardInterrupt). The GIL is
    /// released while it runs.
    ///
    /// SELECT gives `Solutions`, ASK a bool, CONSTRUCT and DESCRIBE `Triples`.
    ///
    /// `params` keeps the rows where each named variable has its value
    /// (str, int, float, bool, Decimal, datetime, date; an `IRI` for an IRI,
    /// and a str that is an absolute IRI matches the IRI too; a list or
    /// tuple: any of its values). A variable the query lacks is a
    /// `ValueError`.
    ///
    /// >>> store.query("SELECT (COUNT(*) AS ?n) WHERE { ?q a schema:Question }").to_frame()
    #[pyo3(signature = (sparql, *, timeout=60.0, max_result_bytes=None, params=None))]
    fn query(
        &self,
        py: Python<'_>,
        sparql: &str,
        timeout: f64,
        max_result_bytes: Option<u64>,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let timeout = karenina_ld::duration::seconds("timeout", timeout, false)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let parsed = sparql::parse(sparql).map_err(|e| query_to_py(e, sparql))?;
        let params = match params {
            Some(d) => crate::values::params(d)?,
            None => Vec::new(),
        };
        for (name, _) in &params {
            parsed
                .param(name)
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
        }
        let opts = QueryOptions {
            timeout,
            max_result_bytes,
            params,
            ..QueryOptions::default()
        };
        let control = opts.control.clone();
        let answer = interrupt::run(py, &|| control.cancel(), || {
            let state = self.state.read(&|| opts.control.is_stopped())?;
            Some(sparql::answer(state.inner.store(), &parsed, &opts))
        })?
        .ok_or_else(stopped_waiting)?
        .map_err(to_py)?;
        // The notes `kld query` prints after an answer: shown as warnings
        // (a notebook displays them), and kept on the answer.
        let notes = control.notes();
        for note in &notes {
            let text = std::ffi::CString::new(format!("kld: note: {note}"))
                .unwrap_or_else(|_| c"kld: note".to_owned());
            PyErr::warn(py, &py.get_type::<PyUserWarning>(), &text, 1)?;
        }
        Ok(match answer {
            Answer::Boolean(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
            Answer::Solutions { variables, rows } => Py::new(
                py,
                Solutions {
                    variables,
                    rows,
                    notes,
                },
            )?
            .into_any(),
            Answer::Graph(triples) => Py::new(py, Triples { triples, notes })?.into_any(),
        })
    }

    /// Runs the catalogue query `name` (`karenina_ld.queries()` lists
    /// them; `kld queries NAME` prints one) with `query`'s limits; keyword
    /// arguments are its `params` (the rows where each variable has that
    /// value, as `kld query --param VAR=VALUE`).
    ///
    /// >>> store.query_named("pass-rate-by-benchmark").to_frame()
    /// >>> store.query_named("results-by-model", model_name="gpt-4.1-mini")
    #[pyo3(signature = (name, *, timeout=60.0, max_result_bytes=None, **params))]
    fn query_named(
        &self,
        py: Python<'_>,
        name: &str,
        timeout: f64,
        max_result_bytes: Option<u64>,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let q = sparql::find(name).ok_or_else(|| {
            let near = sparql::suggest(name);
            PyKeyError::new_err(if near.is_empty() {
                format!("no query named {name:?}; karenina_ld.queries() lists them")
            } else {
                format!(
                    "no query named {name:?} (did you mean {}?)",
                    near.join(", ")
                )
            })
        })?;
        self.query(py, q.text, timeout, max_result_bytes, params)
    }

    /// Writes the whole store (every named graph, and the default graph's
    /// provenance and run bindings) to `path` in a dataset format (`nq`,
    /// `trig`, `jsonld`): the data any SPARQL store can load to answer the
    /// same queries.
    #[pyo3(signature = (path, *, format="nq"))]
    fn export(&self, py: Python<'_>, path: PathBuf, format: &str) -> PyResult<()> {
        let f = karenina_ld::export::ExportFormat::parse(format)
            .filter(|f| f.has_graphs())
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "format {format:?}: a store is written as nq, trig or jsonld"
                ))
            })?;
        self.read(py, |state| {
            let quads = state
                .inner
                .store()
                .iter()
                .collect::<Result<Vec<_>, _>>()
                .map_err(karenina_ld::Error::store)?;
            let mut out = Vec::new();
            karenina_ld::export::write(&quads, f, false, &mut out)?;
            karenina_ld::fsutil::write_atomic(&path, &out)
        })?
        .map_err(to_py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let graphs = self.read(py, |s| s.inner.graphs().count())?;
        Ok(format!("<karenina_ld.Store: {graphs} graphs>"))
    }
}

/// The error for a wait for the store's lock that was stopped (Ctrl-C,
/// which `interrupt::run` raises itself: not expected to be seen).
fn stopped_waiting() -> PyErr {
    PyRuntimeError::new_err(
        "karenina_ld: stopped while waiting for another thread's use of the store",
    )
}

impl Store {
    /// `f` of what the store holds, once no thread writes it (`add`): the
    /// wait is off the GIL and Ctrl-C stops it, as does `f`'s work.
    fn read<T: Send>(&self, py: Python<'_>, f: impl FnOnce(&State) -> T + Send) -> PyResult<T> {
        let stop = AtomicBool::new(false);
        interrupt::run(py, &|| stop.store(true, Ordering::SeqCst), || {
            let state = self.state.read(&|| stop.load(Ordering::SeqCst))?;
            Some(f(&state))
        })?
        .ok_or_else(stopped_waiting)
    }

    /// Loads `inputs` and binds, warning of failures (Ctrl-C stops it
    /// between files, or while it waits for other threads' queries).
    fn load_more(
        &self,
        py: Python<'_>,
        inputs: &[PathBuf],
        labels: Option<std::collections::BTreeMap<String, String>>,
    ) -> PyResult<()> {
        let stop = AtomicBool::new(false);
        let stopped = || stop.load(Ordering::SeqCst);
        let failures = interrupt::run(py, &|| stop.store(true, Ordering::SeqCst), || {
            let mut guard = self.state.write(&stopped)?;
            let state = &mut *guard;
            // The runs among `inputs` get `labels` (`kld load --label`).
            if let Some(labels) = labels.as_ref().filter(|l| !l.is_empty()) {
                let labels: Vec<(String, String)> =
                    labels.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                state.inner.label_inputs(inputs, &labels);
            }
            let (loaded, mut failures) = load(&mut state.inner, inputs, &stop);
            let bound = match loaded {
                Ok(b) => b,
                Err(e) => return Some(Err(e)),
            };
            state.skipped.extend(Skipped::of(&bound));
            // The directory holds what was loaded; its write lock is let
            // go, so another Store (or kld load) may open it while this one
            // answers.
            state.inner.stop_writing();
            if stopped() {
                failures.push(("".into(), "interrupted".into()));
            }
            state.failures.extend(failures.iter().cloned());
            Some(Ok(failures))
        })?
        .ok_or_else(stopped_waiting)?
        .map_err(to_py)?;
        if !failures.is_empty() {
            let msg = format!(
                "karenina_ld.Store: {} file(s) not loaded: {}",
                failures.len(),
                failures
                    .iter()
                    .map(|(f, e)| format!("{f}: {e}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            let warn = py.import("warnings")?.getattr("warn")?;
            warn.call1((msg,))?;
        }
        Ok(())
    }
}

/// A store is freed on a thread of its own: freeing a million quads takes
/// a fifth of a second, which `del store` (or a notebook cell run again)
/// need not wait for. The memory is given back a moment later.
impl Drop for Store {
    fn drop(&mut self) {
        let Ok(empty) = CheckpointStore::in_memory() else {
            return;
        };
        let inner = std::mem::replace(&mut self.state.get_mut().inner, empty);
        // If no thread can be started, the closure (and the store) is
        // dropped here.
        let _ = std::thread::Builder::new()
            .name("kld-free-store".into())
            .spawn(move || drop(inner));
    }
}

/// Loads (stopping between files once `stop` is set), then
/// binds runs to checkpoints as every `kld` command does.
fn load(
    store: &mut CheckpointStore,
    inputs: &[PathBuf],
    stop: &AtomicBool,
) -> (
    karenina_ld::Result<Vec<karenina_ld::store::Bound>>,
    Vec<(String, String)>,
) {
    // A pipe named as an input is read first, where Ctrl-C is heard (the
    // library then reads it from memory), and forgotten after the load.
    let pipes: Vec<&PathBuf> = inputs
        .iter()
        .filter(|p| karenina_ld::fsutil::is_fifo(p))
        .collect();
    let forget = || {
        pipes
            .iter()
            .for_each(|p| karenina_ld::fsutil::forget_pipe(p))
    };
    for p in &pipes {
        if let Err(e) = karenina_ld::fsutil::read_pipe_once(p, &|| stop.load(Ordering::SeqCst)) {
            forget();
            return (
                Ok(Vec::new()),
                vec![(p.display().to_string(), e.to_string())],
            );
        }
    }
    let out = load_found(store, inputs, stop);
    forget();
    out
}

fn load_found(
    store: &mut CheckpointStore,
    inputs: &[PathBuf],
    stop: &AtomicBool,
) -> (
    karenina_ld::Result<Vec<karenina_ld::store::Bound>>,
    Vec<(String, String)>,
) {
    let found = karenina_ld::store::input_files(inputs);
    let mut failures: Vec<(String, String)> = found
        .failed
        .iter()
        .map(|e| (String::new(), e.to_string()))
        .collect();
    let mut any = false;
    for (file, r) in store.load_files_until(&found.files, Processor::Direct, &|_, _| (), stop) {
        match r {
            Ok(_) => any = true,
            // What Ctrl-C left unread is told once, as "interrupted".
            Err(karenina_ld::Error::LoadStopped) => {}
            Err(e) => failures.push((file.display().to_string(), e.to_string())),
        }
    }
    if !any || stop.load(Ordering::SeqCst) {
        return (Ok(Vec::new()), failures);
    }
    (store.bind(&[]), failures)
}

/// The text of the catalogue query `name` with `PREFIX` lines for the
/// prefixes kld predefines, ready for any SPARQL store (`kld queries NAME`
/// prints it without them).
#[pyfunction]
pub fn query_text(name: &str) -> PyResult<String> {
    sparql::find(name)
        .map(|q| sparql::with_prefixes(q.text))
        .ok_or_else(|| PyKeyError::new_err(format!("no query named {name:?}")))
}

/// The query catalogue: name → description (`kld queries`).
#[pyfunction]
pub fn queries() -> Vec<(String, String)> {
    sparql::CATALOGUE
        .iter()
        .map(|q| (q.name.to_string(), q.description()))
        .collect()
}
