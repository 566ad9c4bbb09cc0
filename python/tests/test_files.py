"""One file at a time: Karenina's bytes, hashes, summaries, validation and
located errors, each compared with the kld binary."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas
import pytest

import karenina_ld
from conftest import CORPUS, REPO, checkpoints, kld, kld_json, results_files


@pytest.mark.parametrize("path", checkpoints(), ids=lambda p: p.name)
def test_to_bytes_is_kld_canon_and_hash_is_kld_hash(path: Path) -> None:
    cp = karenina_ld.Checkpoint.load(path)
    assert cp.to_bytes() == kld("canon", path).stdout
    expected = kld("hash", path).stdout.decode().split()[0]
    assert cp.hash() == expected
    # The same from bytes, and through save().
    assert karenina_ld.Checkpoint.from_bytes(path.read_bytes()) == cp


def test_save_round_trips(tmp_path: Path) -> None:
    src = checkpoints()[0]
    cp = karenina_ld.Checkpoint.load(src)
    out = tmp_path / "out.jsonld"
    cp.save(out)
    assert out.read_bytes() == cp.to_bytes()
    assert karenina_ld.Checkpoint.load(out) == cp
    assert cp.diff(karenina_ld.Checkpoint.load(out)) == kld_json(
        "diff", src, out, "--format", "json"
    )


@pytest.mark.parametrize("path", checkpoints(), ids=lambda p: p.name)
def test_summary_and_export_are_kld_s(path: Path) -> None:
    cp = karenina_ld.Checkpoint.load(path)
    assert cp.summary() == kld_json("info", path, "--format", "json")
    assert cp.export(format="nq", canonical=True) == kld(
        "export", path, "--canonical"
    ).stdout.decode()
    frame = cp.to_frame()
    assert len(frame) == cp.summary()["questions"] == len(cp.questions)


@pytest.mark.parametrize("path", results_files(), ids=lambda p: p.name)
def test_results_pass_rates_are_kld_info_s(path: Path) -> None:
    r = karenina_ld.Results.load(path)
    info = kld_json("info", path, "--format", "json")
    assert r.info() == info
    assert r.summary() == info["summary"]
    text = kld("info", path).stdout.decode()
    # `  interface:model: N results (…)`, then `    verdict pass rate 33.3% (…)` when
    # the model has a verdict (Karenina's aggregate_pass_rate).
    printed = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^  (\S+): \d+ results \(", line)
        if m:
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            rate = re.match(r"^    verdict (pass rate [\d.]+%)", nxt)
            printed[m.group(1)] = rate.group(1) if rate else None
    frame = r.to_frame()
    assert sorted(frame["model"]) == sorted(printed)
    for model, rate in zip(frame["model"], frame["pass_rate"]):
        if printed[model] is None:
            assert pandas.isna(rate)  # None in a float column
        else:
            assert printed[model] == f"pass rate {100.0 * rate:.1f}%"


def test_validate_is_kld_validate_s() -> None:
    files = sorted((CORPUS / "rejects").glob("*.jsonld")) + checkpoints()
    ours = karenina_ld.validate(files)
    theirs = [
        (f["file"], d["code"], d["line"], d["column"], d["path"])
        for f in json.loads(kld("validate", *files, "--format", "json", check=False).stdout)["files"]
        for d in f["diagnostics"]
    ]
    assert sorted((d.file, d.code, d.line, d.column, d.json_path) for d in ours) == sorted(theirs)
    assert any(d.is_error for d in ours)
    with pytest.raises(karenina_ld.InvalidFileError) as e:
        karenina_ld.validate(files, strict=True)
    assert len(e.value.diagnostics) == len(ours)


def test_a_truncated_file_raises_a_located_syntax_error(tmp_path: Path) -> None:
    src = checkpoints()[0].read_bytes()
    cut = tmp_path / "cut.jsonld"
    cut.write_bytes(src[: len(src) // 2])
    with pytest.raises(SyntaxError) as e:
        karenina_ld.Checkpoint.load(cut)
    assert isinstance(e.value, karenina_ld.JsonSyntaxError)
    assert isinstance(e.value, karenina_ld.KldError)
    out = kld("validate", cut, "--format", "json", check=False)
    d = json.loads(out.stdout)["files"][0]["diagnostics"][0]
    assert (e.value.filename, e.value.lineno, e.value.offset) == (str(cut), d["line"], d["column"])
    assert e.value.diagnostics[0].code == d["code"]


def test_an_invalid_checkpoint_is_a_value_error_with_diagnostics() -> None:
    bad = CORPUS / "rejects" / "example_benchmark@439a051e.jsonld"
    with pytest.raises(ValueError) as e:
        karenina_ld.Checkpoint.load(bad)
    assert isinstance(e.value, karenina_ld.InvalidFileError)
    assert [d.code for d in e.value.diagnostics if d.is_error] == ["KLD-E015"]


def test_io_errors_are_os_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as e:
        karenina_ld.Checkpoint.load(tmp_path / "missing.jsonld")
    assert e.value.filename == str(tmp_path / "missing.jsonld")


def test_question_id_is_kld_qid() -> None:
    texts = ["What is the capital of France?", "Ünïcode — and \"quotes\"?", ""]
    ours = [karenina_ld.question_id(t) for t in texts]
    assert ours == kld_json("qid", "--json", *texts)


@pytest.mark.parametrize("path", sorted((CORPUS / "presets").glob("*.json")), ids=lambda p: p.name)
def test_presets_read_as_kld_preset_show(path: Path, tmp_path: Path) -> None:
    p = karenina_ld.Preset.load(path)
    shown = kld("preset", "show", path).stdout.decode()
    printed = json.loads(shown[shown.index("\n{") :])
    assert p.config == printed and list(p.config) == list(printed)
    assert f"name:        {p.name or '-'}\n" in shown
    saved = karenina_ld.Preset.save(path, "My Preset", directory=tmp_path)
    assert Path(saved).name == "my-preset.json"
    again = karenina_ld.Preset.load(saved)
    assert again.name == "My Preset"
    assert kld("preset", "validate", saved).returncode == 0


def test_kld_entry_point_is_the_cli_and_versions_agree() -> None:
    from importlib.metadata import version

    script = Path(sys.executable).parent / "kld"
    out = subprocess.run([script, "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"kld {karenina_ld.__version__}"
    assert version("karenina-ld") == karenina_ld.__version__
    assert kld("--version").stdout.decode().strip() == out.stdout.strip()
    # Same exit codes as the binary: a usage error is 2.
    bad = subprocess.run([script, "no-such-command"], capture_output=True)
    assert bad.returncode == 2 == kld("no-such-command", check=False).returncode


def test_stubs_match_the_module() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "karenina_ld"],
        capture_output=True,
        text=True,
        cwd=os.environ.get("TMPDIR", "/tmp"),
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_first_notebook_example_runs(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, str(REPO / "examples" / "first_notebook.py")],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert "questions loaded: " in r.stdout and "Documentation Test Benchmark" in r.stdout
    # Rows are per checkpoint (its name and file), never a mean over a name,
    # and the numbers say what they are.
    assert "Documentation Test Benchmark (" in r.stdout and "pass_rate" in r.stdout
    src = (REPO / "examples" / "first_notebook.py").read_text()
    # Karenina's rate (issue 35): per combo and run, passed over the rows
    # whose template verification was performed, never a mean over runs.
    assert "pivot_table" not in src and '"results_graph"' in src and '"combo"' in src
    assert "passed / n" in src and "template_pass_by_combo" in src


def test_the_first_notebook_lists_the_runs_it_could_not_bind(tmp_path: Path) -> None:
    # Its check compared `kind` with "results" while Store.graphs said
    # "ResultsGraph", so no unbound run was ever listed (the new-user walk
    # of issue 40); `kind` is now kld load's word.
    run = REPO / "examples" / "runs" / "notebook.verification.json"
    (tmp_path / run.name).write_bytes(run.read_bytes())
    r = subprocess.run(
        [sys.executable, str(REPO / "examples" / "first_notebook.py"), str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert f"not bound: {tmp_path / run.name} - " in r.stdout, r.stdout
