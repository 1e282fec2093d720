"""Request bodies of the REST API (Pydantic), so bad shapes fail at the edge with a clear 422."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from remnant.core.model import MAX_CONTENT_CHARS, MAX_LIMIT

KindName = Literal["fact", "preference", "open_issue", "episode", "summary", "knowledge"]
StatusName = Literal["active", "hidden", "superseded", "expired", "faded"]
Ident = Field(min_length=1, max_length=256)


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MemoryCreate(_Body):
    content: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS)
    user_id: str = Ident
    kind: KindName = "fact"
    key: str | None = Field(default=None, min_length=1, max_length=256)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source: str | None = Field(default=None, max_length=256)
    agent_id: str | None = Field(default=None, min_length=1, max_length=256)
    session_id: str | None = Field(default=None, min_length=1, max_length=256)
    pinned: bool = False
    ttl: str | None = Field(default=None, min_length=1, max_length=32, description="e.g. 10m, 24h, 7d, 2w")
    expires_at: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    metadata: dict[str, Any] | None = None
    supersede: bool = True


class RecallRequest(_Body):
    query: str = Field(max_length=10_000)
    user_id: str = Ident
    limit: int = Field(default=5, ge=1, le=MAX_LIMIT)
    kinds: list[KindName] | None = Field(default=None, max_length=10)
    keys: list[str] | None = Field(default=None, max_length=100)
    include_faded: bool = False
    touch: bool = Field(default=True, description="Reinforce what is recalled (a use strengthens a memory).")
    as_of: datetime | None = None


class HideRequest(_Body):
    reason: str = Field(default="hidden on request", min_length=1, max_length=500)


class ForgetRequest(_Body):
    request: str = Field(
        min_length=1,
        max_length=2000,
        description="A memory id (mem_…) or a natural-language request ('forget my phone number').",
    )
    user_id: str | None = Field(default=None, min_length=1, max_length=256)
    hard: bool = Field(default=False, description="Purge instead of hide.")
    dry_run: bool = Field(default=False, description="Only report what would be forgotten.")
    confirm: bool = Field(default=False, description="Confirm a large removal or purging pinned memories.")


class EraseRequest(_Body):
    user_id: str = Ident
    confirm: Literal[True] = Field(description="Must be true: erasure cannot be undone.")


class SweepRequest(_Body):
    dry_run: bool = False


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
        (422, "Invalid input"),
    )
}
