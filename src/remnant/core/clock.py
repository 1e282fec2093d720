"""Injectable time. Every component reads time through a :class:`Clock`, so a year of forgetting runs in a test."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable

from remnant.core.errors import ValidationError


@runtime_checkable
class Clock(Protocol):
    """Anything with a ``now()`` that returns an aware UTC datetime."""

    def now(self) -> datetime: ...


class SystemClock:
    """The real wall clock, in UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class ManualClock:
    """A clock that only moves when told to; thread-safe, for tests and simulations."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = ensure_aware(start) if start is not None else datetime(2026, 1, 1, tzinfo=UTC)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def advance(
        self,
        delta: timedelta | None = None,
        *,
        days: float = 0,
        hours: float = 0,
        minutes: float = 0,
        seconds: float = 0,
    ) -> datetime:
        """Move forward by ``delta`` plus the given units; returns the new time. Time never goes back."""
        step = (delta or timedelta()) + timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds)
        if step < timedelta():
            raise ValidationError("a clock cannot go backwards")
        with self._lock:
            self._now += step
            return self._now

    def set(self, when: datetime) -> None:
        when = ensure_aware(when)
        with self._lock:
            if when < self._now:
                raise ValidationError("a clock cannot go backwards")
            self._now = when


def ensure_aware(value: datetime, *, name: str = "datetime") -> datetime:
    """Return ``value`` in UTC; a naive datetime is an error, never silently assumed local."""
    if not isinstance(value, datetime):
        raise ValidationError(f"{name} must be a datetime, got {type(value).__name__}")
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise ValidationError(
            f"{name} must be timezone-aware (got naive {value.isoformat()}); "
            "pass e.g. datetime(..., tzinfo=timezone.utc)"
        )
    return value.astimezone(UTC)


def to_epoch(value: datetime | None) -> float | None:
    return None if value is None else ensure_aware(value).timestamp()


def from_epoch(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)
