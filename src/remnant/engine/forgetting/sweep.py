"""Forgetting sweeps: set-based status changes and purges, each step audited under one batch id.

Every step is one filtered statement in the store (no row loops over the table), and a status
change only touches rows that are not already in the target status, so two sweeps running at the
same time cannot apply the same change twice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import TYPE_CHECKING, Literal

from remnant.core.durations import format_duration
from remnant.core.model import Status, new_id
from remnant.engine.forgetting.consolidation import ConsolidationPolicy, run_consolidation
from remnant.engine.forgetting.eviction import EvictionPolicy, run_eviction
from remnant.engine.ledger import Transition
from remnant.engine.results import SweepReport, SweepStep
from remnant.store.base import MemoryFilter

if TYPE_CHECKING:
    from remnant.engine.ledger import Ledger
    from remnant.engine.options import LastingReader


@dataclass(frozen=True)
class SweepPolicy:
    """What a sweep does. Defaults: expire and mark faded; purge what expired (its end was said:
    a one-time code, a door code "good till Friday" is stored nowhere after it); keep faded;
    evict low-importance memories unused for 30 days (the service runs eviction weekly, see
    :mod:`remnant.engine.forgetting.schedule`); no capacity cap; one sweep per tenant at a time."""

    expire: bool = True
    # how long an expired memory is kept (not recalled) before it is purged: none by default, since
    # what was said to expire should be stored nowhere after; None: keep expired memories forever
    expired_grace: timedelta | None = timedelta(0)
    fade: bool = True
    fade_action: Literal["keep", "purge"] = "keep"
    faded_grace: timedelta = timedelta(days=30)
    # salient episodes about to fade become facts first (None: off); see .consolidation
    consolidate: ConsolidationPolicy | None = field(default_factory=ConsolidationPolicy)
    # importance eviction and the per-user capacity cap (None: off); see remnant.engine.forgetting.eviction
    evict: EvictionPolicy | None = field(default_factory=EvictionPolicy)
    # one sweep per tenant at a time (a lease in the store's meta table); steps are idempotent anyway
    lock: bool = True
    lock_lease: timedelta = timedelta(hours=1)


def run_sweep(
    ledger: Ledger, policy: SweepPolicy, *, dry_run: bool = False, reader: LastingReader | None = None
) -> SweepReport:
    """One sweep; ``reader``: what of a fading turn lasts (the ingestor's, for consolidation)."""
    report = _run_sweep(ledger, policy, dry_run=dry_run, reader=reader)
    if not dry_run and any(s.count for s in report.steps if s.action.startswith(("purge", "evict"))):
        ledger.store.scrub()  # once per sweep, not per purged chunk
    return report


def _run_sweep(
    ledger: Ledger, policy: SweepPolicy, *, dry_run: bool = False, reader: LastingReader | None = None
) -> SweepReport:
    now = ledger.now()
    batch = new_id("sweep")
    report = SweepReport(batch_id=batch, at=now, dry_run=dry_run)
    if policy.lock and not dry_run:
        holder = _acquire(ledger, batch, policy.lock_lease)
        if holder is not None:
            report.skipped = f"another sweep ({holder}) is running on tenant {ledger.tenant!r}"
            return report
        try:
            _run_steps(ledger, policy, report, batch, dry_run, reader)
        finally:
            _release(ledger, batch)
        return report
    _run_steps(ledger, policy, report, batch, dry_run, reader)
    return report


def _lock_key(ledger: Ledger) -> str:
    return f"sweep_lock:{ledger.tenant}"


def _acquire(ledger: Ledger, batch: str, lease: timedelta) -> str | None:
    """Take the tenant's sweep lease; returns the holder's batch id when someone else has it.

    The lease uses the real clock (it is about processes, not about simulated memory time), so a
    crashed sweep blocks others for at most ``lease``.
    """
    key = _lock_key(ledger)
    with ledger.store.transaction():
        held = ledger.store.get_meta(key) or ""
        if held:
            holder, _, until = held.partition("|")
            if holder != batch and float(until or 0) > time.time():
                return holder
        ledger.store.set_meta(key, f"{batch}|{time.time() + lease.total_seconds()}")
    return None


def _release(ledger: Ledger, batch: str) -> None:
    key = _lock_key(ledger)
    with ledger.store.transaction():
        if (ledger.store.get_meta(key) or "").startswith(f"{batch}|"):
            ledger.store.set_meta(key, "")


def _run_steps(
    ledger: Ledger,
    policy: SweepPolicy,
    report: SweepReport,
    batch: str,
    dry_run: bool,
    reader: LastingReader | None = None,
) -> None:
    now = ledger.now()
    base = MemoryFilter(tenant=ledger.tenant)

    def change(action: str, flt: MemoryFilter, status: Status, reason: str, name: str) -> None:
        if dry_run:
            ids = ledger.store.ids(flt)
            report.steps.append(SweepStep(action, name, len(ids), ids))
            return
        pairs = ledger.transition(
            flt, Transition(status, action, reason, policy=name, batch_id=batch), at=now
        )
        report.steps.append(SweepStep(action, name, len(pairs), [p[0] for p in pairs]))

    def purge(action: str, flt: MemoryFilter, reason: str, name: str) -> None:
        ids = [p[0] for p in ledger.store.id_users(flt)] if not dry_run else ledger.store.ids(flt)
        if not dry_run and ids:
            done: list[str] = []
            for start in range(0, len(ids), 5000):
                chunk = ids[start : start + 5000]
                purged = ledger.purge(
                    chunk, reason=reason, policy=name, batch_id=batch, action=action, scrub=False
                )
                done.extend(r.id for r in purged)
            ids = done
        report.steps.append(SweepStep(action, name, len(ids), ids))

    if policy.expire:
        change(
            "expire",
            replace(base, statuses=(Status.ACTIVE, Status.FADED), expired_by=now.timestamp()),
            Status.EXPIRED,
            "expires_at passed",
            "ttl",
        )
    if policy.consolidate is not None and policy.consolidate.enabled:
        report.steps.append(
            run_consolidation(ledger, policy.consolidate, batch_id=batch, dry_run=dry_run, reader=reader)
        )
    if policy.fade:
        for flt in ledger.fading_filters(base):
            change(
                "fade",
                flt,
                Status.FADED,
                f"strength under the recall threshold {ledger.decay.recall_threshold}",
                "decay",
            )
    if policy.expire and policy.expired_grace is not None:
        cutoff = (now - policy.expired_grace).timestamp()
        purge(
            "purge_expired",
            replace(base, statuses=(Status.EXPIRED,), expired_by=cutoff),
            f"expired more than {format_duration(policy.expired_grace)} ago"
            if policy.expired_grace
            else "expired",
            "ttl_grace",
        )
    if policy.fade and policy.fade_action == "purge":
        cutoff = (now - policy.faded_grace).timestamp()
        purge(
            "purge_faded",
            replace(base, statuses=(Status.FADED,), pinned=False, changed_before=cutoff),
            f"faded more than {format_duration(policy.faded_grace)} ago",
            "fade_grace",
        )
    _extra_policies(ledger, policy, report, batch, dry_run)


def _extra_policies(
    ledger: Ledger, policy: SweepPolicy, report: SweepReport, batch: str, dry_run: bool
) -> None:
    """The eviction and capacity policies (see :mod:`remnant.engine.forgetting.eviction`)."""
    if policy.evict is not None and policy.evict.enabled:
        report.steps.extend(run_eviction(ledger, policy.evict, batch_id=batch, dry_run=dry_run))
