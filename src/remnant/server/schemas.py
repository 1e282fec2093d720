"""Request bodies and response models of the REST API (Pydantic).

Requests: bad shapes fail at the edge with a clear 422. Responses: every route declares its model,
so the OpenAPI document types every success answer and generated clients get real types. The
limits are :mod:`remnant.core.limits`, the engine's own.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import types
import typing
from datetime import datetime
from enum import Enum
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from remnant.core import wire
from remnant.core.audit import AuditEntry, ChainVerification
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
from remnant.core.model import Kind, MemoryRecord, Status, check_metadata
from remnant.engine.results import (
    AddResult,
    ErasureReport,
    FadedHint,
    ForgetIntent,
    ForgetMatch,
    ForgetResult,
    Hit,
    RecallResult,
    SweepReport,
    SweepStep,
)
from remnant.store.base import UserSummary

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
    include_stale: bool = Field(
        default=False, description="Superseded memories too (earlier values, labelled earlier)."
    )
    created_after: datetime | None = None
    created_before: datetime | None = None
    touch: bool = Field(default=True, description="Reinforce what is recalled (a use strengthens a memory).")
    hints: bool = Field(default=True, description="Say which matching memories have faded or expired.")


class UsedRequest(_Body):
    ids: list[Tag] = Field(min_length=1, max_length=MAX_LIMIT)


class HideRequest(_Body):
    reason: str = Field(default="hidden on request", min_length=1, max_length=500)


class ForgetRequest(_Body):
    """Either ``request`` (a sentence) or ``ids`` (memory ids), not both."""

    request: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_REQUEST_CHARS,
        description="A request in words ('forget my phone number'). A memory id here (mem_…) still "
        "works but is deprecated: give ids.",
    )
    ids: list[Tag] | None = Field(
        default=None, min_length=1, max_length=MAX_LIMIT, description="Memory ids to forget."
    )
    user_id: str | None = Field(default=None, min_length=1, max_length=MAX_IDENTIFIER_CHARS)
    hard: bool = Field(default=False, description="Purge instead of hide.")
    dry_run: bool = Field(default=False, description="Only report what would be forgotten.")
    confirm: bool | int = Field(
        default=False,
        description="Confirm a large removal or purging pinned memories; the number of memories it "
        "takes (from a dry run) to purge a sweeping match for good or to carry out 'everything about that'.",
    )

    @model_validator(mode="after")
    def _one_target(self) -> ForgetRequest:
        if (self.request is None) == (self.ids is None):
            raise ValueError("give either request (words) or ids (memory ids)")
        return self


class EraseRequest(_Body):
    user_id: str = Ident
    confirm: Literal[True] = Field(description="Must be true: erasure cannot be undone.")


class SweepRequest(_Body):
    dry_run: bool = False


# -- responses -------------------------------------------------------------------------------------
# -- responses derived from the engine's types -------------------------------------------------------
# The answers that carry an engine result are not written out here: each model is built from the
# fields of the dataclass the engine returns (remnant.core.wire writes and reads the same fields),
# so a field added to a result reaches the wire, the OpenAPI document, the TypeScript types and
# remnant.Client with no edit here. tests/server/test_wire_contract.py holds the two to each other.
_DERIVED: dict[type, type[BaseModel]] = {}


def _wire_type(tp: Any) -> Any:
    """The JSON type of an engine field's type hint, as Pydantic declares it."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Union or origin is types.UnionType:
        mapped = tuple(_wire_type(a) for a in args)
        return functools.reduce(operator.or_, mapped)
    if origin is Literal or tp is Any:
        return tp
    if origin is tuple:
        return list[_wire_type(args[0]) if args and args[-1] is Ellipsis else Any]  # type: ignore[misc]
    if origin is list:
        return list[_wire_type(args[0])]  # type: ignore[misc]
    if origin is dict:
        return dict[str, _wire_type(args[1])]  # type: ignore[misc]
    if tp is Kind:
        return KindName
    if tp is Status:
        return StatusName
    if isinstance(tp, type):
        if issubclass(tp, Enum):
            return Literal[tuple(m.value for m in tp)]
        if issubclass(tp, datetime):
            return Timestamp
        if dataclasses.is_dataclass(tp):
            return _DERIVED.get(tp) or wire_model(tp)
    return tp


def wire_model(
    cls: type,
    name: str | None = None,
    *,
    computed: dict[str, Any] | None = None,
    optional: frozenset[str] = frozenset(),
    types_: dict[str, Any] | None = None,
    descriptions: dict[str, str] | None = None,
    doc: str | None = None,
    nested: bool = True,
) -> type[BaseModel]:
    """The response model of an engine dataclass: one field per dataclass field (required, so the
    generated clients' types are not optional), plus ``computed`` ones its ``to_dict`` adds (a
    ``total``, a ``verified``); ``optional`` fields may be left out of an answer (null when so). With ``nested``, the model
    stands for ``cls`` where another derived model holds one (a hit's memory)."""
    hinted = wire.hints(cls)
    spec: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        field_name = f.name
        tp = (types_ or {}).get(field_name) or _wire_type(hinted[field_name])
        desc = (descriptions or {}).get(field_name)
        if field_name in optional:
            default = None if f.default is dataclasses.MISSING else f.default
            spec[field_name] = (tp, Field(default=default, description=desc))
        else:
            spec[field_name] = (tp, Field(description=desc))
    for field_name, tp in (computed or {}).items():
        spec[field_name] = (tp, Field(description=(descriptions or {}).get(field_name)))
    model: type[BaseModel] = create_model(  # type: ignore[call-overload]
        name or f"{cls.__name__}Out", __doc__=doc or (cls.__doc__ or "").strip() or None, **spec
    )
    if nested:
        _DERIVED[cls] = model
    return model


_RECORD_DOCS = {
    "fade_at": "Decay-axis days at which the memory fades below the recall threshold (null: never).",
    "deduplicated": "A write's answer only: the write repeated this existing memory (the same text in "
    "the same scope), which it reinforced instead of storing a second copy.",
    "strength": "The memory's strength now.",
    "remembered": "Whether recall would return it now (active, not expired, strong enough or pinned).",
}
MemoryRecordOut = wire_model(
    MemoryRecord,
    "MemoryRecordOut",
    optional=frozenset({"deduplicated"}),
    types_={"fade_at": float | None, "deduplicated": bool},
    descriptions=_RECORD_DOCS,
    doc="A stored memory (:class:`remnant.core.model.MemoryRecord`); ``fade_at`` is null for never.",
)
MemoryOut = wire_model(
    MemoryRecord,
    "MemoryOut",
    computed={"strength": float, "remembered": bool},
    optional=frozenset({"deduplicated"}),
    types_={"fade_at": float | None, "deduplicated": bool},
    descriptions=_RECORD_DOCS,
    doc="A memory with its strength now and whether recall would return it.",
    nested=False,
)


class MemoryList(BaseModel):
    items: list[MemoryOut]  # type: ignore[valid-type]


class MemoryPage(BaseModel):
    items: list[MemoryOut]  # type: ignore[valid-type]
    total: int
    limit: int
    offset: int
    next_offset: int | None


HitOut = wire_model(
    Hit,
    "HitOut",
    descriptions={
        "earlier": "An earlier value: superseded, or older than another hit on the same slot (key)."
    },
)
FadedHintOut = wire_model(FadedHint, "FadedHintOut")
RecallOut = wire_model(RecallResult, "RecallOut", doc="What a recall found, and the matches that faded.")
AddOut = wire_model(
    AddResult,
    "AddOut",
    descriptions={
        "duplicates": "Ids of the existing memories that messages repeated: reinforced and returned "
        "in their place (deduplicated), not stored twice."
    },
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


ForgetIntentOut = wire_model(ForgetIntent, "ForgetIntentOut")
ForgetMatchOut = wire_model(ForgetMatch, "ForgetMatchOut", optional=frozenset({"content", "new_content"}))
ForgetOut = wire_model(ForgetResult, "ForgetOut", computed={"matched": int})
ErasureOut = wire_model(ErasureReport, "ErasureOut", computed={"removed_total": int, "verified": bool})
SweepStepOut = wire_model(SweepStep, "SweepStepOut")
SweepOut = wire_model(SweepReport, "SweepOut", computed={"total": int})
AuditEntryOut = wire_model(AuditEntry, "AuditEntryOut", optional=frozenset({"mac"}))
ChainVerificationOut = wire_model(ChainVerification, "ChainVerificationOut")


class AuditPage(BaseModel):
    items: list[AuditEntryOut]  # type: ignore[valid-type]
    next_since_seq: int | None


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


UserOut = wire_model(UserSummary, "UserOut")


class UsersOut(BaseModel):
    items: list[UserOut]  # type: ignore[valid-type]


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
