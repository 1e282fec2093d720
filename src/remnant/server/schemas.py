"""Request bodies and response models of the REST API (Pydantic).

Requests: bad shapes fail at the edge with a clear 422. Responses: every route declares its model,
so the OpenAPI document types every success answer and generated clients get real types. The
limits are :mod:`remnant.core.limits`, the engine's own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from remnant.core.errors import MetadataError
from remnant.core.limits import (
    DEFAULT_RECALL_LIMIT,
    MAX_BATCH_ITEMS,
    MAX_CONTENT_CHARS,
    MAX_FILTER_VALUES,
    MAX_IDENTIFIER_CHARS,
    MAX_LIMIT,
    MAX_MESSAGES,
    MAX_QUERY_CHARS,
    MAX_REQUEST_CHARS,
    MAX_TAGS,
)
from remnant.core.model import check_metadata

KindName = Literal["fact", "preference", "open_issue", "episode", "summary", "knowledge"]
StatusName = Literal["active", "hidden", "superseded", "expired", "faded"]
Ident = Field(min_length=1, max_length=MAX_IDENTIFIER_CHARS)
Timestamp = Annotated[str, Field(json_schema_extra={"format": "date-time"})]
"""An ISO-8601 UTC time, as the engine writes it (``2026-05-01T09:30:00+00:00``)."""
Tag = Annotated[str, Field(min_length=1, max_length=MAX_IDENTIFIER_CHARS)]
Scalar = str | int | float | bool


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _valid_metadata(value: dict[str, Any] | None) -> dict[str, Any] | None:
    """The engine's own metadata rules, here so a bad document is a 422 before anything runs."""
    if value is None:
        return None
    try:
        return check_metadata(value)
    except MetadataError as exc:
        raise ValueError(str(exc)) from None


# -- requests --------------------------------------------------------------------------------------
class MemoryCreate(_Body):
    content: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS)
    user_id: str = Ident
    kind: KindName = "fact"
    key: str | None = Field(default=None, min_length=1, max_length=MAX_IDENTIFIER_CHARS)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source: str | None = Field(default=None, max_length=MAX_IDENTIFIER_CHARS)
    agent_id: str | None = Field(default=None, min_length=1, max_length=MAX_IDENTIFIER_CHARS)
    session_id: str | None = Field(default=None, min_length=1, max_length=MAX_IDENTIFIER_CHARS)
    pinned: bool = False
    ttl: str | None = Field(default=None, min_length=1, max_length=32, description="e.g. 10m, 24h, 7d, 2w")
    expires_at: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    occurred_at: datetime | None = Field(
        default=None,
        description="When it happened or was said (temporal recall, as_of); decay still starts now.",
    )
    metadata: dict[str, Any] | None = Field(
        default=None,
        description="A JSON object: at most 16 levels deep and 64 KiB, string keys, no reserved keys.",
    )
    tags: list[Tag] | None = Field(
        default=None, max_length=MAX_TAGS, description='Stored as metadata["tags"]; recall filters on them.'
    )
    supersede: bool = True

    @field_validator("metadata")
    @classmethod
    def _metadata(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return _valid_metadata(value)


class MemoryBatchCreate(_Body):
    items: list[MemoryCreate] = Field(min_length=1, max_length=MAX_BATCH_ITEMS)
    supersede: bool = True


class MemoryPatch(_Body):
    """Only the fields present change; ``null`` clears ``valid_from``, ``valid_to``, ``expires_at``
    and ``tags``. ``metadata`` is merged (a key set to ``null`` is removed)."""

    content: str | None = Field(default=None, min_length=1, max_length=MAX_CONTENT_CHARS)
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    tags: list[Tag] | None = Field(default=None, max_length=MAX_TAGS)
    metadata: dict[str, Any] | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    expires_at: datetime | None = None
    ttl: str | None = Field(
        default=None, min_length=1, max_length=32, description="Expire this long from now."
    )

    @field_validator("metadata")
    @classmethod
    def _metadata(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return _valid_metadata(value)


class ChatMessage(_Body):
    role: Literal["user", "assistant", "system", "tool"] = "user"
    content: str = Field(max_length=MAX_CONTENT_CHARS)
    name: str | None = Field(default=None, min_length=1, max_length=MAX_IDENTIFIER_CHARS)


class IngestRequest(_Body):
    messages: list[ChatMessage | Annotated[str, Field(max_length=MAX_CONTENT_CHARS)]] = Field(
        min_length=1, max_length=MAX_MESSAGES, description="Chat messages; a plain string is a user message."
    )
    user_id: str = Ident
    session_id: str | None = Field(default=None, min_length=1, max_length=MAX_IDENTIFIER_CHARS)
    agent_id: str | None = Field(default=None, min_length=1, max_length=MAX_IDENTIFIER_CHARS)
    infer: bool = Field(default=True, description="Judge importance and extract facts (false: store as is).")
    occurred_at: datetime | None = Field(
        default=None, description="When the conversation took place (an imported history's date)."
    )
    metadata: dict[str, Any] | None = None

    @field_validator("metadata")
    @classmethod
    def _metadata(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return _valid_metadata(value)


class RecallRequest(_Body):
    """The Python API's recall filters (:class:`remnant.engine.options.RecallFilters`)."""

    query: str = Field(max_length=MAX_QUERY_CHARS, description="Empty: the user's strongest memories.")
    user_id: str = Ident
    limit: int = Field(default=DEFAULT_RECALL_LIMIT, ge=1, le=MAX_LIMIT)
    kinds: list[KindName] | None = Field(default=None, max_length=10)
    keys: list[Tag] | None = Field(default=None, max_length=MAX_FILTER_VALUES)
    agent_id: str | None = Field(default=None, min_length=1, max_length=MAX_IDENTIFIER_CHARS)
    session_id: str | None = Field(default=None, min_length=1, max_length=MAX_IDENTIFIER_CHARS)
    sources: list[Tag] | None = Field(default=None, max_length=MAX_FILTER_VALUES)
    tags: list[Tag] | None = Field(default=None, max_length=MAX_TAGS, description="Memories with every tag.")
    metadata: dict[str, Scalar] | None = Field(
        default=None, max_length=MAX_FILTER_VALUES, description="Equality on metadata fields."
    )
    as_of: datetime | None = Field(default=None, description="What was valid then (point-in-time).")
    include_faded: bool = False
    created_after: datetime | None = None
    created_before: datetime | None = None
    touch: bool = Field(default=True, description="Reinforce what is recalled (a use strengthens a memory).")
    hints: bool = Field(default=True, description="Say which matching memories have faded or expired.")


class UsedRequest(_Body):
    ids: list[Tag] = Field(min_length=1, max_length=MAX_LIMIT)


class HideRequest(_Body):
    reason: str = Field(default="hidden on request", min_length=1, max_length=500)


class ForgetRequest(_Body):
    request: str = Field(
        min_length=1,
        max_length=MAX_REQUEST_CHARS,
        description="A memory id (mem_…) or a natural-language request ('forget my phone number').",
    )
    user_id: str | None = Field(default=None, min_length=1, max_length=MAX_IDENTIFIER_CHARS)
    hard: bool = Field(default=False, description="Purge instead of hide.")
    dry_run: bool = Field(default=False, description="Only report what would be forgotten.")
    confirm: bool = Field(default=False, description="Confirm a large removal or purging pinned memories.")


class EraseRequest(_Body):
    user_id: str = Ident
    confirm: Literal[True] = Field(description="Must be true: erasure cannot be undone.")


class SweepRequest(_Body):
    dry_run: bool = False


# -- responses -------------------------------------------------------------------------------------
class MemoryRecordOut(BaseModel):
    """A stored memory (:class:`remnant.core.model.MemoryRecord`); ``fade_at`` is null for never."""

    id: str
    user_id: str
    content: str
    kind: KindName
    tenant: str
    agent_id: str | None
    session_id: str | None
    key: str | None
    source: str | None
    confidence: float
    importance: float
    pinned: bool
    created_at: Timestamp | None
    last_accessed_at: Timestamp | None
    access_count: int
    review_count: int
    expires_at: Timestamp | None
    valid_from: Timestamp | None
    valid_to: Timestamp | None
    occurred_at: Timestamp | None = None
    status: StatusName
    status_reason: str | None
    status_changed_at: Timestamp | None
    superseded_by: str | None
    strength0: float
    stability: float
    anchor: float
    fade_at: float | None
    metadata: dict[str, Any]
    deduplicated: bool = Field(
        default=False,
        description="A write's answer only: the write repeated this existing memory (the same text in "
        "the same scope), which it reinforced instead of storing a second copy.",
    )


class MemoryOut(MemoryRecordOut):
    """A memory with its strength now and whether recall would return it."""

    strength: float
    remembered: bool


class MemoryList(BaseModel):
    items: list[MemoryOut]


class MemoryPage(BaseModel):
    items: list[MemoryOut]
    total: int
    limit: int
    offset: int
    next_offset: int | None


class HitOut(BaseModel):
    memory: MemoryRecordOut
    score: float
    strength: float


class FadedHintOut(BaseModel):
    id: str
    kind: str
    key: str | None
    reason: Literal["faded", "expired"]
    since: Timestamp | None
    strength: float


class RecallOut(BaseModel):
    query: str
    hits: list[HitOut]
    faded: list[FadedHintOut]


class AddOut(BaseModel):
    """What an ingest stored: one episode per message, the facts drawn from them, and why each
    message scored as it did."""

    episodes: list[MemoryRecordOut]
    facts: list[MemoryRecordOut]
    reasons: dict[str, list[str]]
    duplicates: list[str] = Field(
        default_factory=list,
        description="Ids of the existing memories that messages repeated: reinforced and returned in "
        "their place (deduplicated), not stored twice.",
    )


class WhoAmI(BaseModel):
    tenant: str
    scopes: list[str]
    key_id: str | None


class CurvePointOut(BaseModel):
    day: float
    strength: float


class CurveEvent(BaseModel):
    type: str
    day: float
    at: Timestamp | None = None
    label: str | None = None


class CurveOut(BaseModel):
    id: str
    user_id: str
    kind: KindName
    status: StatusName
    pinned: bool
    axis: Literal["wall", "active_days"]
    now: Timestamp
    strength: float
    stability_days: float
    threshold: float
    fade_in_days: float | None
    access_count: int
    review_count: int
    past: list[CurvePointOut]
    projected: list[CurvePointOut]
    events: list[CurveEvent]
    note: str | None = None


class RehydrateOut(BaseModel):
    id: str
    content: str


class PurgeOut(BaseModel):
    purged: int
    id: str


class ForgetIntentOut(BaseModel):
    hard: bool
    topics: list[str]
    kinds: list[str]
    pii_types: list[str]
    terms: list[str]
    everything: bool
    lang: str
    scopes: list[str]
    when: str | None
    qualifiers: list[str]


class ForgetMatchOut(BaseModel):
    id: str
    kind: str
    key: str | None
    status: str
    pinned: bool
    why: str
    part: bool = False
    content: str | None = None
    new_content: str | None = None
    tentative: bool = False


class ForgetOut(BaseModel):
    user_id: str
    intent: ForgetIntentOut
    action: Literal["hide", "purge"]
    dry_run: bool
    matched: int
    total_memories: int
    matches: list[ForgetMatchOut]
    forgotten: list[str]
    rewritten: list[str]
    skipped_pinned: list[str]
    vault_entries_forgotten: int
    message: str
    batch_id: str | None
    audit_seq: int | None


class ErasureOut(BaseModel):
    tenant: str
    user_id: str
    at: Timestamp
    removed: dict[str, int]
    removed_total: int
    vault_entries_removed: int
    checks: dict[str, int]
    verified: bool
    audit_seq: int | None


class SweepStepOut(BaseModel):
    action: str
    policy: str
    count: int
    ids: list[str]


class SweepOut(BaseModel):
    batch_id: str
    at: Timestamp
    dry_run: bool
    total: int
    skipped: str | None
    steps: list[SweepStepOut]


class AuditEntryOut(BaseModel):
    seq: int
    tenant: str
    at: Timestamp
    actor: str
    action: str
    reason: str
    user_id: str | None
    policy: str | None
    batch_id: str | None
    memory_ids: list[str]
    summary: str
    details: dict[str, Any]
    prev_hash: str
    hash: str


class AuditPage(BaseModel):
    items: list[AuditEntryOut]
    next_since_seq: int | None


class ChainVerificationOut(BaseModel):
    ok: bool
    checked: int
    first_bad_seq: int | None
    problem: str | None


class AnchorHeadOut(BaseModel):
    seq: int
    hash: str


class AuditAnchorOut(BaseModel):
    """The tenant's exportable audit head; keep it outside the server and check it with
    ``remnant audit verify --anchor FILE``."""

    format: str
    version: int
    created_at: str
    tenants: dict[str, AnchorHeadOut]
    mac: str | None = None


class StatsOut(BaseModel):
    tenant: str
    user_id: str | None
    by_status: dict[str, int]
    total: int
    remembered_now: int | None = None


class UserOut(BaseModel):
    user_id: str
    total: int
    active: int


class UsersOut(BaseModel):
    items: list[UserOut]


class HealthOut(BaseModel):
    status: Literal["ok", "ready"]


class ErrorDetail(BaseModel):
    code: str
    message: str
    details: Any = None


class ErrorBody(BaseModel):
    """Every error answer has this shape."""

    error: ErrorDetail


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": text}
    for status, text in (
        (400, "Malformed request (bad JSON)"),
        (401, "Missing, unknown or revoked API key"),
        (403, "The key lacks the scope"),
        (404, "No such memory in this tenant"),
        (409, "Conflicts with the memory's state, or needs confirmation"),
        (413, "Body too large"),
        (422, "Invalid input (or an Idempotency-Key reused with another body)"),
        (500, "A bug in Remnant (see the server log)"),
        (503, "A server-side fault: the store, the vault key or the redactor (see the code)"),
    )
}
