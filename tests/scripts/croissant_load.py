"""Validates Croissant files with mlcroissant and loads their record sets.

Prints, for each file in order, {"issues": [...errors...], "sets": {record
set: [record, ...]}, "license": [URL or {name, description}, ...]}, text
values decoded from the bytes mlcroissant gives.
"""
import json
import sys

import mlcroissant as mlc


def plain(v):
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if hasattr(v, "tolist"):
        return plain(v.tolist())
    return v


out = []
for f in sys.argv[1:]:
    ds = mlc.Dataset(jsonld=f)  # raises on validation errors
    errors = list(ds.metadata.ctx.issues.errors)
    sets = {}
    for rs in ds.metadata.record_sets:
        sets[rs.name] = [
            {k.split("/", 1)[-1]: plain(v) for k, v in r.items()}
            for r in ds.records(record_set=rs.uuid)
        ]
    licenses = [
        l if isinstance(l, str) else {"name": l.name, "description": l.description}
        for l in ds.metadata.license or []
    ]
    out.append({"issues": errors, "sets": sets, "license": licenses})
print(json.dumps(out))
