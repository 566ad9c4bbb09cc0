"""Karenina's own numbers for results exports: the oracle of
tests/cli/differential_summary.rs and of python/tests/test_summary.py.

Run with a Python that has Karenina installed:

    VENV/bin/python tests/scripts/karenina_summary.py EXPORT.json ... > out.jsonl

For each JSON export, one line: {"file", "summary", "pass_rate"}, where
`summary` is `load_result_set_from_json(file).get_summary()` and `pass_rate`
maps each of question_id, answering_model, parsing_model, replicate to
`get_template_results().aggregate_pass_rate(by=...)`. Keys are written as
json.dumps writes them (an int key becomes its decimal string); a NaN stays
a bare NaN token, which kld's reader takes. A file Karenina cannot load gives
{"file", "error"}.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

from karenina.benchmark.core.results_io import ResultsIOManager

BY = ["question_id", "answering_model", "parsing_model", "replicate"]


def plain(v: Any) -> Any:
    """numpy scalars and int keys as json.dumps would write them."""
    if isinstance(v, dict):
        return {str(k) if not isinstance(k, str) else k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        return v.item()
    return v


def key(k: Any) -> str:
    if isinstance(k, float) and k.is_integer():
        return str(int(k))
    if hasattr(k, "item"):
        k = k.item()
    return str(k)


def main() -> None:
    for arg in sys.argv[1:]:
        try:
            rs = ResultsIOManager.load_result_set_from_json(Path(arg))
        except Exception as e:  # noqa: BLE001
            print(json.dumps({"file": arg, "error": f"{type(e).__name__}: {e}"}))
            continue
        summary = plain(rs.get_summary())
        tr = rs.get_template_results()
        rates = {}
        for by in BY:
            got = tr.aggregate_pass_rate(by=by)
            rates[by] = {key(k): float(v) for k, v in got.items() if not (isinstance(v, float) and math.isnan(v))}
        print(json.dumps({"file": arg, "summary": summary, "pass_rate": rates}))


if __name__ == "__main__":
    main()
