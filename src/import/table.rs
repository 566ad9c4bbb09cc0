//! A typed table: what `pd.read_csv` / `pd.read_excel` return, column by
//! column, with each row's place in the file for messages.

use super::error::Location;
use super::infer::Typed;

/// One named, typed column.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// The column's name as pandas names it (`Unnamed: 3` for an empty
    /// header cell, `Area.1` for a second `Area`).
    pub name: String,
    /// The cells and their date style.
    pub typed: Typed,
}

/// A table read from one input.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// The file (and sheet) it came from.
    pub at: Location,
    /// The columns, in file order.
    pub columns: Vec<Column>,
    /// Each data row's number in the file (CSV line, sheet row).
    pub rows: Vec<usize>,
}

impl Table {
    /// The column named `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The column names, in order.
    pub fn names(&self) -> Vec<String> {
        self.columns.iter().map(|c| c.name.clone()).collect()
    }
}

/// pandas' header names: an empty cell is `Unnamed: <index>`, a repeated
/// name gets `.1`, `.2`… (`mangle_dupe_cols`).
pub fn header_names(raw: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(raw.len());
    let mut counts: std::collections::HashMap<String, usize> = Default::default();
    for (i, name) in raw.into_iter().enumerate() {
        let name = if name.is_empty() {
            format!("Unnamed: {i}")
        } else {
            name
        };
        let mut cur = name.clone();
        if out.contains(&cur) {
            let mut n = counts.get(&name).copied().unwrap_or(1);
            loop {
                cur = format!("{name}.{n}");
                n += 1;
                if !out.contains(&cur) {
                    break;
                }
            }
            counts.insert(name, n);
        }
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pandas_header_names() {
        let h = |v: &[&str]| header_names(v.iter().map(|s| s.to_string()).collect());
        assert_eq!(h(&["A", "", "A", "A"]), ["A", "Unnamed: 1", "A.1", "A.2"]);
        assert_eq!(h(&["Q", "Answer"]), ["Q", "Answer"]);
    }
}
