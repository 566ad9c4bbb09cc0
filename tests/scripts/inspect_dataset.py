"""Reads Inspect JSONL files with inspect_ai.dataset.json_dataset and prints,
for each file in order, its samples as JSON: [[{"id", "input", "target",
"metadata"}, ...], ...] (one interpreter for all: inspect_ai is slow to import)."""
import json
import sys

from inspect_ai.dataset import json_dataset

print(json.dumps([
    [
        {"id": s.id, "input": s.input, "target": s.target, "metadata": s.metadata}
        for s in json_dataset(f)
    ]
    for f in sys.argv[1:]
]))
