//! `kld find`: ripgrep-style lines (or one JSON document) over
//! [`karenina_ld::find`]'s hits; exit 0 matched, 1 nothing matched, 2 error.

use super::{ReportFormat, INVALID, OK, USAGE};
use karenina_ld::find::{self, Field, Hit, Matcher, Options};
use karenina_ld::model::{self, ReadOptions};
use karenina_ld::terminal::escape_controls as esc;
use std::path::{Path, PathBuf};

/// `--field` values.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum FieldArg {
    /// Question texts.
    Question,
    /// Expected answers.
    Answer,
    /// Answer templates (Python source).
    Template,
    /// Rubric traits: names, descriptions, regex patterns, classes, instructions.
    Trait,
    /// Keywords, author, sources, custom properties; the benchmark's name, description, creator.
    Metadata,
}

impl From<FieldArg> for Field {
    fn from(f: FieldArg) -> Self {
        match f {
            FieldArg::Question => Field::Question,
            FieldArg::Answer => Field::Answer,
            FieldArg::Template => Field::Template,
            FieldArg::Trait => Field::Trait,
            FieldArg::Metadata => Field::Metadata,
        }
    }
}

/// Arguments of `kld find`.
#[derive(clap::Args, Debug)]
pub struct FindArgs {
    /// A regular expression (Rust regex syntax, as ripgrep's), or a literal string with -F.
    pub pattern: String,
    /// Checkpoint files or directories (default: the current directory); `-` is stdin.
    pub paths: Vec<PathBuf>,
    /// Treat the pattern as a literal string.
    #[arg(long, short = 'F')]
    pub fixed_strings: bool,
    /// Match letters of either case.
    #[arg(long, short = 'i')]
    pub ignore_case: bool,
    /// Search only these fields (repeat, or separate with commas).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub field: Vec<FieldArg>,
    /// Output format: `FILE:QUESTION-ID: FIELD: LINE` lines, or one JSON document.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ReportFormat,
    /// Colour the matches: auto (on a terminal), always, never.
    #[arg(long, default_value = "auto", value_parser = ["auto", "always", "never"])]
    pub color: String,
}

/// What the question-ID slot of a text line shows for the benchmark's own
/// metadata and global traits.
const BENCHMARK: &str = "(benchmark)";

pub fn find(a: FindArgs) -> anyhow::Result<u8> {
    let opts = Options {
        fixed: a.fixed_strings,
        ignore_case: a.ignore_case,
        fields: a.field.iter().map(|&f| f.into()).collect(),
    };
    let matcher = Matcher::new(&a.pattern, &opts)
        .map_err(|e| anyhow::anyhow!("{e}\n(-F takes the pattern as a literal string)"))?;
    let paths = if a.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        a.paths
    };
    let (files, refused) = super::checkpoint::checkpoint_files(&paths)?;
    let color = super::color_choice(&a.color);
    let mut failed = refused != OK;
    let (mut matched, mut json_hits, mut json_errors) = (false, Vec::new(), Vec::new());
    // Read and searched on all cores, printed in input order.
    let results: Vec<_> = {
        use rayon::prelude::*;
        files.par_iter().map(|f| search_file(f, &matcher)).collect()
    };
    for (file, result) in files.iter().zip(results) {
        let hits = match result {
            Ok(h) => h,
            Err(e) => {
                failed = true;
                if a.format == ReportFormat::Json {
                    json_errors.push(serde_json::json!({"file": file, "message": e.to_string()}));
                }
                super::report_failure(file, &e, "not searched");
                continue;
            }
        };
        matched |= !hits.is_empty();
        for h in hits {
            match a.format {
                ReportFormat::Text => outln!("{}", line(file, &h, color)),
                ReportFormat::Json => json_hits.push(hit_json(file, &h)),
            }
        }
    }
    if a.format == ReportFormat::Json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "matches": json_hits,
                "files": files.len(),
                "errors": json_errors,
            }))?
        );
    }
    // As grep and ripgrep: an error wins over a match.
    Ok(if failed {
        USAGE
    } else if matched {
        OK
    } else {
        INVALID
    })
}

fn search_file(file: &Path, matcher: &Matcher) -> karenina_ld::Result<Vec<Hit>> {
    let bytes = karenina_ld::fsutil::read_input(file)?;
    let cp = model::read_checkpoint(file, &bytes, ReadOptions::default())?;
    Ok(find::search(&cp, matcher))
}

/// `FILE:QUESTION-ID: FIELD: LINE`, the matches in bold red when `color`.
fn line(file: &Path, h: &Hit, color: bool) -> String {
    let mut text = String::new();
    let mut at = 0;
    for &(s, e) in &h.spans {
        text.push_str(&esc(&h.text[at..s]));
        if color {
            text.push_str(&format!("\x1b[1;31m{}\x1b[0m", esc(&h.text[s..e])));
        } else {
            text.push_str(&esc(&h.text[s..e]));
        }
        at = e;
    }
    text.push_str(&esc(&h.text[at..]));
    let (file, question) = (
        file.display().to_string(),
        h.question.as_deref().unwrap_or(BENCHMARK),
    );
    if color {
        format!(
            "\x1b[35m{}\x1b[0m:\x1b[32m{}\x1b[0m: {}: {text}",
            esc(&file),
            esc(question),
            esc(&h.label)
        )
    } else {
        format!(
            "{}:{}: {}: {text}",
            esc(&file),
            esc(question),
            esc(&h.label)
        )
    }
}

/// One hit in the JSON output (docs/usage.md, `kld find`).
fn hit_json(file: &Path, h: &Hit) -> serde_json::Value {
    serde_json::json!({
        "file": file,
        "question": h.question,
        "scenario": h.scenario.as_ref().map(|(name, node)| serde_json::json!({"name": name, "node": node})),
        "field": h.field.name(),
        "label": h.label,
        "path": h.path.to_string(),
        "line": h.line,
        "text": h.text,
        "spans": h.spans.iter().map(|&(s, e)| [s, e]).collect::<Vec<_>>(),
    })
}
