//! XLSX and XLS workbooks (calamine), read as `pd.read_excel(path,
//! sheet_name=…)` reads them through openpyxl: the grid from cell A1 to the
//! last non-empty row and column, the first row the header, a sheet chosen
//! by name (the first by default), each column typed by
//! [`super::infer::sheet_column`].

use super::failure::{ImportError, Location, Result};
use super::infer::{sheet_column, Raw};
use super::table::{header_names, Column, HeaderCell, HeaderKey, Table};
use super::value::{Cell, DateStyle};
use calamine::{Data, Reader};
use std::io::Cursor;

fn raw(d: &Data) -> Raw {
    match d {
        Data::Empty => Raw::Empty,
        Data::String(s) | Data::DateTimeIso(s) | Data::DurationIso(s) => Raw::Str(s.clone()),
        Data::Float(f) => Raw::Float(*f),
        Data::Int(i) => Raw::Int(*i),
        Data::Bool(b) => Raw::Bool(*b),
        Data::Error(_) => Raw::Error,
        Data::DateTime(dt) => {
            let serial = dt.as_f64();
            match dt.as_datetime() {
                // openpyxl reads a serial below one day as a time of day.
                Some(d) if dt.is_datetime() && (0.0..1.0).contains(&serial) => Raw::Time(d.time()),
                Some(d) if dt.is_datetime() => Raw::DateTime(d),
                _ => Raw::Float(serial),
            }
        }
    }
}

/// Reads the sheet `sheet` (the first when `None`) of a workbook.
pub fn read(at: &Location, bytes: Vec<u8>, sheet: Option<&str>) -> Result<Table> {
    let mut wb = calamine::open_workbook_auto_from_rs(Cursor::new(bytes)).map_err(|e| {
        ImportError::NotATable {
            at: at.clone().into(),
            expected: "workbook (xlsx, xls)",
            looks_like: format!("a file calamine cannot open as one ({e})"),
        }
    })?;
    let names = wb.sheet_names();
    let name = match sheet {
        Some(s) if names.iter().any(|n| n == s) => s.to_string(),
        Some(s) => {
            return Err(ImportError::NoSuchSheet {
                at: at.clone().into(),
                sheet: s.to_string(),
                sheets: names,
            })
        }
        None => names
            .first()
            .cloned()
            .ok_or_else(|| ImportError::NotATable {
                at: at.clone().into(),
                expected: "workbook (xlsx, xls)",
                looks_like: "a workbook without sheets".into(),
            })?,
    };
    let at = Location {
        sheet: Some(name.clone()),
        ..at.clone()
    };
    let range = wb.worksheet_range(&name).map_err(|e| ImportError::Bad {
        at: at.clone().into(),
        message: format!("cannot read the sheet: {e}"),
    })?;
    // The grid from A1, as openpyxl yields it; trailing empty cells of each
    // row and trailing empty rows trimmed, rows padded to the widest.
    let (r0, c0) = range.start().unwrap_or((0, 0));
    let mut grid: Vec<Vec<Raw>> = Vec::new();
    grid.resize_with(r0 as usize, Vec::new);
    for row in range.rows() {
        let mut cells: Vec<Raw> = std::iter::repeat_n(Raw::Empty, c0 as usize).collect();
        cells.extend(row.iter().map(raw));
        while matches!(cells.last(), Some(Raw::Empty)) {
            cells.pop();
        }
        grid.push(cells);
    }
    while matches!(grid.last(), Some(r) if r.is_empty()) {
        grid.pop();
    }
    let width = grid.iter().map(Vec::len).max().unwrap_or(0);
    let mut numbered: Vec<(usize, Vec<Raw>)> = grid
        .into_iter()
        .enumerate()
        .map(|(i, mut r)| {
            r.resize(width, Raw::Empty);
            (i + 1, r)
        })
        // pandas skips blank lines only in a one-column sheet.
        .filter(|(_, r)| width > 1 || !matches!(r.first(), Some(Raw::Empty) | None))
        .collect();
    if numbered.is_empty() {
        return Err(ImportError::NotATable {
            at: at.into(),
            expected: "sheet with a header row",
            looks_like: "an empty sheet".into(),
        });
    }
    let (_, header) = numbered.remove(0);
    // (name, named by a value rather than text): a renamed column is text.
    let header: Vec<(String, bool)> = header_names(header.iter().map(header_cell).collect())
        .into_iter()
        .map(|c| {
            let by_value = !matches!(c.key, HeaderKey::Text(_));
            (c.text, by_value)
        })
        .collect();
    let mut cols: Vec<Vec<Raw>> = vec![Vec::with_capacity(numbered.len()); width];
    let mut rows = Vec::with_capacity(numbered.len());
    for (n, r) in numbered {
        for (col, v) in cols.iter_mut().zip(r) {
            col.push(v);
        }
        rows.push(n);
    }
    let columns = header
        .into_iter()
        .zip(cols)
        .map(|((name, named_by_value), raw)| Column {
            name,
            typed: sheet_column(raw),
            named_by_value,
        })
        .collect();
    Ok(Table { at, columns, rows })
}

/// A workbook's header cell as pandas keeps it: the value `read_excel`
/// makes of it (a whole float is an int), its `str()` and what Python's
/// `==` compares (`True`, `1` and `1.0` are one name; the text `"1"` is
/// another).
fn header_cell(raw: &Raw) -> HeaderCell {
    match raw {
        Raw::Empty => HeaderCell::text(""),
        Raw::Str(s) => HeaderCell::text(s.clone()),
        other => {
            let cell = sheet_column(vec![other.clone()]).cells.remove(0);
            let text = cell.py_str(DateStyle::Python);
            let key = match &cell {
                Cell::Int(i) => HeaderKey::Number(i.to_string()),
                Cell::Bool(b) => HeaderKey::Number(u8::from(*b).to_string()),
                // Whole floats are ints by now: a float equals only itself.
                Cell::Float(_) => HeaderKey::Number(text.clone()),
                Cell::Str(s) => HeaderKey::Text(s.clone()),
                Cell::DateTime(_) => HeaderKey::Other("datetime", text.clone()),
                Cell::Time(_) => HeaderKey::Other("time", text.clone()),
                Cell::Na | Cell::Json(_) => HeaderKey::Other("other", text.clone()),
            };
            HeaderCell { text, key }
        }
    }
}
