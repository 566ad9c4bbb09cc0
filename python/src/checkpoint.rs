//! `Checkpoint`, `Results`, `Preset` and `validate`: one file at a time, as
//! `kld canon`, `hash`, `info`, `diff`, `validate` and `preset` read them.

use crate::errors::{to_py, Diagnostic};
use crate::interrupt;
use crate::store::Paths;
use crate::values::{frame, json};
use karenina_ld::error::{Error, Report};
use karenina_ld::fsutil;
use karenina_ld::kind::Kind;
use karenina_ld::model::{self, ReadOptions};
use karenina_ld::rdf::{self, Processor};
use karenina_ld::save::{write_checkpoint, WriteOptions};
use oxigraph::model::GraphName;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// A file's bytes through the library's file checks, as every `kld`
/// command reads them: a device (`/dev/zero`), a socket or a directory is
/// refused at once, a file past `KLD_MAX_FILE_SIZE` is refused, and a pipe
/// is read whole, bounded, while Ctrl-C (KeyboardInterrupt) is heard.
fn read(py: Python<'_>, path: &Path) -> PyResult<Vec<u8>> {
    let stop = AtomicBool::new(false);
    interrupt::run(py, &|| stop.store(true, Ordering::SeqCst), || {
        fsutil::read_file_or_pipe(path, fsutil::max_file_size(), &|| {
            stop.load(Ordering::SeqCst)
        })
    })?
    .map_err(to_py)
}

/// Runs `work` (which reads `paths` through the library's input
/// functions) with those that are pipes read first where Ctrl-C is heard,
/// and forgotten after (the library keeps a pipe's bytes for the process).
pub(crate) fn with_pipes<T: Send>(
    py: Python<'_>,
    paths: &[PathBuf],
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let pipes: Vec<&PathBuf> = paths.iter().filter(|p| fsutil::is_fifo(p)).collect();
    if pipes.is_empty() {
        return Ok(py.detach(work));
    }
    let stop = AtomicBool::new(false);
    let out = interrupt::run(py, &|| stop.store(true, Ordering::SeqCst), || {
        for p in &pipes {
            fsutil::read_pipe_once(p, &|| stop.load(Ordering::SeqCst))?;
        }
        Ok(work())
    });
    for p in &pipes {
        fsutil::forget_pipe(p);
    }
    out?.map_err(to_py)
}

/// A `WrongKindError` when `path` holds a Karenina file of another kind
/// than `wanted` (a results export given to `Checkpoint.load`), saying what
/// it is and what reads it, as the CLI does; nothing for a broken or unknown
/// file (the reader locates its errors).
fn wrong_kind(py: Python<'_>, path: &Path, head: &[u8], wanted: Kind) -> PyResult<()> {
    let k = karenina_ld::kind::sniff(head);
    let (name, reader) = match k {
        _ if k == wanted => return Ok(()),
        Kind::Results => (
            "results",
            "karenina_ld.Results.load or karenina_ld.Store reads it",
        ),
        Kind::Checkpoint => ("checkpoint", "karenina_ld.Checkpoint.load reads it"),
        Kind::Preset => ("preset", "karenina_ld.Preset.load reads it"),
        Kind::Other => return Ok(()),
    };
    let msg = format!("{} is {}: {reader}", path.display(), k.describe());
    let e = py
        .import("karenina_ld._errors")?
        .getattr("WrongKindError")?
        .call1((msg,))?;
    e.setattr("kind", name)?;
    e.setattr("filename", path.display().to_string())?;
    Err(PyErr::from_value(e))
}

/// Karenina's write options, as `kld canon` takes them.
fn write_options(
    py: Python<'_>,
    strip_deep_judgment: bool,
    drop_unknown: bool,
    touch: bool,
) -> PyResult<WriteOptions> {
    let date_modified = if touch {
        // What Karenina writes: Python's naive local `datetime.now()`.
        let now = py
            .import("datetime")?
            .getattr("datetime")?
            .call_method0("now")?;
        Some(now.call_method0("isoformat")?.extract::<String>()?)
    } else {
        None
    };
    Ok(WriteOptions {
        strip_deep_judgment,
        drop_unknown,
        date_modified,
    })
}

fn serde<T: serde::Serialize>(py: Python<'_>, v: &T) -> PyResult<Py<PyAny>> {
    let v = serde_json::to_value(v).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(json(py, &v)?.unbind())
}

/// A Karenina benchmark checkpoint (JSON-LD), read with Karenina's load
/// rules.
///
/// >>> cp = Checkpoint.load("bench.jsonld")
/// >>> cp.to_bytes() == open("bench.jsonld", "rb").read()   # already canonical?
/// >>> cp.summary()["questions"]
#[pyclass(frozen, module = "karenina_ld")]
pub struct Checkpoint {
    cp: model::Checkpoint,
    report: Report,
    /// The file it was read from, when it was read from a file.
    path: Option<PathBuf>,
}

impl Checkpoint {
    fn parse(file: &Path, bytes: &[u8], path: Option<PathBuf>, upgrade: bool) -> PyResult<Self> {
        let a = model::analyze(file, bytes, ReadOptions { upgrade });
        match a.checkpoint {
            Some(cp) if !a.report.has_errors() => Ok(Checkpoint {
                cp,
                report: a.report,
                path,
            }),
            _ => Err(to_py(Error::Invalid(Box::new(a.report)))),
        }
    }

    fn bytes(&self) -> String {
        write_checkpoint(&self.cp, &WriteOptions::default())
    }

    /// A checkpoint built in memory (not read from a file): no findings.
    pub(crate) fn built(cp: model::Checkpoint) -> Self {
        Checkpoint {
            cp,
            report: Report {
                file: PathBuf::from("<built>"),
                diagnostics: Vec::new(),
            },
            path: None,
        }
    }

    /// The model, and the file it was read from.
    pub(crate) fn model(&self) -> (&model::Checkpoint, Option<&Path>) {
        (&self.cp, self.path.as_deref())
    }
}

#[pymethods]
impl Checkpoint {
    /// Reads a checkpoint file. A file that is not JSON raises
    /// `JsonSyntaxError` (a SyntaxError) at its line and column; one Karenina
    /// would refuse raises `InvalidFileError` (a ValueError) with
    /// `.diagnostics`; a results export or a preset raises `WrongKindError`
    /// saying what it is. `upgrade=True` converts the 2025-08 `Dataset`
    /// format and JSON-string metric arrays (`kld canon --upgrade`).
    #[staticmethod]
    #[pyo3(signature = (path, *, upgrade=false))]
    fn load(py: Python<'_>, path: PathBuf, upgrade: bool) -> PyResult<Self> {
        let bytes = read(py, &path)?;
        wrong_kind(py, &path, &bytes, Kind::Checkpoint)?;
        py.detach(|| Self::parse(&path, &bytes, Some(path.clone()), upgrade))
    }

    /// Reads a checkpoint from bytes (or str); `name` names it in messages.
    #[staticmethod]
    #[pyo3(signature = (data, *, name="<bytes>", upgrade=false))]
    fn from_bytes(data: Vec<u8>, name: &str, upgrade: bool) -> PyResult<Self> {
        Self::parse(Path::new(name), &data, None, upgrade)
    }

    /// The checkpoint of a `karenina.Benchmark`, as its `save()` would write
    /// it (without touching `dateModified` or dropping deep-judgment
    /// settings).
    #[staticmethod]
    fn from_benchmark(py: Python<'_>, benchmark: &Bound<'_, PyAny>) -> PyResult<Self> {
        let data: Vec<u8> = py
            .import("karenina_ld._karenina")?
            .getattr("benchmark_bytes")?
            .call1((benchmark,))?
            .extract()?;
        Self::parse(Path::new("<benchmark>"), &data, None, false)
    }

    /// This checkpoint as a `karenina.Benchmark` (Karenina must be installed).
    fn to_benchmark<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("karenina_ld._karenina")?
            .getattr("to_benchmark")?
            .call1((PyBytes::new(py, self.bytes().as_bytes()),))
    }

    /// The bytes Karenina writes for this checkpoint, as `kld canon`
    /// writes them, with its options: by default everything read is kept;
    /// `strip_deep_judgment=True` drops LLM traits' deep-judgment settings
    /// (Karenina's `save()` does unless `save_deep_judgment_config=True`),
    /// `drop_unknown=True` drops members Karenina does not know (its load
    /// drops them), `touch=True` sets `dateModified` to now as `save()`
    /// does. With the first two, the bytes are Karenina's
    /// `Benchmark.load(f).save()`, `dateModified` aside.
    #[pyo3(signature = (*, strip_deep_judgment=false, drop_unknown=false, touch=false))]
    fn to_bytes<'py>(
        &self,
        py: Python<'py>,
        strip_deep_judgment: bool,
        drop_unknown: bool,
        touch: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let opts = write_options(py, strip_deep_judgment, drop_unknown, touch)?;
        Ok(PyBytes::new(
            py,
            write_checkpoint(&self.cp, &opts).as_bytes(),
        ))
    }

    /// Writes `to_bytes(...)` with the same options to `path`, atomically.
    #[pyo3(signature = (path, *, strip_deep_judgment=false, drop_unknown=false, touch=false))]
    fn save(
        &self,
        py: Python<'_>,
        path: PathBuf,
        strip_deep_judgment: bool,
        drop_unknown: bool,
        touch: bool,
    ) -> PyResult<()> {
        let opts = write_options(py, strip_deep_judgment, drop_unknown, touch)?;
        karenina_ld::fsutil::write_atomic(&path, write_checkpoint(&self.cp, &opts).as_bytes())
            .map_err(to_py)
    }

    /// The checkpoint as RDF (`nq`, `nt`, `ttl`, `trig`, `rdfxml`, `jsonld`),
    /// in the graph `kld export` names it (its file's URL; the default graph
    /// when it was not read from a file). `canonical=True` gives RDFC-1.0
    /// canonical N-Quads (`kld export --canonical`).
    #[pyo3(signature = (*, format="nq", canonical=false))]
    fn export(&self, py: Python<'_>, format: &str, canonical: bool) -> PyResult<String> {
        let f = karenina_ld::export::ExportFormat::parse(format)
            .ok_or_else(|| PyValueError::new_err(format!("unknown RDF format {format:?}")))?;
        if canonical && f != karenina_ld::export::ExportFormat::NQuads {
            return Err(PyValueError::new_err(
                "canonical=True writes RDFC-1.0 canonical N-Quads: use format=\"nq\"",
            ));
        }
        py.detach(|| {
            let graph = match &self.path {
                Some(p) => std::fs::canonicalize(p)
                    .map_err(|e| Error::io(p, e))
                    .and_then(|c| rdf::file_url(&c))
                    .and_then(|u| {
                        oxigraph::model::NamedNode::new(u.clone()).map_err(|e| Error::iri(&u, e))
                    })
                    .map(GraphName::NamedNode)?,
                None => GraphName::DefaultGraph,
            };
            let quads = rdf::lossless_quads(&self.cp, &graph, Processor::Direct)?;
            if canonical {
                return karenina_ld::rdfc::canonical_nquads(&quads);
            }
            let mut out = Vec::new();
            karenina_ld::export::write(&quads, f, false, &mut out)?;
            String::from_utf8(out).map_err(|e| Error::Internal(e.to_string()))
        })
        .map_err(to_py)
    }

    /// The RDFC-1.0 (SHA-256) hash of the checkpoint's graph, as `kld hash`
    /// prints it: stable under reformatting and reordering.
    fn hash(&self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| karenina_ld::rdfc::hash_checkpoint(&self.cp))
            .map_err(to_py)
    }

    /// The semantic differences from `self` to `other`, as
    /// `kld diff --format json` gives them (empty lists when they agree).
    fn diff(&self, py: Python<'_>, other: &Checkpoint) -> PyResult<Py<PyAny>> {
        serde(py, &karenina_ld::diff::diff(&self.cp, &other.cp))
    }

    /// What `kld info --format json` says: questions, templates, traits,
    /// keywords, counted.
    fn summary(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(json(py, &karenina_ld::contents::count(&self.cp).to_json())?.unbind())
    }

    /// The warnings found while reading (Karenina loads the file but
    /// mishandles something).
    #[getter]
    fn diagnostics(&self) -> Vec<Diagnostic> {
        Diagnostic::all(&self.report)
    }

    /// The benchmark's name.
    #[getter]
    fn name(&self) -> String {
        self.cp.name.clone()
    }

    /// One dict per question: `id`, `question`, `answer`, `keywords`,
    /// `has_template`, `finished`.
    #[getter]
    fn questions<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.cp
            .items
            .iter()
            .map(|item| {
                let q = &item.question;
                let d = PyDict::new(py);
                d.set_item("id", &item.id)?;
                d.set_item("question", &q.text)?;
                d.set_item("answer", &q.accepted_answer.text)?;
                d.set_item("keywords", q.keywords.clone().or(item.keywords.clone()))?;
                d.set_item("has_template", !q.template.text.trim().is_empty())?;
                d.set_item(
                    "finished",
                    matches!(
                        q.prop_value("finished"),
                        Some(karenina_ld::json::Json::Bool(true))
                    ),
                )?;
                Ok(d)
            })
            .collect()
    }

    /// `questions` as a pandas DataFrame.
    fn to_frame<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let names = [
            "id",
            "question",
            "answer",
            "keywords",
            "has_template",
            "finished",
        ];
        let qs = self.questions(py)?;
        let mut columns = Vec::new();
        for n in names {
            let col = PyList::empty(py);
            for q in &qs {
                col.append(q.get_item(n)?)?;
            }
            columns.push(col);
        }
        frame(py, &names, columns)
    }

    fn __eq__(&self, other: &Checkpoint) -> bool {
        self.bytes() == other.bytes()
    }

    fn __repr__(&self) -> String {
        format!(
            "<karenina_ld.Checkpoint {:?}: {} questions>",
            self.cp.name,
            self.cp.items.len()
        )
    }
}

/// A verification-results export (JSON or CSV), run folder or unfinished
/// run, counted as `kld info` counts it.
#[pyclass(frozen, module = "karenina_ld")]
pub struct Results {
    summary: karenina_ld::numbers::tally::RunSummary,
}

#[pymethods]
impl Results {
    /// Reads and counts a results export; a checkpoint or a preset raises
    /// `WrongKindError` saying what it is.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        if path.is_file() {
            let head = karenina_ld::fsutil::input_head(&path, 16 << 10).map_err(to_py)?;
            wrong_kind(py, &path, &head, Kind::Results)?;
        }
        with_pipes(py, std::slice::from_ref(&path), || {
            karenina_ld::numbers::tally::summarize(&path)
        })?
        .map(|summary| Results { summary })
        .map_err(to_py)
    }

    /// Karenina's `VerificationResultSet.get_summary()` of the file, the
    /// same dict (keys, key order, combo strings, values): the `summary`
    /// of `kld info --format json`. From a CSV, the keys it cannot tell
    /// are left out (`info()["cannot_tell"]` says which and why).
    fn summary(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let v = self
            .summary
            .karenina
            .get("summary")
            .cloned()
            .unwrap_or_default();
        Ok(json(py, &v)?.unbind())
    }

    /// Karenina's `get_template_results().aggregate_pass_rate(by=by)`
    /// for `by` in `question_id`, `answering_model`, `parsing_model`,
    /// `replicate` (a replicate key as its decimal string). Raises
    /// ValueError for a CSV, which writes false and null alike.
    #[pyo3(signature = (by = "question_id"))]
    fn aggregate_pass_rate(&self, py: Python<'_>, by: &str) -> PyResult<Py<PyAny>> {
        let Some(rates) = self.summary.karenina.get("aggregate_pass_rate") else {
            return Err(PyValueError::new_err(
                "a CSV export cannot tell verify_result false from null: no aggregate_pass_rate",
            ));
        };
        let Some(v) = rates.get(by) else {
            return Err(PyValueError::new_err(format!(
                "by must be question_id, answering_model, parsing_model or replicate, not {by:?}"
            )));
        };
        Ok(json(py, v)?.unbind())
    }

    /// Everything `kld info --format json` says of it (kld's counts and
    /// Karenina's numbers).
    fn info(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        serde(py, &self.summary)
    }

    /// One row per answering model: `model`, `results`, `verified_true`,
    /// `verified_false`, `verified_null`, `verified_false_or_null` and
    /// `pass_rate` (the verdict pass rate: Karenina's
    /// `aggregate_pass_rate(by="answering_model")`, verified true over the
    /// results with a verdict, every judge together; None when no result
    /// has a verdict, and from a CSV), and `rate_name` (that name;
    /// `attrs["rate_names"]` maps `pass_rate` to it too).
    fn to_frame<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rate = karenina_ld::numbers::names::VERDICT_PASS_RATE.name;
        let names = [
            "model",
            "results",
            "verified_true",
            "verified_false",
            "verified_null",
            "verified_false_or_null",
            "pass_rate",
            "rate_name",
        ];
        let columns: Vec<Bound<'py, PyList>> = names.iter().map(|_| PyList::empty(py)).collect();
        for (model, m) in &self.summary.models {
            columns[0].append(model)?;
            columns[1].append(m.results)?;
            columns[2].append(m.verified_true)?;
            columns[3].append(m.verified_false)?;
            columns[4].append(m.verified_null)?;
            columns[5].append(m.verified_false_or_null)?;
            columns[6].append(m.pass_rate())?;
            columns[7].append(rate)?;
        }
        let df = frame(py, &names, columns)?;
        let named = PyDict::new(py);
        named.set_item("pass_rate", rate)?;
        df.getattr("attrs")?.set_item("rate_names", named)?;
        Ok(df)
    }
}

/// A Karenina verification preset, read and validated as
/// `kld preset validate` does: `config` holds every default filled in.
#[pyclass(frozen, get_all, module = "karenina_ld")]
pub struct Preset {
    name: Option<String>,
    description: Option<String>,
    id: Option<String>,
    updated_at: Option<String>,
    config: Py<PyAny>,
    diagnostics: Vec<Diagnostic>,
}

#[pymethods]
impl Preset {
    /// Reads a preset file; one Karenina would refuse raises
    /// `InvalidFileError` with `.diagnostics`.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let bytes = read(py, &path)?;
        wrong_kind(py, &path, &bytes, Kind::Preset)?;
        let (preset, report) = karenina_ld::preset::read(&path, &bytes, true);
        let Some(p) = preset.filter(|_| !report.has_errors()) else {
            return Err(to_py(Error::Invalid(Box::new(report))));
        };
        let text = karenina_ld::json::py::dumps(&karenina_ld::json::Json::Object(p.config), false);
        let config = py.import("json")?.getattr("loads")?.call1((text,))?;
        Ok(Preset {
            name: p.name,
            description: p.description,
            id: p.id,
            updated_at: p.updated_at,
            config: config.unbind(),
            diagnostics: Diagnostic::all(&report),
        })
    }

    /// Saves the config in `config_file` (a bare VerificationConfig or a
    /// preset) as the preset `name` in `directory`, in the bytes Karenina's
    /// `save_preset` writes (`kld preset save`); returns the file written.
    #[staticmethod]
    #[pyo3(signature = (config_file, name, *, directory, description=None, include_secrets=false, overwrite=false))]
    fn save(
        py: Python<'_>,
        config_file: PathBuf,
        name: &str,
        directory: PathBuf,
        description: Option<&str>,
        include_secrets: bool,
        overwrite: bool,
    ) -> PyResult<PathBuf> {
        let bytes = read(py, &config_file)?;
        let id: String = py
            .import("uuid")?
            .getattr("uuid4")?
            .call0()?
            .str()?
            .extract()?;
        let saved = karenina_ld::preset::build(
            &config_file,
            &bytes,
            name,
            description,
            include_secrets,
            &id,
            &karenina_ld::preset::utc_now_iso(),
        )
        .map_err(|r| to_py(Error::Invalid(r)))?;
        std::fs::create_dir_all(&directory).map_err(|e| to_py(Error::io(&directory, e)))?;
        let target = directory.join(&saved.file_name);
        if target.exists() && !overwrite {
            return Err(pyo3::exceptions::PyFileExistsError::new_err((
                17,
                "already exists (overwrite=True replaces it)",
                target.display().to_string(),
            )));
        }
        karenina_ld::fsutil::write_atomic(&target, saved.bytes.as_bytes()).map_err(to_py)?;
        Ok(target)
    }
}

/// Checks checkpoint files (or directories, searched for checkpoints)
/// against Karenina's load rules, as `kld validate`: every error and
/// warning, located. A file that is not JSON is a diagnostic here, not an
/// exception. With `strict=True`, any error or warning raises
/// `InvalidFileError` carrying them all.
#[pyfunction]
#[pyo3(signature = (paths, *, strict=false))]
pub fn validate(py: Python<'_>, paths: Paths, strict: bool) -> PyResult<Vec<Diagnostic>> {
    let inputs = paths.into_vec();
    let reports = with_pipes(py, &inputs, || {
        let found = karenina_ld::kind::find(&inputs, &[karenina_ld::kind::Kind::Checkpoint]);
        if let Some(e) = found.failed.into_iter().next() {
            return Err(e);
        }
        found
            .files
            .iter()
            .map(|f| model::analyze_file(f, ReadOptions::default()).map(|a| a.report))
            .collect::<karenina_ld::Result<Vec<_>>>()
    })?;
    let reports = reports.map_err(to_py)?;
    let all: Vec<Diagnostic> = reports.iter().flat_map(Diagnostic::all).collect();
    if strict && !all.is_empty() {
        let err = Python::attach(|py| -> PyResult<PyErr> {
            let e = py
                .import("karenina_ld._errors")?
                .getattr("InvalidFileError")?
                .call1((format!("{} problem(s) found", all.len()),))?;
            e.setattr("diagnostics", all.clone())?;
            Ok(PyErr::from_value(e))
        })?;
        return Err(err);
    }
    Ok(all)
}
