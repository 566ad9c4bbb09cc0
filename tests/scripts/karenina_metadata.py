"""Question metadata as Karenina reads it (the oracle of kld's structured
question metadata).

For each checkpoint given, `Benchmark.load` it and
- ask `get_questions_by_author(needle)` (a case-insensitive substring of the
  author's name) for every author name Karenina reads from the file, the
  first word of each name, and a name nobody has: one JSON line per
  (file, needle), {"file", "needle", "count"};
- read each question's `custom_metadata`: one JSON line per entry,
  {"file", "qid", "key", "value"}.
A file Karenina cannot load or search prints {"file", "error"}.
Run with the Karenina venv's python:  python karenina_metadata.py FILE...
"""

import json
import logging
import sys
import warnings

logging.disable(logging.CRITICAL)
warnings.simplefilter("ignore")

from karenina.benchmark import Benchmark  # noqa: E402


def main() -> None:
    for path in sys.argv[1:]:
        try:
            b = Benchmark.load(path)
            names = set()
            for q in b.get_all_questions(ids_only=False):
                a = b.get_question_author(q["id"])
                if isinstance(a, dict) and isinstance(a.get("name"), str):
                    names.add(a["name"])
            needles = set(names) | {n.split()[0].lower() for n in names if n.split()}
            needles.add("nobody-writes-this")
            rows = [(n, len(b.get_questions_by_author(n))) for n in sorted(needles)]
            custom = [
                (q["id"], k, v)
                for q in b.get_all_questions(ids_only=False)
                for k, v in (b.get_question(q["id"]).get("custom_metadata") or {}).items()
            ]
        except Exception as e:  # noqa: BLE001 - reported, the test decides
            print(json.dumps({"file": path, "error": f"{type(e).__name__}: {e}"}))
            continue
        for needle, count in rows:
            print(json.dumps({"file": path, "needle": needle, "count": count}))
        for qid, key, value in custom:
            print(json.dumps({"file": path, "qid": qid, "key": key, "value": value}))


if __name__ == "__main__":
    main()
