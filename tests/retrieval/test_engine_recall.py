"""Hybrid recall through the real engine on a real SQLite file: filters, purge, mismatch, CJK."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant import ManualClock, ValidationError
from remnant.embed import EmbeddingModelMismatch, get_embedder
from remnant.engine import Memory
from remnant.engine.seams import LexicalRetriever
from remnant.retrieval import HybridRetriever, RetrievalError, recall_context
from remnant.store.base import MemoryFilter

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(params=["hybrid", "vector"])
def mode(request):
    return request.param


def make(path, clock, mode="hybrid", embedder="static", floor=-1.0):
    # no relevance floor by default: these tests are about filtering and consistency, not relevance
    retriever = HybridRetriever(get_embedder(embedder), mode=mode, min_similarity=floor)
    return Memory(path, clock=clock, retriever=retriever)


def contents(result):
    return [h.memory.content for h in result.hits]


@pytest.fixture(params=["sqlite", "postgres-exact", "postgres-hnsw"])
def backend(request, tmp_path):
    """Where the engine stores: a SQLite file (in-process vector index), or PostgreSQL searching
    its own vectors, exactly (a small user) or through the HNSW index (``exact_below=3``)."""
    if request.param == "sqlite":
        return lambda: tmp_path / "r.db"
    from remnant.store.postgres import PostgresStore

    url = request.getfixturevalue("pg_url")
    exact_below = 20_000 if request.param == "postgres-exact" else 3
    return lambda: PostgresStore(url, exact_below=exact_below)


def test_strict_filters_hold_for_lexical_and_vector_candidates(backend, mode):
    clock = ManualClock(T0)
    target = backend()
    retriever = HybridRetriever(get_embedder("static"), mode=mode, min_similarity=-1.0)
    if isinstance(target, Path):
        m = Memory(target, clock=clock, retriever=retriever)
    else:
        m = Memory(store=target, clock=clock, retriever=retriever)
    kw = {"user_id": "ana"}
    keep = m.remember("Ana's cat is called Miso", **kw)
    ttl = m.remember("Ana's cat has a vet appointment", ttl="1d", **kw)
    hidden = m.remember("Ana's cat hates the vacuum", **kw)
    old = m.remember("Ana's cat food brand is Purrfect", key="cat_food", **kw)
    new = m.remember("Ana's cat food brand is Whiskas", key="cat_food", **kw)
    window = m.remember("Ana's cat sitter is Bo", valid_to=T0 + timedelta(hours=12), **kw)
    future = m.remember("Ana's cat moves in with Bo", valid_from=T0 + timedelta(days=30), **kw)
    purged = m.remember("Ana's cat was adopted in Lisbon", **kw)
    other = m.remember("Ben's cat is called Tom", user_id="ben")
    m.hide(hidden.id)
    m.purge(purged.id)
    clock.advance(days=2)
    got = {h.memory.id for h in m.recall("cat", limit=20, touch=False, **kw).hits}
    assert keep.id in got and new.id in got
    for gone in (ttl, hidden, old, window, future, purged, other):
        assert gone.id not in got, gone.content
    # the point-in-time view sees the superseded fact as it was then
    past = {
        h.memory.id for h in m.recall("cat food brand", limit=20, as_of=T0 + timedelta(minutes=1), **kw).hits
    }
    assert old.id in past or new.id in past
    if m.store.shared_vector_index:
        assert m.retriever._indexes == {}  # PostgreSQL searched its own index: nothing copied here
    m.close()


def test_purged_memory_leaves_the_vector_index_and_never_returns(tmp_path):
    m = make(tmp_path / "p.db", ManualClock(T0), "vector")
    recs = m.remember_many(
        [{"content": f"note number {i} about gardening", "user_id": "ana"} for i in range(30)]
    )
    m.recall("gardening", user_id="ana", touch=False)
    assert m.retriever._indexes == {}  # the store's vector file beside the database was searched
    vec = m.store.embeddings(MemoryFilter(ids=(recs[0].id,)), model=m.retriever.model_id)[1][0]
    m.purge([r.id for r in recs[:10]])
    assert vec.tobytes() not in b"".join(p.read_bytes() for p in m.files())
    got = {
        h.memory.id for h in m.recall("note number 3 gardening", user_id="ana", limit=30, touch=False).hits
    }
    assert not got & {r.id for r in recs[:10]}
    m.close()
    # a fresh process rebuilds from the table: still gone
    m2 = make(tmp_path / "p.db", ManualClock(T0), "vector")
    got = {h.memory.id for h in m2.recall("gardening", user_id="ana", limit=30, touch=False).hits}
    assert len(got) == 20 and not got & {r.id for r in recs[:10]}
    m2.close()


def test_model_mismatch_is_refused_and_missing_vectors_are_backfilled(tmp_path):
    path = tmp_path / "mm.db"
    plain = Memory(path, clock=ManualClock(T0), retriever=LexicalRetriever())
    plain.remember("written before vectors were on", user_id="ana")
    plain.close()
    m = make(path, ManualClock(T0), "vector", "static")
    assert contents(m.recall("vectors", user_id="ana", touch=False)) == ["written before vectors were on"]
    m.close()
    other = make(path, ManualClock(T0), "hybrid", "minilm")
    with pytest.raises(EmbeddingModelMismatch, match="expected vectors from 'all-MiniLM"):
        other.recall("vectors", user_id="ana", touch=False)
    assert other.reembed("ana") == 1
    assert contents(other.recall("vectors", user_id="ana", touch=False))
    other.close()


def test_chinese_bad_queries_and_index_text(tmp_path):
    m = make(tmp_path / "zh.db", ManualClock(T0))
    m.remember("我周末喜欢在公园里画画", user_id="li")
    m.remember("I like jazz on Sundays", user_id="li")
    assert contents(m.recall("画画", user_id="li", limit=1, touch=False)) == ["我周末喜欢在公园里画画"]
    assert contents(m.recall("公园", user_id="li", limit=1, touch=False)) == ["我周末喜欢在公园里画画"]
    with pytest.raises(ValidationError):
        m.recall("x" * 5000, user_id="li")
    assert len(m.recall("", user_id="li").hits) == 2  # empty query: strongest memories
    turns = m.remember_many(
        [
            {
                "content": "What did you paint?",
                "user_id": "li",
                "kind": "episode",
                "session_id": "s1",
                "metadata": {"speaker": "Mel"},
            },
            {
                "content": "A sunrise over the lake",
                "user_id": "li",
                "kind": "episode",
                "session_id": "s1",
                "metadata": {"speaker": "Caro"},
            },
        ]
    )
    row = m.store.connection.execute(
        "SELECT text FROM memory_fts f JOIN memories m ON m.rid = f.rowid WHERE m.id = ?", (turns[1].id,)
    ).fetchone()[0]
    assert "Caro: A sunrise" in row and "Mel: What did you paint?" in row and "1 January 2026" in row
    # the answer turn is found through its neighbour's words
    lexical = m.store.lexical_search('"paint"', MemoryFilter(user_id="li"))
    assert turns[1].id in {i for i, _ in lexical}
    with pytest.raises(RetrievalError):
        HybridRetriever(None, mode="vector")
    m.close()


def test_recall_context_packs_with_strength_and_confidence(tmp_path):
    m = make(tmp_path / "c.db", ManualClock(T0))
    m.remember("Ana is allergic to peanuts", user_id="ana", confidence=0.9)
    m.remember("Ana might be moving to Porto " * 30, user_id="ana", confidence=0.4)
    ctx = recall_context(m, "Ana peanuts Porto", user_id="ana", budget_tokens=90)
    assert ctx.tokens <= 90 and [c.content for c in ctx.items] == ["Ana is allergic to peanuts"]
    assert "(strength 0.75, confidence 0.90)" in ctx.text and ctx.skipped == 1
    tiny = recall_context(m, "Ana", user_id="ana", budget_tokens=3)
    assert tiny.empty and tiny.empty_reason
    m.close()


def test_signals_rank_weak_memories_lower(tmp_path):
    m = make(tmp_path / "s.db", ManualClock(T0), "hybrid")
    m.dedup = False  # the same text twice, on purpose: only the confidence differs
    sure = m.remember("the office wifi password rotates monthly", user_id="ana", confidence=1.0)
    unsure = m.remember("the office wifi password rotates monthly", user_id="ana", confidence=0.1)
    order = [h.memory.id for h in m.recall("office wifi password", user_id="ana", limit=2, touch=False).hits]
    assert order == [sure.id, unsure.id]
    m.close()


def test_engine_with_hnsw_index_filters_and_forgets_purged(tmp_path):
    from remnant.retrieval import HnswIndex

    clock = ManualClock(T0)
    m = Memory(
        ":memory:",  # the in-process index (a file store searches its vector file instead)
        clock=clock,
        retriever=HybridRetriever(
            get_embedder("static"), mode="vector", hnsw_threshold=10, min_similarity=-1.0
        ),
    )
    recs = m.remember_many(
        [{"content": f"trip number {i} to the mountains", "user_id": "ana"} for i in range(40)]
    )
    m.recall("mountains", user_id="ana", touch=False)
    idx = next(iter(m.retriever._indexes.values()))
    assert isinstance(idx, HnswIndex) and len(idx) == 40
    m.purge([r.id for r in recs[:5]])
    m.hide(recs[5].id)
    late = m.remember("one more trip to the mountains", user_id="ana")
    assert late.id in idx and len(idx) == 36
    got = {h.memory.id for h in m.recall("trip mountains", user_id="ana", limit=50, touch=False).hits}
    assert late.id in got and len(got) == 35
    assert not got & {r.id for r in recs[:6]}
    only = m.recall("trip", user_id="ana", limit=5, touch=False, keys=["nope"]).hits
    assert only == []
    m.close()


def test_relevance_floor_keeps_unrelated_memories_out(tmp_path):
    m = make(tmp_path / "f.db", ManualClock(T0), "hybrid", "minilm", floor=None)
    assert m.retriever.min_similarity == 0.25
    m.remember("I prefer green tea in the morning", user_id="ana")
    assert m.recall("quarterly tax deadline", user_id="ana", touch=False).hits == []
    assert contents(m.recall("what do I like to drink?", user_id="ana", touch=False)) == [
        "I prefer green tea in the morning"
    ]
    m.close()


def test_the_relevance_floor_does_not_trigger_a_filtered_rescan(tmp_path):
    """The exact within-filter rescan is for a narrow filter; when the similarity floor is what cut
    the page of candidates, nothing further can pass it, so the scope's ids must not be listed."""
    from remnant.retrieval.hybrid import HybridConfig

    retriever = HybridRetriever(
        get_embedder("static"),
        mode="vector",
        hnsw_threshold=10,
        min_similarity=0.99,
        fusion=HybridConfig(fusion="weighted", lexical_weight=0.7, vector_weight=0.3, candidates=10),
    )
    m = Memory(tmp_path / "floor.db", clock=ManualClock(T0), retriever=retriever)
    m.remember_many([{"content": f"walk number {i} by the river", "user_id": "ana"} for i in range(60)])
    m.recall("warm-up", user_id="ana", touch=False, hints=False)  # builds the index
    scope_listings = []
    real_ids = m.store.ids

    def spy(flt, **kw):
        if flt.ids is None:
            scope_listings.append(flt)
        return real_ids(flt, **kw)

    m.store.ids = spy  # type: ignore[method-assign]
    assert m.recall("quantum chromodynamics", user_id="ana", limit=5, touch=False, hints=False).hits == []
    assert scope_listings == []
    m.close()
