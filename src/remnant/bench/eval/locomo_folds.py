"""Leave-one-conversation-out cross-validation of recall's weights on LoCoMo.

For each held-out conversation, every weight is chosen on the other conversations only
(coordinate ascent over a small grid per weight, starting from the previous defaults; a tie
keeps the current value), then the held-out conversation is scored with that choice. The report
gives each fold's held-out turn Recall@5 (categories 1-4), their mean and spread, the per-category
figures pooled over the held-out questions, the figure of the weights chosen on the whole split
(optimistic: tuned on what it is scored on), and an ablation: each component turned off from the
whole-split choice, fold by fold.

The conversations are written once (the engine, a real SQLite file, the real clock); the weights
are search-time settings of the one retriever, so each configuration costs only its queries.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from remnant.bench.eval.locomo import (
    CATEGORIES,
    POOLED,
    Conversation,
    EngineBackend,
    latest_session,
    turn_docs,
)
from remnant.embed.base import Embedder, base_model_id
from remnant.retrieval.errors import RetrievalError
from remnant.retrieval.hybrid import HybridConfig
from remnant.retrieval.ranker import (
    ANSWER_FEATURES,
    RANKER_FEATURES,
    SPEAKER_FEATURES,
    Group,
    LearnedRanker,
    train_ranker,
)
from remnant.retrieval.rescoring import RecallTuning
from remnant.retrieval.retriever import DEFAULT_FUSION, DEFAULT_TUNING, RELEVANCE_FLOORS, HybridRetriever

# (component, setting, grid); 0 turns a component off
GRID: list[tuple[str, str, tuple[float, ...]]] = [
    ("vector half", "vector_weight", (0.0, 0.2, 0.3, 0.45)),
    ("names out of the vector query", "strip_names", (0.0, 1.0)),
    # 0: off; else the speakers' names are out of the vector query and this is the vector half's
    # weight on such questions (one setting: either change alone loses, so coordinate ascent,
    # which moves one setting at a time, would never reach the pair)
    ("speakers out of the vector query", "speakers_out", (0.0, 0.2, 0.3, 0.45)),
    ("speaker boost", "speaker_boost", (0.0, 0.25, 0.5, 0.75)),
    ("temporal ranges", "temporal_boost", (0.0, 0.25, 0.5, 1.0)),
    ("when-questions", "when_boost", (0.0, 0.2, 0.4, 0.6)),
    ("second round", "expansion_weight", (0.0, 0.1, 0.2)),
    ("diversity (MMR)", "diversity", (0.0, 0.2, 0.35)),
    ("vector feedback", "vector_feedback", (0.0, 0.1)),
    ("z-score fusion", "zscore_fusion", (0.0, 1.0)),
    ("similarity floor shift", "floor_shift", (0.0, -0.03, 0.02)),
    ("skip confident embeddings", "skip_vector_ratio", (0.0, 2.0)),
    ("entity round", "entity_weight", (0.0, 0.1, 0.2, 0.35, 0.5)),
]
Config = tuple[tuple[str, float], ...]
TUNING_FIELDS = {f.name for f in fields(RecallTuning)}


def baseline_config() -> dict[str, float]:
    """The settings before this tuning (the shipped defaults of the previous release)."""
    return {
        "vector_weight": 0.3,
        "speaker_boost": 0.5,
        "temporal_boost": 0.0,
        "when_boost": 0.0,
        "expansion_weight": 0.0,
        "diversity": 0.0,
        "vector_feedback": 0.0,
        "strip_names": 0.0,
        "speakers_out": 0.0,
        "zscore_fusion": 0.0,
        "floor_shift": 0.0,
        "skip_vector_ratio": 0.0,
        "entity_weight": 0.0,
        "speaker_round": 0.0,
    }


def current_config(speaker_boost: float = 0.5) -> dict[str, float]:
    """The shipped defaults of this code."""
    t = DEFAULT_TUNING
    return {
        "vector_weight": DEFAULT_FUSION.vector_weight,
        "speaker_boost": speaker_boost,
        "temporal_boost": t.temporal_boost,
        "when_boost": t.when_boost,
        "expansion_weight": t.expansion_weight,
        "diversity": t.diversity,
        "vector_feedback": t.vector_feedback,
        "strip_names": float(t.strip_names),
        "speakers_out": (t.speaker_vector_weight or DEFAULT_FUSION.vector_weight)
        if t.strip_speakers
        else 0.0,
        "zscore_fusion": 1.0 if DEFAULT_FUSION.fusion == "zscore" else 0.0,
        "floor_shift": 0.0,
        "skip_vector_ratio": t.skip_vector_ratio,
        "entity_weight": t.entity_weight,
        "speaker_round": float(t.speaker_round),
    }


def apply(retriever: HybridRetriever, cfg: dict[str, float]) -> None:
    vw = cfg["vector_weight"]
    retriever.fusion = HybridConfig(
        fusion="zscore" if cfg.get("zscore_fusion") else "weighted",
        lexical_weight=1.0 - vw,
        vector_weight=vw,
        candidates=DEFAULT_FUSION.candidates,
    )
    retriever.mode = "hybrid" if vw > 0 else "lexical"
    retriever.speaker_boost = cfg["speaker_boost"]
    floor = RELEVANCE_FLOORS.get(base_model_id(retriever.model_id or ""))
    if floor is not None:
        scale = retriever.pairs.score_scale if retriever.pairs is not None else 1.0
        retriever.min_similarity = (floor + cfg.get("floor_shift", 0.0)) * scale
    # every other setting is a field of RecallTuning
    given: dict[str, Any] = {k: v for k, v in cfg.items() if k in TUNING_FIELDS}
    if "speaker_round" in cfg:
        given["speaker_round"] = int(cfg["speaker_round"])
    if "speakers_out" in cfg:
        given["strip_speakers"] = cfg["speakers_out"] > 0
        given["speaker_vector_weight"] = cfg["speakers_out"]
    retriever.tuning = replace(DEFAULT_TUNING, **given)
    # the fixed weights: the shipped learned ranker was trained on these conversations (the
    # ranker's folds set their own model after this)
    retriever.ranker = None


class FoldRunner:
    """Scores configurations on the written conversations, each configuration once."""

    def __init__(
        self, conversations: Sequence[Conversation], embedder: Embedder, db_dir: str | Path, clock: str
    ):
        self.conversations = list(conversations)
        self.backend = EngineBackend(
            "remnant", lambda e: HybridRetriever(e), embedder, db_dir, latest_session(conversations), clock
        )
        for conv in self.conversations:
            self.backend.ingest(conv.sample_id, turn_docs(conv))
        retriever = self.backend.memory.retriever
        assert isinstance(retriever, HybridRetriever)
        self.retriever = retriever
        self._cache: dict[Config, dict[str, list[tuple[int, float]]]] = {}
        self._groups: dict[tuple[Config, str], list[Group]] = {}

    def scores(self, cfg: dict[str, float]) -> dict[str, list[tuple[int, float]]]:
        """Per conversation, (category, Recall@5) of each question."""
        key: Config = tuple(sorted(cfg.items()))
        if key not in self._cache:
            apply(self.retriever, cfg)
            out: dict[str, list[tuple[int, float]]] = {}
            for conv in self.conversations:
                rows = []
                for q in conv.questions:
                    top = set(self.backend.search(conv.sample_id, q.question, 5))
                    ev = set(q.evidence)
                    rows.append((q.category, len(ev & top) / len(ev)))
                out[conv.sample_id] = rows
            self._cache[key] = out
        return self._cache[key]

    def pooled(self, cfg: dict[str, float], convs: Sequence[str]) -> float:
        """Turn Recall@5 over the category 1-4 questions of ``convs``."""
        s = self.scores(cfg)
        vals = [r for c in convs for cat, r in s[c] if cat in (1, 2, 3, 4)]
        return statistics.fmean(vals) if vals else 0.0

    def categories(self, cfg: dict[str, float], conv: str) -> dict[str, float]:
        """Turn Recall@5 per category (1-4) on one conversation."""
        s = self.scores(cfg)[conv]
        return {
            name: statistics.fmean(vals)
            for cat, name in CATEGORIES.items()
            if cat in (1, 2, 3, 4) and (vals := [r for k, r in s if k == cat])
        }

    def choose(self, convs: Sequence[str], start: dict[str, float], passes: int = 2) -> dict[str, float]:
        """Coordinate ascent over :data:`GRID` on ``convs``; a tie keeps the current value."""
        cfg = dict(start)
        for _ in range(passes):
            changed = False
            for _, name, values in GRID:
                best_v, best_s = cfg[name], self.pooled(cfg, convs)
                for v in values:
                    s = self.pooled({**cfg, name: v}, convs)
                    if s > best_s + 1e-9:
                        best_v, best_s = v, s
                if best_v != cfg[name]:
                    cfg[name] = best_v
                    changed = True
            if not changed:
                break
        return cfg

    def ranker_groups(self, cfg: dict[str, float], conv: str) -> list[Group]:
        """The learned ranker's training data from one conversation under ``cfg`` (fixed weights):
        per question of categories 1-4, the features of every candidate of the fused head and
        whether it is one of the question's evidence turns."""
        key = (tuple(sorted(cfg.items())), conv)
        if key in self._groups:
            return self._groups[key]
        apply(self.retriever, cfg)
        self.retriever.ranker = None
        memory = self.backend.memory
        flt = memory.recall_filter(conv)
        groups: list[Group] = []
        convo = next(c for c in self.conversations if c.sample_id == conv)
        for q in convo.questions:
            if q.category not in (1, 2, 3, 4):
                continue
            trace = self.retriever.explain(memory.ledger, q.question, flt, 10)
            ev = set(q.evidence)
            ids = [i for i, _ in trace.ranking] + [i for i in trace.features if i not in dict(trace.ranking)]
            xs = [trace.features[i] for i in ids if i in trace.features]
            labels = [bool(ev & set(self.backend.refs(i))) for i in ids if i in trace.features]
            groups.append((xs, labels))
        self._groups[key] = groups
        return groups

    def ranked_scores(
        self, cfg: dict[str, float], model: LearnedRanker | None, conv: str
    ) -> list[tuple[int, float]]:
        """(category, Recall@5) of each question of ``conv`` with ``model`` ranking (None: the
        fixed weights), through the retriever itself."""
        if model is None:
            return self.scores(cfg)[conv]
        apply(self.retriever, cfg)
        self.retriever.ranker = model
        try:
            convo = next(c for c in self.conversations if c.sample_id == conv)
            rows = []
            for q in convo.questions:
                top = set(self.backend.search(conv, q.question, 5))
                ev = set(q.evidence)
                rows.append((q.category, len(ev & top) / len(ev)))
            return rows
        finally:
            self.retriever.ranker = None

    def close(self) -> None:
        self.backend.close()


def _r5(rows: Sequence[tuple[int, float]]) -> float:
    vals = [r for cat, r in rows if cat in (1, 2, 3, 4)]
    return statistics.fmean(vals) if vals else 0.0


def _cats(rows: Sequence[tuple[int, float]]) -> dict[str, float]:
    return {
        name: statistics.fmean(vals)
        for cat, name in CATEGORIES.items()
        if cat in (1, 2, 3, 4) and (vals := [r for k, r in rows if k == cat])
    }


def _offline_r5(model: LearnedRanker, groups: Sequence[Group]) -> float:
    """Share of each question's evidence candidates in the model's top 5 of the head, averaged
    (an estimate for the feature ablation: the retriever's own figure counts evidence outside the
    head too, as misses)."""
    vals = []
    for xs, labels in groups:
        scores = model.score_many(xs)
        order = sorted(range(len(xs)), key=lambda j: -scores[j])[:5]
        n = sum(labels)
        vals.append(sum(labels[j] for j in order) / n if n else 0.0)
    return statistics.fmean(vals) if vals else 0.0


# feature groups the ablation drops one at a time
FEATURE_GROUPS: dict[str, tuple[str, ...]] = {
    "lexical (BM25, rank)": ("lexical_score", "lexical_rank"),
    "vector (cosine, rank)": ("vector_score", "vector_rank"),
    "vector halves (own, context)": ("vector_own", "vector_context"),
    "fused relevance": ("fused",),
    "speaker / addressee": ("speaker", "addressee"),
    "time (range, when, mentions)": ("time_match", "when_time", "has_time", "recent"),
    "recency": ("recency",),
    "session (best, share, rank)": ("session_best", "session_share", "session_rank"),
    "length": ("length",),
    "evidence clusters (session mean, top 20)": ("session_mean", "session_top"),
    "entity round": ("entity",),
    "seeded round": ("seeded", "seeded_rank"),
    "own terms": ("own_terms",),
    "speaker round": tuple(sorted(SPEAKER_FEATURES)),
    "answer type (entity kind, head noun)": tuple(sorted(ANSWER_FEATURES)),
    "answer entity kind": ("answer_entity",),
    "answer head noun": ("answer_head",),
}


def ranker_features(speaker_round: int = 0, answer_type: bool = False) -> tuple[str, ...]:
    """The features a model is trained on: the shipped set, plus the speaker round's when its
    candidates are in (``--speaker-round``), plus the answer-type features (``--answer-type``)."""
    out = RANKER_FEATURES
    if speaker_round > 0:
        out = (*out, *sorted(SPEAKER_FEATURES))
    if answer_type:
        out = (*out, *sorted(ANSWER_FEATURES - set(out)))
    return out


def _without(group: Sequence[str], base: Sequence[str] = RANKER_FEATURES) -> tuple[list[str], int]:
    """The feature set of the ablation of ``group`` and the sign of its delta: the trained set
    without the group (+1: what it adds), or, for a group the set leaves out, the set with it (-1:
    what adding it would add)."""
    if any(f in base for f in group):
        return [f for f in base if f not in group], 1
    return [*base, *group], -1


def ranker_folds(
    runner: FoldRunner,
    cfg: dict[str, float],
    ids: Sequence[str],
    progress: Callable[[str], None] | None = None,
    features: Sequence[str] = RANKER_FEATURES,
) -> dict[str, Any]:
    """Leave-one-conversation-out for the learned ranker: for each held-out conversation, train on
    the other conversations' candidates only, rank the held-out one with it through the retriever,
    and compare with the fixed weights (``cfg``) on the same conversation. Then the same with each
    feature group left out (an offline estimate on the held-out candidates)."""
    groups = {c: runner.ranker_groups(cfg, c) for c in ids}
    folds: list[dict[str, Any]] = []
    held_fixed: list[tuple[int, float]] = []
    held_ranker: list[tuple[int, float]] = []
    # the speaker round's group only where its candidates were recorded
    ablated = {n: f for n, f in FEATURE_GROUPS.items() if n != "speaker round" or set(f) <= set(features)}
    dropped: dict[str, list[float]] = {name: [] for name in ablated}
    for c in ids:
        train = [g for x in ids if x != c for g in groups[x]]
        try:
            model: LearnedRanker | None = train_ranker(train, features=features)
        except RetrievalError:
            model = None  # nothing to learn from (a tiny split): the fixed weights rank
        fixed = runner.ranked_scores(cfg, None, c)
        ranked = runner.ranked_scores(cfg, model, c)
        held_fixed.extend(fixed)
        held_ranker.extend(ranked)
        if model is not None:
            full_offline = _offline_r5(model, groups[c])
            for name, feats in ablated.items():
                other, sign = _without(feats, features)
                less = train_ranker(train, features=other)
                dropped[name].append(sign * (full_offline - _offline_r5(less, groups[c])))
        else:
            for name in ablated:
                dropped[name].append(0.0)
        row = {
            "held_out": c,
            "fixed": _r5(fixed),
            "ranker": _r5(ranked),
            "categories": _cats(ranked),
            "fixed_categories": _cats(fixed),
            "weights": dict(zip(model.features, model.weights, strict=True)) if model else {},
        }
        folds.append(row)
        if progress:
            progress(f"ranker fold {c}: fixed {row['fixed']:.3f} ranker {row['ranker']:.3f}")
    deltas = [f["ranker"] - f["fixed"] for f in folds]
    return {
        "folds": folds,
        "fixed": _spread([f["fixed"] for f in folds]),
        "ranker": _spread([f["ranker"] for f in folds]),
        "pooled": {
            "fixed": _cats(held_fixed) | {POOLED: _r5(held_fixed)},
            "ranker": _cats(held_ranker) | {POOLED: _r5(held_ranker)},
        },
        "category_spread": {
            key: {
                name: _spread([f[key][name] for f in folds if name in f[key]])
                for name in CATEGORIES.values()
                if any(name in f[key] for f in folds)
            }
            for key in ("categories", "fixed_categories")
        },
        "ablation": {
            "delta": _spread(deltas),
            "folds_helped": sum(d > 0 for d in deltas),
            "folds_hurt": sum(d < 0 for d in deltas),
            "per_fold": dict(zip(ids, deltas, strict=True)),
        },
        "feature_ablation": {
            name: {"delta": _spread(v), "per_fold": dict(zip(ids, v, strict=True))}
            for name, v in dropped.items()
        },
    }


def train_full(
    conversations: Sequence[Conversation],
    embedder: Embedder,
    db_dir: str | Path,
    *,
    clock: str = "real",
    data_name: str = "",
    speaker_round: int = 0,
    answer_type: bool = False,
) -> tuple[LearnedRanker, dict[str, Any]]:
    """The ranker trained on every conversation given (what ships), with its in-sample figure
    beside the fixed weights' (optimistic: scored on what it was trained on)."""
    runner = FoldRunner(conversations, embedder, db_dir, clock)
    try:
        ids = [c.sample_id for c in conversations]
        cfg = {**current_config(), "speaker_round": float(speaker_round)}
        groups = [g for c in ids for g in runner.ranker_groups(cfg, c)]
        model = train_ranker(
            groups,
            features=ranker_features(speaker_round, answer_type),
            info={
                "data": data_name,
                "conversations": ids,
                "questions": len(groups),
                "trainer": "pairwise logistic regression, L2 1e-3, 300 steps (remnant.retrieval.ranker.train_ranker)",
                "embedder": embedder.model_id,
                # the candidates it was trained on: a retriever runs the round for it
                **({"speaker_round": speaker_round} if speaker_round > 0 else {}),
            },
        )
        fixed = [r for c in ids for r in runner.ranked_scores(cfg, None, c)]
        ranked = [r for c in ids for r in runner.ranked_scores(cfg, model, c)]
        return model, {"fixed": _r5(fixed), "ranker": _r5(ranked), "questions": len(groups)}
    finally:
        runner.close()


def _spread(values: Sequence[float]) -> dict[str, float]:
    return {
        "mean": statistics.fmean(values),
        "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
        "min": min(values),
        "max": max(values),
    }


def run_folds(
    conversations: Sequence[Conversation],
    embedder: Embedder,
    db_dir: str | Path,
    *,
    clock: str = "real",
    progress: Callable[[str], None] | None = None,
    weight_search: bool = True,
    speaker_round: int = 0,
    answer_type: bool = False,
) -> dict[str, Any]:
    """The cross-validated report (fractions in 0..1). ``weight_search=False``: only the
    learned ranker's folds against the shipped fixed weights (the weight search is the slow part)."""
    runner = FoldRunner(conversations, embedder, db_dir, clock)
    try:
        ids = [c.sample_id for c in conversations]
        base = baseline_config()
        shipped = current_config()
        wide = {**shipped, "speaker_round": float(speaker_round)} if speaker_round > 0 else shipped
        ranker = ranker_folds(
            runner, wide, ids, progress, features=ranker_features(speaker_round, answer_type)
        )
        if not weight_search:
            return {"ranker": ranker}
        folds: list[dict[str, Any]] = []
        held: list[tuple[int, float]] = []
        for c in ids:
            train = [x for x in ids if x != c]
            chosen = runner.choose(train, base)
            row = {
                "held_out": c,
                "questions": sum(1 for cat, _ in runner.scores(base)[c] if cat in (1, 2, 3, 4)),
                "baseline": runner.pooled(base, [c]),
                "shipped": runner.pooled(shipped, [c]),
                "tuned": runner.pooled(chosen, [c]),
                "chosen": chosen,
                "categories": runner.categories(chosen, c),
                "shipped_categories": runner.categories(shipped, c),
            }
            folds.append(row)
            held.extend(runner.scores(chosen)[c])
            if progress:
                progress(f"fold {c}: baseline {row['baseline']:.3f} tuned {row['tuned']:.3f} {chosen}")
        full = runner.choose(ids, base)
        per_cat: dict[str, float] = {}
        for cat, name in CATEGORIES.items():
            vals = [r for k, r in held if k == cat]
            if vals:
                per_cat[name] = statistics.fmean(vals)
        pooled = [r for k, r in held if k in (1, 2, 3, 4)]
        per_cat[POOLED] = statistics.fmean(pooled) if pooled else 0.0
        ablation = []
        for label, name, values in GRID:
            # what the component adds, conversation by conversation: the shipped setting against
            # it off, or, for one shipped off, its best setting on against the shipped defaults
            if shipped[name] != 0:
                value, deltas = (
                    shipped[name],
                    [runner.pooled(shipped, [c]) - runner.pooled({**shipped, name: 0.0}, [c]) for c in ids],
                )
            else:
                tried = [
                    (v, [runner.pooled({**shipped, name: v}, [c]) - runner.pooled(shipped, [c]) for c in ids])
                    for v in values
                    if v != 0
                ]
                if not tried:
                    continue
                value, deltas = max(tried, key=lambda vd: statistics.fmean(vd[1]))
            ablation.append(
                {
                    "component": label,
                    "setting": name,
                    "value": value,
                    "shipped": shipped[name] != 0,
                    "delta": _spread(deltas),
                    "folds_helped": sum(d > 0 for d in deltas),
                    "folds_hurt": sum(d < 0 for d in deltas),
                    "per_fold": dict(zip(ids, deltas, strict=True)),
                }
            )
        return {
            "folds": folds,
            "held_out": _spread([float(f["tuned"]) for f in folds]),  # type: ignore[arg-type]
            "held_out_baseline": _spread([float(f["baseline"]) for f in folds]),  # type: ignore[arg-type]
            "held_out_shipped": _spread([float(f["shipped"]) for f in folds]),  # type: ignore[arg-type]
            "held_out_categories": per_cat,
            "held_out_category_spread": {
                key: {
                    name: _spread([f[key][name] for f in folds if name in f[key]])
                    for name in CATEGORIES.values()
                    if any(name in f[key] for f in folds)
                }
                for key in ("categories", "shipped_categories")
            },
            "full_split": {"chosen": full, "recall@5": runner.pooled(full, ids)},
            "shipped": {"config": shipped, "recall@5": runner.pooled(shipped, ids)},
            "baseline": {"config": base, "recall@5": runner.pooled(base, ids)},
            "ablation": ablation,
            "vector_skipped": runner.retriever.vector_skipped,
            "ranker": ranker,
        }
    finally:
        runner.close()


def format_ranker(rep: dict[str, Any]) -> list[str]:
    """The learned ranker's fold table and ablation rows."""

    def ms(s: dict[str, float]) -> str:
        return f"{100 * s['mean']:.1f} ± {100 * s['sd']:.1f} (min {100 * s['min']:.1f}, max {100 * s['max']:.1f})"

    lines = [
        "learned ranker, leave-one-conversation-out (trained on the other conversations' candidates, "
        "shipped fixed weights otherwise):",
        f"{'held out':<10} {'fixed':>8} {'ranker':>8}  per category (ranker)",
    ]
    for f in rep["folds"]:
        cats = " ".join(f"{k} {100 * v:.1f}" for k, v in f["categories"].items())
        lines.append(f"{f['held_out']:<10} {100 * f['fixed']:>7.1f}% {100 * f['ranker']:>7.1f}%  {cats}")
    lines.append(f"mean ± sd over folds: fixed  {ms(rep['fixed'])}")
    lines.append(f"                      ranker {ms(rep['ranker'])}")
    for key, label in (("fixed", "fixed"), ("ranker", "ranker")):
        pooled = rep["pooled"][key]
        lines.append(
            f"held-out questions pooled ({label}): "
            + ", ".join(f"{k} {100 * v:.1f}%" for k, v in pooled.items())
        )
    for key, label in (("categories", "ranker"), ("fixed_categories", "fixed")):
        spread = rep["category_spread"][key]
        lines.append(
            f"per category over folds ({label}): "
            + ", ".join(f"{k} {100 * v['mean']:.1f} ± {100 * v['sd']:.1f}" for k, v in spread.items())
        )
    a = rep["ablation"]
    per = " ".join(f"{100 * v:+.1f}" for v in a["per_fold"].values())
    lines.append(
        f"  {'learned ranker':<26} (fold-trained, against the fixed weights): {100 * a['delta']['mean']:+.1f} ± "
        f"{100 * a['delta']['sd']:.1f}, helps {a['folds_helped']}, hurts {a['folds_hurt']} of {len(a['per_fold'])} [{per}]"
    )
    lines.append(
        "  ranker feature groups (R@5 points each adds, offline on the held-out candidates, retrained "
        "without it; for a group the shipped set leaves out, retrained with it):"
    )
    for name, row in rep["feature_ablation"].items():
        per = " ".join(f"{100 * v:+.1f}" for v in row["per_fold"].values())
        lines.append(
            f"    {name:<30} {100 * row['delta']['mean']:+.1f} ± {100 * row['delta']['sd']:.1f} [{per}]"
        )
    return lines


def format_folds(report: dict[str, Any]) -> str:
    """The fold table, the spread, the per-category figures and the ablation, as text."""
    if "folds" not in report:
        return "\n".join(format_ranker(report["ranker"]))
    lines = ["leave-one-conversation-out, turn Recall@5 (categories 1-4) on the held-out conversation"]
    lines.append(
        f"{'held out':<10} {'n':>4} {'baseline':>9} {'shipped':>9} {'tuned':>9}  weights chosen on the others"
    )
    for f in report["folds"]:
        ch = " ".join(f"{k}={v:g}" for k, v in f["chosen"].items())
        lines.append(
            f"{f['held_out']:<10} {f['questions']:>4} {100 * f['baseline']:>8.1f}% {100 * f['shipped']:>8.1f}% "
            f"{100 * f['tuned']:>8.1f}%  {ch}"
        )

    def ms(s: dict[str, float]) -> str:
        return f"{100 * s['mean']:.1f} ± {100 * s['sd']:.1f} (min {100 * s['min']:.1f}, max {100 * s['max']:.1f})"

    lines.append(f"mean ± sd over folds: baseline {ms(report['held_out_baseline'])}")
    lines.append(f"                      shipped  {ms(report['held_out_shipped'])}")
    lines.append(f"                      tuned    {ms(report['held_out'])}")
    cats = report["held_out_categories"]
    lines.append(
        "held-out questions pooled: "
        + ", ".join(f"{k} {100 * v:.1f}%" for k, v in cats.items() if k != "adversarial")
        + (f" (adversarial {100 * cats['adversarial']:.1f}%)" if "adversarial" in cats else "")
    )
    for key, label in (("categories", "tuned"), ("shipped_categories", "shipped")):
        spread = report.get("held_out_category_spread", {}).get(key, {})
        if spread:
            lines.append(
                f"per category over folds ({label}): "
                + ", ".join(f"{k} {100 * v['mean']:.1f} ± {100 * v['sd']:.1f}" for k, v in spread.items())
            )
    full = report["full_split"]
    lines.append(
        f"full split (weights chosen on all five, optimistic): {100 * full['recall@5']:.1f}%  "
        + " ".join(f"{k}={v:g}" for k, v in full["chosen"].items())
    )
    lines.append(
        f"shipped defaults on the full split: {100 * report['shipped']['recall@5']:.1f}%; "
        f"previous defaults: {100 * report['baseline']['recall@5']:.1f}%"
    )
    lines.append(
        "ablation (R@5 points a component adds, per conversation: shipped ones against off, "
        "the others at their best setting on against the shipped defaults):"
    )
    for a in report["ablation"]:
        d = a["delta"]
        per = " ".join(f"{100 * v:+.1f}" for v in a["per_fold"].values())
        state = "shipped" if a.get("shipped", True) else "off"
        lines.append(
            f"  {a['component']:<26} ({state}, {a['setting']}={a['value']:g}): {100 * d['mean']:+.1f} ± "
            f"{100 * d['sd']:.1f}, helps {a['folds_helped']}, hurts {a.get('folds_hurt', 0)} of "
            f"{len(a['per_fold'])} [{per}]"
        )
    if "ranker" in report:
        lines.extend(format_ranker(report["ranker"]))
    return "\n".join(lines)
