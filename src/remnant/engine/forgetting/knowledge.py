"""Versioned product knowledge with validity windows, and the daily sync job that keeps it current.

The seed's example: the 2022, 2023 and 2024 editions of a product manual state different limits
for the same spec. Each edition is a ``knowledge`` memory with a ``valid_from``/``valid_to`` window
and a ``version`` in its metadata, all under one key. :func:`sync_knowledge` imports editions it
has not seen (idempotent by key and version), closes each older edition's window where the next one
starts, marks an edition replaced once its window has ended (``superseded``, kept as history), and
soft-expires knowledge whose window ended without a successor (``expired``). Every step is audited.
Recall now sees only the edition valid now; ``recall(as_of=…)`` sees the one valid then.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from remnant.core.clock import ensure_aware
from remnant.core.errors import ValidationError
from remnant.core.model import Kind, MemoryRecord, Status, check_content, check_identifier, new_id
from remnant.store.base import MemoryFilter

if TYPE_CHECKING:
    from remnant.engine.ledger import Ledger

DEFAULT_OWNER = "knowledge"


@dataclass(frozen=True)
class KnowledgeDoc:
    """One edition of one piece of knowledge (``key`` names the spec, ``version`` the edition)."""

    key: str
    content: str
    version: str
    valid_from: datetime
    valid_to: datetime | None = None
    source: str | None = None
    importance: float = 0.8
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_identifier(self.key, "key")
        check_content(self.content)
        check_identifier(self.version, "version")
        ensure_aware(self.valid_from, name="valid_from")
        if self.valid_to is not None and ensure_aware(self.valid_to, name="valid_to") <= ensure_aware(
            self.valid_from
        ):
            raise ValidationError(f"{self.key} {self.version}: valid_to must be after valid_from")


@dataclass
class SyncReport:
    batch_id: str
    at: datetime
    imported: list[str] = field(default_factory=list)
    unchanged: int = 0
    windows_closed: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    expired: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "batch_id": self.batch_id,
            "at": self.at.isoformat(),
            "imported": self.imported,
            "unchanged": self.unchanged,
            "windows_closed": self.windows_closed,
            "replaced": self.replaced,
            "expired": self.expired,
        }


def _start(r: MemoryRecord) -> float:
    return r.valid_from.timestamp() if r.valid_from else float("-inf")


def sync_knowledge(
    ledger: Ledger,
    docs: Iterable[KnowledgeDoc],
    *,
    owner: str = DEFAULT_OWNER,
    actor: str | None = None,
    pin: bool = True,
) -> SyncReport:
    """Import new editions, close and retire old ones, soft-expire ended knowledge (all audited).

    Safe to run daily and to re-run: editions already stored (same key and version) are skipped.
    Editions are pinned by default: knowledge leaves by its validity window, not by fading or
    eviction (an unused manual must still answer next year, and a past-dated recall must see it).
    """
    check_identifier(owner, "owner")
    docs = list(docs)
    now = ledger.now()
    at = now.timestamp()
    report = SyncReport(new_id("sync"), now)
    base = MemoryFilter(tenant=ledger.tenant, user_id=owner, kinds=(Kind.KNOWLEDGE,), statuses=None)
    with ledger.store.transaction():
        existing = ledger.store.query(base)
        seen = {(r.key, str(r.metadata.get("version"))) for r in existing}
        fresh = []
        for d in docs:
            if (d.key, d.version) in seen:
                report.unchanged += 1
                continue
            seen.add((d.key, d.version))
            fresh.append(
                ledger.build(
                    d.content,
                    user_id=owner,
                    options={
                        "kind": Kind.KNOWLEDGE,
                        "key": d.key,
                        "importance": d.importance,
                        "source": d.source,
                        "valid_from": d.valid_from,
                        "valid_to": d.valid_to,
                        "metadata": {**dict(d.metadata), "version": d.version},
                        "pinned": pin,
                        "redact": False,
                    },
                )
            )
        if fresh:
            stored = ledger.insert(fresh, supersede=False)
            report.imported = [r.id for r in stored]
            ledger.audit(
                "import",
                "new knowledge editions",
                stored,
                user_id=owner,
                actor=actor,
                policy="knowledge_sync",
                batch_id=report.batch_id,
            )
        by_key: dict[str, list[MemoryRecord]] = {}
        for r in ledger.store.query(base):
            if r.key is not None and r.status != Status.HIDDEN:
                by_key.setdefault(r.key, []).append(r)
        replaced: list[MemoryRecord] = []
        for versions in by_key.values():
            versions.sort(key=_start)
            for older, newer in itertools.pairwise(versions):
                if newer.valid_from is None:
                    continue
                if older.valid_to is None or older.valid_to > newer.valid_from:
                    older.valid_to = newer.valid_from  # one edition at a time: the next one closes it
                    older.superseded_by = newer.id
                    ledger.save(older)
                    report.windows_closed.append(older.id)
                if (
                    older.status == Status.ACTIVE
                    and older.valid_to is not None
                    and older.valid_to.timestamp() <= at
                ):
                    changed = ledger.set_status(
                        MemoryFilter(tenant=ledger.tenant, ids=(older.id,), statuses=(Status.ACTIVE,)),
                        Status.SUPERSEDED,
                        reason=f"replaced by edition {newer.metadata.get('version')} ({newer.id})",
                        at=at,
                        superseded_by=newer.id,
                    )
                    if changed:
                        replaced.append(older)
        if replaced:
            report.replaced = [r.id for r in replaced]
            ledger.audit(
                "supersede",
                "a newer edition is in force",
                replaced,
                user_id=owner,
                actor=actor,
                policy="knowledge_sync",
                batch_id=report.batch_id,
            )
        ended = [
            r.id
            for r in ledger.store.query(
                MemoryFilter(tenant=ledger.tenant, user_id=owner, kinds=(Kind.KNOWLEDGE,))
            )
            if r.valid_to is not None and r.valid_to.timestamp() <= at
        ]
        if ended:
            changed = ledger.set_status(
                MemoryFilter(tenant=ledger.tenant, ids=tuple(ended), statuses=(Status.ACTIVE,)),
                Status.EXPIRED,
                reason="validity window ended",
                at=at,
            )
            report.expired = [c[0] for c in changed]
            if changed:
                ledger.audit(
                    "expire",
                    "validity window ended",
                    ids=report.expired,
                    user_id=owner,
                    actor=actor,
                    policy="validity",
                    batch_id=report.batch_id,
                    summary=f"{len(changed)} knowledge memories expired",
                )
    return report
