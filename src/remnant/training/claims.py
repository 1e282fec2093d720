"""Structured claims: "source S said on date D that the attribute A of entity E is V"."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from remnant.training.clock import format_time, parse_time
from remnant.training.errors import InvalidExampleError
from remnant.training.jsonl import LineProblem, LoadReport, load_jsonl
from remnant.training.normalize import NormalizedValue, normalize_key, normalize_value

DEFAULT_AUTHORITY = 0.5


@dataclass(frozen=True)
class Claim:
    """One statement of a value, with provenance used to decide which statement wins."""

    entity: str
    attribute: str
    value: Any
    date: datetime
    source: str
    authority: float = DEFAULT_AUTHORITY
    claim_id: str = ""
    line: int = 0
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not str(self.entity).strip() or not str(self.attribute).strip():
            raise InvalidExampleError("a claim needs a non-empty 'entity' and 'attribute'")
        if self.value is None or (isinstance(self.value, str) and not self.value.strip()):
            raise InvalidExampleError("a claim needs a non-empty 'value'")
        if not 0.0 <= self.authority <= 1.0:
            raise InvalidExampleError(f"'authority' must be in [0, 1], got {self.authority}")
        if not self.claim_id:
            raw = f"{self.entity}|{self.attribute}|{self.value}|{format_time(self.date)}|{self.source}"
            object.__setattr__(self, "claim_id", "c" + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:12])

    @cached_property
    def entity_key(self) -> str:
        return normalize_key(self.entity)

    @cached_property
    def attribute_key(self) -> str:
        return normalize_key(self.attribute)

    @cached_property
    def normalized(self) -> NormalizedValue:
        return normalize_value(self.value)

    @property
    def year(self) -> int:
        return self.date.year

    def to_dict(self) -> dict[str, Any]:
        row: dict[str, Any] = {
            "id": self.claim_id,
            "entity": self.entity,
            "attribute": self.attribute,
            "value": self.value,
            "date": format_time(self.date)[:10]
            if self.date.time() == datetime.min.time()
            else format_time(self.date),
            "source": self.source,
            "authority": self.authority,
        }
        row.update(self.extra)
        return row


_KNOWN = {"id", "entity", "attribute", "value", "date", "time", "source", "authority"}


def claim_from_dict(
    obj: dict[str, Any],
    line: int = 0,
    notes: list[LineProblem] | None = None,
    *,
    default_date: datetime | None = None,
    default_source: str | None = None,
    default_authority: float = DEFAULT_AUTHORITY,
) -> Claim:
    """Build a claim from JSON. Missing date/source are rejected unless a default is given (noted)."""
    notes = notes if notes is not None else []
    for key in ("entity", "attribute", "value"):
        if obj.get(key) is None:
            raise InvalidExampleError(f"missing {key!r}")
    raw_date = obj.get("date", obj.get("time"))
    if raw_date is None:
        if default_date is None:
            raise InvalidExampleError("no 'date' given (pass a default date to accept undated claims)")
        date = default_date
        notes.append(LineProblem(line, f"no 'date' given, used default {format_time(default_date)}", False))
    else:
        try:
            date = parse_time(raw_date)
        except ValueError as exc:
            raise InvalidExampleError(str(exc)) from None
    source = obj.get("source")
    if not isinstance(source, str) or not source.strip():
        if source is not None and not isinstance(source, str):
            raise InvalidExampleError(f"'source' must be a string, got {source!r}")
        if default_source is None:
            raise InvalidExampleError("no 'source' given (pass a default source to accept unsourced claims)")
        source = default_source
        notes.append(LineProblem(line, f"no 'source' given, used default {default_source!r}", False))
    authority = obj.get("authority")
    if authority is None:
        authority = default_authority
        notes.append(LineProblem(line, f"no 'authority' given, used default {default_authority}", False))
    if isinstance(authority, bool) or not isinstance(authority, int | float):
        raise InvalidExampleError(f"'authority' must be a number, got {authority!r}")
    return Claim(
        entity=str(obj["entity"]),
        attribute=str(obj["attribute"]),
        value=obj["value"],
        date=date,
        source=source,
        authority=float(authority),
        claim_id=str(obj.get("id", "")),
        line=line,
        extra={k: v for k, v in obj.items() if k not in _KNOWN},
    )


def load_claims(
    source: str | Path | list[str],
    *,
    default_date: datetime | None = None,
    default_source: str | None = None,
    default_authority: float = DEFAULT_AUTHORITY,
) -> LoadReport[Claim]:
    """Load claims from JSONL; bad lines are reported with line numbers and skipped."""

    def parse(obj: dict[str, Any], line: int, notes: list[LineProblem]) -> Claim:
        return claim_from_dict(
            obj,
            line,
            notes,
            default_date=default_date,
            default_source=default_source,
            default_authority=default_authority,
        )

    return load_jsonl(source, parse)
