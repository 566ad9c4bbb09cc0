"""Type stubs of the extension module (checked by mypy's stubtest)."""

import datetime
import decimal
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, final, overload

import pandas

_Path = str | os.PathLike[str]
_Paths = _Path | Sequence[_Path]
_Param = str | int | float | bool | decimal.Decimal | datetime.datetime | datetime.date

__version__: str
__all__ = [
    "__version__",
    "Checkpoint",
    "Comparison",
    "Diagnostic",
    "Preset",
    "Results",
    "Solutions",
    "Store",
    "Triples",
    "main",
    "question_id",
    "queries",
    "query_text",
    "validate",
    "import_questions",
    "compare",
    "rate_names",
]

def main(argv: Sequence[str]) -> int: ...
def question_id(text: str) -> str: ...
def queries() -> list[tuple[str, str]]: ...
def query_text(name: str) -> str: ...
def validate(paths: _Paths, *, strict: bool = False) -> list[Diagnostic]: ...
@overload
def import_questions(
    paths: _Paths,
    *,
    question_column: str | None = None,
    answer_column: str | None = None,
    sheet_name: str | None = None,
    format: str | None = None,
    author_name_column: str | None = None,
    author_email_column: str | None = None,
    author_affiliation_column: str | None = None,
    url_column: str | None = None,
    keywords_columns: list[str | dict[str, str]] | None = None,
    answer_notes_column: str | None = None,
    custom_metadata_columns: list[str] | None = None,
    into: Checkpoint | None = None,
    name: str | None = None,
    description: str | None = None,
    version: str | None = None,
    creator: str | None = None,
    dry_run: Literal[False] = False,
) -> Checkpoint: ...
@overload
def import_questions(
    paths: _Paths,
    *,
    question_column: str | None = None,
    answer_column: str | None = None,
    sheet_name: str | None = None,
    format: str | None = None,
    author_name_column: str | None = None,
    author_email_column: str | None = None,
    author_affiliation_column: str | None = None,
    url_column: str | None = None,
    keywords_columns: list[str | dict[str, str]] | None = None,
    answer_notes_column: str | None = None,
    custom_metadata_columns: list[str] | None = None,
    into: Checkpoint | None = None,
    name: str | None = None,
    description: str | None = None,
    version: str | None = None,
    creator: str | None = None,
    dry_run: Literal[True],
) -> dict[str, Any]: ...
@final
class Diagnostic:
    @property
    def code(self) -> str: ...
    @property
    def severity(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def file(self) -> str: ...
    @property
    def line(self) -> int | None: ...
    @property
    def column(self) -> int | None: ...
    @property
    def json_path(self) -> str: ...
    @property
    def rendered(self) -> str: ...
    @property
    def is_error(self) -> bool: ...

@final
class Checkpoint:
    @staticmethod
    def load(path: _Path, *, upgrade: bool = False) -> Checkpoint: ...
    @staticmethod
    def from_bytes(data: bytes, *, name: str = "<bytes>", upgrade: bool = False) -> Checkpoint: ...
    @staticmethod
    def from_benchmark(benchmark: Any) -> Checkpoint: ...
    def to_benchmark(self) -> Any: ...
    def to_bytes(
        self, *, strip_deep_judgment: bool = False, drop_unknown: bool = False, touch: bool = False
    ) -> bytes: ...
    def save(
        self,
        path: _Path,
        *,
        strip_deep_judgment: bool = False,
        drop_unknown: bool = False,
        touch: bool = False,
    ) -> None: ...
    def export(self, *, format: str = "nq", canonical: bool = False) -> str: ...
    def hash(self) -> str: ...
    def diff(self, other: Checkpoint) -> dict[str, Any]: ...
    def summary(self) -> dict[str, Any]: ...
    @property
    def diagnostics(self) -> list[Diagnostic]: ...
    @property
    def name(self) -> str: ...
    @property
    def questions(self) -> list[dict[str, Any]]: ...
    def to_frame(self) -> pandas.DataFrame: ...
    def __eq__(self, value: object, /) -> bool: ...

@final
class Results:
    @staticmethod
    def load(path: _Path) -> Results: ...
    def summary(self) -> dict[str, Any]: ...
    def aggregate_pass_rate(self, by: str = "question_id") -> dict[str, float]: ...
    def info(self) -> dict[str, Any]: ...
    def to_frame(self) -> pandas.DataFrame: ...

@final
class Comparison:
    def pairs(self) -> pandas.DataFrame: ...
    def rates(self) -> pandas.DataFrame: ...
    def agreement(self) -> pandas.DataFrame: ...
    def kappa(self) -> pandas.DataFrame: ...
    def questions(self) -> pandas.DataFrame: ...
    def to_json(self) -> dict[str, Any]: ...
    def to_text(self, hardest: int = 10) -> str: ...

def compare(
    path: _Path,
    *,
    confidence: float = 0.95,
    reference_judge: str | None = None,
    seed: int = 0,
    resamples: int = 2000,
) -> Comparison: ...
def rate_names() -> list[dict[str, Any]]: ...

@final
class Preset:
    @staticmethod
    def load(path: _Path) -> Preset: ...
    @staticmethod
    def save(
        config_file: _Path,
        name: str,
        *,
        directory: _Path,
        description: str | None = None,
        include_secrets: bool = False,
        overwrite: bool = False,
    ) -> str: ...
    @property
    def name(self) -> str | None: ...
    @property
    def description(self) -> str | None: ...
    @property
    def id(self) -> str | None: ...
    @property
    def updated_at(self) -> str | None: ...
    @property
    def config(self) -> dict[str, Any]: ...
    @property
    def diagnostics(self) -> list[Diagnostic]: ...

@final
class Solutions:
    @property
    def variables(self) -> list[str]: ...
    @property
    def notes(self) -> list[str]: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[dict[str, Any]]: ...
    def to_frame(self) -> pandas.DataFrame: ...
    def serialize(self, *, format: str = "json") -> str: ...

@final
class Triples:
    @property
    def notes(self) -> list[str]: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[tuple[Any, Any, Any]]: ...
    def serialize(self, *, format: str = "nt") -> str: ...

@final
class Store:
    def __new__(
        cls,
        paths: _Paths | None = None,
        *,
        store_dir: _Path | None = None,
        labels: dict[str, str] | None = None,
    ) -> Store: ...
    @property
    def graphs(self) -> list[dict[str, Any]]: ...
    def add(self, paths: _Paths, *, labels: dict[str, str] | None = None) -> None: ...
    @property
    def failures(self) -> list[tuple[str, str]]: ...
    @property
    def skipped(self) -> list[dict[str, Any]]: ...
    def results_frame(self, *, timeout: float = 60.0) -> pandas.DataFrame: ...
    def query(
        self,
        sparql: str,
        *,
        timeout: float = 60.0,
        max_result_bytes: int | None = None,
        params: Mapping[str, _Param | Sequence[_Param]] | None = None,
    ) -> Solutions | Triples | bool: ...
    def export(self, path: _Path, *, format: str = "nq") -> None: ...
    def query_named(
        self,
        name: str,
        *,
        timeout: float = 60.0,
        max_result_bytes: int | None = None,
        **params: _Param | Sequence[_Param],
    ) -> Solutions | Triples | bool: ...
