"""Artefacts Karenina writes besides its exports, made with Karenina's own code from
a checkpoint and one of its Karenina-written exports, with what Karenina's own
loaders say of them. Run with the Karenina venv's python:

    VENV/bin/python karenina_taskeval.py CHECKPOINT.jsonld EXPORT.json OUT_DIR [--keep N]
        [--benchmark-path PATH]

Writes into OUT_DIR:

    taskeval.json         TaskEvalResult.export_json(): the export's results (N of
                          them, every k-th, when --keep) dealt round-robin to the global
                          evaluation and the steps "plan" and "act"
    legacy/results.json.state, legacy/results.json.tmp
                          ProgressiveSaveManager (state format 1.0), interrupted
                          after half of the tasks
    adele.jsonld          the checkpoint with an ADeLe classification per question
                          (QuestionClassificationResult.to_checkpoint_metadata, set
                          with Benchmark.update_question_metadata, saved by save())
    expect.json           {"taskeval": {"global": stats, "steps": {step: stats}},
                           "legacy": {inspect_state_file's counts, "results": n},
                           "adele": [{dimension, level, answering, parsing, n, passed}]}
                          stats = StepEval.get_summary_stats(); adele rows count,
                          per ADeLe level of the reloaded checkpoint (Karenina's
                          from_checkpoint_metadata), Karenina's template pass rate:
                          n = results with template verification performed,
                          passed = those verified true.
"""

import argparse
import json
import random
import sys
from collections import OrderedDict, defaultdict
from pathlib import Path

from karenina import Benchmark
from karenina.benchmark.core.results_io import ResultsIOManager
from karenina.benchmark.task_eval.models import StepEval, TaskEvalResult
from karenina.integrations.adele import ADELE_TRAIT_NAMES
from karenina.integrations.adele.schemas import QuestionClassificationResult
from karenina.schemas import VerificationConfig
from karenina.schemas.config import ModelConfig
from karenina.utils.progressive_save import (
    ProgressiveSaveManager,
    TaskIdentifier,
    inspect_state_file,
)

LABELS = ["none", "very_low", "low", "intermediate", "high", "very_high"]


def by_question(results):
    out = OrderedDict()
    for r in results:
        out.setdefault(r.metadata.question_id, []).append(r)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("checkpoint")
    ap.add_argument("export")
    ap.add_argument("out")
    ap.add_argument("--keep", type=int, default=0)
    ap.add_argument("--benchmark-path", help="the state's benchmark_path (default: CHECKPOINT resolved)")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    results = ResultsIOManager.load_result_set_from_json(Path(a.export)).results
    if a.keep:
        # N results spread over the export (every k-th), for small fixtures.
        results = results[:: max(1, len(results) // a.keep)][: a.keep]
    expect = {}

    # TaskEval: round-robin over global, plan, act.
    groups = {"global": [], "plan": [], "act": []}
    names = list(groups)
    for i, r in enumerate(results):
        groups[names[i % 3]].append(r)
    te = TaskEvalResult(
        task_id="probe-task",
        metadata={"agent": "probe", "trial": 1},
        timestamp="2026-11-22T08:30:00",
        global_eval=StepEval(verification_results=by_question(groups["global"])),
        per_step={s: StepEval(verification_results=by_question(groups[s])) for s in ("plan", "act")},
    )
    (out / "taskeval.json").write_text(te.export_json(), encoding="utf-8")
    expect["taskeval"] = {
        "global": te.global_eval.get_summary_stats(),
        "steps": {s: e.get_summary_stats() for s, e in te.per_step.items()},
    }

    # A legacy (format 1.0) progressive save, interrupted half way.
    answering = {r.metadata.answering.canonical_key: r.metadata.answering for r in results}
    parsing = {r.metadata.parsing.canonical_key: r.metadata.parsing for r in results}

    def config(ids):
        return [
            ModelConfig(id=f"m{i}", model_provider="openai", model_name=m.model_name, interface="langchain")
            for i, m in enumerate(ids.values())
        ]

    cfg = VerificationConfig(answering_models=config(answering), parsing_models=config(parsing))
    legacy = out / "legacy"
    legacy.mkdir(exist_ok=True)
    bpath = a.benchmark_path or str(Path(a.checkpoint).resolve())
    manager = ProgressiveSaveManager(legacy / "results.json", cfg, bpath)
    manager.initialize([TaskIdentifier.from_result(r).to_key() for r in results])
    done = results[: max(1, len(results) // 2)]
    for r in done:
        manager.add_result(r)
    status = inspect_state_file(legacy / "results.json.state")
    expect["legacy"] = {
        "total_tasks": status.total_tasks,
        "completed_count": status.completed_count,
        "results": len(ResultsIOManager.load_result_set_from_json(legacy / "results.json.tmp").results),
        "added": len(done),
    }

    # ADeLe levels per question (a seeded draw; one dimension left as an error, -1).
    bench = Benchmark.load(Path(a.checkpoint))
    rng = random.Random(7)
    for qid in bench.get_question_ids():
        scores = {name: rng.randint(0, 5) for name in ADELE_TRAIT_NAMES}
        scores[ADELE_TRAIT_NAMES[-1]] = -1
        c = QuestionClassificationResult(
            question_id=qid,
            question_text="",
            scores=scores,
            labels={k: (LABELS[v] if v >= 0 else "error") for k, v in scores.items()},
            model="probe-classifier",
            classified_at="2026-11-22T08:00:00",
        )
        custom = dict(bench.get_question_metadata(qid).get("custom_metadata") or {})
        custom.update(c.to_checkpoint_metadata())
        bench.update_question_metadata(qid, custom_metadata=custom)
    bench.save(out / "adele.jsonld")
    again = Benchmark.load(out / "adele.jsonld")
    levels = {}
    for qid in again.get_question_ids():
        meta = again.get_question_metadata(qid).get("custom_metadata") or {}
        c = QuestionClassificationResult.from_checkpoint_metadata(meta, question_id=qid)
        if c is not None:
            levels[qid] = c.scores
    rows = defaultdict(lambda: [0, 0])
    for r in ResultsIOManager.load_result_set_from_json(Path(a.export)).results:
        t = r.template
        performed = bool(t and t.template_verification_performed)
        for dim, level in levels.get(r.metadata.question_id, {}).items():
            if not isinstance(level, int) or not 0 <= level <= 5:
                continue
            key = (dim, level, r.metadata.answering.display_string, r.metadata.parsing.display_string)
            if performed:
                rows[key][0] += 1
                rows[key][1] += bool(t.verify_result)
            else:
                rows[key][0] += 0
    expect["adele"] = [
        {"dimension": d, "level": lv, "answering": an, "parsing": pa, "n": n, "passed": p}
        for (d, lv, an, pa), (n, p) in sorted(rows.items())
    ]
    (out / "expect.json").write_text(json.dumps(expect, indent=1), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
