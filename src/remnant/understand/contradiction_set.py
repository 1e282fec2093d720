"""A seeded, generated labelled set of statement pairs for the contradiction detector, and its scoring.

Pairs come from templates in English and Chinese with slots (cities, colours, numbers…), in three
labels: ``contradiction`` (a changed value, number or polarity, sometimes paraphrased),
``compatible`` (elaborations, paraphrases of the same value, many-valued predicates, other aspects of
the same subject) and ``unrelated``. Each pair also carries a ``category`` so the report shows where
the rules fail (paraphrased contradictions are the known weak spot). The same seed gives the same set.

The slots' values and the templates are each language's data (``data/<lang>/contradiction_set.json``).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import cache

from remnant.understand import lexicon
from remnant.understand.statements import ContradictionDetector, Label


@dataclass(frozen=True)
class LabelledPair:
    new: str
    old: str
    label: Label
    category: str
    lang: str


@dataclass(frozen=True)
class Template:
    """A pair template: ``{a}`` is the old value, ``{b}`` a different one, ``{c}`` an unrelated filler.

    ``slot`` names a pool of values of the template's language or ``num:LO:HI`` for numbers.
    """

    category: str
    lang: str
    old: str
    new: str
    slot: str
    filler: str | None = None


def _pools(lang: str) -> dict[str, list[str]]:
    return dict(lexicon.table(lang, "contradiction_set").get("pools", {}))


@cache
def _templates(label: str) -> tuple[Template, ...]:
    """A label's templates: each category (in the order the languages name them), every
    language's templates of it in language order: the cycle the seed walks."""
    by_category: dict[str, list[Template]] = {}
    for lang in lexicon.languages():
        for category, rows in lexicon.table(lang, "contradiction_set").get(label, {}).items():
            for old, new, slot, *filler in rows:
                t = Template(category, lang, old, new, slot, filler[0] if filler else None)
                by_category.setdefault(category, []).append(t)
    return tuple(t for ts in by_category.values() for t in ts)


def _values(rng: random.Random, lang: str, slot: str) -> tuple[str, str]:
    if slot.startswith("num:"):
        lo, hi = (int(x) for x in slot.split(":")[1:])
        x = rng.randint(lo, hi)
        y = x
        while y == x:
            y = rng.randint(lo, hi)
        return str(x), str(y)
    a, b = rng.sample(_pools(lang)[slot], 2)
    return a, b


def _fill(t: Template, rng: random.Random) -> tuple[str, str]:
    a, b = _values(rng, t.lang, t.slot)
    c = rng.choice(_pools(t.lang)[t.filler]) if t.filler else ""
    return t.old.format(a=a, b=b, c=c), t.new.format(a=a, b=b, c=c)


def generate_pairs(n_per_label: int = 200, seed: int = 7) -> list[LabelledPair]:
    """``n_per_label`` pairs of each label, deterministic for a seed, templates cycled evenly."""
    rng = random.Random(seed)
    pairs: list[LabelledPair] = []
    for label in ("contradiction", "compatible"):
        table = _templates(label)
        for i in range(n_per_label):
            t = table[i % len(table)]
            old, new = _fill(t, rng)
            pairs.append(LabelledPair(new, old, label, t.category, t.lang))  # type: ignore[arg-type]
    for i in range(n_per_label):
        lang = "en" if i % 3 else "zh"
        topics = [(text, slot) for text, slot in lexicon.table(lang, "contradiction_set")["topics"]]
        (ta, sa), (tb, sb) = rng.sample(topics, 2)
        old, new = ta.format(a=_values(rng, lang, sa)[0]), tb.format(a=_values(rng, lang, sb)[0])
        pairs.append(LabelledPair(new, old, "unrelated", "unrelated", lang))
    rng.shuffle(pairs)
    return pairs


@dataclass(frozen=True)
class DetectorScore:
    """Precision/recall of the ``contradiction`` label, the confusion matrix and recall per category."""

    n: int
    precision: float
    recall: float
    f1: float
    accuracy: float
    confusion: dict[str, dict[str, int]]  # truth -> predicted -> count
    by_category: dict[str, dict[str, float]]  # category -> {n, correct share}

    def to_dict(self) -> dict[str, object]:
        return {
            "n": self.n,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "accuracy": round(self.accuracy, 4),
            "confusion": self.confusion,
            "by_category": self.by_category,
        }


def evaluate(pairs: list[LabelledPair], detector: ContradictionDetector | None = None) -> DetectorScore:
    """Run the detector on every pair (new vs old) and score it."""
    det = detector or ContradictionDetector()
    labels = ("contradiction", "compatible", "unrelated")
    confusion = {t: dict.fromkeys(labels, 0) for t in labels}
    cat_total: Counter[str] = Counter()
    cat_ok: Counter[str] = Counter()
    for p in pairs:
        pred = det.compare(p.new, p.old).label
        confusion[p.label][pred] += 1
        key = f"{p.label}/{p.category}/{p.lang}"
        cat_total[key] += 1
        # for the positive class "correct" means flagged; for the others it means not flagged
        ok = (pred == "contradiction") == (p.label == "contradiction")
        cat_ok[key] += int(ok)
    tp = confusion["contradiction"]["contradiction"]
    fp = confusion["compatible"]["contradiction"] + confusion["unrelated"]["contradiction"]
    fn = confusion["contradiction"]["compatible"] + confusion["contradiction"]["unrelated"]
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    accuracy = sum(confusion[t][t] for t in labels) / len(pairs) if pairs else 0.0
    by_category = {
        k: {"n": cat_total[k], "correct": round(cat_ok[k] / cat_total[k], 4)} for k in sorted(cat_total)
    }
    return DetectorScore(len(pairs), precision, recall, f1, accuracy, confusion, by_category)
