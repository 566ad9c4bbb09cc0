//! Byte-exact reproduction of Python's `json.dump(obj, f, indent=2, ensure_ascii=…)`.
//!
//! Karenina writes checkpoints with `ensure_ascii=False` and presets with the
//! default `ensure_ascii=True`; both use `indent=2`, `": "` between key and value,
//! `","` + newline between items, no trailing newline, and Python's float `repr`.
//! Canonical files are only canonical if every byte matches, so this module owns
//! those rules in one place.

use super::{Json, Number, PyNumber};

/// Python's `repr(float)`: shortest round-trip digits, exponent form when the
/// decimal exponent is < -4 or >= 16 (`1e-05`, `1e+16`), otherwise fixed with at
/// least one fractional digit (`1.0`, `0.30000000000000004`).
pub(crate) fn float_repr(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "-1.2345e-7".
    let sci = format!("{v:e}");
    let (neg, sci) = match sci.strip_prefix('-') {
        Some(s) => (true, s),
        None => (false, sci.as_str()),
    };
    let (mant, exp) = sci.split_once('e').expect("`{:e}` always has an exponent");
    let exp: i32 = exp.parse().expect("integer exponent");
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let mut out = String::with_capacity(24);
    if neg {
        out.push('-');
    }
    if !(-4..16).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.abs()));
    } else if exp >= 0 {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', int_len - digits.len()));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
        out.push_str(&digits);
    }
    out
}

/// What Python writes for a JSON number it read: ints exactly (`-0` → `0`),
/// floats in `repr` form (`1E5` → `100000.0`).
pub(crate) fn number_repr(n: &Number) -> String {
    match n.to_py() {
        PyNumber::Int(s) => {
            if s.bytes().all(|b| b == b'0' || b == b'-') {
                "0".into()
            } else {
                s.to_string()
            }
        }
        PyNumber::Float(f) => float_repr(f),
    }
}

/// A streaming writer with Python's `indent=2` layout.
pub(crate) struct PyWriter {
    out: String,
    ascii: bool,
    /// One entry per open container: has it had an element yet?
    stack: Vec<bool>,
}

impl PyWriter {
    /// A writer; `ensure_ascii` escapes every non-ASCII character as `\uXXXX`.
    pub fn new(ensure_ascii: bool) -> Self {
        PyWriter {
            out: String::with_capacity(1 << 16),
            ascii: ensure_ascii,
            stack: Vec::new(),
        }
    }

    /// The bytes written so far.
    pub(crate) fn finish(self) -> String {
        self.out
    }

    fn newline_indent(&mut self) {
        self.out.push('\n');
        for _ in 0..self.stack.len() {
            self.out.push_str("  ");
        }
    }

    fn next_slot(&mut self) {
        if let Some(had) = self.stack.last_mut() {
            if *had {
                self.out.push(',');
            }
            *had = true;
            self.newline_indent();
        }
    }

    /// `{`
    pub(crate) fn begin_object(&mut self) {
        self.out.push('{');
        self.stack.push(false);
    }

    /// `}` (on its own line unless the object is empty).
    pub(crate) fn end_object(&mut self) {
        self.close('}');
    }

    /// `[`
    pub(crate) fn begin_array(&mut self) {
        self.out.push('[');
        self.stack.push(false);
    }

    /// `]`
    pub(crate) fn end_array(&mut self) {
        self.close(']');
    }

    fn close(&mut self, c: char) {
        let had = self.stack.pop().unwrap_or(false);
        if had {
            self.newline_indent();
        }
        self.out.push(c);
    }

    /// Starts an object member: the key and `": "`; the value follows.
    pub(crate) fn key(&mut self, k: &str) {
        self.next_slot();
        self.string_raw(k);
        self.out.push_str(": ");
    }

    /// Starts an array element; the value follows.
    pub(crate) fn element(&mut self) {
        self.next_slot();
    }

    /// A string value.
    pub(crate) fn string(&mut self, s: &str) {
        self.string_raw(s);
    }

    /// A float value in `repr` form.
    pub(crate) fn float(&mut self, v: f64) {
        self.out.push_str(&float_repr(v));
    }

    /// A JSON number as Python would re-write it.
    pub(crate) fn number(&mut self, n: &Number) {
        self.out.push_str(&number_repr(n));
    }

    /// `true`/`false`.
    pub(crate) fn bool(&mut self, b: bool) {
        self.out.push_str(if b { "true" } else { "false" });
    }

    /// `null`.
    pub(crate) fn null(&mut self) {
        self.out.push_str("null");
    }

    /// Any JSON value, recursively.
    pub fn json(&mut self, v: &Json) {
        match v {
            Json::Null => self.null(),
            Json::Bool(b) => self.bool(*b),
            Json::Number(n) => self.number(n),
            Json::String(s) => self.string(s),
            Json::Array(a) => {
                self.begin_array();
                for x in a {
                    self.element();
                    self.json(x);
                }
                self.end_array();
            }
            Json::Object(o) => {
                self.begin_object();
                for (k, x) in o.iter() {
                    self.key(k);
                    self.json(x);
                }
                self.end_object();
            }
        }
    }

    /// A member `"k": <string>`.
    pub(crate) fn field_str(&mut self, k: &str, v: &str) {
        self.key(k);
        self.string(v);
    }

    /// A member `"k": <json>`.
    pub(crate) fn field_json(&mut self, k: &str, v: &Json) {
        self.key(k);
        self.json(v);
    }

    fn string_raw(&mut self, s: &str) {
        escape_into(&mut self.out, s, self.ascii);
    }
}

/// Appends `s` as a JSON string literal the way Python's encoder does.
pub(crate) fn escape_into(out: &mut String, s: &str, ascii: bool) {
    out.push('"');
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let esc: Option<&str> = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            _ => None,
        };
        let needs = esc.is_some() || (c as u32) < 0x20 || (ascii && (c as u32) > 0x7e);
        if !needs {
            continue;
        }
        out.push_str(&s[start..i]);
        start = i + c.len_utf8();
        if let Some(e) = esc {
            out.push_str(e);
        } else if (c as u32) < 0x20 || (c as u32) == 0x7f || (c as u32) < 0x10000 {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            let mut buf = [0u16; 2];
            for unit in c.encode_utf16(&mut buf) {
                out.push_str(&format!("\\u{:04x}", unit));
            }
        }
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// `json.dumps(v, indent=2, ensure_ascii=…)` of a whole value.
pub fn dumps(v: &Json, ensure_ascii: bool) -> String {
    let mut w = PyWriter::new(ensure_ascii);
    w.json(v);
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_python() {
        let cases = [
            (1.0, "1.0"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (5.0, "5.0"),
            (1e20, "1e+20"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1e-7, "1e-07"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1234567890123456.7, "1234567890123456.8"),
            (1.5e300, "1.5e+300"),
            (-2.5e-10, "-2.5e-10"),
            (123.456, "123.456"),
            (0.85, "0.85"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
        ];
        for (v, want) in cases {
            assert_eq!(float_repr(v), want, "{v:?}");
        }
    }

    #[test]
    fn number_repr_follows_python_types() {
        let n = |s: &str| number_repr(&Number::from_lexical(s));
        assert_eq!(n("1"), "1");
        assert_eq!(n("-0"), "0");
        assert_eq!(n("1E5"), "100000.0");
        assert_eq!(n("1.000"), "1.0");
        assert_eq!(n("100000000000000000000000"), "100000000000000000000000");
        assert_eq!(n("2e-7"), "2e-07");
    }

    #[test]
    fn escapes_like_python() {
        let mut s = String::new();
        escape_into(&mut s, "a\"\\\n\t\u{1}\u{7f}é\u{2028}🧬/", false);
        assert_eq!(s, "\"a\\\"\\\\\\n\\t\\u0001\u{7f}é\u{2028}🧬/\"");
        let mut s = String::new();
        escape_into(&mut s, "é🧬\u{1f}", true);
        assert_eq!(s, "\"\\u00e9\\ud83e\\uddec\\u001f\"");
    }

    #[test]
    fn layout_matches_indent_2() {
        let v = super::super::parse(br#"{"a": [], "b": {}, "c": [1, {"d": null}]}"#).unwrap();
        assert_eq!(
            dumps(&v, false),
            "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    {\n      \"d\": null\n    }\n  ]\n}"
        );
    }
}
