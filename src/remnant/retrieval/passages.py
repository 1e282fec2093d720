"""What a conversation turn's vector is computed from: its own text, and the turn before it.

An elliptical turn ("yes, twice last week", "Thanks, it was the one by the lake!") carries its
subject in the turn it answers. With ``IndexTextPolicy.context_vector = beta`` a turn's stored
vector is the concatenation ``[(1 - beta) * e(own), beta * e(previous turn + own)]`` (unit length),
and the query vector is ``[q, q] / sqrt(2)``: their cosine is, up to a constant factor, the weighted
mean of the two cosines ``(1 - beta) cos(q, own) + beta cos(q, context)``. That is two vectors per
turn scored together in one search, on every vector index (exact, HNSW, pgvector) unchanged; a
single blended vector, renormalised, loses what the mean of two cosines keeps (measured on LoCoMo,
docs/benchmarks/retrieval.md, "Issue 20, passages").

The vectors are tagged ``<model>+prev<beta>``: a store written with another recipe of the same
model is re-embedded on first use (:func:`same_family`), never mixed with it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from remnant.embed.base import (
    RECIPE_SEPARATOR,
    Embedder,
    Vectors,
    base_model_id,
    check_texts,
    empty,
    l2_normalize,
)
from remnant.embed.cache import CachedEmbedder
from remnant.retrieval.errors import RetrievalError


def recipe_model_id(model_id: str, beta: float) -> str:
    """The model id a recipe's vectors are stored under (the plain id when there is no context)."""
    return f"{model_id}{RECIPE_SEPARATOR}prev{beta:g}" if beta > 0 else model_id


def same_family(a: str, b: str) -> bool:
    """Vectors of the same model under different passage recipes (re-embeddable from the text)."""
    return base_model_id(a) == base_model_id(b)


def context_passage(previous: str | None, own: str, limit: int) -> str:
    """The text of a turn's context vector: the turn before it, then the turn itself, the turn's own
    text kept whole within ``limit`` characters (the previous turn is cut first)."""
    if not previous:
        return own[:limit]
    room = limit - len(own) - 1
    if room <= 0:
        return own[:limit]
    return f"{previous[:room]}\n{own}"


class ContextPairEmbedder:
    """An Embedder of (own text, context text) pairs: ``2 * dim`` unit vectors (module docstring).

    ``embed_documents`` of a lone text embeds it as its own context (a memory with no previous turn,
    a statement compared with stored turns). The inner model's vectors are cached by text, so the
    own-text vectors embedded before the write lock are reused when the pairs are formed."""

    def __init__(self, inner: Embedder, beta: float) -> None:
        if not 0 < beta < 1:
            raise RetrievalError(f"context_vector must be between 0 and 1 (exclusive), not {beta}")
        self.inner: Embedder = inner if isinstance(inner, CachedEmbedder) else CachedEmbedder(inner)
        self.beta = beta
        self.model_id = recipe_model_id(inner.model_id, beta)
        self._scale = 1.0 / math.sqrt(2.0)
        # the halves are orthogonal blocks, so a pair vector's length before normalising is this
        # constant: a search's cosine is the weighted mean of the two cosines times ``score_scale``
        # (1 at beta 0.5), which is what a similarity floor chosen on plain cosines is scaled by
        self.score_scale = 1.0 / math.sqrt(2.0 * ((1.0 - beta) ** 2 + beta**2))  # exactly 1 at 0.5

    @property
    def dim(self) -> int:
        return 2 * int(self.inner.dim)

    def embed_pairs(self, own: Sequence[str], context: Sequence[str]) -> Vectors:
        if len(own) != len(context):
            raise RetrievalError("embed_pairs needs one context per text")
        items = check_texts(own)
        if not items:
            return empty(self.dim)
        # one model call for both halves (repeated texts are embedded once by the cache)
        both = self.inner.embed_documents([*items, *check_texts(context)])
        n = len(items)
        mat = np.concatenate([(1.0 - self.beta) * both[:n], self.beta * both[n:]], axis=1)
        return l2_normalize(mat)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return self.embed_pairs(texts, texts)

    def embed_query(self, text: str) -> Vectors:
        q = np.asarray(self.inner.embed_query(text), dtype=np.float32)
        return (np.concatenate([q, q]) * self._scale).astype(np.float32)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        many: Any = getattr(self.inner, "embed_queries", None)
        qs = np.asarray(many(list(texts)) if many else [self.inner.embed_query(t) for t in texts], np.float32)
        if qs.size == 0:
            return empty(self.dim)
        return (np.concatenate([qs, qs], axis=1) * self._scale).astype(np.float32)
