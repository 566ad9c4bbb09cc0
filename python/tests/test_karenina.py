"""Karenina itself as the oracle: Checkpoint.from_benchmark(Benchmark.load(p))
equals Checkpoint.load(p) for every corpus checkpoint. Runs in the Karenina
venv (KLD_KARENINA_VENV, else target/karenina-venv) with this package on
its path (an abi3 extension: any CPython >= 3.11 loads it)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from conftest import REPO, checkpoints

SCRIPT = r"""
import json, os, sys, tempfile
from karenina import Benchmark
import karenina_ld
out = {}
tmp = tempfile.mkdtemp()
for p in sys.argv[1:]:
    bench = Benchmark.load(p)
    ours = karenina_ld.Checkpoint.from_benchmark(bench)
    # Karenina's own save(), deep-judgment settings kept and dateModified
    # put back (save() stamps it): what from_benchmark promises.
    saved = os.path.join(tmp, "saved.jsonld")
    bench.save(saved, save_deep_judgment_config=True)
    data = json.load(open(saved, encoding="utf-8"))
    data["dateModified"] = json.load(open(p, encoding="utf-8"))["dateModified"]
    karenina = karenina_ld.Checkpoint.from_bytes(json.dumps(data, indent=2, ensure_ascii=False).encode())
    loaded = karenina_ld.Checkpoint.load(p)
    back = karenina_ld.Checkpoint.from_benchmark(loaded.to_benchmark())
    out[p] = {"as_karenina_saves": ours == karenina, "equals_load": ours == loaded,
              "karenina_keeps_the_file": karenina == loaded, "round_trip": back == ours}
print(json.dumps(out))
"""


def karenina_python() -> Path:
    venv = Path(os.environ.get("KLD_KARENINA_VENV", REPO / "target" / "karenina-venv"))
    py = venv / "bin" / "python"
    assert py.exists(), f"no Karenina venv at {venv}: bash tests/scripts/karenina-venv.sh {venv}"
    return py


def test_from_benchmark_of_karenina_s_load_equals_load() -> None:
    files = [str(p) for p in checkpoints()]
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    r = subprocess.run(
        [karenina_python(), "-c", SCRIPT, *files], capture_output=True, text=True, env=env, timeout=600
    )
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert sorted(got) == sorted(files)
    for p, v in got.items():
        assert v["as_karenina_saves"] and v["round_trip"], (p, v)
        # Equal to load(p) wherever Karenina's own load and save keep the file.
        assert v["equals_load"] == v["karenina_keeps_the_file"], (p, v)
    # Where Karenina does not keep it (recorded so a change is noticed): the
    # legacy root `globalRubric` it drops (kld warns KLD-W001), and the
    # scenario's outcome criteria, which its model re-dumps as `turn_check`
    # without `verify_with`.
    changed = sorted(Path(p).name for p, v in got.items() if not v["karenina_keeps_the_file"])
    assert changed == [
        "karenina-output__scenario_probe.jsonld",
        "tests__fixtures__checkpoints__with_rubrics@09c40862.jsonld",
        "tests__fixtures__checkpoints__with_rubrics@9cd690d3.jsonld",
    ]
