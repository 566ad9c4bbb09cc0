//! The reader's tools: the current JSON path, collected diagnostics, and typed
//! access to an object's members (Pydantic-like: lax numbers, strict strings).

use crate::error::Diagnostic;
use crate::json::{Json, JsonPath, Object, Seg};
use crate::model::types::Extra;

/// Collects diagnostics and tracks the current JSON path.
pub(crate) struct Cx {
    path: Vec<Seg>,
    pub(crate) diags: Vec<Diagnostic>,
}

impl Cx {
    pub(crate) fn new() -> Self {
        Cx {
            path: Vec::new(),
            diags: Vec::new(),
        }
    }
    pub(super) fn here(&self) -> JsonPath {
        JsonPath(self.path.clone())
    }
    pub(super) fn at(&self, k: &str) -> JsonPath {
        let mut p = self.here();
        p.0.push(Seg::Key(k.to_string()));
        p
    }
    pub(super) fn error(&mut self, code: &'static str, path: JsonPath, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(code, path, msg));
    }
    pub(super) fn warn(&mut self, code: &'static str, path: JsonPath, msg: impl Into<String>) {
        self.diags.push(Diagnostic::warning(code, path, msg));
    }
    pub(super) fn enter(&mut self, k: &str) {
        self.path.push(Seg::Key(k.to_string()));
    }
    pub(super) fn enter_index(&mut self, i: usize) {
        self.path.push(Seg::Index(i));
    }
    pub(super) fn leave(&mut self) {
        self.path.pop();
    }
    /// `key` (a member of the current object) has the wrong JSON type.
    pub(super) fn type_error(&mut self, key: &str, expected: &str, found: &Json) {
        let p = self.at(key);
        self.error(
            "KLD-E012",
            p,
            format!("`{key}` must be {expected}, found {}", found.kind()),
        );
    }
    pub(super) fn error_count(&self) -> usize {
        self.diags.iter().filter(|d| d.is_error()).count()
    }
}

/// The members of one object, taken one by one; what is left is "unknown".
pub(super) struct Fields(pub(super) Vec<Option<(String, Json)>>);

impl Fields {
    pub(super) fn new(o: Object) -> Self {
        Fields(o.0.into_iter().map(Some).collect())
    }
    pub(super) fn take(&mut self, key: &str) -> Option<Json> {
        self.0
            .iter_mut()
            .find(|e| matches!(e, Some((k, _)) if k == key))
            .and_then(|e| e.take())
            .map(|(_, v)| v)
    }
    pub(super) fn rest(self, cx: &mut Cx, what: &str) -> Extra {
        let rest: Extra = self.0.into_iter().flatten().collect();
        for (k, _) in &rest {
            let p = cx.at(k);
            cx.warn(
                "KLD-W001",
                p,
                format!("unknown member `{k}` in {what}: kept by karenina-ld, dropped by Karenina on its next save"),
            );
        }
        rest
    }
}

pub(super) fn expect_object(v: Json, cx: &mut Cx, path: JsonPath, what: &str) -> Option<Object> {
    match v {
        Json::Object(o) => Some(o),
        other => {
            cx.error(
                "KLD-E012",
                path,
                format!("expected {what} (a JSON object), found {}", other.kind()),
            );
            None
        }
    }
}

pub(super) fn req_str(f: &mut Fields, key: &str, cx: &mut Cx, what: &str) -> Option<String> {
    match f.take(key) {
        None | Some(Json::Null) => {
            let p = cx.at(key);
            cx.error(
                "KLD-E011",
                p,
                format!("{what} is missing required member `{key}` (expected a string)"),
            );
            None
        }
        Some(Json::String(s)) => Some(s),
        Some(other) => {
            cx.type_error(key, "a string", &other);
            None
        }
    }
}

pub(super) fn opt_str(f: &mut Fields, key: &str, cx: &mut Cx) -> Option<String> {
    match f.take(key) {
        None | Some(Json::Null) => None,
        Some(Json::String(s)) => Some(s),
        Some(other) => {
            cx.type_error(key, "a string or null", &other);
            None
        }
    }
}

pub(super) fn float_of(v: Json, key: &str, cx: &mut Cx) -> Option<f64> {
    match v {
        Json::Number(n) => Some(n.as_f64()),
        Json::String(s) => match s.trim().parse::<f64>() {
            Ok(x) if x.is_finite() => {
                let p = cx.at(key);
                cx.warn(
                    "KLD-W007",
                    p,
                    format!("`{key}` is the string {s:?}; Karenina coerces it to the number {x} and writes a number"),
                );
                Some(x)
            }
            _ => {
                let p = cx.at(key);
                cx.error(
                    "KLD-E012",
                    p,
                    format!("`{key}` must be a number, found the string {s:?}"),
                );
                None
            }
        },
        Json::Bool(b) => {
            // Pydantic's lax float takes a boolean as 1.0 / 0.0.
            let x = f64::from(u8::from(b));
            let p = cx.at(key);
            cx.warn(
                "KLD-W007",
                p,
                format!("`{key}` is the boolean {b}; Karenina coerces it to the number {x:.1} and writes a number"),
            );
            Some(x)
        }
        other => {
            cx.type_error(key, "a number", &other);
            None
        }
    }
}

pub(super) fn req_float(f: &mut Fields, key: &str, cx: &mut Cx, what: &str) -> Option<f64> {
    match f.take(key) {
        None | Some(Json::Null) => {
            let p = cx.at(key);
            cx.error(
                "KLD-E011",
                p,
                format!("{what} is missing required member `{key}` (expected a number)"),
            );
            None
        }
        Some(v) => float_of(v, key, cx),
    }
}

pub(super) fn opt_json(f: &mut Fields, key: &str) -> Option<Json> {
    match f.take(key) {
        None | Some(Json::Null) => None,
        Some(v) => Some(v),
    }
}

/// `@type` is optional everywhere, but when present must be the literal
/// (`null` too is refused: pydantic's default applies only to a missing key).
pub(super) fn check_type(f: &mut Fields, expected: &str, cx: &mut Cx) {
    match f.take("@type") {
        None => {}
        Some(Json::String(s)) if s == expected => {}
        Some(other) => {
            let found = match &other {
                Json::String(s) => format!("{s:?}"),
                o => o.kind().to_string(),
            };
            let p = cx.at("@type");
            cx.error(
                "KLD-E013",
                p,
                format!("`@type` must be \"{expected}\", found {found}"),
            );
        }
    }
}

pub(super) fn list_of<T>(
    v: Option<Json>,
    key: &str,
    cx: &mut Cx,
    mut each: impl FnMut(Json, &mut Cx) -> Option<T>,
) -> Option<Vec<T>> {
    match v {
        None | Some(Json::Null) => None,
        Some(Json::Array(a)) => {
            cx.enter(key);
            let mut out = Vec::with_capacity(a.len());
            let mut ok = true;
            for (i, x) in a.into_iter().enumerate() {
                cx.enter_index(i);
                match each(x, cx) {
                    Some(t) => out.push(t),
                    None => ok = false,
                }
                cx.leave();
            }
            cx.leave();
            ok.then_some(out)
        }
        Some(other) => {
            cx.type_error(key, "an array", &other);
            None
        }
    }
}

pub(super) fn strings(v: Json, cx: &mut Cx) -> Option<String> {
    match v {
        Json::String(s) => Some(s),
        other => {
            let p = cx.here();
            cx.error(
                "KLD-E012",
                p,
                format!("keywords must be strings, found {}", other.kind()),
            );
            None
        }
    }
}
