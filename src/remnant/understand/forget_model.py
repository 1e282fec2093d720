"""Is this stored memory what a forget request means? A small logistic model over (request, memory).

The request rules (:mod:`remnant.understand.requests`) are exact where a shape is (a phone number,
an e-mail, a key, an explicit name, a keep clause) but read only the phrasings they were written
for: "drop the health stuff" finds no target, "forget my medical info" finds the nurse's job by the
word "hospital". This model weighs, for one request and one of the user's memories:

- the cosine of the request's target (the request without its verb, :func:`core_request`, embedded
  as a query) to the memory's stored vector, raw, centred on the attribute model's centre, and
  relative to the user's other memories (its rank, its gap to the nearest, its z-score);
- what the rules said of that memory (a match; whole or a part; sure: by key or by a value of the
  type asked; on one word of a broad scope alone) and whether they found anything for the request;
- the attribute each side gets from :mod:`remnant.understand.attribute_model` and whether they agree;
- value shapes: the request names a type of personal data and the memory holds one of that type
  (the exact-shape rules of :func:`detect_values`);
- lexical overlap of the target's words with the memory, a keep clause's words in the memory, a
  memory about someone else;
- and the element-wise product of the two centred unit vectors (:data:`BLOCKS`): which directions
  of meaning they share.

``p = sigmoid(w · standardise(x) + b)``. The engine's forget policy
(:mod:`remnant.engine.forgetting.requests`) asks it about the ``candidates`` memories nearest the
request (by the vectors recall already stored: no memory is embedded again) and the rules' picks:
where the rules find nothing (or, with ``union``, the shipped policy, beside their picks too), a
memory with ``p ≥ add_at`` is taken; a rule pick that rests on one
scope word alone with ``p < veto_at`` is left alone (``veto_at`` ``None``: no veto). Weights and
thresholds ship as ``data/forget_<model>.json``, fitted by ``python -m remnant.extract.forget_fit``
on the forget corpora (``corpora/forget/``), chosen by leave-one-author-out
(``docs/benchmarks/understanding.md``). Without weights for the embedder it answers nothing and the
rules decide alone.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from remnant.core.memo import text_cache
from remnant.core.model import MemoryRecord
from remnant.understand import logistic
from remnant.understand.attribute_model import OTHER, Centroids
from remnant.understand.attribute_model import weights_path as attribute_weights_path
from remnant.understand.intent import ForgetIntent
from remnant.understand.pair_model import has_cue
from remnant.understand.requests import MatchHit, detect_values
from remnant.understand.statements import tokens

log = logging.getLogger(__name__)

DATA_DIR = Path(__file__).resolve().parent / "data"

FEATURES: tuple[str, ...] = (
    "cos",  # cosine of the request's target (a query vector) to the memory's stored vector
    "cos_centred",  # the same after removing the attribute model's centre
    "cos_gap",  # cos minus the nearest memory's cos in the user's scope (0 for the nearest)
    "cos_z",  # cos standardised over the user's scope
    "rank_inv",  # 1 / (1 + rank by cos)
    "rule_hit",  # the rules match this memory
    "rule_whole",  # … the whole of it
    "rule_sure",  # … by its key, a value the request names, or a value of the asked type
    "rule_word_only",  # … on one word of a broad scope alone
    "rules_found",  # the rules match some memory of the user for this request
    "attr_same",  # request and memory on the same attribute (not "other")
    "attr_margin",  # the smaller of the two margins when they agree
    "pii_asked",  # the request names a type of personal data
    "pii_has",  # the memory holds a value of that type (exact shapes)
    "shape_any",  # the memory holds any exact-shape value
    "overlap",  # share of the target's content words the memory holds
    "overlap_any",
    "keep_words",  # a word of the request's keep clause is in the memory
    "has_keep",  # the request keeps something
    "intent_empty",  # the rules read no target at all
    "scope_asked",  # a broad scope ("anything medical")
    "topic_asked",  # a named attribute ("my address")
    "third_memory",  # the memory opens on someone else ("my sister's number …")
    "log_scope",  # log(1 + memories in the scope)
    # what the memory shares with the rules' picks (a request is often one story told over turns)
    "cos_picked",  # the largest centred cosine to another memory the rules match (0: none)
    "words_picked",  # the largest share of its content words another memory the rules match holds
)

#: the block appended to the scalar features: the element-wise product of the request's and the
#: memory's centred unit vectors
BLOCKS: tuple[str, ...] = ("product",)


def weights_path(model_id: str) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in model_id)
    return DATA_DIR / f"forget_{safe}.json"


@text_cache(maxsize=4096)
def _content(text: str) -> frozenset[str]:
    return frozenset(t.value for t in tokens(text) if t.kind in ("w", "c", "n"))


def _unit(v: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return np.asarray(v / max(float(np.linalg.norm(v)), 1e-12), dtype=np.float64)


_SCOPE_WORD = re.compile(r"^about [\w ]+ \((?!a card number\)|an amount\))[^)]*\)")


def sure(hit: MatchHit) -> bool:
    """A rule match on the memory's key or on a value of the type the request names."""
    return hit.by_key or hit.value or hit.why.startswith(("key ", "contains ", "holds "))


def word_only(hit: MatchHit) -> bool:
    """A rule match that rests on one word of a broad scope alone ("about health (hospital)"), not
    on the memory's key, a value or a topic's own words."""
    return not hit.by_key and not hit.value and _SCOPE_WORD.match(hit.why) is not None


@dataclass(frozen=True)
class Scope:
    """What the features of one request share: its target, its vector, the user's cosines."""

    core: str
    intent: ForgetIntent
    query: npt.NDArray[np.float64]
    cosines: Mapping[str, float]  # memory id -> cosine, over the bounded candidates
    rules_found: bool
    n_scope: int
    guess: tuple[str, float] | None = None
    center: npt.NDArray[np.float64] | None = None
    # the rules' picks: (id, centred unit vector, content words), at most a few
    picked: tuple[tuple[str, npt.NDArray[np.float64], frozenset[str]], ...] = ()
    best: float = field(init=False)
    mean: float = field(init=False)
    std: float = field(init=False)
    order: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        vals = list(self.cosines.values()) or [0.0]
        object.__setattr__(self, "best", max(vals))
        object.__setattr__(self, "mean", float(np.mean(vals)))
        object.__setattr__(self, "std", max(float(np.std(vals)), 0.02))
        ranked = sorted(self.cosines, key=lambda k: -self.cosines[k])
        object.__setattr__(self, "order", {mid: i for i, mid in enumerate(ranked)})


#: at most this many rule picks are compared with each candidate (bounded cost)
PICKED = 8


def picked_of(
    records: Sequence[MemoryRecord],
    vectors: Mapping[str, npt.ArrayLike],
    hits: Mapping[str, MatchHit],
    center: npt.NDArray[np.float64] | None,
) -> tuple[tuple[str, npt.NDArray[np.float64], frozenset[str]], ...]:
    """The rules' picks as :attr:`Scope.picked` holds them (the first :data:`PICKED` with a vector)."""
    out: list[tuple[str, npt.NDArray[np.float64], frozenset[str]]] = []
    for r in records:
        if r.id in hits and r.id in vectors and len(out) < PICKED:
            v = _unit(np.asarray(vectors[r.id], dtype=np.float64))
            out.append((r.id, _unit(v - center) if center is not None else _unit(v), _content(r.content)))
    return tuple(out)


def features(
    scope: Scope,
    record: MemoryRecord,
    vector: npt.NDArray[np.float64],
    hit: MatchHit | None,
    guess: tuple[str, float] | None,
    blocks: Sequence[str] = BLOCKS,
) -> npt.NDArray[np.float64]:
    """The feature vector of (request, memory): :data:`FEATURES`, then ``blocks`` (of :data:`BLOCKS`)."""
    # unit length first: a context pair's half is scaled (the centre is of unit vectors)
    q, m = _unit(np.asarray(scope.query, dtype=np.float64)), _unit(np.asarray(vector, dtype=np.float64))
    cos = scope.cosines.get(record.id)
    if cos is None:
        cos = float(_unit(q) @ _unit(m))
    if scope.center is not None:
        qc, mc = _unit(q - scope.center), _unit(m - scope.center)
    else:
        qc, mc = _unit(q), _unit(m)
    intent = scope.intent
    rank = scope.order.get(record.id, len(scope.order))
    same = scope.guess is not None and guess is not None and scope.guess[0] == guess[0] and guess[0] != OTHER
    text = record.content
    values = detect_values(text)
    asked = set(intent.pii_types)
    want = _content(scope.core)
    have = _content(text)
    over = len(want & have) / len(want) if want else 0.0
    keep = {w.lower() for w in intent.keep_terms if w}
    low = text.lower()
    cos_picked = max((float(mc @ v) for mid, v, _ in scope.picked if mid != record.id), default=0.0)
    words_picked = max(
        (len(have & w) / len(have) for mid, _, w in scope.picked if mid != record.id and have),
        default=0.0,
    )
    x = [
        cos,
        float(qc @ mc),
        cos - scope.best,
        (cos - scope.mean) / scope.std,
        1.0 / (1.0 + rank),
        float(hit is not None),
        float(hit is not None and not hit.spans),
        float(hit is not None and sure(hit)),
        float(hit is not None and word_only(hit)),
        float(scope.rules_found),
        float(same),
        min(scope.guess[1], guess[1]) if same and scope.guess is not None and guess is not None else 0.0,
        float(bool(asked) or intent.value_kind is not None),
        float(any(lb in asked for lb, _, _ in values)),
        float(bool(values)),
        over,
        float(over > 0),
        float(any(w in low for w in keep)),
        float(bool(intent.keep_terms or intent.keep_qualifiers or intent.keep_topics)),
        float(intent.empty),
        float(bool(intent.scopes)),
        float(bool(intent.topics)),
        float(has_cue("third", text)),
        math.log1p(scope.n_scope),
        cos_picked,
        words_picked,
    ]
    scalars = np.asarray(x, dtype=np.float64)
    return np.concatenate([scalars, qc * mc]) if "product" in blocks else scalars


@dataclass(frozen=True)
class TargetWeights:
    model_id: str
    features: tuple[str, ...]
    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    weights: npt.NDArray[np.float64]
    bias: float
    add_at: float  # where the rules find nothing: take a memory at or above this
    veto_at: float | None  # a rule pick on one scope word alone below this is left alone
    candidates: int  # how many memories nearest the request the model judges
    meta: dict[str, Any]
    # the model adds where the rules found something too (not only where they found nothing)
    union: bool = False
    # which rule picks the model may veto: "word_only" (one scope word alone), "unsure" (any pick
    # not made by a key or a value), None
    veto: str | None = None
    blocks: tuple[str, ...] = BLOCKS  # the vector blocks after the scalar features
    # a memory the model takes is within this of the likeliest candidate's p (None: any)
    lead: float | None = None
    dim: int = 384  # the embedder's dimension the weights were fitted on

    def own(self, vectors: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """The model's own vectors of ``vectors`` (rows): as they are, or the first half of a
        context pair (``<model>+mix<beta>``: ``[(1 - beta) e(own), beta e(context)]``, and a query's
        ``[q, q] / sqrt(2)``; remnant.retrieval.passages), which is the turn's own vector scaled."""
        m = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
        if m.shape[1] == 2 * self.dim:
            return np.asarray(m[:, : self.dim], dtype=np.float64)
        if m.shape[1] != self.dim:
            raise ValueError(f"vectors of {m.shape[1]} dimensions, the weights are for {self.dim}")
        return m

    def probability(self, x: npt.ArrayLike) -> npt.NDArray[np.float64]:
        z = ((np.atleast_2d(np.asarray(x, dtype=np.float64)) - self.mean) / self.scale) @ self.weights
        return np.asarray(1.0 / (1.0 + np.exp(-(z + self.bias))), dtype=np.float64)

    def to_json(self) -> dict[str, Any]:
        return {
            "model_id": self.model_id,
            "features": list(self.features),
            "blocks": list(self.blocks),
            "dim": self.dim,
            "lead": self.lead,
            "mean": logistic.rounded(self.mean),
            "scale": logistic.rounded(self.scale),
            "weights": logistic.rounded(self.weights),
            "bias": round(self.bias, 6),
            "add_at": self.add_at,
            "veto_at": self.veto_at,
            "candidates": self.candidates,
            "union": self.union,
            "veto": self.veto,
            "meta": self.meta,
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> TargetWeights:
        feats = tuple(str(f) for f in raw["features"])
        blocks = tuple(str(b) for b in raw.get("blocks", ()))
        if feats != FEATURES or not set(blocks) <= set(BLOCKS):
            raise ValueError("forget-target weights were fitted on other features: refit them")
        return cls(
            str(raw["model_id"]),
            feats,
            np.asarray(raw["mean"], dtype=np.float64),
            np.asarray(raw["scale"], dtype=np.float64),
            np.asarray(raw["weights"], dtype=np.float64),
            float(raw["bias"]),
            float(raw["add_at"]),
            None if raw.get("veto_at") is None else float(raw["veto_at"]),
            int(raw.get("candidates", 8)),
            dict(raw.get("meta", {})),
            bool(raw.get("union", False)),
            None if raw.get("veto") is None else str(raw["veto"]),
            blocks,
            None if raw.get("lead") is None else float(raw["lead"]),
            int(raw.get("dim", 384)),
        )


_LOADED: dict[str, TargetWeights | None] = {}
_LOCK = threading.Lock()


def load_weights(model_id: str) -> TargetWeights | None:
    """The shipped weights for ``model_id`` (``None``: none, or stale ones), read once."""
    with _LOCK:
        if model_id not in _LOADED:
            path = weights_path(model_id)
            got: TargetWeights | None = None
            if path.exists():
                try:
                    got = TargetWeights.from_json(json.loads(path.read_text(encoding="utf-8")))
                except (ValueError, KeyError) as exc:
                    log.warning("forget-target model off: %s (%s)", exc, path)
            _LOADED[model_id] = got
        return _LOADED[model_id]


_CENTROIDS: dict[str, Centroids | None] = {}


def load_centroids(model_id: str) -> Centroids | None:
    """The attribute model's centroids for ``model_id`` (the centre and the attribute guesses)."""
    with _LOCK:
        if model_id not in _CENTROIDS:
            path = attribute_weights_path(model_id)
            got: Centroids | None = None
            if path.exists():
                try:
                    got = Centroids.from_json(json.loads(path.read_text(encoding="utf-8")))
                except (ValueError, KeyError):
                    got = None
            _CENTROIDS[model_id] = got
        return _CENTROIDS[model_id]


def guarded(intent: ForgetIntent) -> bool:
    """Whether the rules' reading of the request is exact, so the model guesses nothing beside it:
    a type of personal data (found by its shape or not at all), a time scope, everything, a kind."""
    return bool(intent.pii_types or intent.when or intent.everything or intent.kinds)


def nearest(cosines: Mapping[str, float], k: int) -> list[str]:
    """The ``k`` memory ids nearest the request (ties by id: deterministic)."""
    return sorted(cosines, key=lambda mid: (-cosines[mid], mid))[: max(0, k)]


def score(
    weights: TargetWeights,
    core: str,
    intent: ForgetIntent,
    query: npt.ArrayLike,
    records: Sequence[MemoryRecord],
    vectors: Mapping[str, npt.ArrayLike],
    hits: Mapping[str, MatchHit],
    cosines: Mapping[str, float],
    n_scope: int,
) -> dict[str, float]:
    """The probability that each of ``records`` (with a vector) is what the request means."""
    cents = load_centroids(weights.model_id)
    q = np.asarray(query, dtype=np.float64)
    have = [r for r in records if r.id in vectors]
    if not have:
        return {}
    mat = np.vstack([np.asarray(vectors[r.id], dtype=np.float64) for r in have])
    guesses: list[tuple[str, float] | None] = [None] * len(have)
    qguess = None
    if cents is not None:
        got = cents.classify(np.vstack([q, mat]))
        qguess, guesses = got[0], list(got[1:])
    center = cents.center if cents is not None else None
    scope = Scope(
        core,
        intent,
        q,
        cosines,
        bool(hits),
        n_scope,
        qguess,
        center,
        picked_of(have, vectors, hits, center),
    )
    xs = np.vstack(
        [features(scope, r, mat[i], hits.get(r.id), guesses[i], weights.blocks) for i, r in enumerate(have)]
    )
    ps = weights.probability(xs)
    return {r.id: float(p) for r, p in zip(have, ps, strict=True)}
