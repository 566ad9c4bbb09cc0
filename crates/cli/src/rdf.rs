//! `load` and `extract`, and loading inputs into a store (which `query`,
//! `serve` and `export` share).

use super::inputs::{files_of, open_store, report_binding};
use super::{ReportFormat, INVALID, OK, USAGE};
use anyhow::{bail, Context};
use karenina_ld::fsutil;
use karenina_ld::rdf::Processor;
use karenina_ld::save::{write_checkpoint, WriteOptions};
use karenina_ld::store::CheckpointStore;
use karenina_ld::terminal::escape_controls as esc;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

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
    /// Label the runs of the inputs that follow on the command line
    /// (repeatable; a later label of the same key replaces it): `--label
    /// regime=mcp runs/mcp/ --label regime=none runs/plain/`. Labels go on
    /// each run node (karenina:label) for `pass-rate-by-label`.
    #[arg(long = "label", value_name = "KEY=VALUE", value_parser = parse_label)]
    pub labels: Vec<(String, String)>,
    /// Each input given labels, with them (set from the command line's order).
    #[arg(skip)]
    pub labelled: Vec<(PathBuf, Vec<(String, String)>)>,
    /// Map each result to its keys only (`kld serve --result-quads keys`).
    #[arg(skip)]
    pub keys_only: bool,
}

fn parse_label(s: &str) -> Result<(String, String), String> {
    karenina_ld::store::labels::parse_label(s).map_err(|e| e.to_string())
}

/// Ties each `--label` to the inputs that follow it on the command line
/// (`m`: the command's matches, with `inputs` and `labels`). A label after
/// the last input labels nothing: a usage error.
pub(super) fn place_labels(
    m: &clap::ArgMatches,
    inputs: &[PathBuf],
    results: &mut ResultsArgs,
) -> anyhow::Result<()> {
    if results.labels.is_empty() {
        return Ok(());
    }
    let at: Vec<usize> = m.indices_of("labels").into_iter().flatten().collect();
    let input_at: Vec<usize> = m.indices_of("inputs").into_iter().flatten().collect();
    for (label, &i) in results.labels.iter().zip(&at) {
        if !input_at.iter().any(|&j| j > i) {
            bail!(
                "--label {}={} follows the last input: a label applies to the inputs after it",
                label.0,
                label.1
            );
        }
    }
    for (input, &j) in inputs.iter().zip(&input_at) {
        let mut mine: Vec<(String, String)> = Vec::new();
        for (label, _) in results.labels.iter().zip(&at).filter(|(_, &i)| i < j) {
            mine.retain(|(k, _)| *k != label.0);
            mine.push(label.clone());
        }
        if !mine.is_empty() {
            results.labelled.push((input.clone(), mine));
        }
    }
    Ok(())
}

/// Gives the store the labels of the runs found under each labelled input.
pub(super) fn label_inputs(store: &mut CheckpointStore, results: &ResultsArgs) {
    for (input, labels) in &results.labelled {
        store.label_inputs(std::slice::from_ref(input), labels);
    }
}

pub(super) fn load_into(
    store: &mut CheckpointStore,
    files: &[PathBuf],
    processor: Processor,
    print_graphs: bool,
    results_args: &ResultsArgs,
) -> u8 {
    let mut out = std::io::stdout().lock();
    let mut skipped = 0;
    let status = load_listed(store, files, processor, results_args, &mut |l| match l {
        Listed::Stored(info, file) if print_graphs => {
            let _ = writeln!(
                out,
                "{}\t{}",
                esc(&info.graph),
                esc(&file.display().to_string())
            );
        }
        Listed::Stored(..) => {}
        // (Each was said on stderr as binding reported it.)
        Listed::Skipped(_) => skipped += 1,
    });
    if print_graphs && skipped > 0 {
        eprintln!(
            "kld: {} not stored (the same run as another input, said above)",
            super::plural(skipped, "input")
        );
    }
    status
}

/// What loading did with one input, once runs are reconciled and bound.
pub(super) enum Listed<'a> {
    /// Its graph is in the store.
    Stored(&'a karenina_ld::store::GraphInfo, &'a Path),
    /// Read, then left out (or an earlier graph removed): the same run as
    /// another input, which is kept.
    Skipped(&'a karenina_ld::store::Bound),
}

/// [`load_into`], handing each graph stored and each input skipped to
/// `listed` once binding has decided (`kld load` prints them as lines or
/// collects them as JSON).
pub(super) fn load_listed(
    store: &mut CheckpointStore,
    files: &[PathBuf],
    processor: Processor,
    results_args: &ResultsArgs,
    listed: &mut dyn FnMut(Listed<'_>),
) -> u8 {
    store.set_results_options(karenina_ld::rdf::verification::ResultsOptions {
        with_traces: results_args.with_traces,
        keys_only: results_args.keys_only,
    });
    label_inputs(store, results_args);
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
    let mut stored = Vec::new();
    for (file, r) in results {
        match r {
            Ok(info) => {
                for n in &info.notes {
                    eprintln!("kld: {}: {n}", file.display());
                }
                status = status.max(super::inputs::report_partial(&file, &info.errors, "loaded"));
                if let Some(b) = info
                    .benchmark
                    .as_deref()
                    .filter(|_| info.kind == karenina_ld::store::GraphKind::Results)
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
                stored.push((info, file));
            }
            Err(e) => status = status.max(super::report_failure(&file, &e, "not loaded")),
        }
    }
    // Bind the new runs, and re-bind earlier ones whose match may have
    // changed: only when graphs came in (reopening a store changes nothing).
    let mut bound = Vec::new();
    if loaded {
        match store.bind(&requested) {
            Ok(b) => {
                b.iter().for_each(report_binding);
                for b in &b {
                    if let karenina_ld::store::binding::link::Link::Bound(c) = &b.link {
                        if let Ok(Some(p)) = store.placeholder(c) {
                            eprintln!("kld: {}: bound to {c}, {}", b.source, p.describe());
                        }
                    }
                }
                // A `--for` checkpoint that lacks the run's questions is an error.
                if b.iter().any(|b| b.refused()) {
                    status = status.max(INVALID);
                }
                bound = b;
            }
            Err(e) => {
                eprintln!("kld: binding results to checkpoints: {e}");
                status = status.max(INVALID);
            }
        }
    }
    // What is in the store now, then what was left out (a copy of a run
    // kept under another input).
    for (info, file) in &stored {
        if let Some(now) = store.resolve(&info.graph) {
            listed(Listed::Stored(now, file));
        }
    }
    for b in bound.iter().filter(|b| {
        matches!(
            b.link,
            karenina_ld::store::binding::link::Link::Duplicate { .. }
                | karenina_ld::store::binding::link::Link::Shadowed { .. }
        )
    }) {
        listed(Listed::Skipped(b));
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
            let (mut graphs, mut skipped) = (Vec::new(), Vec::new());
            let status = load_listed(&mut store, &files, processor, results, &mut |l| match l {
                Listed::Stored(info, file) => graphs.push(serde_json::json!({
                    "graph": info.graph,
                    "file": file,
                    "kind": info.kind.name(),
                    "quads": info.quads,
                    "checkpoint": info.binding.as_ref().map(|b| &b.checkpoint),
                })),
                Listed::Skipped(b) => skipped.push(skipped_json(b)),
            });
            let doc = serde_json::json!({
                "store": store_dir,
                "graphs": graphs,
                "skipped": skipped,
            });
            outln!("{}", serde_json::to_string_pretty(&doc)?);
            status
        }
    };
    // The results table beside the quads (docs/results.md).
    let status = match karenina_ld::table::stored::refresh(store_dir, &store) {
        Ok(notes) => {
            notes.iter().for_each(|n| eprintln!("kld: {n}"));
            status
        }
        Err(e) => {
            eprintln!(
                "kld: {}: the results table not written: {e}",
                store_dir.display()
            );
            status.max(INVALID)
        }
    };
    Ok(if io_failed { status.max(USAGE) } else { status })
}

/// An input `kld load --format json` left out, and why.
fn skipped_json(b: &karenina_ld::store::Bound) -> serde_json::Value {
    let (kept, results, why) = match b.skipped() {
        Some(s) => (Some(s.kept), s.results, s.why),
        None => (None, None, "same-run"),
    };
    serde_json::json!({
        "file": b.source,
        "graph": b.graph,
        "why": why,
        "kept": kept,
        "results": results,
        "message": b.message(),
    })
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
    /// Graph IRI or source file path (or Karenina's database, with --benchmark).
    pub graph: String,
    /// With GRAPH a Karenina database: the benchmark to write, as Karenina's
    /// `Benchmark.load_from_db(url, NAME).save(path)` writes it.
    #[arg(long, value_name = "NAME")]
    pub benchmark: Option<String>,
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

/// The input `kld extract` loads without a store: the file, or for a
/// database the benchmark `--benchmark` names (`DB#benchmark=NAME`).
fn database_benchmark_input(a: &ExtractArgs) -> anyhow::Result<PathBuf> {
    use karenina_ld::sqlite;
    let file = PathBuf::from(&a.graph);
    let is_db = sqlite::sniff_file(&file);
    match (&a.benchmark, is_db) {
        (None, false) => Ok(file),
        (Some(_), false) => bail!(
            "--benchmark names a benchmark of Karenina's database; {} is not one",
            a.graph
        ),
        (Some(name), true) => Ok(PathBuf::from(format!(
            "{}{}{name}",
            a.graph,
            karenina_ld::kind::DB_BENCHMARK
        ))),
        (None, true) => {
            let c = sqlite::open(&file)?;
            let names = sqlite::benchmark::names(&file, &c)?;
            bail!(
                "{} is Karenina's database: name the benchmark to write with --benchmark ({})",
                a.graph,
                names.join(", ")
            )
        }
    }
}

pub fn extract(mut a: ExtractArgs) -> anyhow::Result<u8> {
    a.output = super::output_file(a.output);
    if a.server.given() {
        if a.store.is_some() {
            bail!("give either --store or a server, not both");
        }
        let client = a.server.client()?;
        return match karenina_ld_remote::fetch::fetch_checkpoint(&client, &a.graph) {
            Ok(cp) => write_extracted(&cp, &a),
            Err(e) => {
                eprintln!("kld: {e}");
                Ok(INVALID)
            }
        };
    }
    if a.benchmark.is_some() && a.store.is_some() {
        bail!("--benchmark reads a database file, not a store (give the graph IRI with --store)");
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
            let file = database_benchmark_input(&a)?;
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
