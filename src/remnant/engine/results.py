"""What the engine hands back: recall hits, hints about faded memories, sweep and erasure reports."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from remnant.core.model import MemoryRecord
from remnant.core.wire import dump
from remnant.understand.intent import ForgetIntent as ForgetIntent  # read by the request reader


@dataclass(frozen=True, slots=True)
class Hit:
    """One recalled memory with its relevance score and its strength at recall time."""

    memory: MemoryRecord
    score: float
    strength: float
    # an earlier value: superseded (shown through as_of or include_stale), or a turn older than
    # another hit on the same slot (key); recall puts such hits behind the current one
    earlier: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory": self.memory.to_dict(),
            "score": round(self.score, 6),
            "strength": round(self.strength, 6),
            "earlier": self.earlier,
        }


@dataclass(frozen=True, slots=True)
class FadedHint:
    """A memory that matches the query but is no longer recalled, so an assistant can ask again."""

    id: str
    kind: str
    key: str | None
    reason: Literal["faded", "expired"]
    since: datetime | None
    strength: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "key": self.key,
            "reason": self.reason,
            "since": self.since.isoformat() if self.since else None,
            "strength": round(self.strength, 6),
        }


@dataclass(frozen=True)
class RecallResult:
    query: str
    hits: list[Hit]
    faded: list[FadedHint] = field(default_factory=list)

    def __iter__(self) -> Iterator[Hit]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def __getitem__(self, index: int) -> Hit:
        return self.hits[index]

    @property
    def memories(self) -> list[MemoryRecord]:
        return [h.memory for h in self.hits]

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "hits": [h.to_dict() for h in self.hits],
            "faded": [f.to_dict() for f in self.faded],
        }


@dataclass
class SweepStep:
    action: str  # expire, fade, purge_expired, purge_faded, evict, ...
    policy: str
    count: int
    ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "policy": self.policy, "count": self.count, "ids": self.ids[:100]}


@dataclass
class SweepReport:
    batch_id: str
    at: datetime
    dry_run: bool
    steps: list[SweepStep] = field(default_factory=list)
    skipped: str | None = None  # set when another process held the sweep lock

    @property
    def total(self) -> int:
        return sum(s.count for s in self.steps)

    def to_dict(self) -> dict[str, Any]:
        return {
            "batch_id": self.batch_id,
            "at": self.at.isoformat(),
            "dry_run": self.dry_run,
            "total": self.total,
            "skipped": self.skipped,
            "steps": [s.to_dict() for s in self.steps],
        }


@dataclass
class ErasureReport:
    """What a user erasure removed, and the re-queries that show nothing of it remains."""

    tenant: str
    user_id: str
    at: datetime
    removed: dict[str, int]  # by kind
    vault_entries_removed: int
    checks: dict[str, int]  # path -> rows still found (all must be 0)
    audit_seq: int | None = None

    @property
    def verified(self) -> bool:
        return all(v == 0 for v in self.checks.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "tenant": self.tenant,
            "user_id": self.user_id,
            "at": self.at.isoformat(),
            "removed": self.removed,
            "removed_total": sum(self.removed.values()),
            "vault_entries_removed": self.vault_entries_removed,
            "checks": self.checks,
            "verified": self.verified,
            "audit_seq": self.audit_seq,
        }


@dataclass(frozen=True)
class ForgetMatch:
    id: str
    kind: str
    key: str | None
    status: str
    pinned: bool
    why: str
    content: str | None = None  # shown in dry runs only (the user's own data, never audited)
    part: bool = False  # only part of the memory goes (a value or a clause); the rest stays
    new_content: str | None = None  # dry runs: what a partly forgotten memory would read afterwards
    # found only by meaning, below the confident bar: hidden (restorable), never purged
    tentative: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = dump(self)
        # the texts only in a dry run's answer (they are the user's own data)
        for name in ("content", "new_content"):
            if out[name] is None:
                del out[name]
        return out


@dataclass
class ForgetResult:
    """What :meth:`Memory.forget` found and did, for an id and for a request in words alike."""

    user_id: str
    intent: ForgetIntent  # empty for a forget by id
    action: Literal["hide", "purge"]
    dry_run: bool
    matches: list[ForgetMatch] = field(default_factory=list)
    forgotten: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)  # memories whose matching part was removed
    skipped_pinned: list[str] = field(default_factory=list)
    vault_entries_forgotten: int = 0
    total_memories: int = 0
    message: str = ""
    batch_id: str | None = None
    audit_seq: int | None = None

    @property
    def count(self) -> int:
        return len(self.matches)

    def __len__(self) -> int:
        return len(self.matches)

    def to_dict(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "intent": self.intent.to_dict(),
            "action": self.action,
            "dry_run": self.dry_run,
            "matched": len(self.matches),
            "total_memories": self.total_memories,
            "matches": [m.to_dict() for m in self.matches],
            "forgotten": self.forgotten,
            "rewritten": self.rewritten,
            "skipped_pinned": self.skipped_pinned,
            "vault_entries_forgotten": self.vault_entries_forgotten,
            "message": self.message,
            "batch_id": self.batch_id,
            "audit_seq": self.audit_seq,
        }


@dataclass
class AddResult:
    """What :meth:`Memory.add` stored for a conversation: one episode per message, the facts the
    ingestor drew from them, and how much each message was judged to matter."""

    episodes: list[MemoryRecord] = field(default_factory=list)
    facts: list[MemoryRecord] = field(default_factory=list)
    reasons: dict[str, list[str]] = field(default_factory=dict)  # episode id → why it scored so
    # memories a message repeated: reinforced and returned in its place, not stored twice
    duplicates: list[str] = field(default_factory=list)

    @property
    def memories(self) -> list[MemoryRecord]:
        return [*self.episodes, *self.facts]

    def to_dict(self) -> dict[str, Any]:
        return {
            "episodes": [r.to_dict() for r in self.episodes],
            "facts": [r.to_dict() for r in self.facts],
            "reasons": self.reasons,
            "duplicates": list(self.duplicates),
        }
