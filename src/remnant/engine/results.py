"""What the engine hands back: recall hits, hints about faded memories, sweep and erasure reports."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from remnant.core.model import Kind, MemoryRecord
from remnant.core.wire import dump


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
class ForgetIntent:
    """What a request asks to forget. Every part is optional; an empty intent matches nothing."""

    hard: bool = False
    topics: tuple[str, ...] = ()  # canonical keys of matched :data:`TOPICS`
    kinds: tuple[Kind, ...] = ()
    pii_types: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()  # free-text terms; a memory must contain all of them
    everything: bool = False
    lang: Literal["en", "zh"] = "en"
    scopes: tuple[str, ...] = ()  # broad topics ("anything about my health"): names of SCOPES
    when: str | None = None  # a time scope: "today", "yesterday", "this_week", "last_week", "days:N"
    qualifiers: tuple[str, ...] = ()  # whose or which ("work", "wife"): "my work email"
    # what the request says stays ("…, keep the work one", "…，邮箱可以留着"): words and whose
    keep_terms: tuple[str, ...] = ()
    keep_qualifiers: tuple[str, ...] = ()
    version: str | None = None  # "old" (only what was replaced) or "current" (not the history)
    facet: bool = False  # the request names one value of an attribute ("the company I work for")
    # the speaker is the request's subject ("forget that I'm from Porto"): someone else's clause is not it
    about_self: bool = False
    # literal values the request gives ("forget 555-0199", "煤球…把它名字去了"): those spans go
    values: tuple[str, ...] = ()
    # the kind of value a facet names ("the flight number" -> code, "how much" -> amount)
    value_kind: str | None = None
    # the request names the value itself, not the attribute (a date, a number, "the name of …")
    exact: bool = False
    # the free text is a list ("the lump and biopsy episode", "panic attacks or the therapy"): a memory
    # holding every term of one item matches
    any_of: tuple[tuple[str, ...], ...] = ()
    # the people the request names (relation words, names: "my daughter", "tasha", 老二): which of
    # several people's values in one turn is meant
    people: tuple[str, ...] = ()
    # the request asks for one value ("which school", "how old", "the digits", 多少, 哪): a turn
    # holding several values loses only the one in the part the request's words select
    asks_value: bool = False
    # measured attributes the request names to forget and to keep ("my weight", "height is fine"):
    # a value known by its unit (168 lbs, 一米六) or its label (血压160/95) when the word is not said
    measures: tuple[str, ...] = ()
    keep_measures: tuple[str, ...] = ()
    # the attributes the keep clause names ("where I'm from is fine", 老家可以留着): their values stay
    keep_topics: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.topics or self.kinds or self.terms or self.everything or self.scopes or self.when)

    def to_dict(self) -> dict[str, Any]:
        # every field, by the one rule of remnant.core.wire (the REST schema is derived from them)
        return dump(self)  # type: ignore[no-any-return]


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
