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
