"""Versions of a memory: what an "update" means when the engine has no in-place update verb.

Updating a memory's text is remembering the new text under the same key: the new memory supersedes
the old one and the old one stays as history. An unkeyed memory gets a key for the occasion,
``updated:<its id>``, and is hidden (audited) once the new version is written, so its next update
supersedes like any keyed memory. :func:`versions` walks that chain back, :func:`current` forward.
Used by the mem0-compatible routes (``PUT /v1/memories/{id}/``) and the MCP ``why`` tool.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from remnant.core.errors import NotFoundError
from remnant.core.model import RESERVED_METADATA_KEYS, MemoryRecord, Status
from remnant.engine.memory import Memory

UPDATE_KEY_PREFIX = "updated:"
"""The key an unkeyed memory's versions share: ``updated:<the first version's id>``."""


def chain_key(record: MemoryRecord) -> str:
    return record.key if record.key else f"{UPDATE_KEY_PREFIX}{record.id}"


def versions(mem: Memory, record: MemoryRecord) -> list[MemoryRecord]:
    """Every version of the memory, oldest first (purged ones are gone), the record included."""
    key = chain_key(record)
    found = [r for r in mem.history(key, user_id=record.user_id) if r.agent_id == record.agent_id]
    if key.startswith(UPDATE_KEY_PREFIX):
        first = _get(mem, key[len(UPDATE_KEY_PREFIX) :])
        if first is not None and first.user_id == record.user_id and first.key is None:
            found.insert(0, first)
    if not any(r.id == record.id for r in found):
        found.append(record)
        found.sort(key=lambda r: r.created_at or datetime.min)
    return found


def current(mem: Memory, record: MemoryRecord) -> MemoryRecord:
    """The live version of the memory: itself when active, else the chain's active version, else
    itself (hidden, superseded without a live successor, expired or faded)."""
    if record.status == Status.ACTIVE:
        return record
    live = [r for r in versions(mem, record) if r.status == Status.ACTIVE]
    return live[-1] if live else record


def update(
    mem: Memory,
    record: MemoryRecord,
    *,
    content: str | None = None,
    metadata: dict[str, Any] | None = None,
    expires_at: datetime | str | None = "keep",
    actor: str | None = None,
    source: str | None = None,
) -> MemoryRecord:
    """Write a new version of ``record`` (its live version) with new text and/or metadata; the old
    version is superseded (keyed) or hidden (unkeyed). ``expires_at="keep"`` keeps the expiry,
    ``None`` clears it. Returns the new version."""
    record = current(mem, record)
    if record.status != Status.ACTIVE:
        raise NotFoundError(f"memory {record.id} is {record.status.value}; there is nothing to update")
    key = chain_key(record)
    # the engine's own state keys describe the old version, not the new one (and may not be written)
    meta = (
        {k: v for k, v in record.metadata.items() if k not in RESERVED_METADATA_KEYS}
        if metadata is None
        else dict(metadata)
    )
    if record.key is None:
        meta["replaces"] = record.id
    new = mem.remember(
        record.content if content is None else content,
        user_id=record.user_id,
        kind=record.kind,
        key=key,
        importance=record.importance,
        confidence=record.confidence,
        source=source or record.source,
        agent_id=record.agent_id,
        session_id=record.session_id,
        pinned=record.pinned,
        expires_at=record.expires_at if isinstance(expires_at, str) else expires_at,
        metadata=meta,
    )
    if record.key is None:
        mem.hide(record.id, reason=f"updated: replaced by {new.id}", actor=actor)
    return new


def _get(mem: Memory, memory_id: str) -> MemoryRecord | None:
    try:
        return mem.get(memory_id)
    except NotFoundError:
        return None
