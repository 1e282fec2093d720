"""explain_recall: the engine's own recall (touch off) with each score taken apart, on a real SQLite file."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from remnant.core.clock import ManualClock
from remnant.embed import get_embedder
from remnant.engine import Memory
from remnant.retrieval import HybridRetriever
from remnant.retrieval.explain import explain_recall

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def seeded(path: object, retriever: HybridRetriever | None) -> Memory:
    clock = ManualClock(T0)
    mem = Memory(path, clock=clock, retriever=retriever)  # type: ignore[arg-type]
    mem.remember("Ana is allergic to peanuts", user_id="ana", importance=0.9)
    mem.remember("Ana likes peanut butter cookies", user_id="ana", kind="preference")
    mem.remember("Her laptop will not wake from sleep", user_id="ana", kind="open_issue")
    mem.remember("Bob is allergic to cats", user_id="bob")
    clock.advance(days=3)
    return mem


@pytest.mark.parametrize("embedder", [None, "static"])
def test_explain_matches_recall_and_reinforces_nothing(tmp_path, embedder) -> None:
    retriever = HybridRetriever(get_embedder(embedder) if embedder else None, min_similarity=-1.0)
    mem = seeded(tmp_path / "r.db", retriever)
    before = {r.id: (r.access_count, r.last_accessed_at, r.strength0) for r in mem.list_memories("ana")}

    ex = explain_recall(mem, "peanut allergy?", user_id="ana", limit=5)
    plain = mem.recall("peanut allergy?", user_id="ana", limit=5, touch=False)
    assert [h.hit.memory.id for h in ex.hits] == [h.memory.id for h in plain.hits]
    assert [round(h.hit.score, 9) for h in ex.hits] == [round(h.score, 9) for h in plain.hits]
    assert ex.retriever == "hybrid" and ex.terms == ["peanut", "allergy"]
    first = ex.hits[0]
    assert "peanuts" in first.hit.memory.content
    assert first.lexical_rank == 1 and first.lexical_score is not None and first.lexical_score > 0
    assert first.matched_terms == ("peanut",)  # porter stemming: "peanut" matches "peanuts"
    # the score is the fused relevance times the signal factor (no speaker named here)
    assert first.fused is not None and first.signal_factor is not None
    assert first.hit.score == pytest.approx(first.fused * first.signal_factor)
    if embedder:
        assert ex.model_id is not None and all(h.vector_rank is not None for h in ex.hits)
    else:
        assert ex.model_id is None and all(h.vector_rank is None for h in ex.hits)
    assert all(h.hit.memory.user_id == "ana" for h in ex.hits)
    after = {r.id: (r.access_count, r.last_accessed_at, r.strength0) for r in mem.list_memories("ana")}
    assert after == before  # nothing reinforced
    d = ex.to_dict()
    assert d["hits"][0]["matched_terms"] == ["peanut"] and d["hits"][0]["rank"] == 1


def test_explain_with_the_plain_lexical_retriever(tmp_path) -> None:
    mem = seeded(tmp_path / "r.db", None)  # the engine's LexicalRetriever: no trace, still the terms
    ex = explain_recall(mem, "allergic", user_id="ana")
    assert ex.retriever == "LexicalRetriever" and ex.fusion is None
    assert [h.hit.memory.content for h in ex.hits] == ["Ana is allergic to peanuts"]
    assert ex.hits[0].matched_terms == ("allergic",) and ex.hits[0].fused is None
    # a real recall with touch on would reinforce it: the explanation says so, and did not
    assert ex.hits[0].reinforces
    assert mem.get(ex.hits[0].hit.memory.id).access_count == 0


def test_explain_an_empty_query_lists_the_strongest(tmp_path) -> None:
    mem = seeded(tmp_path / "r.db", HybridRetriever(None))
    ex = explain_recall(mem, "   ", user_id="ana", limit=2)
    assert len(ex.hits) == 2 and all(h.matched_terms == () for h in ex.hits)
    assert ex.terms == [] and ex.candidates == 0
