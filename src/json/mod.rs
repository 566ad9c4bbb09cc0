//! An order-preserving JSON tree with Python number semantics.
//!
//! Karenina's files are read by Python's `json` module and written back with
//! `json.dump`, so a faithful reader must keep what `serde_json::Value` loses or
//! blurs: key order (literal classes are score indices), the lexical form of
//! numbers (`1.0` is a Python float, `1` an int, `10**21` an exact int) and
//! duplicate keys (which we refuse rather than silently keep the last, as Python
//! does). Parsing goes through `serde_json` for speed; this module adds the tree
//! type and turns parse failures into located [`crate::error::Diagnostic`]s.

mod locate;
pub(crate) mod nan;
mod parse;
pub mod py;

pub(crate) use locate::{line_col, line_cols, locate_paths, path_at_offset};
pub use parse::{parse, ParseFailure, MAX_DEPTH};

use std::fmt;

/// A JSON value that keeps object key order and number lexical forms.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Json {
    /// `null`
    #[default]
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number, kept as written.
    Number(Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, keys in input order (no duplicates after a successful parse).
    Object(Object),
}

/// A JSON number kept in its source lexical form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Number(Box<str>);

/// The Python type a JSON number turns into under `json.loads`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum PyNumber<'a> {
    /// No fraction or exponent: a Python `int` (arbitrary precision), lexical digits.
    Int(&'a str),
    /// A Python `float`.
    Float(f64),
}

impl Number {
    /// Wraps a lexical form; the caller guarantees it is a valid JSON number.
    pub fn from_lexical(s: &str) -> Self {
        Number(s.into())
    }

    /// A number from an `f64` written in Python `repr` form.
    pub fn from_f64(v: f64) -> Self {
        Number(py::float_repr(v).into())
    }

    /// A number from an integer.
    pub fn from_i64(v: i64) -> Self {
        Number(v.to_string().into())
    }

    /// The lexical form as it appeared in the source.
    pub fn lexical(&self) -> &str {
        &self.0
    }

    /// True when Python would read this as an `int`.
    pub(crate) fn is_integer(&self) -> bool {
        !self.0.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
    }

    /// The Python reading of this number.
    pub(crate) fn to_py(&self) -> PyNumber<'_> {
        if self.is_integer() {
            PyNumber::Int(&self.0)
        } else {
            PyNumber::Float(self.as_f64())
        }
    }

    /// The value as an `f64` (correctly rounded, like Python's `float()`).
    pub(crate) fn as_f64(&self) -> f64 {
        self.0.parse::<f64>().unwrap_or(f64::NAN)
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An ordered JSON object.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Object(pub Vec<(String, Json)>);

impl Object {
    /// An empty object.
    pub fn new() -> Self {
        Object(Vec::new())
    }

    /// The value of the first entry named `key`.
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Removes and returns the first entry named `key`.
    pub fn remove(&mut self, key: &str) -> Option<Json> {
        let i = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(i).1)
    }

    /// Appends an entry.
    pub fn push(&mut self, key: impl Into<String>, value: Json) {
        self.0.push((key.into(), value));
    }

    /// Entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Json)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Json {
    /// The JSON type name used in messages (`object`, `array`, `string`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "boolean",
            Json::Number(_) => "number",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The array, if this is one.
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Json::Number(n) => Some(n),
            _ => None,
        }
    }
}

impl Json {
    /// Compact JSON text that keeps key order and number lexical forms exactly
    /// (used for `rdf:JSON` literals).
    pub fn to_compact(&self) -> String {
        let mut out = String::new();
        self.write_compact(&mut out);
        out
    }

    fn write_compact(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => out.push_str(n.lexical()),
            Json::String(s) => py::escape_into(out, s, false),
            Json::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    x.write_compact(out);
                }
                out.push(']');
            }
            Json::Object(o) => {
                out.push('{');
                for (i, (k, x)) in o.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    py::escape_into(out, k, false);
                    out.push(':');
                    x.write_compact(out);
                }
                out.push('}');
            }
        }
    }
}

/// One step of a JSON path: an object key or an array index.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Seg {
    /// An object member.
    Key(String),
    /// An array element.
    Index(usize),
}

/// A JSON path, rendered as an RFC 6901 JSON pointer (`/dataFeedElement/3/item`).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JsonPath(pub Vec<Seg>);

impl JsonPath {
    /// The root path (`""`).
    pub fn root() -> Self {
        JsonPath(Vec::new())
    }

    /// This path with an object key appended.
    pub(crate) fn key(&self, k: &str) -> Self {
        let mut p = self.clone();
        p.0.push(Seg::Key(k.to_string()));
        p
    }

    /// This path with an array index appended.
    pub(crate) fn index(&self, i: usize) -> Self {
        let mut p = self.clone();
        p.0.push(Seg::Index(i));
        p
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("/");
        }
        for s in &self.0 {
            match s {
                Seg::Key(k) => write!(f, "/{}", k.replace('~', "~0").replace('/', "~1"))?,
                Seg::Index(i) => write!(f, "/{i}")?,
            }
        }
        Ok(())
    }
}
