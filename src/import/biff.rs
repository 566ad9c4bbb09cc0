//! The BIFF records of a legacy `.xls` workbook stream, walked before
//! calamine reads them.
//!
//! Why: calamine 0.35 reads several records' fields without checking the
//! record's length or order (`CodePage`, `DateMode`, `FilePass` and `BOF`
//! read two bytes of a record that may hold none; `Lbl` slices at byte 14
//! and subtracts its formula's length from the record's; `MergeCells`
//! reads as many ranges as its count says; `MulRk` subtracts its first
//! column from its last in `u16`). One flipped byte of a 5 KB file
//! panicked it (caught by `super::unwind`, but a panic is not a message).
//! Here every such record is checked as calamine will read it, and a short
//! or inconsistent one refused with what is wrong, before calamine runs;
//! so are the `DIMENSIONS` and cell extents calamine sizes its grid by.

use super::bounds::{Limit, Limits};
use super::failure::{ImportError, Location, Result};

/// A little-endian `u16` at `i`, 0 past the end.
pub(super) fn u16_at(b: &[u8], i: usize) -> u64 {
    b.get(i..i + 2)
        .map_or(0, |s| u64::from(u16::from_le_bytes([s[0], s[1]])))
}

/// A little-endian `u32` at `i`, 0 past the end.
pub(super) fn u32_at(b: &[u8], i: usize) -> u64 {
    b.get(i..i + 4).map_or(0, |s| {
        u64::from(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    })
}

/// Why calamine would misread this workbook-globals record, if it would.
fn globals_record_short(typ: u64, data: &[u8]) -> Option<String> {
    let n = data.len();
    let name = match typ {
        0x002F => "FilePass",
        0x0042 => "CodePage",
        0x0022 => "DateMode",
        0x0809 => "BOF",
        0x0017 => "ExternSheet",
        0x0018 => {
            // Lbl: cch at byte 3, cce at 4, the name from byte 15 on, the
            // formula's cce bytes at the end.
            let cch = data.get(3).map_or(0, |&c| usize::from(c));
            let cce = u16_at(data, 4) as usize;
            if n < 15 + cch || cce > n {
                return Some(format!(
                    "a Lbl (defined name) record of {n} bytes, too short for its {cch}-character name and {cce}-byte formula"
                ));
            }
            return None;
        }
        _ => return None,
    };
    (n < 2).then(|| format!("a {name} record of {n} bytes (it holds at least 2)"))
}

/// Why calamine would misread this sheet record, if it would.
fn sheet_record_short(typ: u64, data: &[u8]) -> Option<String> {
    let n = data.len();
    match typ {
        // MergeCells: a count, then 8 bytes a range.
        0x00E5 => {
            let count = u16_at(data, 0) as usize;
            (n < 2 || n < 2 + 8 * count).then(|| {
                format!(
                    "a MergeCells record of {n} bytes that counts {count} ranges (8 bytes each)"
                )
            })
        }
        // MulRk: row, first column, 6 bytes a cell, last column; calamine
        // counts the columns as `last - first + 1` in u16.
        0x00BD if n >= 6 => {
            let (first, last) = (u16_at(data, 2), u16_at(data, n - 2));
            if last < first {
                Some(format!(
                    "a MulRk record whose last column ({last}) is before its first ({first})"
                ))
            } else {
                (last - first + 1 > 0xFFFF).then(|| {
                    format!("a MulRk record spanning columns {first} to {last}, more than calamine counts in 16 bits")
                })
            }
        }
        _ => None,
    }
}

/// The records calamine's `RecordIter` yields from `stream` (type, data),
/// until a record runs past the end.
fn records(stream: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    let mut i = 0usize;
    std::iter::from_fn(move || {
        let typ = u16_at(stream, i);
        let len = u16_at(stream, i.checked_add(2)?) as usize;
        let data = stream.get(i + 4..i + 4 + len)?;
        i += 4 + len;
        Some((typ, data))
    })
}

/// Walks the BIFF records of a workbook stream as calamine does: the
/// globals to their `EOF`, each `BoundSheet8`'s offset within the stream,
/// and from each offset the sheet's records, whose `DIMENSIONS` (0x0200)
/// ask calamine to reserve rows × columns cells (computed as calamine
/// computes them, in wrapping `u32`).
pub(super) fn walk(at: &Location, stream: &[u8], limits: &Limits) -> Result<()> {
    let damaged = |what: String| ImportError::bad(at, format!("a damaged workbook stream: {what}"));
    let mut sheets = Vec::new();
    for (typ, data) in records(stream) {
        if let Some(why) = globals_record_short(typ, data) {
            return Err(damaged(why));
        }
        match typ {
            0x000A => break,
            0x0085 if data.len() < 6 => {
                return Err(damaged("a BoundSheet8 record shorter than 6 bytes".into()))
            }
            0x0085 => sheets.push(u32_at(data, 0) as usize),
            _ => {}
        }
    }
    for pos in sheets {
        let Some(sheet) = stream.get(pos..) else {
            return Err(damaged(format!(
                "a sheet starts at byte {pos}, past the stream's end ({})",
                stream.len()
            )));
        };
        // The cells' rectangle: calamine makes its dense grid of it.
        let mut rect: Option<(u64, u64, u64, u64)> = None;
        let mut cell = |r: u64, c0: u64, c1: u64| {
            let (a, b, c, d) = rect.unwrap_or((r, r, c0, c1));
            rect = Some((a.min(r), b.max(r), c.min(c0), d.max(c1)));
        };
        for (typ, data) in records(sheet) {
            if let Some(why) = sheet_record_short(typ, data) {
                return Err(damaged(why));
            }
            match typ {
                0x000A => break,
                // Number, Label, BoolErr, String-less formula, RK,
                // LabelSst: row, column first.
                0x0203 | 0x0204 | 0x0205 | 0x0006 | 0x027E | 0x00FD if data.len() >= 4 => {
                    cell(u16_at(data, 0), u16_at(data, 2), u16_at(data, 2));
                }
                // MulRk: row, first column, …, last column (not before
                // the first: sheet_record_short refused that).
                0x00BD if data.len() >= 6 => {
                    cell(
                        u16_at(data, 0),
                        u16_at(data, 2),
                        u16_at(data, data.len() - 2),
                    );
                }
                0x0200 => {
                    let (rf, rl, mut cf, cl) = match data.len() {
                        10 => (
                            u16_at(data, 0),
                            u16_at(data, 2),
                            u16_at(data, 4),
                            u16_at(data, 6),
                        ),
                        14 => (
                            u32_at(data, 0),
                            u32_at(data, 4),
                            u16_at(data, 8),
                            u16_at(data, 10),
                        ),
                        _ => continue,
                    };
                    if 0xFF < cf || cl < cf {
                        cf = 0;
                    }
                    let (end_r, end_c) = if rl >= 1 && cl >= 1 {
                        (rl - 1, cl - 1)
                    } else {
                        (rf, cf)
                    };
                    let rows = (end_r as u32).wrapping_sub(rf as u32).wrapping_add(1);
                    let cols = (end_c as u32).wrapping_sub(cf as u32).wrapping_add(1);
                    limits.check(
                        at,
                        Limit::Cells,
                        u64::from(rows).saturating_mul(u64::from(cols)),
                        "a sheet's DIMENSIONS record (rows × columns calamine reserves)",
                    )?;
                }
                _ => {}
            }
        }
        if let Some((r0, r1, c0, c1)) = rect {
            limits.check(
                at,
                Limit::Cells,
                (r1 - r0 + 1).saturating_mul(c1 - c0 + 1),
                "a sheet's cells (the grid calamine builds from the first to the last)",
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::sheet_record_short;

    /// A MulRk record from `first` to `last` (one 6-byte cell each).
    fn mul_rk(first: u16, last: u16, cells: usize) -> Vec<u8> {
        let mut d = vec![0, 0];
        d.extend(first.to_le_bytes());
        d.extend(std::iter::repeat_n(0u8, 6 * cells));
        d.extend(last.to_le_bytes());
        d
    }

    #[test]
    fn a_mul_rk_calamine_cannot_count_is_refused_saying_why() {
        assert_eq!(sheet_record_short(0x00BD, &mul_rk(1, 2, 2)), None);
        let before = sheet_record_short(0x00BD, &mul_rk(3, 2, 0)).unwrap();
        assert!(
            before.contains("last column (2) is before its first (3)"),
            "{before}"
        );
        let wide = sheet_record_short(0x00BD, &mul_rk(0, 0xFFFF, 1)).unwrap();
        assert!(wide.contains("spanning columns 0 to 65535"), "{wide}");
    }
}
