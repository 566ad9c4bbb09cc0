"""Writes tests/data/runs/karenina.db, Karenina's results database, with Karenina's own code.

Run from the repository root with a Python that has Karenina installed
(`bash ../shared/tools/karenina-venv.sh GIT_DIR VENV`, Karenina 9851a770):

    VENV/bin/python tests/data/runs/make_db.py

Two benchmarks of the corpus are saved with `karenina.storage.save_benchmark`
(`checkpoint_path` as a user gives it, relative to the repository root), and
three corpus exports imported with `import_verification_results`: two runs of
one benchmark, one of the other.
"""

from __future__ import annotations

import json
from pathlib import Path

from karenina.benchmark import Benchmark
from karenina.storage import DBConfig, import_verification_results, save_benchmark

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO / "tests" / "data" / "corpus"
DB = REPO / "tests" / "data" / "runs" / "karenina.db"

BENCHMARKS = {
    "docs__notebooks__test_checkpoint.jsonld": [
        "res-docs__notebooks__test_checkpoint.full.json",
        "res-docs__notebooks__test_checkpoint.partial.json",
    ],
    "tests__fixtures__checkpoints__with_rubrics.jsonld": [
        "res-tests__fixtures__checkpoints__with_rubrics.full.json",
    ],
}


def main() -> None:
    if DB.exists():
        DB.unlink()
    config = DBConfig(storage_url=f"sqlite:///{DB}", auto_create=True)
    for checkpoint, exports in BENCHMARKS.items():
        rel = Path("tests/data/corpus/loads") / checkpoint
        bench = Benchmark.load(REPO / rel)
        save_benchmark(bench, config, checkpoint_path=rel)
        for export in exports:
            data = json.loads((CORPUS / "results" / export).read_text())
            run_id, imported, skipped = import_verification_results(
                data, config, bench.name, run_name=export.removesuffix(".json"), source_filename=export
            )
            print(export, run_id, imported, skipped)


if __name__ == "__main__":
    main()
