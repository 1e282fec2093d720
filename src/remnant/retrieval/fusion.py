"""Fusing ranked candidate lists (lexical, vector, ...) into one ranking.

Reciprocal-rank fusion (Cormack et al. 2009) uses only ranks, so BM25 scores and cosine
similarities need no calibration: score(d) = sum_i w_i / (k + rank_i(d)), ranks from 1.
Weighted score fusion min-max normalises each list's scores to 0..1 and adds them with
weights; it keeps score gaps but is sensitive to outliers. Ties are broken by id so results
are deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TypeVar

from remnant.retrieval.errors import RetrievalError

K = TypeVar("K", bound=Hashable)

RRF_K = 60


def _check_weights(n: int, weights: Sequence[float] | None) -> list[float]:
    if weights is None:
        return [1.0] * n
    if len(weights) != n:
        raise RetrievalError(f"{len(weights)} weights for {n} ranked lists")
    if any(w < 0 for w in weights):
        raise RetrievalError("fusion weights must be >= 0")
    return [float(w) for w in weights]


def _sorted(scores: Mapping[K, float]) -> list[tuple[K, float]]:
    return sorted(scores.items(), key=lambda kv: (-kv[1], str(kv[0])))


def rrf(
    rankings: Sequence[Sequence[K]], *, k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[tuple[K, float]]:
    """Reciprocal-rank fusion of ranked id lists; returns (id, score) best first."""
    if k < 0:
        raise RetrievalError("RRF k must be >= 0")
    ws = _check_weights(len(rankings), weights)
    scores: dict[K, float] = {}
    for w, ranking in zip(ws, rankings, strict=True):
        # A duplicate keeps its best rank only and does not push later items down.
        for rank, item in enumerate(dict.fromkeys(ranking), start=1):
            scores[item] = scores.get(item, 0.0) + w / (k + rank)
    return _sorted(scores)


def minmax(scores: Mapping[K, float]) -> dict[K, float]:
    """Scale scores to 0..1 (all equal -> all 1.0)."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi == lo:
        return dict.fromkeys(scores, 1.0)
    return {key: (v - lo) / (hi - lo) for key, v in scores.items()}


def weighted(
    scored: Sequence[Mapping[K, float]], *, weights: Sequence[float] | None = None
) -> list[tuple[K, float]]:
    """Weighted sum of min-max-normalised score maps (higher = better in every map)."""
    return _weighted_sum(scored, weights, minmax)


def zscores(scores: Mapping[K, float]) -> dict[K, float]:
    """Standard scores, shifted so the weakest candidate is 0 and scaled by the spread (all equal
    -> all 1.0): unlike min-max, one outlier at the top does not squash the others together."""
    if not scores:
        return {}
    vals = list(scores.values())
    mean = sum(vals) / len(vals)
    sd = (sum((v - mean) ** 2 for v in vals) / len(vals)) ** 0.5
    if sd == 0:
        return dict.fromkeys(scores, 1.0)
    lo = min(vals)
    return {key: (v - lo) / sd for key, v in scores.items()}


def weighted_z(
    scored: Sequence[Mapping[K, float]], *, weights: Sequence[float] | None = None
) -> list[tuple[K, float]]:
    """Weighted sum of :func:`zscores` maps (higher = better in every map)."""
    return _weighted_sum(scored, weights, zscores)


def _weighted_sum(
    scored: Sequence[Mapping[K, float]],
    weights: Sequence[float] | None,
    normalise: Callable[[Mapping[K, float]], dict[K, float]],
) -> list[tuple[K, float]]:
    ws = _check_weights(len(scored), weights)
    out: dict[K, float] = {}
    for w, scores in zip(ws, scored, strict=True):
        for key, v in normalise(scores).items():
            out[key] = out.get(key, 0.0) + w * v
    return _sorted(out)
