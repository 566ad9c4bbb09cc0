//! `load`, `extract`, `query`, `queries`, and the input discovery they and
//! `export` share.

use super::{ProcessorArg, ReportFormat, ResultFormatArg, INVALID, OK, USAGE};
use anyhow::{bail, Context};
use karenina_ld::canonical::{write_checkpoint, WriteOptions};
use karenina_ld::export::ExportFormat;
use karenina_ld::fsutil;
use karenina_ld::query::{self, ResultFormat};
use karenina_ld::rdf::Processor;
use karenina_ld::store::CheckpointStore;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Expands inputs (in directories: checkpoints, and `.json`/`.csv` files
/// that are results exports); prints I/O problems; returns files and whether
/// any failed.
pub(super) fn files_of(inputs: &[PathBuf]) -> (Vec<PathBuf>, bool) {
    use karenina_ld::kind::Kind;
    // Karenina's results database comes back as one input per run.
    let found = karenina_ld::store::input_files(inputs);
    super::note_skipped(&found.skipped);
    let mut failed = !found.failed.is_empty();
    for e in &found.failed {
        eprintln!("kld: {e}");
    }
    let mut files = Vec::new();
    for f in found.files {
        // A named preset (or another non-checkpoint Karenina file) is a
        // usage error of one line; broken files go on to the reader.
        match super::checkpoint::wrong_kind(&f, &[Kind::Checkpoint, Kind::Results]) {
            Some(m) => {
                eprintln!("kld: {m}");
                failed = true;
            }
            None => files.push(f),
        }
    }
    (files, failed)
}

/// [`files_of`] for commands that write one answer: a missing or unreadable
/// input, or inputs holding no checkpoint and no results export, stop the
/// command before anything is loaded or written (exit 2).
pub(super) fn files_of_strict(inputs: &[PathBuf], store: bool) -> anyhow::Result<Vec<PathBuf>> {
    let (files, failed) = files_of(inputs);
    if failed {
        bail!("nothing was run (fix the inputs above)");
    }
    if files.is_empty() && !inputs.is_empty() && !store {
        bail!(
            "no checkpoints or results exports in {}",
            inputs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(files)
}

/// The store a reading command works on: an existing store directory opened
/// read-only (files named beside it are loaded in memory only), or an empty
/// in-memory store. Only `kld load` writes a store.
pub(super) fn open_store(dir: Option<&Path>) -> anyhow::Result<CheckpointStore> {
    Ok(match dir {
        Some(d) => match CheckpointStore::open_dir_read_only(d) {
            Err(e @ karenina_ld::Error::NotAStore { .. }) => {
                bail!("{e}; create one with `kld load --store DIR FILES`")
            }
            r => r.with_context(|| format!("opening store {}", d.display()))?,
        },
        None => CheckpointStore::in_memory()?,
    })
}

/// Loads files into the store, reporting each bad one; returns the worst status.
/// How results exports among the inputs are read and bound.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ResultsArgs {
    /// Bind the results exports among the inputs to this checkpoint (file or
    /// graph IRI) instead of the one loaded checkpoint holding all their question IDs.
    #[arg(long = "for", value_name = "CHECKPOINT")]
    pub for_checkpoint: Option<String>,
    /// Keep raw responses and traces of results exports (large; dropped by default).
    #[arg(long)]
    pub with_traces: bool,
}

pub(super) fn load_into(
    store: &mut CheckpointStore,
    files: &[PathBuf],
    processor: Processor,
    print_graphs: bool,
    results_args: &ResultsArgs,
) -> u8 {
    let mut out = std::io::stdout().lock();
    load_listed(store, files, processor, results_args, &mut |info, file| {
        if print_graphs {
            let _ = writeln!(out, "{}\t{}", info.graph, file.display());
        }
    })
}

/// [`load_into`], handing each graph loaded and its file to `listed` as it
/// comes in (`kld load` prints them as lines or collects them as JSON).
pub(super) fn load_listed(
    store: &mut CheckpointStore,
    files: &[PathBuf],
    processor: Processor,
    results_args: &ResultsArgs,
    listed: &mut dyn FnMut(&karenina_ld::store::GraphInfo, &Path),
) -> u8 {
    store.set_results_options(karenina_ld::results::ResultsOptions {
        with_traces: results_args.with_traces,
    });
    let bar = (std::io::stderr().is_terminal() && files.len() >= 20).then(|| {
        let b = indicatif::ProgressBar::new(files.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} checkpoints {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let progress = |done: usize, _total: usize| {
        if let Some(b) = &bar {
            b.set_position(done as u64);
        }
    };
    let results = store.load_files(files, processor, &progress);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let mut status = OK;
    let mut requested = Vec::new();
    let explicit = explicit_checkpoint(store, results_args.for_checkpoint.as_deref());
    let loaded = results.iter().any(|(_, r)| r.is_ok());
    for (file, r) in results {
        match r {
            Ok(info) => {
                listed(&info, &file);
                for n in &info.notes {
                    eprintln!("kld: {}: {n}", file.display());
                }
                if let Some(b) = info
                    .benchmark
                    .as_deref()
                    .filter(|b| store.resolve(b).is_none())
                {
                    // (A database run is bound by its benchmark's name, never
                    // by question IDs alone.)
                    // (What binding finds is said after it.)
                    let then = match info.benchmark_name {
                        Some(_) => "looking for it by its benchmark's name",
                        None => "looking for it by the run's question IDs",
                    };
                    eprintln!(
                        "kld: {}: its benchmark {b} is not among the inputs; {then}",
                        file.display()
                    );
                }
                if info.kind == karenina_ld::store::GraphKind::Results {
                    match &explicit {
                        Err(m) => eprintln!("kld: {m}; {} not bound", file.display()),
                        Ok(c) => requested.push((info.graph.clone(), c.clone())),
                    }
                }
            }
            Err(e) => status = status.max(super::report_failure(&file, &e, "not loaded")),
        }
    }
    // Bind the new runs, and re-bind earlier ones whose match may have
    // changed: only when graphs came in (reopening a store changes nothing).
    if !loaded {
        return status;
    }
    match store.bind(&requested) {
        Ok(bound) => {
            bound.iter().for_each(report_binding);
            // A `--for` checkpoint that lacks the run's questions is an error.
            if bound.iter().any(|b| b.refused()) {
                status = status.max(INVALID);
            }
        }
        Err(e) => {
            eprintln!("kld: binding results to checkpoints: {e}");
            status = status.max(INVALID);
        }
    }
    status
}

/// The checkpoint graph `--for` names, if any; an error text when it names
/// no loaded checkpoint.
fn explicit_checkpoint(
    store: &CheckpointStore,
    name: Option<&str>,
) -> Result<Option<String>, String> {
    match name {
        None => Ok(None),
        Some(c) => store
            .resolve(c)
            .map(|i| Some(i.graph.clone()))
            .ok_or_else(|| format!("--for {c}: no such checkpoint loaded")),
    }
}

/// Says what binding did, when there is something to say.
pub(super) fn report_binding(b: &karenina_ld::store::Bound) {
    use karenina_ld::results::link::Link;
    if let Some(m) = b.message() {
        // The library names no flags; the CLI says which one chooses.
        match &b.link {
            Link::Ambiguous(_) | Link::NotItsBenchmark { .. } => {
                eprintln!("kld: {m} (use --for CHECKPOINT)")
            }
            // The checkpoint the user named with --for: say so in its terms.
            Link::Refused(c) => eprintln!(
                "kld: {}: {}--for {}: the checkpoint does not hold {} of the run's {} question IDs (e.g. {}); not bound",
                b.source,
                if b.requested { "" } else { "no longer bound: " },
                c.checkpoint,
                c.missing,
                c.total,
                c.examples.join(", ")
            ),
            _ => eprintln!("kld: {m}"),
        }
    }
}

pub fn load(
    store_dir: &Path,
    inputs: &[PathBuf],
    processor: Processor,
    results: &ResultsArgs,
    format: ReportFormat,
) -> anyhow::Result<u8> {
    let mut store = CheckpointStore::open_dir(store_dir)
        .with_context(|| format!("opening store {}", store_dir.display()))?;
    if !store.cleaned().is_empty() {
        eprintln!(
            "kld: {}: removed {} left by an interrupted load ({})",
            store_dir.display(),
            super::plural(store.cleaned().len(), "file"),
            store
                .cleaned()
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let (files, io_failed) = files_of(inputs);
    let status = match format {
        ReportFormat::Text => load_into(&mut store, &files, processor, true, results),
        ReportFormat::Json => {
            let mut graphs = Vec::new();
            let status = load_listed(&mut store, &files, processor, results, &mut |info, file| {
                graphs.push(serde_json::json!({
                    "graph": info.graph,
                    "file": file,
                    "kind": match info.kind {
                        karenina_ld::store::GraphKind::Checkpoint => "checkpoint",
                        karenina_ld::store::GraphKind::Results => "results",
                    },
                    "quads": info.quads,
                }))
            });
            let doc = serde_json::json!({ "store": store_dir, "graphs": graphs });
            outln!("{}", serde_json::to_string_pretty(&doc)?);
            status
        }
    };
    Ok(if io_failed { status.max(USAGE) } else { status })
}

/// Arguments of `kld extract`.
#[derive(clap::Args, Debug)]
pub struct ExtractArgs {
    /// Store directory; without it GRAPH is a checkpoint file, round-tripped in memory.
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Fetch GRAPH from an existing SPARQL server (checked against what was pushed).
    #[command(flatten)]
    pub server: super::remote::ServerArgs,
    /// Graph IRI or source file path.
    pub graph: String,
    /// Output file (atomic write); stdout if absent.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Drop deep-judgment settings, as Karenina's save() does by default.
    #[arg(long)]
    pub strip_deep_judgment: bool,
    /// Drop members Karenina does not know.
    #[arg(long)]
    pub drop_unknown: bool,
}

fn write_extracted(cp: &karenina_ld::model::Checkpoint, a: &ExtractArgs) -> anyhow::Result<u8> {
    let text = write_checkpoint(
        cp,
        &WriteOptions {
            strip_deep_judgment: a.strip_deep_judgment,
            drop_unknown: a.drop_unknown,
            date_modified: None,
        },
    );
    match &a.output {
        Some(o) => fsutil::write_atomic(o, text.as_bytes())?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(OK)
}

pub fn extract(mut a: ExtractArgs) -> anyhow::Result<u8> {
    a.output = super::output_file(a.output);
    if a.server.given() {
        if a.store.is_some() {
            bail!("give either --store or a server, not both");
        }
        let client = a.server.client()?;
        return match karenina_ld::remote::fetch::fetch_checkpoint(&client, &a.graph) {
            Ok(cp) => write_extracted(&cp, &a),
            Err(e) => {
                eprintln!("kld: {e}");
                Ok(INVALID)
            }
        };
    }
    let (store, graph) = match &a.store {
        Some(dir) => {
            let s = open_store(Some(dir))?;
            let Some(g) = s.resolve(&a.graph).map(|i| i.graph.clone()) else {
                bail!(
                    "no graph {} in {} (see `kld query --store {} --named graphs`)",
                    a.graph,
                    dir.display(),
                    dir.display()
                );
            };
            (s, g)
        }
        None => {
            // No store: the argument is a checkpoint file, round-tripped through
            // an in-memory store.
            let mut s = open_store(None)?;
            let file = PathBuf::from(&a.graph);
            let status = load_into(
                &mut s,
                std::slice::from_ref(&file),
                Processor::Direct,
                false,
                &ResultsArgs::default(),
            );
            if status != OK {
                return Ok(status);
            }
            let g = s
                .graphs()
                .next()
                .map(|i| i.graph.clone())
                .context("nothing loaded")?;
            (s, g)
        }
    };
    let cp = store.extract(&graph)?;
    write_extracted(&cp, &a)
}

/// Arguments of `kld query`.
#[derive(clap::Args, Debug)]
pub struct QueryArgs {
    /// Store directory to open.
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Checkpoints, results exports or directories to load, and/or one QUERY.rq file.
    pub inputs: Vec<PathBuf>,
    /// A query of the catalogue (see `kld queries`).
    #[arg(long, short = 'n')]
    pub named: Option<String>,
    /// SPARQL text (`-` reads it from stdin).
    #[arg(long, short = 'e')]
    pub expr: Option<String>,
    /// Give variable VAR the value VALUE before the query runs: the answer
    /// is the rows where ?VAR is VALUE (repeatable). VALUE is a string, or
    /// `<IRI>`, or an N-Triples literal such as `"3"^^<http://www.w3.org/2001/XMLSchema#integer>`.
    #[arg(long, value_name = "VAR=VALUE", value_parser = parse_param)]
    pub param: Vec<(String, karenina_ld::oxigraph::model::Term)>,
    /// Result format (default: table on a terminal, tsv otherwise).
    #[arg(long, value_enum)]
    pub format: Option<ResultFormatArg>,
    /// Write the answer to FILE (atomically) instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Stop the query after this many seconds.
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// Stop the query when it holds more than SIZE of memory, e.g. 512M or
    /// 2G [default: a sixteenth of the machine's memory].
    #[arg(long, value_name = "SIZE", value_parser = karenina_ld::memory::parse_size)]
    pub query_memory: Option<u64>,
    /// How checkpoints become quads.
    #[arg(long, value_enum, default_value = "direct")]
    pub processor: ProcessorArg,
    /// Run the query on an existing SPARQL server instead of a local store.
    #[command(flatten)]
    pub server: super::remote::ServerArgs,
    /// Results exports among the inputs.
    #[command(flatten)]
    pub results: ResultsArgs,
}

pub fn query(mut a: QueryArgs) -> anyhow::Result<u8> {
    a.output = super::output_file(a.output);
    let (rq, inputs): (Vec<PathBuf>, Vec<PathBuf>) = a
        .inputs
        .into_iter()
        .partition(|p| p.extension().is_some_and(|e| e == "rq" || e == "sparql"));
    let text = match (&a.named, &a.expr, rq.as_slice()) {
        (Some(n), None, []) => match query::find(n) {
            Some(q) => q.text.to_string(),
            None => bail!(
                "no query named {n:?}{}; `kld queries` lists them",
                did_you_mean(n)
            ),
        },
        (None, Some(e), []) if e == "-" => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .context("reading the query from stdin")?;
            text
        }
        (None, Some(e), []) => e.clone(),
        (None, None, [f]) => karenina_ld::fsutil::read_regular_to_string(f)?,
        (None, None, []) => bail!("give a query: --named NAME, -e SPARQL or a QUERY.rq file"),
        _ => bail!("give exactly one of --named, -e and a QUERY.rq file"),
    };
    if !(a.timeout > 0.0 && a.timeout.is_finite()) {
        bail!("--timeout must be a positive number of seconds");
    }
    // A format that does not fit the query's form is a usage error, found
    // before anything is loaded. (Syntax errors are reported by the run.)
    let form = query::form(&text).ok();
    let graph_answer = form.is_some_and(|f| f.is_graph());
    let format: Option<ResultFormat> = a.format.map(Into::into);
    if let (Some(f), Some(format)) = (form, format) {
        f.check(format)?;
    }
    // A parameter the query lacks is a usage error, found before anything
    // is loaded (a query that does not parse is reported by the run).
    if let Ok(parsed) = query::parse(&text) {
        for (name, _) in &a.param {
            parsed.param(name)?;
        }
    }
    if a.server.given() {
        if a.store.is_some() || !inputs.is_empty() {
            bail!("with a server, the query runs on the server's graphs: give no files and no --store");
        }
        if !a.param.is_empty() {
            bail!("--param is set by kld's own evaluator: with a server, write the value into the query");
        }
        let client = a.server.client()?;
        let format = format.unwrap_or(default_format(graph_answer));
        let mut rows = None;
        let status = write_answer(OK, |out| {
            let n = karenina_ld::remote::run_query(&client, &text, format, out)?;
            rows = Some(n);
            Ok(n)
        })?;
        // An empty answer may be a default graph that is not the union.
        if rows == Some(0) {
            super::remote::warn_unless_union(&client);
        }
        return Ok(status);
    }
    if inputs.is_empty() && a.store.is_none() {
        bail!("give checkpoints, results exports or directories to query, or --store DIR");
    }
    let files = files_of_strict(&inputs, a.store.is_some())?;
    let mut store = open_store(a.store.as_deref())?;
    let status = load_into(&mut store, &files, a.processor.into(), false, &a.results);
    let to_file = a.output.is_some();
    let format = format.unwrap_or(if to_file {
        default_piped_format(graph_answer)
    } else {
        default_format(graph_answer)
    });
    let opts = query::QueryOptions {
        timeout: Duration::from_secs_f64(a.timeout),
        memory: super::serve::memory_limits(a.query_memory, None),
        table_width: (!to_file && std::io::stdout().is_terminal())
            .then(|| {
                console::Term::stdout()
                    .size_checked()
                    .map(|(_, w)| w as usize)
            })
            .flatten(),
        params: a.param.clone(),
        ..query::QueryOptions::default()
    };
    let rows = std::cell::Cell::new(None);
    let run = |out: &mut (dyn Write + Send)| {
        let n = query::run_with(store.store(), &text, &opts, format, out)?;
        rows.set(Some(n));
        Ok(n)
    };
    let code = match &a.output {
        Some(path) => write_answer_to(status, path, run),
        None => write_answer(status, run),
    };
    // No row, and a parameter given as a string that reads as a number or
    // a boolean: say why (a string equals no typed value) and what would.
    if rows.get() == Some(0) && !graph_answer {
        for (name, value) in &a.param {
            if let Some(hint) = query::typed_value_hint(name, value) {
                eprintln!("kld: note: {hint}");
            }
        }
    }
    code
}

/// `VAR=VALUE` of `--param`: VALUE a string, `<IRI>` or an N-Triples literal.
fn parse_param(s: &str) -> Result<(String, karenina_ld::oxigraph::model::Term), String> {
    use karenina_ld::oxigraph::model::{Literal, Term};
    let (var, value) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?}: give VAR=VALUE"))?;
    let var = var.trim_start_matches(['?', '$']);
    if var.is_empty() {
        return Err(format!("{s:?}: no variable name before '='"));
    }
    let term = if value.starts_with('<') || value.starts_with('"') {
        value
            .parse::<Term>()
            .map_err(|e| format!("{value:?} is not an IRI or literal: {e}"))?
    } else {
        Literal::new_simple_literal(value).into()
    };
    Ok((var.to_string(), term))
}

/// TSV for solutions and N-Triples for graphs: the formats for a pipe or a
/// file.
fn default_piped_format(graph_answer: bool) -> ResultFormat {
    if graph_answer {
        ResultFormat::Rdf(ExportFormat::NTriples)
    } else {
        ResultFormat::Tsv
    }
}

/// Runs `answer` into `path`, written atomically: a failed query leaves any
/// earlier file as it was.
fn write_answer_to(
    status: u8,
    path: &std::path::Path,
    answer: impl FnOnce(&mut (dyn Write + Send)) -> karenina_ld::Result<usize>,
) -> anyhow::Result<u8> {
    let mut file = karenina_ld::fsutil::AtomicFile::create(path)?;
    match answer(&mut file) {
        Ok(_) => {
            file.commit()?;
            Ok(status)
        }
        Err(e) => {
            report_query_error(&e);
            Ok(INVALID.max(status))
        }
    }
}

fn report_query_error(e: &karenina_ld::Error) {
    eprintln!("kld: {}", super::explain(e));
}

/// Table on a terminal; piped, TSV for solutions and N-Triples for graphs.
fn default_format(graph_answer: bool) -> ResultFormat {
    if std::io::stdout().is_terminal() {
        ResultFormat::Table
    } else {
        default_piped_format(graph_answer)
    }
}

/// Runs `answer` into a spool (memory, then a temporary file past 16 MiB)
/// and copies it to stdout only when the answer is complete: a query that
/// fails half way (a timeout, a result too large) writes nothing to stdout,
/// as `-o FILE` leaves the file untouched. A failure is printed and is exit
/// 1 (a reader that went away, as `| head` does, ends the output quietly).
fn write_answer(
    status: u8,
    answer: impl FnOnce(&mut (dyn Write + Send)) -> karenina_ld::Result<usize>,
) -> anyhow::Result<u8> {
    use std::io::Seek;
    let mut spool = tempfile::spooled_tempfile(16 << 20);
    // Buffered: past 16 MiB the spool is a file, and serializers write in
    // small pieces.
    let written = {
        let mut buffered = std::io::BufWriter::with_capacity(1 << 16, &mut spool);
        answer(&mut buffered).and_then(|n| {
            buffered.flush().map_err(karenina_ld::Error::Output)?;
            Ok(n)
        })
    };
    let r = written.and_then(|n| {
        spool.rewind().map_err(karenina_ld::Error::Output)?;
        let mut out = std::io::stdout().lock();
        std::io::copy(&mut spool, &mut out)
            .and_then(|_| out.flush())
            .map(|()| n)
            .map_err(karenina_ld::Error::Output)
    });
    match r {
        Ok(_) => Ok(status),
        Err(karenina_ld::Error::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            Ok(status)
        }
        Err(e) => {
            report_query_error(&e);
            Ok(INVALID.max(status))
        }
    }
}

/// ` (did you mean "x"?)` for the catalogue names nearest to `name`.
fn did_you_mean(name: &str) -> String {
    match query::suggest(name).as_slice() {
        [] => String::new(),
        [one] => format!(" (did you mean {one:?}?)"),
        many => format!(" (did you mean one of {}?)", many.join(", ")),
    }
}

pub fn queries(name: Option<&str>, format: ReportFormat) -> anyhow::Result<u8> {
    let json = |q: &query::NamedQuery| {
        serde_json::json!({
            "name": q.name,
            "description": q.description(),
            "returns": q.returns(),
            "text": q.text,
        })
    };
    if format == ReportFormat::Json {
        let doc = match name {
            Some(n) => match query::find(n) {
                Some(q) => json(q),
                None => bail!("no query named {n:?}{}", did_you_mean(n)),
            },
            None => serde_json::json!({
                "queries": query::CATALOGUE.iter().map(json).collect::<Vec<_>>()
            }),
        };
        outln!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(OK);
    }
    match name {
        Some(n) => match query::find(n) {
            Some(q) => out!("{}", q.text),
            None => bail!("no query named {n:?}{}", did_you_mean(n)),
        },
        None => {
            let width = query::CATALOGUE
                .iter()
                .map(|q| q.name.len())
                .max()
                .unwrap_or(0);
            for q in query::CATALOGUE {
                outln!("{:<width$}  {}", q.name, q.description());
                outln!("{:<width$}  returns {}", "", q.returns());
            }
        }
    }
    Ok(OK)
}
