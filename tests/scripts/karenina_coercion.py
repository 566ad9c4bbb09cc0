"""Karenina's reading of values typed by hand: the oracle of
tests/cli/differential_coercion.rs (issue 48).

Run with a Python that has Karenina installed:

    VENV/bin/python tests/scripts/karenina_coercion.py OUT SEED N EXPORT.json ...

Writes N exports OUT/case-<k>.json, each one of the given exports (those
Karenina's loader reads) with one to three values of its rows replaced by
values drawn from a pool that pydantic's lax mode coerces (`"1"`, `true`,
`"yes"`, `" 2 "`, `"1_0"`, `3.0`, `"nan"`) or refuses (`"maybe"`, `2` for a
bool, `1.5` for an int, `{}`, `"fast"`), in the fields Karenina's numbers
read (replicate, verify_result, execution_time, the *_performed flags, ...),
in the rubric's score dictionaries (`regex_trait_scores`, `callable_trait_scores`,
`metric_trait_scores`, ..., typed by Karenina's models) and in token counts (Karenina's `usage_metadata` is `dict[str, Any]`: any
value is kept, `is_valid_number` decides what is summed; counts past 64 bits
and negative ones included). Half the cases are written as Karenina's v2.2
stream (one row per line), half as one document.

Prints one line per case: {"file", "changes": [[row, pointer, value], ...]}
plus either "summary" (`load_result_set_from_json(file).get_summary()`),
"error" and "index" (the loader refused row `index`), or "summary_error"
(the loader read it, `get_summary()` raised).
"""

from __future__ import annotations

import json
import math
import random
import re
import sys
from pathlib import Path
from typing import Any

from karenina.benchmark.core.results_io import ResultsIOManager

# (section path, field, optional): the scalar fields Karenina's numbers read.
FIELDS: list[tuple[tuple[str, ...], str, bool]] = [
    (("metadata",), "replicate", True),
    (("metadata",), "execution_time", False),
    (("metadata",), "scenario_turn", True),
    (("metadata",), "few_shot_example_count", False),
    (("metadata",), "few_shot_enabled", False),
    (("metadata",), "run_name", True),
    (("metadata", "answering"), "model_name", False),
    (("metadata", "parsing"), "config_id", True),
    (("template",), "verify_result", True),
    (("template",), "template_verification_performed", False),
    (("template",), "abstention_detected", True),
    (("template",), "embedding_similarity_score", True),
    (("rubric",), "rubric_evaluation_performed", False),
    (("deep_judgment",), "deep_judgment_performed", False),
    (("deep_judgment",), "deep_judgment_model_calls", False),
]

POOL: list[Any] = [
    True, False, 0, 1, 2, 3, -1, 0.0, 1.0, 2.0, 1.5, -0.0,
    "1", "2", "3", " 2 ", "\t1\n", "1.0", "2.00", "1_0", "+1", "-0", "01", "00", "0.0",
    "yes", "no", "YES", "On", "off", "t", "F", "y", "N", "true", "False", "0",
    "maybe", "one", "fast", "", " ", "1.5", "1e2", "0x1", "1.", ".5", "_1", "1__0",
    "nan", "NaN", "inf", "-Infinity", "1e400",
    [], {}, [1], {"a": 1}, 9.2e18, 9.3e18, "gpt-4.1-mini", "run-b",
]

# The score dictionaries whose values Karenina's models type.
SCORE_DICTS = {
    "llm_trait_scores", "llm_trait_labels", "regex_trait_scores", "callable_trait_scores",
    "metric_trait_scores", "agentic_trait_scores", "trait_provenance",
    "deep_judgment_rubric_scores", "standard_rubric_scores",
}

TOKEN_POOL: list[Any] = [
    0, 1, 17, 250, -5, -1000, 12.7, -3.5, 1e6, True, False,
    2**62, 2**63 - 1, 2**63 - 1, 4 * 10**18, "12", None, [], float("nan"),
]

STAGES = ["total", "answer_generation", "parsing", "rubric_evaluation"]


def section(row: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any] | None:
    v: Any = row
    for p in path:
        if not isinstance(v, dict):
            return None
        v = v.get(p)
    return v if isinstance(v, dict) else None


def mutate(rows: list[dict[str, Any]], rng: random.Random) -> list[list[Any]]:
    changes: list[list[Any]] = []
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(rows))
        row = rows[i]
        roll = rng.random()
        if roll < 0.2:
            # A value inside a score dictionary (issue 48's leftover).
            dicts = [
                (sec, name) for sec in ("rubric", "deep_judgment_rubric")
                for name, d in (row.get(sec) or {}).items()
                if name in SCORE_DICTS and isinstance(d, dict) and d
            ]
            if not dicts:
                continue
            sec, name = rng.choice(dicts)
            d = row[sec][name]
            key = rng.choice(sorted(d))
            # (No None: kld reads a null score as none, where Karenina's
            # loader refuses it, because Karenina's own sidecars write a NaN
            # score as null; docs/results.md.)
            v = rng.choice(POOL)
            if name == "metric_trait_scores" and isinstance(d[key], dict) and d[key]:
                inner = rng.choice(sorted(d[key]))
                d[key][inner] = v
                changes.append([i, f"/{sec}/{name}/{key}/{inner}", repr(v)])
            else:
                d[key] = v
                changes.append([i, f"/{sec}/{name}/{key}", repr(v)])
            continue
        if roll < 0.45:
            t = row.get("template")
            if not isinstance(t, dict):
                continue
            usage = t.get("usage_metadata")
            if not isinstance(usage, dict):
                usage = t["usage_metadata"] = {}
            stage = rng.choice(STAGES)
            u = usage.setdefault(stage, {})
            if not isinstance(u, dict):
                continue
            key = rng.choice(["input_tokens", "output_tokens"])
            v = rng.choice(TOKEN_POOL)
            u[key] = v
            changes.append([i, f"/template/usage_metadata/{stage}/{key}", repr(v)])
            continue
        path, field, optional = rng.choice(FIELDS)
        s = section(row, path)
        if s is None:
            continue
        pool = POOL + ([None] if optional else [])
        v = rng.choice(pool)
        s[field] = v
        changes.append([i, "/" + "/".join(path + (field,)), repr(v)])
    return changes


def write(path: Path, doc: dict[str, Any], stream: bool) -> None:
    if not stream:
        path.write_text(json.dumps(doc), encoding="utf-8")
        return
    head = {k: v for k, v in doc.items() if k != "results"}
    lines = [json.dumps(head)[:-1] + ',"results":[']
    rows = doc["results"]
    for n, r in enumerate(rows):
        lines.append(json.dumps(r) + ("," if n + 1 < len(rows) else ""))
    lines.append("]}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def plain(v: Any) -> Any:
    """numpy scalars as Python's; NaN and the infinities as strings (JSON has
    no number for them)."""
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    if isinstance(v, dict):
        return {str(k) if not isinstance(k, str) else k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        return plain(v.item())
    return v


def main() -> None:
    out, seed, n = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    bases = []
    for a in sys.argv[4:]:
        try:
            ResultsIOManager.load_result_set_from_json(Path(a))
        except Exception:  # noqa: BLE001
            continue
        doc = json.loads(Path(a).read_text(encoding="utf-8"))
        if isinstance(doc, dict) and doc.get("results"):
            bases.append(doc)
    rng = random.Random(seed)
    for k in range(n):
        doc = json.loads(json.dumps(rng.choice(bases)))
        changes = mutate(doc["results"], rng)
        f = out / f"case-{k}.json"
        write(f, doc, stream=k % 2 == 0)
        line: dict[str, Any] = {"file": str(f), "changes": changes}
        try:
            rs = ResultsIOManager.load_result_set_from_json(f)
        except Exception as e:  # noqa: BLE001
            m = re.search(r"at index (\d+)", str(e))
            line["error"] = f"{type(e).__name__}: {e}: {e.__cause__}"
            line["index"] = int(m.group(1)) if m else None
            print(json.dumps(line))
            continue
        try:
            line["summary"] = plain(rs.get_summary())
        except Exception as e:  # noqa: BLE001
            line["summary_error"] = f"{type(e).__name__}: {e}"
        print(json.dumps(line, allow_nan=False, default=str))


if __name__ == "__main__":
    main()
