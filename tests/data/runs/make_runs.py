"""Writes the run-folder fixtures of tests/data/runs/root/ with Karenina's own code.

Run from the repository root with a Python that has Karenina installed
(`bash ../shared/tools/karenina-venv.sh GIT_DIR VENV`, Karenina 9851a770):

    VENV/bin/python tests/data/runs/make_runs.py

Each run folder is made by `karenina.benchmark.run_artifacts.create_run_directory`
(RunDirectory + RunManifest, masked configuration) around a results export of
`tests/data/corpus/results/`, and its status set with `RunDirectory.update_status`,
as `karenina verify --run-root R --run-label L` does. The interrupted-early run's
sidecar is written by Karenina's `ProgressiveFileSink` (`sinks.py`), fed the
export's rows as `VerificationResult`s and finalized incomplete. `benchmark_path`
is relative, as a user types it: to the run root (`../../corpus/...`) or
to the repository root (`tests/data/corpus/...`), where the tests run.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

from karenina.benchmark.run_artifacts import create_run_directory
from karenina.benchmark.verification.sinks import ProgressiveFileSink
from karenina.schemas import ModelConfig
from karenina.schemas.verification import VerificationConfig
from karenina.schemas.verification.result import VerificationResult

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO / "tests" / "data" / "corpus"
ROOT = REPO / "tests" / "data" / "runs" / "root"
FROM_ROOT = "../../corpus/loads/"
FROM_REPO = "tests/data/corpus/loads/"


def config_of(export: Path, replicates: int) -> VerificationConfig:
    """A VerificationConfig with the export's models (an endpoint key to mask)."""
    head = json.loads(export.read_text().split('"results":[')[0].rstrip(",") + "}")
    vc = head["metadata"]["verification_config"]

    def model(m: dict, i: int) -> ModelConfig:
        extra = {}
        if m["interface"] == "openai_endpoint":
            extra = {"endpoint_base_url": "http://localhost:8000/v1", "endpoint_api_key": "sk-not-a-real-key"}
        return ModelConfig(
            id=f"{m['name']}-{i}",
            model_provider=m.get("provider"),
            model_name=m["name"],
            interface=m["interface"],
            temperature=m.get("temperature") or 0.0,
            **extra,
        )

    return VerificationConfig(
        answering_models=[model(m, i) for i, m in enumerate(vc["answering_models"])],
        parsing_models=[model(m, i) for i, m in enumerate(vc["parsing_models"])],
        replicate_count=replicates,
    )


def run(label, export, benchmark, status, when, *, replicates=1, error=None, copy=True):
    src = CORPUS / "results" / export
    created = datetime(2026, 11, 22, 8, when, 0, tzinfo=UTC)
    # The results' run name, as `karenina verify` gives both (label when none).
    run_name = label
    if copy:
        first = next(l for l in src.read_text().splitlines()[1:] if l.startswith("{"))
        run_name = json.loads(first.rstrip(",").replace("NaN", "null"))["metadata"].get("run_name") or label
    rd = create_run_directory(
        ROOT,
        label,
        benchmark_path=benchmark,
        config=config_of(src, replicates),
        run_name=run_name,
        now=created,
    )
    if copy:
        shutil.copyfile(src, rd.results_path)
    rd.update_status(status, now=created.replace(second=30), error=error)
    return rd


def main() -> None:
    if ROOT.exists():
        shutil.rmtree(ROOT)
    ROOT.mkdir(parents=True)
    partial = "res-docs__notebooks__test_checkpoint.partial.json"
    # Completed, naming one of two checkpoints that both hold its questions.
    rd = run("completed", partial, FROM_ROOT + "docs__notebooks__test_checkpoint@7c9617f2.jsonld", "completed", 1)
    # Repair leftovers beside the export: never read.
    (rd.path / "results.json.repair_20261122T080200Z.json").write_text("{not json")
    (rd.path / "results.json.backup_20261122T080200Z").write_text("{not json")
    run(
        "interrupted",
        "res-karenina-output__scenario_probe.scenario.json",
        FROM_REPO + "karenina-output__scenario_probe.jsonld",
        "interrupted",
        2,
        replicates=2,
        error=KeyboardInterrupt(),
    )
    run(
        "failed",
        "golden__results_export_full.json",
        FROM_ROOT + "tests__fixtures__checkpoints__minimal.jsonld",
        "failed",
        3,
        error=RuntimeError("answering model unreachable"),
        copy=False,
    )
    run(
        "missing",
        "res-tests__fixtures__checkpoints__with_rubrics.full.json",
        "checkpoints/moved-away.jsonld",
        "completed",
        4,
        replicates=3,
    )
    # Interrupted before its export: the progressive-save sidecars only.
    src = CORPUS / "results" / "res-karenina-output__probe_dj.full.json"
    rd = run(
        "early",
        src.name,
        FROM_ROOT + "karenina-output__probe_dj.jsonld",
        "interrupted",
        5,
        replicates=2,
        error=KeyboardInterrupt(),
        copy=False,
    )
    rows = [json.loads(l.rstrip().rstrip(",")) for l in src.read_text().splitlines()[1:] if l.startswith("{")]
    rows = rows[:7]
    sink = ProgressiveFileSink(rd.results_path, config_of(src, 2), rd.manifest.benchmark_path)
    sink.on_start([f"task-{i}" for i in range(len(rows) + 3)], sink.config)
    for r in rows:
        sink.on_result(VerificationResult.model_validate(r))
    sink.on_finalize(all_complete=False)
    # Git keeps no empty directory: traces/ and workspaces/ as Karenina makes them.
    for d in ROOT.iterdir():
        for sub in ("traces", "workspaces"):
            (d / sub / ".gitkeep").touch()


if __name__ == "__main__":
    main()
