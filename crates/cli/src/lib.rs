//! `kld`'s command line as a library function ([`main_from_args`]), so that
//! the `kld` binary (`src/main.rs`) and the Python package's `kld` entry
//! point are one code path. Thin: argument definitions (clap), dispatch,
//! printing and exit codes over the library (`karenina_ld`), its server
//! (`karenina_ld_serve`) and its SPARQL-protocol client
//! (`karenina_ld_remote`).

#![warn(missing_docs)]
// One module-file style, the library's: a module with children is
// `foo/mod.rs`, never `foo.rs` beside `foo/`.
#![deny(clippy::self_named_module_files)]

/// `println!` that returns the write error (a closed pipe) instead of
/// panicking, so `kld … | head` ends quietly.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout(), $($arg)*)?
    }};
}

/// `print!` that returns the write error instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout(), $($arg)*)?
    }};
}

/// `eprintln!` for every command (shadowing std's in this module and the
/// ones below): kld's messages carry names from the data (paths, question
/// IDs, model, run and benchmark names), and a terminal obeys the control
/// characters in them, so every line on stderr goes through
/// [`karenina_ld::terminal::escape_controls`]. kld writes no colours there.
macro_rules! eprintln {
    ($($arg:tt)*) => {
        std::eprintln!("{}", karenina_ld::terminal::escape_controls(&format!($($arg)*)))
    };
}

/// `eprint!`, escaped as [`eprintln!`] is.
#[allow(unused_macros)]
macro_rules! eprint {
    ($($arg:tt)*) => {
        std::eprint!("{}", karenina_ld::terminal::escape_controls(&format!($($arg)*)))
    };
}

/// The exit codes most commands share, said once for every command's
/// `--help` (`concat!` needs a literal, so a macro rather than a `const`).
/// Commands whose codes differ (find, git-merge, preset diff, the git
/// drivers) spell theirs out.
macro_rules! exit_codes {
    () => {
        "Exit codes: 0 ok; 1 invalid input, a failed check, differences found or a failed query; 2 usage or I/O error."
    };
}

mod checkpoint;
mod compare;
mod export;
mod find;
mod git;
mod gitdriver;
mod import;
mod inputs;
mod manuscript;
mod preset;
mod query;
mod rdf;
mod remote;
mod run_info;
mod serve;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Exit status: everything fine.
pub const OK: u8 = 0;
/// Exit status: some input is invalid, or a check failed.
pub const INVALID: u8 = 1;
/// Exit status: usage or I/O error.
pub const USAGE: u8 = 2;

/// `n thing` or `n things`.
pub(crate) fn plural(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// `--color auto|always|never`: auto is on when stdout is a terminal and
/// `NO_COLOR` (https://no-color.org) is unset or empty.
pub(crate) fn color_choice(choice: clap::ColorChoice) -> bool {
    use std::io::IsTerminal;
    match choice {
        clap::ColorChoice::Always => true,
        clap::ColorChoice::Never => false,
        clap::ColorChoice::Auto => {
            std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}

/// `-o FILE` as commands take it: `-o -` is standard output, as if `-o`
/// were not given (ripgrep, jq and Oxigraph's CLI do the same).
pub(crate) fn output_file(o: Option<PathBuf>) -> Option<PathBuf> {
    o.filter(|o| !karenina_ld::fsutil::is_stdio(o))
}

/// Reports why one file of a batch failed (located diagnostics for invalid
/// input); returns its exit status: 1 invalid input, 2 I/O.
pub(crate) fn report_failure(file: &std::path::Path, e: &karenina_ld::Error, what: &str) -> u8 {
    match e {
        karenina_ld::Error::Invalid(report) => {
            for d in report.errors() {
                eprintln!("{}", report.render(d));
            }
            eprintln!("{}: {what}: the file has errors", file.display());
            INVALID
        }
        karenina_ld::Error::Io { .. } => {
            eprintln!("kld: {}", explain(e));
            USAGE
        }
        // Errors that name their file (and place) themselves.
        located @ (karenina_ld::Error::Located { .. }
        | karenina_ld::Error::NotAResultsDatabase { .. }
        | karenina_ld::Error::RdfSyntax { .. }
        | karenina_ld::Error::JsonLd { .. }
        | karenina_ld::Error::RemoteContext { .. }) => {
            eprintln!("{located}");
            eprintln!("{}: {what}", file.display());
            INVALID
        }
        other => {
            eprintln!("{}: {what}: {other}", file.display());
            INVALID
        }
    }
}

/// karenina-ld: validate, canonicalize and query Karenina benchmark checkpoints.
#[derive(Parser, Debug)]
#[command(name = "kld", version, about, long_about = None, after_help = concat!(
    "Examples:\n",
    "  kld query examples/ --named benchmark-stats   # catalogue query over checkpoints in memory\n",
    "  kld validate benchmarks/                      # Karenina's load rules, located errors\n",
    "  kld canon --check benchmarks/                 # exit 1 when a file is not Karenina's bytes\n",
    "  kld serve benchmarks/ --watch                 # SPARQL endpoint and page on 127.0.0.1:7879\n\n",
    "Exit codes: 0 ok; 1 invalid input, a failed check or differences found; 2 usage or I/O error.\n",
    "Manual: README.md and docs/ in the repository; `kld man` prints this as a man page."
))]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
    /// Say more: which files in the directories given were skipped and why.
    #[arg(long, short = 'v', global = true)]
    pub verbose: bool,
}

static VERBOSE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Notes the files a directory scan skipped, under `-v`.
pub(crate) fn note_skipped(skipped: &[(PathBuf, karenina_ld::kind::Kind)]) {
    if VERBOSE.load(std::sync::atomic::Ordering::Relaxed) {
        for (p, k) in skipped {
            eprintln!("kld: skipped {}: {}", p.display(), k.describe());
        }
    }
}

/// Output format for machine-readable commands.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum ReportFormat {
    /// Human-readable lines.
    Text,
    /// One JSON document on stdout.
    Json,
}

/// Which JSON-LD processor maps checkpoints to quads.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum ProcessorArg {
    /// Quads straight from the model (fastest; tested isomorphic to the others).
    Direct,
    /// Oxigraph's JSON-LD parser on the lossless document.
    Oxigraph,
    /// The json-ld crate (reference implementation) on the lossless document.
    JsonLd,
}

impl From<ProcessorArg> for karenina_ld::rdf::Processor {
    fn from(p: ProcessorArg) -> Self {
        match p {
            ProcessorArg::Direct => Self::Direct,
            ProcessorArg::Oxigraph => Self::Oxigraph,
            ProcessorArg::JsonLd => Self::JsonLdCrate,
        }
    }
}

/// SPARQL result formats.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum ResultFormatArg {
    /// Aligned text table (default on a terminal).
    Table,
    /// SPARQL CSV.
    Csv,
    /// SPARQL TSV (default when piped).
    Tsv,
    /// SPARQL JSON.
    Json,
    /// SPARQL XML.
    Xml,
    /// Turtle (CONSTRUCT / DESCRIBE).
    Ttl,
    /// N-Triples (CONSTRUCT / DESCRIBE; the default when piped).
    Nt,
    /// N-Quads (CONSTRUCT / DESCRIBE).
    Nq,
    /// TriG (CONSTRUCT / DESCRIBE).
    Trig,
    /// RDF/XML (CONSTRUCT / DESCRIBE).
    Rdfxml,
    /// JSON-LD compacted with Karenina's context (CONSTRUCT / DESCRIBE).
    Jsonld,
}

impl From<ResultFormatArg> for karenina_ld::sparql::ResultFormat {
    fn from(f: ResultFormatArg) -> Self {
        use karenina_ld::export::ExportFormat as E;
        match f {
            ResultFormatArg::Table => Self::Table,
            ResultFormatArg::Csv => Self::Csv,
            ResultFormatArg::Tsv => Self::Tsv,
            ResultFormatArg::Json => Self::Json,
            ResultFormatArg::Xml => Self::Xml,
            ResultFormatArg::Ttl => Self::Rdf(E::Turtle),
            ResultFormatArg::Nt => Self::Rdf(E::NTriples),
            ResultFormatArg::Nq => Self::Rdf(E::NQuads),
            ResultFormatArg::Trig => Self::Rdf(E::TriG),
            ResultFormatArg::Rdfxml => Self::Rdf(E::RdfXml),
            ResultFormatArg::Jsonld => Self::Rdf(E::JsonLd),
        }
    }
}

/// `kld`'s commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check checkpoints against Karenina's load rules and lint what it mishandles.
    #[command(after_help = concat!("Examples:\n  kld validate bench.jsonld\n  kld validate benchmarks/ --format json --deny-warnings\n\n", exit_codes!()))]
    Validate {
        /// Checkpoint files or directories (searched recursively for *.jsonld).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Report format.
        #[arg(long, value_enum, default_value = "text")]
        format: ReportFormat,
        /// Treat warnings as failures (exit 1).
        #[arg(long)]
        deny_warnings: bool,
        /// Accept the 2025-08 `Dataset` format (as `canon --upgrade` would convert it).
        #[arg(long)]
        upgrade: bool,
    },
    /// Rewrite checkpoints as the exact bytes Karenina's save() writes.
    #[command(after_help = concat!("Examples:\n  kld canon --check benchmarks/\n  kld canon --in-place bench.jsonld\n  kld canon legacy.jsonld --upgrade -o bench.jsonld\n\n", exit_codes!()))]
    Canon(checkpoint::CanonArgs),
    /// Summarize a checkpoint (questions, templates, traits, keywords) or a results export (models, pass rates, failures, traits).
    #[command(after_help = concat!("Examples:\n  kld info bench.jsonld\n  kld info results.json --format json\n  kld info dbs/karenina.db --with benchmarks/\n\n", exit_codes!()))]
    Info {
        /// Checkpoint, results export (JSON or CSV), run folder or Karenina's results database.
        input: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: ReportFormat,
        /// For a database: checkpoints (files or directories) its runs are bound against, besides those its benchmarks' checkpoint_path lead to.
        #[arg(long = "with", value_name = "CHECKPOINT")]
        with: Vec<PathBuf>,
    },
    /// Compare answering models on a verification run: template pass rates with intervals, paired differences with adjusted p-values, judge agreement, the hardest questions.
    #[command(after_help = concat!("Examples:\n  kld compare results.json\n  kld compare results.json --format json\n  kld compare results.json --format csv --table agreement\n  kld compare results.json --reference-judge 'langchain:gpt-4.1-mini'\n\n", exit_codes!()))]
    Compare(compare::CompareArgs),
    /// The leaderboard as a model × judge table for a manuscript: CSV, Markdown, LaTeX (booktabs), one self-contained HTML report with its figures, or JSON; each cell the template pass rate with its n and interval.
    #[command(after_help = concat!("Examples:\n  kld leaderboard bench.jsonld results.json -f latex --digits 1 -o table.tex\n  kld leaderboard benchmarks/ runs/ -f html -o report.html\n  kld leaderboard bench.jsonld results.json -f csv --judge 'langchain:gpt-4.1-mini'\n\n", exit_codes!()))]
    Leaderboard(manuscript::LeaderboardArgs),
    /// Figures as SVG (or their data as CSV): `dots`, each model's template pass rate under each judge and their mean with its interval; `heatmap`, question × model under one judge.
    #[command(after_help = concat!("Examples:\n  kld figure dots bench.jsonld results.json -o dots.svg\n  kld figure heatmap bench.jsonld results.json --judge 'langchain:gpt-4.1-mini' -f csv\n\n", exit_codes!()))]
    Figure(manuscript::FigureArgs),
    /// Load checkpoints and results exports into a store directory (one named graph each); prints `GRAPH<TAB>FILE` lines.
    #[command(after_help = concat!("Examples:\n  kld load --store store/ benchmarks/ runs/\n\n", exit_codes!()))]
    Load {
        /// Store directory (created if missing): N-Quads per graph plus index.tsv.
        #[arg(long)]
        store: PathBuf,
        /// Checkpoints, results exports (JSON, CSV) or directories.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// How checkpoints become quads.
        #[arg(long, value_enum, default_value = "direct")]
        processor: ProcessorArg,
        /// Results exports among the inputs.
        #[command(flatten)]
        results: rdf::ResultsArgs,
        /// Output format: `GRAPH<TAB>FILE` lines, or one JSON document.
        #[arg(long, value_enum, default_value = "text")]
        format: ReportFormat,
    },
    /// Turn sheets (CSV, TSV, XLSX, XLS) and datasets (Inspect AI, JSON Lines) into a canonical checkpoint, as Karenina's extract_questions_from_file + add_question + save would.
    #[command(after_help = concat!("Examples:\n  kld import questions.xlsx --question-column Question --answer-column Answer -o bench.jsonld\n  kld import more.csv --question-column Q --answer-column A --keywords-column 'Area:;' --into bench.jsonld\n  kld import samples.jsonl --format inspect -o bench.jsonld\n  kld import questions.csv --question-column Q --answer-column A --dry-run --output-format json\n\n", "Exit codes: 0 ok; 1 invalid input (located: file, sheet, row, column; nothing written); 2 usage or I/O error."))]
    Import(import::ImportArgs),
    /// Write a stored graph back as a canonical checkpoint.
    #[command(after_help = concat!("Examples:\n  kld extract --store store/ file:///home/me/bench.jsonld -o bench.jsonld\n\n", exit_codes!()))]
    Extract(rdf::ExtractArgs),
    /// Run SPARQL over checkpoints (loaded into memory) and/or a store.
    #[command(after_help = concat!("Examples:\n  kld query benchmarks/ --named benchmark-stats\n  kld query bench.jsonld -e 'SELECT ?q WHERE { ?q a schema:Question }'\n  kld query benchmarks/ runs/ --named results-by-model --format csv -o by-model.csv\n  kld query --store store/ my-query.rq\n  kld query benchmarks/ runs/ --named results-by-model --param model_name=gpt-4.1-mini\n\n", exit_codes!()))]
    Query(query::QueryArgs),
    /// List the query catalogue, or print one query.
    #[command(after_help = concat!("Examples:\n  kld queries\n  kld queries pass-rate-by-benchmark\n\n", exit_codes!()))]
    Queries {
        /// A query name.
        name: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: ReportFormat,
    },
    /// Export checkpoints as RDF (N-Triples, N-Quads, Turtle, TriG, RDF/XML, JSON-LD).
    #[command(after_help = concat!("Examples:\n  kld export bench.jsonld -f ttl -o bench.ttl\n  kld export benchmarks/ -f nq --plain -o all.nq\n\n", exit_codes!()))]
    Export(export::ExportArgs),
    /// Search questions, answers, templates, rubric traits and metadata of checkpoints by regular expression.
    #[command(after_help = concat!("Examples:\n  kld find 'capital of \\w+' benchmarks/\n  kld find -i -F 'ada' bench.jsonld --field metadata\n  kld find BRCA1 benchmarks/ --format json | jq '.matches[].question'\n\n", "Output: FILE:QUESTION-ID: FIELD: LINE, one line per matching line of a value; (benchmark) for the benchmark's own metadata and global traits.\n\n", "Exit codes: 0 something matched; 1 nothing matched; 2 an error (a bad pattern, a file that cannot be read or is not a valid checkpoint), even when something matched."))]
    Find(find::FindArgs),
    /// Serve the loaded checkpoints: SPARQL endpoint, Graph Store reads, a browser page.
    #[command(after_help = concat!("Examples:\n  kld serve benchmarks/ --watch\n  kld serve --store store/ --bind 8080 --cors http://localhost:8888\n  kld serve benchmarks/ --watch --cache-mb 256   # keep more answers (0: none)\n\n", exit_codes!()))]
    Serve(serve::ServeArgs),
    /// Push checkpoint graphs into an existing SPARQL server (Graph Store Protocol).
    #[command(after_help = concat!("Examples:\n  kld push --server oxigraph http://localhost:7878 benchmarks/ --dry-run\n\n", exit_codes!()))]
    Push(remote::PushArgs),
    /// Semantic diff of two checkpoints (exit 1 when they differ).
    #[command(after_help = concat!("Examples:\n  kld diff old.jsonld new.jsonld\n  kld diff a.jsonld b.jsonld --format json\n\n", exit_codes!()))]
    Diff(git::DiffArgs),
    /// RDFC-1.0 (SHA-256) hash of each checkpoint's graph.
    #[command(after_help = concat!("Examples:\n  kld hash benchmarks/\n  kld hash bench.jsonld --plain\n\n", exit_codes!()))]
    Hash(git::HashArgs),
    /// git's external diff driver for checkpoints (`diff.karenina.command`):
    /// the semantic diff under git's file header, a line diff when a side does
    /// not parse; exit 0.
    #[command(after_help = concat!("Examples:\n  git config diff.karenina.command 'kld git-diff'\n  echo '*.jsonld diff=karenina' >> .gitattributes\n  git diff HEAD~1 -- bench.jsonld\n\n", "Exit codes: 0 whatever the files hold (git stops at a driver's non-zero exit); 2 a file cannot be read."))]
    GitDiff(gitdriver::GitDiffArgs),
    /// git's textconv for checkpoints (`diff.karenina.textconv`): the
    /// canonical bytes, or the file as written when it does not parse; exit 0.
    #[command(after_help = concat!("Examples:\n  git config diff.karenina.textconv 'kld git-textconv'\n  kld git-textconv bench.jsonld\n\n", "Exit codes: 0 whatever the file holds (the canonical bytes, or the file as written); 2 it cannot be read."))]
    GitTextconv(gitdriver::TextconvArgs),
    /// git's merge driver for checkpoints (`merge.karenina.driver`): a
    /// three-way merge by question, trait and key into Karenina's bytes; exit
    /// 1 with markers around each conflicting field; git's text merge when a
    /// version is not a checkpoint or a preset.
    #[command(after_help = concat!("Examples:\n  git config merge.karenina.driver 'kld git-merge %O %A %B %P'\n  echo '*.jsonld merge=karenina' >> .gitattributes\n\n", "Exit codes: 0 merged; 1 conflicts (marked in the file); 2 usage or I/O error."))]
    GitMerge(gitdriver::GitMergeArgs),
    /// Karenina verification presets.
    #[command(subcommand, after_help = concat!("Examples:\n  kld preset list\n  kld preset validate presets/\n\n", exit_codes!()))]
    Preset(PresetCommand),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "Examples:\n  kld completions bash > ~/.local/share/bash-completion/completions/kld\n  kld completions zsh > ~/.zfunc/_kld\n\nExit codes: 0 ok; 2 usage or I/O error."
    )]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print kld's man page (roff), e.g. `kld man > ~/.local/share/man/man1/kld.1`.
    #[command(
        after_help = "Examples:\n  kld man > ~/.local/share/man/man1/kld.1\n  kld man | man -l -\n\nExit codes: 0 ok; 2 usage or I/O error."
    )]
    Man,
    /// Print the Karenina question ID of each text, one per line.
    #[command(after_help = concat!("Examples:\n  kld qid 'What is the capital of France?'\n\n", exit_codes!()))]
    Qid {
        /// Question texts (`-` reads one text per line from stdin).
        #[arg(required = true)]
        texts: Vec<String>,
        /// Print the bare 32-hex MD5 form (used for Question objects).
        #[arg(long)]
        md5: bool,
        /// Treat the texts as added in order: repeated texts get -1, -2 suffixes.
        #[arg(long)]
        sequence: bool,
        /// Print a JSON array (safe for texts with newlines).
        #[arg(long)]
        json: bool,
    },
}

/// `kld preset …`
#[derive(Subcommand, Debug)]
pub enum PresetCommand {
    /// List presets (name, file, description, updated_at), sorted by name.
    #[command(after_help = concat!("Examples:\n  kld preset list\n  kld preset list --dir presets/\n\n", exit_codes!()))]
    List {
        /// Presets directory (default: $KARENINA_PRESETS_DIR, else ./presets).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Show one preset with its config's defaults filled in.
    #[command(after_help = concat!("Examples:\n  kld preset show gpt-fast\n  kld preset show presets/gpt-fast.json\n\n", exit_codes!()))]
    Show {
        /// Preset name (file stem) or path.
        name: String,
        /// Presets directory.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Validate preset files against Karenina's VerificationConfig.
    #[command(after_help = concat!("Examples:\n  kld preset validate presets/\n  kld preset validate gpt-fast.json --format json\n\n", exit_codes!()))]
    Validate {
        /// Preset files or directories (*.json).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Report format.
        #[arg(long, value_enum, default_value = "text")]
        format: ReportFormat,
    },
    /// Save a config as a preset, in Karenina's save_preset byte format.
    #[command(after_help = concat!("Examples:\n  kld preset save --name gpt-fast --config config.json\n  kld preset save --name gpt-fast --config config.json --dir presets/ --force\n\n", exit_codes!()))]
    Save(preset::SaveArgs),
    /// Field-by-field differences of two presets' configs (exit 1 when they differ).
    #[command(after_help = concat!("Examples:\n  kld preset diff gpt-fast gpt-careful\n\n", "Exit codes: 0 the configs are the same; 1 they differ or a preset is invalid; 2 usage or I/O error."))]
    Diff {
        /// First preset (name or path).
        a: String,
        /// Second preset (name or path).
        b: String,
        /// Presets directory.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

/// `kld` run on a command line (`args[0]` is the program's name): parses
/// it, runs the command, prints its errors, and returns the exit status (0
/// ok, 1 invalid input or a failed check, 2 usage or I/O). The `kld` binary
/// and the Python package's `kld` entry point both call this.
pub fn main_from_args<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    use clap::{CommandFactory, FromArgMatches};
    let parsed = Cli::command()
        .try_get_matches_from(args)
        .and_then(|m| Cli::from_arg_matches(&m).map(|a| (a, m)));
    let args = match parsed {
        Ok((mut a, m)) => {
            // `--label` applies to the inputs after it: where each stands.
            let placed = match (&mut a.command, m.subcommand()) {
                (
                    Command::Load {
                        inputs, results, ..
                    },
                    Some((_, sub)),
                ) => rdf::place_labels(sub, inputs, results),
                (Command::Query(q), Some((_, sub))) => {
                    rdf::place_labels(sub, &q.inputs, &mut q.results)
                }
                (Command::Serve(s), Some((_, sub))) => {
                    rdf::place_labels(sub, &s.inputs, &mut s.results)
                }
                (Command::Leaderboard(b), Some((_, sub))) => {
                    rdf::place_labels(sub, &b.board.inputs, &mut b.board.results)
                }
                (Command::Figure(b), Some((_, sub))) => {
                    rdf::place_labels(sub, &b.board.inputs, &mut b.board.results)
                }
                _ => Ok(()),
            };
            if let Err(e) = placed {
                eprintln!("kld: error: {e:#}");
                return USAGE;
            }
            a
        }
        Err(e) => {
            // --help and --version print to stdout and succeed; usage
            // errors print to stderr with status 2.
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(USAGE);
        }
    };
    match run(args) {
        Ok(code) => code,
        // A reader that went away (`kld … | head`) ends the output, quietly.
        Err(e) if broken_pipe(&e) => OK,
        Err(e) => {
            let typed = e
                .chain()
                .find_map(|c| c.downcast_ref::<karenina_ld::Error>())
                .and_then(hint);
            match typed {
                Some(h) => eprintln!("kld: error: {e:#} ({h})"),
                None => eprintln!("kld: error: {e:#}"),
            }
            USAGE
        }
    }
}

fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Runs a parsed command line; returns the exit status.
pub fn run(cli: Cli) -> anyhow::Result<u8> {
    VERBOSE.store(cli.verbose, std::sync::atomic::Ordering::Relaxed);
    match cli.command {
        Command::Validate {
            inputs,
            format,
            deny_warnings,
            upgrade,
        } => checkpoint::validate(&inputs, format, deny_warnings, upgrade),
        Command::Canon(a) => checkpoint::canon(a),
        Command::Info {
            input,
            format,
            with,
        } => checkpoint::info(&input, format, &with),
        Command::Load {
            store,
            inputs,
            processor,
            results,
            format,
        } => rdf::load(&store, &inputs, processor.into(), &results, format),
        Command::Compare(a) => compare::compare(a),
        Command::Leaderboard(a) => manuscript::leaderboard(a),
        Command::Figure(a) => manuscript::figure(a),
        Command::Extract(a) => rdf::extract(a),
        Command::Import(a) => import::import(a),
        Command::Query(a) => query::query(a),
        Command::Queries { name, format } => query::queries(name.as_deref(), format),
        Command::Export(a) => export::export(a),
        Command::Find(a) => find::find(a),
        Command::Serve(a) => serve::serve(a),
        Command::Push(a) => remote::push(a),
        Command::Diff(a) => git::diff(a),
        Command::Hash(a) => git::hash(a),
        Command::GitDiff(a) => gitdriver::git_diff(a),
        Command::GitTextconv(a) => gitdriver::git_textconv(a),
        Command::GitMerge(a) => gitdriver::git_merge(a),
        Command::Preset(p) => match p {
            PresetCommand::List { dir } => preset::list(dir.as_deref()),
            PresetCommand::Show { name, dir } => preset::show(&name, dir.as_deref()),
            PresetCommand::Validate { files, format } => preset::validate(&files, format),
            PresetCommand::Save(a) => preset::save(a),
            PresetCommand::Diff { a, b, dir } => preset::diff(&a, &b, dir.as_deref()),
        },
        Command::Qid {
            texts,
            md5,
            sequence,
            json,
        } => checkpoint::qid(texts, md5, sequence, json),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut cmd = Cli::command();
            clap_complete::generate(shell, &mut cmd, "kld", &mut std::io::stdout());
            Ok(OK)
        }
        Command::Man => {
            // kld's page, then one page per command (`kld-query(1)`, …) in
            // the same stream: man shows them one after the other.
            use clap::CommandFactory;
            let mut out = Vec::new();
            let mut cmd = Cli::command();
            cmd.build();
            clap_mangen::Man::new(cmd.clone()).render(&mut out)?;
            for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
                let name = format!("kld-{}", sub.get_name());
                let page = sub.clone().name(name.clone().leak() as &str).bin_name(name);
                clap_mangen::Man::new(page).render(&mut out)?;
            }
            outln!("{}", String::from_utf8_lossy(&out).trim_end());
            Ok(OK)
        }
    }
}

/// The flags that fix a typed library error (the library's messages name no
/// CLI flags; the CLI adds them here).
pub fn hint(e: &karenina_ld::Error) -> Option<&'static str> {
    match e {
        karenina_ld::Error::NoGraphStore => {
            Some("give --graph-store URL, or --server to derive it")
        }
        karenina_ld::Error::ManyGraphs { .. } => Some("--union merges them"),
        karenina_ld::Error::Timeout { .. } => Some("raise it with --timeout"),
        karenina_ld::Error::ResultTooLarge { .. } => Some("add LIMIT, or raise --max-result-bytes"),
        karenina_ld::Error::MemoryLimit { total: false, .. } => {
            Some("narrow the query, or raise --query-memory")
        }
        karenina_ld::Error::MemoryLimit { total: true, .. } => {
            Some("try again when fewer queries run, or raise --total-memory")
        }
        karenina_ld::Error::WrongFormat { .. } => Some("choose one with --format"),
        karenina_ld::Error::ServiceRefused { .. } => Some(
            "e.g. kld push --server oxigraph URL FILES, then kld query --server oxigraph URL: the query runs on that server",
        ),
        _ => None,
    }
}

/// `e` as the CLI prints it: the library's message and the flags that fix it.
pub fn explain(e: &karenina_ld::Error) -> String {
    match hint(e) {
        Some(h) => format!("{e} ({h})"),
        None => e.to_string(),
    }
}
