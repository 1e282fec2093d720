from __future__ import annotations

from datetime import timedelta

import pytest

from remnant.core.clock import ManualClock
from remnant.core.errors import ValidationError
from remnant.engine.forgetting.schedule import Schedule, run_due
from remnant.engine.memory import Memory


def test_daily_sweeps_with_weekly_eviction(mem: Memory, clock: ManualClock) -> None:
    evicting_days, sweeps = [], 0
    for day in range(15):
        for _hour in range(0, 24, 6):  # the service polls every six hours
            report = run_due(mem.ledger)
            if report is not None:
                sweeps += 1
                if any(s.action == "evict" for s in report.steps):
                    evicting_days.append(day)
            clock.advance(hours=6)
    assert sweeps == 15
    assert evicting_days == [0, 7, 14]
    with pytest.raises(ValidationError):
        Schedule(sweep_every=timedelta(0))
