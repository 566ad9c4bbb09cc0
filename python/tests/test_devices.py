"""Files that are not regular files (issue 38, "Files and devices"): every
loader refuses a device at once, reads a pipe as a file and hears Ctrl-C
while it waits; `Store.export()` writes through a FIFO or a device instead
of renaming over it; an absurd timeout is a ValueError, never a panic."""

from __future__ import annotations

import os
import signal
import stat
import threading
import time
from pathlib import Path

import pytest

import karenina_ld
from conftest import REPO

PROBE = REPO / "examples" / "probe.jsonld"
RESULTS = REPO / "examples" / "runs" / "notebook.verification.json"


def feed(fifo: Path, data: bytes) -> threading.Thread:
    """A writer that opens `fifo` (waiting for its reader) and writes `data`."""

    def write() -> None:
        with open(fifo, "wb") as f:
            f.write(data)

    t = threading.Thread(target=write, daemon=True)
    t.start()
    return t


LOADERS = [
    ("Checkpoint.load", lambda p: karenina_ld.Checkpoint.load(p), PROBE),
    ("Results.load", lambda p: karenina_ld.Results.load(p), RESULTS),
    ("validate", lambda p: karenina_ld.validate(p), PROBE),
    ("Store", lambda p: karenina_ld.Store([p]), PROBE),
]


@pytest.mark.parametrize("load", [l[1] for l in LOADERS[:3]], ids=[l[0] for l in LOADERS[:3]])
def test_a_device_is_refused_at_once(load) -> None:
    started = time.monotonic()
    with pytest.raises(Exception) as e:
        load("/dev/zero")
    assert type(e.value).__name__ != "PanicException"
    assert "character device" in str(e.value)
    assert time.monotonic() - started < 10


def test_a_store_refuses_a_device_at_once() -> None:
    started = time.monotonic()
    try:
        with pytest.warns(UserWarning, match="character device"):
            karenina_ld.Store(["/dev/zero"])
    except OSError as e:  # a path that cannot be loaded may raise instead
        assert "character device" in str(e)
    assert time.monotonic() - started < 10


def test_preset_load_refuses_a_device() -> None:
    with pytest.raises(Exception) as e:
        karenina_ld.Preset.load("/dev/zero")
    assert "character device" in str(e.value)


@pytest.mark.parametrize("load,source", [(l[1], l[2]) for l in LOADERS], ids=[l[0] for l in LOADERS])
def test_a_pipe_is_read_as_a_file(tmp_path: Path, load, source: Path) -> None:
    fifo = tmp_path / source.name
    os.mkfifo(fifo)
    writer = feed(fifo, source.read_bytes())
    got = load(fifo)
    writer.join(10)
    assert not writer.is_alive()
    direct = load(source)
    if isinstance(got, karenina_ld.Checkpoint):
        assert got == direct
    elif isinstance(got, karenina_ld.Results):
        assert got.info()["results"] == direct.info()["results"]
    elif isinstance(got, karenina_ld.Store):
        assert len(got.graphs) == len(direct.graphs) == 1
    else:
        assert got == direct


def test_ctrl_c_stops_a_load_waiting_on_a_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "never.jsonld"
    os.mkfifo(fifo)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        karenina_ld.Checkpoint.load(fifo)
    assert time.monotonic() - started < 10
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        karenina_ld.Store([fifo])


def test_store_export_writes_through_a_fifo_and_a_device(tmp_path: Path) -> None:
    store = karenina_ld.Store([PROBE])
    fifo = tmp_path / "out.nq"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    store.export(fifo)
    reader.join(10)
    assert got and b"<https://schema.org/" in got[0]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["out.nq"]
    store.export("/dev/null")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


@pytest.mark.parametrize("timeout", [1e20, float("nan"), -1.0, float("inf"), 1e300])
def test_an_absurd_timeout_is_a_value_error(timeout: float) -> None:
    store = karenina_ld.Store([PROBE])
    with pytest.raises(ValueError, match="timeout"):
        store.query("SELECT * WHERE { ?s ?p ?o } LIMIT 1", timeout=timeout)
    with pytest.raises(ValueError, match="timeout"):
        store.query_named("benchmark-stats", timeout=timeout)
