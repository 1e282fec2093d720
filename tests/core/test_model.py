from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from remnant.core.clock import ManualClock, ensure_aware
from remnant.core.durations import parse_duration
from remnant.core.errors import ValidationError
from remnant.core.model import Kind, Status, new_id
from remnant.core.text import fts_match, index_text, query_terms


@pytest.mark.parametrize(
    "text,expected",
    [
        ("10m", timedelta(minutes=10)),
        ("24h", timedelta(hours=24)),
        ("7d", timedelta(days=7)),
        ("2w", timedelta(weeks=2)),
        ("1h30m", timedelta(minutes=90)),
        ("P1DT2H", timedelta(days=1, hours=2)),
        ("90", timedelta(seconds=90)),
        (3600, timedelta(hours=1)),
        ("1 h 5 m", timedelta(minutes=65)),
    ],
)
def test_durations(text: str | int, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize("bad", ["", "abc", "10x", "-5m", "0", "m10", "P", True])
def test_malformed_durations_are_refused(bad: object) -> None:
    with pytest.raises(ValidationError):
        parse_duration(bad)  # type: ignore[arg-type]


def test_naive_datetimes_are_refused() -> None:
    with pytest.raises(ValidationError, match="timezone-aware"):
        ensure_aware(datetime(2026, 1, 1))


def test_manual_clock_only_moves_forward() -> None:
    clock = ManualClock()
    start = clock.now()
    assert clock.advance(days=1) - start == timedelta(days=1)
    with pytest.raises(ValidationError):
        clock.advance(timedelta(days=-1))


def test_ids_are_unique_and_sortable() -> None:
    ids = [new_id() for _ in range(1000)]
    assert len(set(ids)) == 1000
    assert all(i.startswith("mem_") and len(i) == 30 for i in ids)


def test_vocabulary_errors_name_the_choices() -> None:
    with pytest.raises(ValidationError, match="preference"):
        Kind.parse("opinion")
    with pytest.raises(ValidationError, match="hidden"):
        Status.parse("gone")


def test_chinese_text_is_indexed_as_bigrams() -> None:
    assert "喜欢" in index_text("我喜欢草莓蛋糕")
    assert "草莓" in query_terms("草莓")
    assert fts_match("the and of") is not None  # all stopwords: fall back to the words themselves
    assert fts_match("   ") is None
