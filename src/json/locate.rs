//! Byte offsets ↔ line:column ↔ JSON paths.
//!
//! The fast parser keeps no positions; when there is something to report we scan
//! the source once more and map JSON paths to offsets (and offsets to paths for
//! syntax errors). The scanner only tracks strings and brackets: the document has
//! already been parsed (or is known broken at the offset we stop at).

use super::{JsonPath, Seg};
use std::collections::HashMap;

/// 1-based line and column (in characters) of a byte offset.
pub(crate) fn line_col(src: &str, offset: usize) -> (usize, usize) {
    line_cols(src, &[offset])[0]
}

/// Line and column of each offset in `sorted` (ascending), in one forward scan.
pub(crate) fn line_cols(src: &str, sorted: &[usize]) -> Vec<(usize, usize)> {
    let (mut pos, mut line, mut line_start) = (0usize, 1usize, 0usize);
    sorted
        .iter()
        .map(|&offset| {
            let offset = floor_char_boundary(src, offset.min(src.len())).max(pos);
            for (i, b) in src.as_bytes()[pos..offset].iter().enumerate() {
                if *b == b'\n' {
                    line += 1;
                    line_start = pos + i + 1;
                }
            }
            pos = offset;
            (line, src[line_start..offset].chars().count() + 1)
        })
        .collect()
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Byte offset of serde_json's 1-based line and (byte) column.
pub(crate) fn offset_of_line_col(src: &str, line: usize, column: usize) -> usize {
    let mut start = 0usize;
    for _ in 1..line {
        match src[start..].find('\n') {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    (start + column.saturating_sub(1)).min(src.len())
}

enum Frame {
    Obj { expecting_key: bool },
    Arr { index: usize },
}

/// Walks the values of `src` in document order, calling `visit(path, offset)` at
/// the start of each value; stops early when `visit` returns false or at `limit`.
fn walk(src: &str, limit: usize, mut visit: impl FnMut(&[Seg], usize) -> bool) -> Vec<Seg> {
    let b = src.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut path: Vec<Seg> = Vec::new();
    let mut i = 0usize;
    while i < b.len() && i < limit {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' | b':' => i += 1,
            b',' => {
                match stack.last_mut() {
                    Some(Frame::Arr { index }) => {
                        *index += 1;
                        if let Some(Seg::Index(p)) = path.last_mut() {
                            *p = *index;
                        }
                    }
                    Some(Frame::Obj { expecting_key }) => *expecting_key = true,
                    None => {}
                }
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                path.pop();
                i += 1;
            }
            b'"' => {
                let end = string_end(b, i);
                if let Some(Frame::Obj { expecting_key }) = stack.last_mut() {
                    if *expecting_key {
                        *expecting_key = false;
                        let raw = &src[i..end.min(src.len())];
                        let key = serde_json::from_str::<String>(raw)
                            .unwrap_or_else(|_| raw.trim_matches('"').to_string());
                        if let Some(last) = path.last_mut() {
                            *last = Seg::Key(key);
                        }
                        i = end;
                        continue;
                    }
                }
                if !visit(&path, i) {
                    return path;
                }
                i = end;
            }
            b'{' | b'[' => {
                if !visit(&path, i) {
                    return path;
                }
                if c == b'{' {
                    stack.push(Frame::Obj {
                        expecting_key: true,
                    });
                    path.push(Seg::Key(String::new()));
                } else {
                    stack.push(Frame::Arr { index: 0 });
                    path.push(Seg::Index(0));
                }
                i += 1;
            }
            _ => {
                if !visit(&path, i) {
                    return path;
                }
                while i < b.len()
                    && !matches!(b[i], b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
                {
                    i += 1;
                }
            }
        }
    }
    path
}

fn string_end(b: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// The JSON path of the innermost value being read at `offset` (for syntax errors).
pub(crate) fn path_at_offset(src: &str, offset: usize) -> JsonPath {
    JsonPath(walk(src, offset, |_, _| true))
}

/// Byte offsets of the values at `paths` (None for a path not in the document).
pub(crate) fn locate_paths(src: &str, paths: &[JsonPath]) -> Vec<Option<usize>> {
    if paths.is_empty() {
        return Vec::new();
    }
    let mut want: HashMap<&[Seg], Vec<usize>> = HashMap::new();
    let max_depth = paths.iter().map(|p| p.0.len()).max().unwrap_or(0);
    for (i, p) in paths.iter().enumerate() {
        want.entry(p.0.as_slice()).or_default().push(i);
    }
    let mut out = vec![None; paths.len()];
    let mut remaining = want.len();
    walk(src, usize::MAX, |p, off| {
        if p.len() <= max_depth {
            if let Some(ix) = want.remove(p) {
                for i in ix {
                    out[i] = Some(off);
                }
                remaining -= 1;
            }
        }
        remaining > 0
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_paths() {
        let src = "{\n  \"a\": [1, {\"b\": \"x\"}],\n  \"c/d\": null\n}";
        let p = JsonPath::root().key("a").index(1).key("b");
        let q = JsonPath::root().key("c/d");
        let r = JsonPath::root().key("zz");
        let offs = locate_paths(src, &[p.clone(), q, r]);
        assert_eq!(line_col(src, offs[0].unwrap()), (2, 18));
        assert_eq!(line_col(src, offs[1].unwrap()), (3, 10));
        assert_eq!(offs[2], None);
        assert_eq!(p.to_string(), "/a/1/b");
    }

    #[test]
    fn path_of_broken_offset() {
        let src = "{\"a\": [1, {\"b\": tru";
        let p = path_at_offset(src, src.len());
        assert_eq!(p.to_string(), "/a/1/b");
    }

    #[test]
    fn one_pass_line_cols_match_counting_from_the_start() {
        let src = "{\n  \"é\": [1,\n 2],\n\n  \"🧬x\": 3}";
        let offs: Vec<usize> = (0..=src.len())
            .filter(|&o| src.is_char_boundary(o))
            .collect();
        let naive = |o: usize| {
            let before = &src[..o];
            let line = before.matches('\n').count() + 1;
            let start = before.rfind('\n').map_or(0, |i| i + 1);
            (line, before[start..].chars().count() + 1)
        };
        let got = line_cols(src, &offs);
        for (o, lc) in offs.iter().zip(got) {
            assert_eq!(lc, naive(*o), "offset {o}");
        }
    }

    #[test]
    fn columns_count_characters() {
        let src = "{\"é\": 1}";
        assert_eq!(line_col(src, src.find('1').unwrap()), (1, 7));
    }
}
