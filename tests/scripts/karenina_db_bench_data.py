"""Data for `cargo bench --bench db_load`, written by Karenina's own code.

Run with the Python of Karenina's venv (Karenina 9851a770):

    VENV/bin/python karenina_db_bench_data.py OUT EXPORT CHECKPOINT...

Every CHECKPOINT is stored in OUT/karenina.db with `Benchmark.save_to_db(url)`
(no checkpoint file recorded: the benchmark lives in the database only), and
gets one run: the rows of EXPORT (a v2.2 stream export, one result per line)
with their question IDs replaced by the checkpoint's, in turn, written to
OUT/exports/res-<stem>.json in EXPORT's layout and imported with
`import_verification_results`. The bench then scales both sides to the same
number of rows.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from karenina.benchmark import Benchmark
from karenina.storage import DBConfig, import_verification_results


def main() -> None:
    out = Path(sys.argv[1])
    export = Path(sys.argv[2])
    checkpoints = [Path(p) for p in sys.argv[3:]]
    (out / "exports").mkdir(parents=True, exist_ok=True)
    url = f"sqlite:///{out / 'karenina.db'}"
    config = DBConfig(storage_url=url, auto_create=True)
    lines = export.read_text().splitlines()
    header = lines[0]
    rows = [json.loads(line.rstrip(",")) for line in lines[1:] if line.startswith("{")]
    for cp in checkpoints:
        b = Benchmark.load(cp)
        b.save_to_db(url)
        qids = b.get_question_ids()
        mine = []
        for i, r in enumerate(rows):
            r = json.loads(json.dumps(r))
            r["metadata"]["question_id"] = qids[i % len(qids)]
            mine.append(r)
        target = out / "exports" / f"res-{cp.stem}.json"
        with target.open("w") as f:
            f.write(header + "\n")
            f.write(",\n".join(json.dumps(r) for r in mine) + "\n]}\n")
        data = json.loads(target.read_text())
        import_verification_results(data, config, b.name, run_name=target.stem, source_filename=target.name)
    print(len(checkpoints))


if __name__ == "__main__":
    main()
