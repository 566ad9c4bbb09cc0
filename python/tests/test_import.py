"""`import_questions`: the same checkpoints `kld import` writes, from the
same sheets (tests/data/import), under the argument names of Karenina's
`extract_questions_from_file`; Karenina's own bytes (the
`*.karenina.jsonld` files there) but for the clock."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest

import karenina_ld
from conftest import REPO, kld

DATA = REPO / "tests" / "data" / "import"

CSV_ARGS = dict(
    question_column="Question",
    answer_column="Answer",
    author_name_column="Author",
    author_email_column="Email",
    author_affiliation_column="Affiliation",
    url_column="URL",
    keywords_columns=["Area", {"column": "Tags", "separator": ";"}],
    answer_notes_column="Notes",
    custom_metadata_columns=["Difficulty", "Score", "Reviewed"],
)
CSV_FLAGS = [
    "--question-column", "Question", "--answer-column", "Answer",
    "--author-name-column", "Author", "--author-email-column", "Email",
    "--author-affiliation-column", "Affiliation", "--url-column", "URL",
    "--keywords-column", "Area", "--keywords-column", "Tags:;",
    "--answer-notes-column", "Notes", "--custom-metadata-column", "Difficulty",
    "--custom-metadata-column", "Score", "--custom-metadata-column", "Reviewed",
]


def clockless(text: str) -> str:
    """The clock's values (timestamps, the checkpoint's `@id`) masked."""
    text = re.sub(r'"(dateCreated|dateModified)": "[^"]*"', r"\1", text)
    return re.sub(r"karenina-checkpoint-[0-9.]+", "ID", text)


def test_a_sheet_imports_to_karenina_s_bytes_and_the_cli_s(tmp_path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cp = karenina_ld.import_questions(DATA / "questions.csv", name="questions", **CSV_ARGS)
    ours = cp.to_bytes().decode()
    theirs = (DATA / "questions.karenina.jsonld").read_text(encoding="utf-8")
    assert clockless(ours) == clockless(theirs)
    # The fixture repeats a question: one warning lists it, as the CLI does.
    assert [str(w.message).split(":")[0] for w in caught] == ["karenina_ld.import_questions"]
    assert "already there, not added" in str(caught[0].message)
    out = tmp_path / "cli.jsonld"
    kld("import", DATA / "questions.csv", *CSV_FLAGS, "--name", "questions", "-o", out)
    assert clockless(out.read_text(encoding="utf-8")) == clockless(ours)


def test_a_workbook_sheet_by_name_and_into_an_existing_checkpoint(tmp_path: Path) -> None:
    cp = karenina_ld.import_questions(
        DATA / "questions.xlsx", sheet_name="Biology", question_column="Question",
        answer_column="Answer", author_name_column="Author",
        keywords_columns=[{"column": "Keywords", "separator": ";"}],
        custom_metadata_columns=["Level"], name="biology",
    )
    theirs = (DATA / "questions-biology.karenina.jsonld").read_text(encoding="utf-8")
    assert clockless(cp.to_bytes().decode()) == clockless(theirs)
    # into: the questions appended, the benchmark's name kept.
    more = karenina_ld.import_questions(
        DATA / "questions.xlsx", sheet_name="Chemistry", question_column="Q",
        answer_column="A", into=cp,
    )
    assert more.name == "biology"
    assert len(more.questions) == len(cp.questions) + 2
    assert [q["question"] for q in more.questions][:len(cp.questions)] == [q["question"] for q in cp.questions]
    # The same through the CLI's --into.
    base = tmp_path / "bio.jsonld"
    cp.save(base)
    kld("import", DATA / "questions.xlsx", "--sheet", "Chemistry", "--question-column", "Q",
        "--answer-column", "A", "--into", base)
    assert clockless(base.read_text(encoding="utf-8")) == clockless(more.to_bytes().decode())


def test_bad_input_raises_what_it_is_and_where() -> None:
    with pytest.raises(ValueError, match=r'questions\.csv: missing columns in file: "Answr"; the file has: "Question"'):
        karenina_ld.import_questions(DATA / "questions.csv", question_column="Question", answer_column="Answr")
    with pytest.raises(ValueError, match=r'no sheet "Physics"; the workbook has: "Biology", "Chemistry"'):
        karenina_ld.import_questions(DATA / "questions.xlsx", sheet_name="Physics",
                                     question_column="Question", answer_column="Answer")
    with pytest.raises(FileNotFoundError):
        karenina_ld.import_questions(DATA / "no-such.csv", question_column="Q", answer_column="A")
    with pytest.raises(ValueError, match="format"):
        karenina_ld.import_questions(DATA / "questions.csv", format="ods")
    with pytest.raises(ValueError, match="separator"):
        karenina_ld.import_questions(DATA / "questions.csv", question_column="Question",
                                     answer_column="Answer", keywords_columns=[{"column": "Tags", "separator": ""}])
    cp = karenina_ld.Checkpoint.load(DATA / "questions.karenina.jsonld")
    with pytest.raises(ValueError, match="describe a new checkpoint"):
        karenina_ld.import_questions(DATA / "questions.csv", question_column="Question",
                                     answer_column="Answer", into=cp, name="x")
    scenario = karenina_ld.Checkpoint.load(REPO / "tests/data/corpus/loads/karenina-output__scenario_probe.jsonld")
    with pytest.raises(ValueError, match="a scenario benchmark"):
        karenina_ld.import_questions(DATA / "questions.csv", question_column="Question",
                                     answer_column="Answer", into=scenario)


def test_an_inspect_dataset_names_the_benchmark(tmp_path: Path) -> None:
    samples = tmp_path / "samples.jsonl"
    kld("export", "-f", "inspect", REPO / "examples" / "notebook.jsonld", "-o", samples)
    cp = karenina_ld.import_questions(samples)
    original = karenina_ld.Checkpoint.load(REPO / "examples" / "notebook.jsonld")
    assert cp.name == original.name
    assert [q["id"] for q in cp.questions] == [q["id"] for q in original.questions]


def test_a_dry_run_returns_what_the_cli_s_dry_run_prints() -> None:
    plan = karenina_ld.import_questions(DATA / "questions.csv", dry_run=True, **CSV_ARGS)
    cli = kld("import", DATA / "questions.csv", *CSV_FLAGS, "--dry-run", "--output-format", "json")
    assert plan == json.loads(cli.stdout)
    assert plan["duplicates"] == 1 and plan["taken"] == sum(r["status"] == "take" for r in plan["rows"])
    # into: the checkpoint's own questions are duplicates now, nothing built.
    with pytest.warns(UserWarning, match="already there"):
        cp = karenina_ld.import_questions(DATA / "questions.csv", **CSV_ARGS)
    again = karenina_ld.import_questions(DATA / "questions.csv", into=cp, dry_run=True, **CSV_ARGS)
    assert again["taken"] == 0 and again["duplicates"] == plan["taken"] + plan["duplicates"]
