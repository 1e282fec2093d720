"""Tolerant JSONL reading: bad lines are reported with their line numbers, the rest still load."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())  # a library logs; the application decides where it goes

T = TypeVar("T")


@dataclass(frozen=True)
class LineProblem:
    """One input line that could not be used, or was used with a logged default."""

    line: int
    message: str
    fatal: bool = True

    def __str__(self) -> str:
        kind = "error" if self.fatal else "note"
        return f"line {self.line}: {kind}: {self.message}"


@dataclass
class LoadReport(Generic[T]):
    """What a load produced: the parsed items and the problems met on the way."""

    items: list[T] = field(default_factory=list)
    problems: list[LineProblem] = field(default_factory=list)

    @property
    def errors(self) -> list[LineProblem]:
        return [p for p in self.problems if p.fatal]

    @property
    def notes(self) -> list[LineProblem]:
        return [p for p in self.problems if not p.fatal]


def iter_json_lines(lines: Iterable[str]) -> Iterator[tuple[int, dict[str, Any] | LineProblem]]:
    """Yield ``(line_number, object)`` for each non-blank line, or a problem for unparsable ones."""
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            yield number, LineProblem(number, f"malformed JSON ({exc.msg} at column {exc.colno})")
            continue
        if not isinstance(obj, dict):
            yield number, LineProblem(number, f"expected a JSON object, got {type(obj).__name__}")
            continue
        yield number, obj


def load_jsonl(
    source: str | Path | Iterable[str],
    parse: Callable[[dict[str, Any], int, list[LineProblem]], T],
) -> LoadReport[T]:
    """Read JSONL and turn each object into a ``T`` with ``parse(obj, line, notes)``.

    ``parse`` raises ``ValueError`` (or a subclass) to reject a line; it may append non-fatal
    notes (for example "no date given, used default"). Problems are also logged.
    """
    report: LoadReport[T] = LoadReport()
    if isinstance(source, str | Path):
        with open(source, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    else:
        lines = list(source)
    for number, obj in iter_json_lines(lines):
        if isinstance(obj, LineProblem):
            report.problems.append(obj)
            log.warning("%s", obj)
            continue
        notes: list[LineProblem] = []
        try:
            report.items.append(parse(obj, number, notes))
        except ValueError as exc:
            problem = LineProblem(number, str(exc))
            report.problems.append(problem)
            log.warning("%s", problem)
        for note in notes:
            report.problems.append(note)
            log.info("%s", note)
    report.problems.sort(key=lambda p: p.line)
    return report


def write_jsonl(path: str | Path, rows: Iterable[dict[str, Any]]) -> int:
    """Write rows as UTF-8 JSONL (non-ASCII kept readable); return how many were written."""
    count = 0
    with open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False, sort_keys=False) + "\n")
            count += 1
    return count
