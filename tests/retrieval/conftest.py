"""Fixtures of the retrieval tests: the product with its recall models, for the floor's tests."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant import ManualClock, Memory
from remnant.embed.base import EmbedderUnavailable
from remnant.embed.registry import get_embedder

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def product(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Memory, ManualClock]]:
    """``Memory(path)`` as a user opens it (the test suite's fast defaults put back: e5-small and
    the salience model), the privacy layer off: these tests read the recalled texts as said."""
    try:
        get_embedder("e5-small", threads=1)
    except EmbedderUnavailable as exc:  # pragma: no cover - the model ships with the package
        pytest.skip(f"e5-small not installed: {exc}")
    monkeypatch.setenv("REMNANT_EMBEDDER", "e5-small")
    monkeypatch.setenv("REMNANT_SALIENCE", "model")
    monkeypatch.setenv("REMNANT_PRIVACY", "off")
    monkeypatch.delenv("REMNANT_RELEVANCE_FLOOR", raising=False)
    clock = ManualClock(T0)
    mem = Memory(tmp_path / "m.db", clock=clock)
    try:
        yield mem, clock
    finally:
        mem.close()


def days(mem: Memory, clock: ManualClock, n: int) -> None:
    """``n`` days pass, a sweep a day, as a server's scheduler runs it."""
    for _ in range(n):
        clock.advance(timedelta(days=1))
        mem.sweep()
