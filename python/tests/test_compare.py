"""`karenina_ld.compare(path)` (issue 46): kld compare's tables as pandas
DataFrames — the pairwise comparisons with intervals and adjusted p-values,
the template pass rates with intervals, judge agreement and question
difficulty — equal, cell for cell, to `kld compare --format csv --table …`
of the same run (an export, and a run of Karenina's results database); and
every rate named from the one table, as the command line and
docs/numbers.md name it."""

from __future__ import annotations

import csv
import io
import math
import re

import pandas as pd
import pytest

import karenina_ld
from conftest import REPO, kld, kld_json

BOARD_RUN = REPO / "tests" / "data" / "board" / "board-run-1.json"
NOTEBOOK = REPO / "examples" / "runs" / "notebook.verification.json"
DB = REPO / "tests" / "data" / "runs" / "karenina.db"
TABLES = ["pairs", "rates", "agreement", "kappa", "questions"]


def db_run() -> str:
    out = kld("compare", DB, check=False)
    assert out.returncode == 1
    ids = re.findall(r"([0-9a-f-]{36}) \(", out.stderr.decode())
    assert ids, out.stderr.decode()
    return f"{DB}#run={ids[0]}"


def cli_table(path: str, table: str) -> tuple[list[str], list[list[str]]]:
    rows = list(csv.reader(io.StringIO(kld("compare", path, "--format", "csv", "--table", table).stdout.decode())))
    return rows[0], rows[1:]


def same_cell(cli: str, ours: object, where: str) -> None:
    if cli == "":
        assert ours is None or (isinstance(ours, float) and math.isnan(ours)), f"{where}: {ours!r} for an empty cell"
        return
    if isinstance(ours, bool):
        assert cli == str(ours).lower(), where
    elif isinstance(ours, (int, float)):
        assert float(cli) == float(ours), f"{where}: {cli} != {ours!r}"
    else:
        assert cli == ours, f"{where}: {cli!r} != {ours!r}"


@pytest.mark.parametrize("which", ["board", "notebook", "database"])
def test_the_frames_are_kld_compare_s_tables(which: str) -> None:
    path = {"board": str(BOARD_RUN), "notebook": str(NOTEBOOK), "database": None}[which] or db_run()
    c = karenina_ld.compare(path)
    for table in TABLES:
        df = getattr(c, table)()
        assert isinstance(df, pd.DataFrame)
        head, rows = cli_table(path, table)
        assert list(df.columns) == head, table
        assert len(df) == len(rows), table
        values = {col: df[col].tolist() for col in head}
        for i, row in enumerate(rows):
            for col, cell in zip(head, row):
                same_cell(cell, values[col][i], f"{which} {table}[{i}].{col}")
    # The JSON is the command line's too.
    assert c.to_json() == kld_json("compare", path, "--format", "json")


def test_the_pairs_have_intervals_and_adjusted_p_values() -> None:
    pairs = karenina_ld.compare(BOARD_RUN).pairs()
    for col in ["a", "b", "judge", "diff", "se", "low", "high", "p", "p_holm", "p_bh", "rate_name"]:
        assert col in pairs.columns, col
    both = pairs[pairs["judge"].isna()]
    assert len(both) == 1, "two answering models: one pair, judges averaged"
    row = both.iloc[0]
    assert row["low"] <= row["diff"] <= row["high"]
    assert row["p"] <= row["p_holm"] <= 1
    assert len(pairs) == 1 + 2, "then one row per judge"


def docs_rate_names() -> list[str]:
    docs = (REPO / "docs" / "numbers.md").read_text(encoding="utf-8")
    part = docs[docs.index("### The rate names"):]
    part = part[: part.index("\n### ")]
    return re.findall(r"^\| \*\*(.+?)\*\* \|", part, flags=re.M)


def test_every_rate_has_the_name_the_command_line_and_the_docs_give_it() -> None:
    table = karenina_ld.rate_names()
    names = [r["name"] for r in table]
    assert names == docs_rate_names()
    by_id = {r["id"]: r for r in table}
    # kld info's and kld compare's rate_names are entries of the same table.
    info = kld_json("info", NOTEBOOK, "--format", "json")
    compare = kld_json("compare", NOTEBOOK, "--format", "json")
    for face in (info["rate_names"], compare["rate_names"]):
        for key, entry in face.items():
            assert entry == by_id[entry["id"]], key
    assert karenina_ld.Results.load(NOTEBOOK).info()["rate_names"] == info["rate_names"]
    # Each DataFrame says which rate its rates are.
    c = karenina_ld.compare(NOTEBOOK)
    assert set(c.rates()["rate_name"]) == {by_id["template_pass_rate"]["name"]}
    assert c.rates().attrs["rate_names"]["rate"] == by_id["template_pass_rate"]["name"]
    assert set(c.questions()["rate_name"]) == {by_id["template_pass_rate"]["name"]}
    assert c.pairs().attrs["rate_names"]["diff"] == by_id["question_mean_template_pass_rate"]["name"]
    frame = karenina_ld.Results.load(NOTEBOOK).to_frame()
    assert set(frame["rate_name"]) == {by_id["verdict_pass_rate"]["name"]}
    assert frame.attrs["rate_names"] == {"pass_rate": by_id["verdict_pass_rate"]["name"]}
    # The text the command line prints names them too.
    text = kld("compare", NOTEBOOK).stdout.decode()
    assert c.to_text() == text
    assert by_id["template_pass_rate"]["name"] in text
    assert by_id["question_mean_template_pass_rate"]["name"] in text


def test_a_bad_request_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no parsing model is named"):
        karenina_ld.compare(NOTEBOOK, reference_judge="nobody")
    with pytest.raises(ValueError, match="runs are never pooled"):
        karenina_ld.compare(DB)
