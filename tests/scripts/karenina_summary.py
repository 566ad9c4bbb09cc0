"""Karenina's own numbers for results exports: the oracle of
crates/cli/tests/cli/differential/summary.rs and of python/tests/test_summary.py.

Run with a Python that has Karenina installed:

    VENV/bin/python tests/scripts/karenina_summary.py EXPORT.json ... > out.jsonl
    VENV/bin/python tests/scripts/karenina_summary.py --variants OUT EXPORT.json ...

--variants writes, from exports Karenina wrote, files that reach what the
generated runs do not (then summarise those as well):
- `<stem>.agents.json`: every agent row's `agent_metrics` gains the
  `tool_call_counts` Karenina's `extract_agent_metrics_from_messages`
  writes (its `tool_calls` spread over its `tools_used`), so
  `tool_usage_stats` is not null; every deep-judgment row gains a
  `deep_judgment.usage_metadata` (one with a NaN, one without output
  tokens), a field Karenina's schema drops on load;
- `merged-<n>.json`: the rows of two exports with different run names in
  one file, so the summary covers two runs (the line then has `by_run`:
  get_summary() of each run's rows, in first-seen order).

    VENV/bin/python tests/scripts/karenina_summary.py --database DB LOADS EXPORT.json ...

writes Karenina's results database DB with Karenina's own `save_benchmark`
and `import_verification_results` (as tests/data/runs/make_db.py does): each
export's checkpoint (named in the INDEX.json beside it, found in LOADS) and
the export as a run named after its file stem. Prints nothing.

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
from karenina.schemas.results import VerificationResultSet

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


def rows_of(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return data, data["results"]


def write(path: Path, header: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    doc = {"format_version": header.get("format_version", "2.2"), "metadata": header.get("metadata", {}), "results": rows}
    path.write_text(json.dumps(doc), encoding="utf-8")


def variants(out: Path, exports: list[Path]) -> list[Path]:
    made: list[Path] = []
    for p in exports:
        header, rows = rows_of(p)
        changed = False
        dj = 0
        for r in rows:
            t = r.get("template") or {}
            m = t.get("agent_metrics") or {}
            used = m.get("tools_used") or []
            if used:
                calls = int(m.get("tool_calls") or len(used))
                counts = {name: 1 for name in used}
                counts[used[0]] += max(0, calls - len(used))
                m["tool_call_counts"] = counts
                changed = True
            j = r.get("deep_judgment")
            if j and j.get("deep_judgment_performed"):
                usage = {"input_tokens": 100 + 7 * dj, "output_tokens": 20 + dj}
                if dj == 0:
                    usage["input_tokens"] = float("nan")
                if dj == 1:
                    del usage["output_tokens"]
                j["usage_metadata"] = {"total": usage}
                dj += 1
                changed = True
        if changed:
            q = out / f"{p.parent.name}__{p.name.removesuffix('.json')}.agents.json"
            write(q, header, rows)
            made.append(q)
    # Pairs of exports with different run names, merged.
    named = []
    for p in exports:
        header, rows = rows_of(p)
        names = {r["metadata"].get("run_name") for r in rows}
        if rows and len(names) == 1:
            named.append((p, header, rows, names.pop()))
    pairs = [(a, b) for i, a in enumerate(named) for b in named[i + 1 :] if a[3] != b[3]]
    for n, (a, b) in enumerate(pairs[:4]):
        q = out / f"merged-{n}.json"
        write(q, a[1], a[2] + b[2])
        made.append(q)
    return made


def numbers(rs: Any) -> tuple[Any, dict[str, dict[str, float]]]:
    summary = plain(rs.get_summary())
    tr = rs.get_template_results()
    rates = {}
    for by in BY:
        got = tr.aggregate_pass_rate(by=by)
        rates[by] = {key(k): float(v) for k, v in got.items() if not (isinstance(v, float) and math.isnan(v))}
    return summary, rates


def database(db: Path, loads: Path, exports: list[Path]) -> None:
    from karenina.benchmark import Benchmark
    from karenina.storage import DBConfig, import_verification_results, save_benchmark

    config = DBConfig(storage_url=f"sqlite:///{db}", auto_create=True)
    saved: dict[str, str] = {}
    for p in exports:
        index = json.loads((p.parent / "INDEX.json").read_text(encoding="utf-8"))
        stem = p.name.removesuffix(".json")
        run = next(r for r in index["runs"] if r["stem"] == stem)
        checkpoint = run.get("checkpoint")
        data = json.loads(p.read_text(encoding="utf-8"))
        if not checkpoint or not data.get("results"):
            continue  # Karenina imports no empty run
        if checkpoint not in saved:
            bench = Benchmark.load(loads / checkpoint)
            save_benchmark(bench, config, checkpoint_path=loads / checkpoint)
            saved[checkpoint] = bench.name
        import_verification_results(data, config, saved[checkpoint], run_name=stem, source_filename=p.name)


def main() -> None:
    args = sys.argv[1:]
    if args and args[0] == "--database":
        database(Path(args[1]), Path(args[2]), [Path(a) for a in args[3:]])
        return
    if args and args[0] == "--variants":
        out = Path(args[1])
        out.mkdir(parents=True, exist_ok=True)
        exports = [Path(a) for a in args[2:]]
        args = [str(p) for p in exports + variants(out, exports)]
    for arg in args:
        try:
            rs = ResultsIOManager.load_result_set_from_json(Path(arg))
        except Exception as e:  # noqa: BLE001
            print(json.dumps({"file": arg, "error": f"{type(e).__name__}: {e}"}))
            continue
        summary, rates = numbers(rs)
        line: dict[str, Any] = {"file": arg, "summary": summary, "pass_rate": rates}
        names: list[Any] = []
        for r in rs.results:
            if r.metadata.run_name not in names:
                names.append(r.metadata.run_name)
        if len(names) > 1:
            line["by_run"] = []
            for name in names:
                part = VerificationResultSet(results=[r for r in rs.results if r.metadata.run_name == name])
                s, p = numbers(part)
                line["by_run"].append({"run_name": name, "summary": s, "pass_rate": p})
        print(json.dumps(line))


if __name__ == "__main__":
    main()
