//! XLSX and XLS workbooks (calamine), read as `pd.read_excel(path,
//! sheet_name=…)` reads them through openpyxl: the grid from cell A1 to the
//! last non-empty row and column, the first row the header, a sheet chosen
//! by name (the first by default), each column typed by
//! [`super::infer::sheet_column`].

use super::bounds::{Limit, Limits};
use super::failure::{ImportError, Location, Result};
use super::grid::{header_names, Column, HeaderCell, HeaderKey, Table};
use super::infer::{sheet_column, Raw};
use super::value::{Cell, DateStyle};
use calamine::{Data, DataRef, Reader};
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

/// calamine's workbook, opened as the bytes say: a zip is an `.xlsx`
/// (read cell by cell), an OLE2 compound file an `.xls`.
enum Book {
    Xlsx(calamine::Xlsx<Cursor<Vec<u8>>>),
    Xls(calamine::Xls<Cursor<Vec<u8>>>),
}

/// Runs `f` (calamine), a panic in it becoming a located error: the last
/// line behind [`super::guard`], for what the checks there do not foresee.
fn calamine<T>(at: &Location, f: impl FnOnce() -> Result<T>) -> Result<T> {
    super::unwind::quietly(f).unwrap_or_else(|panic| {
        Err(ImportError::bad(
            at,
            format!(
                "calamine cannot read this workbook (a damaged file?): it failed with {:?}",
                super::quota::bounded(&panic, 200)
            ),
        ))
    })
}

fn open(at: &Location, bytes: Vec<u8>) -> Result<Book> {
    let cannot = |e: String| ImportError::NotATable {
        at: at.clone().into(),
        expected: "workbook (xlsx, xls)",
        looks_like: format!(
            "a file calamine cannot open as one ({})",
            super::quota::bounded(&e, 200)
        ),
    };
    if bytes.starts_with(b"PK\x03\x04") {
        calamine::Xlsx::new(Cursor::new(bytes))
            .map(Book::Xlsx)
            .map_err(|e| cannot(e.to_string()))
    } else if bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0]) {
        // An encrypted .xlsx is a compound file too: calamine's Xls says
        // what it is.
        calamine::Xls::new(Cursor::new(bytes))
            .map(Book::Xls)
            .map_err(|e| cannot(e.to_string()))
    } else {
        Err(cannot(
            "neither a zip (xlsx) nor a compound file (xls)".into(),
        ))
    }
}

/// Reads the sheet `sheet` (the first when `None`) of a workbook, within
/// `limits`: the workbook's structure is checked first ([`super::guard`]),
/// an `.xlsx` sheet is read cell by cell (never a grid calamine sizes), and
/// the grid from A1 is built only when rows × columns is within
/// [`Limits::cells`].
pub fn read(at: &Location, bytes: Vec<u8>, sheet: Option<&str>, limits: &Limits) -> Result<Table> {
    super::precheck::xlsx(at, &bytes, limits)?;
    super::precheck::xls(at, &bytes, limits)?;
    let (name, cells) = calamine(at, || {
        let mut wb = open(at, bytes)?;
        let names = match &wb {
            Book::Xlsx(x) => x.sheet_names(),
            Book::Xls(x) => x.sheet_names(),
        };
        let name = pick(at, names, sheet)?;
        let at = Location {
            sheet: Some(name.clone()),
            ..at.clone()
        };
        let cells = match &mut wb {
            Book::Xlsx(x) => xlsx_cells(&at, x, &name, limits)?,
            Book::Xls(x) => {
                let range = x.worksheet_range(&name).map_err(|e| cannot_read(&at, e))?;
                let (r0, c0) = range.start().unwrap_or((0, 0));
                let (r0, c0) = (u64::from(r0), u64::from(c0));
                range
                    .used_cells()
                    .map(|(r, c, d)| ((r0 + r as u64, c0 + c as u64), raw(d)))
                    .collect()
            }
        };
        Ok((name, cells))
    })?;
    let at = Location {
        sheet: Some(name),
        ..at.clone()
    };
    let grid = grid(&at, cells, limits)?;
    table(at, grid)
}

fn cannot_read(at: &Location, e: impl std::fmt::Display) -> ImportError {
    ImportError::bad(
        at,
        format!(
            "cannot read the sheet: {}",
            super::quota::bounded(&e.to_string(), 200)
        ),
    )
}

/// The sheet asked for, or the first.
fn pick(at: &Location, names: Vec<String>, sheet: Option<&str>) -> Result<String> {
    match sheet {
        Some(s) if names.iter().any(|n| n == s) => Ok(s.to_string()),
        Some(s) => Err(ImportError::NoSuchSheet {
            at: at.clone().into(),
            sheet: s.to_string(),
            sheets: names,
        }),
        None => names
            .first()
            .cloned()
            .ok_or_else(|| ImportError::NotATable {
                at: at.clone().into(),
                expected: "workbook (xlsx, xls)",
                looks_like: "a workbook without sheets".into(),
            }),
    }
}

/// An `.xlsx` sheet's non-empty cells, read one by one, each position
/// within [`Limits::rows`] and [`Limits::columns`], at most
/// [`Limits::cells`] of them.
fn xlsx_cells(
    at: &Location,
    x: &mut calamine::Xlsx<Cursor<Vec<u8>>>,
    name: &str,
    limits: &Limits,
) -> Result<Vec<((u64, u64), Raw)>> {
    let mut reader = x
        .worksheet_cells_reader(name)
        .map_err(|e| cannot_read(at, e))?;
    let mut cells = Vec::new();
    while let Some(cell) = reader.next_cell().map_err(|e| cannot_read(at, e))? {
        let (r, c) = cell.get_position();
        let (r, c) = (u64::from(r), u64::from(c));
        limits.check(at, Limit::Rows, r + 1, &format!("row {}", r + 1))?;
        limits.check(at, Limit::Columns, c + 1, &format!("row {}", r + 1))?;
        if matches!(cell.get_value(), DataRef::Empty) {
            continue;
        }
        limits.check(at, Limit::Cells, cells.len() as u64 + 1, "the sheet")?;
        cells.push(((r, c), raw(&Data::from(cell.get_value().clone()))));
    }
    Ok(cells)
}

/// The grid from A1 to the last non-empty row and column, as openpyxl
/// yields it to pandas, refused before it is built when rows × columns is
/// past [`Limits::cells`].
fn grid(at: &Location, cells: Vec<((u64, u64), Raw)>, limits: &Limits) -> Result<Vec<Vec<Raw>>> {
    let cells: Vec<_> = cells
        .into_iter()
        .filter(|(_, v)| !matches!(v, Raw::Empty))
        .collect();
    let rows = cells.iter().map(|((r, _), _)| r + 1).max().unwrap_or(0);
    let width = cells.iter().map(|((_, c), _)| c + 1).max().unwrap_or(0);
    let last = format!("A1:{}{rows}", column_name(width.saturating_sub(1)));
    limits.check(at, Limit::Rows, rows, &format!("the grid {last}"))?;
    limits.check(at, Limit::Columns, width, &format!("the grid {last}"))?;
    limits.check(
        at,
        Limit::Cells,
        rows.saturating_mul(width),
        &format!("the grid {last}"),
    )?;
    let mut grid = vec![vec![Raw::Empty; width as usize]; rows as usize];
    for ((r, c), v) in cells {
        grid[r as usize][c as usize] = v;
    }
    Ok(grid)
}

/// A 0-based column index as its letters (`0` is `A`).
fn column_name(mut c: u64) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'A' + (c % 26) as u8);
        if c < 26 {
            break;
        }
        c = c / 26 - 1;
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// The table of a sheet's grid: the first row the header.
fn table(at: Location, grid: Vec<Vec<Raw>>) -> Result<Table> {
    let width = grid.first().map_or(0, Vec::len);
    let mut numbered: Vec<(usize, Vec<Raw>)> = grid
        .into_iter()
        .enumerate()
        .map(|(i, r)| (i + 1, r))
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
