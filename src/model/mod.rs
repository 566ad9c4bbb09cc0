//! The typed checkpoint: parsing with locations, Karenina's load rules, legacy
//! normalization, lints and question IDs.
//!
//! [`analyze`] is the one entry point: bytes in, a checkpoint (when it loads) and
//! every located diagnostic out. It does not touch JSON-LD or any store.

mod lax;
mod lint;
pub(crate) mod markers;
mod model_config;
pub mod placeholder;
pub mod qid;
mod read;
mod traits;
mod types;

pub use types::*;

use crate::context::{self, ContextKind};
use crate::error::{self, Diagnostic, Report};
use crate::json::{self, Json, JsonPath};
use std::path::Path;

/// How to read a file.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// Convert formats Karenina no longer loads (2025-08 `Dataset`) and legacy
    /// encodings (JSON-string metric arrays) into the current form.
    pub upgrade: bool,
}

/// The outcome of reading one file.
#[derive(Debug)]
pub struct Analysis {
    /// The checkpoint, when it has no errors.
    pub checkpoint: Option<Checkpoint>,
    /// Located diagnostics, errors and warnings.
    pub report: Report,
}

/// A short rendering of a JSON value for messages.
pub(crate) fn show(v: &Json) -> String {
    let s = match v {
        Json::String(s) => format!("{s:?}"),
        Json::Number(n) => n.to_string(),
        Json::Bool(b) => b.to_string(),
        Json::Null => "null".into(),
        Json::Array(_) => "an array".into(),
        Json::Object(_) => "an object".into(),
    };
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s
    }
}

/// Warnings that say a later step of Karenina raises (reading the global,
/// dynamic or a question's merged rubric): the rest say Karenina mishandles
/// something silently, or that kld changed something.
pub const RAISES_LATER: [&str; 5] = ["KLD-W016", "KLD-W017", "KLD-W018", "KLD-W019", "KLD-W031"];

/// Whether Karenina refuses what `d` reports: an error (`Benchmark.load`
/// fails) or a warning that reading a rubric raises ([`RAISES_LATER`]).
pub fn karenina_refuses(d: &Diagnostic) -> bool {
    d.is_error() || RAISES_LATER.contains(&d.code)
}

/// Parses, reads, normalizes and lints `bytes` (the contents of `file`).
pub fn analyze(file: &Path, bytes: &[u8], opts: ReadOptions) -> Analysis {
    let mut diags = Vec::new();
    let checkpoint = match json::parse(bytes) {
        Err(f) => {
            let text = String::from_utf8_lossy(bytes);
            // Conflict markers say more than the JSON error they cause.
            match markers::diagnostics(&text) {
                Some(found) => diags.extend(found),
                None => diags.push(Diagnostic::from_parse_failure(f, &text)),
            }
            None
        }
        Ok(mut v) => {
            if opts.upgrade {
                upgrade_json(&mut v, &mut diags);
            }
            let mut cx = read::Cx::new();
            let cp = read::read_checkpoint(v, &mut cx);
            diags.append(&mut cx.diags);
            cp.and_then(|mut cp| {
                normalize(&mut cp, opts, &mut diags);
                let lints = lint::lint(&cp);
                // A trait Karenina's models refuse at load (KLD-E022) stops the load here too.
                let refused = lints.iter().any(Diagnostic::is_error);
                diags.extend(lints);
                (!refused).then_some(cp)
            })
        }
    };
    Analysis {
        checkpoint,
        report: error::report(file, bytes, diags),
    }
}

/// Reads a checkpoint from bytes, failing on errors (warnings are dropped).
pub fn read_checkpoint(file: &Path, bytes: &[u8], opts: ReadOptions) -> error::Result<Checkpoint> {
    let a = analyze(file, bytes, opts);
    match a.checkpoint {
        Some(cp) if !a.report.has_errors() => Ok(cp),
        _ => Err(error::Error::Invalid(Box::new(a.report))),
    }
}

/// The 2025-08 `Dataset` form → the current `DataFeed` form (JSON level).
fn upgrade_json(v: &mut Json, diags: &mut Vec<Diagnostic>) {
    let Json::Object(root) = v else { return };
    let is_dataset = matches!(root.get("@type"), Some(Json::String(t)) if t == "Dataset");
    if !is_dataset {
        return;
    }
    for (k, val) in root.0.iter_mut() {
        match k.as_str() {
            "@type" => *val = Json::String("DataFeed".into()),
            "hasPart" => *k = "dataFeedElement".into(),
            "additionalProperty" => {
                if let Json::Array(ps) = val {
                    for p in ps.iter_mut().filter_map(|p| match p {
                        Json::Object(o) => Some(o),
                        _ => None,
                    }) {
                        for (pk, pv) in p.0.iter_mut() {
                            if pk == "name" && pv.as_str() == Some("checkpoint_format_version") {
                                *pv = Json::String("benchmark_format_version".into());
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    diags.push(Diagnostic::warning(
        "KLD-W030",
        JsonPath::root().key("@type"),
        "upgraded from the 2025-08 `Dataset` format: `@type` → DataFeed, `hasPart` → `dataFeedElement`, `checkpoint_format_version` → `benchmark_format_version`",
    ));
}

/// What Karenina's load+save changes in a file it loads: legacy context, keyword
/// location; `--upgrade` also stores JSON-string metric arrays natively.
fn normalize(cp: &mut Checkpoint, opts: ReadOptions, diags: &mut Vec<Diagnostic>) {
    match context::classify(&cp.context) {
        ContextKind::Canonical => {}
        kind => {
            let what = match kind {
                ContextKind::Legacy(n) => format!("the legacy `{n}` context"),
                _ => "an unrecognised context".to_string(),
            };
            diags.push(Diagnostic::warning(
                "KLD-W002",
                JsonPath::root().key("@context"),
                format!("{what}: Karenina ignores it and writes its canonical context (https://schema.org/ vocabulary, `rating` → `contentRating`); so does canon"),
            ));
        }
    }
    let remote = context::remote_references(&cp.context);
    if !remote.is_empty() {
        diags.push(Diagnostic::warning(
            "KLD-W029",
            JsonPath::root().key("@context"),
            format!(
                "the @context references {}: never fetched (Karenina ignores the context; the lossless reading uses the canonical one, and the plain reading refuses it)",
                remote.join(", ")
            ),
        ));
    }
    for (i, item) in cp.items.iter_mut().enumerate() {
        let Some(kw) = item.keywords.take() else {
            continue;
        };
        let path = JsonPath::root()
            .key("dataFeedElement")
            .index(i)
            .key("keywords");
        let q = &mut item.question;
        if q.keywords.as_ref().is_none_or(|k| k.is_empty()) {
            if !kw.is_empty() {
                q.keywords = Some(kw);
            }
            diags.push(Diagnostic::warning(
                "KLD-W004",
                path,
                "keywords on the DataFeedItem (2025-09 … 2026-03 location): Karenina moves them to the Question on save; so does canon",
            ));
        } else if !kw.is_empty() {
            diags.push(Diagnostic::warning(
                "KLD-W005",
                path,
                "keywords on both the DataFeedItem and the Question: Karenina reads the Question's and drops these on save; so does canon",
            ));
        }
    }
    if opts.upgrade {
        let ratings = cp.rating.iter_mut().flatten().chain(
            cp.items
                .iter_mut()
                .flat_map(|i| i.question.rating.iter_mut().flatten()),
        );
        for r in ratings {
            for p in r.additional_property.iter_mut().flatten() {
                let listy = matches!(
                    p.name.as_str(),
                    "metrics" | "tp_instructions" | "tn_instructions"
                ) && r.kind.class == TraitClass::Metric;
                let classy = p.name == "classes";
                if !(listy || classy) {
                    continue;
                }
                if let Some(Json::String(s)) = &p.value {
                    if let Ok(v @ (Json::Array(_) | Json::Object(_))) = json::parse(s.as_bytes()) {
                        p.value = Some(v);
                    }
                }
            }
        }
    }
}

/// Reads a file from disk and analyzes it.
pub fn analyze_file(path: &Path, opts: ReadOptions) -> error::Result<Analysis> {
    let bytes = crate::fsutil::read_input(path)?;
    Ok(analyze(path, &bytes, opts))
}
