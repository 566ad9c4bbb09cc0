"""Writes tests/data/board/: a checkpoint and two verification runs of it, through
Karenina's own pipeline stages and exporter (no LLM calls), for the leaderboard tests.

Two answering models (one an agent with two MCP servers) x two parsing models (judges)
x 3 replicates; run 1 over every question, run 2 a later re-run of the first four.
Template-only, abstention enabled, so content failures, abstentions, retry-exhausted
timeouts, auto-fails and system (parsing) failures all occur.

    PYTHONHASHSEED=0 VENV/bin/python karenina_board_runs.py SHARED_TOOLS_DIR OUT_DIR

SHARED_TOOLS_DIR holds karenina_runs.py (the simulator this reuses); VENV has
Karenina 9851a770 installed.
"""
from __future__ import annotations

import datetime as dt
import sys
from collections import OrderedDict
from pathlib import Path

sys.path.insert(0, sys.argv[1])
import karenina_runs as O  # noqa: E402  (patches Karenina's LLM detectors on import)
import karenina_paper_run as P  # noqa: E402  (its question kinds)

from karenina import Benchmark  # noqa: E402
from karenina.benchmark.verification import export_verification_results_json_stream  # noqa: E402
from karenina.schemas.config import ModelConfig  # noqa: E402
from karenina.schemas.verification import VerificationConfig  # noqa: E402


def make_checkpoint(path: Path, n: int) -> None:
    b = Benchmark.create(name="Board benchmark", description="kld leaderboard test", version="1.0.0")
    for i in range(n):
        text, raw, code = P.KINDS[i % 3]
        kw = dict(i=i, n=40 + i % 9, f=round(1.0 + (i % 17) / 10, 1))
        b.add_question(question=text.format(**kw), raw_answer=raw.format(**kw), answer_template=code.format(**kw),
                       finished=True)
    b.save(path)


def run(ck: "O.Ck", out: Path, index: int, seed: int, name: str, questions: list[str]) -> None:
    r = O.Run("full", ck, index, seed)
    O.configure(r)
    ans = [ModelConfig(**{k: v for k, v in O.ANSWERING_POOL[i].items() if k != "skill"}) for i in (0, 2)]
    parse = [ModelConfig(**m) for m in O.PARSING_POOL]
    r.config = VerificationConfig(answering_models=ans, parsing_models=parse, replicate_count=3,
                                  evaluation_mode="template_only", abstention_enabled=True,
                                  sufficiency_enabled=False, embedding_check_enabled=False,
                                  deep_judgment_mode="disabled", deep_judgment_rubric_mode="disabled",
                                  rubric_evaluation_strategy="batch")
    r.mode, r.strategy, r.few_shot = "template_only", "batch", False
    r.run_name = name
    r.is_complete = True
    r.with_global_rubric = False
    r.raw_answer_in_results = False
    r.questions = OrderedDict((q, ck.questions[q]) for q in questions)
    sim = O.Sim(r, 512, {"left": 0}, {"left": 0})
    results = O.simulate_questions(r, sim)
    r.sim_clock = sim.clock
    job = O.make_job(r, results)
    stamp = dt.datetime.fromtimestamp(job.end_time + 5, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    path = out / f"{name}.json"
    with O.pinned_export_clock(stamp):
        export_verification_results_json_stream(job, iter(results), None, is_complete=True,
                                                scenario_results=None, out_path=path)
    print(f"{path}: {len(results)} results", file=sys.stderr)


def main() -> int:
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    ck_path = out / "board.jsonld"
    make_checkpoint(ck_path, 9)
    ck = O.Ck(ck_path)
    qs = list(ck.eligible)
    run(ck, out, 0, 11, "board-run-1", qs)
    run(ck, out, 3, 12, "board-run-2", qs[:4])
    return 0


if __name__ == "__main__":
    sys.exit(main())
