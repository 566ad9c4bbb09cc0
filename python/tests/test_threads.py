"""A Store shared by Python threads (issue 40): `add` while another thread
queries waited for nothing and failed with pyo3's bare "RuntimeError:
Already borrowed"; now each call waits for the others' to end."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

import karenina_ld
from conftest import REPO

EXAMPLES = REPO / "examples"
CHECKPOINTS = sorted(EXAMPLES.glob("*.jsonld"))
RUNS = sorted((EXAMPLES / "runs").glob("*.json"))
# Long on any store of a few hundred quads: it runs until its time limit.
CARTESIAN = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"


def query_in_background(store: karenina_ld.Store, timeout: float) -> tuple[threading.Thread, list]:
    """Starts a query that runs `timeout` seconds on another thread; returns
    the thread and the list its outcome lands in."""
    outcome: list = []

    def run() -> None:
        try:
            store.query(CARTESIAN, timeout=timeout)
            outcome.append("answered")
        except karenina_ld.QueryTimeoutError:
            outcome.append("timed out")
        except BaseException as e:  # noqa: BLE001 - reported by the test
            outcome.append(e)

    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.3)  # the query is running (any order passes; this one is the case)
    return t, outcome


def test_add_while_another_thread_queries_waits_and_then_binds() -> None:
    store = karenina_ld.Store(CHECKPOINTS)
    t, outcome = query_in_background(store, timeout=2.0)
    store.add(RUNS)  # was: RuntimeError: Already borrowed
    t.join()
    assert outcome == ["timed out"]
    runs = [g for g in store.graphs if g["kind"] == "results"]
    assert len(runs) == len(RUNS) and all(g["benchmark"] for g in runs)
    assert len(store.query_named("pass-rate-by-benchmark")) > 0


def test_queries_and_reads_from_other_threads_wait_for_an_add() -> None:
    store = karenina_ld.Store(CHECKPOINTS[:1])
    errors: list[BaseException] = []
    counts: list[int] = []

    def add(paths: list[Path]) -> None:
        try:
            store.add(paths)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    def read() -> None:
        try:
            for _ in range(20):
                counts.append(len(store.graphs))
                store.query_named("benchmark-stats")
                repr(store)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=add, args=([p],)) for p in [*CHECKPOINTS[1:], *RUNS]]
    threads += [threading.Thread(target=read) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(store.graphs) == len(CHECKPOINTS) + len(RUNS)
    assert all(1 <= n <= len(CHECKPOINTS) + len(RUNS) for n in counts)


def test_ctrl_c_stops_an_add_that_waits_for_another_thread_s_query() -> None:
    store = karenina_ld.Store(CHECKPOINTS)
    t, outcome = query_in_background(store, timeout=5.0)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            store.add(RUNS)  # waits for the 5 s query, until Ctrl-C
        interrupted_while_query_ran = t.is_alive()
    finally:
        timer.join()
        t.join()
    assert interrupted_while_query_ran
    assert outcome == ["timed out"]
    assert [g for g in store.graphs if g["kind"] == "results"] == []
