"""What a conversation turn's vector is computed from: its own text, and the turn before it.

An elliptical turn ("yes, twice last week", "Thanks, it was the one by the lake!") carries its
subject in the turn it answers. With ``IndexTextPolicy.context_vector = beta`` a turn's stored
vector is the concatenation ``[(1 - beta) * e(own), beta * e(previous turn + own)]`` (unit length),
and the query vector is ``[q, q] / sqrt(2)``: their cosine is, up to a constant factor, the weighted
mean of the two cosines ``(1 - beta) cos(q, own) + beta cos(q, context)``. That is two vectors per
turn scored together in one search, on every vector index (exact, HNSW, pgvector) unchanged; a
single blended vector, renormalised, loses what the mean of two cosines keeps (measured on LoCoMo,
docs/benchmarks/retrieval.md, "Issue 20, passages").

How ``e(previous turn + own)`` is had is the recipe. ``mix`` (the default) reuses the two turns'
own vectors: the context half is their length-weighted sum ``|p| e(p) + |o| e(o)``, made unit
length, which is what the model's mean pooling over the joined text gives when attention does not
cross the join (the model itself joins the windows of a long text this way). It costs no model call:
a turn is embedded once, where the ``passage`` recipe embeds the joined text too (three times the
tokens of a turn). On the LoCoMo dev split: turn Recall@5 73.4 % vs 73.9 % with raw turns, 73.6 %
both through ``Memory.add`` (docs/benchmarks/engine.md, "Issue 30: bulk import").

The vectors are tagged ``<model>+mix<beta>`` (``+prev<beta>`` for the passage recipe): a store
written with another recipe of the same model is re-embedded on first use (:func:`same_family`),
never mixed with it.
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

#: the recipes of a context half: the turns' own vectors joined, or the joined text embedded
RECIPES = ("mix", "passage")


def recipe_model_id(model_id: str, beta: float, recipe: str = "mix") -> str:
    """The model id a recipe's vectors are stored under (the plain id when there is no context)."""
    if beta <= 0:
        return model_id
    tag = "mix" if recipe == "mix" else "prev"
    return f"{model_id}{RECIPE_SEPARATOR}{tag}{beta:g}"


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
    """An Embedder of (own text, context) pairs: ``2 * dim`` unit vectors (module docstring).

    ``embed_documents`` of a lone text embeds it as its own context (a memory with no previous turn,
    a statement compared with stored turns). The inner model's vectors are cached by text, so the
    own-text vectors embedded before the write lock are reused when the pairs are formed.
    :meth:`embed_turns` takes each turn with the turn before it and applies the ``recipe``."""

    def __init__(self, inner: Embedder, beta: float, *, recipe: str = "mix", limit: int = 2000) -> None:
        if not 0 < beta < 1:
            raise RetrievalError(f"context_vector must be between 0 and 1 (exclusive), not {beta}")
        if recipe not in RECIPES:
            raise RetrievalError(f"the context recipe is one of {', '.join(RECIPES)}, not {recipe!r}")
        self.inner: Embedder = inner if isinstance(inner, CachedEmbedder) else CachedEmbedder(inner)
        self.beta = beta
        self.recipe = recipe
        self.limit = limit  # the passage recipe's joined text, in characters
        self.model_id = recipe_model_id(inner.model_id, beta, recipe)
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

    def turn_texts(self, own: Sequence[str], previous: Sequence[str | None]) -> list[str]:
        """The texts the model embeds for :meth:`embed_turns` of these turns (to embed ahead of
        time, in one batch: the vectors wait in the cache)."""
        if self.recipe == "mix":
            return [*own, *(p for p in previous if p)]
        return [*own, *(context_passage(p, o, self.limit) for o, p in zip(own, previous, strict=True) if p)]

    def embed_turns(self, own: Sequence[str], previous: Sequence[str | None]) -> Vectors:
        """Each turn's pair vector, with the text of the turn before it (``None``: none; the turn's
        own text is then its context)."""
        if len(own) != len(previous):
            raise RetrievalError("embed_turns needs one previous turn (or None) per text")
        items = check_texts(own)
        if not items:
            return empty(self.dim)
        if self.recipe == "passage":
            return self.embed_pairs(
                items, [context_passage(p, o, self.limit) for o, p in zip(items, previous, strict=True)]
            )
        prev = [p or "" for p in previous]
        # one model call for the turns and the turns before them (most are in the batch already)
        both = self.inner.embed_documents([*items, *(p for p in prev if p)])
        n = len(items)
        mine, rest = both[:n], iter(both[n:])
        context = mine.copy()
        for i, p in enumerate(prev):
            if p:
                # the mean pooling of the joined text, without attention across the join
                context[i] = len(p) * next(rest) + len(items[i]) * mine[i]
        mat = np.concatenate([(1.0 - self.beta) * mine, self.beta * l2_normalize(context)], axis=1)
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
