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
from dataclasses import dataclass

from remnant.understand.statements import ContradictionDetector, Label

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


POOLS: dict[str, list[str]] = {
    "city": CITIES,
    "city_zh": CITIES_ZH,
    "colour": COLOURS,
    "colour_zh": COLOURS_ZH,
    "food": FOODS,
    "food_zh": FOODS_ZH,
    "company": COMPANIES,
    "company_zh": COMPANIES_ZH,
    "lang": LANGS,
    "car": CARS,
    "day": DAYS,
    "pet": PETS,
    "allergen": ALLERGENS,
}


@dataclass(frozen=True)
class Template:
    """A pair template: ``{a}`` is the old value, ``{b}`` a different one, ``{c}`` an unrelated filler.

    ``slot`` names a pool of values or ``num:LO:HI`` for numbers.
    """

    category: str
    lang: str
    old: str
    new: str
    slot: str
    filler: str | None = None


def _values(rng: random.Random, slot: str) -> tuple[str, str]:
    if slot.startswith("num:"):
        lo, hi = (int(x) for x in slot.split(":")[1:])
        x = rng.randint(lo, hi)
        y = x
        while y == x:
            y = rng.randint(lo, hi)
        return str(x), str(y)
    a, b = rng.sample(POOLS[slot], 2)
    return a, b


def _fill(t: Template, rng: random.Random) -> tuple[str, str]:
    a, b = _values(rng, t.slot)
    c = rng.choice(POOLS[t.filler]) if t.filler else ""
    return t.old.format(a=a, b=b, c=c), t.new.format(a=a, b=b, c=c)


T = Template
_CONTRADICTION: list[Template] = [
    T("value", "en", "I live in {a}", "I live in {b}", "city"),
    T("value", "en", "My favourite colour is {a}", "My favourite colour is {b}", "colour"),
    T("value", "en", "I work at {a}", "I work at {b}", "company"),
    T("value", "en", "I drive a {a}", "I drive a {b}", "car"),
    T("value", "en", "My dentist appointment is on {a}", "My dentist appointment is on {b}", "day"),
    T("value", "zh", "我住在{a}", "我住在{b}", "city_zh"),
    T("value", "zh", "我在{a}工作", "我在{b}工作", "company_zh"),
    T("value", "zh", "我最喜欢的颜色是{a}", "我最喜欢的颜色是{b}", "colour_zh"),
    T("number", "en", "I have {a} {c}", "I have {b} {c}", "num:1:6", "pet"),
    T("number", "en", "My daughter is {a} years old", "My daughter is {b} years old", "num:2:17"),
    T("number", "en", "The rent is {a}0 euros a month", "The rent is {b}0 euros a month", "num:50:200"),
    T(
        "number",
        "en",
        "Product X supports at most {a}00 concurrent connections",
        "Product X supports at most {b}00 concurrent connections",
        "num:1:50",
    ),
    T("number", "zh", "产品X的最大并发数是{a}00", "产品X的最大并发数是{b}00", "num:1:50"),
    T("number", "zh", "我的孩子今年{a}岁", "我的孩子今年{b}岁", "num:2:17"),
    T("negation", "en", "I like {a}", "I don't like {a}", "food"),
    T("negation", "en", "I am allergic to {a}", "I am not allergic to {a}", "allergen"),
    T("negation", "en", "I own a {a}", "I no longer own a {a}", "car"),
    T("negation", "zh", "我喜欢{a}", "我不喜欢{a}", "food_zh"),
    # paraphrased: the rules are expected to miss many of these
    T("paraphrase", "en", "I live in {a}", "I moved to {b} last year", "city"),
    T("paraphrase", "en", "My favourite colour is {a}", "{b} is my favourite colour now", "colour"),
    T("paraphrase", "en", "I am {a} years old", "I turned {b} last month", "num:20:70"),
    T("paraphrase", "zh", "我住在{a}", "我已经搬到{b}了", "city_zh"),
]

_COMPATIBLE: list[Template] = [
    T("elaboration", "en", "I live in {a}", "I live in {a} with my partner", "city"),
    T("elaboration", "en", "I have {a} {c}", "I have {a} {c} and a hamster", "num:1:6", "pet"),
    T("elaboration", "en", "I work at {a}", "I work at {a} as a software engineer", "company"),
    T("elaboration", "zh", "我住在{a}", "我和家人住在{a}", "city_zh"),
    T("paraphrase_same", "en", "My favourite colour is {a}", "{a} is my favourite colour", "colour"),
    T("paraphrase_same", "en", "I drive a {a}", "My car is a {a}", "car"),
    T("paraphrase_same", "zh", "我最喜欢{a}", "{a}是我的最爱", "food_zh"),
    T("many_valued", "en", "I like {a}", "I also like {b}", "food"),
    T("many_valued", "en", "I like {a}", "I like {b}", "food"),
    T("many_valued", "en", "I speak {a}", "I speak {b} too", "lang"),
    T("many_valued", "en", "I have visited {a}", "I have visited {b}", "city"),
    T("many_valued", "zh", "我喜欢{a}", "我也喜欢{b}", "food_zh"),
    # the same subject, another aspect: a value differs but it is a different attribute
    T("other_aspect", "en", "My daughter is {a} years old", "My daughter loves {c}", "num:2:17", "food"),
    T("other_aspect", "en", "My dentist is in {c}", "My dentist appointment is on {a}", "day", "city"),
    T("other_aspect", "en", "I was born in {a}", "I live in {b}", "city"),
    T("other_aspect", "zh", "我出生在{a}", "我住在{b}", "city_zh"),
]

# single statements on different topics, paired at random for the unrelated label
_TOPICS: list[tuple[str, str, str]] = [
    ("en", "I live in {a}", "city"),
    ("en", "My favourite colour is {a}", "colour"),
    ("en", "I have {a} cats", "num:1:6"),
    ("en", "I am allergic to {a}", "allergen"),
    ("en", "My dentist appointment is on {a}", "day"),
    ("en", "I work at {a}", "company"),
    ("en", "I speak {a}", "lang"),
    ("en", "The rent is {a}0 euros a month", "num:50:200"),
    ("zh", "我住在{a}", "city_zh"),
    ("zh", "我喜欢{a}", "food_zh"),
    ("zh", "我的孩子今年{a}岁", "num:2:17"),
    ("zh", "我在{a}工作", "company_zh"),
]


def generate_pairs(n_per_label: int = 200, seed: int = 7) -> list[LabelledPair]:
    """``n_per_label`` pairs of each label, deterministic for a seed, templates cycled evenly."""
    rng = random.Random(seed)
    pairs: list[LabelledPair] = []
    for label, table in (("contradiction", _CONTRADICTION), ("compatible", _COMPATIBLE)):
        for i in range(n_per_label):
            t = table[i % len(table)]
            old, new = _fill(t, rng)
            pairs.append(LabelledPair(new, old, label, t.category, t.lang))  # type: ignore[arg-type]
    for i in range(n_per_label):
        lang = "en" if i % 3 else "zh"
        topics = [(text, slot) for t_lang, text, slot in _TOPICS if t_lang == lang]
        (ta, sa), (tb, sb) = rng.sample(topics, 2)
        old, new = ta.format(a=_values(rng, sa)[0]), tb.format(a=_values(rng, sb)[0])
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
