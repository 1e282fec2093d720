"""The SQLite store's keyword index (issue 30): its ranking is FTS5's ``bm25()`` ranking, ids and
scores, and it stays so under writes, rewrites, purge, erasure, a second process and a log it fell
behind. Real SQLite files; every comparison is against the store's own FTS5 path on the same file."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import remnant.store.sqlite as sqlite_mod
from remnant.core.clock import ManualClock
from remnant.core.model import Kind, MemoryRecord, Status, new_id
from remnant.core.text.normalise import fts_match
from remnant.engine import Memory
from remnant.store.base import MemoryFilter
from remnant.store.sqlite import SQLiteStore

T0 = datetime(2026, 1, 1, tzinfo=UTC)
LOCOMO_DEV = Path(os.environ.get("REMNANT_LOCOMO_DEV", "/work/shared/data/locomo/locomo10-dev.json"))


def _indexed(path: Path) -> SQLiteStore:
    s = SQLiteStore(path)
    s.keyword_index_from = 0  # every search of this instance may use the index
    s.keyword_index_background = False  # built at the first search, in the searching thread
    return s


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    s = _indexed(tmp_path / "k.db")
    yield s
    s.close()


def _put(store: SQLiteStore, texts: list[str], user: str = "ana", tenant: str = "default") -> list[str]:
    items = []
    for i, text in enumerate(texts):
        r = MemoryRecord(
            id=new_id(), tenant=tenant, user_id=user, content=text, created_at=T0 + timedelta(seconds=i)
        )
        items.append((r, None))
    store.insert_many(items)
    return [r.id for r, _ in items]


def _fts(store: SQLiteStore, match: str, flt: MemoryFilter, limit: int = 50) -> list[tuple[str, float]]:
    """The store's answer without the index (the FTS5 path, as before issue 30)."""
    was = store.keyword_index_from
    store.keyword_index_from = 1 << 62
    try:
        return store.lexical_search(match, flt, limit=limit)
    finally:
        store.keyword_index_from = was


def _both(store: SQLiteStore, match: str, flt: MemoryFilter, limit: int = 50) -> list[tuple[str, float]]:
    """The index's answer, after checking it is FTS5's to the last bit (ids, order, scores)."""
    seen: list[str] = []
    store.set_trace_callback(seen.append)
    try:
        got = store.lexical_search(match, flt, limit=limit)
    finally:
        store.set_trace_callback(None)
    index = store.keyword_index
    assert index is not None and index.ready
    assert not any("bm25(" in s for s in seen)  # answered by the index, not by FTS5's bm25()
    assert got == _fts(store, match, flt, limit)
    return got


WORDS = ["garden", "gardens", "tea", "green", "kiwi", "café", "cafe", "likes", "liked", "vet", "river", "the"]


def _corpus(store: SQLiteStore) -> dict[str, list[str]]:
    texts = [
        " ".join(w for j, w in enumerate(WORDS) if (i >> j) & 1 or (i * 7 + j) % 11 == 0) or "nothing"
        for i in range(300)
    ]
    texts += ["tea tea tea green", "garden garden", "Ana likes the café by the river"]
    return {
        "ana": _put(store, texts),
        "bob": _put(store, texts[::3], user="bob"),
        "other": _put(store, texts[::5], user="ana", tenant="acme"),
    }


def _queries() -> list[str]:
    out = [fts_match(" ".join(c)) for n in (1, 2, 3) for c in itertools.combinations(WORDS[:9], n)]
    return [q for q in out if q] + ['"kiwi" OR "kiwi"', '"zanzibar"', '"tea" OR "absentword"']


def test_index_ranks_exactly_as_fts5(store: SQLiteStore) -> None:
    _corpus(store)
    scopes = [
        MemoryFilter(tenant="default", user_id="ana"),
        MemoryFilter(tenant="default", user_id="bob"),
        MemoryFilter(tenant="default"),
        MemoryFilter(tenant="acme", user_id="ana"),
        MemoryFilter(tenant="default", user_id="nobody"),
    ]
    hits = 0
    for flt, q in itertools.product(scopes, _queries()):
        for limit in (5, 50):
            hits += len(_both(store, q, flt, limit))
    assert hits > 1000


def test_filters_beyond_the_scope_apply(store: SQLiteStore) -> None:
    ids = _corpus(store)["ana"]
    # some rows superseded, some of another kind: the filter drops them from the index's ranking
    store.set_status(
        MemoryFilter(ids=tuple(ids[::4])), Status.SUPERSEDED, reason="test", at=T0.timestamp() + 10
    )
    flt = MemoryFilter(tenant="default", user_id="ana")
    for q in _queries()[:40]:
        got = _both(store, q, flt, 20)
        assert not set(ids[::4]) & {i for i, _ in got}
    _both(store, '"tea"', MemoryFilter(tenant="default", user_id="ana", kinds=(Kind.FACT,)), 20)
    _both(store, '"tea"', MemoryFilter(tenant="default", user_id="ana", statuses=None), 400)


def test_what_the_index_does_not_answer_falls_back_to_fts5(store: SQLiteStore) -> None:
    _put(store, ["紫禁城 故宫", "don't panic", "o'clock tea"])
    flt = MemoryFilter(tenant="default", user_id="ana")
    assert store.lexical_search('"tea"', flt)  # builds the index
    for q in ['"紫"*', '"don\'t"', '"tea" OR "o\'clock"', "tea NOT panic"]:
        assert store.lexical_search(q, flt) == _fts(store, q, flt)
    assert store.lexical_search('"紫"*', flt)


def test_writes_rewrites_and_deletes_after_the_build(store: SQLiteStore) -> None:
    ids = _corpus(store)["ana"]
    flt = MemoryFilter(tenant="default", user_id="ana")
    _both(store, '"kiwi" OR "tea"', flt)  # built
    new = _put(store, ["kiwi kiwi kiwi mango", "a mango tree"])
    got = _both(store, '"mango" OR "kiwi"', flt)
    assert {got[0][0], got[1][0]} == set(new)  # the rare word's rows first
    store.delete(ids[:50])
    got = _both(store, '"kiwi" OR "tea" OR "garden"', flt, 400)
    assert not set(ids[:50]) & {i for i, _ in got}
    store.set_index_texts([(new[1], "a papaya tree"), (ids[60], "papaya papaya")])
    assert [i for i, _ in _both(store, '"papaya"', flt)] == [ids[60], new[1]]
    assert new[1] not in {i for i, _ in _both(store, '"mango"', flt)}
    # a deleted row's rowid handed to a new row: the index holds the new row's words only
    store.delete([new[1]])
    again = _put(store, ["plum jam"])
    assert [i for i, _ in _both(store, '"plum"', flt)] == again
    assert _both(store, '"papaya"', flt) == _both(store, '"papaya"', flt)
    for q in _queries()[:60]:
        _both(store, q, flt)


def test_a_purge_drops_the_rows_words_at_its_commit(store: SQLiteStore) -> None:
    secret = _put(store, ["zanzibarqx is where the vet lives"])
    _put(store, ["the vet is kind"] * 3)
    flt = MemoryFilter(tenant="default", user_id="ana")
    _both(store, '"vet"', flt)
    index = store.keyword_index
    assert index is not None
    assert index.rows_holding("zanzibarqx") == 1 and index.rows_holding("vet") == 4
    store.delete(secret)  # no search after it: the commit itself drops the postings
    assert index.rows_holding("zanzibarqx") == 0 and index.rows_holding("vet") == 3
    assert "zanzibarqx" not in index.terms()
    assert _both(store, '"zanzibarqx"', flt) == []


def test_erase_user_leaves_nothing_of_the_user_in_the_index(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", clock=ManualClock(T0)) as mem:
        store = mem.store
        assert isinstance(store, SQLiteStore)
        store.keyword_index_from, store.keyword_index_background = 0, False
        mem.remember("Eve keeps her quokkaberry jam in the cellar", user_id="eve")
        mem.remember("Frank keeps jam in the cellar too", user_id="frank")
        assert mem.recall("quokkaberry jam", user_id="eve").hits
        index = store.keyword_index
        assert index is not None and index.ready
        assert index.rows_holding("quokkaberri") == 1  # porter's stem, as FTS5 stores it
        mem.erase_user("eve")
        assert index.rows_holding("quokkaberri") == 0 and "quokkaberri" not in index.terms()
        assert not mem.recall("quokkaberry jam", user_id="eve").hits
        assert [h.memory.content for h in mem.recall("jam cellar", user_id="frank").hits] == [
            "Frank keeps jam in the cellar too"
        ]
        _both(store, '"jam" OR "cellar"', MemoryFilter(tenant=mem.tenant, statuses=None))


_WRITER = """
import sys
from datetime import UTC, datetime
from remnant.core.model import MemoryRecord, new_id
from remnant.store.sqlite import SQLiteStore
s = SQLiteStore(sys.argv[1])
ids = sys.argv[2].split(",")
s.delete(ids)
r = MemoryRecord(id=new_id(), user_id="ana", content="kiwi from the other process kiwi",
                 created_at=datetime(2026, 2, 1, tzinfo=UTC))
s.insert(r)
s.close()
print(r.id)
"""


def test_another_process_writes_are_seen(tmp_path: Path) -> None:
    path = tmp_path / "two.db"
    store = _indexed(path)
    try:
        ids = _corpus(store)["ana"]
        flt = MemoryFilter(tenant="default", user_id="ana")
        before = _both(store, '"kiwi"', flt, 400)
        gone = [i for i, _ in before[:5]]
        env = {**os.environ, "PYTHONPATH": str(Path(sqlite_mod.__file__).parents[2])}
        out = subprocess.run(
            [sys.executable, "-c", _WRITER, str(path), ",".join(gone)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=120,
        )
        new_id_ = out.stdout.strip().splitlines()[-1]
        after = _both(store, '"kiwi"', flt, 400)
        assert after[0][0] == new_id_
        assert not set(gone) & {i for i, _ in after}
        assert len(after) == len(before) - 5 + 1
        assert ids  # the corpus was written
    finally:
        store.close()


def test_a_process_behind_the_trimmed_log_rebuilds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "behind.db"
    reader = _indexed(path)
    writer = SQLiteStore(path)
    try:
        _corpus(writer)
        flt = MemoryFilter(tenant="default", user_id="ana")
        _both(reader, '"tea"', flt)
        monkeypatch.setattr(sqlite_mod, "LOG_KEEP", 3)  # the writer keeps only its newest entries
        for i in range(10):
            _put(writer, [f"tea number {i}"])
        # the gap is seen: FTS5 answers while the index is rebuilt, then the index again
        got = reader.lexical_search('"tea"', flt, limit=400)
        assert got == _fts(reader, '"tea"', flt, 400)
        assert _both(reader, '"tea" OR "number"', flt, 400)[0][1] > 0
    finally:
        reader.close()
        writer.close()


def test_a_transaction_sees_its_own_rows(store: SQLiteStore) -> None:
    _corpus(store)
    flt = MemoryFilter(tenant="default", user_id="ana")
    _both(store, '"tea"', flt)
    with store.transaction():
        mine = _put(store, ["durian durian"])
        assert [i for i, _ in store.lexical_search('"durian"', flt)] == mine  # FTS5: uncommitted
    assert [i for i, _ in _both(store, '"durian"', flt)] == mine


@pytest.mark.skipif(not LOCOMO_DEV.exists(), reason="the LoCoMo dev split is not here")
def test_locomo_dev_questions_top_k_is_unchanged(tmp_path: Path) -> None:
    """Every LoCoMo dev question's keyword top-50, each conversation a user of one file: the index's
    ids, order and scores are those of FTS5's query (the path before issue 30)."""
    store = _indexed(tmp_path / "locomo.db")
    try:
        questions = []
        for n, conv in enumerate(json.loads(LOCOMO_DEV.read_text(encoding="utf-8"))):
            c, user, texts, k = conv["conversation"], f"conv{n}", [], 1
            while f"session_{k}" in c:
                texts += [f"{t['speaker']}: {t['text']}" for t in c[f"session_{k}"]]
                k += 1
            _put(store, texts, user=user)
            questions += [(user, q["question"]) for q in conv["qa"]]
        compared = 0
        for user, question in questions:
            match = fts_match(question)
            if match:
                _both(store, match, MemoryFilter(tenant="default", user_id=user), 50)
                compared += 1
        assert compared > 900
    finally:
        store.close()
