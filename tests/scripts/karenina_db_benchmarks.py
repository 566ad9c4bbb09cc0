"""Benchmarks that live only in Karenina's database, written by Karenina's own code.

Run with the Python of Karenina's venv (Karenina 9851a770):

    VENV/bin/python karenina_db_benchmarks.py OUT CORPUS CHECKPOINT...

Into OUT/karenina.db (`sqlite:///…`) it writes, with Karenina's own functions:

- every CHECKPOINT (`Benchmark.load`) stored with `Benchmark.save_to_db(url)`
  (no checkpoint file recorded: the benchmark lives in the database only);
- an edited benchmark: the corpus checkpoint `docs__notebooks__test_checkpoint`
  saved, two templates changed with `update_template` and saved again, one
  changed once more and saved again (several template versions per question);
- a DBSink run of that benchmark (`DBSink.on_start` then `on_result` per
  result, as the verification executor calls them: results saved as they come)
  and an imported run of it (`import_verification_results`), each with one
  half of the corpus export `res-docs__notebooks__test_checkpoint.full.json`;
- a DBSink run against a benchmark name the database lacks, so that DBSink
  creates the placeholder benchmark ("Auto-created for verification run: …"),
  from the corpus export of `tests__fixtures__checkpoints__with_rubrics`.

Every second generated benchmark then gets one `created_at` for all its
rows (equal times, which `save_to_db` also writes by chance: its rows are a
microsecond or less apart), so the order Karenina's loader gives them is
tested on every run.

Then it prints (JSON on stdout) what Karenina's loaders return:
`benchmarks`: per benchmark name, `Benchmark.load_from_db(url, name).save(path)`
written to OUT/karenina/<n>.jsonld, or the error it raised; `edited`: the
templates the edited benchmark holds in memory after its last save, per
question ID, and the benchmark_questions rows per benchmark; `runs`: per run
(id, name, benchmark) the number of results `load_verification_results`
returns for it.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from types import SimpleNamespace

from karenina.benchmark import Benchmark
from karenina.benchmark.verification.sinks import DBSink
from karenina.schemas.verification import VerificationResult
from karenina.storage import DBConfig, import_verification_results, load_verification_results


def results_of(export: Path) -> list[VerificationResult]:
    data = json.loads(export.read_text())
    return [VerificationResult.model_validate(r) for r in data["results"]]


def dbsink_run(url: str, bench_name: str, run_name: str, results: list[VerificationResult], templates=None) -> None:
    sink = DBSink(url, bench_name, run_name, run_id=run_name, templates=templates)
    config = SimpleNamespace(model_dump=lambda mode=None: {"answering_models": [], "parsing_models": []})
    sink.on_start([], config)
    for r in results:
        sink.on_result(r)


def main() -> None:
    out = Path(sys.argv[1])
    corpus = Path(sys.argv[2])
    checkpoints = [Path(p) for p in sys.argv[3:]]
    out.mkdir(parents=True, exist_ok=True)
    db = out / "karenina.db"
    if db.exists():
        db.unlink()
    url = f"sqlite:///{db}"
    saved: list[str] = []
    save_errors: dict[str, str] = {}
    for p in checkpoints:
        try:
            b = Benchmark.load(p)
            b.save_to_db(url)
            if b.name not in saved:
                saved.append(b.name)
        except Exception as e:  # noqa: BLE001
            save_errors[str(p)] = f"{type(e).__name__}: {e}"

    # The edited benchmark: several template versions per question.
    docs = Benchmark.load(corpus / "loads" / "docs__notebooks__test_checkpoint.jsonld")
    docs.save_to_db(url)
    def template(qid: str) -> str:
        return docs._base._questions_cache[qid].get("answer_template") or ""

    qids = [q for q in docs.get_question_ids() if template(q).strip()][:2]
    for i, qid in enumerate(qids):
        docs.update_template(qid, template(qid).rstrip("\n") + f"\n\n# edited {i}\n")
    docs.save_to_db(url)
    docs.update_template(qids[0], template(qids[0]).rstrip("\n") + "\n# edited again\n")
    docs.save_to_db(url)
    if docs.name not in saved:
        saved.append(docs.name)
    edited = {qid: template(qid) for qid in docs.get_question_ids()}

    # Runs: results saved as they come (DBSink), an imported export.
    export = corpus / "results" / "res-docs__notebooks__test_checkpoint.full.json"
    # (Two halves of one export: two runs, not one run loaded twice.)
    data = json.loads(export.read_text())
    half = len(data["results"]) // 2
    dbsink_run(url, docs.name, "dbsink-run", results_of(export)[:half])
    config = DBConfig(storage_url=url)
    data["results"] = data["results"][half:]
    import_verification_results(data, config, docs.name, run_name="imported-run", source_filename=export.name)
    # A placeholder: DBSink meets a benchmark name the database lacks.
    rubrics = Benchmark.load(corpus / "loads" / "tests__fixtures__checkpoints__with_rubrics.jsonld")
    templates = [
        SimpleNamespace(question_text=q["question"], question_id=q["id"], template_code=q["answer_template"])
        for q in rubrics._question_manager.get_all_questions()
    ]
    dbsink_run(
        url,
        "placeholder-bench",
        "placeholder-run",
        results_of(corpus / "results" / "res-tests__fixtures__checkpoints__with_rubrics.full.json"),
        templates=templates,
    )
    saved.append("placeholder-bench")

    c = sqlite3.connect(db)
    # Equal times: save_to_db inserts a benchmark's rows a microsecond or less
    # apart, so some rows share a created_at by chance. Every second generated
    # benchmark gets one created_at for all its rows, so that the order
    # Karenina's `ORDER BY created_at` gives to equal times is tested every run.
    keep = (docs.name, "placeholder-bench")
    tied = [
        n
        for (i, n) in c.execute("SELECT id, name FROM benchmarks ORDER BY id").fetchall()
        if i % 2 == 0 and n not in keep
    ]
    for n in tied:
        c.execute(
            "UPDATE benchmark_questions SET created_at = (SELECT MIN(q.created_at) FROM benchmark_questions q "
            "WHERE q.benchmark_id = benchmark_questions.benchmark_id) "
            "WHERE benchmark_id = (SELECT id FROM benchmarks WHERE name = ?)",
            (n,),
        )
    c.commit()
    names = [r[0] for r in c.execute("SELECT name FROM benchmarks ORDER BY id")]
    rows = {
        n: k
        for n, k in c.execute(
            "SELECT b.name, COUNT(*) FROM benchmark_questions q JOIN benchmarks b ON b.id = q.benchmark_id GROUP BY b.name"
        )
    }
    run_rows = list(
        c.execute("SELECT r.id, r.run_name, b.name FROM verification_runs r JOIN benchmarks b ON b.id = r.benchmark_id")
    )
    c.close()

    written = out / "karenina"
    written.mkdir(exist_ok=True)
    benchmarks = []
    for i, name in enumerate(names):
        entry = {"name": name, "rows": rows.get(name, 0)}
        try:
            path = written / f"{i}.jsonld"
            Benchmark.load_from_db(name, url).save(path)
            entry["file"] = str(path)
        except Exception as e:  # noqa: BLE001
            entry["error"] = f"{type(e).__name__}: {e}"
        benchmarks.append(entry)
    runs = []
    for run_id, run_name, bench in run_rows:
        got = load_verification_results(config, run_id=run_id, as_dict=False)
        runs.append({"id": run_id, "name": run_name, "benchmark": bench, "results": len(got)})
    print(
        json.dumps(
            {
                "db": str(db),
                "benchmarks": benchmarks,
                "save_errors": save_errors,
                "edited": {"name": docs.name, "templates": edited},
                "runs": runs,
                "tied": tied,
            }
        )
    )


if __name__ == "__main__":
    main()
