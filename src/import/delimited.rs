//! CSV and TSV tables, read as `pd.read_csv(path)` / `pd.read_csv(path,
//! sep="\t")` read them (Karenina's `read_file_to_dataframe`): the first
//! record is the header, blank lines are skipped, a short record is padded
//! with missing cells, a long one is an error (but when the first data
//! record has one field more than the header, every record's first field is
//! pandas' index label and is left out), and each column is typed by
//! [`super::infer::text_column`].

use super::bounds::{Limit, Limits};
use super::failure::{ImportError, Location, Result};
use super::grid::{header_names, Column, HeaderCell, Table};
use super::infer::text_column;

/// What the bytes look like when they are not a delimited table, if that
/// can be told from their start.
pub fn not_text(bytes: &[u8]) -> Option<String> {
    if bytes.starts_with(b"PK\x03\x04") {
        return Some("a ZIP archive (an .xlsx workbook? give --format xlsx)".into());
    }
    if bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0]) {
        return Some("an OLE2 file (an .xls workbook? give --format xls)".into());
    }
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return Some("binary data (NUL bytes)".into());
    }
    None
}

/// Whether a record's raw bytes end inside a quoted field, as the csv
/// crate's reader (and pandas' tokenizer) reads quotes: a field opened by
/// `"` runs to a `"` not followed by another; elsewhere a quote is text.
fn ends_in_quotes(raw: &[u8], delimiter: u8) -> bool {
    #[derive(PartialEq)]
    enum S {
        Start,
        Plain,
        Quoted,
        QuoteInQuoted,
    }
    let mut s = S::Start;
    for &b in raw {
        s = match (s, b) {
            (S::Start, b'"') => S::Quoted,
            (S::Start | S::Plain | S::QuoteInQuoted, b'\n' | b'\r') => S::Start,
            (S::Start | S::Plain | S::QuoteInQuoted, d) if d == delimiter => S::Start,
            (S::Start | S::Plain, _) => S::Plain,
            (S::Quoted, b'"') => S::QuoteInQuoted,
            (S::Quoted, _) => S::Quoted,
            (S::QuoteInQuoted, b'"') => S::Quoted,
            (S::QuoteInQuoted, _) => S::Plain,
        };
    }
    s == S::Quoted
}

/// Reads a delimited table (`delimiter` `,` or `\t`), within `limits`
/// (the header's length within [`Limits::columns`], the records within
/// [`Limits::rows`], records × header within [`Limits::cells`]).
pub fn read(at: &Location, bytes: &[u8], delimiter: u8, limits: &Limits) -> Result<Table> {
    let expected = if delimiter == b'\t' {
        "TSV table"
    } else {
        "CSV table"
    };
    if let Some(looks_like) = not_text(bytes) {
        return Err(ImportError::NotATable {
            at: at.clone().into(),
            expected,
            looks_like,
        });
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let trimmed = bytes.trim_ascii_start();
    if trimmed.starts_with(b"{") || trimmed.starts_with(b"[") {
        // A JSON document read as CSV gives one odd column: say what it is.
        let looks_like = if trimmed.starts_with(b"{") && trimmed.contains(&b'\n') {
            "JSON (a JSON Lines dataset? give --format jsonl or --format inspect)"
        } else {
            "JSON (an Inspect dataset? give --format inspect)"
        };
        if !bytes.contains(&delimiter) || trimmed.starts_with(b"[") {
            return Err(ImportError::NotATable {
                at: at.clone().into(),
                expected,
                looks_like: looks_like.into(),
            });
        }
    }
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut header: Option<Vec<String>> = None;
    // pandas' implicit index: when the first data record has one field more
    // than the header, the first field of every record is the row's index
    // label, not a cell (`read_csv`'s `index_col=None`).
    let mut index: Option<bool> = None;
    let mut fields: Vec<Vec<Option<String>>> = Vec::new();
    let mut rows = Vec::new();
    let mut rec = csv::ByteRecord::new();
    let mut lines = LineCounter::default();
    let mut prev_end = 0usize;
    loop {
        let line = rdr.position().line() as usize;
        match rdr.read_byte_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let row = e.position().map_or(line, |p| p.line() as usize);
                return Err(ImportError::bad(
                    &at.at_row(row),
                    format!("not a well-formed {expected}: {e}"),
                ));
            }
        }
        // The record's raw bytes run from where the previous one ended (its
        // terminator and skipped empty lines first) to where the reader is.
        let end = (rdr.position().byte() as usize).min(bytes.len());
        let mut start = prev_end.min(end);
        while matches!(bytes.get(start), Some(b'\r' | b'\n')) && start < end {
            start += 1;
        }
        let raw = &bytes[start..end];
        prev_end = end;
        let row = lines.advance(bytes, start);
        // The csv crate ends a field left open at the end of the file;
        // pandas' tokenizer refuses it ("EOF inside string"), and so does
        // kld: otherwise every row after the quote is one field, dropped.
        if end == bytes.len() && raw.contains(&b'"') && ends_in_quotes(raw, delimiter) {
            return Err(ImportError::bad(&at.at_row(row), format!(
                    "not a well-formed {expected}: a quoted field opened in this row is never closed (pandas: \"EOF inside string starting at row {}\"); close the quote or remove it",
                    row.saturating_sub(1)
                )));
        }
        let mut cells = Vec::with_capacity(rec.len());
        for (i, f) in rec.iter().enumerate() {
            match std::str::from_utf8(f) {
                Ok(s) => cells.push(s.to_string()),
                Err(e) => {
                    let col = header
                        .as_ref()
                        .and_then(|h| h.get(i).cloned())
                        .unwrap_or_else(|| format!("field {}", i + 1));
                    return Err(ImportError::bad(&at.at_row(row).in_column(&col), format!(
                            "not UTF-8 (byte {} of the field): pandas reads CSV as UTF-8; convert the file",
                            e.valid_up_to() + 1
                        )));
                }
            }
        }
        // pandas skips blank lines, whitespace-only ones too (unquoted); the
        // csv crate skips empty ones.
        if cells.len() == 1
            && cells[0].trim_matches([' ', '\t', '\r']).is_empty()
            && !raw.contains(&b'"')
        {
            continue;
        }
        match &header {
            None => {
                limits.check(at, Limit::Columns, cells.len() as u64, "the header")?;
                let names: Vec<String> =
                    header_names(cells.into_iter().map(HeaderCell::text).collect())
                        .into_iter()
                        .map(|c| c.text)
                        .collect();
                fields = vec![Vec::new(); names.len()];
                header = Some(names);
            }
            Some(h) => {
                let indexed = *index.get_or_insert(cells.len() == h.len() + 1);
                let width = h.len() + usize::from(indexed);
                if cells.len() > width {
                    let whose = if indexed {
                        "the header's and the first row's index label"
                    } else {
                        "the header's"
                    };
                    return Err(ImportError::bad(&at.at_row(row), format!(
                            "expected {width} fields ({whose}), saw {} (a separator inside an unquoted value?)",
                            cells.len()
                        )));
                }
                let n = rows.len() as u64 + 1;
                limits.check(&at.at_row(row), Limit::Rows, n, "the table")?;
                let grid = n.saturating_mul(h.len().max(1) as u64);
                limits.check(
                    &at.at_row(row),
                    Limit::Cells,
                    grid,
                    "the table (rows × header)",
                )?;
                let mut cells = cells;
                if indexed && !cells.is_empty() {
                    cells.remove(0);
                }
                let n = cells.len();
                for (col, v) in fields.iter_mut().zip(cells) {
                    col.push(Some(v));
                }
                for col in fields.iter_mut().skip(n) {
                    col.push(None);
                }
                rows.push(row);
            }
        }
    }
    let Some(names) = header else {
        return Err(ImportError::NotATable {
            at: at.clone().into(),
            expected,
            looks_like: "an empty file (no header row)".into(),
        });
    };
    let columns = names
        .into_iter()
        .zip(fields)
        .map(|(name, tokens)| Column {
            name,
            typed: text_column(tokens),
            named_by_value: false,
        })
        .collect();
    Ok(Table {
        at: at.clone(),
        columns,
        rows,
    })
}

/// Line numbers of increasing byte offsets, counted once.
#[derive(Default)]
struct LineCounter {
    offset: usize,
    newlines: usize,
}

impl LineCounter {
    fn advance(&mut self, bytes: &[u8], to: usize) -> usize {
        let to = to.min(bytes.len()).max(self.offset);
        self.newlines += bytes[self.offset..to]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.offset = to;
        self.newlines + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::value::Cell;

    const L: Limits = Limits {
        bytes: 1 << 30,
        cells: 1 << 30,
        rows: 1 << 30,
        columns: 1 << 30,
        strings: 1 << 30,
    };

    fn at() -> Location {
        Location::file("t.csv")
    }

    #[test]
    fn header_rows_and_padding() {
        let t = read(
            &at(),
            b"\xEF\xBB\xBFQ,A,N\r\n\"x, y\",1,2\r\n \t\r\nz,3\n\"  \"\n",
            b',',
            &L,
        )
        .unwrap();
        assert_eq!(t.names(), ["Q", "A", "N"]);
        assert_eq!(
            t.rows,
            [2, 4, 5],
            "a blank line is skipped, a quoted blank is not"
        );
        assert_eq!(t.columns[0].typed.cells[0], Cell::Str("x, y".into()));
        assert!(t.columns[2].typed.cells[1].is_na());
        assert_eq!(t.columns[2].typed.cells[0], Cell::Float(2.0));
    }

    /// `pd.read_csv` (pandas 3.1.1, Karenina's venv) of a header one field
    /// shorter than the first record: the first field is the index label.
    #[test]
    fn one_field_more_than_the_header_is_pandas_index() {
        // x,What?,42 / y,Who?,Ada -> [{Question: What?, Answer: '42'},
        // {Question: Who?, Answer: 'Ada'}], index [x, y]
        let t = read(
            &at(),
            b"Question,Answer\nx,What?,42\ny,Who?,Ada\n",
            b',',
            &L,
        )
        .unwrap();
        assert_eq!(
            t.columns[0].typed.cells,
            [Cell::Str("What?".into()), Cell::Str("Who?".into())]
        );
        assert_eq!(
            t.columns[1].typed.cells,
            [Cell::Str("42".into()), Cell::Str("Ada".into())]
        );
        // x,What?,42 / Who?,Ada -> [{Question: What?, Answer: 42.0},
        // {Question: Ada, Answer: nan}], index [x, Who?]
        let t = read(&at(), b"Question,Answer\nx,What?,42\nWho?,Ada\n", b',', &L).unwrap();
        assert_eq!(
            t.columns[0].typed.cells,
            [Cell::Str("What?".into()), Cell::Str("Ada".into())]
        );
        assert_eq!(t.columns[1].typed.cells[0], Cell::Float(42.0));
        assert!(t.columns[1].typed.cells[1].is_na());
        assert_eq!(t.rows, [2, 3]);
    }

    /// `pd.read_csv` (pandas, Karenina's venv): an open quote at the end of
    /// the file is "EOF inside string starting at row N" (N counting the
    /// header as row 0); a closed one, a doubled one, or a quote inside an
    /// unquoted field is not.
    #[test]
    fn a_quote_left_open_is_pandas_parse_error() {
        let e = read(&at(), b"Q\tA\nx\t4\n\"y\t6\nz\t1\n", b'\t', &L)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.csv: row 3: not a well-formed TSV table"),
            "{e}"
        );
        assert!(e.contains("EOF inside string starting at row 2"), "{e}");
        let e = read(&at(), b"\"Q,A\nx,4\n", b',', &L)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("row 1:") && e.contains("starting at row 0"),
            "{e}"
        );
        for ok in [
            &b"Q,A\n\"x\ny\",4\n"[..],
            b"Q,A\n\"x\"\"y\",4",
            b"Q,A\nx\"y,4\n",
            b"Q,A\n\"x\",\"\"\n",
        ] {
            read(&at(), ok, b',', &L).unwrap();
        }
        assert!(ends_in_quotes(b"a,\"b", b','));
        assert!(!ends_in_quotes(b"a,b\"", b','));
        assert!(ends_in_quotes(b"\"a\"\"", b','));
    }

    #[test]
    fn errors_are_located() {
        let e = read(&at(), b"Q,A\na,b\nc,d,e\n", b',', &L)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("t.csv: row 3: expected 2 fields"), "{e}");
        let e = read(&at(), b"Q,A\ni,a,b\nj,c,d,e\n", b',', &L)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("t.csv: row 3: expected 3 fields"), "{e}");
        let e = read(&at(), b"Q,A\na,\xff\n", b',', &L)
            .unwrap_err()
            .to_string();
        assert!(e.contains("row 2, column \"A\": not UTF-8"), "{e}");
        let e = read(&at(), b"", b',', &L).unwrap_err().to_string();
        assert!(e.contains("empty file"), "{e}");
        let e = read(&at(), b"PK\x03\x04zzz", b',', &L)
            .unwrap_err()
            .to_string();
        assert!(e.contains("ZIP archive"), "{e}");
    }
}
