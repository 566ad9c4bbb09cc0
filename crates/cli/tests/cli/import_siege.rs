//! `kld import` under siege (issue 48): hostile workbooks, sheets and
//! tables, each generated here, must end within 30 s and 1 GB of address
//! space with exit 1 or 2 and a message naming the file (or exit 0 holding
//! exactly the sheet's questions); no panic, no abort. And nothing the user
//! gave is lost: `-o` onto an input is refused, concurrent `--into`
//! imports both land.

use super::kld;
use crate::common::data;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How a bounded run ended.
#[derive(Debug)]
pub(super) struct Outcome {
    pub(super) code: i32,
    pub(super) stdout: String,
    pub(super) stderr: String,
    secs: f64,
    /// kld's peak RSS in MB: its own (`/usr/bin/time`'s `%M`) when
    /// [`Outcome::rss_own`], else `wait4`'s, which is at least the test
    /// process's resident memory when it forked (Linux keeps the forked
    /// copy's high-water mark across `exec`): an upper bound only.
    pub(super) max_rss_mb: f64,
    /// Whether [`Outcome::max_rss_mb`] is kld's own peak.
    pub(super) rss_own: bool,
}

/// GNU time, which forks kld from its own small process and reports that
/// child's peak RSS alone (CI installs it: `.ci/run`).
const TIME: &str = "/usr/bin/time";

/// Runs `kld import ARGS` with its address space limited to 1 GiB and its
/// time to 30 s (its process group killed past it), and its peak RSS
/// measured (under [`TIME`] when installed, else by `wait4`).
fn siege(args: &[&std::ffi::OsStr], env: &[(&str, &str)]) -> Outcome {
    use std::os::unix::process::CommandExt;
    let out = tempfile::NamedTempFile::new().unwrap();
    let err = tempfile::NamedTempFile::new().unwrap();
    let rss = tempfile::NamedTempFile::new().unwrap();
    let rss_own = Path::new(TIME).is_file();
    let mut cmd = if rss_own {
        let mut c = std::process::Command::new(TIME);
        c.args(["-f", "%M", "-o"])
            .arg(rss.path())
            .arg(env!("CARGO_BIN_EXE_kld"));
        c
    } else {
        std::process::Command::new(env!("CARGO_BIN_EXE_kld"))
    };
    cmd.arg("import")
        .args(args)
        .envs(env.iter().copied())
        .stdout(out.reopen().unwrap())
        .stderr(err.reopen().unwrap())
        .process_group(0);
    // SAFETY: setrlimit only, between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let gib = libc::rlimit {
                rlim_cur: 1 << 30,
                rlim_max: 1 << 30,
            };
            libc::setrlimit(libc::RLIMIT_AS, &gib);
            Ok(())
        });
    }
    keep(args);
    let start = Instant::now();
    // Reaped by wait4 below (which also gives its peak RSS).
    #[allow(clippy::zombie_processes)]
    let child = cmd.spawn().unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waiting for our own child.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        if start.elapsed() > Duration::from_secs(30) {
            // SAFETY: our own child's process group (kld and, under time,
            // time), by its ID.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
            unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            panic!("kld import {args:?} still running after 30 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let secs = start.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&std::fs::read(err.path()).unwrap()).into_owned();
    // time's report: "Command terminated by signal N" when kld was killed,
    // then its peak in KB on the last line.
    let report = std::fs::read_to_string(rss.path()).unwrap_or_default();
    let signal = if rss_own {
        report
            .lines()
            .find_map(|l| l.strip_prefix("Command terminated by signal "))
            .map(|n| n.trim().parse::<i32>().unwrap())
    } else {
        (!libc::WIFEXITED(status)).then(|| libc::WTERMSIG(status))
    };
    assert!(
        signal.is_none() && libc::WIFEXITED(status),
        "kld import {args:?} ended by signal {signal:?} (an abort?): {stderr}"
    );
    let max_rss_mb = if rss_own {
        let kb: f64 = (report.lines().last().map(str::trim))
            .and_then(|l| l.parse().ok())
            .unwrap_or_else(|| panic!("{TIME} reported {report:?}"));
        kb / 1024.0
    } else {
        usage.ru_maxrss as f64 / 1024.0
    };
    let o = Outcome {
        code: libc::WEXITSTATUS(status),
        stdout: String::from_utf8_lossy(&std::fs::read(out.path()).unwrap()).into_owned(),
        stderr,
        secs,
        max_rss_mb,
        rss_own,
    };
    eprintln!(
        "siege {:?}: exit {} in {:.2} s, {:.0} MB RSS{}",
        args.first(),
        o.code,
        o.secs,
        o.max_rss_mb,
        if rss_own {
            ""
        } else {
            " (an upper bound: no /usr/bin/time)"
        }
    );
    assert!(!o.stderr.contains("panicked"), "a panic: {}", o.stderr);
    o
}

/// With `KLD_SIEGE_KEEP=DIR`, each hostile input is also copied into DIR
/// (to measure it again by hand, e.g. under `/usr/bin/time -v`).
fn keep(args: &[&std::ffi::OsStr]) {
    let Some(dir) = std::env::var_os("KLD_SIEGE_KEEP") else {
        return;
    };
    std::fs::create_dir_all(&dir).unwrap();
    for a in args.iter().map(Path::new).filter(|p| p.is_file()) {
        std::fs::copy(a, Path::new(&dir).join(a.file_name().unwrap())).unwrap();
    }
}

const QA: [&str; 4] = ["--question-column", "Q", "--answer-column", "A"];

/// `kld import FILE -Q -A --dry-run`, bounded.
pub(super) fn dry(file: &Path, env: &[(&str, &str)]) -> Outcome {
    let mut args: Vec<&std::ffi::OsStr> = vec![file.as_os_str()];
    args.extend(QA.iter().map(std::ffi::OsStr::new));
    args.extend(["--dry-run", "--output-format", "json"].map(std::ffi::OsStr::new));
    siege(&args, env)
}

/// A refusal: exit 1 or 2, the file named, the message short.
pub(super) fn assert_refused(o: &Outcome, file: &Path, says: &str) {
    assert!(matches!(o.code, 1 | 2), "exit {}: {}", o.code, o.stderr);
    let name = file.file_name().unwrap().to_str().unwrap();
    assert!(o.stderr.contains(name), "file not named: {}", o.stderr);
    assert!(o.stderr.contains(says), "expected {says:?}: {}", o.stderr);
    assert!(
        o.stderr.len() < 4096,
        "{} bytes of messages",
        o.stderr.len()
    );
}

/// The questions a dry run takes.
fn taken(o: &Outcome) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    (v["rows"].as_array().unwrap().iter())
        .filter(|r| r["status"] == "take")
        .map(|r| r["question"].as_str().unwrap().to_string())
        .collect()
}

/// An `.xlsx` with one sheet: `sheet_data` is the `<sheetData>` content
/// (inline strings), `sst` an optional `sharedStrings.xml`; entries
/// deflated.
fn xlsx(dir: &Path, name: &str, sheet_data: &str, sst: Option<&str>) -> PathBuf {
    let path = dir.join(name);
    let mut z = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let o = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    let mut put = |n: &str, body: &[u8]| {
        z.start_file(n, o).unwrap();
        z.write_all(body).unwrap();
    };
    put("[Content_Types].xml", br#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>"#);
    put("_rels/.rels", br#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#);
    put("xl/workbook.xml", br#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>"#);
    put("xl/_rels/workbook.xml.rels", br#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#);
    if let Some(sst) = sst {
        put("xl/sharedStrings.xml", sst.as_bytes());
    }
    put(
        "xl/worksheets/sheet1.xml",
        format!(r#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>{sheet_data}</sheetData></worksheet>"#).as_bytes(),
    );
    z.finish().unwrap();
    path
}

/// An inline-string cell.
fn c(r: &str, text: &str) -> String {
    format!(r#"<c r="{r}" t="inlineStr"><is><t>{text}</t></is></c>"#)
}

/// A header (Q, A) and one question.
pub(super) fn head() -> String {
    format!(
        r#"<row r="1">{}{}</row><row r="2">{}{}</row>"#,
        c("A1", "Q"),
        c("B1", "A"),
        c("A2", "What is 2+2?"),
        c("B2", "4")
    )
}

#[test]
fn a_workbook_of_two_far_cells_is_refused_before_its_grid_is_built() {
    let d = tempfile::tempdir().unwrap();
    for (name, far) in [("xfd.xlsx", "XFD1048576"), ("z1m.xlsx", "Z1000000")] {
        let f = xlsx(
            d.path(),
            name,
            &format!("{}<row>{}</row>", head(), c(far, "x")),
            None,
        );
        let o = dry(&f, &[]);
        assert_refused(&o, &f, "KLD_IMPORT_MAX_CELLS");
        assert!(
            o.stderr.contains(&format!("the grid A1:{far}")),
            "{}",
            o.stderr
        );
    }
}

#[test]
fn cell_references_past_the_last_cell_are_refused_not_wrapped() {
    let d = tempfile::tempdir().unwrap();
    for r in ["ZZZZZZZZZZZZ2", "A4000000000", "A4294967297"] {
        let f = xlsx(
            d.path(),
            "refs.xlsx",
            &format!("{}<row>{}</row>", head(), c(r, "over the header")),
            None,
        );
        let o = dry(&f, &[]);
        assert_refused(&o, &f, &format!("cell reference {r} is not a cell"));
    }
    // A row number past Excel's last row, too.
    let f = xlsx(
        d.path(),
        "row.xlsx",
        &format!(r#"{}<row r="4294967297">{}</row>"#, head(), c("A3", "x")),
        None,
    );
    assert_refused(&dry(&f, &[]), &f, "row number 4294967297");
}

#[test]
fn a_declared_shared_string_count_is_checked_before_calamine_reserves_it() {
    let d = tempfile::tempdir().unwrap();
    let sst = |n: &str| {
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="2" uniqueCount="{n}"><si><t>Q</t></si><si><t>A</t></si></sst>"#
        )
    };
    let sheet = format!(
        r#"<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row><row r="2">{}{}</row>"#,
        c("A2", "What is 2+2?"),
        c("B2", "4")
    );
    let f = xlsx(
        d.path(),
        "sst.xlsx",
        &sheet,
        Some(&sst("1000000000000000000")),
    );
    assert_refused(&dry(&f, &[]), &f, "KLD_IMPORT_MAX_STRINGS");
    // A count calamine cannot parse it ignores: the sheet reads.
    let f = xlsx(d.path(), "sst2.xlsx", &sheet, Some(&sst("1e18")));
    let o = dry(&f, &[]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(taken(&o), ["What is 2+2?"]);
}

#[test]
fn a_zip_bomb_is_refused_by_its_decompressed_size() {
    let d = tempfile::tempdir().unwrap();
    // 3.2 million copies of one question row: about 200 MB of XML that
    // deflates to well under a megabyte.
    let row = format!("<row>{}{}</row>", c("", "What is 2+2?"), c("", "4")).replace(r#" r="""#, "");
    let rows = row.repeat(1 << 21);
    let f = xlsx(d.path(), "bomb.xlsx", &format!("{}{rows}", head()), None);
    assert!(std::fs::metadata(&f).unwrap().len() < 2 << 20);
    let o = dry(&f, &[]);
    assert_refused(&o, &f, "KLD_IMPORT_MAX_BYTES");
    assert!(o.max_rss_mb < 1024.0, "{} MB", o.max_rss_mb);
}

#[test]
fn within_the_limits_a_sheet_reads_and_a_limit_is_raised_by_its_variable() {
    let d = tempfile::tempdir().unwrap();
    let f = xlsx(d.path(), "ok.xlsx", &head(), None);
    let o = dry(&f, &[]);
    assert_eq!(
        (o.code, taken(&o)),
        (0, vec!["What is 2+2?".to_string()]),
        "{}",
        o.stderr
    );
    let o = dry(&f, &[("KLD_IMPORT_MAX_CELLS", "3")]);
    assert_refused(
        &o,
        &f,
        "past the limit of 3 (raise it with KLD_IMPORT_MAX_CELLS=N",
    );
    let o = dry(&f, &[("KLD_IMPORT_MAX_CELLS", "4")]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = dry(&f, &[("KLD_IMPORT_MAX_CELLS", "lots")]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("KLD_IMPORT_MAX_CELLS=\"lots\""),
        "{}",
        o.stderr
    );
    // The CSV reader is bounded the same way.
    let csv = d.path().join("q.csv");
    std::fs::write(&csv, "Q,A\nx,1\ny,2\nz,3\n").unwrap();
    assert_refused(
        &dry(&csv, &[("KLD_IMPORT_MAX_ROWS", "2")]),
        &csv,
        "KLD_IMPORT_MAX_ROWS",
    );
    assert_refused(
        &dry(&csv, &[("KLD_IMPORT_MAX_BYTES", "8")]),
        &csv,
        "KLD_IMPORT_MAX_BYTES",
    );
}

/// One byte of tests/data/import/legacy.xls changed.
fn flipped(dir: &Path, at: usize, to: u8) -> PathBuf {
    let mut b = std::fs::read(data("import/legacy.xls")).unwrap();
    b[at] = to;
    let p = dir.join(format!("legacy-{at}-{to:02x}.xls"));
    std::fs::write(&p, b).unwrap();
    p
}

#[test]
fn flipped_bytes_of_a_legacy_workbook_never_panic_or_reserve_gigabytes() {
    let d = tempfile::tempdir().unwrap();
    // The siege's three: a calamine panic, 687 GB and 17 GB asked.
    for (at, to) in [(666, 0x00), (1744, 0x7f), (65, 0xff)] {
        let f = flipped(d.path(), at, to);
        let o = dry(&f, &[]);
        assert!(matches!(o.code, 0 | 1), "exit {}: {}", o.code, o.stderr);
        if o.code == 1 {
            assert_refused(&o, &f, "");
        }
    }
}

/// The flips calamine 0.35 panicked on (caught, but a panic is not a
/// message): each is refused before calamine runs, naming the record.
#[test]
fn records_calamine_would_misread_are_refused_by_name() {
    let d = tempfile::tempdir().unwrap();
    for (at, to, record) in [
        (514, 0x00, "a BOF record of 0 bytes"),
        (666, 0x00, "a CodePage record of 0 bytes"),
        (760, 0x00, "a DateMode record of 0 bytes"),
        (2050, 0xff, "a MulRk record whose last column"),
        (2070, 0x00, "a MulRk record whose last column (0)"),
    ] {
        let f = flipped(d.path(), at, to);
        let o = dry(&f, &[]);
        assert_refused(&o, &f, record);
        assert!(!o.stderr.contains("calamine cannot read"), "{}", o.stderr);
    }
}

#[test]
fn an_unclosed_quote_is_a_located_parse_error_not_rows_dropped() {
    let d = tempfile::tempdir().unwrap();
    let mut tsv = String::from("Q\tA\nWhat is 2+2?\t4\n\"What is 3+3?\t6\n");
    for i in 0..100_000 {
        tsv.push_str(&format!("Question {i}?\t{i}\n"));
    }
    let f = d.path().join("quote.tsv");
    std::fs::write(&f, &tsv).unwrap();
    let o = dry(&f, &[]);
    assert_refused(
        &o,
        &f,
        "row 3: not a well-formed TSV table: a quoted field opened in this row is never closed",
    );
    // The quote at the start of the header: the whole file is one name,
    // and no message quotes it.
    let f = d.path().join("header.tsv");
    std::fs::write(
        &f,
        format!("\"{}", tsv.replace("\"What is 3+3", "What is 3+3")),
    )
    .unwrap();
    let o = dry(&f, &[]);
    assert_refused(&o, &f, "row 1:");
    // A quote closed on a later line is one multi-line field, as in pandas.
    let f = d.path().join("closed.csv");
    std::fs::write(&f, "Q,A\n\"What is\n2+2?\",4\n").unwrap();
    let o = dry(&f, &[]);
    assert_eq!(
        (o.code, taken(&o)),
        (0, vec!["What is\n2+2?".to_string()]),
        "{}",
        o.stderr
    );
}

/// `header(n)`, a CSV of a question whose header has `n` more names: past
/// Excel's 16,384 columns by default, a million are refused naming the
/// limit; with the limit raised, 200,000 are renamed and the question read
/// (in a debug build).
fn wide_header_refused_then_read_raised(f: &Path, header: impl Fn(usize) -> String) {
    std::fs::write(f, header(1_000_000)).unwrap();
    assert_refused(&dry(f, &[]), f, "KLD_IMPORT_MAX_COLUMNS");
    std::fs::write(f, header(200_000)).unwrap();
    let o = dry(f, &[("KLD_IMPORT_MAX_COLUMNS", "2000000")]);
    assert_eq!(
        (o.code, taken(&o)),
        (0, vec!["What is 2+2?".to_string()]),
        "{}",
        o.stderr
    );
}

#[test]
fn a_header_of_a_million_repeated_names_is_renamed_in_time() {
    let d = tempfile::tempdir().unwrap();
    // Raised, 200,000 names (the quadratic renaming took 32 s for half as
    // many) are renamed (x, x.1, …).
    let header = |n: usize| format!("Q,A{}\nWhat is 2+2?,4\n", ",x".repeat(n));
    wide_header_refused_then_read_raised(&d.path().join("names.csv"), header);
}

#[test]
fn a_header_of_a_million_empty_names_is_renamed_in_time() {
    let d = tempfile::tempdir().unwrap();
    // Raised, 200,000 empty names become `Unnamed: N` (pandas' names,
    // renamed in one pass).
    let header = |n: usize| format!("Q,A{}\nWhat is 2+2?,4\n", ",".repeat(n));
    wide_header_refused_then_read_raised(&d.path().join("empty-names.csv"), header);
}

#[test]
fn output_onto_an_input_is_refused_and_the_input_kept() {
    let d = tempfile::tempdir().unwrap();
    let q = d.path().join("q.csv");
    let body = "Q,A\nWhat is 2+2?,4\n";
    std::fs::write(&q, body).unwrap();
    let link = d.path().join("again.csv");
    std::fs::hard_link(&q, &link).unwrap();
    for (flag, out) in [("-o", &q), ("-o", &link), ("--into", &q)] {
        let o = kld()
            .arg("import")
            .arg(&q)
            .args(QA)
            .arg(flag)
            .arg(out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag} {out:?}: {err}");
        assert!(err.contains("names an input"), "{err}");
        assert_eq!(std::fs::read_to_string(&q).unwrap(), body);
    }
}

#[test]
fn concurrent_imports_into_one_checkpoint_lose_nothing() {
    let d = tempfile::tempdir().unwrap();
    let ck = d.path().join("ck.jsonld");
    let o = kld()
        .arg("import")
        .arg(data("import/questions.csv"))
        .args([
            "--question-column",
            "Question",
            "--answer-column",
            "Answer",
            "-o",
        ])
        .arg(&ck)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let count = |p: &Path| -> usize {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
        v["dataFeedElement"].as_array().map_or(0, Vec::len)
    };
    let mut expected = count(&ck);
    for round in 0..20 {
        let sheets: Vec<PathBuf> = (0..2)
            .map(|k| {
                let p = d.path().join(format!("r{round}-{k}.csv"));
                let mut s = String::from("Q,A\n");
                for i in 0..300 {
                    s.push_str(&format!("Round {round} sheet {k} question {i}?,{i}\n"));
                }
                std::fs::write(&p, s).unwrap();
                p
            })
            .collect();
        let children: Vec<_> = sheets
            .iter()
            .map(|s| {
                std::process::Command::new(env!("CARGO_BIN_EXE_kld"))
                    .arg("import")
                    .arg(s)
                    .args(QA)
                    .arg("--into")
                    .arg(&ck)
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for ch in children {
            let o = ch.wait_with_output().unwrap();
            assert!(
                o.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        expected += 600;
        assert_eq!(count(&ck), expected, "round {round}: questions lost");
    }
}

#[test]
fn duplicate_warnings_are_bounded() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("dups.csv");
    let mut s = String::from("Q,A\n");
    for _ in 0..5000 {
        s.push_str("What is 2+2?,4\n");
    }
    std::fs::write(&f, s).unwrap();
    let out = d.path().join("out.jsonld");
    let o = kld()
        .arg("import")
        .arg(&f)
        .args(QA)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.lines().count() <= 25, "{} lines", err.lines().count());
    assert!(
        err.contains("and 4979 more questions already there"),
        "{err}"
    );
}
