"""karenina-ld for Python: Karenina benchmark checkpoints and verification
results as linked data, with answers as Python values and pandas DataFrames.

>>> import karenina_ld as kld
>>> store = kld.Store(["benchmarks/", "runs/"])
>>> store.query_named("pass-rate-by-benchmark").to_frame()

The core is the karenina-ld Rust library (the same code as the ``kld``
command, which this package also installs).
"""

from __future__ import annotations

from ._errors import (
    InvalidFileError,
    JsonSyntaxError,
    KldError,
    QueryError,
    QuerySyntaxError,
    QueryTimeoutError,
    ResultTooLargeError,
)
from ._native import (
    Checkpoint,
    Diagnostic,
    Preset,
    Results,
    Solutions,
    Store,
    Triples,
    __version__,
    question_id,
    queries,
    query_text,
    validate,
)

__all__ = [
    "Checkpoint",
    "Diagnostic",
    "InvalidFileError",
    "JsonSyntaxError",
    "KldError",
    "Preset",
    "QueryError",
    "QuerySyntaxError",
    "QueryTimeoutError",
    "Results",
    "ResultTooLargeError",
    "Solutions",
    "Store",
    "Triples",
    "__version__",
    "question_id",
    "queries",
    "query_text",
    "validate",
]
