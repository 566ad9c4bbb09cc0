//! Argument definitions and dispatch.

mod checkpoint;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Exit status: everything fine.
pub const OK: u8 = 0;
/// Exit status: some input is invalid, or a check failed.
pub const INVALID: u8 = 1;
/// Exit status: usage or I/O error.
pub const USAGE: u8 = 2;

/// karenina-ld: validate, canonicalize and query Karenina benchmark checkpoints.
#[derive(Parser, Debug)]
#[command(name = "kld", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Output format for machine-readable commands.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum ReportFormat {
    /// Human-readable lines.
    Text,
    /// One JSON document on stdout.
    Json,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check checkpoints against Karenina's load rules and lint what it mishandles.
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
    Canon {
        /// Checkpoint files or directories.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Do not write; print a diff and exit 1 when a file is not canonical.
        #[arg(long, conflicts_with_all = ["in_place", "output"])]
        check: bool,
        /// Rewrite each file in place (atomically).
        #[arg(long, short = 'i', conflicts_with = "output")]
        in_place: bool,
        /// Output file (one input) or directory (several inputs).
        #[arg(long, short = 'o')]
        output: Option<PathBuf>,
        /// Convert the 2025-08 `Dataset` format and JSON-string metric arrays.
        #[arg(long)]
        upgrade: bool,
        /// Drop deep-judgment settings from LLM traits, as Karenina's save() does by default.
        #[arg(long)]
        strip_deep_judgment: bool,
        /// Drop members Karenina does not know, as Karenina does (kept by default).
        #[arg(long)]
        drop_unknown: bool,
        /// Set dateModified to now (local time, Karenina's format).
        #[arg(long)]
        touch: bool,
        /// Do not print warnings.
        #[arg(long, short = 'q')]
        quiet: bool,
    },
    /// Summarize a checkpoint: questions, templates, traits by kind and scope, keywords.
    Info {
        /// Checkpoint file.
        input: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: ReportFormat,
    },
    /// Print the Karenina question ID of each text, one per line.
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

/// Runs a parsed command line; returns the exit status.
pub fn run(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Validate {
            inputs,
            format,
            deny_warnings,
            upgrade,
        } => checkpoint::validate(&inputs, format, deny_warnings, upgrade),
        Command::Canon {
            inputs,
            check,
            in_place,
            output,
            upgrade,
            strip_deep_judgment,
            drop_unknown,
            touch,
            quiet,
        } => checkpoint::canon(checkpoint::CanonArgs {
            inputs,
            check,
            in_place,
            output,
            upgrade,
            strip_deep_judgment,
            drop_unknown,
            touch,
            quiet,
        }),
        Command::Info { input, format } => checkpoint::info(&input, format),
        Command::Qid {
            texts,
            md5,
            sequence,
            json,
        } => checkpoint::qid(texts, md5, sequence, json),
    }
}
