"""The PEP 517 backend of `pip install .`: maturin's, with a word of progress.

pip keeps a build backend's output to itself unless run with ``-v``, and the
first build of the Rust extension compiles about 330 crates (5 to 15 minutes
on two cores): a user saw 15 minutes of nothing. So while maturin builds the
wheel, the names of the crates cargo compiles are read from its output (which
still reaches pip unchanged) and a line every few dozen crates, or every
minute, is written to the terminal the user typed ``pip install .`` in
(``/dev/tty``). Without a terminal (CI, a log file) nothing is added.
``KLD_BUILD_QUIET=1`` turns it off. Everything else is maturin's own hooks.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from typing import Any, Iterator

import maturin
from maturin import (  # noqa: F401  (the hooks pip asks for, as maturin has them)
    build_sdist,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_wheel,
)

try:  # editable installs (`pip install -e .`), where maturin has them
    from maturin import (  # noqa: F401
        build_editable,
        get_requires_for_build_editable,
        prepare_metadata_for_build_editable,
    )
except ImportError:  # pragma: no cover
    pass

#: About how many crates the first build compiles (`cargo tree`, 2026-11).
CRATES = 330
#: A line every this many crates compiled, or every `EVERY` seconds.
STEP = 30
EVERY = 60.0


def _tty() -> Any:
    if os.environ.get("KLD_BUILD_QUIET"):
        return None
    try:
        return open("/dev/tty", "w", encoding="utf-8")  # noqa: SIM115
    except OSError:
        return None


def _minutes(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m} min {s:02d} s" if m else f"{s} s"


@contextlib.contextmanager
def _progress() -> Iterator[None]:
    """Tees the process's stderr (which cargo, run by maturin, inherits) and
    tells the terminal how far the build has come."""
    tty = _tty()
    if tty is None:
        yield
        return
    start = time.monotonic()
    say_lock = threading.Lock()

    def say(text: str) -> None:
        with say_lock:
            tty.write(f"\n  karenina-ld: {text} [{_minutes(time.monotonic() - start)}]")
            tty.flush()

    say(
        f"building the Rust extension (about {CRATES} crates the first time, "
        "15 minutes to an hour on 2 cores, the machine's load decides; later builds reuse target/)"
    )
    read_fd, write_fd = os.pipe()
    saved = os.dup(2)
    os.dup2(write_fd, 2)
    os.close(write_fd)
    state = {"crates": 0, "last": time.monotonic(), "done": False}

    def pump() -> None:
        buf = b""
        with os.fdopen(read_fd, "rb", buffering=0) as r:
            while True:
                chunk = r.read(65536)
                if not chunk:
                    break
                os.write(saved, chunk)
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    words = line.decode("utf-8", "replace").split()
                    if words[:1] == ["Compiling"]:
                        state["crates"] += 1
                        if words[1:2] == ["karenina-ld-python"]:
                            # The last crate: minutes of one optimized link
                            # (issue 40's walk saw 19 of 57 minutes here).
                            say("compiling the extension itself, the last and longest step")
                            state["last"] = time.monotonic()
                        elif state["crates"] % STEP == 0:
                            n = state["crates"]
                            say(f"{n} of about {CRATES} crates compiled" if n < CRATES else f"{n} crates compiled")
                            state["last"] = time.monotonic()
                    elif words[:1] == ["Finished"]:
                        say("compiled; writing the wheel")

    def tick() -> None:
        while not state["done"]:
            time.sleep(1.0)
            if not state["done"] and time.monotonic() - state["last"] >= EVERY:
                say(f"still compiling ({state['crates']} crates so far)")
                state["last"] = time.monotonic()

    reader = threading.Thread(target=pump, daemon=True)
    ticker = threading.Thread(target=tick, daemon=True)
    reader.start()
    ticker.start()
    try:
        yield
    finally:
        state["done"] = True
        os.dup2(saved, 2)  # closes the pipe's last write end: the reader ends
        reader.join(timeout=5)
        os.close(saved)
        say("done")
        tty.write("\n")
        tty.close()


def build_wheel(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """maturin's `build_wheel`, with progress on the terminal."""
    with _progress():
        return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)
