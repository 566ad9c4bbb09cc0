//! The GUI's CSV exports (karenina-gui `main`, `src/utils/export.ts`,
//! `exportToCSV`): the plain one has every column, the custom one only those
//! the user ticked, in the GUI's column order.
//!
//! Why a reader of its own: the GUI writes format 2.0 cells (flat
//! `provider/model` strings, `completed_without_errors` — `abstained` when
//! the abstention check overrode the result —, `verify_result` as
//! `JSON.stringify` or `N/A`), no `success` column, records joined by `\n`
//! with no final line break. Karenina's CSV reader ([`super::csv`]) refuses
//! it. Each record becomes a row in the JSON shape with the fields its
//! columns hold (the cells themselves kept in `karenina:rest`), and
//! [`super::lacks`] names what the numbers need and the columns lack.

use super::{located, Visit};
use crate::error::Result;
use serde_json::{Map, Value};
use std::io::Read;
use std::path::Path;

/// The columns the GUI writes (`allHeaders`, less its `rubric_<trait>`
/// columns), in its order.
pub const GUI_COLUMNS: &[&str] = &[
    "row_index",
    "question_id",
    "question_text",
    "raw_answer",
    "raw_llm_response",
    "parsed_gt_answer",
    "parsed_llm_answer",
    "template_verification_performed",
    "verify_result",
    "verify_granular_result",
    "rubric_evaluation_performed",
    "question_specific_rubrics",
    "rubric_summary",
    "answering_model",
    "parsing_model",
    "answering_replicate",
    "parsing_replicate",
    "answering_system_prompt",
    "parsing_system_prompt",
    "answering_mcp_servers",
    "completed_without_errors",
    "error",
    "execution_time",
    "timestamp",
    "run_name",
    "job_id",
];

/// True when the header line `first` is the GUI's: every column one it
/// writes (or a `rubric_<trait>` column) and one Karenina's own CSVs never
/// write (`completed_without_errors`, `raw_answer`, `answering_replicate`,
/// …) among them, or no `success` column at all.
pub fn sniff(first: &str) -> bool {
    let cols: Vec<&str> = first.trim_end_matches('\r').split(',').collect();
    let known = |c: &str| GUI_COLUMNS.contains(&c) || c.starts_with("rubric_");
    !cols.is_empty()
        && cols
            .iter()
            .all(|c| known(c) || c.starts_with("deep_judgment") || GUI_MORE.contains(c))
        && cols.iter().any(|c| GUI_COLUMNS.contains(c))
        && !cols.contains(&"success")
}

/// GUI columns after `job_id` that the reader keeps only as cells.
const GUI_MORE: &[&str] = &[
    "embedding_check_performed",
    "embedding_similarity_score",
    "embedding_override_applied",
    "embedding_model_used",
    "abstention_check_performed",
    "abstention_detected",
    "abstention_override_applied",
    "abstention_reasoning",
    "extracted_excerpts",
    "attribute_reasoning",
    "attributes_without_excerpts",
    "hallucination_risk_assessment",
    "rubric_trait_reasoning",
    "extracted_rubric_excerpts",
    "trait_metadata",
    "traits_without_valid_excerpts",
    "total_deep_judgment_model_calls",
    "total_traits_evaluated",
    "total_excerpt_retries",
    "metric_trait_confusion_lists",
    "metric_trait_metrics",
    "usage_metadata",
    "agent_metrics",
];

/// A `true`/`false` cell (`String(bool)`); anything else is no value.
fn boolean(s: &str) -> Option<Value> {
    match s {
        "true" => Some(Value::Bool(true)),
        "false" => Some(Value::Bool(false)),
        _ => None,
    }
}

/// The row in the JSON shape, with the fields the record's columns hold.
fn row_of(names: &[String], record: &::csv::StringRecord) -> Value {
    let mut meta = Map::new();
    let mut template = Map::new();
    let mut cells = Map::new();
    for (name, cell) in names.iter().zip(record.iter()) {
        cells.insert(name.clone(), Value::String(cell.to_string()));
        match name.as_str() {
            "question_id" | "question_text" | "timestamp" => {
                meta.insert(name.clone(), Value::String(cell.to_string()));
            }
            "answering_model" | "parsing_model" | "run_name" if !cell.is_empty() => {
                meta.insert(name.clone(), Value::String(cell.to_string()));
            }
            "answering_replicate" => {
                if let Ok(n) = cell.parse::<i64>() {
                    meta.insert("replicate".into(), n.into());
                }
            }
            "execution_time" => {
                if let Some(n) = cell
                    .parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                {
                    meta.insert(name.clone(), Value::Number(n));
                }
            }
            "template_verification_performed" => {
                if let Some(b) = boolean(cell) {
                    template.insert(name.clone(), b);
                }
            }
            // `JSON.stringify(verify_result)`, or `N/A` when there is none.
            "verify_result" => match cell {
                "N/A" => {}
                "null" => {
                    template.insert(name.clone(), Value::Null);
                }
                _ => {
                    if let Some(b) = boolean(cell) {
                        template.insert(name.clone(), b);
                    }
                }
            },
            _ => {}
        }
    }
    let mut row = Map::new();
    if !meta.is_empty() {
        row.insert("metadata".into(), Value::Object(meta));
    }
    if !template.is_empty() {
        row.insert("template".into(), Value::Object(template));
    }
    row.insert(super::csv_export::RAW_CELLS.into(), Value::Object(cells));
    Value::Object(row)
}

/// Reads a GUI CSV export, record by record.
pub(super) fn read(file: &Path, r: &mut dyn Read, visit: &mut dyn Visit) -> Result<()> {
    let mut rdr = ::csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(r);
    let names: Vec<String> = rdr
        .headers()
        .map_err(|e| located(file, 1, 1, "", e))?
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}').to_string())
        .collect();
    visit.header(&serde_json::json!({
        "source_format": "gui-csv",
        "metadata": {},
        "columns": names,
    }));
    let mut record = ::csv::StringRecord::new();
    let mut index = 0usize;
    loop {
        match rdr.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line() as usize);
                return Err(located(file, line, 1, &format!("/rows/{index}"), e));
            }
        }
        let line = record.position().map_or(0, |p| p.line() as usize);
        let path = format!("/rows/{index}");
        visit
            .row_at(&path, row_of(&names, &record))
            .map_err(|m| located(file, line, 1, &path, m))?;
        index += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gui_s_header_is_told_from_karenina_s() {
        assert!(sniff(
            "row_index,question_id,question_text,raw_answer,raw_llm_response"
        ));
        assert!(sniff("question_id,verify_result,answering_model"));
        assert!(!sniff("question_id,success,failure_category"));
        assert!(!sniff("name,config"));
        assert!(!sniff("{\"format_version\": \"2.2\""));
    }

    #[test]
    fn cells_become_the_fields_karenina_s_legacy_rows_have() {
        let names: Vec<String> = [
            "question_id",
            "verify_result",
            "answering_model",
            "template_verification_performed",
        ]
        .map(String::from)
        .to_vec();
        let rec = ::csv::StringRecord::from(vec!["q", "N/A", "openai/gpt", "true"]);
        let row = row_of(&names, &rec);
        assert_eq!(row["metadata"]["answering_model"], "openai/gpt");
        assert!(row["template"].get("verify_result").is_none());
        assert_eq!(row["template"]["template_verification_performed"], true);
        let rec = ::csv::StringRecord::from(vec!["q", "false", "", "false"]);
        assert_eq!(row_of(&names, &rec)["template"]["verify_result"], false);
    }
}
