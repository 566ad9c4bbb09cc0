//! The tokenizer and the escapes: `Tokenizer`, `_escape`, `_class_escape`,
//! group names and numbers, `\N{…}` names.

use super::*;

/// One token: a character or a backslash escape (two characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    Ch(char),
    Esc(char),
}

impl Tok {
    pub(super) fn len(self) -> usize {
        match self {
            Tok::Ch(_) => 1,
            Tok::Esc(_) => 2,
        }
    }
    pub(super) fn is(self, c: char) -> bool {
        self == Tok::Ch(c)
    }
    pub(super) fn digit_in(self, set: &str) -> Option<char> {
        match self {
            Tok::Ch(c) if set.contains(c) => Some(c),
            _ => None,
        }
    }
    pub(super) fn push_to(self, s: &mut String) {
        match self {
            Tok::Ch(c) => s.push(c),
            Tok::Esc(c) => {
                s.push('\\');
                s.push(c)
            }
        }
    }
}

pub(super) const DIGITS: &str = "0123456789";
pub(super) const OCTDIGITS: &str = "01234567";
pub(super) const HEXDIGITS: &str = "0123456789abcdefABCDEF";

pub(super) struct Tokenizer {
    s: Vec<char>,
    index: usize,
    /// The next token (`None` at the end), as `Tokenizer.next`.
    pub(super) next: Option<Tok>,
}

impl Tokenizer {
    pub(super) fn new(pattern: &str) -> R<Self> {
        let mut t = Tokenizer {
            s: pattern.chars().collect(),
            index: 0,
            next: None,
        };
        t.advance()?;
        Ok(t)
    }
    pub(super) fn advance(&mut self) -> R<()> {
        let Some(&c) = self.s.get(self.index) else {
            self.next = None;
            return Ok(());
        };
        if c == '\\' {
            match self.s.get(self.index + 1) {
                Some(&d) => {
                    self.index += 2;
                    self.next = Some(Tok::Esc(d));
                }
                None => return err("bad escape (end of pattern)", self.s.len() - 1),
            }
        } else {
            self.index += 1;
            self.next = Some(Tok::Ch(c));
        }
        Ok(())
    }
    pub(super) fn matches(&mut self, c: char) -> R<bool> {
        if self.next == Some(Tok::Ch(c)) {
            self.advance()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }
    pub(super) fn get(&mut self) -> R<Option<Tok>> {
        let this = self.next;
        self.advance()?;
        Ok(this)
    }
    pub(super) fn getwhile(&mut self, n: usize, set: &str) -> R<String> {
        let mut out = String::new();
        for _ in 0..n {
            match self.next.and_then(|t| t.digit_in(set)) {
                Some(c) => {
                    out.push(c);
                    self.advance()?;
                }
                None => break,
            }
        }
        Ok(out)
    }
    pub(super) fn getuntil(&mut self, terminator: char, name: &str) -> R<String> {
        let mut result = String::new();
        let mut n = 0;
        loop {
            let c = self.next;
            self.advance()?;
            match c {
                None if n == 0 => return err(format!("missing {name}"), self.tell()),
                None => {
                    return err(
                        format!("missing {terminator}, unterminated name"),
                        self.tell() - n,
                    )
                }
                Some(t) if t.is(terminator) => {
                    if n == 0 {
                        return err(format!("missing {name}"), self.tell() - 1);
                    }
                    return Ok(result);
                }
                Some(t) => {
                    t.push_to(&mut result);
                    n += t.len();
                }
            }
        }
    }
    pub(super) fn tell(&self) -> usize {
        self.index - self.next.map_or(0, Tok::len)
    }
    pub(super) fn seek(&mut self, index: usize) -> R<()> {
        self.index = index;
        self.advance()
    }
}

/// Python's `str.isidentifier()`.
pub(super) fn is_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    match cs.next() {
        Some(c) if c == '_' || unicode_ident::is_xid_start(c) => {
            cs.all(unicode_ident::is_xid_continue)
        }
        _ => false,
    }
}

pub(super) fn checkgroupname(src: &Tokenizer, name: &str, offset: usize) -> R<()> {
    if !is_identifier(name) {
        return err(
            format!("bad character in group name '{name}'"),
            src.tell() - name.chars().count() - offset,
        );
    }
    Ok(())
}

/// Python's `int(s)` for a group number: `None` when it raises ValueError;
/// `Some((negative, magnitude))`, saturating.
pub(super) fn py_int(s: &str) -> Option<(bool, u128)> {
    let t = s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c));
    let (neg, digits) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    let mut v: u128 = 0;
    for c in digits.chars().filter(|c| *c != '_') {
        let d = decimal(c)?;
        v = v.saturating_mul(10).saturating_add(d as u128);
    }
    Some((neg, v))
}

/// The zero of every run of Unicode decimal digits (category Nd) in Python
/// 3.11's `unicodedata` (Unicode 14.0): `int()` reads them all.
pub(super) const DECIMAL_ZEROS: [u32; 66] = [
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50,
    0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
];

/// `unicodedata.decimal(c)`.
pub(super) fn decimal(c: char) -> Option<u32> {
    let c = c as u32;
    DECIMAL_ZEROS
        .iter()
        .find(|z| (**z..**z + 10).contains(&c))
        .map(|z| c - z)
}

pub(super) fn lookup_name(name: &str) -> Option<char> {
    // Python matches names and aliases exactly, ignoring ASCII case only;
    // unicode_names2 matches loosely (UAX44-LM2), so check the spelling.
    let upper = name.to_ascii_uppercase();
    let c = unicode_names2::character(&upper)?;
    if let Some(n) = unicode_names2::name(c) {
        if n.to_string() == upper {
            return Some(c);
        }
    }
    // An alias: its exact spelling is not exposed; require the canonical
    // shape of a Unicode name (words of A-Z 0-9 and medial hyphens, single spaces).
    let canonical = !upper.is_empty()
        && upper.split(' ').all(|w| {
            !w.is_empty()
                && !w.starts_with('-')
                && !w.ends_with('-')
                && !w.contains("--")
                && w.bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-')
        });
    canonical.then_some(c)
}

/// What an escape stands for (the parts the rules need).
pub(super) enum Code {
    Literal(u32),
    /// A category (`\d`, `\w`, …) inside or outside a class.
    Category,
    At,
    GroupRef(usize),
}

/// `\\x`, `\\u`, `\\U`: exactly `n` hex digits, else "incomplete escape".
fn hex_escape(src: &mut Tokenizer, escape: &mut String, n: usize) -> R<u32> {
    escape.push_str(&src.getwhile(n, HEXDIGITS)?);
    let len = escape.chars().count();
    if len != n + 2 {
        return err(format!("incomplete escape {escape}"), src.tell() - len);
    }
    Ok(u32::from_str_radix(&escape[2..], 16).unwrap_or(u32::MAX))
}

pub(super) fn char_escape(src: &mut Tokenizer, c: char, escape: &mut String) -> R<Option<Code>> {
    let esc_len = |e: &String| e.chars().count();
    match c {
        'x' | 'u' => {
            let v = hex_escape(src, escape, if c == 'x' { 2 } else { 4 })?;
            Ok(Some(Code::Literal(v)))
        }
        'U' => {
            let v = hex_escape(src, escape, 8)?;
            if v > 0x10FFFF {
                // chr() raises ValueError, which becomes "bad escape".
                return err(format!("bad escape {escape}"), src.tell() - esc_len(escape));
            }
            Ok(Some(Code::Literal(v)))
        }
        'N' => {
            if !src.matches('{')? {
                return err("missing {", src.tell());
            }
            let charname = src.getuntil('}', "character name")?;
            match lookup_name(&charname) {
                Some(ch) => Ok(Some(Code::Literal(ch as u32))),
                None => err(
                    format!("undefined character name '{charname}'"),
                    src.tell() - charname.chars().count() - 4,
                ),
            }
        }
        _ => Ok(None),
    }
}

pub(super) fn simple_escape(c: char) -> Option<Code> {
    match c {
        'a' | 'b' | 'f' | 'n' | 'r' | 't' | 'v' | '\\' => Some(Code::Literal(c as u32)),
        _ => None,
    }
}

pub(super) fn category(c: char) -> Option<Code> {
    match c {
        'd' | 'D' | 's' | 'S' | 'w' | 'W' => Some(Code::Category),
        'A' | 'b' | 'B' | 'Z' => Some(Code::At),
        _ => None,
    }
}

/// `_class_escape`: an escape inside `[…]`.
pub(super) fn class_escape(src: &mut Tokenizer, c: char) -> R<Code> {
    if let Some(code) = simple_escape(c) {
        return Ok(code);
    }
    if let Some(Code::Category) = category(c) {
        return Ok(Code::Category);
    }
    let mut escape = format!("\\{c}");
    if let Some(code) = char_escape(src, c, &mut escape)? {
        return Ok(code);
    }
    if OCTDIGITS.contains(c) {
        escape.push_str(&src.getwhile(2, OCTDIGITS)?);
        let v = u32::from_str_radix(&escape[1..], 8).unwrap_or(0);
        if v > 0o377 {
            return err(
                format!("octal escape value {escape} outside of range 0-0o377"),
                src.tell() - escape.chars().count(),
            );
        }
        return Ok(Code::Literal(v));
    }
    if !DIGITS.contains(c) && !c.is_ascii_alphabetic() {
        return Ok(Code::Literal(c as u32));
    }
    err(
        format!("bad escape {escape}"),
        src.tell() - escape.chars().count(),
    )
}

/// `_escape`: an escape outside a class.
pub(super) fn escape(src: &mut Tokenizer, c: char, state: &State) -> R<Code> {
    if let Some(code) = category(c) {
        return Ok(code);
    }
    if let Some(code) = simple_escape(c) {
        return Ok(code);
    }
    let mut escape = format!("\\{c}");
    if let Some(code) = char_escape(src, c, &mut escape)? {
        return Ok(code);
    }
    if c == '0' {
        escape.push_str(&src.getwhile(2, OCTDIGITS)?);
        return Ok(Code::Literal(
            u32::from_str_radix(&escape[1..], 8).unwrap_or(0),
        ));
    }
    if DIGITS.contains(c) {
        if let Some(d) = src.next.and_then(|t| t.digit_in(DIGITS)) {
            src.advance()?;
            escape.push(d);
            let third = src.next.and_then(|t| t.digit_in(OCTDIGITS));
            if OCTDIGITS.contains(c) && OCTDIGITS.contains(d) && third.is_some() {
                src.advance()?;
                escape.push(third.unwrap_or('0'));
                let v = u32::from_str_radix(&escape[1..], 8).unwrap_or(0);
                if v > 0o377 {
                    return err(
                        format!("octal escape value {escape} outside of range 0-0o377"),
                        src.tell() - escape.len(),
                    );
                }
                return Ok(Code::Literal(v));
            }
        }
        let group: usize = escape[1..].parse().unwrap_or(usize::MAX);
        if group < state.groups() {
            if !state.checkgroup(group) {
                return err("cannot refer to an open group", src.tell() - escape.len());
            }
            state.checklookbehindgroup(group, src)?;
            return Ok(Code::GroupRef(group));
        }
        return err(
            format!("invalid group reference {group}"),
            src.tell() - (escape.len() - 1),
        );
    }
    if !c.is_ascii_alphabetic() {
        return Ok(Code::Literal(c as u32));
    }
    err(
        format!("bad escape {escape}"),
        src.tell() - escape.chars().count(),
    )
}
