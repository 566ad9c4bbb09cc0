"""Karenina's side of the `kld find` differential test (crates/cli/tests/cli/find.rs).

Loads each checkpoint with Karenina's own `Benchmark.load`, then searches,
with Python's `re`, the values Karenina's accessors give for the fields
`kld find` documents (docs/usage.md): the question, `raw_answer`,
`answer_template`, the question's and the global rubric traits (name,
description, summary, regex pattern, literal classes, metric
instructions), and the metadata (keywords, author, sources, custom
metadata, few-shot examples, answer notes, workspace path; the
benchmark's name, description, version, creator and custom properties).

Usage: python karenina_find.py OUT.json PATTERN... -- FILE...
Writes {file: {pattern: [question IDs, "(benchmark)" for the benchmark's
own values]}}. A scenario node's question counts by its Question.id.
"""

import json
import re
import sys

from karenina import Benchmark

TRAIT_KINDS = ("llm_traits", "regex_traits", "callable_traits", "metric_traits", "agentic_traits")


def leaves(v):
    """The keys and scalars of a JSON value, as `kld find` searches them."""
    if v is None:
        return
    if isinstance(v, bool):
        yield "true" if v else "false"
    elif isinstance(v, (int, float)):
        yield json.dumps(v)
    elif isinstance(v, str):
        yield v
    elif isinstance(v, list):
        for x in v:
            yield from leaves(x)
    elif isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from leaves(x)


def trait_texts(t):
    # A trait object, or (a scenario node's question rubric) its dict.
    get = t.get if isinstance(t, dict) else (lambda a: getattr(t, a, None))
    yield get("name")
    if get("description"):
        yield get("description")
    for attr in ("summary", "pattern", "classes", "tp_instructions", "tn_instructions"):
        yield from leaves(get(attr))


def rubric_texts(rubric):
    if rubric is None:
        return
    for kind in TRAIT_KINDS:
        items = rubric.get(kind, []) if isinstance(rubric, dict) else getattr(rubric, kind, [])
        for t in items or []:
            yield from trait_texts(t)


def question_texts(q):
    yield q["question"]
    yield q["raw_answer"]
    yield q["answer_template"] or ""
    yield from rubric_texts(q.get("question_rubric"))
    yield from leaves(q.get("keywords"))
    # Karenina parses author, sources and few-shot examples out of the JSON
    # strings the file holds; the file's strings are json.dumps of them.
    for key in ("author", "sources", "few_shot_examples"):
        if q.get(key) is not None:
            yield json.dumps(q[key])
    yield from leaves(q.get("custom_metadata"))
    for key in ("answer_notes", "workspace_path"):
        yield from leaves(q.get(key))


def node_texts(q):
    """A scenario node's Question (what Karenina loads: its questionData)."""
    d = q.model_dump(mode="json")
    yield d["question"]
    yield d["raw_answer"]
    yield d["answer_template"] or ""
    yield from rubric_texts(q.question_rubric)
    for key in ("keywords", "author", "sources", "few_shot_examples", "custom_metadata",
                "answer_notes", "workspace_path"):
        yield from leaves(d.get(key))


def benchmark_texts(b):
    for v in (b.name, b.description, b.version, b.creator):
        yield from leaves(v)
    yield from leaves(b.get_all_custom_properties())
    yield from rubric_texts(b.get_global_rubric())
    # Dynamic traits (Karenina keeps them apart from the static rubric).
    yield from rubric_texts(b.get_global_dynamic_rubric())


def main():
    out = sys.argv[1]
    sep = sys.argv.index("--")
    patterns, files = sys.argv[2:sep], sys.argv[sep + 1 :]
    found = {}
    for f in files:
        b = Benchmark.load(f)
        per = {p: [] for p in patterns}
        texts = [("(benchmark)", list(benchmark_texts(b)))]
        texts += [(q["id"], list(question_texts(q))) for q in b.get_all_questions(ids_only=False)]
        # Scenario nodes' questions, by Karenina's Question.id.
        texts += [(n.question.id, list(node_texts(n.question)))
                  for s in b.get_scenarios() for n in s.nodes.values()]
        for p in patterns:
            rx = re.compile(p)
            for who, values in texts:
                if any(rx.search(v) for v in values if isinstance(v, str)):
                    per[p].append(who)
        found[f] = per
    with open(out, "w") as fh:
        json.dump(found, fh, indent=1)


if __name__ == "__main__":
    main()
