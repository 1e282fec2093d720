"""Shared fixtures: a real SQLite file in a temp folder and a clock we control."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from remnant import ManualClock, Memory


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2026, 1, 1, 9, 0, tzinfo=UTC))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "remnant.db"


@pytest.fixture
def mem(db_path: Path, clock: ManualClock) -> Iterator[Memory]:
    with Memory(db_path, clock=clock) as m:
        yield m
