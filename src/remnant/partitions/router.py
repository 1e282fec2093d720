"""Routing a query to partitions: explicit rules first, then similarity to partition descriptions.

This is the application-level version of the seed's MoE router (section 3.2, strategy four):
time-sensitive questions go to the "dynamic 2024" partition, preference questions to the
user's partition, everything else to basic knowledge.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from remnant.partitions.embed import Embedder, HashingEmbedder, cosine, embed_queries
from remnant.partitions.errors import InvalidPartitionError
from remnant.partitions.model import Partition
from remnant.training.normalize import normalize_text


@dataclass(frozen=True)
class RouteDecision:
    """Chosen partitions (best first), every partition's score, and why each was chosen."""

    partitions: tuple[str, ...]
    scores: dict[str, float]
    reasons: dict[str, list[str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {"partitions": list(self.partitions), "scores": self.scores, "reasons": self.reasons}


class Router:
    """Scores partitions for a query.

    A partition matched by a rule (keyword, regex or query kind) scores 1 + similarity; others
    score their similarity (to the description, or to their content when the caller supplies
    it) and are chosen only above ``min_similarity``. At most
    ``max_partitions`` are returned; if nothing qualifies the ``fallback`` partitions are used
    (or the single most similar one, ties by name, when none of them exists).
    """

    def __init__(
        self,
        partitions: Sequence[Partition],
        *,
        embed: Embedder | None = None,
        min_similarity: float = 0.15,
        max_partitions: int = 2,
        fallback: Sequence[str] = (),
    ) -> None:
        if max_partitions <= 0:
            raise ValueError("max_partitions must be > 0")
        self.partitions = list(partitions)
        self.embed: Embedder = embed or HashingEmbedder()
        self.min_similarity = min_similarity
        self.max_partitions = max_partitions
        self.fallback = tuple(fallback)
        self._patterns: dict[str, list[re.Pattern[str]]] = {}
        for p in self.partitions:
            compiled = []
            for pattern in p.patterns:
                try:
                    compiled.append(re.compile(pattern, re.IGNORECASE))
                except re.error as exc:
                    raise InvalidPartitionError(
                        f"partition {p.name!r}: bad pattern {pattern!r}: {exc}"
                    ) from None
            self._patterns[p.name] = compiled
        self._desc: npt.NDArray[np.float64] | None = None

    def _descriptions(self) -> npt.NDArray[np.float64]:
        if self._desc is None:
            self._desc = np.asarray(self.embed([p.description for p in self.partitions]), dtype=np.float64)
        return self._desc

    def route(
        self, query: str, *, kind: str | None = None, content_scores: Mapping[str, float] | None = None
    ) -> RouteDecision:
        """Choose partitions for ``query``.

        ``content_scores`` (partition -> similarity of its best item to the query) is optional
        extra evidence: a partition counts as similar if its description *or* its content is.
        """
        if not self.partitions:
            return RouteDecision((), {})
        sims = cosine(embed_queries(self.embed, [query])[0], self._descriptions())
        text = normalize_text(query)
        scores: dict[str, float] = {}
        reasons: dict[str, list[str]] = {}
        chosen: list[str] = []
        content = content_scores or {}
        for p, desc_sim in zip(self.partitions, sims, strict=True):
            sim = max(float(desc_sim), float(content.get(p.name, 0.0)))
            source = "description" if float(desc_sim) >= content.get(p.name, 0.0) else "content"
            why = [f"keyword {k!r}" for k in p.keywords if normalize_text(k) in text]
            why += [f"pattern {rx.pattern!r}" for rx in self._patterns[p.name] if rx.search(query)]
            if kind is not None and kind in p.kinds:
                why.append(f"kind {kind!r}")
            score = float(sim) + (1.0 if why else 0.0)
            scores[p.name] = round(score, 6)
            if why or sim >= self.min_similarity:
                reasons[p.name] = why or [f"{source} similarity {sim:.3f}"]
                chosen.append(p.name)
        chosen.sort(key=lambda name: (-scores[name], name))
        chosen = chosen[: self.max_partitions]
        if not chosen:
            known = {p.name for p in self.partitions}
            fallback = [name for name in self.fallback if name in known]
            if not fallback:
                fallback = [min(self.partitions, key=lambda p: (-scores[p.name], p.name)).name]
            chosen = fallback
            for name in fallback:
                reasons[name] = ["fallback"]
        return RouteDecision(tuple(chosen), scores, {k: reasons[k] for k in chosen})
