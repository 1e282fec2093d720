"""Cadence: expiry and fading daily, eviction weekly (by default), for whoever runs sweeps periodically.

The service calls :func:`run_due` on a timer (say hourly); it runs a sweep when one is due and
includes the eviction steps only when the eviction interval has passed since the last eviction.
The last run times live in the store's meta table, so restarts and several workers agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from remnant.core.clock import from_epoch
from remnant.core.errors import ValidationError
from remnant.engine.forgetting.sweep import SweepPolicy, run_sweep
from remnant.engine.ledger import retrying
from remnant.engine.results import SweepReport

if TYPE_CHECKING:
    from remnant.engine.ledger import Ledger
    from remnant.engine.options import LastingReader


@dataclass(frozen=True)
class Schedule:
    sweep_every: timedelta = timedelta(days=1)
    evict_every: timedelta = timedelta(days=7)
    policy: SweepPolicy = field(default_factory=SweepPolicy)

    def __post_init__(self) -> None:
        if self.sweep_every <= timedelta(0) or self.evict_every <= timedelta(0):
            raise ValidationError("sweep and eviction intervals must be positive")


def _last(ledger: Ledger, what: str) -> datetime | None:
    value = ledger.store.get_meta(f"last_{what}:{ledger.tenant}")
    return from_epoch(float(value)) if value else None


def run_due(
    ledger: Ledger, schedule: Schedule | None = None, *, reader: LastingReader | None = None
) -> SweepReport | None:
    """Run a sweep if one is due (``None`` otherwise); eviction only if its interval has passed.
    ``reader``: what of a fading turn lasts (the ingestor's: ``Memory.sweep`` passes its own)."""
    sched = schedule or Schedule()
    now = ledger.now()
    last_sweep, last_evict = _last(ledger, "sweep"), _last(ledger, "evict")
    if last_sweep is not None and now - last_sweep < sched.sweep_every:
        return None
    evict_due = last_evict is None or now - last_evict >= sched.evict_every
    policy = sched.policy if evict_due else replace(sched.policy, evict=None)
    report = retrying(ledger.store, lambda: run_sweep(ledger, policy, reader=reader))
    if report.skipped is None:
        ledger.store.set_meta(f"last_sweep:{ledger.tenant}", str(now.timestamp()))
        if evict_due and policy.evict is not None:
            ledger.store.set_meta(f"last_evict:{ledger.tenant}", str(now.timestamp()))
    return report
