"""A ranker learned from recall's own features: a linear model over each fused candidate.

The fixed-weight pipeline multiplies the fused relevance by a speaker boost, a temporal boost and
a "when" boost whose sizes were chosen by cross-validation. The learned ranker instead scores each
candidate of the fused head (:data:`FEATURES`: BM25 and cosine, their ranks, the two halves of
the turn's vector, speaker and addressee match, time-range match, the candidate's place in time
among the others, importance, how well its session and its neighbours did, its length) with one
linear model, ``score = sigmoid(b + sum_i w_i (x_i - mean_i) / sd_i)``, so every feature's
contribution to a hit's score is a number the recall explanation can show.

The model is trained pairwise (an evidence candidate should outscore a non-evidence one of the
same question: logistic loss on the score difference, L2-regularised), with numpy only, by
``remnant bench locomo --train-ranker OUT`` on the LoCoMo development split; the folds report
(``--folds``) trains it inside each fold, never on the held-out conversation. The shipped model
is ``remnant/retrieval/data/ranker.json``. The fixed weights stay the fallback: no model file, a
model that needs a feature this retriever cannot compute (a lexical-only retriever has no
cosines), or a model switched off.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from remnant.core.model import MemoryRecord
from remnant.retrieval.errors import RetrievalError
from remnant.retrieval.rescoring import event_ranges
from remnant.understand.timeexpr import TimeRange, has_time_expression, mentions_recent

# Every feature the retriever can compute per candidate (each in about 0..1; 0 when absent).
FEATURES: tuple[str, ...] = (
    "lexical_score",  # BM25 over the best BM25 of the question (0: not found by the lexical half)
    "lexical_rank",  # 1 / log2(1 + rank) in the lexical list
    "vector_score",  # cosine, min-max scaled over the vector list
    "vector_rank",  # 1 / log2(1 + rank) in the vector list
    "vector_own",  # cosine of the question with the turn's own text (the first half of its vector)
    "vector_context",  # cosine with the turn before plus this one (the second half)
    "fused",  # the fixed fusion's relevance
    "speaker",  # the turn's speaker is named in the question
    "addressee",  # the question names a speaker of the scope, not this turn's (it was said to them)
    "time_match",  # the turn's event dates fall in a range the question names
    "when_time",  # a "when" question and the turn mentions a time
    "has_time",  # the turn mentions a time
    "recent",  # the turn says it happened just now or lately ("I just ..."), on a "when" question
    "recency",  # the turn's date among the candidates' (0 the oldest, 1 the newest)
    "importance",
    "session_best",  # the best fused relevance of another candidate of the same session
    "session_share",  # the share of the candidates that come from the turn's session
    "session_rank",  # 1 / rank of the turn inside its session's candidates
    "length",  # min(1, words / 30): a one-word turn is rarely the evidence
)
# Features only a retriever with vectors can compute: a model that uses them falls back without.
VECTOR_FEATURES = frozenset({"vector_score", "vector_rank", "vector_own", "vector_context"})

# how much of a candidate's text the time-cue features read
CUE_CHARS = 2000

MODEL_FILE = Path(__file__).parent / "data" / "ranker.json"
FORMAT = "remnant-ranker/1"


@dataclass(frozen=True)
class LearnedRanker:
    """A linear model over :data:`FEATURES` (standardised), read from / written to JSON."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    bias: float = 0.0
    info: Mapping[str, Any] | None = None  # how it was trained (data, folds, figures)

    def __post_init__(self) -> None:
        n = len(self.features)
        if not (len(self.weights) == len(self.mean) == len(self.scale) == n):
            raise RetrievalError("ranker model: features, weights, mean and scale differ in length")
        unknown = set(self.features) - set(FEATURES)
        if unknown:
            raise RetrievalError(f"ranker model: unknown features {sorted(unknown)}")

    def usable(self, available: frozenset[str] | set[str]) -> bool:
        """Every feature with a weight can be computed."""
        return all(f in available for f, w in zip(self.features, self.weights, strict=True) if w)

    def contributions(self, x: Mapping[str, float]) -> dict[str, float]:
        """Each feature's share of the linear score (the bias apart)."""
        return {
            f: w * (x.get(f, 0.0) - m) / s
            for f, w, m, s in zip(self.features, self.weights, self.mean, self.scale, strict=True)
            if w
        }

    def score(self, x: Mapping[str, float]) -> float:
        """The model's relevance, in (0, 1)."""
        z = self.bias + sum(self.contributions(x).values())
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "features": list(self.features),
            "weights": [round(w, 6) for w in self.weights],
            "mean": [round(m, 6) for m in self.mean],
            "scale": [round(s, 6) for s in self.scale],
            "bias": round(self.bias, 6),
            "info": dict(self.info or {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LearnedRanker:
        if data.get("format") != FORMAT:
            raise RetrievalError(f"ranker model: format {data.get('format')!r}, expected {FORMAT!r}")
        try:
            return cls(
                features=tuple(str(f) for f in data["features"]),
                weights=tuple(float(w) for w in data["weights"]),
                mean=tuple(float(m) for m in data["mean"]),
                scale=tuple(float(s) or 1.0 for s in data["scale"]),
                bias=float(data.get("bias", 0.0)),
                info=data.get("info") or {},
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise RetrievalError(f"ranker model: malformed ({exc!r})") from exc

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")


def load_ranker(path: str | Path | None = None) -> LearnedRanker | None:
    """The model at ``path`` (default: the shipped one); None when there is no file."""
    p = Path(path) if path is not None else MODEL_FILE
    if not p.is_file():
        return None
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RetrievalError(f"ranker model {p}: cannot read it ({exc})") from exc
    return LearnedRanker.from_dict(data)


# -- features ---------------------------------------------------------------------------------------
def _rank_feature(rank: int | None) -> float:
    return 1.0 / math.log2(1.0 + rank) if rank else 0.0


def candidate_features(
    head: Sequence[tuple[str, float]],
    lexical: Sequence[tuple[str, float]],
    vector: Sequence[tuple[str, float]],
    records: Mapping[str, MemoryRecord],
    *,
    terms: Sequence[str],
    speakers: frozenset[str],
    ranges: Sequence[TimeRange],
    when: bool,
    halves: Mapping[str, tuple[float, float]] | None = None,
) -> dict[str, dict[str, float]]:
    """:data:`FEATURES` of every candidate of ``head`` (those with a record). ``terms``: the
    question's words (lower case); ``speakers``: the scope's speakers' names
    (:func:`~remnant.retrieval.rescoring.speaker_names`); ``halves``: per id, the cosines of the
    question with the turn's own text and with its context (when the vectors hold both).
    Linear in the head: one pass over it, one over each candidate list."""
    lex_rank = {i: (r, s) for r, (i, s) in enumerate(lexical, start=1)}
    vec_rank = {i: (r, s) for r, (i, s) in enumerate(vector, start=1)}
    best_bm25 = max((s for _, s in lexical), default=0.0) or 1.0
    cos = [s for _, s in vector]
    lo, hi = (min(cos), max(cos)) if cos else (0.0, 1.0)
    span = (hi - lo) or 1.0
    named = set(terms)
    asked_about = {n for n in speakers if n in named}
    fused = dict(head)
    ids = [i for i, _ in head if i in records]
    dates = {i: _when(records[i]) for i in ids}
    known = [d for d in dates.values() if d is not None]
    first, last = (min(known), max(known)) if known else (0.0, 0.0)
    by_session: dict[str, list[str]] = {}
    for i in ids:  # head order: best fused first
        sess = records[i].session_id
        if sess:
            by_session.setdefault(sess, []).append(i)
    out: dict[str, dict[str, float]] = {}
    for i in ids:
        r = records[i]
        lr, vr = lex_rank.get(i), vec_rank.get(i)
        speaker = r.metadata.get("speaker") if isinstance(r.metadata, Mapping) else None
        who = speaker.strip().casefold() if isinstance(speaker, str) else ""
        # the time cues are read from the head of a long memory only (bounded work per candidate)
        head_text = r.content[:CUE_CHARS]
        timed = has_time_expression(head_text)
        d = dates[i]
        peers = by_session.get(r.session_id or "", [i])
        others = [fused[j] for j in peers if j != i]
        x = {
            "lexical_score": lr[1] / best_bm25 if lr else 0.0,
            "lexical_rank": _rank_feature(lr[0] if lr else None),
            "vector_score": (vr[1] - lo) / span if vr else 0.0,
            "vector_rank": _rank_feature(vr[0] if vr else None),
            "fused": fused.get(i, 0.0),
            "speaker": 1.0 if who and who in named else 0.0,
            "addressee": 1.0 if asked_about and who and who not in asked_about else 0.0,
            "time_match": 1.0
            if ranges and any(a.overlaps(b) for a in event_ranges(r) for b in ranges)
            else 0.0,
            "when_time": 1.0 if when and timed else 0.0,
            "has_time": 1.0 if timed else 0.0,
            "recent": 1.0 if when and mentions_recent(head_text) else 0.0,
            "recency": (d - first) / (last - first) if d is not None and last > first else 0.5,
            "importance": float(r.importance),
            "session_best": max(others, default=0.0),
            "session_share": len(peers) / len(ids),
            "session_rank": 1.0 / (peers.index(i) + 1) if i in peers else 1.0,
            "length": min(1.0, len(r.content.split()) / 30.0),
        }
        if halves is not None and i in halves:
            x["vector_own"], x["vector_context"] = halves[i]
        elif halves is not None:
            x["vector_own"] = x["vector_context"] = 0.0
        out[i] = x
    return out


def _when(r: MemoryRecord) -> float | None:
    said = r.occurred_at or r.valid_from or r.created_at
    return said.timestamp() / 86400.0 if said is not None else None


# -- training ----------------------------------------------------------------------------------------
# One question's candidates: their feature rows and which of them are evidence.
Group = tuple[Sequence[Mapping[str, float]], Sequence[bool]]


def train_ranker(
    groups: Sequence[Group],
    *,
    features: Sequence[str] = FEATURES,
    l2: float = 1e-3,
    steps: int = 300,
    rate: float = 1.0,
    info: Mapping[str, Any] | None = None,
) -> LearnedRanker:
    """Pairwise logistic regression: for every question, each evidence candidate against each
    other candidate (all pairs of a question weigh as much as one question), full-batch gradient
    descent on standardised features. Deterministic: same groups, same model."""
    names = tuple(features)
    rows = [[float(x.get(f, 0.0)) for f in names] for xs, _ in groups for x in xs]
    if not rows:
        raise RetrievalError("no training candidates")
    allx = np.asarray(rows, dtype=np.float64)
    mean = allx.mean(axis=0)
    scale = allx.std(axis=0)
    scale[scale < 1e-9] = 1.0
    diffs: list[np.ndarray] = []
    pair_w: list[np.ndarray] = []
    for xs, labels in groups:
        if not any(labels) or all(labels):
            continue  # nothing to order
        m = (np.asarray([[float(x.get(f, 0.0)) for f in names] for x in xs]) - mean) / scale
        lab = np.asarray(labels, dtype=bool)
        pos, neg = m[lab], m[~lab]
        d = (pos[:, None, :] - neg[None, :, :]).reshape(-1, len(names))
        diffs.append(d)
        pair_w.append(np.full(len(d), 1.0 / len(d)))
    if not diffs:
        raise RetrievalError("no question with both evidence and other candidates")
    dm = np.concatenate(diffs)
    pw = np.concatenate(pair_w)
    pw /= pw.sum()
    w = np.zeros(len(names))
    # a step of ``rate`` over the loss's largest curvature (at most 1/4 of the pairs' largest
    # second moment), so descent neither crawls nor overshoots
    curvature = 0.25 * float(np.linalg.eigvalsh((dm * pw[:, None]).T @ dm).max()) + l2
    lr = rate / curvature
    for _ in range(steps):
        z = dm @ w
        p = 1.0 / (1.0 + np.exp(np.clip(z, -30, 30)))  # d/dz of log(1 + e^-z) is -p
        grad = -(dm * (pw * p)[:, None]).sum(axis=0) + l2 * w
        w -= lr * grad
    # the bias puts a typical evidence candidate near 0.5 (the ranking does not depend on it)
    pos_rows = [
        [float(x.get(f, 0.0)) for f in names]
        for xs, labels in groups
        for x, y in zip(xs, labels, strict=True)
        if y
    ]
    bias = -float(((np.asarray(pos_rows) - mean) / scale @ w).mean()) if pos_rows else 0.0
    return LearnedRanker(
        features=names,
        weights=tuple(float(v) for v in w),
        mean=tuple(float(v) for v in mean),
        scale=tuple(float(v) for v in scale),
        bias=bias,
        info=info,
    )
