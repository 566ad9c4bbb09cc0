"""The notebook path, timed: karenina_ld against pyoxigraph (issue 27).

Generates CHECKPOINTS x QUESTIONS checkpoints (../shared/tools/gen_checkpoints.py)
and one verification-results export per checkpoint (RESULTS_PER_QUESTION rows
per question, two answering models, verdicts from a fixed seed), then times,
in the same run and the same process, best of --repeat:

* karenina_ld: Store([checkpoints/, runs/]) (reads the JSON-LD checkpoints and
  Karenina's JSON exports, maps them, binds runs to checkpoints), the
  catalogue queries pass-rate-by-benchmark and traits, and both answers as
  pandas DataFrames;
* pyoxigraph: Store.load of the same data (the N-Quads karenina_ld's store
  holds, written once by Store.export, untimed: pyoxigraph reads neither
  Karenina's results exports nor binds runs), the same SPARQL text
  (karenina_ld.query_text: the catalogue query with its prefixes declared)
  over the union default graph, and the rows into pandas DataFrames with
  the same typed values.

Both sides must give the same rows (checked), so they did the same work.
Also reported: pyoxigraph's Store.load of the 200 checkpoint files as
JSON-LD (its own JSON-LD parser), the cost of reading the files themselves.

Run: python python/bench/notebook.py  (a release build of the extension:
maturin develop --release, or a wheel from maturin build --release).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas
import pyoxigraph

import karenina_ld

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python" / "tests"))
from test_store import pyoxigraph_binding, typed  # noqa: E402
QUERIES = ["pass-rate-by-benchmark", "traits"]
MODELS = [("langchain", "gpt-4.1-mini"), ("openai_endpoint", "Qwen/Qwen3-8B")]


def generate(out: Path, checkpoints: int, questions: int) -> tuple[Path, Path]:
    ck = out / "checkpoints"
    subprocess.run(
        [sys.executable, str(REPO.parent / "shared" / "tools" / "gen_checkpoints.py"),
         "--checkpoints", str(checkpoints), "--questions", str(questions),
         "--seed", "1", "--out", str(ck)],
        check=True, capture_output=True,
    )
    template = json.loads((REPO / "tests" / "data" / "corpus" / "results"
                           / "golden__results_export_full.json").read_text(encoding="utf-8"))
    row0 = template["results"][0]
    runs = out / "runs"
    runs.mkdir()
    rng = random.Random(1)
    for n, f in enumerate(sorted(ck.glob("*.jsonld"))):
        cp = json.loads(f.read_text(encoding="utf-8"))
        rows = []
        for item in cp["dataFeedElement"]:
            for iface, model in MODELS:
                row = json.loads(json.dumps(row0))
                m = row["metadata"]
                m["question_id"] = item["@id"]
                m["question_text"] = item["item"]["text"]
                m["answering"]["interface"], m["answering"]["model_name"] = iface, model
                m["result_id"] = f"{n:04d}{len(rows):06d}"
                m["run_name"] = f"bench-run-{n}"
                m["failure"] = None
                row["template"]["verify_result"] = rng.random() < 0.6
                rows.append(row)
        export = dict(template, results=rows)
        export["metadata"] = dict(template["metadata"], job_id=f"bench-job-{n}")
        (runs / f"{f.stem}.results.json").write_text(json.dumps(export), encoding="utf-8")
    return ck, runs


def value(term):
    """A pyoxigraph term as the Python value karenina_ld gives (the test
    suite's conversion, written from the SPARQL standard)."""
    return typed(pyoxigraph_binding(term))


def kld_path(ck: Path, runs: Path) -> dict[str, pandas.DataFrame]:
    store = karenina_ld.Store([ck, runs])
    return {q: store.query_named(q).to_frame() for q in QUERIES}


def pyoxigraph_path(nq: Path) -> dict[str, pandas.DataFrame]:
    store = pyoxigraph.Store()
    store.load(path=str(nq), format=pyoxigraph.RdfFormat.N_QUADS)
    frames = {}
    for q in QUERIES:
        solutions = store.query(karenina_ld.query_text(q), use_default_graph_as_union=True)
        names = [v.value for v in solutions.variables]
        rows = [[value(s[n]) for n in names] for s in solutions]
        frames[q] = pandas.DataFrame(rows, columns=names)
    return frames


def phases_kld(ck: Path, runs: Path) -> dict[str, float]:
    """kld_path's phases, timed one by one (one more run)."""
    t = [time.perf_counter()]
    store = karenina_ld.Store([ck, runs])
    t.append(time.perf_counter())
    answers = [store.query_named(q) for q in QUERIES]
    t.append(time.perf_counter())
    [a.to_frame() for a in answers]
    t.append(time.perf_counter())
    del store, answers
    t.append(time.perf_counter())
    return dict(zip(["load + bind", "queries", "DataFrames", "free"],
                    [b - a for a, b in zip(t, t[1:])]))


def phases_oxi(nq: Path) -> dict[str, float]:
    """pyoxigraph_path's phases, timed one by one (one more run)."""
    t = [time.perf_counter()]
    store = pyoxigraph.Store()
    store.load(path=str(nq), format=pyoxigraph.RdfFormat.N_QUADS)
    t.append(time.perf_counter())
    answers = []
    for q in QUERIES:
        solutions = store.query(karenina_ld.query_text(q), use_default_graph_as_union=True)
        names = [v.value for v in solutions.variables]
        answers.append((names, [[value(s[n]) for n in names] for s in solutions]))
        del solutions
    t.append(time.perf_counter())
    [pandas.DataFrame(rows, columns=names) for names, rows in answers]
    t.append(time.perf_counter())
    del store, answers
    t.append(time.perf_counter())
    return dict(zip(["load", "queries + rows", "DataFrames", "free"],
                    [b - a for a, b in zip(t, t[1:])]))


def pyoxigraph_jsonld_load(ck: Path) -> int:
    store = pyoxigraph.Store()
    for f in sorted(ck.glob("*.jsonld")):
        store.load(path=str(f), format=pyoxigraph.RdfFormat.JSON_LD,
                   to_graph=pyoxigraph.NamedNode(f.resolve().as_uri()))
    return len(store)


def same(a: pandas.DataFrame, b: pandas.DataFrame) -> bool:
    def rows(df):
        return sorted(repr(tuple(None if pandas.isna(x) else x for x in r))
                      for r in df.itertuples(index=False))
    return list(a.columns) == list(b.columns) and rows(a) == rows(b)


def cpu_seconds() -> float:
    """CPU time of this process, all threads (user + system): what a path
    costs whatever else the machine runs."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


CPU: dict[str, float] = {}


def best(f, repeat: int, name: str = ""):
    times, cpus, out = [], [], None
    for _ in range(repeat):
        t, c = time.perf_counter(), cpu_seconds()
        out = f()
        times.append(time.perf_counter() - t)
        cpus.append(cpu_seconds() - c)
    CPU[name] = min(cpus)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoints", type=int, default=200)
    ap.add_argument("--questions", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="kld-bench-"))
    try:
        ck, runs = generate(tmp, a.checkpoints, a.questions)
        mb = sum(p.stat().st_size for p in [*ck.iterdir(), *runs.iterdir()]) / 1e6
        nq = tmp / "store.nq"
        karenina_ld.Store([ck, runs]).export(nq)
        t_kld, ours = best(lambda: kld_path(ck, runs), a.repeat, "kld")
        t_oxi, theirs = best(lambda: pyoxigraph_path(nq), a.repeat, "oxi")
        for q in QUERIES:
            assert len(ours[q]) > 0, q
            assert same(ours[q], theirs[q]), f"{q}: the two answers differ"
        t_jsonld, quads = best(lambda: pyoxigraph_jsonld_load(ck), a.repeat)
        print(f"karenina_ld {karenina_ld.__version__}, pyoxigraph {pyoxigraph.__version__}, "
              f"best of {a.repeat}")
        print(f"data: {a.checkpoints} checkpoints x {a.questions} questions + "
              f"{a.checkpoints} results exports ({a.checkpoints * a.questions * len(MODELS)} results), "
              f"{mb:.1f} MB; store {nq.stat().st_size / 1e6:.1f} MB of N-Quads; rows: "
              + ", ".join(f"{q} {len(ours[q])}" for q in QUERIES))
        print(f"karenina_ld  load files + bind + 2 queries + DataFrames: {t_kld:7.3f} s")
        print(f"pyoxigraph   load N-Quads + 2 queries + DataFrames:      {t_oxi:7.3f} s")
        print(f"ratio pyoxigraph / karenina_ld: {t_oxi / t_kld:.2f}x")
        print(f"CPU time (all threads): karenina_ld {CPU['kld']:.3f} s, pyoxigraph {CPU['oxi']:.3f} s, "
              f"ratio {CPU['oxi'] / CPU['kld']:.2f}x; load average {os.getloadavg()[0]:.1f} "
              f"on {os.cpu_count()} cores")
        for name, phases in [("karenina_ld", phases_kld(ck, runs)), ("pyoxigraph", phases_oxi(nq))]:
            print(f"phases, one more run, {name}: "
                  + ", ".join(f"{k} {v:.3f} s" for k, v in phases.items()))
        print(f"pyoxigraph   Store.load of the {a.checkpoints} checkpoint files as JSON-LD alone "
              f"(no results, no queries): {t_jsonld:.3f} s ({quads} quads), "
              f"{t_jsonld / t_kld:.2f}x karenina_ld's whole path")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
