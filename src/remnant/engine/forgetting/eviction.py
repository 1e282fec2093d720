"""Importance eviction: remove what scores low and has not been used for a while; cap each user's store.

Two set-based steps, both run by the sweep (``SweepPolicy.evict``):

- ``evict``: memories whose importance score (:mod:`remnant.core.importance`) is under
  ``threshold`` **and** that nobody accessed for ``unaccessed_days``; pinned ones are exempt.
- ``evict_capacity``: per user, keep the best ``capacity`` memories by score (pinned first) and
  remove the rest.

Where the score is computed: inside the store (``Store.low_importance`` / ``Store.over_capacity``).
SQLite does it in one statement with its math functions; the base class falls back to Python over
the rows the filter bounds, so a new backend works before it gets its own SQL. Computing it in SQL
matters because the capacity step has to rank *every* row of an over-full user, which no cheap
filter bounds, and a threshold sweep over a million memories should not page rows through Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal

from remnant.core.errors import ValidationError
from remnant.core.importance import ImportanceWeights
from remnant.core.model import Kind, Status
from remnant.engine.ledger import Transition
from remnant.engine.results import SweepStep
from remnant.store.base import MemoryFilter

if TYPE_CHECKING:
    from remnant.engine.ledger import Ledger


@dataclass(frozen=True)
class EvictionPolicy:
    """When a memory is evicted. Defaults: score under 0.01 and unaccessed for 30 days; no capacity cap.

    With the default weights a memory that was never used goes after about 56 days (importance 0),
    105 days (0.5) or 132 days (1.0); one recalled three times lasts 1.3 to 1.8 years untouched.
    """

    enabled: bool = True
    threshold: float = 0.01
    unaccessed_days: float = 30.0
    capacity: int | None = None  # per user; None: no cap
    statuses: tuple[Status, ...] = (Status.ACTIVE, Status.FADED)
    # knowledge leaves by its validity window (sync_knowledge), not by disuse
    kinds: tuple[Kind, ...] | None = (Kind.FACT, Kind.PREFERENCE, Kind.OPEN_ISSUE, Kind.EPISODE, Kind.SUMMARY)
    action: Literal["purge", "hide"] = "purge"
    weights: ImportanceWeights = field(default_factory=ImportanceWeights)

    def __post_init__(self) -> None:
        if self.threshold < 0:
            raise ValidationError(f"eviction threshold must not be negative, got {self.threshold}")
        if self.unaccessed_days < 0:
            raise ValidationError(f"unaccessed_days must not be negative, got {self.unaccessed_days}")
        if self.capacity is not None and (isinstance(self.capacity, bool) or self.capacity < 0):
            raise ValidationError(f"capacity must be a non-negative integer or None, got {self.capacity!r}")
        if self.action not in ("purge", "hide"):
            raise ValidationError(f"eviction action must be 'purge' or 'hide', got {self.action!r}")


def eviction_candidates(
    ledger: Ledger, policy: EvictionPolicy, now: datetime, *, user_id: str | None = None
) -> dict[str, list[tuple[str, str, float]]]:
    """What each eviction step would remove now: ``{"evict": [...], "evict_capacity": [...]}``."""
    base = MemoryFilter(tenant=ledger.tenant, user_id=user_id, statuses=policy.statuses, kinds=policy.kinds)
    w = policy.weights
    t = now.timestamp()
    out: dict[str, list[tuple[str, str, float]]] = {"evict": [], "evict_capacity": []}
    if not policy.enabled:
        return out
    idle = replace(
        base, pinned=False, accessed_before=(now - timedelta(days=policy.unaccessed_days)).timestamp()
    )
    out["evict"] = ledger.store.low_importance(
        idle, now=t, decay_per_day=w.decay_per_day, mark_weight=w.mark_weight, below=policy.threshold
    )
    if policy.capacity is not None:
        gone = {c[0] for c in out["evict"]}
        over = ledger.store.over_capacity(
            base, now=t, decay_per_day=w.decay_per_day, mark_weight=w.mark_weight, keep=policy.capacity
        )
        out["evict_capacity"] = [c for c in over if c[0] not in gone]
    return out


def run_eviction(
    ledger: Ledger, policy: EvictionPolicy, *, batch_id: str, dry_run: bool = False, actor: str | None = None
) -> list[SweepStep]:
    """Apply both eviction steps once; each removal is audited under ``batch_id``."""
    if not policy.enabled:
        return []
    now = ledger.now()
    steps = []
    found = eviction_candidates(ledger, policy, now)
    reasons = {
        "evict": (
            "importance",
            f"importance score under {policy.threshold} and unaccessed for {policy.unaccessed_days:g} days",
        ),
        "evict_capacity": ("capacity", f"over the per-user capacity of {policy.capacity}"),
    }
    for action, rows in found.items():
        if action == "evict_capacity" and policy.capacity is None:
            continue
        name, reason = reasons[action]
        # in user order, so each chunk writes one audit entry per user it touches, not per chunk and user
        ids = [r[0] for r in sorted(rows, key=lambda r: r[1])]
        if not dry_run and ids:
            ids = _apply(
                ledger, policy, ids, action=action, reason=reason, name=name, batch_id=batch_id, actor=actor
            )
        steps.append(SweepStep(action, name, len(ids), ids))
    return steps


def _apply(
    ledger: Ledger,
    policy: EvictionPolicy,
    ids: list[str],
    *,
    action: str,
    reason: str,
    name: str,
    batch_id: str,
    actor: str | None,
) -> list[str]:
    done: list[str] = []
    for start in range(0, len(ids), 5000):
        chunk = ids[start : start + 5000]
        if policy.action == "hide":
            # set-based, and only rows still in an evictable status change (a concurrent sweep may have won)
            flt = MemoryFilter(tenant=ledger.tenant, ids=tuple(chunk), statuses=policy.statuses, pinned=False)
            change = Transition(
                Status.HIDDEN,
                action,
                reason,
                policy=name,
                batch_id=batch_id,
                actor=actor,
                summary="memories hidden by eviction",
            )
            pairs = ledger.transition(flt, change)
            done.extend(p[0] for p in pairs)
        else:
            purged = ledger.purge(
                chunk,
                reason=reason,
                actor=actor,
                policy=name,
                batch_id=batch_id,
                action=action,
                skip_pinned=True,
                scrub=False,
            )
            done.extend(r.id for r in purged)
    return done
