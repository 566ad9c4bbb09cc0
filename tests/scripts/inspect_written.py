"""Inspect AI datasets written by Inspect AI itself, for `kld import --format
inspect` (issue 37):

    python3 inspect_written.py OUT_DIR

writes into OUT_DIR
- the dataset files inspect_ai ships (`inspect_ai/dataset/_examples`:
  theory_of_mind.jsonl and security_guide.jsonl: chat-message inputs, string
  targets, no ids), copied as they are;
- written.jsonl: theory_of_mind's samples as `json_dataset` reads them, given
  ids and metadata, serialized by Inspect's own `Sample` model
  (`model_dump_json(exclude_none=True)`, one a line);
and prints, for each file in that order, the samples as inspect_ai reads them
back with `json_dataset`: {"file": NAME, "samples": [{"id", "input", "target"}]}
where `input` is the messages' text joined by newlines (a string input as is)
and `target` a string (a list target joined by newlines).
"""

import json
import os
import shutil
import sys

import inspect_ai
from inspect_ai.dataset import Sample, json_dataset

EXAMPLES = os.path.join(os.path.dirname(inspect_ai.__file__), "dataset", "_examples")


def text_of(value):
    if isinstance(value, str):
        return value
    return "\n".join(m.text if hasattr(m, "text") else str(m) for m in value)


def main() -> None:
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    names = ["theory_of_mind.jsonl", "security_guide.jsonl"]
    for n in names:
        shutil.copyfile(os.path.join(EXAMPLES, n), os.path.join(out, n))
    with open(os.path.join(out, "written.jsonl"), "w", encoding="utf-8") as f:
        for i, s in enumerate(json_dataset(os.path.join(EXAMPLES, "theory_of_mind.jsonl"))):
            written = Sample(input=s.input, target=s.target, id=f"tom-{i:03d}",
                             metadata={"source": "theory_of_mind", "index": i})
            f.write(written.model_dump_json(exclude_none=True) + "\n")
    names.append("written.jsonl")
    print(json.dumps([
        {"file": n, "samples": [
            {"id": s.id, "input": text_of(s.input),
             "target": s.target if isinstance(s.target, str) else "\n".join(s.target)}
            for s in json_dataset(os.path.join(out, n))
        ]}
        for n in names
    ], ensure_ascii=False))


if __name__ == "__main__":
    main()
