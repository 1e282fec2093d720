"""The memory record and its small vocabulary (kinds, statuses, scope).

A memory is one thing worth remembering about a user: a fact, a preference, an open issue, a
conversation turn, a summary or a piece of product knowledge. Timestamps are aware datetimes in UTC.
The decay state (``strength0``, ``stability``, ``anchor``, ``fade_at``) is what makes the strength
closed-form in time: nothing has to be recomputed row by row as days pass. Two times are kept
apart: ``created_at`` (when Remnant learned it; decay and reinforcement run from there) and
``occurred_at`` (when it happened or was said; what temporal questions and ``as_of`` use).
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from remnant.core.errors import ValidationError
from remnant.core.limits import MAX_CONTENT_CHARS, MAX_IDENTIFIER_CHARS
from remnant.core.limits import MAX_LIMIT as MAX_LIMIT


class Kind(StrEnum):
    FACT = "fact"
    PREFERENCE = "preference"
    OPEN_ISSUE = "open_issue"
    EPISODE = "episode"  # one conversation turn
    SUMMARY = "summary"
    KNOWLEDGE = "knowledge"

    @classmethod
    def parse(cls, value: str | Kind) -> Kind:
        try:
            return cls(value)
        except ValueError:
            allowed = ", ".join(k.value for k in cls)
            raise ValidationError(f"unknown kind {value!r}; expected one of: {allowed}") from None


class Status(StrEnum):
    """Why a memory is or is not recalled. Purged memories are gone: they have no status."""

    ACTIVE = "active"
    HIDDEN = "hidden"  # masked by a person or a forget request; reversible
    SUPERSEDED = "superseded"  # replaced by a newer memory with the same key; kept as history
    EXPIRED = "expired"  # its TTL or expires_at passed
    FADED = "faded"  # its strength fell under the recall threshold (set by a sweep)

    @classmethod
    def parse(cls, value: str | Status) -> Status:
        try:
            return cls(value)
        except ValueError:
            allowed = ", ".join(s.value for s in cls)
            raise ValidationError(f"unknown status {value!r}; expected one of: {allowed}") from None


DEFAULT_TENANT = "default"


@dataclass(frozen=True, slots=True)
class Scope:
    """Whose memory this is. Every query is bounded by tenant and user."""

    user_id: str
    tenant: str = DEFAULT_TENANT
    agent_id: str | None = None
    session_id: str | None = None

    def __post_init__(self) -> None:
        check_identifier(self.user_id, "user_id")
        check_identifier(self.tenant, "tenant")
        if self.agent_id is not None:
            check_identifier(self.agent_id, "agent_id")
        if self.session_id is not None:
            check_identifier(self.session_id, "session_id")


@dataclass(slots=True)
class MemoryRecord:
    """One stored memory. Mutable only inside the engine; callers get copies."""

    id: str
    user_id: str
    content: str
    kind: Kind = Kind.FACT
    tenant: str = DEFAULT_TENANT
    agent_id: str | None = None
    session_id: str | None = None
    key: str | None = None
    source: str | None = None
    confidence: float = 1.0
    importance: float = 0.5
    pinned: bool = False
    created_at: datetime | None = None
    last_accessed_at: datetime | None = None
    access_count: int = 0
    review_count: int = 0
    expires_at: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    # when what it says happened or was said (a chat turn's time, an imported message's date);
    # ``created_at`` is when Remnant learned it, the anchor of its decay
    occurred_at: datetime | None = None
    status: Status = Status.ACTIVE
    status_reason: str | None = None
    status_changed_at: datetime | None = None
    superseded_by: str | None = None
    # decay state: strength(t) = strength0 * exp(-(axis(t) - anchor) / stability)
    strength0: float = 1.0
    stability: float = 1.0  # days
    anchor: float = 0.0  # decay-axis days at the last reinforcement
    fade_at: float = math.inf  # decay-axis days at which strength crosses the recall threshold
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def scope(self) -> Scope:
        return Scope(self.user_id, self.tenant, self.agent_id, self.session_id)

    def copy(self, **changes: Any) -> MemoryRecord:
        return replace(self, metadata=dict(self.metadata), **changes)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (datetimes as ISO-8601 UTC, infinity as null)."""
        out: dict[str, Any] = {}
        for name in self.__slots__:  # type: ignore[attr-defined]
            value = getattr(self, name)
            if isinstance(value, datetime):
                value = value.isoformat()
            elif isinstance(value, StrEnum):
                value = value.value
            elif isinstance(value, float) and math.isinf(value):
                value = None
            elif isinstance(value, dict):
                value = dict(value)
            out[name] = value
        return out


def check_identifier(value: object, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{name} must be a non-empty string")
    if len(value) > MAX_IDENTIFIER_CHARS:
        raise ValidationError(f"{name} is too long ({len(value)} > {MAX_IDENTIFIER_CHARS} characters)")
    if any(ord(c) < 32 for c in value):
        raise ValidationError(f"{name} must not contain control characters")
    return value


def check_unit_interval(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(f"{name} must be a number in [0, 1], got {value!r}")
    v = float(value)
    if not 0.0 <= v <= 1.0 or math.isnan(v):
        raise ValidationError(f"{name} must be in [0, 1], got {value!r}")
    return v


# the limits live in core.limits (one set for every surface); re-exported here for old imports


def check_content(value: object) -> str:
    if not isinstance(value, str):
        raise ValidationError(f"content must be a string, got {type(value).__name__}")
    if not value.strip():
        raise ValidationError("content must not be empty")
    if len(value) > MAX_CONTENT_CHARS:
        raise ValidationError(f"content is too long ({len(value)} > {MAX_CONTENT_CHARS} characters)")
    if "\x00" in value:
        raise ValidationError("content must not contain NUL characters")
    return value


_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def new_id(prefix: str = "mem") -> str:
    """A time-sortable unique id (48-bit milliseconds + 80 random bits, Crockford base32)."""
    value = (int(time.time() * 1000) << 80) | int.from_bytes(os.urandom(10), "big")
    chars = []
    for _ in range(26):
        chars.append(_CROCKFORD[value & 31])
        value >>= 5
    return f"{prefix}_{''.join(reversed(chars)).lower()}"
