//! `kld find`: ripgrep-style lines (or one JSON document) over
//! [`karenina_ld::search`]'s hits; exit 0 matched, 1 nothing matched, 2 error.

use super::{ReportFormat, INVALID, OK, USAGE};
use karenina_ld::model::{self, ReadOptions};
use karenina_ld::search::{self, Field, Hit, Matcher, Options};
use karenina_ld::terminal::escape_controls as esc;
use std::io::Write;
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
    let json = a.format == ReportFormat::Json;
    let mut failed = refused != OK;
    let (mut matched, mut json_errors) = (false, Vec::new());
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut doc = json.then(JsonDoc::default);
    if let Some(d) = &mut doc {
        d.open(&mut out)?;
    }
    // Read and parsed on all cores a batch at a time, searched and printed
    // in input order as the hits come: memory holds one batch of
    // checkpoints, never the hits of them all.
    let batch = 4 * rayon::current_num_threads().max(1);
    for chunk in files.chunks(batch) {
        let parsed: Vec<_> = {
            use rayon::prelude::*;
            chunk.par_iter().map(|f| read_file(f)).collect()
        };
        for (file, result) in chunk.iter().zip(parsed) {
            let cp = match result {
                Ok(cp) => cp,
                Err(e) => {
                    failed = true;
                    if json {
                        json_errors
                            .push(serde_json::json!({"file": file, "message": e.to_string()}));
                    }
                    out.flush()?;
                    super::report_failure(file, &e, "not searched");
                    continue;
                }
            };
            let mut written: std::io::Result<()> = Ok(());
            search::search_each(&cp, &matcher, &mut |h| {
                matched = true;
                if written.is_err() {
                    return;
                }
                written = match &mut doc {
                    Some(d) => d.hit(&mut out, file, &h),
                    None => writeln!(out, "{}", line(file, &h, color)),
                };
            });
            written?;
        }
    }
    if let Some(d) = &doc {
        d.close(&mut out, files.len(), &json_errors)?;
    }
    out.flush()?;
    // As grep and ripgrep: an error wins over a match.
    Ok(if failed {
        USAGE
    } else if matched {
        OK
    } else {
        INVALID
    })
}

fn read_file(file: &Path) -> karenina_ld::Result<model::Checkpoint> {
    let bytes = karenina_ld::fsutil::read_input(file)?;
    model::read_checkpoint(file, &bytes, ReadOptions::default())
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

/// The JSON document (docs/usage.md, `kld find`), written as the hits
/// come, byte for byte what `serde_json::to_string_pretty` writes of the
/// whole: `{"matches": [...], "files": N, "errors": [...]}`.
#[derive(Default)]
struct JsonDoc {
    hits: usize,
}

impl JsonDoc {
    fn open(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        out.write_all(b"{\n  \"matches\": [")
    }

    fn hit(&mut self, out: &mut impl Write, file: &Path, h: &Hit) -> std::io::Result<()> {
        out.write_all(if self.hits == 0 {
            b"\n    "
        } else {
            b",\n    "
        })?;
        self.hits += 1;
        let mut indented = Indent { out, by: b"    " };
        let mut ser = serde_json::Serializer::with_formatter(
            &mut indented,
            serde_json::ser::PrettyFormatter::new(),
        );
        serde::Serialize::serialize(&HitJson::new(file, h), &mut ser).map_err(std::io::Error::from)
    }

    fn close(
        &self,
        out: &mut impl Write,
        files: usize,
        errors: &[serde_json::Value],
    ) -> std::io::Result<()> {
        if self.hits > 0 {
            out.write_all(b"\n  ")?;
        }
        write!(out, "],\n  \"files\": {files},\n  \"errors\": ")?;
        let mut indented = Indent { out, by: b"  " };
        serde_json::to_writer_pretty(&mut indented, errors)?;
        out.write_all(b"\n}\n")
    }
}

/// A writer that indents every line after the first by `by` (pretty JSON
/// nested in a document written by hand; strings never hold a raw newline).
struct Indent<'a, W: Write> {
    out: &'a mut W,
    by: &'static [u8],
}

impl<W: Write> Write for Indent<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut rest = buf;
        while let Some(i) = rest.iter().position(|&b| b == b'\n') {
            self.out.write_all(&rest[..=i])?;
            self.out.write_all(self.by)?;
            rest = &rest[i + 1..];
        }
        self.out.write_all(rest)?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// One hit in the JSON output (docs/usage.md, `kld find`), serialized
/// straight from the hit (no copy of its text or spans).
#[derive(serde::Serialize)]
struct HitJson<'a> {
    file: &'a Path,
    question: Option<&'a str>,
    scenario: Option<ScenarioJson<'a>>,
    field: &'static str,
    label: &'a str,
    path: String,
    line: usize,
    text: &'a str,
    spans: &'a [(usize, usize)],
}

#[derive(serde::Serialize)]
struct ScenarioJson<'a> {
    name: &'a str,
    node: &'a str,
}

impl<'a> HitJson<'a> {
    fn new(file: &'a Path, h: &'a Hit) -> Self {
        HitJson {
            file,
            question: h.question.as_deref(),
            scenario: h
                .scenario
                .as_ref()
                .map(|(name, node)| ScenarioJson { name, node }),
            field: h.field.name(),
            label: &h.label,
            path: h.path.to_string(),
            line: h.line,
            text: &h.text,
            spans: &h.spans,
        }
    }
}
