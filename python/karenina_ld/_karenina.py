"""Glue to Karenina's own classes (imported only when used: Karenina is an
optional dependency)."""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path
from typing import Any


def benchmark_bytes(benchmark: Any) -> bytes:
    """The JSON a ``karenina.Benchmark``'s ``save()`` writes, without its
    side effects: ``dateModified`` is left as it is and deep-judgment
    settings are kept (``save()`` updates the one and strips the other)."""
    from karenina.schemas.checkpoint import SCHEMA_ORG_CONTEXT  # type: ignore[import-not-found]

    base = getattr(benchmark, "_base", benchmark)
    checkpoint = copy.deepcopy(base._checkpoint)
    checkpoint.context = SCHEMA_ORG_CONTEXT
    # As save(): keywords move from the DataFeedItem to its Question.
    for item in checkpoint.dataFeedElement:
        if item.keywords and not item.item.keywords:
            item.item.keywords = item.keywords
        item.keywords = None
    data = checkpoint.model_dump(by_alias=True, exclude_none=True)
    return json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8")


def to_benchmark(data: bytes) -> Any:
    """A ``karenina.Benchmark`` loaded from checkpoint bytes."""
    from karenina import Benchmark  # type: ignore[import-not-found]

    with tempfile.TemporaryDirectory(prefix="karenina-ld-") as d:
        path = Path(d) / "checkpoint.jsonld"
        path.write_bytes(data)
        return Benchmark.load(path)
