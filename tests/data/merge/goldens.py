"""Writes the expected results of crates/cli/tests/cli/git_merge.rs: base.jsonld with
each scenario's hand-written "expected" edits, in Karenina's bytes (Python's
json.dump, indent=2, ensure_ascii=False, no final newline: what
Benchmark.save() writes); for the preset scenario, preset.base.json (a preset
Karenina saved) with its edits, ASCII-escaped as save_preset writes.
Run from this folder: python3 goldens.py"""
import json


def walk(doc, path):
    for p in path[:-1]:
        doc = doc[p]
    return doc, path[-1]


def apply(doc, op):
    parent, last = walk(doc, op["path"])
    if op["op"] == "set" and "before" in op and last not in parent:
        # A new member, in Karenina's member order.
        items = list(parent.items())
        at = [k for k, _ in items].index(op["before"])
        items.insert(at, (last, op["value"]))
        parent.clear()
        parent.update(items)
    elif op["op"] == "set":
        parent[last] = op["value"]
    elif op["op"] == "remove":
        del parent[last]
    elif op["op"] == "append":
        parent[last].append(op["value"])
    elif op["op"] == "move":
        xs = parent[last]
        xs.insert(op["to"], xs.pop(op["from"]))


scenarios = json.load(open("scenarios.json"))
for name, s in scenarios.items():
    preset = s.get("base") == "preset.base.json"
    doc = json.load(open(s["base"] if preset else "base.jsonld"))
    for op in s["expected"]:
        apply(doc, op)
    ext = "json" if preset else "jsonld"
    with open(f"{name}.expected.{ext}", "w") as f:
        json.dump(doc, f, indent=2, ensure_ascii=preset)
