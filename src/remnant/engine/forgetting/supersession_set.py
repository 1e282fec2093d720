"""A hand-written development set for semantic supersession of unkeyed facts, and its scoring.

Written by the engineer who wrote :mod:`remnant.understand.attributes`, so it is the
*development* figure: the held-out figure comes from ``remnant eval --suite supersession`` on a set
written by someone else. Each pair is (old, new, label) with label ``supersedes`` (the new statement
replaces the old value of the same attribute of the same subject), ``compatible`` (both can hold:
another person, another context, an addition, a refinement, the same value) or ``unrelated``.
The pairs are each language's data (``understand/data/<lang>/supersession_dev.json``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal, cast, get_args

from remnant.engine.forgetting.contradictions import ContradictionPolicy
from remnant.understand import lexicon

PairLabel = Literal["supersedes", "compatible", "unrelated"]


@dataclass(frozen=True)
class DevPair:
    old: str
    new: str
    label: PairLabel
    lang: str


def _dev_pairs() -> tuple[DevPair, ...]:
    """Every language's pairs (understand/data/<lang>/supersession_dev.json), labels in the file's order."""
    out: list[DevPair] = []
    for lang in lexicon.languages():
        for label, rows in lexicon.table(lang, "supersession_dev").items():
            if label.startswith("_"):
                continue
            if label not in get_args(PairLabel):
                raise ValueError(f"supersession_dev.json ({lang}): unknown label {label!r}")
            out.extend(DevPair(old, new, cast(PairLabel, label), lang) for old, new in rows)
    return tuple(out)


DEV_PAIRS: tuple[DevPair, ...] = _dev_pairs()


@dataclass(frozen=True)
class SupersessionScore:
    n: int
    precision: float
    recall: float
    confusion: dict[str, dict[str, int]]  # truth -> action (supersede/flag/none) -> count
    misses: list[tuple[str, str, str, str]]  # (label, action, old, new) where the answer was wrong

    def to_dict(self) -> dict[str, object]:
        return {
            "n": self.n,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "confusion": self.confusion,
        }


def evaluate_policy(
    pairs: tuple[DevPair, ...] | list[DevPair] = DEV_PAIRS, policy: ContradictionPolicy | None = None
) -> SupersessionScore:
    """Precision/recall of "supersedes" for the policy's decision (``auto`` mode by default): a pair
    counts as predicted positive when the policy would supersede the old statement."""
    pol = policy or ContradictionPolicy()
    confusion: dict[str, Counter[str]] = {}
    misses: list[tuple[str, str, str, str]] = []
    tp = fp = fn = 0
    for p in pairs:
        action, _ = pol.decide(p.new, p.old)
        got = action or "none"
        confusion.setdefault(p.label, Counter())[got] += 1
        positive = p.label == "supersedes"
        if action == "supersede":
            tp += positive
            fp += not positive
        elif positive:
            fn += 1
        if (action == "supersede") != positive:
            misses.append((p.label, got, p.old, p.new))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return SupersessionScore(
        len(pairs), precision, recall, {k: dict(v) for k, v in confusion.items()}, misses
    )
