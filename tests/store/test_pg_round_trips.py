"""Round trips of the batched store writes on PostgreSQL (issue 30), counted on the store's own
connections with the profile's counting cursor (``remnant bench round-trips``)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from remnant.bench.round_trips import RoundTripCounter, counting
from remnant.core.model import MemoryRecord, new_id
from remnant.store import open_store

pytestmark = pytest.mark.pg


def _rec(i: int) -> MemoryRecord:
    return MemoryRecord(
        id=new_id(), user_id="ana", content=f"memory {i}", created_at=datetime(2026, 1, 1, tzinfo=UTC)
    )


def test_batched_writes_are_one_round_trip_each(pg_url: str) -> None:
    store = open_store(pg_url)
    try:
        rows = [_rec(i) for i in range(5)]
        counter = RoundTripCounter()
        with counting(store, counter), store.transaction():
            store.insert_many([(r, None) for r in rows], digests={r.id: f"d{i}" for i, r in enumerate(rows)})
            found = store.by_digests([f"d{i}" for i in range(5)], tenant="default", user_id="ana")
            locked = store.locked_rows([r.id for r in rows])
            for r in locked:
                r.metadata = {"contradicted_by": ["x"]}
            store.update_many(locked)
        # BEGIN, one statement each (an executemany is pipelined: one round trip), COMMIT; the
        # calls these replace took 16 (the digests a second statement, a lookup and an UPDATE a
        # row, the lock apart from the read)
        assert counter.trips == 6, counter.counts
        assert sorted(found) == [f"d{i}" for i in range(5)]
        assert [r.metadata for r in store.get_many([r.id for r in rows])] == [{"contradicted_by": ["x"]}] * 5
    finally:
        store.close()
