"""The store methods forgetting relies on, on every backend (SQLite file, PostgreSQL).

``changed_before`` (purges after a grace period), ``id_users`` (purges in user order) and the
importance scans (``low_importance``, ``over_capacity``: a backend may compute them in SQL, but must
agree with the Python definition in the base class).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant.core.model import MemoryRecord, Status, new_id
from remnant.store import open_store
from remnant.store.base import MemoryFilter, Store

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = str(tmp_path / "r.db") if request.param == "sqlite" else str(request.getfixturevalue("pg_url"))
    s = open_store(url)
    yield s
    s.close()


def _fill(store: Store) -> list[MemoryRecord]:
    rng = random.Random(5)
    out = []
    for i in range(40):
        created = T0 - timedelta(days=rng.randint(0, 300))
        r = MemoryRecord(
            id=new_id(),
            user_id=f"u{i % 4}",
            content=f"remark {i}",
            created_at=created,
            last_accessed_at=created + timedelta(days=rng.randint(0, 20)) if i % 3 else None,
            access_count=rng.randint(0, 5),
            confidence=rng.random(),
            importance=rng.random(),
            pinned=i % 13 == 0,
            status=Status.FADED if i % 5 == 0 else Status.ACTIVE,
            status_changed_at=T0 - timedelta(days=i) if i % 5 == 0 else None,
            strength0=0.9,
            stability=10.0,
            anchor=20000.0,
            fade_at=20010.0,
        )
        store.insert(r)
        out.append(r)
    return out


def test_changed_before_and_id_users(store: Store) -> None:
    records = _fill(store)
    cutoff = (T0 - timedelta(days=20)).timestamp()
    got = set(store.ids(MemoryFilter(statuses=(Status.FADED,), changed_before=cutoff)))
    want = {r.id for r in records if r.status_changed_at and r.status_changed_at.timestamp() <= cutoff}
    assert got == want and 0 < len(got) < 8
    pairs = store.id_users(MemoryFilter(statuses=None))
    assert [u for _, u in pairs] == sorted(u for _, u in pairs) and len(pairs) == 40


def test_importance_scans_agree_with_the_python_definition(store: Store) -> None:
    _fill(store)
    now = T0.timestamp()
    flt = MemoryFilter(statuses=(Status.ACTIVE, Status.FADED))
    kw = {"now": now, "decay_per_day": 0.99, "mark_weight": 4.0}
    fast = {i: s for i, _, s in store.low_importance(flt, below=0.05, **kw)}  # type: ignore[arg-type]
    slow = {i: s for i, _, s in Store.low_importance(store, flt, below=0.05, **kw)}  # type: ignore[arg-type]
    assert fast.keys() == slow.keys() and fast
    assert all(fast[i] == pytest.approx(slow[i], rel=1e-9) for i in fast)
    over = sorted(t[0] for t in store.over_capacity(flt, keep=6, **kw))  # type: ignore[arg-type]
    assert over == sorted(t[0] for t in Store.over_capacity(store, flt, keep=6, **kw))  # type: ignore[arg-type]
    assert len(over) == 40 - 4 * 6
    # a decade on with a steep decay the score underflows: it must read as 0, not raise (PostgreSQL's
    # exp() errors on underflow where Python returns 0.0)
    late = {"now": now + 3650 * 86400, "decay_per_day": 0.5, "mark_weight": 4.0}
    gone = store.low_importance(flt, below=1e-300, **late)  # type: ignore[arg-type]
    assert len(gone) == 40 - 4 and all(s < 1e-300 for _, _, s in gone)  # every unpinned row
