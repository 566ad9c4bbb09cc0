//! Observations from a results export, run folder or database run: the
//! rows Karenina's template pass rate counts, read by the same streaming
//! readers `kld info` uses.

use super::{Observation, Observations};
use crate::results::{outcome, RowError, Visit};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

#[derive(Default)]
struct Interner {
    index: HashMap<String, u32>,
}

impl Interner {
    fn get(&mut self, names: &mut Vec<String>, name: String) -> u32 {
        if let Some(&i) = self.index.get(&name) {
            return i;
        }
        let i = names.len() as u32;
        self.index.insert(name.clone(), i);
        names.push(name);
        i
    }
}

#[derive(Default)]
struct Reading {
    obs: Observations,
    questions: Interner,
    models: Interner,
    judges: Interner,
    runs: HashMap<Option<String>, u32>,
}

/// A model's display string, as Karenina's combo key writes it.
fn model(row: &Value, side: &str) -> String {
    outcome::display_string(row, side)
}

impl Reading {
    fn add(&mut self, row: &Value) {
        let t = &row["template"];
        if t["template_verification_performed"] != Value::Bool(true) {
            self.obs.left_out += 1;
            return;
        }
        let meta = &row["metadata"];
        let o = &mut self.obs;
        let question = self.questions.get(
            &mut o.questions,
            meta["question_id"].as_str().unwrap_or("").to_string(),
        );
        let m = self.models.get(&mut o.models, model(row, "answering"));
        let judge = self.judges.get(&mut o.judges, model(row, "parsing"));
        let name = meta["run_name"].as_str().map(str::to_string);
        let run = match self.runs.get(&name) {
            Some(&r) => r,
            None => {
                let r = o.runs.len() as u32;
                o.runs.push(name.clone());
                self.runs.insert(name, r);
                r
            }
        };
        let verdict = match t["verify_result"].as_bool() {
            None if o.csv => Some(false),
            v => v,
        };
        o.rows.push(Observation {
            question,
            model: m,
            judge,
            replicate: meta["replicate"].as_i64(),
            run,
            verdict,
        });
    }
}

impl Visit for Reading {
    fn header(&mut self, h: &Value) {
        self.obs.csv = h["source_format"] == "csv";
    }

    fn row(&mut self, row: Value) -> Result<(), RowError> {
        self.add(&row);
        Ok(())
    }
}

/// The observations of a results export (JSON or CSV), run folder, or a
/// run of Karenina's results database (`DB#run=ID`, or `DB` when it holds
/// one run), read as `kld info` reads it.
pub fn observations(file: &Path) -> crate::error::Result<Observations> {
    if let Some((db, id)) = crate::kind::database_run(file) {
        return of_database(&db, Some(&id));
    }
    if file.is_file() && crate::sqlite::sniff_file(file) {
        return of_database(file, None);
    }
    let mut r = Reading::default();
    crate::results::read_path_unhashed(file, &mut r)?;
    Ok(r.obs)
}

/// The observations of run `id` of the database `file` (its only run when
/// `id` is `None`): runs are never pooled, so a database of several runs
/// must name one.
fn of_database(file: &Path, id: Option<&str>) -> crate::error::Result<Observations> {
    use crate::error::Error;
    let c = crate::sqlite::open(file)?;
    let runs = crate::sqlite::runs(file, &c)?;
    let run = match id {
        Some(id) => runs.iter().find(|r| r.id == id).ok_or_else(|| {
            Error::Usage(format!(
                "{}: no run {id} in this database (its runs: {})",
                file.display(),
                list(&runs)
            ))
        })?,
        None => match &runs[..] {
            [one] => one,
            [] => {
                return Err(Error::Usage(format!(
                    "{}: the database holds no verification run",
                    file.display()
                )))
            }
            _ => {
                return Err(Error::Usage(format!(
                    "{}: the database holds {} runs, and runs are never pooled: name one as {}{}ID (its runs: {})",
                    file.display(),
                    runs.len(),
                    file.display(),
                    crate::kind::DB_RUN,
                    list(&runs)
                )))
            }
        },
    };
    let mut r = Reading::default();
    crate::sqlite::read_run(file, &c, run, &mut |row| {
        r.add(&row);
        Ok(())
    })?;
    Ok(r.obs)
}

/// `id (name)` of each run.
fn list(runs: &[crate::sqlite::Run]) -> String {
    runs.iter()
        .map(|r| format!("{} ({})", r.id, r.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The observations of rows in the shape kld's readers hand on (a JSON
/// export's `results[]`).
pub fn observations_from_rows<'a>(rows: impl IntoIterator<Item = &'a Value>) -> Observations {
    let mut r = Reading::default();
    for row in rows {
        r.add(row);
    }
    r.obs
}
