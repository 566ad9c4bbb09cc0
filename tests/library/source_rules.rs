//! Rules over the library's own source (issue 20): behaviour is never decided
//! by reading an error's message, and library messages name no CLI flags in
//! the typed errors (the CLI adds those).

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The library's source files, without `crates/cli/src/` and `crates/cli/src/main.rs` (the
/// binary), each cut before its `#[cfg(test)]` module.
fn library_sources() -> Vec<(PathBuf, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .into_iter()
        .filter(|p| !p.starts_with(src.join("cli")) && !p.ends_with("main.rs"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            // Unit tests (after `#[cfg(test)]` or `#[cfg(all(test, …))]`)
            // may assert what a message says; the library may not act on it.
            let code = match ["#[cfg(test)]", "#[cfg(all(test"]
                .iter()
                .filter_map(|m| text.find(m))
                .min()
            {
                Some(i) => text[..i].to_string(),
                None => text,
            };
            (p, code)
        })
        .collect()
}

/// An error turned into text and then searched: the pattern issue 20 names.
fn reads_an_error_message(line: &str) -> bool {
    let searches = [".contains(", ".starts_with(", ".ends_with(", ".find("];
    let texts = [
        "to_string()",
        "e.message",
        "err.message",
        "Error::Remote(m) if m",
        "Error::Sparql(m) if m",
        "Error::Usage(m) if m",
    ];
    texts.iter().any(|t| {
        searches
            .iter()
            .any(|s| line.contains(&format!("{t}{s}")) || line.contains(&format!("{t} {s}")))
    }) || (line.contains("matches!(") && line.contains(" if ") && line.contains(".contains("))
}

#[test]
fn no_behaviour_is_decided_by_matching_error_text() {
    let mut found = Vec::new();
    // The one exception, and why: hyper answers 414 (URI too long) or 431
    // (headers too large) itself and tells the two apart only in its
    // message (`hyper::Error::is_parse_too_large` covers both); the line
    // only picks the status written to the request log, and decides nothing
    // the client sees.
    let known = |p: &Path, line: &str| {
        p.ends_with("crates/serve/src/listen.rs")
            && line.trim() == "Some(if e.to_string().contains(\"URI\") {"
    };
    for (p, code) in library_sources() {
        for (n, line) in code.lines().enumerate() {
            if reads_an_error_message(line) && !known(&p, line) {
                found.push(format!("{}:{}: {}", p.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "match the typed error instead:\n{}",
        found.join("\n")
    );
    // The rule itself catches the pattern it is for.
    assert!(reads_an_error_message(
        "    matches!(e, Error::Remote(m) if m.contains(UNREACHABLE))"
    ));
    assert!(reads_an_error_message(
        "if e.to_string().contains(\"cancel\") {"
    ));
}

#[test]
fn typed_library_errors_name_no_cli_flags() {
    let error_rs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/error/mod.rs"))
            .unwrap();
    let flags: Vec<&str> = error_rs
        .lines()
        .filter(|l| l.trim_start().starts_with("#[error("))
        .filter(|l| {
            l.split("--")
                .skip(1)
                .any(|rest| rest.starts_with(|c: char| c.is_ascii_lowercase()))
        })
        .collect();
    assert!(flags.is_empty(), "a CLI flag in a library error: {flags:?}");
    // Nor do the binding notes, which the page shows too: the CLI adds
    // `--for` when it prints them.
    for (p, code) in library_sources() {
        if p.ends_with("results/link.rs") || p.ends_with("store/binding.rs") {
            let in_text = code
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .any(|l| l.contains("--for"));
            assert!(!in_text, "{} names --for in a message", p.display());
        }
    }
}

/// Typed errors from every public function (issue 44): no `pub fn` of the
/// library returns `Result<_, String>` (`pub(crate)` and private helpers
/// may carry a message to the typed error their caller builds).
#[test]
fn no_public_function_returns_a_string_error() {
    let mut found = Vec::new();
    for (p, code) in library_sources() {
        for (i, line) in code.lines().enumerate() {
            let t = line.trim_start();
            let Some(rest) = ["pub fn ", "pub const fn ", "pub async fn "]
                .iter()
                .find_map(|k| t.strip_prefix(k))
            else {
                continue;
            };
            // The signature, to its body or its `;`, across lines.
            let from = code.lines().skip(i).collect::<Vec<_>>().join(" ");
            let sig = &from[..from.find(['{', ';']).unwrap_or(from.len())];
            let ret = sig
                .rsplit_once("->")
                .map_or("", |(_, r)| r)
                .replace(' ', "");
            if ret.contains("Result<") && ret.ends_with(",String>") {
                found.push(format!("{}:{}: {rest}", p.display(), i + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "public functions returning a String error: {found:#?}"
    );
}

/// The core library embeds light: it compiles no HTTP server, HTTP client
/// or command-line crate (checked on the lock file with `cargo tree` of the
/// `karenina-ld` package alone, offline). Those live in crates/serve,
/// crates/remote and crates/cli, which the compiler keeps apart.
#[test]
fn the_core_library_compiles_no_server_client_or_cli_crates() {
    let out = std::process::Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "--offline",
            "--locked",
            "-p",
            "karenina-ld",
            "-e",
            "normal,build",
            "--prefix",
            "none",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8(out.stdout).unwrap();
    let crates: std::collections::BTreeSet<&str> =
        tree.lines().filter_map(|l| l.split(' ').next()).collect();
    assert!(
        crates.contains("karenina-ld") && crates.contains("oxigraph") && crates.contains("json-ld"),
        "{crates:?}"
    );
    for heavy in [
        // HTTP server
        "axum",
        "hyper",
        "hyper-util",
        "tower-http",
        "notify",
        "notify-debouncer-full",
        // HTTP client
        "reqwest",
        "digest_auth",
        // command line
        "clap",
        "clap_complete",
        "clap_mangen",
        "indicatif",
        "anyhow",
        "mimalloc",
        // the faces themselves
        "karenina-ld-serve",
        "karenina-ld-remote",
        "karenina-ld-cli",
    ] {
        assert!(
            !crates.contains(heavy),
            "{heavy} is compiled by the core library"
        );
    }
}
