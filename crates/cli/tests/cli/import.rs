//! `kld import`: sheets and datasets → canonical checkpoints, on the small
//! fixtures of tests/data/import (the `*.karenina.jsonld` files there are
//! what Karenina's extract_questions_from_file + add_question + save wrote
//! for them: make_fixtures.py, make_headers.py).

use super::{kld, stdout_of};
use crate::common::data;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    data(&format!("import/{name}"))
}

/// The clock's values (item and benchmark timestamps, the checkpoint's
/// `@id`) masked: everything else must be Karenina's bytes.
fn clockless(text: &str) -> String {
    let dates = regex::Regex::new(r#""(dateCreated|dateModified)": "[^"]*""#).unwrap();
    let id = regex::Regex::new(r"karenina-checkpoint-[0-9.]+").unwrap();
    id.replace_all(&dates.replace_all(text, "$1"), "ID")
        .into_owned()
}

const CSV_FLAGS: &[&str] = &[
    "--question-column",
    "Question",
    "--answer-column",
    "Answer",
    "--author-name-column",
    "Author",
    "--author-email-column",
    "Email",
    "--author-affiliation-column",
    "Affiliation",
    "--url-column",
    "URL",
    "--keywords-column",
    "Area",
    "--keywords-column",
    "Tags:;",
    "--answer-notes-column",
    "Notes",
    "--custom-metadata-column",
    "Difficulty",
    "--custom-metadata-column",
    "Score",
    "--custom-metadata-column",
    "Reviewed",
];

fn import_csv(out: &Path) -> std::process::Output {
    kld()
        .arg("import")
        .arg(fixture("questions.csv"))
        .args(CSV_FLAGS)
        .args(["--name", "questions", "-o"])
        .arg(out)
        .output()
        .unwrap()
}

fn assert_canonical_and_valid(file: &Path) {
    stdout_of(kld().args(["canon", "--check"]).arg(file));
    stdout_of(kld().args(["validate", "--deny-warnings"]).arg(file));
}

#[test]
fn a_karenina_style_sheet_imports_to_what_karenina_writes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("q.jsonld");
    let o = import_csv(&out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "questions.csv: row 7: question cb0b4aaf80c43c9973aefeda1bd72890 is already there ("
        ) && err.contains("questions.csv: row 2): not added"),
        "{err}"
    );
    assert!(err.contains("4 questions into"), "{err}");
    let ours = std::fs::read_to_string(&out).unwrap();
    let theirs = std::fs::read_to_string(fixture("questions.karenina.jsonld")).unwrap();
    assert_eq!(clockless(&ours), clockless(&theirs));
    assert_canonical_and_valid(&out);
}

#[test]
fn a_workbook_sheet_is_chosen_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("b.jsonld");
    stdout_of(
        kld()
            .arg("import")
            .arg(fixture("questions.xlsx"))
            .args(["--sheet", "Biology", "--question-column", "Question"])
            .args([
                "--answer-column",
                "Answer",
                "--author-name-column",
                "Author",
            ])
            .args([
                "--keywords-column",
                "Keywords:;",
                "--custom-metadata-column",
                "Level",
            ])
            .args(["--name", "biology", "-o"])
            .arg(&out),
    );
    let ours = std::fs::read_to_string(&out).unwrap();
    let theirs = std::fs::read_to_string(fixture("questions-biology.karenina.jsonld")).unwrap();
    assert_eq!(clockless(&ours), clockless(&theirs));
    assert_canonical_and_valid(&out);

    // The second sheet, its own columns; numbers as pandas reads them (7 → "7").
    let chem = dir.path().join("c.jsonld");
    stdout_of(
        kld()
            .arg("import")
            .arg(fixture("questions.xlsx"))
            .args([
                "--sheet",
                "Chemistry",
                "--question-column",
                "Q",
                "--answer-column",
                "A",
            ])
            .arg("-o")
            .arg(&chem),
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&chem).unwrap()).unwrap();
    let items = v["dataFeedElement"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[1]["item"]["acceptedAnswer"]["text"], "7");
    assert_eq!(v["name"], "c", "the name defaults to the output's stem");
    assert_canonical_and_valid(&chem);
}

#[test]
fn dates_in_custom_metadata_are_written_as_iso_text() {
    // Karenina's save() fails on them (Timestamp is not JSON serializable).
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d.jsonld");
    stdout_of(
        kld()
            .arg("import")
            .arg(fixture("questions.xlsx"))
            .args(["--question-column", "Question", "--answer-column", "Answer"])
            .args(["--custom-metadata-column", "Reviewed on", "-o"])
            .arg(&out),
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("\"value\": \"2024-03-01T00:00:00\""),
        "{text}"
    );
    assert!(
        text.contains("\"value\": \"2024-03-02T10:30:00\""),
        "{text}"
    );
    assert_canonical_and_valid(&out);
}

#[test]
fn a_legacy_xls_workbook_reads_as_pandas_would() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.jsonld");
    stdout_of(
        kld()
            .arg("import")
            .arg(fixture("legacy.xls"))
            .args(["--question-column", "Question", "--answer-column", "Answer"])
            .args([
                "--custom-metadata-column",
                "Level",
                "--custom-metadata-column",
                "Added",
            ])
            .arg("-o")
            .arg(&out),
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let items = v["dataFeedElement"].as_array().unwrap();
    assert_eq!(items.len(), 2, "the row with an empty question is dropped");
    assert_eq!(items[0]["item"]["acceptedAnswer"]["text"], "299792");
    let props = &items[0]["item"]["additionalProperty"];
    // A column with an empty cell is float64: 1 → 1.0.
    assert_eq!(props[1]["name"], "custom_Level");
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .contains("\"value\": 1.0\n"));
    assert_eq!(props[2]["value"], "2023-05-06T00:00:00");
    assert_canonical_and_valid(&out);
    // Karenina's own bytes for it (xlrd; without the dates column, on which
    // Karenina's save fails).
    std::fs::remove_file(&out).unwrap();
    stdout_of(
        kld()
            .arg("import")
            .arg(fixture("legacy.xls"))
            .args(["--sheet", "Legacy", "--question-column", "Question"])
            .args(["--answer-column", "Answer", "--custom-metadata-column"])
            .args(["Level", "--name", "legacy", "-o"])
            .arg(&out),
    );
    let ours = std::fs::read_to_string(&out).unwrap();
    let theirs = std::fs::read_to_string(fixture("legacy.karenina.jsonld")).unwrap();
    assert_eq!(clockless(&ours), clockless(&theirs));
}

/// A workbook's header of numbers, booleans, dates, repeated names and an
/// empty cell: kld names the columns as pandas names them
/// (`headers.columns.json`, pandas 3.1.1: `True`, `1.0` and `1` are one
/// name, the text `2024` is not the number 2024, `x, x, x.1` are `x, x.2,
/// x.1`), and selecting the renamed ones gives Karenina's bytes. A number
/// header no text header shares is found by its text (Karenina's extractor
/// skips it, given text).
#[test]
fn workbook_headers_are_named_as_pandas_names_them() {
    let (code, err, out, _dir) = import_err(
        &["--question-column", "Question", "--answer-column", "Nope"],
        &[fixture("headers.xlsx")],
    );
    assert_eq!(code, 1, "{err}");
    assert!(!out.exists());
    let pandas: Vec<String> =
        serde_json::from_str(&std::fs::read_to_string(fixture("headers.columns.json")).unwrap())
            .unwrap();
    let listed = err
        .split("the file has: ")
        .nth(1)
        .and_then(|t| t.split(" (check").next())
        .unwrap_or_else(|| panic!("{err}"));
    let quoted: Vec<String> = pandas.iter().map(|n| format!("{n:?}")).collect();
    assert_eq!(listed, quoted.join(", "));

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("headers.jsonld");
    let mut cmd = kld();
    cmd.arg("import").arg(fixture("headers.xlsx"));
    cmd.args(["--question-column", "Question", "--answer-column", "Answer"]);
    for c in [
        "2024",
        "1.1",
        "x.2",
        "x.1",
        "Unnamed: 14",
        "Unnamed: 14.1",
        "False.1",
        "0.2",
    ] {
        cmd.args(["--custom-metadata-column", c]);
    }
    stdout_of(cmd.args(["--name", "headers", "-o"]).arg(&out));
    let ours = std::fs::read_to_string(&out).unwrap();
    let theirs = std::fs::read_to_string(fixture("headers.karenina.jsonld")).unwrap();
    assert_eq!(clockless(&ours), clockless(&theirs));

    // The boolean header True, by its text: the fifth column.
    stdout_of(
        kld()
            .arg("import")
            .arg(fixture("headers.xlsx"))
            .args(["--question-column", "Question", "--answer-column", "Answer"])
            .args(["--custom-metadata-column", "True", "-o"])
            .arg(&out),
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let props = &v["dataFeedElement"][1]["item"]["additionalProperty"];
    assert_eq!(props[1]["name"], "custom_True", "{props}");
    assert_eq!(props[1]["value"], 23, "{props}");
}

#[test]
fn dry_run_lists_rows_taken_dropped_and_duplicated_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never.jsonld");
    let json = stdout_of(
        kld()
            .arg("import")
            .arg(fixture("questions.csv"))
            .args(CSV_FLAGS)
            .args(["--dry-run", "--output-format", "json", "-o"])
            .arg(&out),
    );
    assert!(!out.exists());
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (
            v["taken"].as_u64(),
            v["dropped"].as_u64(),
            v["duplicates"].as_u64()
        ),
        (Some(4), Some(2), Some(1))
    );
    let rows = v["rows"].as_array().unwrap();
    let status: Vec<(u64, &str)> = rows
        .iter()
        .map(|r| (r["row"].as_u64().unwrap(), r["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        status,
        [
            (2, "take"),
            (3, "take"),
            (4, "take"),
            (5, "drop"),
            (6, "drop"),
            (7, "duplicate"),
            (8, "take")
        ]
    );
    assert_eq!(rows[3]["reason"], "empty answer");
    assert_eq!(rows[4]["reason"], "blank question (only whitespace)");
    assert_eq!(
        rows[2]["question"],
        "What is the boiling point of water at sea level?"
    );
    assert_eq!(rows[2]["answer"], "100 °C");
    assert_eq!(
        rows[0]["keywords"],
        serde_json::json!(["capitals", "cities", "europe", "geography"])
    );

    let text = stdout_of(kld().arg("import").arg(fixture("questions.csv")).args([
        "--question-column",
        "Question",
        "--answer-column",
        "Answer",
        "--dry-run",
    ]));
    assert!(
        text.contains("questions.csv: row 5\tdrop\t\tempty answer"),
        "{text}"
    );
    assert!(
        text.contains("questions.csv: row 7\tduplicate\tcb0b4aaf80c43c9973aefeda1bd72890"),
        "{text}"
    );
}

#[test]
fn into_appends_in_order_and_never_doubles_a_question() {
    let dir = tempfile::tempdir().unwrap();
    let bench = dir.path().join("bench.jsonld");
    assert!(import_csv(&bench).status.success());
    let before: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&bench).unwrap()).unwrap();
    let o = kld()
        .arg("import")
        .arg(fixture("questions.xlsx"))
        .arg(fixture("questions.csv"))
        .args([
            "--question-column",
            "Question",
            "--answer-column",
            "Answer",
            "--into",
        ])
        .arg(&bench)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("question d46faf4fb582ac37f2259ebe98c096f8 is already there (question d46faf4fb582ac37f2259ebe98c096f8 of the checkpoint)"),
        "{err}"
    );
    assert!(err.contains("3 questions into"), "{err}");
    let after: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&bench).unwrap()).unwrap();
    let ids = |v: &serde_json::Value| -> Vec<String> {
        v["dataFeedElement"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["@id"].as_str().unwrap().to_string())
            .collect()
    };
    let (b, a) = (ids(&before), ids(&after));
    assert_eq!(a.len(), b.len() + 3);
    assert_eq!(a[..b.len()], b[..], "existing questions first, unchanged");
    assert_eq!(after["name"], before["name"]);
    assert_eq!(after["dateCreated"], before["dateCreated"]);
    assert_canonical_and_valid(&bench);
}

fn import_err(args: &[&str], files: &[PathBuf]) -> (i32, String, PathBuf, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonld");
    let o = kld()
        .arg("import")
        .args(files)
        .args(args)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let code = o.status.code().unwrap();
    (
        code,
        String::from_utf8_lossy(&o.stderr).into_owned(),
        out,
        dir,
    )
}

#[test]
fn bad_input_is_located_and_nothing_is_written() {
    let qa = ["--question-column", "Question", "--answer-column", "Answer"];
    // A missing column names those the file has.
    let (code, err, out, _d) = import_err(
        &["--question-column", "Question", "--answer-column", "Answr"],
        &[fixture("questions.csv")],
    );
    assert_eq!(code, 1);
    assert!(err.contains("questions.csv: missing columns in file: \"Answr\"; the file has: \"Question\", \"Answer\", \"Author\""), "{err}");
    assert!(!out.exists());
    // An optional column too (Karenina ignores it silently).
    let (code, err, out, _d) = import_err(
        &[&qa[..], &["--url-column", "Link"]].concat(),
        &[fixture("questions.csv")],
    );
    assert_eq!(code, 1);
    assert!(err.contains("missing columns in file: \"Link\""), "{err}");
    assert!(!out.exists());
    // Columns not named at all.
    let (code, err, _, _d) = import_err(&[], &[fixture("questions.csv")]);
    assert_eq!(code, 1);
    assert!(
        err.contains("the question and answer columns are not named; the file has: \"Question\""),
        "{err}"
    );
    assert!(err.contains("--question-column"), "{err}");
    // A sheet that is not there names those that are.
    let (code, err, out, _d) = import_err(
        &[&qa[..], &["--sheet", "Physics"]].concat(),
        &[fixture("questions.xlsx")],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "questions.xlsx: no sheet \"Physics\"; the workbook has: \"Biology\", \"Chemistry\""
        ),
        "{err}"
    );
    assert!(!out.exists());
    // A sheet's missing column names the sheet.
    let (code, err, _, _d) = import_err(
        &[&qa[..], &["--sheet", "Chemistry"]].concat(),
        &[fixture("questions.xlsx")],
    );
    assert_eq!(code, 1);
    assert!(err.contains("questions.xlsx [sheet \"Chemistry\"]: missing columns in file: \"Question\", \"Answer\"; the file has: \"Q\", \"A\""), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    // A later file's error: nothing written, not even the first file's questions.
    let long = write("long.csv", b"Question,Answer\nq1,a1\nq2,a2,extra\n");
    let (code, err, out, _d) = import_err(&qa, &[fixture("questions.csv"), long]);
    assert_eq!(code, 1);
    assert!(
        err.contains("long.csv: row 3: expected 2 fields (the header's), saw 3"),
        "{err}"
    );
    assert!(!out.exists());
    let latin = write("latin.csv", b"Question,Answer\nq1,caf\xe9\n");
    let (_, err, _, _d) = import_err(&qa, &[latin]);
    assert!(
        err.contains("latin.csv: row 2, column \"Answer\": not UTF-8"),
        "{err}"
    );
    let inf = write("inf.csv", b"Question,Answer,Weight\nq1,a1,1.5\nq2,a2,inf\n");
    let (code, err, _, _d) = import_err(
        &[&qa[..], &["--custom-metadata-column", "Weight"]].concat(),
        &[inf],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "inf.csv: row 3, column \"Weight\": custom metadata \"Weight\" is an infinite number"
        ),
        "{err}"
    );
    // Files that are not tables say what they look like.
    let (_, err, _, _d) = import_err(
        &[&qa[..], &["--format", "csv"]].concat(),
        &[fixture("questions.xlsx")],
    );
    assert!(
        err.contains("not a CSV table: a ZIP archive (an .xlsx workbook?"),
        "{err}"
    );
    let cp = Path::new(env!("KLD_SOURCE_ROOT")).join("examples/notebook.jsonld");
    let (_, err, _, _d) = import_err(&[&qa[..], &["--format", "jsonl"]].concat(), &[cp]);
    assert!(
        err.contains("not a JSON Lines dataset: a Karenina checkpoint (JSON-LD)"),
        "{err}"
    );
    let (code, err, _, _d) = import_err(&qa, &[write("empty.csv", b"")]);
    assert_eq!(code, 1);
    assert!(err.contains("not a CSV table: an empty file"), "{err}");
    let (code, err, _, _d) = import_err(&qa, &[write("x.dat", b"\x01\x02")]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot tell the format"), "{err}");
}

#[test]
fn an_inspect_export_imports_back_to_the_same_questions() {
    let dir = tempfile::tempdir().unwrap();
    let cp = Path::new(env!("KLD_SOURCE_ROOT")).join("examples/notebook.jsonld");
    let samples = dir.path().join("samples.jsonl");
    stdout_of(
        kld()
            .args(["export", "-f", "inspect"])
            .arg(&cp)
            .arg("-o")
            .arg(&samples),
    );
    let back = dir.path().join("back.jsonld");
    // Told by its content: a .jsonl whose records have input and target.
    stdout_of(kld().arg("import").arg(&samples).arg("-o").arg(&back));
    assert_canonical_and_valid(&back);
    let read = |p: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let (a, b) = (read(&cp), read(&back));
    assert_eq!(b["name"], a["name"], "the benchmark's name comes back");
    let qs = |v: &serde_json::Value| -> Vec<(String, String, String, serde_json::Value)> {
        v["dataFeedElement"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                (
                    i["@id"].as_str().unwrap().to_string(),
                    i["item"]["text"].as_str().unwrap().to_string(),
                    i["item"]["acceptedAnswer"]["text"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                    i["item"]["keywords"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(qs(&b), qs(&a));
}

#[test]
fn inspect_samples_with_chat_input_choices_and_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.jsonld");
    stdout_of(
        kld()
            .arg("import")
            .arg(fixture("samples.jsonl"))
            .args(["--format", "inspect", "--name", "mc", "-o"])
            .arg(&out),
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let items = v["dataFeedElement"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["@id"], "1");
    assert_eq!(items[1]["item"]["text"], "Which planet is largest?");
    let props = items[1]["item"]["additionalProperty"].as_array().unwrap();
    let names: Vec<&str> = props.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["finished", "custom_choices", "custom_subject"]);
    assert_eq!(items[2]["item"]["acceptedAnswer"]["text"], "4\nfour");
    assert_canonical_and_valid(&out);
}

#[test]
fn plain_json_lines_map_through_the_column_flags() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.jsonld");
    stdout_of(
        kld()
            .arg("import")
            .arg(fixture("plain.jsonl"))
            .args(["--question-column", "prompt", "--answer-column", "expected"])
            .args([
                "--keywords-column",
                "tags:|",
                "--custom-metadata-column",
                "points",
                "-o",
            ])
            .arg(&out),
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let items = v["dataFeedElement"].as_array().unwrap();
    assert_eq!(items.len(), 2, "the record without an answer is dropped");
    assert_eq!(items[0]["item"]["keywords"], serde_json::json!(["a", "b"]));
    assert_eq!(items[0]["item"]["acceptedAnswer"]["text"], "42");
    let points = &items[0]["item"]["additionalProperty"][1];
    assert_eq!(
        (points["name"].as_str(), points["value"].as_i64()),
        (Some("custom_points"), Some(3))
    );
    assert_canonical_and_valid(&out);
}

#[cfg(unix)]
#[test]
fn output_to_a_device_writes_through_it() {
    let o = import_csv(Path::new("/dev/null"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    // `-o -`: standard output.
    let text = stdout_of(kld().arg("import").arg(fixture("questions.csv")).args([
        "--question-column",
        "Question",
        "--answer-column",
        "Answer",
        "-o",
        "-",
    ]));
    assert!(text.starts_with("{\n  \"@context\""), "{text}");
}

/// `--into` a scenario benchmark is refused, with `--dry-run` too: Karenina
/// adds no standalone question to one. The file is left as it was.
#[test]
fn a_scenario_benchmark_takes_no_imported_questions() {
    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("scenario.jsonld");
    std::fs::copy(
        data("corpus/loads/karenina-output__scenario_probe.jsonld"),
        &into,
    )
    .unwrap();
    let before = std::fs::read(&into).unwrap();
    for dry in [false, true] {
        let mut cmd = kld();
        cmd.arg("import")
            .arg(fixture("questions.csv"))
            .args(CSV_FLAGS);
        cmd.arg("--into").arg(&into);
        if dry {
            cmd.arg("--dry-run");
        }
        let o = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains("scenario.jsonld: a scenario benchmark: Karenina does not add standalone questions to one"),
            "{err}"
        );
        assert_eq!(std::fs::read(&into).unwrap(), before);
    }
}
