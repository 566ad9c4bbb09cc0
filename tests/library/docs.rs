//! The manual, checked offline: README.md and every page under docs/.
//!
//! - Every relative link points at a file in the repository, and every
//!   `#anchor` at a heading (GitHub's slugs) or `<a id>` of the target page.
//!   External `http(s)://` and `mailto:` links are allowed and not fetched;
//!   any other scheme is an error.
//! - Every page under docs/ is reachable by links from README.md or
//!   docs/index.md.
//! - `src/diagnostics.rs` registers exactly the `KLD-…` codes used in `src/`,
//!   and docs/diagnostics.md's table is the one it generates.
//! - docs/catalogue.md lists exactly the queries in `queries/`, with the
//!   variables each query's `# Returns:` line names.

use karenina_ld::codes::{markdown_table, CODES};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Component, Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// `*.md` files under `dir` (relative to the repository), recursively, sorted.
fn markdown_under(dir: &str, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let rel = format!("{dir}/{name}");
        if e.path().is_dir() {
            markdown_under(&rel, out);
        } else if name.ends_with(".md") {
            out.push(rel);
        }
    }
}

/// README.md and every page under docs/, by path relative to the repository.
fn manual() -> BTreeMap<String, String> {
    let mut paths = vec!["README.md".to_string()];
    markdown_under("docs", &mut paths);
    paths.into_iter().map(|p| (p.clone(), read(&p))).collect()
}

/// A page's Markdown as paragraphs of prose (fenced code blocks left out)
/// and its heading lines, each with its 1-based line number.
struct Parsed {
    paragraphs: Vec<(usize, String)>,
    headings: Vec<(usize, String)>,
}

fn parse(text: &str) -> Parsed {
    let mut paragraphs = Vec::new();
    let mut headings = Vec::new();
    let mut fence: Option<String> = None;
    let mut para: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let t = line.trim_start();
        if let Some(f) = &fence {
            if t.starts_with(f.as_str()) {
                fence = None;
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(t[..3].to_string());
            paragraphs.extend(para.take());
            continue;
        }
        if t.is_empty() {
            paragraphs.extend(para.take());
            continue;
        }
        if t.starts_with('#') {
            let level = t.chars().take_while(|&c| c == '#').count();
            if level <= 6 && t[level..].starts_with(' ') {
                headings.push((
                    n,
                    t[level..].trim().trim_end_matches('#').trim().to_string(),
                ));
            }
        }
        match &mut para {
            Some((_, p)) => {
                p.push('\n');
                p.push_str(line);
            }
            None => para = Some((n, line.to_string())),
        }
    }
    paragraphs.extend(para);
    Parsed {
        paragraphs,
        headings,
    }
}

/// `text` with inline code spans blanked out (a run of N backticks up to the
/// next run of exactly N), so that links inside code are not links.
fn without_code_spans(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != '`' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let run = b[i..].iter().take_while(|&&c| c == '`').count();
        let mut j = i + run;
        let mut close = None;
        while j < b.len() {
            if b[j] == '`' {
                let r = b[j..].iter().take_while(|&&c| c == '`').count();
                if r == run {
                    close = Some(j + r);
                    break;
                }
                j += r;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                out.push_str(&" ".repeat(end - i));
                i = end;
            }
            None => {
                // An unmatched run is literal text.
                out.extend(&b[i..i + run]);
                i += run;
            }
        }
    }
    out
}

/// The link targets of one paragraph: inline links `[text](target "title")`
/// and reference definitions `[label]: target`, each with its line number.
fn links(first_line: usize, paragraph: &str) -> Vec<(usize, String)> {
    let text = without_code_spans(paragraph);
    let line_of = |offset: usize| first_line + text[..offset].matches('\n').count();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = text[from..].find("](") {
        let start = from + k + 2;
        let mut depth = 0;
        let mut end = text.len();
        for (o, c) in text[start..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = start + o;
                    break;
                }
                ')' => depth -= 1,
                _ => {}
            }
        }
        let target = text[start..end].split_whitespace().next().unwrap_or("");
        out.push((line_of(start), target.trim_matches(['<', '>']).to_string()));
        from = end.min(text.len());
        if from == start {
            from += 1;
        }
    }
    let mut offset = 0;
    for line in text.split('\n') {
        let t = line.trim_start();
        if t.starts_with('[') && !t.starts_with("[^") {
            if let Some(k) = t.find("]: ") {
                let target = t[k + 3..].split_whitespace().next().unwrap_or("");
                out.push((line_of(offset), target.trim_matches(['<', '>']).to_string()));
            }
        }
        offset += line.len() + 1;
    }
    out
}

/// The text of a heading as GitHub renders it: code spans keep their text,
/// links keep their label, images and HTML tags go.
fn heading_text(heading: &str) -> String {
    let mut s = String::new();
    let mut rest = heading;
    while let Some(k) = rest.find("](") {
        let Some(open) = rest[..k].rfind('[') else {
            break;
        };
        let close = rest[k..].find(')').map(|c| k + c + 1).unwrap_or(rest.len());
        s.push_str(&rest[..open]);
        s.push_str(&rest[open + 1..k]);
        rest = &rest[close..];
    }
    s.push_str(rest);
    let mut out = String::new();
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// GitHub's anchor for a heading: lowercase; letters, digits, `-` and `_`
/// kept; spaces become `-`; everything else dropped.
fn slug(heading: &str) -> String {
    heading_text(heading)
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Every anchor of a page: heading slugs (a repeated slug gets `-1`, `-2`
/// …, as on GitHub) and `<a id="…">` / `<a name="…">`.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for (_, h) in parse(text).headings {
        let s = slug(&h);
        let n = seen.entry(s.clone()).or_insert(0);
        out.insert(if *n == 0 {
            s.clone()
        } else {
            format!("{s}-{n}")
        });
        *n += 1;
    }
    for attr in ["id=\"", "name=\""] {
        for (k, _) in text.match_indices(attr) {
            if text[..k]
                .rfind("<a ")
                .is_some_and(|a| !text[a..k].contains('>'))
            {
                let v = &text[k + attr.len()..];
                out.insert(v[..v.find('"').unwrap_or(0)].to_string());
            }
        }
    }
    out
}

/// `base`'s directory joined with `rel`, normalized; `None` when it leaves
/// the repository.
fn resolve(base: &str, rel: &str) -> Option<String> {
    let dir = Path::new(base).parent().unwrap_or(Path::new(""));
    let mut parts: Vec<String> = Vec::new();
    for c in dir.join(rel).components() {
        match c {
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
}

/// What is wrong with the links of `pages` (path → Markdown): a missing
/// file or anchor, a link that leaves the repository or has another scheme
/// than http(s) or mailto, and a page under docs/ that no link chain from
/// README.md or docs/index.md reaches. `exists` tells whether a path that is
/// not one of `pages` is a file or directory of the repository.
fn check(pages: &BTreeMap<String, String>, exists: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut problems = Vec::new();
    let mut edges: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let page_anchors: BTreeMap<&str, BTreeSet<String>> = pages
        .iter()
        .map(|(p, t)| (p.as_str(), anchors(t)))
        .collect();
    for (page, text) in pages {
        for (line, para) in parse(text).paragraphs {
            for (n, target) in links(line, &para) {
                let at = format!("{page}:{n}: link `{target}`");
                if target.starts_with("http://")
                    || target.starts_with("https://")
                    || target.starts_with("mailto:")
                {
                    continue;
                }
                if target.is_empty() {
                    problems.push(format!("{at}: empty target"));
                    continue;
                }
                if let Some(colon) = target.find(':') {
                    if !target[..colon].contains(['/', '#']) {
                        problems.push(format!(
                            "{at}: only relative links and http(s)/mailto are allowed"
                        ));
                        continue;
                    }
                }
                let (path, anchor) = match target.split_once('#') {
                    Some((p, a)) => (p, Some(a)),
                    None => (target.as_str(), None),
                };
                let file = if path.is_empty() {
                    page.clone()
                } else {
                    match resolve(page, path) {
                        Some(f) => f,
                        None => {
                            problems.push(format!("{at}: points outside the repository"));
                            continue;
                        }
                    }
                };
                let is_page = pages.contains_key(&file);
                if !is_page && !exists(&file) {
                    problems.push(format!("{at}: no file {file}"));
                    continue;
                }
                if is_page {
                    edges.entry(page.as_str()).or_default().insert(file.clone());
                }
                let Some(anchor) = anchor else { continue };
                match page_anchors.get(file.as_str()) {
                    Some(known) if !known.contains(anchor) => problems.push(format!(
                        "{at}: no heading #{anchor} in {file} (its anchors: {})",
                        known.iter().cloned().collect::<Vec<_>>().join(", ")
                    )),
                    Some(_) => {}
                    // A line of a source file: GitHub's `#L12` or `#L12-L20`.
                    None if anchor.starts_with('L')
                        && anchor[1..].split("-L").all(|n| n.parse::<u32>().is_ok()) => {}
                    None => problems.push(format!(
                        "{at}: #{anchor} in {file}, which is not a Markdown page of the manual"
                    )),
                }
            }
        }
    }
    let mut reached: BTreeSet<String> = BTreeSet::new();
    let mut queue: VecDeque<String> = ["README.md", "docs/index.md"]
        .into_iter()
        .filter(|p| pages.contains_key(*p))
        .map(str::to_string)
        .collect();
    while let Some(p) = queue.pop_front() {
        if reached.insert(p.clone()) {
            queue.extend(edges.get(p.as_str()).into_iter().flatten().cloned());
        }
    }
    for page in pages.keys().filter(|p| p.starts_with("docs/")) {
        if !reached.contains(page) {
            problems.push(format!(
                "{page}: no link from README.md or docs/index.md (directly or through other pages) reaches it"
            ));
        }
    }
    problems
}

#[test]
fn every_link_and_anchor_of_the_manual_resolves_and_every_page_is_reachable() {
    let pages = manual();
    assert!(
        pages.contains_key("docs/index.md"),
        "docs/index.md is the table of contents"
    );
    let problems = check(&pages, &|p| root().join(p).exists());
    assert!(
        problems.is_empty(),
        "broken links in the manual:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_link_check_finds_missing_files_anchors_orphans_and_other_schemes() {
    let pages: BTreeMap<String, String> = [
        (
            "README.md",
            "# Title\n\nSee [usage](docs/usage.md#the-tour), [gone](docs/gone.md), \
             [bad anchor](docs/usage.md#nowhere), `[in code](docs/nope.md)`,\n\
             [up](../outside.md), [web](https://example.org/x#y) and [ftp](ftp://x/y).\n\n\
             ```\n[in a fence](docs/nope.md)\n```\n",
        ),
        (
            "docs/usage.md",
            "# Usage\n\n## The `tour`\n\n## The tour\n\n[top](../README.md#title) \
             [second](#the-tour-1) [self](#usage)\n",
        ),
        ("docs/orphan.md", "# Nobody links here\n"),
    ]
    .into_iter()
    .map(|(p, t)| (p.to_string(), t.to_string()))
    .collect();
    let problems = check(&pages, &|_| false);
    let expected = [
        "README.md:3: link `docs/gone.md`: no file docs/gone.md",
        "README.md:3: link `docs/usage.md#nowhere`: no heading #nowhere in docs/usage.md",
        "README.md:4: link `../outside.md`: points outside the repository",
        "README.md:4: link `ftp://x/y`: only relative links",
        "docs/orphan.md: no link from README.md",
    ];
    for e in expected {
        assert!(
            problems.iter().any(|p| p.starts_with(e)),
            "expected a problem starting with {e:?}; got:\n{}",
            problems.join("\n")
        );
    }
    assert_eq!(problems.len(), expected.len(), "{}", problems.join("\n"));
}

#[test]
fn anchors_are_github_s_heading_slugs() {
    assert_eq!(
        slug("query, load, extract, export"),
        "query-load-extract-export"
    );
    assert_eq!(
        slug("Karenina's results database"),
        "kareninas-results-database"
    );
    assert_eq!(slug("`kld info` on results"), "kld-info-on-results");
    assert_eq!(
        slug("Past one machine: existing SPARQL servers"),
        "past-one-machine-existing-sparql-servers"
    );
    assert_eq!(slug("Serving: `kld serve`"), "serving-kld-serve");
    assert_eq!(slug("Inspect AI (`-f inspect`)"), "inspect-ai--f-inspect");
    assert_eq!(
        slug("Croissant 1.1 (`-f croissant`)"),
        "croissant-11--f-croissant"
    );
    assert_eq!(slug("A [linked](x.md) heading"), "a-linked-heading");
    let a = anchors("# A\n\n## A\n\n```\n# not a heading\n```\n<a id=\"here\"></a>\n");
    assert_eq!(a, ["a", "a-1", "here"].map(String::from).into());
}

/// `(code, "file:line")` for every `KLD-…` code in `src/`, the registry
/// itself left out.
fn codes_in_src(dir: &Path, out: &mut BTreeMap<String, String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            codes_in_src(&p, out);
            continue;
        }
        if p.extension().is_none_or(|x| x != "rs") || p == root().join("src/diagnostics.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        for (n, line) in text.lines().enumerate() {
            for (k, _) in line.match_indices("KLD-") {
                let rest = &line.as_bytes()[k + 4..];
                let digits = rest
                    .iter()
                    .skip(1)
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                if rest.first().is_some_and(u8::is_ascii_uppercase) && digits > 0 {
                    let code = &line[k..k + 5 + digits];
                    let rel = p.strip_prefix(root()).unwrap().display();
                    out.entry(code.to_string())
                        .or_insert_with(|| format!("{rel}:{}", n + 1));
                }
            }
        }
    }
}

#[test]
fn the_diagnostics_registry_matches_the_source_and_the_docs_table() {
    let mut used = BTreeMap::new();
    codes_in_src(&root().join("src"), &mut used);
    let registered: BTreeSet<&str> = CODES.iter().map(|c| c.code).collect();
    let mut problems = Vec::new();
    for (code, at) in &used {
        if !registered.contains(code.as_str()) {
            problems.push(format!(
                "{code} is used at {at} but missing from CODES in src/diagnostics.rs"
            ));
        }
    }
    for code in &registered {
        if !used.contains_key(*code) {
            problems.push(format!(
                "CODES in src/diagnostics.rs lists {code}, which nothing in src/ uses"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    let page = read("docs/diagnostics.md");
    let (begin, end) = (
        "<!-- kld-diagnostics-begin -->\n",
        "<!-- kld-diagnostics-end -->",
    );
    let table = page
        .split_once(begin)
        .and_then(|(_, rest)| rest.split_once(end))
        .map(|(table, _)| table)
        .expect("docs/diagnostics.md holds the table between its kld-diagnostics markers");
    let expected = markdown_table();
    assert!(
        table == expected,
        "docs/diagnostics.md's table differs from the registry (src/diagnostics.rs); \
         put this between its markers:\n\n{expected}"
    );
}

#[test]
fn the_catalogue_page_lists_exactly_the_queries_with_what_they_return() {
    let mut queries = BTreeMap::new();
    for e in std::fs::read_dir(root().join("queries")).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "rq") {
            let text = std::fs::read_to_string(&p).unwrap();
            let returns = text
                .lines()
                .find_map(|l| l.strip_prefix("# Returns:"))
                .unwrap_or_else(|| panic!("{}: no `# Returns:` line", p.display()))
                .trim()
                .to_string();
            queries.insert(
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                returns,
            );
        }
    }
    let mut listed = BTreeMap::new();
    for line in read("docs/catalogue.md").lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() == 5 && cells[1].starts_with('`') && cells[3].starts_with('`') {
            listed.insert(
                cells[1].trim_matches('`').to_string(),
                cells[3].trim_matches('`').to_string(),
            );
        }
    }
    assert_eq!(
        listed, queries,
        "docs/catalogue.md's table (name → returns) against queries/*.rq (name → `# Returns:` line)"
    );
}

/// Every `karenina:` term a catalogue query uses is documented in the manual
/// (the mapping or the results pages), so a query cannot rely on a term the
/// docs do not explain.
#[test]
fn every_karenina_term_of_the_catalogue_is_documented() {
    let mut docs = String::new();
    for page in ["docs/mapping.md", "docs/results.md"] {
        docs.push_str(&read(page));
    }
    let documented = |t: &str| {
        docs.match_indices(t).any(|(i, _)| {
            let before = docs[..i].chars().next_back();
            let after = docs[i + t.len()..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric())
                && !after.is_some_and(|c| c.is_alphanumeric())
        })
    };
    let mut used = BTreeSet::new();
    for e in std::fs::read_dir(root().join("queries")).unwrap().flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap();
        for (i, _) in text.match_indices("karenina:") {
            if text[..i].ends_with("urn:") {
                continue; // the PREFIX declaration
            }
            let term: String = text[i + "karenina:".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric())
                .collect();
            used.insert((term, e.file_name().to_string_lossy().to_string()));
        }
    }
    assert!(used.len() > 20, "{used:?}");
    let missing: Vec<_> = used.iter().filter(|(t, _)| !documented(t)).collect();
    assert!(
        missing.is_empty(),
        "used by queries, documented nowhere: {missing:?}"
    );
}
