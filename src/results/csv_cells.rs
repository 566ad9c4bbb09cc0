//! A CSV export's typed cells, read as Karenina's own CSV reader reads them.
//!
//! Why: a CSV cell is text, and Karenina's reader
//! (`ResultsIOManager._process_csv_row` in
//! `src/karenina/benchmark/core/results_io.py`) types it with Python's
//! `int()` (`replicate`), `float()` (`execution_time`,
//! `embedding_similarity_score`) and `json.loads` then its pydantic model
//! (`verify_result`: `"1"` is true, `2` is refused). kld types each cell the
//! same way, so a hand-typed `" 2 "` or `1_0` is the replicate Karenina
//! reads. Where Karenina's reader refuses a value (its model raises and the
//! row is skipped) or drops it without a word (`int("one")` fails and the
//! replicate becomes None, `float("fast")` an execution time of 0.0, a
//! verdict that is not JSON no verdict), kld refuses it with a located
//! KLD-E201 rather than count the row otherwise than its JSON twin.

use super::pydantic::{self as coerce, Ty};
use serde_json::Value;

/// A cell's reading: its value (`None` for an empty cell) or why it is
/// refused.
pub(super) type Cell = Result<Option<Value>, String>;

/// `replicate`: Python's `int()` of the cell (surrounding spaces, a sign,
/// `_` between digits; no `.`), empty for none.
pub(super) fn int(s: &str) -> Cell {
    if s.is_empty() {
        return Ok(None);
    }
    match (!s.contains('.')).then(|| coerce::int_str(s)).flatten() {
        Some(d) => Ok(Some(coerce::int(&d))),
        None => Err(format!(
            "`{}` is not a whole number: Karenina's CSV reader (`int()`) cannot read it and would drop the value",
            shown(s)
        )),
    }
}

/// `execution_time`, `embedding_similarity_score`: Python's `float()` of
/// the cell (`nan`, `inf`, exponents, `_` between digits), empty for none.
pub(super) fn float(s: &str) -> Cell {
    if s.is_empty() {
        return Ok(None);
    }
    match coerce::float_str(s) {
        Some(f) => Ok(Some(coerce::float(f))),
        None => Err(format!(
            "`{}` is not a number: Karenina's CSV reader (`float()`) cannot read it and would read 0.0 or nothing",
            shown(s)
        )),
    }
}

/// `verify_result`: empty or `N/A` for none, else `json.loads` of the cell
/// validated as Karenina's `bool | None` (pydantic's lax mode).
pub(super) fn verdict(s: &str) -> Result<Option<bool>, String> {
    if s.is_empty() || s == "N/A" {
        return Ok(None);
    }
    let v: Value = serde_json::from_str(&super::nan_tokens(s)).map_err(|_| {
        format!(
            "`{}` is not JSON: Karenina's CSV reader would read no verdict from it",
            shown(s)
        )
    })?;
    if v.is_null() {
        return Ok(None);
    }
    match coerce::coerce(&v, Ty::Bool) {
        Ok(None) => Ok(v.as_bool()),
        Ok(Some(b)) => Ok(b.as_bool()),
        Err(reason) => Err(format!(
            "{reason} (Karenina's model refuses {})",
            coerce::shown(&v)
        )),
    }
}

/// A cell as a message shows it (short).
fn shown(s: &str) -> String {
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cells_as_python_and_pydantic_read_them() {
        for (s, want) in [("1", 1), (" 2 ", 2), ("1_0", 10), ("+01", 1), ("-1", -1)] {
            assert_eq!(int(s), Ok(Some(json!(want))), "{s}");
        }
        assert_eq!(int(""), Ok(None));
        for s in ["1.0", "one", "2.5", "1e2", "_1"] {
            assert!(int(s).is_err(), "{s}");
        }
        assert_eq!(float(" 1.5 "), Ok(Some(json!(1.5))));
        assert_eq!(float("1_000.5"), Ok(Some(json!(1000.5))));
        assert_eq!(float("1e3"), Ok(Some(json!(1000.0))));
        for s in ["fast", "0x1", "1.5.2"] {
            assert!(float(s).is_err(), "{s}");
        }
        for (s, want) in [
            ("true", Some(true)),
            ("1", Some(true)),
            ("1.0", Some(true)),
            ("\"yes\"", Some(true)),
            ("false", Some(false)),
            ("0", Some(false)),
            ("null", None),
            ("N/A", None),
            ("", None),
        ] {
            assert_eq!(verdict(s), Ok(want), "{s}");
        }
        for s in ["2", "\"maybe\"", "maybe", "True", "NaN", "[]"] {
            assert!(verdict(s).is_err(), "{s}");
        }
    }
}
