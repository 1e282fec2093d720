"""Hybrid recall: fuse lexical (BM25) and vector candidates, then apply memory signals.

The pipeline is store-agnostic: callers supply the two candidate lists (from SQLite FTS5
and a vector index, or anything else) and per-memory signals; this module decides the order.
Defaults were chosen on the LoCoMo development split (docs/benchmarks/retrieval.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from remnant.retrieval import fusion
from remnant.retrieval.errors import RetrievalError


@dataclass(frozen=True)
class HybridConfig:
    """How candidates are gathered and fused.

    fusion: "rrf" (rank-based), "weighted" (min-max score fusion) or "zscore" (standard-score
    fusion: each list's scores over their spread, the weakest at 0).
    candidates: how many candidates each retriever contributes before fusion.
    """

    fusion: str = "rrf"
    rrf_k: int = 60
    lexical_weight: float = 1.0
    vector_weight: float = 1.0
    candidates: int = 100

    def __post_init__(self) -> None:
        if self.fusion not in ("rrf", "weighted", "zscore"):
            raise RetrievalError(f"fusion must be 'rrf', 'weighted' or 'zscore', not {self.fusion!r}")
        if self.candidates <= 0:
            raise RetrievalError("candidates must be > 0")


@dataclass(frozen=True)
class SignalWeights:
    """How much a memory's own state moves it in the ranking (0 = ignored).

    The fused relevance (0..1) is multiplied by ``1 - weight * (1 - signal)`` for each signal
    (each signal in 0..1). A signal of 1.0 leaves the score alone, and equal signals never
    reorder memories, so fresh, fully confident memories rank purely by relevance (which is
    what keeps LoCoMo recall intact).
    """

    strength: float = 0.15
    confidence: float = 0.15
    recency: float = 0.0
    recency_half_life_days: float = 30.0

    def factor(self, strength: float, confidence: float, age_days: float | None) -> float:
        """Multiplier in (0, 1] for one memory's signals."""
        f = 1.0 - self.strength * (1.0 - _clip01(strength))
        f *= 1.0 - self.confidence * (1.0 - _clip01(confidence))
        if self.recency and age_days is not None and self.recency_half_life_days > 0:
            fresh = 0.5 ** (max(age_days, 0.0) / self.recency_half_life_days)
            f *= 1.0 - self.recency * (1.0 - fresh)
        return f


def _clip01(x: float) -> float:
    return 0.0 if x < 0 else 1.0 if x > 1 else float(x)


def fuse(
    lexical: Sequence[tuple[str, float]],
    vector: Sequence[tuple[str, float]],
    config: HybridConfig | None = None,
) -> list[tuple[str, float]]:
    """Fuse (id, score) lists, each best first (BM25 here is 'higher is better'), into one ranking.

    Scores are normalised so the best possible fused score is 1.0.
    """
    cfg = config or HybridConfig()
    lex = list(lexical)[: cfg.candidates]
    vec = list(vector)[: cfg.candidates]
    weights = [cfg.lexical_weight, cfg.vector_weight]
    if cfg.fusion == "rrf":
        fused = fusion.rrf([[i for i, _ in lex], [i for i, _ in vec]], k=cfg.rrf_k, weights=weights)
        best = sum(w for w, lst in zip(weights, (lex, vec), strict=True) if lst) / (cfg.rrf_k + 1)
    elif cfg.fusion == "zscore":
        maps = [fusion.zscores(dict(lex)), fusion.zscores(dict(vec))]
        fused = fusion.weighted_z([dict(lex), dict(vec)], weights=weights)
        best = sum(w * max(m.values()) for w, m in zip(weights, maps, strict=True) if m)
    else:
        fused = fusion.weighted([dict(lex), dict(vec)], weights=weights)
        best = sum(w for w, lst in zip(weights, (lex, vec), strict=True) if lst)
    if best <= 0:
        return fused
    return [(i, s / best) for i, s in fused]


def rerank(
    fused: Sequence[tuple[str, float]],
    signals: Mapping[str, tuple[float, float, float | None]],
    weights: SignalWeights | None = None,
) -> list[tuple[str, float]]:
    """Multiply each fused score by its memory's signal factor; ``signals[id] = (strength,
    confidence, age_days)``. Ids without signals keep their score."""
    w = weights or SignalWeights()
    out = []
    for item, score in fused:
        sig = signals.get(item)
        out.append((item, score * w.factor(*sig) if sig else score))
    out.sort(key=lambda kv: (-kv[1], kv[0]))
    return out
