//! A typed table: what `pd.read_csv` / `pd.read_excel` return, column by
//! column, with each row's place in the file for messages.

use super::failure::Location;
use super::infer::Typed;

/// One named, typed column.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// The column's name as pandas names it (`Unnamed: 3` for an empty
    /// header cell, `Area.1` for a second `Area`).
    pub name: String,
    /// The cells and their date style.
    pub typed: Typed,
    /// The header cell was a number, boolean or date, not text: pandas
    /// names the column by that value, which Karenina's extractor, given a
    /// column's name as text, never finds. kld finds it by its text when
    /// no column of that text name exists.
    pub named_by_value: bool,
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
    /// The column named `name`: the column whose header is that text, as
    /// pandas finds it, else one whose header value prints as `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        let named = |c: &&Column| c.name == name;
        (self.columns.iter().filter(named))
            .find(|c| !c.named_by_value)
            .or_else(|| self.columns.iter().find(named))
    }

    /// The column names, in order.
    pub fn names(&self) -> Vec<String> {
        self.columns.iter().map(|c| c.name.clone()).collect()
    }
}

/// What Python's `==` (and so a dict key) sees of a header cell: pandas
/// keeps a workbook's header cells as the values they are, and `1`, `1.0`
/// and `True` are one name to it while the text `"1"` is another.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HeaderKey {
    /// Text (every header cell of a CSV or TSV).
    Text(String),
    /// A number or boolean, by its exact value (`True` is `1`).
    Number(String),
    /// A date, time or any other value, by its text and kind.
    Other(&'static str, String),
}

/// One header cell: its `str()` (the name kld shows and the flags select
/// by) and its [`HeaderKey`]. An empty text cell is unnamed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderCell {
    /// `str()` of the value.
    pub text: String,
    /// What Python compares.
    pub key: HeaderKey,
}

impl HeaderCell {
    /// A text cell.
    pub fn text(text: impl Into<String>) -> Self {
        let text = text.into();
        HeaderCell {
            key: HeaderKey::Text(text.clone()),
            text,
        }
    }
}

/// pandas' header names (`mangle_dupe_names`, which `read_csv` and
/// `read_excel` both apply): an empty cell is `Unnamed: <index>`; a
/// repeated name gets `.1`, `.2`… skipping any suffixed name the header
/// already holds (`x, x, x.1` → `x, x.2, x.1`), and the unnamed columns are
/// renamed after the named ones, so a named column keeps its name. Each
/// cell comes back as its column's name: a renamed one is text.
pub fn header_names(raw: Vec<HeaderCell>) -> Vec<HeaderCell> {
    use std::collections::HashMap;
    let mut unnamed = vec![false; raw.len()];
    let mut names: Vec<HeaderCell> = raw
        .into_iter()
        .enumerate()
        .map(|(i, c)| match &c.key {
            HeaderKey::Text(t) if t.is_empty() => {
                unnamed[i] = true;
                HeaderCell::text(format!("Unnamed: {i}"))
            }
            _ => c,
        })
        .collect();
    let order: Vec<usize> = (0..names.len())
        .filter(|&i| !unnamed[i])
        .chain((0..names.len()).filter(|&i| unnamed[i]))
        .collect();
    // How many of the current names hold each key: "is this name in the
    // header" in O(1) (it was a scan of the header for each candidate, so
    // 100,000 repeated names took 32 s).
    let mut present: HashMap<HeaderKey, usize> = HashMap::with_capacity(names.len());
    for n in &names {
        *present.entry(n.key.clone()).or_default() += 1;
    }
    let mut counts: HashMap<HeaderKey, usize> = HashMap::with_capacity(names.len());
    for i in order {
        let old = names[i].clone();
        let mut col = old.clone();
        let mut cur = counts.get(&col.key).copied().unwrap_or(0);
        while cur > 0 {
            counts.insert(old.key.clone(), cur + 1);
            col = HeaderCell::text(format!("{}.{cur}", old.text));
            if present.get(&col.key).is_some_and(|&n| n > 0) {
                cur += 1;
            } else {
                cur = counts.get(&col.key).copied().unwrap_or(0);
            }
        }
        counts.insert(col.key.clone(), cur + 1);
        if col.key != old.key {
            if let Some(n) = present.get_mut(&old.key) {
                *n -= 1;
            }
            *present.entry(col.key.clone()).or_default() += 1;
        }
        names[i] = col;
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pandas_header_names() {
        let h = |v: &[&str]| -> Vec<String> {
            let cells = v.iter().map(|s| HeaderCell::text(*s)).collect();
            header_names(cells).into_iter().map(|c| c.text).collect()
        };
        assert_eq!(h(&["A", "", "A", "A"]), ["A", "Unnamed: 1", "A.1", "A.2"]);
        assert_eq!(h(&["Q", "Answer"]), ["Q", "Answer"]);
        // pd.read_csv's names for these headers (pandas 3.1.1).
        assert_eq!(h(&["x", "x", "x.1"]), ["x", "x.2", "x.1"]);
        assert_eq!(h(&["x.1", "x", "x"]), ["x.1", "x", "x.2"]);
        assert_eq!(
            h(&["", "x", "Unnamed: 0", ""]),
            ["Unnamed: 0.1", "x", "Unnamed: 0", "Unnamed: 3"]
        );
        assert_eq!(
            h(&["x", "", "x", "Unnamed: 1"]),
            ["x", "Unnamed: 1.1", "x.1", "Unnamed: 1"]
        );
        assert_eq!(h(&["a", "a", "a.1", "a.1"]), ["a", "a.2", "a.1", "a.1.1"]);
    }

    /// The quadratic renaming of before, kept as the reference the linear
    /// one must equal.
    fn reference(raw: Vec<HeaderCell>) -> Vec<HeaderCell> {
        let mut unnamed = Vec::new();
        let mut names: Vec<HeaderCell> = raw
            .into_iter()
            .enumerate()
            .map(|(i, c)| match &c.key {
                HeaderKey::Text(t) if t.is_empty() => {
                    unnamed.push(i);
                    HeaderCell::text(format!("Unnamed: {i}"))
                }
                _ => c,
            })
            .collect();
        let order: Vec<usize> = (0..names.len())
            .filter(|i| !unnamed.contains(i))
            .chain(unnamed.iter().copied())
            .collect();
        let mut counts: std::collections::HashMap<HeaderKey, usize> = Default::default();
        for i in order {
            let old = names[i].clone();
            let mut col = old.clone();
            let mut cur = counts.get(&col.key).copied().unwrap_or(0);
            while cur > 0 {
                counts.insert(old.key.clone(), cur + 1);
                col = HeaderCell::text(format!("{}.{cur}", old.text));
                if names.iter().any(|n| n.key == col.key) {
                    cur += 1;
                } else {
                    cur = counts.get(&col.key).copied().unwrap_or(0);
                }
            }
            counts.insert(col.key.clone(), cur + 1);
            names[i] = col;
        }
        names
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// Headers drawn from a few names, their suffixed forms and empty
        /// cells: the linear renaming equals the quadratic one.
        #[test]
        fn linear_renaming_equals_the_reference(
            picks in proptest::collection::vec(0usize..12, 0..24)
        ) {
            const POOL: [&str; 12] = [
                "x", "x", "x.1", "x.2", "x.1.1", "", "", "Unnamed: 0", "Unnamed: 1",
                "Unnamed: 1.1", "y", "y.1",
            ];
            let cells: Vec<HeaderCell> = picks.iter().map(|&i| HeaderCell::text(POOL[i])).collect();
            proptest::prop_assert_eq!(header_names(cells.clone()), reference(cells));
        }
    }

    #[test]
    /// A million repeated names and a million empty cells (the quadratic
    /// renaming took about 55 minutes on the first; a benchmark, not this
    /// test, measures speed).
    fn a_million_repeated_names_are_renamed() {
        let names = header_names(vec![HeaderCell::text("x"); 1_000_000]);
        assert_eq!(names[999_999].text, "x.999999");
        let empty = header_names(vec![HeaderCell::text(""); 1_000_000]);
        assert_eq!(empty[999_999].text, "Unnamed: 999999");
    }
}
