"""Time for the training layer: the core :class:`~remnant.core.clock.Clock` seam plus helpers.

Functions take either a ``now`` datetime or a clock object (anything with ``now()`` returning an
aware UTC datetime, e.g. the core ``ManualClock``) so tests can pin time exactly.
"""

from __future__ import annotations

from datetime import UTC, datetime

from remnant.core.clock import Clock, SystemClock

__all__ = ["Clock", "FixedClock", "SystemClock", "ensure_utc", "format_time", "parse_time", "resolve_now"]


class FixedClock:
    """A clock frozen at one instant (reproducible exports and benchmarks)."""

    def __init__(self, at: datetime) -> None:
        self._at = ensure_utc(at)

    def now(self) -> datetime:
        return self._at


def ensure_utc(value: datetime) -> datetime:
    """Return ``value`` as an aware UTC datetime; naive datetimes are taken to be UTC already."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def resolve_now(now: datetime | None = None, clock: Clock | None = None) -> datetime:
    """Pick the reference time: an explicit ``now`` wins, then the clock, then the system clock."""
    if now is not None:
        return ensure_utc(now)
    if clock is not None:
        return ensure_utc(clock.now())
    return datetime.now(UTC)


def parse_time(value: object) -> datetime:
    """Parse an ISO 8601 date or datetime (or a bare year) into aware UTC.

    Accepts ``2024``, ``2024-03``, ``2024-03-01``, ``2024-03-01T12:00:00Z`` and datetimes.
    Raises ``ValueError`` with the offending value otherwise.
    """
    if isinstance(value, datetime):
        return ensure_utc(value)
    if isinstance(value, int) and not isinstance(value, bool) and 1000 <= value <= 9999:
        return datetime(value, 1, 1, tzinfo=UTC)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"not a date: {value!r}")
    text = value.strip()
    if len(text) == 4 and text.isdigit():
        return datetime(int(text), 1, 1, tzinfo=UTC)
    if len(text) == 7 and text[4] == "-":
        return datetime(int(text[:4]), int(text[5:]), 1, tzinfo=UTC)
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        return ensure_utc(datetime.fromisoformat(text))
    except ValueError:
        raise ValueError(f"not an ISO 8601 date: {value!r}") from None


def format_time(value: datetime) -> str:
    """Fixed-width ISO text in UTC, so stored times sort lexicographically."""
    return ensure_utc(value).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")
