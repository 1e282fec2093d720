"""format_duration: durations as people say them (audit reasons used to read "7 days, 0:00:00")."""

from datetime import timedelta

import pytest

from remnant.core.durations import format_duration


@pytest.mark.parametrize(
    ("span", "text"),
    [
        (timedelta(days=7), "7 days"),
        (timedelta(days=1), "1 day"),
        (timedelta(days=30), "30 days"),
        (timedelta(hours=1, minutes=30), "1 hour 30 minutes"),
        (timedelta(days=1, minutes=5), "1 day"),  # the next unit down only
        (timedelta(days=2, hours=3, minutes=4), "2 days 3 hours"),
        (timedelta(seconds=45), "45 seconds"),
        (timedelta(seconds=-90), "1 minute 30 seconds"),
        (timedelta(0), "0 seconds"),
        (timedelta(milliseconds=200), "under a second"),
        (3600, "1 hour"),
    ],
)
def test_format_duration(span: timedelta | int, text: str) -> None:
    assert format_duration(span) == text


def test_sweep_reasons_read_naturally(tmp_path) -> None:
    from datetime import UTC, datetime

    from remnant.core.clock import ManualClock
    from remnant.engine import Memory

    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    mem = Memory(tmp_path / "m.db", clock=clock)
    from datetime import timedelta

    from remnant.engine.forgetting.sweep import SweepPolicy

    kept_a_week = SweepPolicy(expired_grace=timedelta(days=7))  # the default purges at expiry
    mem.remember("locker code 4471", user_id="ana", ttl="1d")
    clock.advance(days=2)
    mem.sweep(policy=kept_a_week)
    clock.advance(days=8)
    mem.sweep(policy=kept_a_week)
    reasons = [e.reason for e in mem.audit_log(user_id="ana")]
    assert "expired more than 7 days ago" in reasons, reasons
