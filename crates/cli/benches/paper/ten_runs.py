"""Ten paper-size runs of ten different benchmarks (issue 45's scale), by
../shared/tools/karenina_paper_run.py through Karenina's own pipeline.

    PYTHONHASHSEED=0 VENV/bin/python ten_runs.py OUT_DIR [RUNS] [N_QUESTIONS]

Writes OUT_DIR/b1 ... OUT_DIR/bRUNS (default 10), each holding ck-paper.jsonld
and res-paper.json (7 answering x 7 parsing models x N_QUESTIONS (default 144)
x 3 replicates): run k is karenina_paper_run.py's run with seed k over a
benchmark of its own, "Paper-size benchmark k", whose question texts start
"[panel k]" so that no two benchmarks share a question ID and each run binds
to its own checkpoint.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

TOOLS = Path(os.environ.get("KLD_SHARED_TOOLS", Path(__file__).resolve().parents[5] / "shared/tools"))
sys.path.insert(0, str(TOOLS))
import karenina_paper_run as P  # noqa: E402

BASE_KINDS = list(P.KINDS)
BASE_CREATE = P.Benchmark.create


def main() -> int:
    out = Path(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    nq = sys.argv[3] if len(sys.argv) > 3 else "144"
    for k in range(1, runs + 1):
        d = out / f"b{k}"
        if (d / "res-paper.json").is_file() and (d / "ck-paper.jsonld").is_file():
            continue
        P.KINDS = [(f"[panel {k}] {text}", raw, code) for text, raw, code in BASE_KINDS]

        def create(*args, k=k, **kw):
            kw["name"] = f"Paper-size benchmark {k} (7x7x{nq}x3)"
            return BASE_CREATE(*args, **kw)

        P.Benchmark.create = create
        sys.argv = ["karenina_paper_run.py", str(d), nq, str(k)]
        rc = P.main()
        P.Benchmark.create = BASE_CREATE
        if rc:
            return rc
    return 0


if __name__ == "__main__":
    sys.exit(main())
