"""An agentic run with workspace capture and a repaired run, written by Karenina's own code,
and what Karenina's own files and loaders say about them (the oracle of
crates/cli/tests/cli/differential/prov.rs; also makes the fixtures of tests/data/runs/agentic/).

Run with the Karenina venv's python (Karenina 9851a770):

    VENV/bin/python karenina_agentic.py ROOT EXPORT.json [--stamp N]

Into ROOT (created) it writes two run folders around the rows of EXPORT (a v2.x export
Karenina's pipeline wrote), each made by `create_run_directory` as `karenina verify
--run-root ROOT --run-label L` does:

- `agentic_<ts>/`: a completed run. Each result's workspace is captured by
  `capture_workspace` (mode "full"), the function `FinalizeResultStage` calls for every
  result, then the manifest is compacted by `compact_manifest` as the batch runner does
  when every task finished (`workspaces/manifest.json`; the `.jsonl` stays). What the
  "agent" left in each workspace cycles over four cases: two files (captured), a file
  and a named pipe (captured_with_errors: shutil refuses to copy a pipe), an empty
  workspace (captured, 0 files), no workspace (skipped, workspace_not_available). Then
  `repair_results_export` (what `karenina repair` calls) repairs in place the rows of
  the first question, mode "replay": Karenina selects, backs up, splices and writes the
  export and its `results.json.repair_<ts>.json`; only the model calls are replaced
  (offline) by a benchmark whose `run_verification` returns each selected row again
  with a new timestamp, its result_id recomputed, no failure, and its template
  verified true.
- `running_<ts>/`: an interrupted run whose results are in the progressive-save sidecar
  (`ProgressiveFileSink`) and whose manifest was never compacted
  (`workspaces/manifest.jsonl` only).

Prints one JSON object: the counts Karenina's files give (manifest entries by status,
copy errors, results without files, per answering x parsing model as
`ModelIdentity.display_string` writes them) and the repair (`RepairOutcome`: selected
keys, replaced count, and per replaced row the old and new verify_result as
`ResultsIOManager.iter_from_json` reads the backup and the repaired export).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import tempfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from karenina.benchmark.core.results_io import ResultsIOManager
from karenina.benchmark.run_artifacts import create_run_directory
from karenina.benchmark.verification.repair import RepairSelection, repair_results_export
from karenina.benchmark.verification.sinks import ProgressiveFileSink
from karenina.benchmark.verification.workspace_capture import capture_workspace, compact_manifest
from karenina.schemas import ModelConfig
from karenina.schemas.results import ResultRowKey, VerificationResultSet
from karenina.schemas.verification import ModelIdentity, VerificationConfig
from karenina.schemas.verification.result import VerificationResult
from karenina.schemas.verification.result_components import VerificationResultMetadata


def rows_of(export: Path) -> list[VerificationResult]:
    return list(ResultsIOManager.iter_from_json(export))


def config_of(rows: list[VerificationResult]) -> VerificationConfig:
    """The run's models as ModelConfigs whose identities are the rows' (id = name)."""

    def model(m: ModelIdentity) -> ModelConfig:
        return ModelConfig(id=m.config_id or m.model_name, model_name=m.model_name, interface=m.interface,
                           model_provider="openai" if m.interface == "langchain" else None,
                           temperature=0.0,
                           mcp_urls_dict={t: f"http://localhost:9/{t}" for t in m.tools} or None)

    ans, par = {}, {}
    for r in rows:
        ans.setdefault(r.metadata.answering.canonical_key, r.metadata.answering)
        par.setdefault(r.metadata.parsing.canonical_key, r.metadata.parsing)
    return VerificationConfig(answering_models=[model(m) for m in ans.values()],
                              parsing_models=[model(m) for m in par.values()],
                              replicate_count=max((r.metadata.replicate or 1) for r in rows))


def workspace(i: int, scratch: Path) -> Path | None:
    """What the agent of result i left: two files, a file and a pipe, nothing, or no workspace."""
    case = i % 4
    if case == 3:
        return None
    ws = scratch / f"ws-{i}"
    ws.mkdir(parents=True)
    if case == 0:
        (ws / "answer.md").write_text(f"answer {i}\n")
        (ws / "notes").mkdir()
        (ws / "notes" / "scratch.txt").write_text("work\n")
    elif case == 1:
        (ws / "answer.md").write_text(f"answer {i}\n")
        os.mkfifo(ws / "pipe")
    return ws


def capture_all(rows: list[VerificationResult], out: Path, scratch: Path) -> None:
    for i, r in enumerate(rows):
        capture_workspace(mode="full", output_dir=out, workspace_path=workspace(i, scratch),
                          baseline=None, result=r, exclude_patterns=[])


def again(r: VerificationResult, timestamp: str) -> VerificationResult:
    """The row answered again at `timestamp` (its result_id recomputed)."""
    n = copy.deepcopy(r)
    m = n.metadata
    m.timestamp = timestamp
    m.result_id = VerificationResultMetadata.compute_result_id(
        m.question_id, m.answering, m.parsing, m.timestamp, m.replicate,
        m.scenario_id, m.scenario_node, m.scenario_turn)
    return n


class Rerun:
    """A benchmark whose run_verification answers each selected row again (offline): a
    new timestamp, its result_id recomputed, no failure, its template verified true."""

    def __init__(self, original: list[VerificationResult]):
        self.original = original

    def run_verification(self, *, config, question_ids, run_name):
        skip = config.skip_triples
        out = []
        for r in self.original:
            k = ResultRowKey.from_result(r)
            if k.question_id not in question_ids:
                continue
            if (k.question_id, k.answering_key, k.parsing_key, k.replicate) in skip:
                continue
            n = again(r, "2026-11-22 18:00:00")
            n.metadata.failure = None
            if n.template is not None:
                n.template.template_verification_performed = True
                n.template.verify_result = True
            out.append(n)
        return VerificationResultSet(results=out)


def manifest_facts(entries: list[dict]) -> dict:
    def combo(e):
        a = ModelIdentity.model_validate(e["answering"]).display_string
        p = ModelIdentity.model_validate(e["parsing"]).display_string
        return f"{a} | {p}"

    by_combo: dict[str, Counter] = {}
    for e in entries:
        c = by_combo.setdefault(combo(e), Counter())
        c["captures"] += 1
        c[e["status"]] += 1
        c["copy_errors"] += len(e["copy_errors"])
        c["without_files"] += int(e["status"] == "skipped" or e["copied_file_count"] == 0)
    return {
        "entries": len(entries),
        "status": dict(Counter(e["status"] for e in entries)),
        "copy_errors": sum(len(e["copy_errors"]) for e in entries),
        "without_files": sorted(e["result_id"] for e in entries
                                if e["status"] == "skipped" or e["copied_file_count"] == 0),
        "by_combo": {k: dict(v) for k, v in by_combo.items()},
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", type=Path)
    ap.add_argument("export", type=Path)
    ap.add_argument("--benchmark-path", default="benchmark.jsonld")
    a = ap.parse_args()
    a.root.mkdir(parents=True, exist_ok=True)
    rows = rows_of(a.export)
    config = config_of(rows)
    run_name = rows[0].metadata.run_name
    scratch = Path(tempfile.mkdtemp(prefix="kld-agentic-"))
    facts: dict = {}

    # The completed agentic run, its workspaces captured and compacted.
    created = datetime(2026, 11, 22, 9, 0, 0, tzinfo=UTC)
    rd = create_run_directory(a.root, "agentic", benchmark_path=a.benchmark_path, config=config,
                              run_name=run_name, now=created)
    shutil.copyfile(a.export, rd.results_path)
    capture_all(rows, rd.workspaces_path, scratch / "agentic")
    compact_manifest(rd.workspaces_path)
    rd.update_status("completed", now=created.replace(minute=30))
    manifest = json.loads((rd.workspaces_path / "manifest.json").read_text())
    facts["agentic"] = {"folder": rd.path.name, **manifest_facts(manifest["entries"])}

    # Its repair: the rows of the first question, in place.
    qid = rows[0].metadata.question_id
    outcome = repair_results_export(Rerun(rows), rd.results_path, config,
                                    RepairSelection(question_ids={qid}), mode="replay",
                                    now=datetime(2026, 11, 22, 10, 0, 0, tzinfo=UTC))
    old = {ResultRowKey.from_result(r): r for r in ResultsIOManager.iter_from_json(outcome.backup_path)}
    new = {ResultRowKey.from_result(r): r for r in ResultsIOManager.iter_from_json(outcome.output_path)}
    changed = []
    for k in old:
        if old[k].metadata.result_id != new[k].metadata.result_id:
            changed.append({
                "question_id": k.question_id,
                "old_result_id": old[k].metadata.result_id,
                "new_result_id": new[k].metadata.result_id,
                "old_verify": old[k].template.verify_result if old[k].template else None,
                "new_verify": new[k].template.verify_result if new[k].template else None,
                "old_failed": old[k].metadata.failure is not None,
                "new_failed": new[k].metadata.failure is not None,
            })
    facts["repair"] = {
        "sidecar": outcome.provenance_path.name,
        "mode": outcome.mode,
        "selected_keys": outcome.selected_keys,
        "selected_count": outcome.selected_count,
        "replaced_count": outcome.replaced_count,
        "replaced": sorted(changed, key=lambda c: c["new_result_id"]),
        "results_after": len(new),
    }

    # An interrupted run: the progressive sidecar and manifest.jsonl only.
    created = datetime(2026, 11, 22, 11, 0, 0, tzinfo=UTC)
    rd = create_run_directory(a.root, "running", benchmark_path=a.benchmark_path, config=config,
                              run_name=run_name, now=created)
    done = [again(r, "2026-11-22 11:05:00") for r in rows[: max(1, len(rows) - 1)]]
    sink = ProgressiveFileSink(rd.results_path, config, rd.manifest.benchmark_path)
    sink.on_start([f"task-{i}" for i in range(len(rows))], sink.config)
    for r in done:
        sink.on_result(r)
    sink.on_finalize(all_complete=False)
    capture_all(done, rd.workspaces_path, scratch / "running")
    rd.update_status("interrupted", now=created.replace(minute=30), error=KeyboardInterrupt())
    lines = (rd.workspaces_path / "manifest.jsonl").read_text().splitlines()
    facts["running"] = {"folder": rd.path.name,
                        **manifest_facts([json.loads(x) for x in lines if x.strip()])}
    for d in (a.root / facts["agentic"]["folder"], rd.path):
        (d / "traces" / ".gitkeep").touch()
    shutil.rmtree(scratch)
    print(json.dumps(facts, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
