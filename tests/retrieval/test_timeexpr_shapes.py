"""Time expressions of the shapes the LoCoMo temporal misses showed unread: clipped weekdays, weekends
and vague counts ago, durations up to now, seasons, a bare day of the month, and "just" / "lately"."""

from __future__ import annotations

from datetime import date

import pytest

from remnant.understand.timeexpr import has_time_expression, mentions_recent, resolve

MON_17_JULY = date(2023, 7, 17)


def spans(text: str, ref: date = MON_17_JULY) -> list[tuple[str, str]]:
    return [(r.start.isoformat(), r.end.isoformat()) for r in resolve(text, ref)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Last Fri I took my kids to a pottery workshop", [("2023-07-14", "2023-07-15")]),
        ("I joined a new activist group last Tues.", [("2023-07-11", "2023-07-12")]),
        ("see you on Thurs", [("2023-07-13", "2023-07-14")]),
        ("we went camping two weekends ago", [("2023-07-08", "2023-07-10")]),
        ("I got the tattoo a few years ago", [("2018-01-01", "2022-01-01")]),
        ("several days ago", [("2023-07-11", "2023-07-15")]),
        ("I've had them for 3 years now", [("2020-01-01", "2021-01-01")]),
        ("I've been playing for about four months now", [("2023-03-01", "2023-04-01")]),
        ("our camping trip last summer", [("2022-06-01", "2022-09-01")]),
        ("this summer is hot", [("2023-06-01", "2023-09-01")]),
        ("next winter", [("2023-12-01", "2024-03-01")]),
        ("in the summer of 2022", [("2022-06-01", "2022-09-01")]),
        ("I met my teammates on the 15th after my trip", [("2023-07-15", "2023-07-16")]),
        ("on the 20th", [("2023-06-20", "2023-06-21")]),  # still to come this month: the last one
    ],
)
def test_shapes(text: str, expected: list[tuple[str, str]]) -> None:
    assert has_time_expression(text)
    assert spans(text) == expected


def test_last_season_is_the_one_that_ended() -> None:
    assert spans("last summer", date(2023, 10, 5)) == [("2023-06-01", "2023-09-01")]
    assert spans("this winter", date(2024, 1, 10)) == [("2023-12-01", "2024-03-01")]


@pytest.mark.parametrize("text", ["I fall down a lot", "now I know", "I may go", "frying pan on the stove"])
def test_not_times(text: str) -> None:
    assert resolve(text, MON_17_JULY) == []


def test_mentions_recent() -> None:
    assert mentions_recent("I just got accepted for a fashion internship!")
    assert mentions_recent("Been super busy lately.")
    assert mentions_recent("我刚买了一辆车")
    assert not mentions_recent("Justin is here, adjusting the plan")
