//! The table as CSV (the `csv` crate): the Parquet file's columns, in its
//! order, one line per verification result, for spreadsheet and notebook
//! users. A null is an empty cell; booleans are `true` / `false`; floats
//! are written in their shortest exact form.

use super::Table;
use crate::error::{Error, Result};
use arrow_array::{Array, BooleanArray, Float64Array, Int64Array, StringArray};
use std::path::Path;

/// The table as CSV bytes.
pub(crate) fn to_bytes(t: &Table) -> Result<Vec<u8>> {
    let batch = super::parquet::to_batch(t)?;
    let err = |e: csv::Error| Error::Internal(format!("the results table as CSV: {e}"));
    let mut w = csv::Writer::from_writer(Vec::new());
    let schema = batch.schema();
    w.write_record(schema.fields().iter().map(|f| f.name().as_str()))
        .map_err(err)?;
    let mut cells: Vec<String> = Vec::with_capacity(batch.num_columns());
    for i in 0..batch.num_rows() {
        cells.clear();
        for c in batch.columns() {
            let any = c.as_any();
            let cell = if c.is_null(i) {
                String::new()
            } else if let Some(a) = any.downcast_ref::<StringArray>() {
                a.value(i).to_string()
            } else if let Some(a) = any.downcast_ref::<Int64Array>() {
                a.value(i).to_string()
            } else if let Some(a) = any.downcast_ref::<Float64Array>() {
                a.value(i).to_string()
            } else if let Some(a) = any.downcast_ref::<BooleanArray>() {
                a.value(i).to_string()
            } else {
                return Err(Error::Internal(format!(
                    "the results table as CSV: a column of type {}",
                    c.data_type()
                )));
            };
            cells.push(cell);
        }
        w.write_record(&cells).map_err(err)?;
    }
    w.into_inner()
        .map_err(|e| Error::Internal(format!("the results table as CSV: {e}")))
}

/// Writes the table to `path` as CSV (atomically).
pub fn write(t: &Table, path: &Path) -> Result<()> {
    crate::fsutil::write_atomic(path, &to_bytes(t)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Builder;
    use serde_json::json;

    #[test]
    fn one_line_per_result_with_the_parquet_columns() {
        let mut t = Table::default();
        let mut b = Builder::new(&mut t, "urn:g");
        for q in ["q1", "q,2"] {
            b.add(&json!({
                "metadata": {"question_id": q, "failure": null, "execution_time": 0.1,
                    "answering": {"interface": "langchain", "model_name": "a", "tools": [], "config_id": null},
                    "parsing": {"interface": "langchain", "model_name": "p", "tools": [], "config_id": null}},
                "template": {"template_verification_performed": true, "verify_result": false},
            }));
        }
        let text = String::from_utf8(to_bytes(&t).unwrap()).unwrap();
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let head = r.headers().unwrap().clone();
        let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 2);
        let col = |name: &str| head.iter().position(|h| h == name).unwrap();
        assert_eq!(&rows[1][col("question_id")], "q,2");
        assert_eq!(&rows[0][col("verify_result")], "false");
        assert_eq!(&rows[0][col("execution_time")], "0.1");
        assert_eq!(&rows[0][col("replicate")], "");
        assert_eq!(&rows[0][col("combo")], "langchain:a | langchain:p");
    }
}
