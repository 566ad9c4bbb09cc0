"""karenina_ld's exceptions: one hierarchy under :class:`KldError`, each
also a subclass of the built-in exception a Python user expects."""

from __future__ import annotations


class KldError(Exception):
    """Base class of every error karenina_ld raises (besides ``OSError``
    for I/O and ``ValueError``/``TypeError`` for bad arguments)."""


class JsonSyntaxError(KldError, SyntaxError):
    """A file that is not JSON (truncated, not UTF-8, empty, duplicate key):
    ``filename``, ``lineno`` and ``offset`` (the column) locate it;
    ``diagnostics`` lists what the reader found."""

    diagnostics: list


class InvalidFileError(KldError, ValueError):
    """A checkpoint, results export or preset that Karenina would refuse;
    ``diagnostics`` lists every problem, located."""

    diagnostics: list


class WrongKindError(KldError, ValueError):
    """A Karenina file given to the loader of another kind (a results export
    to ``Checkpoint.load``): ``kind`` says what it is (``"results"``,
    ``"checkpoint"``, ``"preset"``), ``filename`` where it is, and the
    message which loader reads it."""

    kind: str
    filename: str


class QuerySyntaxError(KldError, SyntaxError):
    """A SPARQL syntax error: ``lineno`` and ``offset`` are the line and
    column in the query; ``text`` is that line."""


class QueryError(KldError, ValueError):
    """A query refused before it ran (an UPDATE, too deeply nested, a result
    format that does not fit its form)."""


class QueryTimeoutError(KldError, TimeoutError):
    """A query stopped at its time limit (``timeout=`` seconds)."""


class ResultTooLargeError(KldError):
    """A query's answer grew past ``max_result_bytes``."""


__all__ = [
    "KldError",
    "JsonSyntaxError",
    "InvalidFileError",
    "WrongKindError",
    "QuerySyntaxError",
    "QueryError",
    "QueryTimeoutError",
    "ResultTooLargeError",
]
