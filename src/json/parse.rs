//! Bytes → [`Json`], with every failure turned into a located message.

use super::{locate, Json, Number, Object};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::collections::HashSet;
use std::fmt;

/// Deepest nesting accepted (serde_json's own recursion limit); deeper input is
/// refused with a clear error instead of overflowing the stack.
pub const MAX_DEPTH: usize = 128;

/// serde_json (with `arbitrary_precision`) hands numbers to visitors as a
/// one-entry map under this key; it is how `serde_json::Number` itself reads them.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// Why a byte buffer is not a JSON document we accept.
#[derive(Clone, Debug, PartialEq)]
pub struct ParseFailure {
    /// Stable code (`KLD-E001` ...).
    pub code: &'static str,
    /// Byte offset of the problem.
    pub offset: usize,
    /// What was found and what was expected.
    pub message: String,
}

/// Parses a whole document. Refuses: empty input, a UTF-8 BOM, invalid UTF-8,
/// syntax errors (incl. `NaN`/`Infinity`), duplicate keys, nesting deeper than
/// [`MAX_DEPTH`] and numbers that overflow a double.
pub fn parse(bytes: &[u8]) -> Result<Json, ParseFailure> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(ParseFailure {
            code: "KLD-E001",
            offset: 0,
            message: "empty file: expected a JSON object".into(),
        });
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Err(ParseFailure {
            code: "KLD-E002",
            offset: 0,
            message: "file starts with a UTF-8 byte order mark, which JSON forbids \
                      (Python's json.load fails with \"Unexpected UTF-8 BOM\"); remove it"
                .into(),
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|e| ParseFailure {
        code: "KLD-E003",
        offset: e.valid_up_to(),
        message: "invalid UTF-8 byte sequence: checkpoints must be UTF-8".into(),
    })?;
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Json::deserialize(&mut de).and_then(|v| de.end().map(|_| v));
    value.map_err(|e| failure_from_serde(text, &e))
}

fn failure_from_serde(text: &str, e: &serde_json::Error) -> ParseFailure {
    let offset = locate::offset_of_line_col(text, e.line(), e.column());
    let raw = e.to_string();
    // serde_json appends " at line L column C"; we print our own location.
    let msg = raw
        .rsplit_once(" at line ")
        .map(|(m, _)| m.to_string())
        .unwrap_or(raw);
    if msg.starts_with("recursion limit exceeded") {
        return ParseFailure {
            code: "KLD-E005",
            offset,
            message: format!("nesting deeper than {MAX_DEPTH} levels; refused"),
        };
    }
    if let Some(rest) = msg.strip_prefix("duplicate key ") {
        return ParseFailure {
            code: "KLD-E006",
            offset,
            message: format!(
                "duplicate key {rest} in one object (Python would silently keep the last)"
            ),
        };
    }
    if msg.starts_with("number out of range") {
        return ParseFailure {
            code: "KLD-E007",
            offset,
            message: "number overflows a 64-bit float".into(),
        };
    }
    // Python's json writes NaN/Infinity for non-finite floats; JSON has no such tokens.
    let window_start = offset.saturating_sub(10);
    let window = text
        .get(window_start..(offset + 10).min(text.len()))
        .unwrap_or("");
    for tok in ["-Infinity", "Infinity", "NaN"] {
        if let Some(i) = window.find(tok) {
            return ParseFailure {
                code: "KLD-E008",
                offset: window_start + i,
                message: format!(
                    "`{tok}` is not valid JSON (Python's json.dump writes it for \
                     non-finite floats); replace it with a number or null"
                ),
            };
        }
    }
    let message = if e.is_eof() {
        format!("unexpected end of file ({msg}): the file is truncated")
    } else {
        format!("invalid JSON: {msg}")
    };
    ParseFailure {
        code: "KLD-E004",
        offset,
        message,
    }
}

/// RFC 8259 number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(Number::from_i64(v)))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(Number::from_lexical(&v.to_string())))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        if !v.is_finite() {
            return Err(E::custom("number out of range"));
        }
        Ok(Json::Number(Number::from_f64(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(v) = seq.next_element::<Json>()? {
            out.push(v);
        }
        Ok(Json::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            return Ok(Json::Object(Object::new()));
        };
        if first == NUMBER_TOKEN {
            let lexical: String = map.next_value()?;
            // A document may spell this key itself: only a real JSON number
            // lexical form (what serde_json hands over) is accepted.
            if !is_json_number(&lexical) || map.next_key::<String>()?.is_some() {
                return Err(de::Error::custom(format!("reserved key {NUMBER_TOKEN:?}")));
            }
            let n = Number::from_lexical(&lexical);
            if !n.is_integer() && !n.as_f64().is_finite() {
                return Err(de::Error::custom("number out of range"));
            }
            return Ok(Json::Number(n));
        }
        let mut entries: Vec<(String, Json)> = Vec::with_capacity(8);
        let first_value = map.next_value::<Json>()?;
        entries.push((first, first_value));
        // Linear duplicate scan for small objects, a set for large free-form ones.
        let mut seen: Option<HashSet<String>> = None;
        while let Some(k) = map.next_key::<String>()? {
            let dup = match &mut seen {
                Some(set) => !set.insert(k.clone()),
                None => {
                    let d = entries.iter().any(|(e, _)| *e == k);
                    if entries.len() >= 16 {
                        let mut set: HashSet<String> =
                            entries.iter().map(|(e, _)| e.clone()).collect();
                        set.insert(k.clone());
                        seen = Some(set);
                    }
                    d
                }
            };
            if dup {
                return Err(de::Error::custom(format!("duplicate key {k:?}")));
            }
            let v = map.next_value::<Json>()?;
            entries.push((k, v));
        }
        Ok(Json::Object(Object(entries)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_number_forms() {
        let j = parse(br#"{"b": 1.0, "a": 1, "c": 1e400000000000000000000000}"#);
        // 1e4000... overflows a double: refused
        assert_eq!(j.unwrap_err().code, "KLD-E007");
        let j = parse(br#"{"b": 1.0, "a": 1, "c": 100000000000000000000000}"#).unwrap();
        let o = j.as_object().unwrap();
        let keys: Vec<_> = o.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["b", "a", "c"]);
        assert_eq!(o.get("b").unwrap().as_number().unwrap().lexical(), "1.0");
        assert!(o.get("a").unwrap().as_number().unwrap().is_integer());
        assert_eq!(
            o.get("c").unwrap().as_number().unwrap().lexical(),
            "100000000000000000000000"
        );
    }

    #[test]
    fn refuses_duplicates_bom_nan_depth_and_empty() {
        let e = parse(b"{\n  \"a\": 1,\n  \"a\": 2\n}").unwrap_err();
        assert_eq!(e.code, "KLD-E006");
        assert_eq!(
            locate::line_col("{\n  \"a\": 1,\n  \"a\": 2\n}", e.offset).0,
            3
        );
        assert_eq!(parse(b"\xEF\xBB\xBF{}").unwrap_err().code, "KLD-E002");
        assert_eq!(parse(b"{\"x\": NaN}").unwrap_err().code, "KLD-E008");
        assert_eq!(parse(b"{\"x\": -Infinity}").unwrap_err().code, "KLD-E008");
        assert_eq!(parse(b"  \n").unwrap_err().code, "KLD-E001");
        assert_eq!(parse(b"{\"x\": \xff}").unwrap_err().code, "KLD-E003");
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert_eq!(parse(deep.as_bytes()).unwrap_err().code, "KLD-E005");
        let e = parse(b"{\"a\": [1, 2").unwrap_err();
        assert_eq!(e.code, "KLD-E004");
        assert!(e.message.contains("truncated"), "{}", e.message);
    }

    #[test]
    fn the_private_number_key_cannot_smuggle_text() {
        let e = parse(br#"{"a": {"$serde_json::private::Number": "1, \"x\": 2"}}"#).unwrap_err();
        assert!(e.message.contains("reserved key"), "{}", e.message);
        let e = parse(br#"{"$serde_json::private::Number": "12", "b": 1}"#).unwrap_err();
        assert!(e.message.contains("reserved key"), "{}", e.message);
        for ok in ["0", "-0", "12", "1.5", "1e5", "-2.5E-3"] {
            assert!(is_json_number(ok), "{ok}");
        }
        for bad in ["", "-", "01", "1.", ".5", "1e", "abc", "1 "] {
            assert!(!is_json_number(bad), "{bad}");
        }
    }

    #[test]
    fn big_object_duplicate_detected() {
        let mut s = String::from("{");
        for i in 0..40 {
            s.push_str(&format!("\"k{i}\": {i},"));
        }
        s.push_str("\"k3\": 0}");
        assert_eq!(parse(s.as_bytes()).unwrap_err().code, "KLD-E006");
    }
}
