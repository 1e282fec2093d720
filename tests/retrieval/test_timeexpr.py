"""Time expressions resolved against a session date, in English and Chinese."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from remnant.understand.timeexpr import TimeRange, has_time_expression, resolve

# 8 May 2023 was a Monday
REF = date(2023, 5, 8)


def span(text: str, ref: date = REF) -> tuple[date, date]:
    got = resolve(text, ref)
    assert got, f"nothing resolved in {text!r}"
    return got[0].start, got[0].end


def day(y: int, m: int, d: int) -> tuple[date, date]:
    return date(y, m, d), date.fromordinal(date(y, m, d).toordinal() + 1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I went there yesterday", day(2023, 5, 7)),
        ("the day before yesterday", day(2023, 5, 6)),
        ("today was great", day(2023, 5, 8)),
        ("see you tomorrow", day(2023, 5, 9)),
        ("three days ago", day(2023, 5, 5)),
        ("2 days ago", day(2023, 5, 6)),
        ("last week", (date(2023, 5, 1), date(2023, 5, 8))),
        ("this week", (date(2023, 5, 8), date(2023, 5, 15))),
        ("next week", (date(2023, 5, 15), date(2023, 5, 22))),
        ("last weekend", (date(2023, 5, 6), date(2023, 5, 8))),
        ("last month", (date(2023, 4, 1), date(2023, 5, 1))),
        ("last year", (date(2022, 1, 1), date(2023, 1, 1))),
        ("last Friday", day(2023, 5, 5)),
        ("on Monday", day(2023, 5, 8)),
        ("a month ago", (date(2023, 4, 1), date(2023, 5, 1))),
        ("in May 2023", (date(2023, 5, 1), date(2023, 6, 1))),
        ("on 7 May 2023", day(2023, 5, 7)),
        ("June 9th, 2023", day(2023, 6, 9)),
        ("in 2022", (date(2022, 1, 1), date(2023, 1, 1))),
        ("two days before 7 May 2023", day(2023, 5, 5)),
        ("the week before 9 June 2023", (date(2023, 6, 2), date(2023, 6, 9))),
        ("the day after 7 May 2023", day(2023, 5, 8)),
    ],
)
def test_english(text: str, expected: tuple[date, date]) -> None:
    assert span(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我昨天去了公园", day(2023, 5, 7)),
        ("前天", day(2023, 5, 6)),
        ("三天前我搬家了", day(2023, 5, 5)),
        ("3天前", day(2023, 5, 5)),
        ("上周我们见过", (date(2023, 5, 1), date(2023, 5, 8))),
        ("上个星期", (date(2023, 5, 1), date(2023, 5, 8))),
        ("下周", (date(2023, 5, 15), date(2023, 5, 22))),
        ("上个月", (date(2023, 4, 1), date(2023, 5, 1))),
        ("去年", (date(2022, 1, 1), date(2023, 1, 1))),
        ("前年", (date(2021, 1, 1), date(2022, 1, 1))),
        ("2022年3月", (date(2022, 3, 1), date(2022, 4, 1))),
        ("2023年5月7日", day(2023, 5, 7)),
        ("上周五", day(2023, 5, 5)),
        ("十二月", (date(2022, 12, 1), date(2023, 1, 1))),
        ("两个月前", (date(2023, 3, 1), date(2023, 4, 1))),
    ],
)
def test_chinese(text: str, expected: tuple[date, date]) -> None:
    assert span(text) == expected


def test_month_without_a_year_is_the_most_recent_and_yearless() -> None:
    (r,) = resolve("what did she paint in May?", date(2026, 3, 1))
    assert (r.start, r.end, r.yearless) == (date(2025, 5, 1), date(2025, 6, 1), True)
    assert r.overlaps(TimeRange(date(2023, 5, 20), date(2023, 5, 21)))  # any year's May
    assert not r.overlaps(TimeRange(date(2023, 6, 2), date(2023, 6, 3)))
    (z,) = resolve("五月", date(2023, 8, 1))
    assert (z.start, z.yearless) == (date(2023, 5, 1), True)


def test_may_the_verb_is_not_a_month() -> None:
    assert resolve("May I ask what you did?", REF) == []
    assert resolve("you may want to rest", REF) == []
    assert resolve("It may rain", REF) == []
    assert span("in may we moved") == (date(2023, 5, 1), date(2023, 6, 1))
    assert span("since May") == (date(2023, 5, 1), date(2023, 6, 1))
    assert span("May 2022") == (date(2022, 5, 1), date(2022, 6, 1))


def test_year_boundaries() -> None:
    jan = date(2024, 1, 2)  # a Tuesday
    assert span("last month", jan) == (date(2023, 12, 1), date(2024, 1, 1))
    assert span("last week", jan) == (date(2023, 12, 25), date(2024, 1, 1))
    assert span("yesterday", date(2024, 1, 1)) == day(2023, 12, 31)
    assert span("in December", jan) == (date(2023, 12, 1), date(2024, 1, 1))
    assert span("next month", date(2023, 12, 15)) == (date(2024, 1, 1), date(2024, 2, 1))
    assert span("上个月", jan) == (date(2023, 12, 1), date(2024, 1, 1))
    assert span("last May", date(2023, 5, 20)) == (date(2022, 5, 1), date(2022, 6, 1))
    assert span("last May", date(2023, 8, 1)) == (date(2023, 5, 1), date(2023, 6, 1))


def test_leap_years() -> None:
    assert span("yesterday", date(2024, 3, 1)) == day(2024, 2, 29)
    assert span("yesterday", date(2023, 3, 1)) == day(2023, 2, 28)
    assert span("29 February 2024") == day(2024, 2, 29)
    # no such day in a common year: only the month is taken
    assert span("29 February 2023") == (date(2023, 2, 1), date(2023, 3, 1))
    assert span("2024年2月29日") == day(2024, 2, 29)


def test_weeks_start_on_monday_and_sunday_belongs_to_its_week() -> None:
    sunday = date(2023, 5, 14)
    assert span("this week", sunday) == (date(2023, 5, 8), date(2023, 5, 15))
    assert span("last week", sunday) == (date(2023, 5, 1), date(2023, 5, 8))
    assert span("last Sunday", sunday) == day(2023, 5, 7)
    assert span("this weekend", sunday) == (date(2023, 5, 13), date(2023, 5, 15))
    assert span("last weekend", sunday) == (date(2023, 5, 6), date(2023, 5, 8))


def test_unresolvable_and_several() -> None:
    assert resolve("two days before the trip", REF) == []
    assert resolve("I like tea", REF) == []
    got = resolve("Yesterday I said I'd go next week", datetime(2023, 5, 8, 13, 0))
    assert [(r.start, r.end) for r in got] == [day(2023, 5, 7), (date(2023, 5, 15), date(2023, 5, 22))]
    assert has_time_expression("last week") and has_time_expression("上周") and not has_time_expression("tea")
    assert has_time_expression("in May") and has_time_expression("五月")
