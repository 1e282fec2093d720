"""Why recall returned what it did: the components of each hit's score, without reinforcing anything.

:func:`explain_recall` runs the engine's own recall with ``touch=False`` (so nothing is reinforced
and no activity is recorded) and, when the engine's retriever is the :class:`HybridRetriever`, asks
it for the trace of the same search (:meth:`HybridRetriever.explain`, the same code path as its
ranking). The query terms each hit matched are found by asking the store's full-text index, one
term at a time, restricted to the hits: so they are the words BM25 actually matched (stemmed, and in
the indexed text, which may include the date and neighbouring turns), not a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Unpack

from remnant.core.text import match_term, query_terms
from remnant.engine.memory import Memory
from remnant.engine.options import RecallFilters
from remnant.engine.results import FadedHint, Hit
from remnant.retrieval.query import MAX_FTS_TERMS
from remnant.retrieval.retriever import HybridRetriever, SearchTrace
from remnant.store.base import MemoryFilter


@dataclass(frozen=True)
class HitExplanation:
    """One recalled memory and the parts of its score.

    ``score`` is what recall ranked by; for the hybrid retriever it is ``fused`` relevance (0..1,
    times ``1 + speaker_boost`` when the question names the speaker) times ``signal_factor`` (from
    strength, confidence and age), or, when the learned ranker ranked, ``ranker_score`` (the
    sigmoid of ``ranker_bias`` plus the ``ranker_contributions``) times ``signal_factor``. ``None`` parts: that side did not find it, or the retriever
    does not say.
    """

    hit: Hit
    rank: int
    lexical_rank: int | None = None
    lexical_score: float | None = None  # BM25, higher is better
    vector_rank: int | None = None
    vector_similarity: float | None = None  # cosine
    fused: float | None = None
    entity_score: float | None = None  # what the entity round added to ``fused`` (when it ran and found it)
    speaker_boost: float = 0.0
    signal_factor: float | None = None
    age_days: float | None = None
    matched_terms: tuple[str, ...] = ()
    reinforces: bool = False  # a recall with touch on would reinforce it (it clears the relevance bar)
    above_threshold: bool = True
    # when the learned ranker ranked (remnant.retrieval.ranker): its relevance (0..1, before the
    # signal factor), its bias, and each feature's contribution to the linear score behind it
    ranker_score: float | None = None
    ranker_bias: float | None = None
    ranker_contributions: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        h = self.hit
        return {
            "rank": self.rank,
            "memory": h.memory.to_dict(),
            "score": round(h.score, 6),
            "strength": round(h.strength, 6),
            "lexical_rank": self.lexical_rank,
            "lexical_score": _r(self.lexical_score),
            "vector_rank": self.vector_rank,
            "vector_similarity": _r(self.vector_similarity),
            "fused": _r(self.fused),
            "entity_score": _r(self.entity_score),
            "speaker_boost": self.speaker_boost,
            "signal_factor": _r(self.signal_factor),
            "confidence": h.memory.confidence,
            "age_days": _r(self.age_days),
            "matched_terms": list(self.matched_terms),
            "reinforces": self.reinforces,
            "above_threshold": self.above_threshold,
            "ranker": None
            if self.ranker_score is None
            else {
                "score": _r(self.ranker_score),
                "bias": _r(self.ranker_bias),
                "contributions": {k: round(v, 4) for k, v in self.ranker_contributions.items()},
            },
        }


@dataclass(frozen=True)
class RecallExplanation:
    query: str
    user_id: str
    terms: list[str]
    retriever: str  # "hybrid", "lexical", "vector" (the HybridRetriever's modes) or the class name
    fusion: str | None
    lexical_weight: float | None
    vector_weight: float | None
    model_id: str | None
    min_similarity: float | None
    signal_weights: dict[str, float] | None
    threshold: float
    hits: list[HitExplanation]
    faded: list[FadedHint] = field(default_factory=list)
    candidates: int = 0  # how many memories either side found before the cut to ``limit``

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "user_id": self.user_id,
            "terms": self.terms,
            "retriever": self.retriever,
            "fusion": self.fusion,
            "lexical_weight": self.lexical_weight,
            "vector_weight": self.vector_weight,
            "model_id": self.model_id,
            "min_similarity": self.min_similarity,
            "signal_weights": self.signal_weights,
            "threshold": self.threshold,
            "candidates": self.candidates,
            "hits": [h.to_dict() for h in self.hits],
            "faded": [f.to_dict() for f in self.faded],
        }


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def explain_recall(
    mem: Memory, query: str, *, user_id: str, limit: int = 10, **filters: Unpack[RecallFilters]
) -> RecallExplanation:
    """What ``mem.recall(query, user_id=..., limit=...)`` would return now, and why; reinforces nothing."""
    result = mem.recall(query, user_id=user_id, limit=limit, touch=False, **filters)
    flt = mem.recall_filter(user_id, **filters)
    retriever = mem.retriever
    hybrid = retriever if isinstance(retriever, HybridRetriever) else None
    trace: SearchTrace | None = None
    if hybrid is not None and query.strip():
        trace = hybrid.explain(mem.ledger, query, flt, limit)
    terms = trace.terms if trace is not None else query_terms(query, limit=MAX_FTS_TERMS)
    matched = _matched_terms(mem, flt, terms, [h.memory.id for h in result.hits]) if query.strip() else {}
    threshold = mem.decay.recall_threshold
    hits: list[HitExplanation] = []
    for rank, h in enumerate(result.hits, start=1):
        mid = h.memory.id
        parts: dict[str, Any] = {}
        if trace is not None:
            lex, vec, sig = trace.lexical.get(mid), trace.vector.get(mid), trace.signals.get(mid)
            parts = {
                "lexical_rank": lex[0] if lex else None,
                "lexical_score": lex[1] if lex else None,
                "vector_rank": vec[0] if vec else None,
                "vector_similarity": vec[1] if vec else None,
                "fused": trace.fused.get(mid),
                "entity_score": trace.entities.get(mid),
                "speaker_boost": hybrid.speaker_boost if hybrid and mid in trace.boosted else 0.0,
                "signal_factor": sig[3] if sig else None,
                "age_days": sig[2] if sig else None,
            }
            if trace.ranker is not None and mid in trace.features:
                parts["ranker_score"] = trace.ranker.score(trace.features[mid])
                parts["ranker_bias"] = trace.ranker.bias
                parts["ranker_contributions"] = dict(
                    sorted(trace.contributions.get(mid, {}).items(), key=lambda kv: -abs(kv[1]))
                )
        hits.append(
            HitExplanation(
                h,
                rank,
                matched_terms=tuple(t for t in terms if mid in matched.get(t, ())),
                reinforces=mem.reinforcement.recall_reinforces(query, h.memory.content, ignore=[user_id]),
                above_threshold=h.memory.pinned or h.strength >= threshold,
                **parts,
            )
        )
    cfg = hybrid.fusion if hybrid else None
    sw = hybrid.signals if hybrid else None
    return RecallExplanation(
        query=query,
        user_id=user_id,
        terms=terms,
        retriever=hybrid.mode if hybrid else type(retriever).__name__,
        fusion=cfg.fusion if cfg else None,
        lexical_weight=cfg.lexical_weight if cfg else None,
        vector_weight=cfg.vector_weight if cfg else None,
        model_id=hybrid.model_id if hybrid else None,
        min_similarity=trace.min_similarity if trace is not None else None,
        signal_weights=(
            {"strength": sw.strength, "confidence": sw.confidence, "recency": sw.recency} if sw else None
        ),
        threshold=threshold,
        hits=hits,
        faded=list(result.faded),
        candidates=len(set(trace.lexical) | set(trace.vector)) if trace is not None else 0,
    )


def _matched_terms(mem: Memory, flt: MemoryFilter, terms: list[str], ids: list[str]) -> dict[str, set[str]]:
    """term -> the hits whose indexed text the full-text index matches it in (one query per term)."""
    if not ids or not terms:
        return {}
    scoped = replace(flt, ids=tuple(ids))
    out: dict[str, set[str]] = {}
    for term in terms:
        found = mem.store.lexical_search(match_term(term), scoped, limit=len(ids))
        out[term] = {i for i, _ in found}
    return out
