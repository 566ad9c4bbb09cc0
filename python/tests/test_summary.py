"""Karenina itself as the oracle of Results.summary(): for every corpus JSON
export, Karenina's `load_result_set_from_json(p).get_summary()` and
`aggregate_pass_rate(by=…)` (tests/scripts/karenina_summary.py, run in the
Karenina venv: KLD_KARENINA_VENV, else target/karenina-venv) equal
`Results.load(p).summary()` and `.aggregate_pass_rate(by=…)`, every key in
order, every number within 1e-9."""

from __future__ import annotations

import json
import math
import subprocess

import karenina_ld
import pytest
from conftest import REPO, results_files
from test_karenina import karenina_python

BY = ["question_id", "answering_model", "parsing_model", "replicate"]


def same(theirs: object, ours: object, path: str, out: list[str]) -> None:
    if isinstance(theirs, dict) and isinstance(ours, dict):
        if list(theirs) != list(ours):
            out.append(f"{path}: keys {list(theirs)} != {list(ours)}")
        for k in theirs:
            if k in ours:
                same(theirs[k], ours[k], f"{path}.{k}", out)
    elif isinstance(theirs, (int, float)) and isinstance(ours, (int, float)) and not isinstance(theirs, bool):
        if not math.isclose(theirs, ours, rel_tol=1e-9, abs_tol=1e-9):
            out.append(f"{path}: {theirs!r} != {ours!r}")
    elif theirs != ours:
        out.append(f"{path}: {theirs!r} != {ours!r}")


def test_summary_is_karenina_s_get_summary() -> None:
    files = [str(p) for p in results_files() if p.suffix == ".json"]
    r = subprocess.run(
        [karenina_python(), str(REPO / "tests" / "scripts" / "karenina_summary.py"), *files],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    compared = 0
    for line in r.stdout.splitlines():
        o = json.loads(line)
        if "error" in o:
            continue
        ours = karenina_ld.Results.load(o["file"])
        out: list[str] = []
        same(o["summary"], ours.summary(), "summary", out)
        for by in BY:
            same(o["pass_rate"][by], ours.aggregate_pass_rate(by=by), f"aggregate_pass_rate({by})", out)
        assert not out, f"{o['file']}: " + "; ".join(out[:10])
        compared += 1
    assert compared >= 5


def test_a_csv_says_what_it_cannot_tell() -> None:
    csv = next(p for p in results_files() if p.suffix == ".csv" and "with_rubrics.full" in p.name)
    r = karenina_ld.Results.load(csv)
    assert "rubric_traits" in r.info()["cannot_tell"]
    assert "rubric_traits" not in r.summary()
    with pytest.raises(ValueError, match="cannot tell"):
        r.aggregate_pass_rate(by="question_id")
