"""Audit entries and their hash chain.

Every act of forgetting is written to an append-only log. Each entry carries the hash of the entry
before it (per tenant), so editing, deleting or reordering entries breaks the chain and
:func:`verify_chain` finds the first bad one. Entries describe *what kind* of memory was affected
(ids, kinds, keys, counts), never the plaintext of purged content.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

GENESIS = "0" * 64


@dataclass(frozen=True, slots=True)
class AuditDraft:
    """An audit entry before the store gives it a sequence number and a hash."""

    tenant: str
    at: datetime
    actor: str
    action: str  # expire, fade, evict, supersede, hide, unhide, purge, erase_user, forget_request, ...
    reason: str
    user_id: str | None = None
    policy: str | None = None
    batch_id: str | None = None
    memory_ids: tuple[str, ...] = ()
    summary: str = ""
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AuditEntry:
    seq: int
    tenant: str
    at: datetime
    actor: str
    action: str
    reason: str
    user_id: str | None
    policy: str | None
    batch_id: str | None
    memory_ids: tuple[str, ...]
    summary: str
    details: dict[str, Any]
    prev_hash: str
    hash: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "tenant": self.tenant,
            "at": self.at.isoformat(),
            "actor": self.actor,
            "action": self.action,
            "reason": self.reason,
            "user_id": self.user_id,
            "policy": self.policy,
            "batch_id": self.batch_id,
            "memory_ids": list(self.memory_ids),
            "summary": self.summary,
            "details": self.details,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }


def entry_hash(prev_hash: str, draft: AuditDraft | AuditEntry, at_epoch: float) -> str:
    """SHA-256 over a canonical JSON of the entry's content and the previous hash."""
    body = {
        "prev": prev_hash,
        "tenant": draft.tenant,
        "at": round(at_epoch, 6),
        "actor": draft.actor,
        "action": draft.action,
        "reason": draft.reason,
        "user_id": draft.user_id,
        "policy": draft.policy,
        "batch_id": draft.batch_id,
        "memory_ids": list(draft.memory_ids),
        "summary": draft.summary,
        "details": draft.details,
    }
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class ChainVerification:
    ok: bool
    checked: int
    first_bad_seq: int | None = None
    problem: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "checked": self.checked,
            "first_bad_seq": self.first_bad_seq,
            "problem": self.problem,
        }


def verify_chain(entries: Iterable[AuditEntry]) -> ChainVerification:
    """Check one tenant's entries, in sequence order, against their hashes and links."""
    prev = GENESIS
    checked = 0
    for entry in entries:
        if entry.prev_hash != prev:
            return ChainVerification(
                False,
                checked,
                entry.seq,
                "link to the previous entry is broken (an entry was removed, inserted or reordered)",
            )
        expected = entry_hash(prev, entry, entry.at.timestamp())
        if expected != entry.hash:
            return ChainVerification(
                False, checked, entry.seq, "entry content does not match its hash (it was edited)"
            )
        prev = entry.hash
        checked += 1
    return ChainVerification(True, checked)


def describe(records: Sequence[Any]) -> str:
    """A redacted summary of affected memories: counts by kind and the keys, never the content."""
    if not records:
        return "no memories"
    kinds: dict[str, int] = {}
    keys: set[str] = set()
    for r in records:
        kinds[str(r.kind)] = kinds.get(str(r.kind), 0) + 1
        if r.key:
            keys.add(r.key)
    parts = [f"{n} {k}" for k, n in sorted(kinds.items())]
    text = f"{len(records)} {'memory' if len(records) == 1 else 'memories'} ({', '.join(parts)})"
    if keys:
        text += f"; keys: {', '.join(sorted(keys)[:20])}"
    return text
