"""The memory record and its small vocabulary (kinds, statuses, scope).

A memory is one thing worth remembering about a user: a fact, a preference, an open issue, a
conversation turn, a summary or a piece of product knowledge. Timestamps are aware datetimes in UTC.
The decay state (``strength0``, ``stability``, ``anchor``, ``fade_at``) is what makes the strength
closed-form in time: nothing has to be recomputed row by row as days pass. Two times are kept
apart: ``created_at`` (when Remnant learned it; decay and reinforcement run from there) and
``occurred_at`` (when it happened or was said; what temporal questions and ``as_of`` use).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from remnant.core.errors import MetadataError, ValidationError
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
    # a write's answer only, never stored: this write repeated the memory returned (which it
    # reinforced) instead of storing a second copy (engine/ledger.py, deduplication)
    deduplicated: bool = field(default=False, compare=False)

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
            if name == "deduplicated" and not value:
                continue  # only a write's answer says it (an export or a listing never does)
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


# the record's datetime fields, for every reader of serialised records (export files, REST answers)
TIME_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(MemoryRecord) if str(f.type).startswith("datetime")
)


def record_from_fields(data: Mapping[str, Any], parse_time: Callable[[Any], datetime | None]) -> MemoryRecord:
    """A record from serialised fields: times through ``parse_time``, kind and status by value, a null
    ``fade_at`` meaning "never fades" (JSON has no infinity)."""
    kw = dict(data)
    for name in TIME_FIELDS:
        kw[name] = parse_time(kw.get(name))
    kw["kind"] = Kind(kw["kind"])
    kw["status"] = Status(kw["status"])
    kw["fade_at"] = math.inf if kw.get("fade_at") is None else float(kw["fade_at"])
    kw["metadata"] = dict(kw.get("metadata") or {})
    return MemoryRecord(**kw)


def check_identifier(value: object, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{name} must be a non-empty string")
    if len(value) > MAX_IDENTIFIER_CHARS:
        raise ValidationError(f"{name} is too long ({len(value)} > {MAX_IDENTIFIER_CHARS} characters)")
    if any(ord(c) < 32 for c in value):
        raise ValidationError(f"{name} must not contain control characters")
    if not is_valid_unicode(value):
        raise ValidationError(f"{name} must be valid Unicode (it holds a lone surrogate)")
    return value


def is_valid_unicode(text: str) -> bool:
    """False when ``text`` holds an unpaired surrogate (JSON's ``"\\ud800"`` decodes to one): such a
    string cannot be written as UTF-8, so no store, index or log could hold it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# -- metadata ------------------------------------------------------------------------------------
MAX_METADATA_DEPTH = 16  # nested objects/arrays; deeper JSON broke serialisers at about 255
MAX_METADATA_BYTES = 64 * 1024  # the UTF-8 JSON encoding of the whole mapping
MAX_METADATA_KEY_CHARS = 128
_JSON_INT_LIMIT = 2**63  # both stores and every JSON consumer hold a signed 64-bit integer exactly

RESERVED_METADATA_KEYS: frozenset[str] = frozenset(
    {
        "status_before_hide",  # engine/ledger.py: the status that unhide restores
        "consolidated_into",  # engine/forgetting/consolidation.py: the fact an episode became
        "contradicts",  # engine/forgetting/contradictions.py: what a flagged memory contradicts
        "contradicted_by",  # ... and the other side of that flag
        "supersedes",  # engine/forgetting/contradictions.py: what an unkeyed memory superseded
        "facts",  # engine/memory.py: the facts extracted from an episode
        "stale_keys",  # engine/ledger.py: slots an active turn stated an earlier value of
    }
)
"""Top-level metadata keys the engine writes itself and reads back as state. No caller may write
them (a client's ``status_before_hide`` would decide what unhide restores); the provenance links
``derived_from`` and ``from_episode`` stay writable, since integrations and summarizers set them."""

INVALID_METADATA_KEY = "_invalid_metadata"
"""Read-side marker: a stored row whose metadata this version would refuse is read as
``{INVALID_METADATA_KEY: reason}`` instead of failing the whole read."""


def _check_key(key: object, path: str) -> str:
    if not isinstance(key, str):
        raise MetadataError(f"metadata keys must be strings, got {type(key).__name__} at {path}")
    if not key.strip() or len(key) > MAX_METADATA_KEY_CHARS:
        raise MetadataError(f"metadata key at {path} must be 1 to {MAX_METADATA_KEY_CHARS} characters")
    if any(ord(c) < 32 or ord(c) == 127 for c in key):
        raise MetadataError(f"metadata key at {path} must not contain control characters")
    if not is_valid_unicode(key):
        raise MetadataError(f"metadata key at {path} is not valid Unicode (a lone surrogate)")
    return key


def _check_scalar(value: object, path: str) -> None:
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if not -_JSON_INT_LIMIT <= value < _JSON_INT_LIMIT:
            raise MetadataError(f"metadata integer at {path} is out of the 64-bit range")
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise MetadataError(f"metadata number at {path} must be finite (not NaN or infinity)")
        return
    if isinstance(value, str):
        if "\x00" in value:
            raise MetadataError(f"metadata string at {path} must not contain NUL characters")
        if not is_valid_unicode(value):
            raise MetadataError(f"metadata string at {path} is not valid Unicode (a lone surrogate)")
        return
    raise MetadataError(
        f"metadata value at {path} is a {type(value).__name__}; only JSON values are allowed "
        "(objects, arrays, strings, numbers, true/false, null)"
    )


def check_metadata(value: object, *, allow_reserved: bool = False, copy: bool = True) -> dict[str, Any]:
    """A validated deep copy of a memory's metadata: a JSON object at most
    ``MAX_METADATA_DEPTH`` deep and ``MAX_METADATA_BYTES`` long, string keys, JSON values only,
    valid Unicode throughout, none of :data:`RESERVED_METADATA_KEYS` unless ``allow_reserved``.
    Raises :class:`~remnant.core.errors.MetadataError` (a ``ValidationError``: HTTP 422)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise MetadataError(f"metadata must be a JSON object, got {type(value).__name__}")
    if not allow_reserved:
        taken = sorted(k for k in value if isinstance(k, str) and k in RESERVED_METADATA_KEYS)
        if taken:
            raise MetadataError(
                f"metadata key(s) {', '.join(taken)} are reserved: Remnant writes them itself"
            )
    # iterative walk: a hostile document must not exhaust the Python stack
    stack: list[tuple[object, str, int]] = [(value, "metadata", 1)]
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, Mapping):
            if depth > MAX_METADATA_DEPTH:
                raise MetadataError(f"metadata is nested too deeply (more than {MAX_METADATA_DEPTH} levels)")
            for k, v in node.items():
                key = _check_key(k, path)
                stack.append((v, f"{path}.{key[:40]}", depth + 1))
        elif isinstance(node, list | tuple):
            if depth > MAX_METADATA_DEPTH:
                raise MetadataError(f"metadata is nested too deeply (more than {MAX_METADATA_DEPTH} levels)")
            stack.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(node))
        else:
            _check_scalar(node, path)
    encoded = json.dumps(value, ensure_ascii=False, allow_nan=False)
    size = len(encoded.encode("utf-8"))
    if size > MAX_METADATA_BYTES:
        raise MetadataError(f"metadata is too large ({size} > {MAX_METADATA_BYTES} bytes as JSON)")
    if not copy:
        return value if isinstance(value, dict) else dict(value)
    out: dict[str, Any] = json.loads(encoded)
    return out


def readable_metadata(raw: object) -> dict[str, Any]:
    """Metadata as read from a store, tolerant of rows written before :func:`check_metadata`
    existed: undecodable or invalid metadata reads as ``{INVALID_METADATA_KEY: reason}``."""
    if not raw:
        return {}
    try:
        value = json.loads(raw) if isinstance(raw, str | bytes) else raw
        return check_metadata(value, allow_reserved=True, copy=False)
    except (MetadataError, ValueError, RecursionError, TypeError) as exc:
        return {INVALID_METADATA_KEY: str(exc)[:200]}


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
    if not is_valid_unicode(value):
        raise ValidationError("content must be valid Unicode (it holds a lone surrogate)")
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


def is_memory_id(text: str) -> bool:
    """Whether ``text`` reads as a memory id (``mem_…``, one word) rather than a request in words."""
    return text.startswith("mem_") and " " not in text
