//! Checks a workbook's structure before calamine reads it.
//!
//! Why: calamine 0.35 trusts what a workbook declares. `uniqueCount` in
//! `sharedStrings.xml` becomes a `Vec::reserve` (a panic past `isize::MAX`),
//! cell references are read into a `u32` that wraps (`A4294967297` lands on
//! row 1, over the header), a sheet's XML is decompressed whole however
//! large, and in a legacy `.xls` the compound file's header sizes
//! allocations (it reads the DIFAT length from the wrong offset, 62 instead
//! of 72, so one flipped byte asks for 17 GB) and a sheet's `DIMENSIONS`
//! record reserves rows × columns cells. Here each is read first, bounded by
//! the import's [`Limits`], without building anything: the zip's entries
//! are decompressed into nothing (counting), the XML scanned by quick-xml,
//! the compound file's header and the workbook stream's records walked.

use super::biff::{u16_at, u32_at};
use super::bounds::{Limit, Limits, EXCEL_COLUMNS, EXCEL_ROWS};
use super::failure::{ImportError, Location, Result};
use quick_xml::events::Event;
use std::io::{Cursor, Read};

/// `(row, column)`, 1-based, of an A1 reference (`$` allowed), read with
/// checked arithmetic: `None` when it is not one, or when either part
/// overflows.
pub fn cell_ref(r: &[u8]) -> Option<(u64, u64)> {
    let r: Vec<u8> = r.iter().copied().filter(|&b| b != b'$').collect();
    let letters = r.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let (col, row) = r.split_at(letters);
    let mut c: u64 = 0;
    for b in col {
        c = c
            .checked_mul(26)?
            .checked_add(u64::from(b.to_ascii_uppercase() - b'A') + 1)?;
    }
    if row.is_empty() || !row.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut n: u64 = 0;
    for b in row {
        n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some((n, c))
}

/// A reference as a message shows it.
fn shown(r: &[u8]) -> String {
    super::quota::bounded(&String::from_utf8_lossy(r), 40)
}

/// Checks a reference (`A1`, a row number alone when `row_only`) is a cell
/// Excel can hold.
fn check_ref(at: &Location, part: &str, r: &[u8], row_only: bool) -> Result<()> {
    let ok = if row_only {
        std::str::from_utf8(r)
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .is_some_and(|n| (1..=EXCEL_ROWS).contains(&n))
    } else {
        // A reference without a column (`<c r="5">`) is calamine's error.
        matches!(cell_ref(r), Some((row, col))
            if (1..=EXCEL_ROWS).contains(&row) && col <= EXCEL_COLUMNS)
    };
    if ok {
        return Ok(());
    }
    let what = if row_only {
        "row number"
    } else {
        "cell reference"
    };
    Err(ImportError::bad(
        at,
        format!(
            "{part}: {what} {} is not a cell a workbook can hold (the last is XFD1048576)",
            shown(r)
        ),
    ))
}

/// Counts what `r` yields, refusing past `max` bytes.
fn drain(at: &Location, part: &str, r: impl Read, limits: &Limits) -> Result<u64> {
    let n = std::io::copy(&mut r.take(limits.bytes + 1), &mut std::io::sink())
        .map_err(|e| ImportError::bad(at, format!("{part}: cannot decompress it ({e})")))?;
    limits.check(at, Limit::Bytes, n, &format!("{part} (decompressed)"))?;
    Ok(n)
}

/// What an XML part holds that calamine sizes memory by.
enum Part {
    /// A worksheet: every `<dimension ref>`, `<row r>` and `<c r>`.
    Sheet,
    /// `sharedStrings.xml`: `<sst uniqueCount count>` and its `<si>`.
    Strings,
}

/// Scans one XML part (its declared size already bounded).
fn scan(at: &Location, part: &str, r: impl Read, kind: Part, limits: &Limits) -> Result<()> {
    let mut xml = quick_xml::Reader::from_reader(std::io::BufReader::new(r.take(limits.bytes)));
    xml.config_mut().check_end_names = false;
    let mut buf = Vec::new();
    let mut strings: u64 = 0;
    loop {
        buf.clear();
        let e = match xml.read_event_into(&mut buf) {
            Ok(Event::Start(e) | Event::Empty(e)) => e,
            Ok(Event::Eof) => return Ok(()),
            // A malformed part is calamine's to report.
            Err(_) => return Ok(()),
            Ok(_) => continue,
        };
        match (&kind, e.local_name().as_ref()) {
            (Part::Sheet, name @ (b"dimension" | b"row" | b"c")) => {
                let key: &[u8] = if name == b"dimension" { b"ref" } else { b"r" };
                for a in e.attributes().flatten() {
                    if a.key.as_ref() != key {
                        continue;
                    }
                    match name {
                        b"dimension" => {
                            for r in a.value.split(|&b| b == b':') {
                                check_ref(at, part, r, false)?;
                            }
                        }
                        b"row" => check_ref(at, part, &a.value, true)?,
                        _ => check_ref(at, part, &a.value, false)?,
                    }
                }
            }
            (Part::Strings, b"sst") => {
                for a in e.attributes().flatten() {
                    if matches!(a.key.as_ref(), b"uniqueCount" | b"count") {
                        let n = std::str::from_utf8(&a.value)
                            .ok()
                            .and_then(|s| s.trim().parse::<u64>().ok());
                        // calamine reserves a parsed uniqueCount; one too
                        // large to parse it ignores.
                        if let Some(n) = n {
                            let what =
                                format!("{part} (its {})", String::from_utf8_lossy(a.key.as_ref()));
                            limits.check(at, Limit::Strings, n, &what)?;
                        }
                    }
                }
            }
            (Part::Strings, b"si") => {
                strings += 1;
                limits.check(at, Limit::Strings, strings, part)?;
            }
            _ => {}
        }
    }
}

/// Checks an `.xlsx` (zip) workbook: every entry decompresses within
/// [`Limits::bytes`] (declared and actual), the shared strings within
/// [`Limits::strings`], and each worksheet's references name cells a
/// workbook can hold. Bytes that are not a zip are left to calamine.
pub fn xlsx(at: &Location, bytes: &[u8], limits: &Limits) -> Result<()> {
    let Ok(mut zip) = zip::ZipArchive::new(Cursor::new(bytes)) else {
        return Ok(());
    };
    // A zip of millions of empty entries: bounded like cells, past the
    // 100,000 entries no workbook needs.
    let entries = zip.len() as u64;
    if entries > 100_000 {
        limits.check(
            at,
            Limit::Cells,
            entries,
            "the workbook's zip (its entries)",
        )?;
    }
    let mut total: u64 = 0;
    for i in 0..zip.len() {
        let Ok(f) = zip.by_index(i) else {
            continue;
        };
        let name = f.name().to_string();
        let part = format!("part {}", super::quota::bounded(&name, 80));
        limits.check(at, Limit::Bytes, f.size(), &format!("{part} (declared)"))?;
        let lower = name.to_ascii_lowercase();
        if !(lower.ends_with(".xml") || lower.ends_with(".rels")) {
            continue;
        }
        total += drain(at, &part, f, limits)?;
        limits.check(
            at,
            Limit::Bytes,
            total,
            "the workbook's parts (decompressed)",
        )?;
    }
    for i in 0..zip.len() {
        let Ok(f) = zip.by_index(i) else {
            continue;
        };
        let lower = f.name().to_ascii_lowercase();
        let kind = if lower.ends_with("sharedstrings.xml") {
            Part::Strings
        } else if lower.contains("worksheets/") && lower.ends_with(".xml") {
            Part::Sheet
        } else {
            continue;
        };
        let part = format!("part {}", super::quota::bounded(f.name(), 80));
        scan(at, &part, f, kind, limits)?;
    }
    Ok(())
}

/// Checks a legacy `.xls` (an OLE2 compound file) before calamine reads it:
/// the header's table sizes against the file's, each sector chain free of
/// cycles, and every sheet's `DIMENSIONS` record within [`Limits::cells`].
/// Bytes that are not a compound file are left to calamine.
pub fn xls(at: &Location, bytes: &[u8], limits: &Limits) -> Result<()> {
    if !bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0]) || bytes.len() < 512 {
        return Ok(());
    }
    limits.check(at, Limit::Bytes, bytes.len() as u64, "the workbook")?;
    let damaged = |what: &str| {
        ImportError::bad(
            at,
            format!("a damaged compound file (the .xls container): {what}"),
        )
    };
    let shift = u16_at(bytes, 30);
    if shift != 9 && shift != 12 {
        return Err(damaged("its sector size is neither 512 nor 4096 bytes"));
    }
    let size = 1u64 << shift;
    let sectors = (bytes.len() as u64).div_ceil(size);
    // calamine reserves (u32 at 44) FAT entries and, reading the DIFAT
    // length at offset 62 rather than 72, (u32 at 62) DIFAT entries.
    let fat_len = u32_at(bytes, 44);
    let misread_difat = u32_at(bytes, 62);
    let difat_len = u32_at(bytes, 72);
    let mini_fat_len = u32_at(bytes, 64);
    if fat_len > sectors || difat_len > sectors || mini_fat_len > sectors {
        return Err(damaged(
            "its header counts more table sectors than the file holds",
        ));
    }
    if misread_difat > (1 << 24) {
        return Err(damaged(
            "its header's bytes 62-65 ask calamine for a table larger than the file (calamine reads the DIFAT length from there)",
        ));
    }
    let cfb = Cfb::new(bytes, size).map_err(|e| damaged(&e))?;
    let Some(book) = cfb
        .stream(&["Workbook", "Book", "WORKBOOK", "BOOK"])
        .map_err(|e| damaged(&e))?
    else {
        return Ok(());
    };
    super::biff::walk(at, &book, limits)
}

/// The compound file's sectors and FAT, read only to walk chains.
struct Cfb<'a> {
    bytes: &'a [u8],
    size: u64,
    fat: Vec<u32>,
}

const ENDOFCHAIN: u32 = 0xFFFF_FFFE;

impl<'a> Cfb<'a> {
    fn sector(&self, id: u32) -> Option<&'a [u8]> {
        // Sector 0 follows the header, which fills the first sector.
        let start = (u64::from(id) + 1) * self.size;
        let start = usize::try_from(start).ok()?;
        let end = start.checked_add(self.size as usize)?.min(self.bytes.len());
        self.bytes.get(start..end)
    }

    fn new(bytes: &'a [u8], size: u64) -> std::result::Result<Self, String> {
        let mut cfb = Cfb {
            bytes,
            size,
            fat: Vec::new(),
        };
        // The DIFAT: 109 entries in the header, then a chain of sectors.
        let mut difat: Vec<u32> = (0..109).map(|i| u32_at(bytes, 76 + 4 * i) as u32).collect();
        let mut next = u32_at(bytes, 68) as u32;
        let max = bytes.len() as u64 / size + 1;
        let mut hops = 0u64;
        while next < 0xFFFF_FFFA {
            hops += 1;
            if hops > max {
                return Err("its DIFAT chain loops".into());
            }
            let s = cfb.sector(next).ok_or("its DIFAT points past the end")?;
            let n = s.len() / 4;
            difat.extend((0..n.saturating_sub(1)).map(|i| u32_at(s, 4 * i) as u32));
            next = u32_at(s, 4 * n.saturating_sub(1)) as u32;
        }
        for id in difat.into_iter().filter(|&id| id < 0xFFFF_FFFA) {
            let s = cfb.sector(id).ok_or("its FAT points past the end")?;
            cfb.fat
                .extend((0..s.len() / 4).map(|i| u32_at(s, 4 * i) as u32));
            if cfb.fat.len() as u64 > max * size {
                return Err("its FAT is larger than the file".into());
            }
        }
        Ok(cfb)
    }

    /// The sectors of the chain from `start`, checked: every link within
    /// the FAT and the file, no sector twice.
    fn chain(&self, start: u32) -> std::result::Result<Vec<u32>, String> {
        let mut seen = vec![false; self.fat.len()];
        let mut out = Vec::new();
        let mut id = start;
        while id != ENDOFCHAIN {
            let i = id as usize;
            if i >= self.fat.len() || self.sector(id).is_none() {
                return Err(format!("a sector chain points past the end (sector {id})"));
            }
            if std::mem::replace(&mut seen[i], true) {
                return Err(format!("a sector chain loops (sector {id})"));
            }
            out.push(id);
            id = self.fat[i];
        }
        Ok(out)
    }

    /// The bytes of the chain from `start` (checked), cut to `len`.
    fn read(&self, start: u32, len: u64) -> std::result::Result<Vec<u8>, String> {
        if len > self.bytes.len() as u64 {
            return Err("a stream is longer than the file".into());
        }
        let mut out = Vec::with_capacity(len as usize);
        for id in self.chain(start)? {
            out.extend_from_slice(self.sector(id).unwrap_or_default());
        }
        out.truncate(len as usize);
        Ok(out)
    }

    /// The first stream named one of `names` in the root storage, read
    /// through its checked chain (in the mini stream when under 4096
    /// bytes, as calamine reads it); `None` when there is none.
    fn stream(&self, names: &[&str]) -> std::result::Result<Option<Vec<u8>>, String> {
        let dir_start = u32_at(self.bytes, 48) as u32;
        let dir: Vec<u8> = self
            .chain(dir_start)?
            .into_iter()
            .filter_map(|id| self.sector(id))
            .flatten()
            .copied()
            .collect();
        if dir.len() < 128 || !dir.len().is_multiple_of(128) {
            return Err("its directory is cut short".into());
        }
        let entry = |e: &[u8]| {
            let name_len = (u16_at(e, 64) as usize).min(64);
            let name: Vec<u16> = (0..name_len / 2)
                .map(|i| u16_at(e, 2 * i) as u16)
                .take_while(|&c| c != 0)
                .collect();
            (
                String::from_utf16_lossy(&name),
                u32_at(e, 116) as u32,
                u32_at(e, 120),
            )
        };
        let Some((name, start, len)) = names
            .iter()
            .find_map(|want| dir.chunks_exact(128).map(entry).find(|(n, _, _)| n == want))
        else {
            return Ok(None);
        };
        if len >= 4096 {
            return self.read(start, len).map(Some);
        }
        // The mini stream: the root entry's chain, in 64-byte sectors
        // indexed by the mini FAT (its own chain from header offset 60).
        let (_, root_start, root_len) = entry(&dir[..128]);
        let mini_fat_len = u32_at(self.bytes, 64);
        if mini_fat_len == 0 {
            return Err(format!(
                "its {name} stream is in a mini stream it does not have"
            ));
        }
        let mini = self.read(root_start, root_len)?;
        let mini_fat: Vec<u32> = self
            .read(u32_at(self.bytes, 60) as u32, mini_fat_len * self.size)?
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let mut seen = vec![false; mini_fat.len()];
        let mut out = Vec::new();
        let mut id = start;
        while id != ENDOFCHAIN && (out.len() as u64) < len {
            let i = id as usize;
            let s = mini.get(i * 64..(i * 64 + 64).min(mini.len()));
            match (s, seen.get_mut(i)) {
                (Some(s), Some(seen)) if !*seen => {
                    *seen = true;
                    out.extend_from_slice(s);
                }
                _ => return Err(format!("its {name} stream's mini chain is broken")),
            }
            id = mini_fat[i];
        }
        out.truncate(len as usize);
        Ok(Some(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_read_without_wrapping() {
        assert_eq!(cell_ref(b"A1"), Some((1, 1)));
        assert_eq!(cell_ref(b"$XFD$1048576"), Some((1_048_576, 16_384)));
        assert_eq!(cell_ref(b"A4294967297"), Some((4_294_967_297, 1)));
        assert_eq!(cell_ref(b"A"), None);
        assert_eq!(cell_ref(b"A99999999999999999999999"), None);
        let at = Location::file("q.xlsx");
        for r in ["A4294967297", "ZZZZZZZZZZZZ2", "A4000000000", "XFE1", "A0"] {
            let e = check_ref(&at, "part s.xml", r.as_bytes(), false)
                .unwrap_err()
                .to_string();
            assert!(e.contains(r) && e.contains("XFD1048576"), "{e}");
        }
        check_ref(&at, "p", b"XFD1048576", false).unwrap();
        check_ref(&at, "p", b"1048576", true).unwrap();
        check_ref(&at, "p", b"4294967297", true).unwrap_err();
    }
}
