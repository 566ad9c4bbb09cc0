//! How much an import may read before kld refuses it.
//!
//! Why: a kilobyte workbook can name cell `XFD1048576`, declare a billion
//! shared strings or hold a zip bomb, and the readers (calamine, pandas
//! alike) then build a dense grid or reserve memory sized by the attacker:
//! 550 GB for two cells. Every import is checked against these limits
//! *before* it allocates, and refused past one with a located message that
//! names the limit and the environment variable that raises it.

use super::failure::{ImportError, Location, Result};

/// The limits of one import. [`Limits::default`] holds the built-in values;
/// [`Limits::from_env`] lets `KLD_IMPORT_MAX_*` raise (or lower) them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of an input file, and of each decompressed part of a workbook
    /// (a sheet's XML, its shared strings).
    pub bytes: u64,
    /// Cells of a table: rows × columns of the grid a sheet or CSV makes
    /// (pandas' DataFrame), and non-empty cells read from a workbook.
    pub cells: u64,
    /// Rows of a table (Excel's own limit by default).
    pub rows: u64,
    /// Columns of a table, the header's length (Excel's own by default).
    pub columns: u64,
    /// Strings in a workbook's shared-string table (declared or present).
    pub strings: u64,
}

/// One limit's description: its environment variable and what it counts.
struct Spec {
    var: &'static str,
    what: &'static str,
}

const BYTES: Spec = Spec {
    var: "KLD_IMPORT_MAX_BYTES",
    what: "bytes",
};
const CELLS: Spec = Spec {
    var: "KLD_IMPORT_MAX_CELLS",
    what: "cells",
};
const ROWS: Spec = Spec {
    var: "KLD_IMPORT_MAX_ROWS",
    what: "rows",
};
const COLUMNS: Spec = Spec {
    var: "KLD_IMPORT_MAX_COLUMNS",
    what: "columns",
};
const STRINGS: Spec = Spec {
    var: "KLD_IMPORT_MAX_STRINGS",
    what: "shared strings",
};

/// Excel's last row (`1048576`) and column (`XFD`, 16384): a cell
/// reference past them is not a cell any spreadsheet can hold.
pub const EXCEL_ROWS: u64 = 1_048_576;
/// See [`EXCEL_ROWS`].
pub const EXCEL_COLUMNS: u64 = 16_384;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            bytes: 64 << 20,
            cells: 2_000_000,
            rows: EXCEL_ROWS,
            columns: EXCEL_COLUMNS,
            strings: 2_000_000,
        }
    }
}

/// The limit of `name` whose value is past it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// [`Limits::bytes`].
    Bytes,
    /// [`Limits::cells`].
    Cells,
    /// [`Limits::rows`].
    Rows,
    /// [`Limits::columns`].
    Columns,
    /// [`Limits::strings`].
    Strings,
}

impl Limit {
    fn spec(self) -> Spec {
        match self {
            Limit::Bytes => BYTES,
            Limit::Cells => CELLS,
            Limit::Rows => ROWS,
            Limit::Columns => COLUMNS,
            Limit::Strings => STRINGS,
        }
    }

    /// The environment variable that sets it.
    pub fn var(self) -> &'static str {
        self.spec().var
    }
}

impl Limits {
    /// The built-in limits, each replaced by its `KLD_IMPORT_MAX_*`
    /// variable when set; a value that is not a positive whole number is a
    /// usage error naming the variable.
    pub fn from_env() -> Result<Self> {
        Self::from_lookup(|v| std::env::var(v).ok())
    }

    /// [`Limits::from_env`] over any lookup (tests).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self> {
        let mut l = Limits::default();
        for (spec, slot) in [
            (BYTES, &mut l.bytes),
            (CELLS, &mut l.cells),
            (ROWS, &mut l.rows),
            (COLUMNS, &mut l.columns),
            (STRINGS, &mut l.strings),
        ] {
            if let Some(v) = get(spec.var) {
                *slot = match v.trim().replace('_', "").parse::<u64>() {
                    Ok(n) if n > 0 => n,
                    _ => {
                        return Err(ImportError::Usage(format!(
                            "{}={v:?}: give a positive whole number of {}",
                            spec.var, spec.what
                        )))
                    }
                };
            }
        }
        Ok(l)
    }

    fn value(&self, limit: Limit) -> u64 {
        match limit {
            Limit::Bytes => self.bytes,
            Limit::Cells => self.cells,
            Limit::Rows => self.rows,
            Limit::Columns => self.columns,
            Limit::Strings => self.strings,
        }
    }

    /// `Ok` when `n` is within `limit`; otherwise the refusal at `at`,
    /// saying what holds `n` (`what`, e.g. "the grid A1:Z1000000").
    pub fn check(&self, at: &Location, limit: Limit, n: u64, what: &str) -> Result<()> {
        let max = self.value(limit);
        if n <= max {
            return Ok(());
        }
        Err(ImportError::TooLarge {
            at: at.clone().into(),
            what: bounded(what, 200),
            n,
            max,
            limit,
        })
    }
}

/// `s` cut to at most `max` characters (an ellipsis and the count of what
/// was cut after), so that no message quotes a whole file.
pub fn bounded(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((i, _)) => {
            let rest = s[i..].chars().count();
            format!("{}… ({rest} more characters)", &s[..i])
        }
    }
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.spec().what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_values_replace_the_defaults_and_bad_ones_are_refused() {
        let l = Limits::from_lookup(|v| (v == "KLD_IMPORT_MAX_CELLS").then(|| "10_000".into()))
            .unwrap();
        assert_eq!(l.cells, 10_000);
        assert_eq!(l.rows, EXCEL_ROWS);
        for bad in ["0", "-1", "many", "1e9"] {
            let e = Limits::from_lookup(|v| (v == "KLD_IMPORT_MAX_ROWS").then(|| bad.into()))
                .unwrap_err()
                .to_string();
            assert!(e.contains("KLD_IMPORT_MAX_ROWS"), "{e}");
        }
    }

    #[test]
    fn a_refusal_names_the_limit_and_how_to_raise_it() {
        let at = Location::file("q.xlsx");
        let e = Limits::default()
            .check(&at, Limit::Cells, 26_000_000, "the grid A1:Z1000000")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("q.xlsx: "), "{e}");
        assert!(e.contains("26000000 cells"), "{e}");
        assert!(e.contains("KLD_IMPORT_MAX_CELLS"), "{e}");
        assert!(Limits::default().check(&at, Limit::Cells, 5, "x").is_ok());
    }

    #[test]
    fn bounded_cuts_long_text() {
        assert_eq!(bounded("abc", 3), "abc");
        assert_eq!(bounded("abcdé", 2), "ab… (3 more characters)");
    }
}
