"""Lexical ranking on a bounded candidate set (issue 17), on both backends: when a query's terms match
more rows than the budget, the rarest terms are scored exactly and common terms only in the newest
rows; the scores are the exact query's."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from remnant.core.model import MemoryRecord, new_id
from remnant.store import open_store
from remnant.store.base import MemoryFilter
from remnant.store.sql import SQLStore
from remnant.store.sqlite import SQLiteStore

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


# -- SQLite: the scope token is left out only where it cannot change the answer ------------------


def _sqlite(tmp_path: Path) -> SQLStore:
    s = open_store(str(tmp_path / "s.db"))
    assert isinstance(s, SQLStore)
    return s


def _scoped_exact(store: SQLStore, query: str, user: str, limit: int) -> list[tuple[str, float]]:
    """The scoped FTS5 query as it was run before (scope token inside the MATCH)."""
    from remnant.store.sqlite import scope_token

    conn = store.connection  # type: ignore[attr-defined]
    rows = conn.execute(
        "WITH hits AS MATERIALIZED (SELECT rowid AS rid, bm25(memory_fts, 0.0, 1.0) AS score "
        "FROM memory_fts WHERE memory_fts MATCH ?) SELECT m.id, hits.score FROM hits "
        "CROSS JOIN memories m ON m.rid = hits.rid WHERE m.tenant = 'default' AND m.user_id = ? "
        "ORDER BY hits.score LIMIT ?",
        (f'scope : "{scope_token("default", user)}" AND text : ({query})', user, limit),
    ).fetchall()
    return [(r[0], -float(r[1])) for r in rows]


def test_exact_query_without_the_scope_token_is_the_scoped_query(tmp_path: Path) -> None:
    store = _sqlite(tmp_path)
    _put(store, [f"green tea number {i}" for i in range(20)] + ["black tea", "green garden"], user="ana")
    _put(store, [f"green tea and more tea {i}" for i in range(30)], user="bob")
    flt = MemoryFilter(tenant="default", user_id="ana", statuses=None)
    for query in ('"green" OR "tea"', '"garden" OR "black" OR "tea"'):
        got = store.lexical_search(query, flt, limit=100)
        assert got == _scoped_exact(store, query, "ana", 100)  # same ids, order and float scores
    store.close()


def test_a_wide_scope_ranks_as_its_scoped_query(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One user holding nearly the whole file: the bounded ranking without the token is the one
    with it (the other user's rows hold only the common term)."""
    import remnant.store.sqlite as sqlite_store

    store = _sqlite(tmp_path)
    texts = [f"the garden note number {i}" for i in range(60)]
    _put(store, [*texts[:20], "a kiwi in the garden", *texts[20:], "kiwi pie"], user="ana")
    _put(store, ["garden party"], user="bob")
    store.lexical_budget, store.lexical_window = 10, 5
    flt = MemoryFilter(tenant="default", user_id="ana")
    wide = store.lexical_search('"kiwi" OR "garden"', flt, limit=100)
    monkeypatch.setattr(sqlite_store, "WIDE_SCOPE", 2.0)  # never wide: the token in every statement
    narrow = store.lexical_search('"kiwi" OR "garden"', flt, limit=100)
    assert wide == narrow and len(wide) == 2 + 5
    store.close()


def test_candidates_beyond_the_budget_are_rare_rows_then_the_newest(tmp_path: Path) -> None:
    store = _sqlite(tmp_path)
    ids = _put(store, ["a kiwi in the garden", *[f"the garden note number {i}" for i in range(40)]])
    _put(store, ["kiwi garden kiwi"], user="bob")  # another scope never comes back
    flt = MemoryFilter(tenant="default", user_id="ana")
    query = '"kiwi" OR "garden"'
    assert store.lexical_candidates(query, flt, limit=5) == store.lexical_search(query, flt, limit=5)
    store.lexical_budget, store.candidate_budget = 10, 5
    got = [i for i, _ in store.lexical_candidates(query, flt, limit=5)]
    assert got == [ids[0], *reversed(ids[-4:])]  # the rare term's row, then the newest rows
    store.close()


def test_a_scope_sharing_the_file_keeps_its_token(tmp_path: Path) -> None:
    """Half the file is another user's, holding the same words: counts, window and scores stay the
    scope's own (the other user's rows would crowd the window without the token)."""
    store = _sqlite(tmp_path)
    texts = [f"the garden note number {i}" for i in range(60)]
    ids = _put(store, [*texts[:30], "a kiwi in the garden", *texts[30:]])
    _put(store, [f"kiwi garden {i}" for i in range(61)], user="bob")  # newer than every ana row
    flt = MemoryFilter(tenant="default", user_id="ana")
    exact = dict(store.lexical_search('"kiwi" OR "garden"', flt, limit=100))
    store.lexical_budget, store.lexical_window = 10, 5
    bounded = store.lexical_search('"kiwi" OR "garden"', flt, limit=100)
    assert bounded[0][0] == ids[30]
    assert {i for i, _ in bounded[1:]} == set(ids[-5:])
    assert all(s == pytest.approx(exact[i], rel=1e-9) for i, s in bounded)
    store.close()


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SQLiteStore]:
    s = open_store(str(tmp_path / "own.db"))
    assert isinstance(s, SQLiteStore)
    yield s
    s.close()


def test_a_large_sqlite_table_scores_the_bounded_candidates_itself(sqlite_store: SQLiteStore) -> None:
    """Above ``own_scoring_above`` rows, FTS5's ``bm25()`` (whose IDF pass reads every row holding a
    query word, whatever the candidates) is replaced by a score in SQL over the same bounded
    candidates: the rare term's rows first, the newest rows of the common term, another scope never;
    rows holding more of the words, then shorter ones, rank higher."""
    store = sqlite_store
    common = [f"the garden note number {i}" for i in range(60)]
    ids = _put(store, [*common[:30], "a kiwi in the garden", *common[30:]])
    kiwi = ids[30]
    _put(store, ["kiwi garden kiwi"], user="bob")
    flt = MemoryFilter(tenant="default", user_id="ana")
    store.own_scoring_above = 0  # this instance: a "large" table
    store.lexical_budget, store.lexical_window = 10, 5
    bounded = store.lexical_search('"kiwi" OR "garden"', flt, limit=100)
    assert bounded[0][0] == kiwi
    assert {i for i, _ in bounded[1:]} == set(ids[-5:])  # only the newest rows of the common word
    assert all(s > 0 for _, s in bounded) and bounded[0][1] > bounded[1][1]
    one = store.lexical_search('"garden"', flt, limit=100)  # one common term: only its window
    assert {i for i, _ in one} == set(ids[-5:])

    store.lexical_budget = 1000  # every row fits: all of them are scored
    more = _put(store, ["a long note about the kiwi and the garden and many other things", "kiwi garden"])
    every = store.lexical_search('"kiwi" OR "garden"', flt, limit=100)
    assert len(every) == 63
    assert [i for i, _ in every[:3]] == [more[1], kiwi, more[0]]  # both words, the shortest first
    assert len(store.lexical_search('"garden"', flt, limit=10)) == 10  # one term
    assert {i for i, _ in store.lexical_search('"kiw"*', flt, limit=10)} == {kiwi, *more}  # a prefix


def test_postgres_skips_counting_words_its_statistics_call_common(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A word the planner's statistics (after ANALYZE) put in far more rows than the budget is taken
    as common without counting its rows (a count visits up to budget heap rows); the ranking is the
    one the counted path gives."""
    import psycopg

    store = open_store(pg_url)
    assert isinstance(store, SQLStore)
    try:
        ids = _put(store, [*[f"garden note {i}" for i in range(120)], "a kiwi in the garden"])
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("ANALYZE memories")
        store.lexical_budget, store.lexical_window = 10, 5
        flt = MemoryFilter(tenant="default", user_id="ana")
        seen: list[str] = []
        real = psycopg.Cursor.execute

        def spy(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
            seen.append(query if isinstance(query, str) else repr(query))
            return real(self, query, *args, **kwargs)

        monkeypatch.setattr(psycopg.Cursor, "execute", spy)
        got = store.lexical_search('"kiwi" OR "garden"', flt, limit=100)
        monkeypatch.undo()
        counts = [s for s in seen if "count(*)" in s]
        assert len(counts) == 1 and counts[0].count("count(*)") == 1  # "kiwi" only
        assert got[0][0] == ids[-1] and {i for i, _ in got[1:]} == set(ids[-5:-1])  # the window: 5 rows

        fresh = open_store(pg_url)  # no statistics read yet: with them hidden, every word is counted
        assert isinstance(fresh, SQLStore)
        fresh.lexical_budget, fresh.lexical_window = 10, 5
        monkeypatch.setattr(fresh, "_globally_common", lambda terms, above: set())
        assert fresh.lexical_search('"kiwi" OR "garden"', flt, limit=100) == got
        fresh.close()
    finally:
        store.close()


def test_candidates_beyond_the_budget_on_both_backends(store: SQLStore) -> None:
    ids = _put(store, ["a kiwi in the garden", *[f"the garden note number {i}" for i in range(40)]])
    _put(store, ["kiwi garden kiwi"], user="bob")  # another scope never comes back
    flt = MemoryFilter(tenant="default", user_id="ana")
    query = '"kiwi" OR "garden"'
    assert [i for i, _ in store.lexical_candidates(query, flt, limit=5)] == [
        i for i, _ in store.lexical_search(query, flt, limit=5)
    ]
    store.lexical_budget, store.candidate_budget = 10, 5
    got = [i for i, _ in store.lexical_candidates(query, flt, limit=5)]
    assert got == [ids[0], *reversed(ids[-4:])]  # the rare term's row, then the newest rows
    # one term past the budget: three of its rows (SQLite ranks them all, PostgreSQL takes the newest)
    assert len(store.lexical_candidates('"garden"', flt, limit=3)) == 3


def test_one_term_past_the_budget_is_ranked_in_full(store: SQLStore) -> None:
    _put(store, [f"the garden note number {i}" for i in range(30)])
    flt = MemoryFilter(tenant="default", user_id="ana")
    exact = store.lexical_search('"garden"', flt, limit=50)
    store.lexical_budget, store.lexical_window = 10, 5
    assert store.lexical_search('"garden"', flt, limit=50) == exact and len(exact) == 30
