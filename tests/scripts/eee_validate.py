"""Validates Every Eval Ever files against the pinned JSON Schemas
(tests/data/eee, from every-eval-ever 0.3.0) with jsonschema.

Usage: eee_validate.py SCHEMA_DIR FILE...; .json files are aggregates,
.jsonl files instance rows. Prints {"errors": [...], "aggregates": {path:
document}} as JSON (errors empty when every file is valid).
"""
import json
import pathlib
import sys

import jsonschema

schemas = pathlib.Path(sys.argv[1])
agg = json.loads((schemas / "eval.schema.json").read_text())
inst = json.loads((schemas / "instance_level_eval.schema.json").read_text())
av = jsonschema.Draft7Validator(agg)
iv = jsonschema.Draft7Validator(inst)
errors, aggregates = [], {}
for f in sys.argv[2:]:
    text = pathlib.Path(f).read_text(encoding="utf-8")
    if f.endswith(".jsonl"):
        for n, line in enumerate(text.split("\n")):
            if line:
                errors += [f"{f}:{n + 1}: {e.message}" for e in iv.iter_errors(json.loads(line))]
    else:
        doc = json.loads(text)
        errors += [f"{f}: {e.message}" for e in av.iter_errors(doc)]
        aggregates[f] = doc
print(json.dumps({"errors": errors, "aggregates": aggregates}))
