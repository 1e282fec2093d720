"""Weekday names and day ends, shared by the time resolver (retrieval) and the expiry reader
(extract), which sit in different layers.

Weeks run Monday (0) to Sunday (6). A day's end is the next midnight in the clock's own zone.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from remnant.core.text.words import table, words

# the names are data (data/<lang>/calendar.json), Monday first
WEEKDAYS: dict[str, int] = {name: i for i, name in enumerate(words("calendar", "weekdays", "en"))}
# 周五, 星期天, 礼拜日: the character after the week word
ZH_WEEKDAYS: dict[str, int] = dict(table("zh", "calendar")["weekday_chars"])


def coming_weekday(ref: date, weekday: int, *, week: int | None = None) -> date | None:
    """The day named by a weekday said on ``ref``: bare (``week=None``) the next one on or after
    ``ref``; ``week=0`` this week's (``None`` once it has passed), ``week=1`` next week's."""
    if week is None:
        return ref + timedelta(days=(weekday - ref.weekday()) % 7)
    day = ref - timedelta(days=ref.weekday()) + timedelta(days=7 * week + weekday)
    return day if day >= ref else None


def end_of_day(day: date, now: datetime) -> datetime:
    """The midnight that ends ``day`` in ``now``'s time zone."""
    return datetime.combine(day + timedelta(days=1), time(0), tzinfo=now.tzinfo)
