//! The parser proper: `_parse_sub`, `_parse`, character classes, groups and
//! `_parse_flags`.

use super::lex::*;
use super::*;

/// `_parse_sub`: alternatives separated by `|`.
pub(super) fn parse_sub(
    src: &mut Tokenizer,
    state: &mut State,
    mut verbose: bool,
    nested: usize,
) -> R<Sub> {
    if nested / 2 > MAX_NESTING {
        return Err(PyReError {
            msg: "maximum recursion depth exceeded (groups nested too deeply for Python)".into(),
            pos: None,
        });
    }
    let mut items = Vec::new();
    loop {
        let first = nested == 0 && items.is_empty();
        // Deep nesting runs on a grown stack segment, as deep SPARQL does.
        let item = stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            parse(src, state, verbose, nested + 1, first)
        })?;
        items.push(item);
        if !src.matches('|')? {
            break;
        }
        if nested == 0 {
            verbose = state.flags & FLAG_VERBOSE != 0;
        }
    }
    if items.len() == 1 {
        return Ok(items.pop().unwrap_or_default());
    }
    Ok(Sub::of(vec![Op::Branch(items)]))
}

pub(super) const SPECIAL_CHARS: &str = ".\\[{()*+?^$|";
pub(super) const WHITESPACE: &str = " \t\n\r\u{b}\u{c}";

/// `_parse`: one alternative.
pub(super) fn parse(
    src: &mut Tokenizer,
    state: &mut State,
    mut verbose: bool,
    nested: usize,
    first: bool,
) -> R<Sub> {
    let mut sub: Vec<Op> = Vec::new();
    while let Some(this) = src.next {
        if this.is('|') || this.is(')') {
            break;
        }
        src.advance()?;
        if verbose {
            if let Tok::Ch(c) = this {
                if WHITESPACE.contains(c) {
                    continue;
                }
                if c == '#' {
                    loop {
                        match src.get()? {
                            None => break,
                            Some(t) if t.is('\n') => break,
                            _ => {}
                        }
                    }
                    continue;
                }
            }
        }
        let c = match this {
            Tok::Esc(e) => {
                sub.push(match escape(src, e, state)? {
                    Code::At => Op::At,
                    Code::GroupRef(g) => Op::GroupRef(g),
                    Code::Literal(_) | Code::Category => Op::Unit,
                });
                continue;
            }
            Tok::Ch(c) => c,
        };
        if !SPECIAL_CHARS.contains(c) {
            sub.push(Op::Unit);
            continue;
        }
        match c {
            '[' => parse_class(src)?,
            '?' | '*' | '+' | '{' => {
                let here = src.tell();
                let (min, max) = match c {
                    '?' => (0, 1),
                    '*' => (0, MAXREPEAT),
                    '+' => (1, MAXREPEAT),
                    _ => {
                        if src.next == Some(Tok::Ch('}')) {
                            sub.push(Op::Unit);
                            continue;
                        }
                        let (mut lo, mut hi) = (String::new(), String::new());
                        while let Some(d) = src.next.and_then(|t| t.digit_in(DIGITS)) {
                            lo.push(d);
                            src.advance()?;
                        }
                        if src.matches(',')? {
                            while let Some(d) = src.next.and_then(|t| t.digit_in(DIGITS)) {
                                hi.push(d);
                                src.advance()?;
                            }
                        } else {
                            hi = lo.clone();
                        }
                        if !src.matches('}')? {
                            sub.push(Op::Unit);
                            src.seek(here)?;
                            continue;
                        }
                        // int(digits); at MAXREPEAT Python raises OverflowError.
                        let bound = |s: &str| -> R<u128> {
                            let n = s.bytes().fold(0u128, |v, b| {
                                v.saturating_mul(10).saturating_add((b - b'0') as u128)
                            });
                            if n >= MAXREPEAT {
                                return Err(PyReError {
                                    msg: "the repetition number is too large (OverflowError)"
                                        .into(),
                                    pos: None,
                                });
                            }
                            Ok(n)
                        };
                        let (mut min, mut max) = (0, MAXREPEAT);
                        if !lo.is_empty() {
                            min = bound(&lo)?;
                        }
                        if !hi.is_empty() {
                            max = bound(&hi)?;
                            if max < min {
                                return err("min repeat greater than max repeat", here);
                            }
                        }
                        (min, max)
                    }
                };
                match sub.last() {
                    None | Some(Op::At) => return err("nothing to repeat", here - 1),
                    Some(Op::Repeat { .. }) => return err("multiple repeat", here - 1),
                    _ => {}
                }
                let item = match sub.pop() {
                    Some(Op::Subpattern { plain: true, p }) => p,
                    Some(op) => Sub::of(vec![op]),
                    None => Sub::default(),
                };
                if !src.matches('?')? {
                    src.matches('+')?;
                }
                sub.push(Op::Repeat { min, max, item });
            }
            '.' => sub.push(Op::Unit),
            '(' => {
                let start = src.tell() - 1;
                if let Some(op) = parse_group(src, state, &mut verbose, nested, first, &sub, start)?
                {
                    sub.push(op);
                }
            }
            '^' | '$' => sub.push(Op::At),
            _ => {}
        }
        if c == '[' {
            sub.push(Op::Unit);
        }
    }
    // Plain (?:…) groups are inlined at the end of _parse.
    let mut out = Vec::with_capacity(sub.len());
    for op in sub {
        match op {
            Op::Subpattern { plain: true, p } => out.extend(p.items),
            op => out.push(op),
        }
    }
    Ok(Sub::of(out))
}

/// The inside of `[…]`, after the `[`.
pub(super) fn parse_class(src: &mut Tokenizer) -> R<()> {
    let here = src.tell() - 1;
    let mut nonempty = false;
    src.matches('^')?;
    loop {
        let Some(this) = src.get()? else {
            return err("unterminated character set", here);
        };
        if this.is(']') && nonempty {
            return Ok(());
        }
        let code1 = match this {
            Tok::Esc(c) => class_escape(src, c)?,
            Tok::Ch(c) => Code::Literal(c as u32),
        };
        if src.matches('-')? {
            let Some(that) = src.get()? else {
                return err("unterminated character set", here);
            };
            if that.is(']') {
                return Ok(());
            }
            let code2 = match that {
                Tok::Esc(c) => class_escape(src, c)?,
                Tok::Ch(c) => Code::Literal(c as u32),
            };
            let range = |t: Tok| {
                let mut s = String::new();
                t.push_to(&mut s);
                s
            };
            let msg = format!("bad character range {}-{}", range(this), range(that));
            let pos = src.tell() - (this.len() + 1 + that.len());
            match (code1, code2) {
                (Code::Literal(lo), Code::Literal(hi)) if hi >= lo => {}
                _ => return err(msg, pos),
            }
        }
        nonempty = true;
    }
}

/// `(` … `)`: groups, assertions, conditionals, flags, comments. `None` when
/// nothing is appended (a comment, global flags).
pub(super) fn parse_group(
    src: &mut Tokenizer,
    state: &mut State,
    verbose: &mut bool,
    nested: usize,
    first: bool,
    sub: &[Op],
    start: usize,
) -> R<Option<Op>> {
    let mut capture = true;
    let mut atomic = false;
    let mut name: Option<String> = None;
    let (mut add_flags, mut del_flags) = (0u32, 0u32);
    let unterminated =
        |src: &Tokenizer| err("missing ), unterminated subpattern", start.min(src.tell()));
    if src.matches('?')? {
        let Some(ch) = src.get()? else {
            return err("unexpected end of pattern", src.tell());
        };
        let ch = match ch {
            Tok::Ch(c) => c,
            Tok::Esc(c) => return err(format!("unknown extension ?\\{c}"), src.tell() - 3),
        };
        match ch {
            'P' => {
                if src.matches('<')? {
                    let n = src.getuntil('>', "group name")?;
                    checkgroupname(src, &n, 1)?;
                    name = Some(n);
                } else if src.matches('=')? {
                    let n = src.getuntil(')', "group name")?;
                    checkgroupname(src, &n, 1)?;
                    let back = n.chars().count() + 1;
                    let Some(&gid) = state.groupdict.get(&n) else {
                        return err(format!("unknown group name '{n}'"), src.tell() - back);
                    };
                    if !state.checkgroup(gid) {
                        return err("cannot refer to an open group", src.tell() - back);
                    }
                    state.checklookbehindgroup(gid, src)?;
                    return Ok(Some(Op::GroupRef(gid)));
                } else {
                    return match src.get()? {
                        None => err("unexpected end of pattern", src.tell()),
                        Some(t) => {
                            let mut s = String::new();
                            t.push_to(&mut s);
                            err(format!("unknown extension ?P{s}"), src.tell() - t.len() - 2)
                        }
                    };
                }
            }
            ':' => capture = false,
            '#' => loop {
                match src.get()? {
                    None => return err("missing ), unterminated comment", start),
                    Some(t) if t.is(')') => return Ok(None),
                    _ => {}
                }
            },
            '=' | '!' | '<' => {
                let mut behind = false;
                let mut outer_lookbehind = None;
                if ch == '<' {
                    match src.get()? {
                        None => return err("unexpected end of pattern", src.tell()),
                        Some(Tok::Ch('=' | '!')) => {}
                        Some(t) => {
                            let mut s = String::new();
                            t.push_to(&mut s);
                            return err(
                                format!("unknown extension ?<{s}"),
                                src.tell() - t.len() - 2,
                            );
                        }
                    }
                    behind = true;
                    outer_lookbehind = Some(state.lookbehindgroups);
                    if state.lookbehindgroups.is_none() {
                        state.lookbehindgroups = Some(state.groups());
                    }
                }
                let p = parse_sub(src, state, *verbose, nested + 1)?;
                if let Some(None) = outer_lookbehind {
                    state.lookbehindgroups = None;
                }
                if !src.matches(')')? {
                    return unterminated(src);
                }
                return Ok(Some(Op::Assert { behind, p }));
            }
            '(' => {
                let condname = src.getuntil(')', "group name")?;
                let back = condname.chars().count() + 1;
                let condgroup: usize;
                if is_identifier(&condname) {
                    match state.groupdict.get(&condname) {
                        Some(&g) => condgroup = g,
                        None => {
                            return err(
                                format!("unknown group name '{condname}'"),
                                src.tell() - back,
                            )
                        }
                    }
                } else {
                    let bad = || {
                        err(
                            format!("bad character in group name '{condname}'"),
                            src.tell() - back,
                        )
                    };
                    let Some((neg, v)) = py_int(&condname) else {
                        return bad();
                    };
                    if neg && v != 0 {
                        return bad();
                    }
                    if v == 0 {
                        return err("bad group number", src.tell() - back);
                    }
                    if v >= MAXGROUPS {
                        return err(format!("invalid group reference {v}"), src.tell() - back);
                    }
                    state.grouprefpos.entry(v).or_insert(src.tell() - back);
                    condgroup = v as usize;
                }
                state.checklookbehindgroup(condgroup, src)?;
                let yes = parse(src, state, *verbose, nested + 1, false)?;
                let no = if src.matches('|')? {
                    let no = parse(src, state, *verbose, nested + 1, false)?;
                    if src.next == Some(Tok::Ch('|')) {
                        return err(
                            "conditional backref with more than two branches",
                            src.tell(),
                        );
                    }
                    Some(no)
                } else {
                    None
                };
                if !src.matches(')')? {
                    return unterminated(src);
                }
                return Ok(Some(Op::GroupRefExists { yes, no }));
            }
            '>' => {
                capture = false;
                atomic = true;
            }
            c if flag(c).is_some() || c == '-' => match parse_flags(src, state, c)? {
                None => {
                    if !first || !sub.is_empty() {
                        return err("global flags not at the start of the expression", start);
                    }
                    *verbose = state.flags & FLAG_VERBOSE != 0;
                    return Ok(None);
                }
                Some((a, d)) => {
                    add_flags = a;
                    del_flags = d;
                    capture = false;
                }
            },
            c => return err(format!("unknown extension ?{c}"), src.tell() - 2),
        }
    }
    let group = if capture {
        match state.opengroup(name.as_deref()) {
            Ok(g) => Some(g),
            Err(msg) => {
                return err(
                    msg,
                    src.tell() - name.as_deref().map_or(0, |n| n.chars().count()) - 1,
                )
            }
        }
    } else {
        None
    };
    let sub_verbose = (*verbose || add_flags & FLAG_VERBOSE != 0) && del_flags & FLAG_VERBOSE == 0;
    let p = parse_sub(src, state, sub_verbose, nested + 1)?;
    if !src.matches(')')? {
        return unterminated(src);
    }
    if let Some(g) = group {
        let w = p.width(state);
        state.groupwidths[g] = Some(w);
    }
    Ok(Some(if atomic {
        Op::Atomic(p)
    } else {
        Op::Subpattern {
            plain: group.is_none() && add_flags == 0 && del_flags == 0,
            p,
        }
    }))
}

/// `_parse_flags`: `Some((add, del))` for a scoped group, `None` for global flags.
pub(super) fn parse_flags(
    src: &mut Tokenizer,
    state: &mut State,
    mut ch: char,
) -> R<Option<(u32, u32)>> {
    let (mut add, mut del) = (0u32, 0u32);
    let next_char = |src: &mut Tokenizer| -> R<Option<Tok>> { src.get() };
    let not_flag_msg = |t: Tok, otherwise: &str| -> String {
        match t {
            Tok::Ch(c) if c.is_alphabetic() => "unknown flag".into(),
            _ => otherwise.into(),
        }
    };
    if ch != '-' {
        loop {
            let f = flag(ch).unwrap_or(0);
            if ch == 'L' {
                return err(
                    "bad inline flags: cannot use 'L' flag with a str pattern",
                    src.tell(),
                );
            }
            add |= f;
            if f & TYPE_FLAGS != 0 && add & TYPE_FLAGS != f {
                return err(
                    "bad inline flags: flags 'a', 'u' and 'L' are incompatible",
                    src.tell(),
                );
            }
            match next_char(src)? {
                None => return err("missing -, : or )", src.tell()),
                Some(Tok::Ch(c @ (')' | '-' | ':'))) => {
                    ch = c;
                    break;
                }
                Some(Tok::Ch(c)) if flag(c).is_some() => ch = c,
                Some(t) => return err(not_flag_msg(t, "missing -, : or )"), src.tell() - t.len()),
            }
        }
    }
    if ch == ')' {
        state.flags |= add;
        return Ok(None);
    }
    if add & GLOBAL_FLAGS != 0 {
        return err(
            "bad inline flags: cannot turn on global flag",
            src.tell() - 1,
        );
    }
    if ch == '-' {
        match next_char(src)? {
            None => return err("missing flag", src.tell()),
            Some(Tok::Ch(c)) if flag(c).is_some() => ch = c,
            Some(t) => return err(not_flag_msg(t, "missing flag"), src.tell() - t.len()),
        }
        loop {
            let f = flag(ch).unwrap_or(0);
            if f & TYPE_FLAGS != 0 {
                return err(
                    "bad inline flags: cannot turn off flags 'a', 'u' and 'L'",
                    src.tell(),
                );
            }
            del |= f;
            match next_char(src)? {
                None => return err("missing :", src.tell()),
                Some(Tok::Ch(':')) => break,
                Some(Tok::Ch(c)) if flag(c).is_some() => ch = c,
                Some(t) => return err(not_flag_msg(t, "missing :"), src.tell() - t.len()),
            }
        }
    }
    if del & GLOBAL_FLAGS != 0 {
        return err(
            "bad inline flags: cannot turn off global flag",
            src.tell() - 1,
        );
    }
    if add & del != 0 {
        return err("bad inline flags: flag turned on and off", src.tell() - 1);
    }
    Ok(Some((add, del)))
}
