//! `kld query` and `kld queries`: a query over loaded files, a store
//! directory or a server, its answer written whole or not at all.

use super::inputs::{files_of_strict, open_store};
use super::rdf::{load_into, ResultsArgs};
use super::{ProcessorArg, ReportFormat, ResultFormatArg, INVALID, OK};
use anyhow::{bail, Context};
use karenina_ld::export::ExportFormat;
use karenina_ld::sparql::{self, ResultFormat};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

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
        (Some(n), None, []) => match sparql::find(n) {
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
        (None, None, [f]) => String::from_utf8(karenina_ld::fsutil::read_input(f)?)
            .with_context(|| format!("{}: not UTF-8 text", f.display()))?,
        (None, None, []) => bail!("give a query: --named NAME, -e SPARQL or a QUERY.rq file"),
        _ => bail!("give exactly one of --named, -e and a QUERY.rq file"),
    };
    let timeout = karenina_ld::duration::seconds("--timeout", a.timeout, false)?;
    // A format that does not fit the query's form is a usage error, found
    // before anything is loaded. (Syntax errors are reported by the run.)
    let form = sparql::form(&text).ok();
    let graph_answer = form.is_some_and(|f| f.is_graph());
    let format: Option<ResultFormat> = a.format.map(Into::into);
    if let (Some(f), Some(format)) = (form, format) {
        f.check(format)?;
    }
    // A parameter the query lacks is a usage error, found before anything
    // is loaded (a query that does not parse is reported by the run). Only
    // a query given parameters is parsed here as well as by the run.
    if !a.param.is_empty() {
        if let Ok(parsed) = sparql::parse(&text) {
            for (name, _) in &a.param {
                parsed.param(name)?;
            }
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
            let n = karenina_ld_remote::run_query(&client, &text, format, out)?;
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
    // A number view of a store directory: from its results table when the
    // table is current (no N-Quads parsed); else the quads answer.
    if let (Some(dir), true, Some(name), true) =
        (&a.store, inputs.is_empty(), &a.named, a.param.is_empty())
    {
        if let Some(code) = from_table(dir, name, format, a.output.as_deref())? {
            return Ok(code);
        }
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
    let opts = sparql::QueryOptions {
        timeout,
        memory: super::serve::memory_limits(a.query_memory, None),
        table_width: (!to_file && std::io::stdout().is_terminal())
            .then(|| {
                console::Term::stdout()
                    .size_checked()
                    .map(|(_, w)| w as usize)
            })
            .flatten(),
        params: a.param.clone(),
        ..sparql::QueryOptions::default()
    };
    let rows = std::cell::Cell::new(None);
    let run = |out: &mut (dyn Write + Send)| {
        let n = sparql::run_with(store.store(), &text, &opts, format, out)?;
        rows.set(Some(n));
        Ok(n)
    };
    let code = match &a.output {
        Some(path) => write_answer_to(status, path, run),
        None => write_answer(status, run),
    };
    // A known trap the answer shows (kld's https://schema.org/, a product
    // of decimals left unbound): said once the answer is out.
    for note in opts.control.notes() {
        eprintln!("kld: note: {note}");
    }
    // No row, and a parameter given as a string that reads as a number or
    // a boolean: say why (a string equals no typed value) and what would.
    if rows.get() == Some(0) && !graph_answer {
        for (name, value) in &a.param {
            if let Some(hint) = sparql::typed_value_hint(name, value) {
                eprintln!("kld: note: {hint}");
            }
        }
    }
    code
}

/// Catalogue query `name` answered from the results table of store `dir`
/// (`karenina_ld::table::answers`), when the table answers it and was
/// written for the store as it is; `None` otherwise.
fn from_table(
    dir: &std::path::Path,
    name: &str,
    format: Option<ResultFormat>,
    output: Option<&std::path::Path>,
) -> anyhow::Result<Option<u8>> {
    use karenina_ld::table;
    if !table::answers::ANSWERED.contains(&name) {
        return Ok(None);
    }
    // (A table that cannot be read is left to the quads.)
    let Ok(Some(t)) = table::stored::load_current(dir) else {
        return Ok(None);
    };
    let Some(sparql::Answer::Solutions { variables, rows }) = table::answers::answer(name, &t)
    else {
        return Ok(None);
    };
    let format = format.unwrap_or(if output.is_some() {
        default_piped_format(false)
    } else {
        default_format(false)
    });
    let width = (output.is_none() && std::io::stdout().is_terminal())
        .then(|| {
            console::Term::stdout()
                .size_checked()
                .map(|(_, w)| w as usize)
        })
        .flatten();
    let run = |out: &mut (dyn Write + Send)| {
        sparql::write_solutions(&variables, rows, format, width, out)
    };
    Ok(Some(match output {
        Some(path) => write_answer_to(OK, path, run)?,
        None => write_answer(OK, run)?,
    }))
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
    match sparql::suggest(name).as_slice() {
        [] => String::new(),
        [one] => format!(" (did you mean {one:?}?)"),
        many => format!(" (did you mean one of {}?)", many.join(", ")),
    }
}

pub fn queries(name: Option<&str>, format: ReportFormat) -> anyhow::Result<u8> {
    let json = |q: &sparql::NamedQuery| {
        serde_json::json!({
            "name": q.name,
            "description": q.description(),
            "returns": q.returns(),
            "text": q.text,
        })
    };
    if format == ReportFormat::Json {
        let doc = match name {
            Some(n) => match sparql::find(n) {
                Some(q) => json(q),
                None => bail!("no query named {n:?}{}", did_you_mean(n)),
            },
            None => serde_json::json!({
                "queries": sparql::CATALOGUE.iter().map(json).collect::<Vec<_>>()
            }),
        };
        outln!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(OK);
    }
    match name {
        Some(n) => match sparql::find(n) {
            Some(q) => out!("{}", q.text),
            None => bail!("no query named {n:?}{}", did_you_mean(n)),
        },
        None => {
            let width = sparql::CATALOGUE
                .iter()
                .map(|q| q.name.len())
                .max()
                .unwrap_or(0);
            for q in sparql::CATALOGUE {
                outln!("{:<width$}  {}", q.name, q.description());
                outln!("{:<width$}  returns {}", "", q.returns());
            }
        }
    }
    Ok(OK)
}
