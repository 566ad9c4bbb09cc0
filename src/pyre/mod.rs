//! Python 3.11's `re.compile` syntax, ported: does a pattern compile?
//!
//! Karenina compiles regex traits with Python's `re` (a `field_validator` on
//! `RegexRubricTrait`), so the regex lint (KLD-W019) must accept exactly what
//! `re.compile` accepts, not what a Rust engine accepts: `\Z`, `\N{EM DASH}`
//! and `(?P<name>…)` are Python, `\p{L}`, `(?<name>…)` and `\h` are not. This
//! module is a line-by-line port of CPython 3.11's `Lib/re/_parser.py`
//! (tokenizer, `_escape`, `_class_escape`, `_parse`, `_parse_sub`,
//! `_parse_flags`, group bookkeeping, `SubPattern.getwidth`) plus the checks
//! `Lib/re/_compiler.py` makes at compile time (look-behind width, the
//! ASCII/UNICODE flag clash). It builds only what those rules need (widths,
//! the last item's kind) and never matches text.
//!
//! Known limits, where Python's data differ from the crates': `\N{…}` uses
//! `unicode_names2` (a newer Unicode than Python 3.11's 14.0, so a name added
//! since is accepted here), group names use `unicode-ident`'s XID tables
//! (same caveat), and Python's recursion limit is approximated by a nesting
//! limit of `MAX_NESTING` groups.

use std::cell::Cell;
use std::fmt;

mod grammar;
mod lex;
#[cfg(test)]
mod tests;

use grammar::parse_sub;
use lex::Tokenizer;

/// `_sre.MAXREPEAT` on 64-bit CPython.
const MAXREPEAT: u128 = 4_294_967_295;
/// `_sre.MAXGROUPS` on 64-bit CPython.
const MAXGROUPS: u128 = 1_073_741_823;
/// `_compiler.MAXCODE` (CODESIZE 4).
const MAXCODE: u128 = (1 << 32) - 1;
/// `_parser.MAXWIDTH`.
const MAXWIDTH: u128 = 1 << 64;
/// Group nesting beyond which Python's recursion limit (1000 frames, two per
/// level in `_parse_sub`/`_parse`) stops `re.compile` with a RecursionError:
/// 496 levels when called directly, a few less under Karenina's own frames.
pub(crate) const MAX_NESTING: usize = 480;

const FLAG_IGNORECASE: u32 = 2;
const FLAG_LOCALE: u32 = 4;
const FLAG_MULTILINE: u32 = 8;
const FLAG_DOTALL: u32 = 16;
const FLAG_UNICODE: u32 = 32;
const FLAG_VERBOSE: u32 = 64;
const FLAG_DEBUG: u32 = 128;
const FLAG_ASCII: u32 = 256;
const FLAG_TEMPLATE: u32 = 1;
const TYPE_FLAGS: u32 = FLAG_ASCII | FLAG_LOCALE | FLAG_UNICODE;
const GLOBAL_FLAGS: u32 = FLAG_DEBUG | FLAG_TEMPLATE;

fn flag(c: char) -> Option<u32> {
    Some(match c {
        'i' => FLAG_IGNORECASE,
        'L' => FLAG_LOCALE,
        'm' => FLAG_MULTILINE,
        's' => FLAG_DOTALL,
        'x' => FLAG_VERBOSE,
        'a' => FLAG_ASCII,
        't' => FLAG_TEMPLATE,
        'u' => FLAG_UNICODE,
        _ => return None,
    })
}

/// Why `re.compile` refuses a pattern: Python's message and, for parse
/// errors, the position in code points (`re.error.pos`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PyReError {
    /// Python's message, e.g. `bad escape \p`.
    pub msg: String,
    /// Code-point offset into the pattern, when Python gives one.
    pub pos: Option<usize>,
}

impl fmt::Display for PyReError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pos {
            Some(p) => write!(f, "{} at position {p}", self.msg),
            None => f.write_str(&self.msg),
        }
    }
}

impl std::error::Error for PyReError {}

type R<T> = Result<T, PyReError>;

fn err<T>(msg: impl Into<String>, pos: usize) -> R<T> {
    Err(PyReError {
        msg: msg.into(),
        pos: Some(pos),
    })
}

/// Checks `pattern` as `re.compile(pattern)` (a `str` pattern, no flags) does.
pub fn check(pattern: &str) -> Result<(), PyReError> {
    let mut src = Tokenizer::new(pattern)?;
    let mut state = State::default();
    let p = parse_sub(&mut src, &mut state, false, 0)?;
    // fix_flags
    if state.flags & FLAG_ASCII != 0 && state.flags & FLAG_UNICODE != 0 {
        return Err(PyReError {
            msg: "ASCII and UNICODE flags are incompatible".into(),
            pos: None,
        });
    }
    if src.next.is_some() {
        return err("unbalanced parenthesis", src.tell());
    }
    let mut refs: Vec<_> = state.grouprefpos.iter().collect();
    refs.sort_by_key(|(_, pos)| **pos);
    for (g, pos) in refs {
        if *g >= state.groups() as u128 {
            return err(format!("invalid group reference {g}"), *pos);
        }
    }
    compile_checks(&p, &state, state.flags & FLAG_TEMPLATE != 0)
}

#[derive(Default)]
struct State {
    flags: u32,
    groupdict: std::collections::HashMap<String, usize>,
    /// Width of each closed group; group 0 is the whole pattern.
    groupwidths: Vec<Option<(u128, u128)>>,
    lookbehindgroups: Option<usize>,
    grouprefpos: std::collections::HashMap<u128, usize>,
}

impl State {
    fn groups(&self) -> usize {
        self.groupwidths.len().max(1)
    }
    fn opengroup(&mut self, name: Option<&str>) -> Result<usize, String> {
        if self.groupwidths.is_empty() {
            self.groupwidths.push(None);
        }
        let gid = self.groups();
        self.groupwidths.push(None);
        if self.groups() as u128 > MAXGROUPS {
            return Err("too many groups".into());
        }
        if let Some(name) = name {
            if let Some(ogid) = self.groupdict.get(name) {
                return Err(format!(
                    "redefinition of group name '{name}' as group {gid}; was group {ogid}"
                ));
            }
            self.groupdict.insert(name.to_string(), gid);
        }
        Ok(gid)
    }
    fn checkgroup(&self, gid: usize) -> bool {
        gid < self.groups() && self.groupwidths.get(gid).is_some_and(Option::is_some)
    }
    fn checklookbehindgroup(&self, gid: usize, src: &Tokenizer) -> R<()> {
        if let Some(lb) = self.lookbehindgroups {
            if !self.checkgroup(gid) {
                return err("cannot refer to an open group", src.tell());
            }
            if gid >= lb {
                return err(
                    "cannot refer to group defined in the same lookbehind subpattern",
                    src.tell(),
                );
            }
        }
        Ok(())
    }
}

/// The parts of an sre item the rules look at.
#[derive(Debug)]
enum Op {
    /// LITERAL, NOT_LITERAL, ANY, IN, CATEGORY: width 1.
    Unit,
    /// AT (`^`, `$`, `\A`, `\b`, `\B`, `\Z`): width 0, cannot be repeated.
    At,
    Branch(Vec<Sub>),
    /// A group: `(…)`, `(?:…)`, `(?flags:…)`.
    Subpattern {
        plain: bool,
        p: Sub,
    },
    Atomic(Sub),
    Repeat {
        min: u128,
        max: u128,
        item: Sub,
    },
    GroupRef(usize),
    GroupRefExists {
        yes: Sub,
        no: Option<Sub>,
    },
    Assert {
        behind: bool,
        p: Sub,
    },
}

#[derive(Debug, Default)]
struct Sub {
    items: Vec<Op>,
    width: Cell<Option<(u128, u128)>>,
}

impl Sub {
    fn of(items: Vec<Op>) -> Sub {
        Sub {
            items,
            width: Cell::new(None),
        }
    }
    /// `SubPattern.getwidth`, with Python's saturation at MAXWIDTH.
    fn width(&self, st: &State) -> (u128, u128) {
        if let Some(w) = self.width.get() {
            return w;
        }
        let (mut lo, mut hi) = (0u128, 0u128);
        for op in &self.items {
            let (i, j) = match op {
                Op::Unit => (1, 1),
                Op::At | Op::Assert { .. } => (0, 0),
                Op::Branch(bs) => {
                    let (mut i, mut j) = (MAXWIDTH, 0);
                    for b in bs {
                        let (l, h) = b.width(st);
                        i = i.min(l);
                        j = j.max(h);
                    }
                    (i, j)
                }
                Op::Subpattern { p, .. } | Op::Atomic(p) => p.width(st),
                Op::Repeat { min, max, item } => {
                    let (i, j) = item.width(st);
                    let lo_add = i.saturating_mul(*min);
                    let hi_add = if *max == MAXREPEAT && j > 0 {
                        MAXWIDTH
                    } else {
                        j.saturating_mul(*max)
                    };
                    (lo_add, hi_add)
                }
                Op::GroupRef(g) => st.groupwidths.get(*g).copied().flatten().unwrap_or((0, 0)),
                Op::GroupRefExists { yes, no } => {
                    let (mut i, mut j) = yes.width(st);
                    match no {
                        Some(n) => {
                            let (l, h) = n.width(st);
                            i = i.min(l);
                            j = j.max(h);
                        }
                        None => i = 0,
                    }
                    (i, j)
                }
            };
            lo = lo.saturating_add(i);
            hi = hi.saturating_add(j);
        }
        let w = (lo.min(MAXWIDTH), hi.min(MAXWIDTH));
        self.width.set(Some(w));
        w
    }
}

/// The checks `_compiler._compile` makes, in its traversal order (`template`:
/// the global `(?t)` flag, under which no repeat compiles).
fn compile_checks(p: &Sub, st: &State, template: bool) -> R<()> {
    for op in &p.items {
        match op {
            Op::Unit | Op::At | Op::GroupRef(_) => {}
            Op::Branch(bs) => {
                for b in bs {
                    compile_checks(b, st, template)?;
                }
            }
            Op::Subpattern { p, .. } | Op::Atomic(p) => compile_checks(p, st, template)?,
            Op::Repeat { item, .. } => {
                if template {
                    return Err(PyReError {
                        msg: "internal: unsupported template operator MAX_REPEAT".into(),
                        pos: None,
                    });
                }
                compile_checks(item, st, template)?
            }
            Op::GroupRefExists { yes, no } => {
                compile_checks(yes, st, template)?;
                if let Some(n) = no {
                    compile_checks(n, st, template)?;
                }
            }
            Op::Assert { behind, p } => {
                if *behind {
                    let (lo, hi) = p.width(st);
                    let msg = if lo > MAXCODE {
                        "looks too much behind"
                    } else if lo != hi {
                        "look-behind requires fixed-width pattern"
                    } else {
                        ""
                    };
                    if !msg.is_empty() {
                        return Err(PyReError {
                            msg: msg.into(),
                            pos: None,
                        });
                    }
                }
                compile_checks(p, st, template)?;
            }
        }
    }
    Ok(())
}
