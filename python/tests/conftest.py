"""Shared fixtures: the repository, the test corpus (tests/data/corpus), and kld (the Rust
binary cargo builds, the oracle the package is compared with)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("KLD_CORPUS", REPO / "tests" / "data" / "corpus"))


def kld_binary() -> str:
    """The `kld` cargo built (KLD_BIN overrides): not the console script, so
    that the package is compared with the binary users run."""
    explicit = os.environ.get("KLD_BIN")
    if explicit:
        return explicit
    for profile in ("debug", "release"):
        p = REPO / "target" / profile / "kld"
        if p.exists():
            return str(p)
    raise RuntimeError("no kld binary: run `cargo build` first or set KLD_BIN")


def kld(*args: str | os.PathLike[str], check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """Runs kld; returns the finished process (stdout as bytes)."""
    r = subprocess.run([kld_binary(), *map(str, args)], capture_output=True, timeout=300)
    if check and r.returncode != 0:
        raise AssertionError(f"kld {args} exited {r.returncode}: {r.stderr.decode()}")
    return r


def kld_json(*args: str | os.PathLike[str]) -> object:
    return json.loads(kld(*args).stdout)


def checkpoints() -> list[Path]:
    """Every corpus checkpoint Karenina loads."""
    files = sorted((CORPUS / "loads").glob("*.jsonld"))
    assert files, f"no checkpoints under {CORPUS}/loads"
    return files


def results_files() -> list[Path]:
    """Every corpus results export (JSON and CSV)."""
    files = sorted(
        p
        for p in (CORPUS / "results").iterdir()
        if p.suffix in (".json", ".csv")
        and not p.name.endswith(".expect.json")
        and p.name != "INDEX.json"
    )
    assert files, f"no results exports under {CORPUS}/results"
    return files


@pytest.fixture(scope="session")
def corpus_store():
    import karenina_ld

    return karenina_ld.Store([*checkpoints(), *results_files()])
