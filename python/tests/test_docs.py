"""docs/python.md as a new user reads it (issue 40's walk): every ```python
block runs, in order, in one namespace, from the repository's root, as
notebook cells would (the first named folders a clone does not have); and
every call the API table names exists."""

from __future__ import annotations

import re

import pytest

import karenina_ld
from conftest import REPO

DOC = REPO / "docs" / "python.md"


def python_blocks() -> list[str]:
    blocks = re.findall(r"^```python\n(.*?)^```", DOC.read_text(), re.S | re.M)
    assert blocks, f"no python block in {DOC}"
    return blocks


def test_every_python_block_of_docs_python_md_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    cells: dict[str, object] = {"__name__": "docs_python_md"}
    for i, block in enumerate(python_blocks(), 1):
        exec(compile(block, f"{DOC}, python block {i}", "exec"), cells)  # noqa: S102
    # The first block's store holds the examples, bound.
    store = cells["store"]
    assert isinstance(store, karenina_ld.Store)
    runs = [g for g in store.graphs if g["kind"] == "results"]
    assert runs and all(g["benchmark"] for g in runs)
    assert len(cells["rates"]) > 0


# How the API table names its subjects.
SUBJECTS = {
    "cp": karenina_ld.Checkpoint,
    "Checkpoint": karenina_ld.Checkpoint,
    "store": karenina_ld.Store,
    "Store": karenina_ld.Store,
    "Results": karenina_ld.Results,
    "Preset": karenina_ld.Preset,
    "Comparison": karenina_ld.Comparison,
    "kld": karenina_ld,
}


def test_every_call_the_api_table_names_exists() -> None:
    text = DOC.read_text()
    table = text[text.index("## The API") : text.index("## Errors")]
    rows = [line.split("|")[1] for line in table.splitlines() if line.startswith("| `")]
    assert len(rows) > 10
    named = []
    for cell in rows:
        lead = re.match(r"\s*`(\w+)", cell).group(1)
        for subject, name in re.findall(r"`(\w*\.)?(\w+)[(`]", cell):
            # `.summary()` after `Results.load(path)`: the cell's subject.
            subject = (lead if subject == "." else subject).rstrip(".")
            owner = SUBJECTS[subject] if subject else karenina_ld
            named.append((subject, name))
            assert hasattr(owner, name), f"{subject}.{name} in the API table of {DOC}"
    assert ("store", "results_frame") in named and ("Results", "aggregate_pass_rate") in named
