//! How much an import may read before kld refuses it.
//!
//! Why: a kilobyte workbook can name cell `XFD1048576`, declare a billion
//! shared strings or hold a zip bomb, and the readers (calamine, pandas
//! alike) then build a dense grid or reserve memory sized by the attacker:
//! 550 GB for two cells. Every import is checked against these limits
//! *before* it allocates, and refused past one with a located message that
//! names the limit and the environment variable that raises it.

use super::failure::{ImportError, Location, Result};
pub(crate) use super::quota::{bounded, Limit};

use super::quota::{BYTES, CELLS, COLUMNS, ROWS, STRINGS};

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
