"""Hybrid recall on PostgreSQL: vectors are searched in the database (pgvector), not in a
per-process copy, so every process sees every write at once. (Strict filters on the exact and
HNSW paths: tests/retrieval/test_engine_recall.py, which runs on both stores.)"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from remnant import ManualClock
from remnant.embed import EmbeddingModelMismatch, get_embedder
from remnant.engine import Memory
from remnant.engine.seams import LexicalRetriever
from remnant.retrieval import HybridRetriever
from remnant.store.postgres import PostgresStore

pytestmark = pytest.mark.pg

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


def make(
    url: str, clock: ManualClock, mode: str = "vector", embedder: str = "static", **store_kw: int
) -> Memory:
    retriever = HybridRetriever(get_embedder(embedder), mode=mode, min_similarity=-1.0)
    return Memory(store=PostgresStore(url, **store_kw), clock=clock, retriever=retriever)


def test_another_process_sees_new_vectors_at_once(pg_url: str) -> None:
    a = make(pg_url, ManualClock(T0))
    b = make(pg_url, ManualClock(T0))
    try:
        a.remember("the spare key is under the blue flowerpot", user_id="ana")
        assert b.recall("spare key", user_id="ana", touch=False).hits  # b's first search
        late = a.remember("the garage code is 4711", user_id="ana")
        got = {h.memory.id for h in b.recall("garage code", user_id="ana", limit=5, touch=False).hits}
        assert late.id in got  # no rebuild, no restart: the index is the database's
        a.purge(late.id)
        got = {h.memory.id for h in b.recall("garage code", user_id="ana", limit=5, touch=False).hits}
        assert late.id not in got
    finally:
        a.close()
        b.close()


def test_missing_vectors_are_backfilled_and_a_foreign_model_is_refused(pg_url: str) -> None:
    plain = Memory(store=PostgresStore(pg_url), clock=ManualClock(T0), retriever=LexicalRetriever())
    plain.remember("written before vectors were on", user_id="ana")
    plain.close()
    m = make(pg_url, ManualClock(T0))
    try:
        got = [h.memory.content for h in m.recall("vectors", user_id="ana", touch=False).hits]
        assert got == ["written before vectors were on"]
        assert m.store.unembedded_ids(m.recall_filter("ana"), model=m.retriever.model_id or "") == []
    finally:
        m.close()
    other = make(pg_url, ManualClock(T0), mode="hybrid", embedder="minilm")
    try:
        with pytest.raises(EmbeddingModelMismatch, match="expected vectors from 'all-MiniLM"):
            other.recall("vectors", user_id="ana", touch=False)
        assert other.reembed("ana") == 1
        assert other.recall("vectors", user_id="ana", touch=False).hits
    finally:
        other.close()


def test_the_speakers_of_a_scope_are_read_from_postgresql(pg_url: str) -> None:
    from remnant.retrieval.rescoring import RecallTuning
    from remnant.store.base import MemoryFilter

    a = make(pg_url, ManualClock(T0))
    a.remember("my hobby is pottery", user_id="ana", metadata={"speaker": "Ana Lima"})
    a.remember("mine is rain watching", user_id="ana", metadata={"speaker": "Bo"})
    a.close()
    retriever = HybridRetriever(
        get_embedder("static"), min_similarity=-1.0, tuning=RecallTuning(strip_speakers=True)
    )
    b = Memory(store=PostgresStore(pg_url), clock=ManualClock(T0), retriever=retriever)
    try:
        assert b.recall("What is Ana's hobby?", user_id="ana", touch=False).hits
        assert retriever.speakers(b, MemoryFilter(user_id="ana")) == {"ana lima", "ana", "lima", "bo"}
    finally:
        b.close()
