"""Fixtures of the engine tests: the product (``remnant.Memory``) on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from remnant import Memory
from remnant.core.clock import ManualClock
from remnant.privacy import generate_key
from remnant.store.postgres import PostgresStore

#: Opens the product on the test's backend with the given clock; closed when the test ends.
OpenMemory = Callable[[ManualClock], Memory]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
def open_mem(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[OpenMemory]:
    opened: list[Memory] = []
    if request.param == "postgres":  # a server database keeps its vault key outside it
        monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
        monkeypatch.delenv("REMNANT_VAULT_KEY_FILE", raising=False)

    def make(clock: ManualClock) -> Memory:
        if request.param == "sqlite":
            mem = Memory(tmp_path / "m.db", clock=clock)
        else:
            mem = Memory(store=PostgresStore(request.getfixturevalue("pg_url")), clock=clock)
        opened.append(mem)
        return mem

    yield make
    for mem in opened:
        mem.close()


@pytest.fixture
def product_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """The product's own defaults (e5-small, the salience and pair models): the test suite's
    lexical, rules-only switches unset; skipped where e5-small is not installed."""
    from remnant.embed.base import EmbeddingError
    from remnant.embed.registry import get_embedder

    try:
        get_embedder("e5-small", threads=1)
    except EmbeddingError as exc:
        pytest.skip(f"e5-small not installed: {exc}")
    for name in ("REMNANT_EMBEDDER", "REMNANT_SALIENCE", "REMNANT_ATTRIBUTES"):
        monkeypatch.delenv(name, raising=False)
