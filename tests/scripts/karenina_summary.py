"""Karenina's own numbers for results exports: for each JSON export given,
``ResultsIOManager.load_result_set_from_json`` then ``get_summary()``, written as one
JSON object per line: {"file", "summary"} (the summary's keys as Karenina
returns them; combos as ``_combo_key_to_string`` writes them; replicate keys
as strings). Run with the Karenina venv's python:

    VENV/bin/python karenina_summary.py OUT.jsonl EXPORT.json ...
"""

import json
import math
import sys
from pathlib import Path

from karenina.benchmark.core.results_io import ResultsIOManager


def clean(v):
    """JSON-safe: sets as sorted lists, NaN as the string "NaN"."""
    if isinstance(v, dict):
        return {str(k): clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, set)):
        items = [clean(x) for x in v]
        return sorted(items, key=str) if isinstance(v, set) else items
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    return v


def main() -> None:
    out = Path(sys.argv[1])
    with out.open("w", encoding="utf-8") as f:
        for name in sys.argv[2:]:
            rs = ResultsIOManager.load_result_set_from_json(Path(name))
            f.write(json.dumps({"file": name, "summary": clean(rs.get_summary())}) + "\n")


if __name__ == "__main__":
    main()
