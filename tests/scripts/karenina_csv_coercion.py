"""Karenina's reading of a CSV export's hand-typed cells: the oracle of
crates/cli/tests/cli/differential/coercion.rs's CSV half (issue 48).

Run with a Python that has Karenina installed:

    VENV/bin/python tests/scripts/karenina_csv_coercion.py OUT SEED N EXPORT.csv ...

Writes N CSVs OUT/case-<k>.csv, each one of the given exports (Karenina's
`export_verification_results_csv`) with one to three cells of `replicate`,
`execution_time` or `verify_result` replaced by a value from a pool, and
reads every row with Karenina's own `ResultsIOManager._process_csv_row` (its
`load_from_csv` keys rows by question ID, so replicates would overwrite
each other; row by row nothing is lost).

Prints one line per case: {"file", "changes": [[row, column, cell], ...]}
plus either "refused": row (Karenina's reader raised on that row, or dropped
a cell it could not read without a word: `int()` or `float()` failed, or a
verdict was not JSON) or "rows": [{"replicate", "execution_time",
"verify_result"}, ...] as Karenina read them.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
import sys
from pathlib import Path
from typing import Any

from karenina.benchmark.core.results_io import ResultsIOManager

POOL: dict[str, list[str]] = {
    "replicate": ["1", "2", " 2 ", "1_0", "+1", "01", "0", "-1", "1.0", "one", "2.5", "1e2", ""],
    "execution_time": ["1.5", " 2 ", "1_000.5", "nan", "inf", "-Infinity", "1e3", "1e400", "7",
                       "fast", "0x1", "1.5.2", ""],
    "verify_result": ["true", "false", "1", "0", "1.0", "null", "N/A", "", '"yes"', '"off"',
                      "2", '"maybe"', "yes", "maybe", "True", "NaN", "[]", "{}"],
}


def silently_dropped(column: str, cell: str) -> bool:
    """A non-empty cell Karenina's reader reads as nothing, without a word."""
    if not cell:
        return False
    try:
        if column == "replicate":
            int(cell)
        elif column == "execution_time":
            float(cell)
        elif column == "verify_result" and cell != "N/A":
            json.loads(cell)
    except ValueError:
        return True
    return False


def plain(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    return v


def main() -> None:
    out, seed, n = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    bases = []
    for a in sys.argv[4:]:
        text = Path(a).read_text(encoding="utf-8")
        rows = list(csv.DictReader(io.StringIO(text)))
        if rows and "replicate" in rows[0]:
            bases.append((list(rows[0].keys()), rows))
    rng = random.Random(seed)
    for k in range(n):
        header, rows = rng.choice(bases)
        rows = [dict(r) for r in rows]
        changes = []
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(rows))
            column = rng.choice(list(POOL))
            cell = rng.choice(POOL[column])
            rows[i][column] = cell
            changes.append([i, column, cell])
        f = out / f"case-{k}.csv"
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=header)
        w.writeheader()
        w.writerows(rows)
        f.write_text(buf.getvalue(), encoding="utf-8")
        line: dict[str, Any] = {"file": str(f), "changes": changes}
        read = []
        for i, row in enumerate(csv.DictReader(io.StringIO(buf.getvalue()))):
            dropped = any(silently_dropped(c, row.get(c) or "") for c in POOL)
            # Trait cells are not compared here, and Karenina's reader
            # raises on some it wrote itself (`int(float("nan"))` for a NaN
            # score in question_specific_rubrics): left out of its input.
            typed = {c: ("" if c == "question_specific_rubrics" or c.startswith("rubric_")
                         and c != "rubric_evaluation_performed" else v) for c, v in row.items()}
            try:
                _, r = ResultsIOManager._process_csv_row(typed)
            except Exception:  # noqa: BLE001
                dropped = True
            if dropped:
                line["refused"] = i
                break
            t = r.template
            read.append({
                "replicate": r.metadata.replicate,
                "execution_time": plain(r.metadata.execution_time),
                "verify_result": t.verify_result if t else None,
            })
        if "refused" not in line:
            line["rows"] = read
        print(json.dumps(line))


if __name__ == "__main__":
    main()
