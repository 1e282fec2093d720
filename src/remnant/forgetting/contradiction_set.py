"""A seeded, generated labelled set of statement pairs for the contradiction detector, and its scoring.

Pairs come from templates in English and Chinese with slots (cities, colours, numbers…), in three
labels: ``contradiction`` (a changed value, number or polarity, sometimes paraphrased),
``compatible`` (elaborations, paraphrases of the same value, many-valued predicates, other aspects of
the same subject) and ``unrelated``. Each pair also carries a ``category`` so the report shows where
the rules fail (paraphrased contradictions are the known weak spot). The same seed gives the same set.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from remnant.forgetting.contradictions import ContradictionDetector, Label

CITIES = ["Berlin", "Paris", "Lisbon", "Madrid", "Oslo", "Vienna", "Prague", "Dublin", "Warsaw", "Rome"]
CITIES_ZH = ["北京", "上海", "广州", "深圳", "杭州", "成都", "南京", "武汉", "西安", "重庆"]
COLOURS = ["blue", "green", "red", "yellow", "purple", "orange", "black", "white"]
COLOURS_ZH = ["蓝色", "绿色", "红色", "黄色", "紫色", "橙色", "黑色", "白色"]
FOODS = ["sushi", "pizza", "coffee", "tea", "chocolate", "pasta", "curry", "tofu", "cheese", "olives"]
FOODS_ZH = ["咖啡", "绿茶", "火锅", "饺子", "面条", "米饭", "豆腐", "巧克力"]
COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark Industries", "Wayne Enterprises"]
COMPANIES_ZH = ["华为", "腾讯", "阿里巴巴", "百度", "小米", "京东"]
LANGS = ["German", "French", "Spanish", "Italian", "Portuguese", "Japanese", "Korean"]
CARS = ["Toyota", "Volvo", "Tesla", "Honda", "Skoda", "Fiat", "Kia"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
PETS = ["cats", "dogs", "rabbits", "goldfish", "parrots"]
ALLERGENS = ["peanuts", "penicillin", "shellfish", "pollen", "gluten", "latex"]


@dataclass(frozen=True)
class LabelledPair:
    new: str
    old: str
    label: Label
    category: str
    lang: str


Gen = Callable[[random.Random], tuple[str, str]]


def _two(rng: random.Random, pool: list[str]) -> tuple[str, str]:
    a, b = rng.sample(pool, 2)
    return a, b


def _num(rng: random.Random, lo: int, hi: int) -> tuple[int, int]:
    a = rng.randint(lo, hi)
    b = a
    while b == a:
        b = rng.randint(lo, hi)
    return a, b


# (category, lang, generator) per label; generators return (old, new)
_CONTRADICTION: list[tuple[str, str, Gen]] = [
    ("value", "en", lambda r: (lambda a, b: (f"I live in {a}", f"I live in {b}"))(*_two(r, CITIES))),
    (
        "value",
        "en",
        lambda r: (lambda a, b: (f"My favourite colour is {a}", f"My favourite colour is {b}"))(*_two(r, COLOURS)),
    ),
    ("value", "en", lambda r: (lambda a, b: (f"I work at {a}", f"I work at {b}"))(*_two(r, COMPANIES))),
    ("value", "en", lambda r: (lambda a, b: (f"I drive a {a}", f"I drive a {b}"))(*_two(r, CARS))),
    (
        "value",
        "en",
        lambda r: (lambda a, b: (f"My dentist appointment is on {a}", f"My dentist appointment is on {b}"))(
            *_two(r, DAYS)
        ),
    ),
    ("value", "zh", lambda r: (lambda a, b: (f"我住在{a}", f"我住在{b}"))(*_two(r, CITIES_ZH))),
    ("value", "zh", lambda r: (lambda a, b: (f"我在{a}工作", f"我在{b}工作"))(*_two(r, COMPANIES_ZH))),
    (
        "value",
        "zh",
        lambda r: (lambda a, b: (f"我最喜欢的颜色是{a}", f"我最喜欢的颜色是{b}"))(*_two(r, COLOURS_ZH)),
    ),
    ("number", "en", lambda r: (lambda a, b: (f"I have {a} {PETS[a % 5]}", f"I have {b} {PETS[a % 5]}"))(*_num(r, 1, 6))),
    (
        "number",
        "en",
        lambda r: (lambda a, b: (f"My daughter is {a} years old", f"My daughter is {b} years old"))(*_num(r, 2, 17)),
    ),
    (
        "number",
        "en",
        lambda r: (lambda a, b: (f"The rent is {a}0 euros a month", f"The rent is {b}0 euros a month"))(
            *_num(r, 50, 200)
        ),
    ),
    (
        "number",
        "en",
        lambda r: (
            lambda a, b: (
                f"Product X supports at most {a}00 concurrent connections",
                f"Product X supports at most {b}00 concurrent connections",
            )
        )(*_num(r, 1, 50)),
    ),
    ("number", "zh", lambda r: (lambda a, b: (f"产品X的最大并发数是{a}00", f"产品X的最大并发数是{b}00"))(*_num(r, 1, 50))),
    ("number", "zh", lambda r: (lambda a, b: (f"我的孩子今年{a}岁", f"我的孩子今年{b}岁"))(*_num(r, 2, 17))),
    ("negation", "en", lambda r: (lambda f: (f"I like {f}", f"I don't like {f}"))(r.choice(FOODS))),
    ("negation", "en", lambda r: (lambda a: (f"I am allergic to {a}", f"I am not allergic to {a}"))(r.choice(ALLERGENS))),
    ("negation", "en", lambda r: (lambda c: (f"I own a {c}", f"I no longer own a {c}"))(r.choice(CARS))),
    ("negation", "zh", lambda r: (lambda f: (f"我喜欢{f}", f"我不喜欢{f}"))(r.choice(FOODS_ZH))),
    # paraphrased: the rules are expected to miss many of these
    ("paraphrase", "en", lambda r: (lambda a, b: (f"I live in {a}", f"I moved to {b} last year"))(*_two(r, CITIES))),
    (
        "paraphrase",
        "en",
        lambda r: (lambda a, b: (f"My favourite colour is {a}", f"{b} is my favourite colour now"))(*_two(r, COLOURS)),
    ),
    ("paraphrase", "en", lambda r: (lambda a, b: (f"I am {a} years old", f"I turned {b} last month"))(*_num(r, 20, 70))),
    ("paraphrase", "zh", lambda r: (lambda a, b: (f"我住在{a}", f"我已经搬到{b}了"))(*_two(r, CITIES_ZH))),
]

_COMPATIBLE: list[tuple[str, str, Gen]] = [
    ("elaboration", "en", lambda r: (lambda c: (f"I live in {c}", f"I live in {c} with my partner"))(r.choice(CITIES))),
    (
        "elaboration",
        "en",
        lambda r: (lambda n: (f"I have {n} {PETS[n % 5]}", f"I have {n} {PETS[n % 5]} and a hamster"))(r.randint(1, 6)),
    ),
    (
        "elaboration",
        "en",
        lambda r: (lambda c: (f"I work at {c}", f"I work at {c} as a software engineer"))(r.choice(COMPANIES)),
    ),
    ("elaboration", "zh", lambda r: (lambda c: (f"我住在{c}", f"我和家人住在{c}"))(r.choice(CITIES_ZH))),
    (
        "paraphrase_same",
        "en",
        lambda r: (lambda c: (f"My favourite colour is {c}", f"{c} is my favourite colour"))(r.choice(COLOURS)),
    ),
    ("paraphrase_same", "en", lambda r: (lambda c: (f"I drive a {c}", f"My car is a {c}"))(r.choice(CARS))),
    ("paraphrase_same", "zh", lambda r: (lambda c: (f"我最喜欢{c}", f"{c}是我的最爱"))(r.choice(FOODS_ZH))),
    ("many_valued", "en", lambda r: (lambda a, b: (f"I like {a}", f"I also like {b}"))(*_two(r, FOODS))),
    ("many_valued", "en", lambda r: (lambda a, b: (f"I like {a}", f"I like {b}"))(*_two(r, FOODS))),
    ("many_valued", "en", lambda r: (lambda a, b: (f"I speak {a}", f"I speak {b} too"))(*_two(r, LANGS))),
    ("many_valued", "en", lambda r: (lambda a, b: (f"I have visited {a}", f"I have visited {b}"))(*_two(r, CITIES))),
    ("many_valued", "zh", lambda r: (lambda a, b: (f"我喜欢{a}", f"我也喜欢{b}"))(*_two(r, FOODS_ZH))),
    # the same subject, another aspect: a value differs but it is a different attribute
    (
        "other_aspect",
        "en",
        lambda r: (lambda n, f: (f"My daughter is {n} years old", f"My daughter loves {f}"))(
            r.randint(2, 17), r.choice(FOODS)
        ),
    ),
    (
        "other_aspect",
        "en",
        lambda r: (lambda c, d: (f"My dentist is in {c}", f"My dentist appointment is on {d}"))(
            r.choice(CITIES), r.choice(DAYS)
        ),
    ),
    (
        "other_aspect",
        "en",
        lambda r: (lambda a, b: (f"I was born in {a}", f"I live in {b}"))(*_two(r, CITIES)),
    ),
    ("other_aspect", "zh", lambda r: (lambda a, b: (f"我出生在{a}", f"我住在{b}"))(*_two(r, CITIES_ZH))),
]

_SINGLE_TOPICS: list[tuple[str, Gen]] = [
    ("en", lambda r: (f"I live in {r.choice(CITIES)}", "")),
    ("en", lambda r: (f"My favourite colour is {r.choice(COLOURS)}", "")),
    ("en", lambda r: (f"I have {r.randint(1, 6)} {r.choice(PETS)}", "")),
    ("en", lambda r: (f"I am allergic to {r.choice(ALLERGENS)}", "")),
    ("en", lambda r: (f"My dentist appointment is on {r.choice(DAYS)}", "")),
    ("en", lambda r: (f"I work at {r.choice(COMPANIES)}", "")),
    ("en", lambda r: (f"I speak {r.choice(LANGS)}", "")),
    ("en", lambda r: (f"The rent is {r.randint(50, 200)}0 euros a month", "")),
    ("zh", lambda r: (f"我住在{r.choice(CITIES_ZH)}", "")),
    ("zh", lambda r: (f"我喜欢{r.choice(FOODS_ZH)}", "")),
    ("zh", lambda r: (f"我的孩子今年{r.randint(2, 17)}岁", "")),
    ("zh", lambda r: (f"我在{r.choice(COMPANIES_ZH)}工作", "")),
]


def generate_pairs(n_per_label: int = 200, seed: int = 7) -> list[LabelledPair]:
    """``n_per_label`` pairs of each label, deterministic for a seed, templates cycled evenly."""
    rng = random.Random(seed)
    pairs: list[LabelledPair] = []
    for label, table in (("contradiction", _CONTRADICTION), ("compatible", _COMPATIBLE)):
        for i in range(n_per_label):
            category, lang, gen = table[i % len(table)]
            old, new = gen(rng)
            pairs.append(LabelledPair(new, old, label, category, lang))  # type: ignore[arg-type]
    for i in range(n_per_label):
        lang = "en" if i % 3 else "zh"
        topics = [g for g_lang, g in _SINGLE_TOPICS if g_lang == lang]
        ga, gb = rng.sample(topics, 2)
        pairs.append(LabelledPair(gb(rng)[0], ga(rng)[0], "unrelated", "unrelated", lang))
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
