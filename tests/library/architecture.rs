//! ARCHITECTURE.md is the maintainers' map; these tests keep it true.
//!
//! - Its module table lists exactly the top-level modules of `src/`.
//! - Its floors hold: no `crate::…` path in `src/` points from a module to one
//!   on a higher floor.
//! - No two sibling files of one module (other than a module's `mod.rs`, which
//!   may know its own children) import each other, directly or in a circle,
//!   in the library or in the crates under `crates/`.
//! - Its crates table lists exactly the workspace's packages, and each one
//!   depends only on the workspace crates its row says it sits on.
//!
//! Run alone with `cargo test --test library architecture`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn architecture() -> String {
    let p = root().join("ARCHITECTURE.md");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The rows of the table that follows `heading`: the first cell of each.
fn table_rows(text: &str, heading: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("## ") {
            inside = line.trim() == heading;
            continue;
        }
        if inside && line.starts_with('|') && !line.starts_with("|---") {
            let cells: Vec<String> = line
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect();
            rows.push(cells);
        }
    }
    assert!(
        !rows.is_empty(),
        "ARCHITECTURE.md has no table under {heading}"
    );
    rows.remove(0); // the header row
    rows
}

/// Names in backticks in a cell.
fn ticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_string())
        .collect()
}

/// Top-level modules of `src/`: its directories and `.rs` files other than
/// the crate roots.
fn src_modules() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in std::fs::read_dir(root().join("src")).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if e.path().is_dir() {
            out.insert(name);
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if stem != "lib" && stem != "main" {
                out.insert(stem.to_string());
            }
        }
    }
    out
}

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

/// The code of a file without its comment lines (doc links name modules
/// without importing them).
fn code(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident_at(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The first path segments after each `prefix` (`crate::` or `super::`),
/// `{a, b::c}` groups included.
fn paths_after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices(prefix) {
        // `x::crate::` is no crate path; `super::super::` counts once.
        let before = &code[..i];
        if before.ends_with("::")
            || before.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        {
            continue;
        }
        let rest = &code[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0usize;
            let mut start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if c.is_whitespace() => {}
                    _ if start && depth == 0 => {
                        out.push(ident_at(&group[j..]));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident_at(rest));
        }
    }
    out.retain(|s| !s.is_empty() && s != "self");
    out
}

/// module → floor, from the floors table.
fn floors() -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for (i, row) in table_rows(&architecture(), "## Floors").iter().enumerate() {
        for m in ticked(&row[1]) {
            assert!(out.insert(m.clone(), i).is_none(), "{m} is on two floors");
        }
    }
    out
}

#[test]
fn the_module_table_lists_exactly_src_s_modules() {
    let listed: BTreeSet<String> = table_rows(&architecture(), "## Modules")
        .iter()
        .flat_map(|r| ticked(&r[0]))
        .collect();
    let actual = src_modules();
    let missing: Vec<_> = actual.difference(&listed).collect();
    let stale: Vec<_> = listed.difference(&actual).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "ARCHITECTURE.md's module table: not listed {missing:?}, no such module {stale:?}"
    );
    let on_floors: BTreeSet<String> = floors().into_keys().collect();
    assert_eq!(
        on_floors, actual,
        "every module of src/ is on exactly one floor"
    );
}

#[test]
fn no_module_uses_one_on_a_higher_floor() {
    let floors = floors();
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let mut up = BTreeSet::new();
    for f in &files {
        let rel = f.strip_prefix(root().join("src")).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let from = first.trim_end_matches(".rs").to_string();
        if from == "lib" || from == "main" {
            continue;
        }
        let Some(&floor) = floors.get(&from) else {
            panic!("{from} is on no floor of ARCHITECTURE.md")
        };
        for to in paths_after(&code(f), "crate::") {
            let to = to.as_str();
            match floors.get(to) {
                Some(&t) if t > floor => {
                    up.insert(format!(
                        "{} ({from}, floor {floor}) uses {to} (floor {t})",
                        rel.display()
                    ));
                }
                _ => {}
            }
        }
    }
    assert!(
        up.is_empty(),
        "arrows that point up:\n{}",
        up.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// The circles in `edges`: each set of nodes that reach one another (a
/// strongly connected component of more than one node), sorted.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(n) = todo.pop() {
            for m in edges.get(&n).into_iter().flatten() {
                if seen.insert(m.clone()) {
                    todo.push(m.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        edges.keys().map(|n| (n, reach(n))).collect();
    let mut out = BTreeSet::new();
    for (n, r) in &reached {
        if !r.contains(*n) {
            continue;
        }
        let scc: Vec<String> = r
            .iter()
            .filter(|m| reached.get(m).is_some_and(|back| back.contains(*n)))
            .cloned()
            .collect();
        out.insert(scc);
    }
    out.into_iter().collect()
}

/// Sibling files of one directory module: `a.rs` uses `b` when it names
/// `super::b` (or `super::super::b` from its test module) or the module's
/// full path `crate::<module>::b`.
fn sibling_edges(src: &Path, dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let module_path = dir
        .strip_prefix(src)
        .unwrap()
        .to_string_lossy()
        .replace('/', "::");
    let mut siblings = BTreeSet::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        if (p.is_dir() || p.extension().is_some_and(|x| x == "rs")) && name != "mod" {
            siblings.insert(name);
        }
    }
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for name in &siblings {
        let file = if dir.join(format!("{name}.rs")).exists() {
            vec![dir.join(format!("{name}.rs"))]
        } else {
            let mut v = Vec::new();
            rust_files(&dir.join(name), &mut v);
            v
        };
        for f in file {
            let text = code(&f);
            let nested = f.parent() != Some(dir);
            let mut used = Vec::new();
            if !nested {
                used.extend(paths_after(&text, "super::"));
                used.extend(paths_after(&text, "super::super::"));
            }
            used.extend(paths_after(&text, &format!("crate::{module_path}::")));
            for u in used {
                if &u != name && siblings.contains(&u) {
                    edges.entry(name.clone()).or_default().insert(u);
                }
            }
        }
    }
    edges
}

#[test]
fn sibling_files_of_a_module_import_each_other_in_no_circle() {
    let mut dirs = Vec::new();
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        out.push(d.to_path_buf());
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            }
        }
    }
    let mut found = Vec::new();
    for crate_src in [
        "src",
        "crates/serve/src",
        "crates/remote/src",
        "crates/cli/src",
    ] {
        let src = root().join(crate_src);
        dirs.clear();
        walk(&src, &mut dirs);
        for d in dirs.iter().skip(1) {
            for c in circles(&sibling_edges(&src, d)) {
                let rel = d.strip_prefix(&src).unwrap().display().to_string();
                found.push(format!(
                    "{crate_src}/{rel}: {} import one another",
                    c.join(", ")
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "circles between sibling files:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checks_find_what_they_look_for() {
    assert_eq!(
        paths_after(
            "use crate::{error::{Error, Result}, json};\nlet x = crate::sparql::run;",
            "crate::"
        ),
        ["error", "json", "sparql"]
    );
    assert_eq!(
        paths_after("use super::super::lossless::Emit;", "super::"),
        ["super"]
    );
    assert_eq!(
        paths_after("use super::super::lossless::Emit;", "super::super::"),
        ["lossless"]
    );
    assert!(paths_after("karenina_ld::crate::x", "crate::").is_empty());
    let mut e = BTreeMap::new();
    e.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    e.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    assert!(circles(&e).is_empty());
    e.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(circles(&e), [["a", "b", "c"]]);
}

/// The workspace's packages: the root package and every `Cargo.toml` one
/// folder under `crates/`, plus `python/`. `(folder, package name,
/// workspace crates it depends on)`.
fn workspace_packages() -> Vec<(String, String, BTreeSet<String>)> {
    let mut dirs = vec![".".to_string(), "python".to_string()];
    for e in std::fs::read_dir(root().join("crates")).unwrap() {
        let p = e.unwrap().path();
        if p.join("Cargo.toml").is_file() {
            dirs.push(format!(
                "crates/{}",
                p.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    let mut out = Vec::new();
    for d in dirs {
        let text = std::fs::read_to_string(root().join(&d).join("Cargo.toml")).unwrap();
        let name = text
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))
            .and_then(|l| l.strip_suffix('"'))
            .unwrap_or_else(|| panic!("{d}/Cargo.toml: no package name"))
            .to_string();
        let mut section = "";
        let mut deps = BTreeSet::new();
        for l in text.lines() {
            if l.starts_with('[') {
                section = l;
                continue;
            }
            if section == "[dependencies]" && l.starts_with("karenina-ld") {
                deps.insert(l.split(' ').next().unwrap().to_string());
            }
        }
        out.push((d, name, deps));
    }
    out
}

/// One module-file style is the compiler's: every crate root of the
/// workspace (the library's and each face's `src/lib.rs`) denies clippy's
/// `self_named_module_files`, so `foo.rs` beside `foo/` fails clippy in any
/// crate, not only in the library.
#[test]
fn every_crate_denies_self_named_module_files() {
    let packages = workspace_packages();
    assert!(packages.len() >= 5, "{packages:?}");
    for (dir, name, _) in packages {
        let lib = root().join(&dir).join("src/lib.rs");
        let text = std::fs::read_to_string(&lib)
            .unwrap_or_else(|e| panic!("{name}: {}: {e}", lib.display()));
        assert!(
            text.lines()
                .any(|l| l.trim() == "#![deny(clippy::self_named_module_files)]"),
            "{name}: {} does not deny clippy::self_named_module_files",
            lib.display()
        );
    }
}

/// The library's modules (not the faces `cli`, `serve`, `remote`, which
/// become their own crates): each module's last path segment, with the files
/// that define it. A directory module is named by its directory; `mod.rs`,
/// `lib.rs`, `main.rs` and `tests.rs` files name no module of their own.
fn library_module_names() -> BTreeMap<String, Vec<String>> {
    let src = root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let top = top.trim_end_matches(".rs");
        if ["cli", "serve", "remote", "lib", "main"].contains(&top) {
            continue;
        }
        let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
        let name = if stem == "mod" {
            rel.parent()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap()
        } else {
            stem
        };
        if name == "tests" {
            continue;
        }
        out.entry(name).or_default().push(rel.display().to_string());
    }
    out
}

#[test]
fn the_crates_table_lists_the_workspace_and_its_arrows() {
    let rows = table_rows(&architecture(), "## Crates");
    let listed: BTreeMap<String, BTreeSet<String>> = rows
        .iter()
        .map(|r| {
            let name = ticked(&r[0]).into_iter().next().unwrap_or_default();
            (name, ticked(&r[2]).into_iter().collect())
        })
        .collect();
    let actual: BTreeMap<String, BTreeSet<String>> = workspace_packages()
        .into_iter()
        .map(|(_, name, deps)| (name, deps))
        .collect();
    assert_eq!(
        listed, actual,
        "ARCHITECTURE.md's crates table (package, job, depends on) against the Cargo.toml files"
    );
    // The library depends on none of the faces, and the server and the
    // client not on each other or the command line.
    assert!(actual["karenina-ld"].is_empty());
    for face in ["karenina-ld-serve", "karenina-ld-remote"] {
        assert_eq!(
            actual[face],
            BTreeSet::from(["karenina-ld".to_string()]),
            "{face}"
        );
    }
}

/// Two modules of one name make every `use` and every search ambiguous
/// (which `summary`? which `database`?), so no name is used twice.
#[test]
fn no_two_library_modules_share_a_name() {
    let names = library_module_names();
    assert!(names.contains_key("results") && names.contains_key("binding"));
    let twice: Vec<String> = names
        .iter()
        .filter(|(_, files)| files.len() > 1)
        .map(|(n, files)| format!("{n}: {}", files.join(", ")))
        .collect();
    assert!(
        twice.is_empty(),
        "library modules sharing a name:\n{}",
        twice.join("\n")
    );
}

/// The paths ARCHITECTURE.md names in backticks (`src/…`, `tests/…`,
/// `crates/…`, …): each must exist, so the map never sends a reader to a
/// file that moved.
#[test]
fn every_path_architecture_md_names_exists() {
    let text = architecture();
    let prefixes = [
        "src/",
        "tests/",
        "benches/",
        "crates/",
        "docs/",
        "python/",
        "queries/",
        "vendor/",
        "context/",
        "examples/",
    ];
    let mut named = BTreeSet::new();
    let mut missing = Vec::new();
    for t in ticked(&text) {
        if !prefixes.iter().any(|p| t.starts_with(p)) || t.contains(char::is_whitespace) {
            continue;
        }
        named.insert(t.clone());
        if !root().join(t.trim_end_matches('/')).exists() {
            missing.push(t);
        }
    }
    assert!(
        named.len() > 20,
        "ARCHITECTURE.md names few paths: {named:?}"
    );
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
}

/// Each entry of "Where to go" starts `- **a change** → `src/ROOM`…` (or a
/// room of a face's crate, `crates/NAME/src/ROOM`): one room per change, and
/// the room exists.
#[test]
fn where_to_go_names_one_room_per_change() {
    let text = architecture();
    let mut inside = false;
    let mut entries = Vec::new();
    for line in text.lines() {
        if line.starts_with("## ") {
            inside = line.starts_with("## Where to go");
            continue;
        }
        if inside && line.starts_with("- **") {
            entries.push(line.to_string());
        }
    }
    assert!(
        entries.len() >= 10,
        "few entries under Where to go: {entries:?}"
    );
    for e in &entries {
        let (_, after) = e
            .split_once("** → ")
            .unwrap_or_else(|| panic!("no `** → ` room in {e:?}"));
        let room = ticked(after)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("no room in {e:?}"));
        assert!(
            after.starts_with(&format!("`{room}`"))
                && (room.starts_with("src/")
                    || (room.starts_with("crates/") && room.contains("/src/"))),
            "{e:?} does not start with one room under src/ or crates/*/src/"
        );
        assert!(
            root().join(room.trim_end_matches('/')).exists(),
            "{e:?}: {room} does not exist"
        );
    }
}

/// The library never prints or exits and holds no `anyhow`: outside the
/// faces (`cli`, `serve`, `remote`, `main.rs`), no file's code before its
/// test module names them.
#[test]
fn the_library_never_prints_or_exits() {
    let src = root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut found = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap().display().to_string();
        if ["cli/", "serve/", "remote/", "main.rs"]
            .iter()
            .any(|p| rel.starts_with(p))
        {
            continue;
        }
        let text = code(&f);
        let body = text.split("#[cfg(test)]").next().unwrap_or("");
        let body = body.split("#[cfg(all(test").next().unwrap_or("");
        for bad in ["println!", "print!(", "process::exit", "anyhow"] {
            if body.contains(bad) {
                found.push(format!("{rel}: {bad}"));
            }
        }
    }
    assert!(found.is_empty(), "the library prints or exits: {found:?}");
}
