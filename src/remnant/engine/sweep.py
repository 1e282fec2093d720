"""Forgetting sweeps: set-based status changes and purges, each step audited under one batch id.

Every step is one filtered statement in the store (no row loops over the table), and a status
change only touches rows that are not already in the target status, so two sweeps running at the
same time cannot apply the same change twice.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TYPE_CHECKING, Literal

from remnant.core import decay as dk
from remnant.core.model import Status, new_id
from remnant.engine.results import SweepReport, SweepStep
from remnant.store.base import MemoryFilter

if TYPE_CHECKING:
    from remnant.engine.memory import Memory


@dataclass(frozen=True)
class SweepPolicy:
    """What a sweep does. Defaults: expire and mark faded daily; purge expired after 7 days; keep faded."""

    expire: bool = True
    expired_grace: timedelta | None = timedelta(days=7)  # None: keep expired memories forever
    fade: bool = True
    fade_action: Literal["keep", "purge"] = "keep"
    faded_grace: timedelta = timedelta(days=30)


def run_sweep(mem: Memory, policy: SweepPolicy, *, dry_run: bool = False) -> SweepReport:
    now = mem.now()
    batch = new_id("sweep")
    report = SweepReport(batch_id=batch, at=now, dry_run=dry_run)
    base = MemoryFilter(tenant=mem.tenant)

    def change(action: str, flt: MemoryFilter, status: Status, reason: str, name: str) -> None:
        if dry_run:
            ids = mem.store.ids(flt)
            report.steps.append(SweepStep(action, name, len(ids), ids))
            return
        pairs = mem.store.set_status(flt, status, reason=reason, at=now.timestamp())
        by_user: dict[str, list[str]] = {}
        for mid, user in pairs:
            by_user.setdefault(user, []).append(mid)
        for user, ids in by_user.items():
            mem._audit(
                action,
                reason,
                ids=ids,
                user_id=user,
                policy=name,
                batch_id=batch,
                summary=f"{len(ids)} memories {status.value}",
            )
        report.steps.append(SweepStep(action, name, len(pairs), [p[0] for p in pairs]))

    def purge(action: str, flt: MemoryFilter, reason: str, name: str) -> None:
        ids = mem.store.ids(flt)
        if not dry_run and ids:
            for start in range(0, len(ids), 5000):
                records = mem.store.get_many(ids[start : start + 5000], tenant=mem.tenant)
                mem._purge_records(records, reason=reason, policy=name, batch_id=batch, action=action)
        report.steps.append(SweepStep(action, name, len(ids), ids))

    if policy.expire:
        change(
            "expire",
            replace(base, statuses=(Status.ACTIVE, Status.FADED), expired_by=now.timestamp()),
            Status.EXPIRED,
            "expires_at passed",
            "ttl",
        )
    if policy.fade:
        for flt in _faded_filters(mem, base, now):
            change(
                "fade",
                flt,
                Status.FADED,
                f"strength under the recall threshold {mem.decay.recall_threshold}",
                "decay",
            )
    if policy.expire and policy.expired_grace is not None:
        cutoff = (now - policy.expired_grace).timestamp()
        purge(
            "purge_expired",
            replace(base, statuses=(Status.EXPIRED,), expired_by=cutoff),
            f"expired more than {policy.expired_grace} ago",
            "ttl_grace",
        )
    if policy.fade and policy.fade_action == "purge":
        cutoff = (now - policy.faded_grace).timestamp()
        flt = replace(base, statuses=(Status.FADED,), pinned=False)
        ids = [
            r.id
            for r in mem.store.query(flt)
            if r.status_changed_at and r.status_changed_at.timestamp() <= cutoff
        ]
        purge(
            "purge_faded",
            replace(base, ids=tuple(ids), statuses=(Status.FADED,)),
            f"faded more than {policy.faded_grace} ago",
            "fade_grace",
        )
    _extra_policies(mem, policy, report, batch, dry_run)
    return report


def _faded_filters(mem: Memory, base: MemoryFilter, now: object) -> list[MemoryFilter]:
    """Filters of active memories past their fade time: one for wall time, one per user for active days."""
    if mem.decay.clock_mode == "wall":
        return [
            replace(
                base, statuses=(Status.ACTIVE,), pinned=False, faded_by=dk.wall_axis(mem.now().timestamp())
            )
        ]
    return [
        replace(
            base, user_id=u.user_id, statuses=(Status.ACTIVE,), pinned=False, faded_by=mem.axis(u.user_id)
        )
        for u in mem.store.users(tenant=mem.tenant, limit=1_000_000)
    ]


def _extra_policies(mem: Memory, policy: SweepPolicy, report: SweepReport, batch: str, dry_run: bool) -> None:
    """Hook for the eviction and capacity policies (see :mod:`remnant.forgetting`)."""
    return None
