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
    WrongKindError,
)
from ._native import (
    Checkpoint,
    Comparison,
    Diagnostic,
    Preset,
    Results,
    Solutions,
    Store,
    Triples,
    __version__,
    compare,
    import_questions,
    question_id,
    queries,
    query_text,
    rate_names,
    validate,
)



class IRI(str):
    """An IRI as a query parameter's value (``store.query_named(name,
    graph=IRI("file:///…"))``); a plain str that is an absolute IRI matches
    the IRI too, so this is needed only where that would be ambiguous."""

    __slots__ = ()


__all__ = [
    "IRI",
    "Checkpoint",
    "Comparison",
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
    "WrongKindError",
    "__version__",
    "compare",
    "rate_names",
    "question_id",
    "queries",
    "query_text",
    "validate",
    "import_questions",
]
