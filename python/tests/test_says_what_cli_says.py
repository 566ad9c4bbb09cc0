"""Python says at least what the command line says (issue 40): the canonical
writing options, each run's binding and why one is not bound, the inputs
skipped as copies of a run, FileNotFoundError for a missing path, what a
file given to the wrong loader is, a per-result DataFrame, and adding files
to an open Store."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import karenina_ld
from conftest import CORPUS, REPO, checkpoints, kld, kld_json
from test_karenina import karenina_python

NOTEBOOK = CORPUS / "results" / "res-docs__notebooks__test_checkpoint.full"
DOCS = CORPUS / "loads" / "docs__notebooks__test_checkpoint.jsonld"


@pytest.mark.parametrize("path", checkpoints(), ids=lambda p: p.name)
def test_to_bytes_takes_kld_canon_s_options(path: Path, tmp_path: Path) -> None:
    cp = karenina_ld.Checkpoint.load(path)
    for flags, kwargs in [
        ([], {}),
        (["--strip-deep-judgment"], {"strip_deep_judgment": True}),
        (["--drop-unknown"], {"drop_unknown": True}),
        (["--strip-deep-judgment", "--drop-unknown"], {"strip_deep_judgment": True, "drop_unknown": True}),
    ]:
        want = kld("canon", *flags, path).stdout
        assert cp.to_bytes(**kwargs) == want, flags
        out = tmp_path / "saved.jsonld"
        cp.save(out, **kwargs)
        assert out.read_bytes() == want, flags


def test_touch_sets_date_modified_as_save_does() -> None:
    cp = karenina_ld.Checkpoint.load(DOCS)
    before = json.loads(cp.to_bytes())["dateModified"]
    after = json.loads(cp.to_bytes(touch=True))["dateModified"]
    assert after != before and after[:4].isdigit() and "T" in after


def test_upgrade_reads_the_2025_08_dataset_format() -> None:
    old = CORPUS / "rejects" / "example_benchmark@439a051e.jsonld"
    with pytest.raises(karenina_ld.InvalidFileError):
        karenina_ld.Checkpoint.load(old)
    up = karenina_ld.Checkpoint.load(old, upgrade=True)
    assert up.to_bytes() == kld("canon", "--upgrade", old).stdout


def test_with_strip_and_drop_the_bytes_are_karenina_s_save(tmp_path: Path) -> None:
    """Karenina's `Benchmark.load(p).save()` (dateModified put back), byte for
    byte, for every corpus checkpoint: what issue 40 found for 11 of 40."""
    script = r"""
import json, os, sys, tempfile
from karenina import Benchmark
import karenina_ld
tmp = tempfile.mkdtemp()
out = {}
for p in sys.argv[1:]:
    saved = os.path.join(tmp, "saved.jsonld")
    Benchmark.load(p).save(saved)
    data = json.load(open(saved, encoding="utf-8"))
    data["dateModified"] = json.load(open(p, encoding="utf-8"))["dateModified"]
    karenina = json.dumps(data, indent=2, ensure_ascii=False).encode()
    ours = karenina_ld.Checkpoint.load(p).to_bytes(strip_deep_judgment=True, drop_unknown=True)
    out[p] = ours == karenina
print(json.dumps(out))
"""
    files = [str(p) for p in checkpoints()]
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    r = subprocess.run([karenina_python(), "-c", script, *files], capture_output=True, text=True,
                       env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    differ = sorted(Path(p).name for p, same in got.items() if not same)
    # Only the scenario, whose outcome criteria Karenina's model re-dumps as
    # `turn_check` without `verify_with` (test_karenina.py records it).
    assert differ == ["karenina-output__scenario_probe.jsonld"]


def test_graphs_give_each_run_s_binding_and_why_one_is_not_bound() -> None:
    orphan = CORPUS / "results" / "res-orphan.orphan.json"
    store = karenina_ld.Store([DOCS, Path(f"{NOTEBOOK}.json"), orphan])
    by_source = {Path(g["source"]).name: g for g in store.graphs}
    bound = by_source[f"{NOTEBOOK.name}.json"]
    cp = by_source[DOCS.name]["graph"]
    assert bound["benchmark"] == cp and bound["bound_by"] == "auto"
    assert bound["binding_note"] is None
    unbound = by_source[orphan.name]
    assert unbound["benchmark"] is None and unbound["bound_by"] is None
    assert "no loaded checkpoint holds" in unbound["binding_note"]
    # The same bindings kld gives.
    runs = kld_json("query", DOCS, f"{NOTEBOOK}.json", orphan, "--named", "runs", "--format", "json")
    assert any(b.get("checkpoint", {}).get("value") == cp for b in runs["results"]["bindings"])


def test_a_run_folder_names_its_checkpoint() -> None:
    folder = REPO / "tests" / "data" / "runs" / "root" / "completed_20261122T080100Z"
    cp = CORPUS / "loads" / "docs__notebooks__test_checkpoint@7c9617f2.jsonld"
    store = karenina_ld.Store([cp, folder])
    run = next(g for g in store.graphs if g["kind"] == "results")
    assert run["names_checkpoint"] == run["benchmark"] == next(
        g["graph"] for g in store.graphs if g["kind"] == "checkpoint"
    )


def test_inputs_skipped_as_copies_of_a_run_are_listed_with_why() -> None:
    json_, csv = Path(f"{NOTEBOOK}.json"), Path(f"{NOTEBOOK}.csv")
    store = karenina_ld.Store([DOCS, json_, csv])
    assert [Path(g["source"]).name for g in store.graphs if g["kind"] == "results"] == [json_.name]
    (s,) = store.skipped
    assert Path(s["file"]).name == csv.name and Path(s["kept"]).name == json_.name
    assert s["why"] == "same-run" and s["results"] == 30
    assert "skipped: the same run as" in s["message"]


def test_a_database_s_copies_of_loaded_benchmarks_are_listed_as_kld_load_lists_them(tmp_path: Path) -> None:
    rubrics = CORPUS / "loads" / "tests__fixtures__checkpoints__with_rubrics.jsonld"
    db = REPO / "tests" / "data" / "runs" / "karenina.db"
    inputs = [DOCS, rubrics, db]
    store = karenina_ld.Store(inputs)
    ours = sorted((s["graph"], s["kept"], s["why"]) for s in store.skipped if s["why"] == "same-benchmark")
    assert len(ours) == 2, store.skipped
    assert all(s["results"] is None for s in store.skipped if s["why"] == "same-benchmark")
    cli = kld_json("load", "--store", tmp_path / "store", *inputs, "--format", "json")
    theirs = sorted((s["graph"], s["kept"], s["why"]) for s in cli["skipped"] if s["why"] == "same-benchmark")
    assert ours == theirs


def test_a_missing_path_is_file_not_found_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as e:
        karenina_ld.Store([DOCS, tmp_path / "typo.json"])
    assert e.value.filename == str(tmp_path / "typo.json")
    store = karenina_ld.Store([DOCS])
    with pytest.raises(FileNotFoundError):
        store.add([tmp_path / "typo.json"])
    assert len(store.graphs) == 1


def test_a_missing_file_is_told_in_python_s_own_words(tmp_path: Path) -> None:
    # Was "[Errno 2] No such file or directory (os error 2): '…'" from the
    # loaders (the new-user walk of issue 40): Rust's suffix is dropped.
    missing = tmp_path / "typo.jsonld"
    with pytest.raises(FileNotFoundError) as python_s:
        open(missing)
    for load in (karenina_ld.Checkpoint.load, karenina_ld.Results.load, karenina_ld.Store):
        with pytest.raises(FileNotFoundError) as e:
            load(missing)
        assert str(e.value) == str(python_s.value), load


def test_a_file_given_to_the_wrong_loader_says_what_it_is() -> None:
    export = Path(f"{NOTEBOOK}.json")
    with pytest.raises(karenina_ld.WrongKindError, match="is a results export") as e:
        karenina_ld.Checkpoint.load(export)
    assert e.value.kind == "results" and e.value.filename == str(export)
    assert isinstance(e.value, ValueError)
    with pytest.raises(karenina_ld.WrongKindError, match="is a checkpoint") as e:
        karenina_ld.Results.load(DOCS)
    assert e.value.kind == "checkpoint"
    preset = CORPUS / "presets" / "karenina-output__preset__my-test-config.json"
    with pytest.raises(karenina_ld.WrongKindError, match="is a verification preset"):
        karenina_ld.Checkpoint.load(preset)
    with pytest.raises(karenina_ld.WrongKindError, match="is a checkpoint"):
        karenina_ld.Preset.load(DOCS)


def test_results_frame_has_one_row_per_verification_result() -> None:
    facts = json.loads(Path(f"{NOTEBOOK}.expect.json").read_text())
    store = karenina_ld.Store([DOCS, Path(f"{NOTEBOOK}.json")])
    df = store.results_frame()
    assert len(df) == facts["results_count"]
    assert {"graph", "checkpoint", "run", "question_id", "model_name", "parsing_model_name",
            "replicate", "verify_result"} <= set(df.columns)
    cp = next(g["graph"] for g in store.graphs if g["kind"] == "checkpoint")
    assert set(df["checkpoint"]) == {cp}
    by_model = df.groupby("model_name").size().to_dict()
    want = {m["identity"]["model_name"]: m["results"] for m in facts["facts"]["per_answering_model"].values()}
    assert by_model == want
    # As many rows as `kld query --named results`.
    rows = kld_json("query", DOCS, f"{NOTEBOOK}.json", "--named", "results", "--format", "json")
    assert len(rows["results"]["bindings"]) == len(df)


def test_files_added_to_an_open_store_are_bound(tmp_path: Path) -> None:
    store = karenina_ld.Store([Path(f"{NOTEBOOK}.json")])
    (run,) = store.graphs
    assert run["benchmark"] is None
    store.add(DOCS)
    run = next(g for g in store.graphs if g["kind"] == "results")
    assert run["benchmark"] == next(g["graph"] for g in store.graphs if g["kind"] == "checkpoint")
    store.add([Path(f"{NOTEBOOK}.csv")])
    assert len(store.skipped) == 1 and len(store.graphs) == 2
    assert len(store.query_named("pass-rate-by-benchmark")) > 0
