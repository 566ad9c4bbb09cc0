"""Mutated checkpoints judged by Karenina itself (the oracle of `kld validate`).

Builds one base checkpoint with Karenina's own API (every trait family, global
and question-specific, a dynamic rubric), saves it, then writes N mutated
copies to OUT (deterministic by --seed): property values of other types and
out of range, missing and extra properties and fields at every level, other
trait kinds and trait types, regexes, and agentic traits' `model_override`
(Karenina's `ModelConfig`, which forbids unknown fields, with its nested
models) at every level agentic traits live: global, question, dynamic.
Each file is judged in this one process:

- "error": `Benchmark.load` raises;
- "later": it loads, but reading a rubric as verification does raises
  (`get_global_rubric`, `get_global_dynamic_rubric`,
  `get_merged_rubric_for_question` for every question);
- "ok": neither raises.

Writes OUT/verdicts.jsonl: {"file", "mutation", "verdict", "error"}.
Run with the Karenina venv's python:  python karenina_judge.py OUT [--seed S] [--cases N]
"""

import argparse
import copy
import json
import logging
import random
import sys
import warnings
from pathlib import Path

logging.disable(logging.CRITICAL)
warnings.simplefilter("ignore")

from karenina.benchmark import Benchmark  # noqa: E402
from karenina.schemas.entities import (  # noqa: E402
    CallableRubricTrait,
    LLMRubricTrait,
    MetricRubricTrait,
    RegexRubricTrait,
)
from karenina.schemas.config.models import ModelConfig  # noqa: E402
from karenina.schemas.entities.rubric import AgenticRubricTrait, DynamicRubric  # noqa: E402


def is_long(text: str) -> bool:
    return len(text) > 20


def base_checkpoint(tmp: Path) -> dict:
    b = Benchmark.create(name="mutants", description="d", version="1.0.0")
    q1 = b.add_question("What is 2 plus 2?", "4")
    q2 = b.add_question("Name a prime.", "7")
    traits = [
        LLMRubricTrait(name="clear", description="d", kind="boolean"),
        LLMRubricTrait(name="depth", description="d", kind="score", min_score=1, max_score=5),
        LLMRubricTrait(name="tone", description="d", kind="literal", classes={"formal": "f", "casual": "c"}),
        RegexRubricTrait(name="has_number", description="d", pattern=r"\d+"),
        CallableRubricTrait.from_callable(name="long", func=is_long, kind="boolean", description="d"),
        MetricRubricTrait(name="cover", description="d", metrics=["precision", "recall"], tp_instructions=["x"]),
        AgenticRubricTrait(name="agent", description="d", kind="score", higher_is_better=True),
    ]
    for t in traits:
        b.add_global_rubric_trait(t.model_copy(update={"name": "g_" + t.name}))
        b.add_question_rubric_trait(q1, t.model_copy(update={"name": "q_" + t.name}))
    b.add_question_rubric_trait(q2, LLMRubricTrait(name="q_only", description="d", kind="score"))
    override = ModelConfig(id="judge", model_name="m", interface="claude_agent_sdk")
    b.add_global_rubric_trait(
        AgenticRubricTrait(name="g_agent_model", description="d", kind="boolean", model_override=override))
    b.add_question_rubric_trait(
        q2, AgenticRubricTrait(name="q_agent_model", description="d", kind="boolean", model_override=override))
    b.set_global_dynamic_rubric(
        DynamicRubric(
            llm_traits=[LLMRubricTrait(name="d_llm", description="d", kind="boolean", summary="s")],
            regex_traits=[RegexRubricTrait(name="d_regex", description="d", pattern="a+", summary="s")],
            agentic_traits=[AgenticRubricTrait(name="d_agent", description="d", kind="boolean", summary="s",
                                               model_override=override)],
        )
    )
    path = tmp / "base.jsonld"
    b.save(path)
    return json.loads(path.read_text())


VALUES = [
    "one", "3", " 3 ", "3.0", "3.5", 3, 3.0, 3.5, 5.5, 0, 1, 2, -1, 1.0, 0.0, 10**20, 1e300,
    True, False, "true", "false", "yes", "no", "maybe", "1", "0", "", None, [], {},
    ["a", "b"], {"a": "x", "b": "y"}, {"a": "x"}, {"a": 1, "b": 2}, {"a": "x", "A": "y"}, {"a": "", "b": "y"},
    '{"a": "x", "b": "y"}', '["precision"]', "not json", ["precision"], ["precision", "specificity"], ["bogus"],
    "boolean", "score", "literal", "template", {"type": "template"}, "tp_only", "full_matrix",
    "trace_only", "workspace_only", "llm", "regex", "callable", "metric", "agentic", "QUJD", "not base64!",
]
PATTERNS = [r"\d+", r"abc\Z", r"\N{EM DASH}", r"(?P<n>a)(?P=n)", r"\p{L}+", r"(?<n>a)", r"\h", r"(?<=a+)b",
            r"[a-", r"a{2,1}", r"(?i)x", r"x(?i)", r"\1", r"(a)\1", "", "*"]
PROP_NAMES = ["min_score", "max_score", "higher_is_better", "kind", "classes", "pattern", "case_sensitive",
              "invert_result", "callable_code", "metrics", "tp_instructions", "tn_instructions",
              "evaluation_mode", "repeated_extraction", "context_mode", "max_turns", "timeout_seconds",
              "materialize_trace", "persist_trace", "deep_judgment_enabled", "deep_judgment_max_excerpts",
              "deep_judgment_fuzzy_match_threshold", "deep_judgment_excerpt_retry_attempts",
              "deep_judgment_search_enabled", "deep_judgment_excerpt_enabled", "summary",
              "dynamic_trait_type", "unknown_property"]
TYPES = ["GlobalRubricTrait", "GlobalLLMRubricTrait", "GlobalRegexTrait", "GlobalCallableTrait",
         "GlobalMetricRubricTrait", "GlobalAgenticRubricTrait", "GlobalDynamicRubricTrait"]


# `model_override` values: a valid agent model, with fields changed, added or dropped.
AGENT_MODEL = {"id": "judge", "model_name": "m", "interface": "claude_agent_sdk"}
OVERRIDE_FIELDS = [
    ("interface", ["claude_agent_sdk", "langchain_deep_agents", "langchain", "manual", "openrouter",
                   "claude_tool", "bogus", 1, None]),
    ("id", ["x", None, 1]), ("model_name", ["m", None, ""]), ("model_provider", ["anthropic", "openai", None, 3]),
    ("temperature", [0.5, "0.5", "hot", True, None, 2]), ("max_tokens", [100, "100", 3.5, None, "x"]),
    ("max_retries", [0, -1, 2.0, "two"]), ("system_prompt", ["s", None, 5]),
    ("mcp_urls_dict", [{"a": "http://x"}, {"a": 1}, "http://x", None, {}]),
    ("mcp_tool_filter", [["a"], "a", [1], None]), ("mcp_tool_description_overrides", [{"a": "b"}, ["a"]]),
    ("mcp_http_timeout", [1.5, "x", None]), ("mcp_sse_read_timeout", [10, [1]]),
    ("endpoint_base_url", ["http://x", 1]), ("endpoint_api_key", ["k", 1, None]),
    ("anthropic_base_url", ["http://x", None]), ("anthropic_api_key", ["k", None, 2]),
    ("agent_runtime", [{}, {"backend": "docker"}, {"backend": "podman"}, {"extra": 1}, "docker", None,
                       {"read_max_bytes": 0}, {"read_max_bytes": 10}, {"container_add_hosts": ["h"]},
                       {"container_add_hosts": "h"}, {"access_mode": "read_only", "sandbox_enabled": "no"}]),
    ("extra_kwargs", [{"x": 1}, {"api_key": "k"}, {"base_url": None}, "x", None]),
    ("manual_traces", [None, True, {"a": 1}]),
    ("agent_middleware", [{}, None, {"limits": {"model_call_limit": 0}}, {"limits": {"exit_behavior": "stop"}},
                          {"limits": {"tool_call_limit": 5}}, {"summarization": {"trigger_fraction": 1.5}},
                          {"summarization": {"model": "m", "keep_messages": 3}}, {"model_retry": {"jitter": "x"}},
                          {"tool_retry": {"on_failure": "continue"}}, {"prompt_caching": {"ttl": "1h"}},
                          {"bogus": {}}, []]),
    ("max_context_tokens", [1000, "x", None]), ("agent_timeout", [60, 1.5]), ("request_timeout", [30, "soon"]),
    ("retry_policy", [{}, None, {"timeout": {"max_attempts": -1}}, {"timeout": {"max_attempts": 2}},
                      {"connection": {"bogus": 1}}, {"timeout_escalation": {"strategy": "linear"}},
                      {"timeout_escalation": {"strategy": "linear", "max_timeout": 60}},
                      {"timeout_escalation": {"strategy": "additive"}},
                      {"timeout_escalation": {"strategy": "additive", "increment": 5}},
                      {"rate_limit": {"backoff_multiplier": 0.5}}, "retry"]),
    ("colour", ["red"]), ("answering_model", [{}]),
]
OVERRIDE_OTHER = ["claude", None, [], 3, {}, True]


def override_value(rng):
    """A `model_override` value: mostly the valid agent model with one to three fields changed."""
    if rng.random() < 0.1:
        return copy.deepcopy(rng.choice(OVERRIDE_OTHER))
    v = dict(AGENT_MODEL)
    for _ in range(rng.choice([1, 1, 2, 3])):
        if rng.random() < 0.15:
            v.pop(rng.choice(list(AGENT_MODEL)), None)
        else:
            field, values = rng.choice(OVERRIDE_FIELDS)
            v[field] = copy.deepcopy(rng.choice(values))
    return v


def agentic(r):
    """Whether Karenina reads the rating as an agentic trait."""
    props = [p for p in r.get("additionalProperty") or [] if isinstance(p, dict)]
    return "Agentic" in str(r.get("additionalType")) or any(
        p.get("name") == "dynamic_trait_type" and p.get("value") == "agentic" for p in props)


def dicts(xs):
    return [x for x in xs if isinstance(x, dict)] if isinstance(xs, list) else []


def ratings(cp):
    """(container, index, scope) for every rating still an object (an earlier
    mutation may have broken the structure)."""
    out = []
    if isinstance(cp.get("rating"), list):
        out += [(cp["rating"], i, "global") for i, r in enumerate(cp["rating"]) if isinstance(r, dict)]
    for item in dicts(cp.get("dataFeedElement")):
        q = item.get("item")
        rs = q.get("rating") if isinstance(q, dict) else None
        if isinstance(rs, list):
            out += [(rs, i, "question") for i, r in enumerate(rs) if isinstance(r, dict)]
    return out


def set_or_drop(obj, field, rng):
    """Sets obj[field] to a random value or removes it; returns what was done."""
    value = copy.deepcopy(rng.choice(VALUES + ["<missing>"]))
    if value == "<missing>":
        obj.pop(field, None)
    else:
        obj[field] = value
    return value


def mutate(cp, rng):
    """Applies one mutation; returns its description."""
    kind = rng.choice(["prop_value"] * 6 + ["prop_remove", "prop_add", "rating_field", "type", "regex",
                                            "kind", "object_field", "dup_prop", "question_prop"]
                      + ["model_override"] * 3)
    if kind == "model_override":
        agents = [(rs, i, scope) for rs, i, scope in ratings(cp) if agentic(rs[i])]
        if agents:
            rs, i, scope = rng.choice(agents)
            r = rs[i]
            if "Dynamic" in str(r.get("additionalType")):
                scope = "dynamic"
            props = [p for p in r.get("additionalProperty") or [] if isinstance(p, dict)]
            value = override_value(rng)
            if rng.random() < 0.1:
                # A second model_override: the converter builds every object-valued one.
                props.append({"@type": "PropertyValue", "name": "model_override", "value": value})
                how = "add"
            else:
                props = [p for p in props if p.get("name") != "model_override"]
                props.append({"@type": "PropertyValue", "name": "model_override", "value": value})
                how = "set"
            r["additionalProperty"] = props
            return f"{scope} {r.get('name')}: model_override {how} {json.dumps(value)}"
    if kind == "question_prop":
        items = dicts(cp.get("dataFeedElement"))
        q = rng.choice(items).get("item") if items else None
        if isinstance(q, dict):
            qprops = q.get("additionalProperty")
            if not isinstance(qprops, list):
                qprops = q["additionalProperty"] = []
            name = rng.choice(["finished", "author", "sources", "few_shot_examples", "answer_notes",
                               "workspace_path", "custom_x", "custom_custom_y", "other"])
            value = copy.deepcopy(rng.choice(VALUES + ['{"name": "A"}', '[{"title": "t"}]']))
            qprops.append({"@type": "PropertyValue", "name": name, "value": value})
            return f"question property {name} = {json.dumps(value)}"
    candidates = ratings(cp)
    if not candidates:
        return "no rating left"
    rs, i, scope = rng.choice(candidates)
    r = rs[i]
    props = r.get("additionalProperty")
    if not isinstance(props, list):
        props = []
    r["additionalProperty"] = props = [p for p in props if isinstance(p, dict)]
    if kind == "prop_value" and props:
        p = rng.choice(props)
        p["value"] = copy.deepcopy(rng.choice(VALUES))
        return f"{scope} {r['name']}: {p['name']} = {json.dumps(p['value'])}"
    if kind == "prop_remove" and props:
        p = props.pop(rng.randrange(len(props)))
        return f"{scope} {r['name']}: remove {p['name']}"
    if kind in ("prop_add", "prop_value", "prop_remove"):
        name = rng.choice(PROP_NAMES)
        value = copy.deepcopy(rng.choice(VALUES))
        props.append({"@type": "PropertyValue", "name": name, "value": value})
        return f"{scope} {r['name']}: add {name} = {json.dumps(value)}"
    if kind == "dup_prop" and props:
        p = copy.deepcopy(rng.choice(props))
        p["value"] = copy.deepcopy(rng.choice(VALUES))
        props.append(p)
        return f"{scope} {r['name']}: repeat {p['name']} = {json.dumps(p['value'])}"
    if kind == "rating_field":
        field = rng.choice(["name", "description", "bestRating", "worstRating", "ratingValue", "ratingExplanation",
                            "@id", "@type", "extra"])
        value = set_or_drop(r, field, rng)
        return f"{scope} {r['name'] if isinstance(r.get('name'), str) else '?'}: {field} = {json.dumps(value)}"
    if kind == "type":
        t = rng.choice(TYPES)
        if scope == "question" or rng.random() < 0.2:
            t = t.replace("Global", "QuestionSpecific")
        r["additionalType"] = "karenina:" + t
        return f"{scope} {r['name']}: additionalType = {t}"
    if kind == "regex":
        r["additionalType"] = r["additionalType"].rsplit(":", 1)[0] + ":" + (
            "GlobalRegexTrait" if scope == "global" else "QuestionSpecificRegexTrait")
        pat = rng.choice(PATTERNS)
        r["additionalProperty"] = [p for p in props if p["name"] != "pattern"] + [
            {"@type": "PropertyValue", "name": "pattern", "value": pat}]
        return f"{scope} {r['name']}: regex {pat!r}"
    if kind == "kind":
        value = rng.choice(["boolean", "score", "literal", "bogus", {"type": "template"}, 1])
        extra = []
        if value == "literal" and rng.random() < 0.5:
            extra = [{"@type": "PropertyValue", "name": "classes",
                      "value": rng.choice([["a", "b"], {"a": "x", "b": "y"}, '{"a": "x", "b": "y"}', {"a": "x"}])}]
        r["additionalProperty"] = [p for p in props if p["name"] not in ("kind", "classes")] + [
            {"@type": "PropertyValue", "name": "kind", "value": value}] + extra
        return f"{scope} {r['name']}: kind = {json.dumps(value)} {json.dumps(extra)}"
    # object_field: another level of the checkpoint
    target = rng.choice(["root", "item", "question", "answer", "code", "prop"])
    items = dicts(cp.get("dataFeedElement")) or [{}]
    item = rng.choice(items)
    question = item.get("item") if isinstance(item.get("item"), dict) else {}
    obj = {"root": cp, "item": item, "question": question, "answer": question.get("acceptedAnswer"),
           "code": question.get("hasPart"), "prop": rng.choice(props) if props else cp}[target]
    if not isinstance(obj, dict):
        obj = cp
    field = rng.choice(list(obj.keys()) + ["extraField"])
    value = set_or_drop(obj, field, rng)
    return f"{target}: {field} = {json.dumps(value)}"


def judge(path: Path):
    try:
        b = Benchmark.load(path)
    except BaseException as e:  # noqa: BLE001 - any exception is a refusal
        return "error", f"{type(e).__name__}: {e}"[:300]
    steps = [("get_global_rubric", b.get_global_rubric), ("get_global_dynamic_rubric", b.get_global_dynamic_rubric)]
    steps += [(f"get_merged_rubric_for_question({q})", lambda q=q: b._get_merged_rubric_for_question(q))
              for q in b.get_question_ids()]
    for name, step in steps:
        try:
            step()
        except BaseException as e:  # noqa: BLE001
            return "later", f"{name}: {type(e).__name__}: {e}"[:300]
    return "ok", None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--cases", type=int, default=2000)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    base = base_checkpoint(a.out)
    (a.out / "base.jsonld").unlink()
    rng = random.Random(a.seed)
    with open(a.out / "verdicts.jsonl", "w") as v:
        for n in range(a.cases + 1):
            cp = copy.deepcopy(base)
            what = ["base"] if n == 0 else [mutate(cp, rng) for _ in range(1 if rng.random() < 0.8 else 2)]
            name = f"case{n:05}.jsonld"
            (a.out / name).write_text(json.dumps(cp, indent=2, ensure_ascii=False))
            verdict, error = judge(a.out / name)
            v.write(json.dumps({"file": name, "mutation": "; ".join(what), "verdict": verdict, "error": error}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
