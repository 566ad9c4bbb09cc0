//! The page's SPARQL editor as served files: the CodeMirror bundle (built
//! from web/ by esbuild and committed, so cargo never needs Node), its
//! third-party licences, the page script that drives it, and the prefixes a
//! query may use without declaring them (the editor offers them).
//!
//! Why a module: the bundle is 400 KB, so it goes out gzipped to clients that
//! accept it, compressed once per process (flate2) rather than per request;
//! and nothing in it is fetched from anywhere but this server.

use super::asset;
use crate::sparql::PREDEFINED;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::io::Write;
use std::sync::OnceLock;

/// The CodeMirror 6 bundle with the SPARQL grammar (web/build.mjs).
pub const EDITOR_BUNDLE: &str = include_str!("page/editor.bundle.js");
/// The licences of the packages in [`EDITOR_BUNDLE`].
pub const EDITOR_LICENSES: &str = include_str!("page/editor.bundle.LICENSES.txt");
/// The page's editor logic: completion data, permalinks, history, the
/// catalogue's documentation.
pub const EDITOR_JS: &str = include_str!("page/editor.js");

/// Whether an `Accept-Encoding` value accepts gzip: `gzip` (or `x-gzip`,
/// or `*`) listed with no `q=0`. A gzip explicitly refused is refused even
/// when `*` is accepted.
pub fn accepts_gzip(accept_encoding: &str) -> bool {
    let mut star = false;
    for item in accept_encoding.split(',') {
        let mut parts = item.split(';');
        let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let refused = parts.any(|p| {
            let p = p.trim().to_ascii_lowercase();
            p.strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        match coding.as_str() {
            "gzip" | "x-gzip" => return !refused,
            "*" => star = !refused,
            _ => {}
        }
    }
    star
}

/// `text` gzipped (best compression, no timestamp).
pub fn gzip(text: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(text);
    enc.finish().unwrap_or_default()
}

/// [`EDITOR_BUNDLE`] gzipped, once per process.
fn bundle_gzipped() -> &'static [u8] {
    static GZ: OnceLock<Vec<u8>> = OnceLock::new();
    GZ.get_or_init(|| gzip(EDITOR_BUNDLE.as_bytes()))
}

/// The bundle's entity tag: a digest of its bytes, so that a browser
/// revalidates (`Cache-Control: no-cache`) and gets 304 until kld changes.
fn bundle_etag() -> &'static str {
    static TAG: OnceLock<String> = OnceLock::new();
    TAG.get_or_init(|| {
        use sha2::Digest;
        let d = sha2::Sha256::digest(EDITOR_BUNDLE.as_bytes());
        let hex = format!("{d:x}");
        format!("\"{}\"", &hex[..32])
    })
}

/// Whether an `If-None-Match` value matches `etag` (`*` or one of a list;
/// weak tags compare by their opaque part, as RFC 9110 has it for GET).
pub fn none_match(if_none_match: &str, etag: &str) -> bool {
    if_none_match
        .split(',')
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == "*" || t == etag)
}

/// The prefixes every query may use undeclared, as the page reads them:
/// `[{"prefix": "schema", "iri": "https://schema.org/"}, …]`.
pub fn prefixes() -> serde_json::Value {
    serde_json::Value::Array(
        PREDEFINED
            .iter()
            .map(|(p, iri)| serde_json::json!({ "prefix": p, "iri": iri }))
            .collect(),
    )
}

async fn bundle(headers: HeaderMap) -> Response {
    let etag = HeaderValue::from_static(bundle_etag());
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| none_match(v, bundle_etag()));
    if fresh {
        let mut r = StatusCode::NOT_MODIFIED.into_response();
        r.headers_mut().insert(header::ETAG, etag);
        r.headers_mut()
            .insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        return r;
    }
    let gz = headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(accepts_gzip);
    let mut r = if gz {
        let mut r = asset("text/javascript; charset=utf-8", bundle_gzipped());
        r.headers_mut()
            .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        r
    } else {
        asset("text/javascript; charset=utf-8", EDITOR_BUNDLE)
    };
    let h = r.headers_mut();
    h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    h.insert(header::ETAG, etag);
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

/// The editor's routes: `/editor.bundle.js`, `/editor.bundle.LICENSES.txt`,
/// `/editor.js` and `/prefixes`.
pub(super) fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/editor.bundle.js", get(bundle))
        .route(
            "/editor.bundle.LICENSES.txt",
            get(|| async { asset("text/plain; charset=utf-8", EDITOR_LICENSES) }),
        )
        .route(
            "/editor.js",
            get(|| async { asset("text/javascript; charset=utf-8", EDITOR_JS) }),
        )
        .route(
            "/prefixes",
            get(|| async { asset("application/json", prefixes().to_string()) }),
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn gzip_is_accepted_as_browsers_and_curl_ask_and_refused_with_q_zero() {
        assert!(accepts_gzip("gzip, deflate, br, zstd"));
        assert!(accepts_gzip("GZIP;q=0.5"));
        assert!(accepts_gzip("*"));
        assert!(accepts_gzip("x-gzip"));
        assert!(!accepts_gzip("identity"));
        assert!(!accepts_gzip("gzip;q=0"));
        assert!(!accepts_gzip("*, gzip;q=0"));
        assert!(!accepts_gzip("br, *;q=0"));
        assert!(!accepts_gzip(""));
    }

    #[test]
    fn if_none_match_matches_the_tag_a_list_with_it_a_weak_form_and_star() {
        let tag = bundle_etag();
        assert_eq!(tag.len(), 34);
        assert!(tag.starts_with('"') && tag.ends_with('"'));
        assert!(none_match(tag, tag));
        assert!(none_match(&format!("\"x\", W/{tag}"), tag));
        assert!(none_match("*", tag));
        assert!(!none_match("\"x\"", tag));
        assert!(!none_match("", tag));
    }

    #[test]
    fn the_gzipped_bundle_is_the_bundle() {
        let mut back = String::new();
        flate2::read::GzDecoder::new(bundle_gzipped())
            .read_to_string(&mut back)
            .unwrap();
        assert_eq!(back, EDITOR_BUNDLE);
        assert!(bundle_gzipped().len() < EDITOR_BUNDLE.len() / 2);
    }

    #[test]
    fn the_bundle_fits_its_budget_and_names_no_other_host() {
        assert!(EDITOR_BUNDLE.len() <= 500_000, "{}", EDITOR_BUNDLE.len());
        assert!(EDITOR_BUNDLE.contains("KldEditor"));
        // The only URL in it is the SVG namespace (a name, never fetched).
        for (i, _) in EDITOR_BUNDLE.match_indices("://") {
            let url = &EDITOR_BUNDLE[i.saturating_sub(5)..(i + 24).min(EDITOR_BUNDLE.len())];
            assert!(url.contains("://www.w3.org/2000/svg"), "{url}");
        }
        assert!(EDITOR_LICENSES.contains("codemirror-lang-sparql"));
    }

    #[test]
    fn prefixes_are_the_predefined_ones_with_https_schema_org() {
        let p = prefixes();
        let schema = p
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["prefix"] == "schema")
            .unwrap();
        assert_eq!(schema["iri"], "https://schema.org/");
        assert_eq!(p.as_array().unwrap().len(), PREDEFINED.len());
    }
}
