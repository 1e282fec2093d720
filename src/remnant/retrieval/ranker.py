"""A ranker learned from recall's own features: a linear model over each fused candidate.

The fixed-weight pipeline multiplies the fused relevance by a speaker boost, a temporal boost and
a "when" boost whose sizes were chosen by cross-validation. The learned ranker instead scores each
candidate of the fused head (:data:`FEATURES`: BM25 and cosine, their ranks, the two halves of
the turn's vector, speaker and addressee match, time-range match, the candidate's place in time
among the others, importance, how well its session and its neighbours did, its length, what the
entity round and a seeded lexical round gave it, whether it holds the kind of answer the question
asks for) with one linear model,
``score = sigmoid(b + sum_i w_i (x_i - mean_i) / sd_i)``, optionally plus boosted regression trees
on its residual (:func:`boost_trees`), so every feature's contribution to a hit's score is a number
the recall explanation can show (a tree's share goes to the features it splits on).

The model is trained pairwise (an evidence candidate should outscore a non-evidence one of the
same question: logistic loss on the score difference, L2-regularised), with numpy only, by
``remnant bench locomo --train-ranker OUT`` on the LoCoMo development split; the folds report
(``--folds``) trains it inside each fold, never on the held-out conversation. The shipped model
is ``remnant/retrieval/data/ranker.json``. The fixed weights stay the fallback: no model file, a
model that needs a feature this retriever cannot compute (a lexical-only retriever has no
cosines), or a model switched off.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from remnant.core.model import MemoryRecord
from remnant.retrieval.errors import RetrievalError
from remnant.retrieval.query import content_terms
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
    # evidence clusters (multi-hop answers sit in a few sessions the first hits point at)
    "session_mean",  # the mean fused relevance of the other candidates of its session
    "session_top",  # how many of the fused top 20 share its session (itself apart), over 5, at most 1
    "entity",  # what the entity round gave it (its share of that round's best; 0: not found by it)
    "seeded",  # BM25 in the seeded round (the first hits' words the question lacks), over its best
    "seeded_rank",  # 1 / log2(1 + rank) in the seeded round
    "own_terms",  # share of the question's words (speakers' names apart) in the turn's own text
    # the speaker round (RecallTuning.speaker_round): the named speaker's own memories
    "speaker_vector",  # cosine in the speaker round's vector list, min-max scaled over it
    "speaker_vector_rank",  # 1 / log2(1 + rank) in that list
    "speaker_lexical_rank",  # 1 / log2(1 + rank) in its BM25 list (the question's other words)
    "beyond_head",  # the speaker round brought it: it is not among the fused head
    # the answer type (remnant.retrieval.answers): what kind of answer the question asks for
    "answer_entity",  # it names an entity of the kind the question asks for (not the question's own)
    "answer_head",  # cosine of the answer's head noun ("activities") with its own text, min-max
    # the question's own shape, the same for all its candidates: alone they cannot order them, but
    # a model with crosses or trees weighs the other features by them
    "q_when",  # a "when" question
    "q_range",  # the question names a time range
    "q_speaker",  # the question names a speaker of the scope
    "q_terms",  # min(1, content words / 10)
)
# The features the shipped model is trained on (``train_ranker``'s default), chosen by the
# leave-one-conversation-out folds (docs/benchmarks/retrieval.md, "Issue 31, evidence clusters"):
# the seeded round, own terms and trees measured no better held out, so they stay out of it, as
# do the speaker round's features and the answer type's (+0.6 ± 1.0 points held out, under the bar:
# "Issue 31, the answer type").
RANKER_FEATURES: tuple[str, ...] = (
    *FEATURES[: FEATURES.index("length") + 1],
    "session_mean",
    "session_top",
    "entity",
)

# Features only a retriever with vectors can compute: a model that uses them falls back without.
VECTOR_FEATURES = frozenset(
    {
        "vector_score",
        "vector_rank",
        "vector_own",
        "vector_context",
        "speaker_vector",
        "speaker_vector_rank",
        "answer_head",
    }
)
# The speaker round's features (RecallTuning.speaker_round): a model trained with them records the
# round's size in its info, and a retriever runs the round for it.
SPEAKER_FEATURES = frozenset({"speaker_vector", "speaker_vector_rank", "speaker_lexical_rank", "beyond_head"})
# Features that cost a lexical query more (the seeded round): computed only for a model using them.
SEEDED_FEATURES = frozenset({"seeded", "seeded_rank"})
# A feature that reads each candidate's words: computed only for a model using it.
WORD_FEATURES = frozenset({"own_terms"})
# The answer-type features: one more query embedding (the head noun) and one read of the
# candidates' entity rows per question, computed only for a model using them (or to explain).
ANSWER_FEATURES = frozenset({"answer_entity", "answer_head"})

# how many of the fused head's first candidates ``session_top`` counts
SESSION_TOP = 20

# how much of a candidate's text the time-cue features read
CUE_CHARS = 2000

MODEL_FILE = Path(__file__).parent / "data" / "ranker.json"
FORMAT = "remnant-ranker/2"
# what this code reads: /1 is the linear model alone (no "trees")
FORMATS = ("remnant-ranker/1", FORMAT)


@dataclass(frozen=True)
class Tree:
    """One regression tree over the raw features: node ``k`` splits on ``feature[k]`` (an index
    into the model's features; -1: a leaf), ``x <= threshold[k]`` going to ``left[k]``, else
    ``right[k]``; ``value[k]`` is the node's output (a leaf's is what the tree adds to the score;
    an inner node's is what it would add had it stopped there, for the explanation)."""

    feature: tuple[int, ...]
    threshold: tuple[float, ...]
    left: tuple[int, ...]
    right: tuple[int, ...]
    value: tuple[float, ...]

    def __post_init__(self) -> None:
        n = len(self.feature)
        if not n or not (len(self.threshold) == len(self.left) == len(self.right) == len(self.value) == n):
            raise RetrievalError("ranker model: a tree's node arrays differ in length")
        for k, f in enumerate(self.feature):
            if f >= 0 and not (k < self.left[k] < n and k < self.right[k] < n):
                raise RetrievalError("ranker model: a tree's child points outside it or back")

    def path(self, x: Sequence[float]) -> list[int]:
        """The nodes from the root to ``x``'s leaf."""
        k, out = 0, [0]
        while self.feature[k] >= 0:
            k = self.left[k] if x[self.feature[k]] <= self.threshold[k] else self.right[k]
            out.append(k)
        return out

    def to_dict(self) -> dict[str, list[Any]]:
        return {
            "feature": list(self.feature),
            "threshold": [round(t, 6) for t in self.threshold],
            "left": list(self.left),
            "right": list(self.right),
            "value": [round(v, 6) for v in self.value],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tree:
        return cls(
            feature=tuple(int(v) for v in data["feature"]),
            threshold=tuple(float(v) for v in data["threshold"]),
            left=tuple(int(v) for v in data["left"]),
            right=tuple(int(v) for v in data["right"]),
            value=tuple(float(v) for v in data["value"]),
        )


@dataclass(frozen=True)
class LearnedRanker:
    """A linear model over :data:`FEATURES` (standardised), plus boosted regression trees on its
    residual (none: the linear model alone), read from / written to JSON."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    bias: float = 0.0
    info: Mapping[str, Any] | None = None  # how it was trained (data, folds, figures)
    trees: tuple[Tree, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.features)
        if not (len(self.weights) == len(self.mean) == len(self.scale) == n):
            raise RetrievalError("ranker model: features, weights, mean and scale differ in length")
        unknown = set(self.features) - set(FEATURES)
        if unknown:
            raise RetrievalError(f"ranker model: unknown features {sorted(unknown)}")
        if any(f >= n for t in self.trees for f in t.feature):
            raise RetrievalError("ranker model: a tree splits on a feature the model does not list")
        if any(abs(t.value[0]) > 1e-9 for t in self.trees):
            # the explanation's shares add up to the score only so
            raise RetrievalError("ranker model: a tree's root value is not 0")
        # the trees as padded arrays, walked all at once by score_many
        object.__setattr__(self, "_arrays", _stacked(self.trees) if self.trees else None)

    def used(self) -> frozenset[str]:
        """The features with a weight or a split."""
        split = {f for t in self.trees for f in t.feature if f >= 0}
        return frozenset(
            f for k, (f, w) in enumerate(zip(self.features, self.weights, strict=True)) if w or k in split
        )

    def usable(self, available: frozenset[str] | set[str]) -> bool:
        """Every feature with a weight or a split can be computed."""
        return self.used() <= set(available)

    def contributions(self, x: Mapping[str, float]) -> dict[str, float]:
        """Each feature's share of the score (the bias apart): its linear term, plus, for the
        trees, the change of node value at each split on it along ``x``'s path (each tree's root
        value is 0: the pairwise gradients sum to 0), so the shares add up to the score."""
        out = {
            f: w * (x.get(f, 0.0) - m) / s
            for f, w, m, s in zip(self.features, self.weights, self.mean, self.scale, strict=True)
            if w
        }
        if self.trees:
            row = [float(x.get(f, 0.0)) for f in self.features]
            for t in self.trees:
                nodes = t.path(row)
                for a, b in itertools.pairwise(nodes):
                    name = self.features[t.feature[a]]
                    out[name] = out.get(name, 0.0) + t.value[b] - t.value[a]
        return out

    def score(self, x: Mapping[str, float]) -> float:
        """The model's relevance, in (0, 1)."""
        z = self.bias + sum(self.contributions(x).values())
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def score_many(self, xs: Sequence[Mapping[str, float]]) -> list[float]:
        """:meth:`score` of each row, computed on one matrix (the trees walked all at once)."""
        if not xs:
            return []
        m = np.asarray([[float(x.get(f, 0.0)) for f in self.features] for x in xs], dtype=np.float64)
        z = self.bias + ((m - np.asarray(self.mean)) / np.asarray(self.scale)) @ np.asarray(self.weights)
        z = z + self._tree_output(m)
        return [float(v) for v in 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))]

    def _tree_output(self, m: np.ndarray) -> np.ndarray:
        arrays: tuple[np.ndarray, ...] | None = getattr(self, "_arrays", None)
        if arrays is None:
            return np.zeros(len(m))
        feat, thr, left, right, value = arrays
        t_idx = np.arange(len(self.trees))[:, None]
        node = np.zeros((len(self.trees), len(m)), dtype=np.int64)
        rows = np.arange(len(m))[None, :]
        for _ in range(feat.shape[1]):  # at most as many steps as a tree has nodes
            f = feat[t_idx, node]
            inner = f >= 0
            if not inner.any():
                break
            go_left = m[rows, np.where(inner, f, 0)] <= thr[t_idx, node]
            node = np.where(inner, np.where(go_left, left[t_idx, node], right[t_idx, node]), node)
        return np.asarray(value[t_idx, node].sum(axis=0))

    def to_dict(self) -> dict[str, Any]:
        out = {
            "format": FORMAT,
            "features": list(self.features),
            "weights": [round(w, 6) for w in self.weights],
            "mean": [round(m, 6) for m in self.mean],
            "scale": [round(s, 6) for s in self.scale],
            "bias": round(self.bias, 6),
            "info": dict(self.info or {}),
        }
        if self.trees:
            out["trees"] = [t.to_dict() for t in self.trees]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LearnedRanker:
        if data.get("format") not in FORMATS:
            raise RetrievalError(f"ranker model: format {data.get('format')!r}, expected one of {FORMATS}")
        try:
            return cls(
                features=tuple(str(f) for f in data["features"]),
                weights=tuple(float(w) for w in data["weights"]),
                mean=tuple(float(m) for m in data["mean"]),
                scale=tuple(float(s) or 1.0 for s in data["scale"]),
                bias=float(data.get("bias", 0.0)),
                info=data.get("info") or {},
                trees=tuple(Tree.from_dict(t) for t in data.get("trees") or ()),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise RetrievalError(f"ranker model: malformed ({exc!r})") from exc

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")


def _stacked(trees: Sequence[Tree]) -> tuple[np.ndarray, ...]:
    """feature, threshold, left, right, value of every tree, padded to the largest (a padding
    node is a leaf of value 0 that no walk reaches)."""
    width = max(len(t.feature) for t in trees)
    feat = np.full((len(trees), width), -1, dtype=np.int64)
    thr = np.zeros((len(trees), width))
    left = np.zeros((len(trees), width), dtype=np.int64)
    right = np.zeros((len(trees), width), dtype=np.int64)
    value = np.zeros((len(trees), width))
    for k, t in enumerate(trees):
        n = len(t.feature)
        feat[k, :n], thr[k, :n], value[k, :n] = t.feature, t.threshold, t.value
        left[k, :n], right[k, :n] = t.left, t.right
    return feat, thr, left, right, value


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
    entity: Mapping[str, float] | None = None,
    seeded: Sequence[tuple[str, float]] = (),
    own_terms: bool = True,
    speaker_vector: Sequence[tuple[str, float]] = (),
    speaker_lexical: Sequence[tuple[str, float]] = (),
    beyond: frozenset[str] = frozenset(),
    answer_entity: Mapping[str, float] | None = None,
    answer_head: Mapping[str, float] | None = None,
) -> dict[str, dict[str, float]]:
    """:data:`FEATURES` of every candidate of ``head`` (those with a record). ``terms``: the
    question's words (lower case); ``speakers``: the scope's speakers' names
    (:func:`~remnant.retrieval.rescoring.speaker_names`); ``halves``: per id, the cosines of the
    question with the turn's own text and with its context (when the vectors hold both);
    ``entity``: per id, the entity round's score over its best; ``seeded``: the seeded lexical
    round's (id, BM25) best first; ``speaker_vector`` / ``speaker_lexical``: the speaker round's
    (id, cosine) and (id, BM25) lists, best first, and ``beyond`` the ids it added past the fused
    head; ``own_terms=False``: that feature is 0 (it reads every
    candidate's words: computed only for a model that uses it, or to explain); ``answer_entity``:
    per id, 1 when it names an entity of the kind the question asks for; ``answer_head``: per id,
    the cosine of the answer's head noun with the turn's own text (min-max scaled over the head
    here). Linear in the head: one pass over it, one over each candidate list."""
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
    top_sessions: dict[str, int] = {}
    top_ids = set(ids[:SESSION_TOP])
    for i in top_ids:
        sess = records[i].session_id
        if sess:
            top_sessions[sess] = top_sessions.get(sess, 0) + 1
    seed_rank = {i: (r, s) for r, (i, s) in enumerate(seeded, start=1)}
    best_seeded = max((s for _, s in seeded), default=0.0) or 1.0
    spk_vec = {i: (r, s) for r, (i, s) in enumerate(speaker_vector, start=1)}
    spk_cos = [s for _, s in speaker_vector]
    spk_lo = min(spk_cos) if spk_cos else 0.0
    spk_span = (max(spk_cos) - spk_lo) if spk_cos else 1.0
    spk_span = spk_span or 1.0
    spk_lex = {i: r for r, (i, _) in enumerate(speaker_lexical, start=1)}
    entity = entity or {}
    answer_entity = answer_entity or {}
    answer_head = answer_head or {}
    head_cos = [answer_head[i] for i in ids if i in answer_head]
    head_lo = min(head_cos) if head_cos else 0.0
    head_span = ((max(head_cos) - head_lo) if head_cos else 1.0) or 1.0
    asked = _word_keys(" ".join(named - speakers))
    q_terms = min(1.0, len(asked) / 10.0)
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
            "session_mean": sum(others) / len(others) if others else 0.0,
            "session_top": min(1.0, (top_sessions.get(r.session_id, 0) - (i in top_ids)) / 5.0)
            if r.session_id
            else 0.0,
            "entity": float(entity.get(i, 0.0)),
            "seeded": seed_rank[i][1] / best_seeded if i in seed_rank else 0.0,
            "seeded_rank": _rank_feature(seed_rank[i][0] if i in seed_rank else None),
            "q_when": 1.0 if when else 0.0,
            "q_range": 1.0 if ranges else 0.0,
            "q_speaker": 1.0 if asked_about else 0.0,
            "q_terms": q_terms,
            "own_terms": len(asked & _word_keys(head_text)) / len(asked) if asked and own_terms else 0.0,
            "speaker_vector": (spk_vec[i][1] - spk_lo) / spk_span if i in spk_vec else 0.0,
            "speaker_vector_rank": _rank_feature(spk_vec[i][0] if i in spk_vec else None),
            "speaker_lexical_rank": _rank_feature(spk_lex.get(i)),
            "beyond_head": 1.0 if i in beyond else 0.0,
            "answer_entity": float(answer_entity.get(i, 0.0)),
            "answer_head": (answer_head[i] - head_lo) / head_span if i in answer_head else 0.0,
        }
        if halves is not None and i in halves:
            x["vector_own"], x["vector_context"] = halves[i]
        elif halves is not None:
            x["vector_own"] = x["vector_context"] = 0.0
        out[i] = x
    return out


# a word's first letters stand for it in ``own_terms`` ("books" and "book", "reading" and "read"):
# the lexical index stems, this in-process count has no stemmer, and a prefix is one rule for every
# language with inflected word endings
KEY_CHARS = 4


def _word_keys(text: str) -> set[str]:
    return {t[:KEY_CHARS] for t in content_terms(text)}


def _when(r: MemoryRecord) -> float | None:
    said = r.occurred_at or r.valid_from or r.created_at
    return said.timestamp() / 86400.0 if said is not None else None


# -- training ----------------------------------------------------------------------------------------
# One question's candidates: their feature rows and which of them are evidence.
Group = tuple[Sequence[Mapping[str, float]], Sequence[bool]]


def train_ranker(
    groups: Sequence[Group],
    *,
    features: Sequence[str] = RANKER_FEATURES,
    l2: float = 1e-3,
    steps: int = 300,
    rate: float = 1.0,
    info: Mapping[str, Any] | None = None,
    trees: int = 0,
    tree_depth: int = 3,
    tree_rate: float = 0.1,
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
    linear = LearnedRanker(
        features=names,
        weights=tuple(float(v) for v in w),
        mean=tuple(float(v) for v in mean),
        scale=tuple(float(v) for v in scale),
        bias=bias,
        info=info,
    )
    if trees <= 0:
        return linear
    return replace(linear, trees=boost_trees(groups, linear, trees, depth=tree_depth, rate=tree_rate))


def boost_trees(
    groups: Sequence[Group],
    base: LearnedRanker,
    count: int,
    *,
    depth: int = 3,
    rate: float = 0.1,
    l2: float = 1.0,
    min_hessian: float = 1.0,
    bins: int = 32,
) -> tuple[Tree, ...]:
    """Gradient-boosted regression trees on ``base``'s residual, with the same pairwise logistic
    loss as the linear model (each question's pairs weigh as much as one question): ``count``
    trees of at most ``depth`` levels, each leaf a Newton step (``l2``: its ridge; ``min_hessian``:
    the least curvature a side of a split holds, about two questions' worth), shrunk by ``rate``;
    splits at up to ``bins`` quantiles of each feature. Numpy only, deterministic."""
    names = base.features
    xs = [[float(x.get(f, 0.0)) for f in names] for g, _ in groups for x in g]
    if not xs:
        raise RetrievalError("no training candidates")
    m = np.asarray(xs, dtype=np.float64)
    nf = len(names)
    # the pairs: every evidence candidate of a question against each other candidate of it
    pi_l: list[np.ndarray] = []
    ni_l: list[np.ndarray] = []
    pw_l: list[np.ndarray] = []
    start = 0
    for g, labels in groups:
        lab = np.asarray(labels, dtype=bool)
        pos, neg = np.flatnonzero(lab) + start, np.flatnonzero(~lab) + start
        start += len(g)
        if len(pos) and len(neg):
            pi_l.append(np.repeat(pos, len(neg)))
            ni_l.append(np.tile(neg, len(pos)))
            pw_l.append(np.full(len(pos) * len(neg), 1.0 / (len(pos) * len(neg))))
    if not pi_l:
        raise RetrievalError("no question with both evidence and other candidates")
    pi, ni, pw = np.concatenate(pi_l), np.concatenate(ni_l), np.concatenate(pw_l)
    # split points: the distinct quantiles of each feature; a value's bin is the first point >= it
    edges = [np.unique(np.quantile(m[:, k], np.linspace(0, 1, bins + 1)[1:])) for k in range(nf)]
    binned = np.stack([np.searchsorted(edges[k], m[:, k], side="left") for k in range(nf)], axis=1)
    width = max(len(e) for e in edges)
    offsets = np.arange(nf) * width
    n = len(m)
    z = (m - np.asarray(base.mean)) / np.asarray(base.scale) @ np.asarray(base.weights)
    out: list[Tree] = []
    for _ in range(count):
        d = z[pi] - z[ni]
        rho = 1.0 / (1.0 + np.exp(np.clip(d, -30.0, 30.0)))  # d/dd of log(1 + e^-d) is -rho
        grad = np.bincount(ni, rho * pw, n) - np.bincount(pi, rho * pw, n)
        hw = rho * (1.0 - rho) * pw
        hess = np.bincount(pi, hw, n) + np.bincount(ni, hw, n)
        tree, leaf_of = _grow(binned, edges, offsets, width, grad, hess, depth, l2, min_hessian, rate)
        out.append(tree)
        z = z + np.asarray(tree.value)[leaf_of]
    return tuple(out)


def _grow(
    binned: np.ndarray,
    edges: Sequence[np.ndarray],
    offsets: np.ndarray,
    width: int,
    grad: np.ndarray,
    hess: np.ndarray,
    depth: int,
    l2: float,
    min_hessian: float,
    rate: float,
) -> tuple[Tree, np.ndarray]:
    """One tree, level by level, on histograms of the gradients; with each row's leaf."""
    nf = binned.shape[1]
    feature: list[int] = [-1]
    threshold: list[float] = [0.0]
    left: list[int] = [0]
    right: list[int] = [0]
    value: list[float] = [0.0]  # the root's: the pairwise gradients sum to 0
    leaf_of = np.zeros(len(grad), dtype=np.int64)
    frontier = [(0, np.arange(len(grad)))]
    for _ in range(depth):
        nxt = []
        for node, rows in frontier:
            g_all, h_all = float(grad[rows].sum()), float(hess[rows].sum())
            if h_all < 2 * min_hessian:
                continue
            flat = (binned[rows] + offsets).ravel()
            gh = np.bincount(flat, np.repeat(grad[rows], nf), nf * width).reshape(nf, width)
            hh = np.bincount(flat, np.repeat(hess[rows], nf), nf * width).reshape(nf, width)
            gl, hl = np.cumsum(gh, axis=1), np.cumsum(hh, axis=1)
            gr, hr = g_all - gl, h_all - hl
            gain = gl**2 / (hl + l2) + gr**2 / (hr + l2) - g_all**2 / (h_all + l2)
            gain[(hl < min_hessian) | (hr < min_hessian)] = -np.inf
            for k in range(nf):
                gain[k, len(edges[k]) - 1 :] = -np.inf  # nothing right of the last point
            best = int(np.argmax(gain))
            k, b = divmod(best, width)
            if not np.isfinite(gain[k, b]) or gain[k, b] <= 1e-12:
                continue
            goes_left = binned[rows, k] <= b
            lo, hi = len(feature), len(feature) + 1
            for part, hsum, gsum in (
                (rows[goes_left], float(hl[k, b]), float(gl[k, b])),
                (rows[~goes_left], float(hr[k, b]), float(gr[k, b])),
            ):
                feature.append(-1)
                threshold.append(0.0)
                left.append(0)
                right.append(0)
                value.append(-rate * gsum / (hsum + l2))
                leaf_of[part] = len(feature) - 1
                nxt.append((len(feature) - 1, part))
            feature[node], threshold[node], left[node], right[node] = k, float(edges[k][b]), lo, hi
        frontier = nxt
    return Tree(tuple(feature), tuple(threshold), tuple(left), tuple(right), tuple(value)), leaf_of
