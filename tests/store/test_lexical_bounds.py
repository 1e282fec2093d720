"""Lexical ranking on a bounded candidate set (issue 17), on both backends: when a query's terms match
more rows than the budget, the rarest terms are scored exactly and common terms only in the newest
rows; the scores are the exact query's."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant.core.model import MemoryRecord, new_id
from remnant.store import open_store
from remnant.store.base import MemoryFilter
from remnant.store.sql import SQLStore

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SQLStore]:
    url = str(tmp_path / "b.db") if request.param == "sqlite" else str(request.getfixturevalue("pg_url"))
    s = open_store(url)
    assert isinstance(s, SQLStore)
    yield s
    s.close()


def _put(store: SQLStore, texts: list[str], user: str = "ana") -> list[str]:
    ids = []
    for i, text in enumerate(texts):
        r = MemoryRecord(id=new_id(), user_id=user, content=text, created_at=T0 + timedelta(seconds=i))
        store.insert(r)
        ids.append(r.id)
    return ids


def test_bounded_ranking_keeps_rare_matches_and_exact_scores(store: SQLStore) -> None:
    common = [f"the garden note number {i}" for i in range(60)]
    ids = _put(store, [*common[:30], "a kiwi in the garden", *common[30:]])
    kiwi = ids[30]
    _put(store, ["kiwi garden kiwi"], user="bob")  # another scope never comes back
    flt = MemoryFilter(tenant="default", user_id="ana")
    query = '"kiwi" OR "garden"'
    exact = store.lexical_search(query, flt, limit=100)
    assert len(exact) == 61 and exact[0][0] == kiwi
    store.lexical_budget, store.lexical_window = 10, 5  # this instance only
    bounded = store.lexical_search(query, flt, limit=100)
    # the rare term's row, plus the newest rows of the common term
    assert bounded[0][0] == kiwi
    assert len(bounded) == 1 + 5
    newest = set(ids[-5:])
    assert {i for i, _ in bounded[1:]} == newest
    scores = dict(exact)
    for i, s in bounded:
        assert s == pytest.approx(scores[i], rel=1e-9, abs=1e-12)


def test_bounded_ranking_below_the_budget_is_the_exact_query(store: SQLStore) -> None:
    _put(store, ["green tea", "black tea", "green garden", "coffee"])
    flt = MemoryFilter(tenant="default", user_id="ana")
    query = '"green" OR "tea"'
    exact = store.lexical_search(query, flt, limit=10)
    store.lexical_budget = 4  # 2 + 2 rows: still exact
    assert store.lexical_search(query, flt, limit=10) == exact
