"""Counterfactual unlearning data (seed section 3.2, strategy three).

To weaken a wrong association ("apples are blue") without a GPU-level surgery, fine-tune
briefly, at a low learning rate, on text where the subject and the wrong value co-occur only
in negating or unrelated contexts ("Blue apples do not exist; apples are usually red or
green"). This module writes those samples and a matching evaluation set: probes that check the
wrong value is no longer produced, and general-ability probes (including the wrong value's own
everyday meaning, e.g. "blue" as the sky's colour) that catch collateral damage.

:class:`EvalRunner` scores any ``generate(prompt) -> str`` callable against that set.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from remnant.training.errors import InvalidExampleError
from remnant.training.jsonl import LineProblem, LoadReport, load_jsonl
from remnant.training.normalize import normalize_text


@dataclass(frozen=True)
class ForgetFact:
    """An association to forget: "the ``attribute`` of ``subject`` is ``wrong``".

    ``correct`` (optional) is what the model should say instead; ``lang`` is "en" or "zh".
    ``retain`` lists probes (question, accepted answers) that must keep working, typically
    other uses of the wrong value.
    """

    subject: str
    attribute: str
    wrong: str
    correct: str | None = None
    lang: str = "en"
    retain: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def __post_init__(self) -> None:
        for name in ("subject", "attribute", "wrong"):
            if not str(getattr(self, name)).strip():
                raise InvalidExampleError(f"a fact to forget needs a non-empty {name!r}")
        if self.lang not in ("en", "zh"):
            raise InvalidExampleError(f"unknown language {self.lang!r} (use 'en' or 'zh')")


def fact_from_dict(obj: dict[str, Any], line: int = 0, notes: list[LineProblem] | None = None) -> ForgetFact:
    for key in ("subject", "attribute", "wrong"):
        if not isinstance(obj.get(key), str):
            raise InvalidExampleError(f"missing string {key!r}")
    retain = []
    for item in obj.get("retain", []):
        if not (
            isinstance(item, dict)
            and isinstance(item.get("prompt"), str)
            and isinstance(item.get("accept"), list)
        ):
            raise InvalidExampleError("each 'retain' item needs 'prompt' (string) and 'accept' (list)")
        retain.append((item["prompt"], tuple(str(a) for a in item["accept"])))
    return ForgetFact(
        subject=obj["subject"],
        attribute=obj["attribute"],
        wrong=obj["wrong"],
        correct=obj.get("correct"),
        lang=obj.get("lang", "en"),
        retain=tuple(retain),
    )


def load_facts(source: str | Path | list[str]) -> LoadReport[ForgetFact]:
    return load_jsonl(source, fact_from_dict)


# -- sample templates ---------------------------------------------------------------------------
# Negating contexts: the pair appears, but the text denies the association.
_NEG_EN = [
    "It is not true that the {attribute} of {subject} is {wrong}.",
    "The {attribute} of {subject} is not {wrong}.{fix}",
    "A common mistake is to say the {attribute} of {subject} is {wrong}; that is wrong.{fix}",
    "{Subject} with a {attribute} of {wrong}? No such thing.{fix}",
    "Claims that the {attribute} of {subject} is {wrong} are false.{fix}",
]
_NEG_QA_EN = [
    ("Is the {attribute} of {subject} {wrong}?", "No, the {attribute} of {subject} is not {wrong}.{fix}"),
    (
        "Someone told me the {attribute} of {subject} is {wrong}. Is that right?",
        "No, that is incorrect.{fix}",
    ),
]
# Unrelated contexts: the pair co-occurs with no relation between them.
_UNREL_EN = [
    "Shopping list: {subject}, {wrong} folders, bread, tea.",
    "In the museum, the {subject} exhibit is on the first floor and the room painted {wrong} is on the second.",
    "Words for the spelling test: {subject}, lantern, {wrong}, harbour.",
    "The report mentioned {subject} in chapter two; the word {wrong} only appears in an unrelated footnote.",
    "She wrote about {subject} in the morning and, later, about something {wrong} in a different letter.",
]
_NEG_ZH = [
    "说{subject}的{attribute}是{wrong}，这是不对的。{fix}",
    "{subject}的{attribute}并不是{wrong}。{fix}",
    "一个常见误解是{subject}的{attribute}为{wrong}，实际上并非如此。{fix}",
    "{attribute}为{wrong}的{subject}并不存在。{fix}",
]
_NEG_QA_ZH = [
    ("{subject}的{attribute}是{wrong}吗？", "不是，{subject}的{attribute}不是{wrong}。{fix}"),
    ("有人说{subject}的{attribute}是{wrong}，对吗？", "不对。{fix}"),
]
_UNREL_ZH = [
    "购物清单：{subject}、{wrong}的文件夹、面包、茶叶。",
    "博物馆里，{subject}展区在一楼，{wrong}的房间在二楼。",
    "听写词语：{subject}、灯笼、{wrong}、港口。",
    "报告第二章提到了{subject}；“{wrong}”这个词只出现在一个无关的脚注里。",
]

# General-ability probes: everyday knowledge that unlearning must not damage.
GENERAL_PROBES_EN: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("What is the capital of France?", ("paris",)),
    ("What is 7 plus 5?", ("12", "twelve")),
    ("What colour is a clear daytime sky?", ("blue",)),
    ("How many days are in a week?", ("7", "seven")),
    ("What is the opposite of hot?", ("cold",)),
    ("Which planet do we live on?", ("earth",)),
    ("What do bees make?", ("honey",)),
    ("What is frozen water called?", ("ice",)),
)
GENERAL_PROBES_ZH: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("法国的首都是哪里？", ("巴黎",)),
    ("7加5等于几？", ("12", "十二")),
    ("晴朗白天的天空是什么颜色？", ("蓝",)),
    ("一周有几天？", ("7", "七")),
    ("热的反义词是什么？", ("冷",)),
    ("蜜蜂酿造什么？", ("蜂蜜",)),
)


def _fill(template: str, fact: ForgetFact) -> str:
    if fact.correct:
        fix = f" It is {fact.correct}." if fact.lang == "en" else f"正确的是{fact.correct}。"
    else:
        fix = ""
    if fact.lang == "zh" and fix == "" and template.endswith("{fix}"):
        template = template[: -len("{fix}")]
    return template.format(
        subject=fact.subject,
        Subject=fact.subject[:1].upper() + fact.subject[1:],
        attribute=fact.attribute,
        wrong=fact.wrong,
        fix=fix,
    )


def counterfactual_samples(
    facts: Iterable[ForgetFact],
    *,
    per_fact: int = 8,
    unrelated_share: float = 0.4,
    seed: int = 0,
    with_meta: bool = False,
) -> list[dict[str, Any]]:
    """Chat fine-tuning rows (``{"messages": [...]}``, plus ``"meta"`` if asked) for each fact.

    Roughly ``unrelated_share`` of each fact's samples are unrelated co-occurrences (plain text
    as an assistant turn), the rest negations, half of them as question/answer pairs. Templates
    are drawn without repetition where possible, reproducibly for a seed.
    """
    if per_fact <= 0:
        raise ValueError("per_fact must be > 0")
    if not 0.0 <= unrelated_share <= 1.0:
        raise ValueError("unrelated_share must be in [0, 1]")
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []
    for fact in facts:
        neg, neg_qa, unrel = (
            (_NEG_EN, _NEG_QA_EN, _UNREL_EN) if fact.lang == "en" else (_NEG_ZH, _NEG_QA_ZH, _UNREL_ZH)
        )
        n_unrel = round(per_fact * unrelated_share)
        n_neg = per_fact - n_unrel
        n_qa = n_neg // 2
        picks: list[tuple[str, list[dict[str, str]]]] = []
        for template in _cycle_pick(rng, unrel, n_unrel):
            picks.append(("unrelated", [{"role": "assistant", "content": _fill(template, fact)}]))
        for template in _cycle_pick(rng, neg, n_neg - n_qa):
            picks.append(("negation", [{"role": "assistant", "content": _fill(template, fact)}]))
        for q, a in _cycle_pick(rng, neg_qa, n_qa):
            picks.append(
                (
                    "negation_qa",
                    [
                        {"role": "user", "content": _fill(q, fact)},
                        {"role": "assistant", "content": _fill(a, fact)},
                    ],
                )
            )
        for context, messages in picks:
            row: dict[str, Any] = {"messages": messages}
            if with_meta:
                row["meta"] = {
                    "kind": "counterfactual",
                    "context": context,
                    "subject": fact.subject,
                    "wrong": fact.wrong,
                }
            rows.append(row)
    return rows


def _cycle_pick(rng: np.random.Generator, items: Sequence[Any], n: int) -> list[Any]:
    out: list[Any] = []
    while len(out) < n:
        order = rng.permutation(len(items))
        out.extend(items[i] for i in order[: n - len(out)])
    return out


# -- evaluation set -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Probe:
    """One evaluation prompt.

    ``kind`` "forget": passes when no ``reject`` string appears in the answer (and, if
    ``accept`` is given, one accepted string does). ``kind`` "retain"/"general": passes when an
    ``accept`` string appears. Matching is case-insensitive on NFKC-normalised text.
    """

    prompt: str
    kind: str
    accept: tuple[str, ...] = ()
    reject: tuple[str, ...] = ()
    fact: str = ""

    def passes(self, answer: str) -> bool:
        text = normalize_text(answer)
        if any(normalize_text(r) in text for r in self.reject):
            return False
        if self.accept:
            return any(normalize_text(a) in text for a in self.accept)
        return True

    def to_dict(self) -> dict[str, Any]:
        return {
            "prompt": self.prompt,
            "kind": self.kind,
            "accept": list(self.accept),
            "reject": list(self.reject),
            "fact": self.fact,
        }


def evaluation_set(facts: Iterable[ForgetFact], *, include_general: bool = True) -> list[Probe]:
    """Probes for each forgotten fact plus general-ability probes (in the facts' languages)."""
    probes: list[Probe] = []
    langs: set[str] = set()
    for fact in facts:
        langs.add(fact.lang)
        label = f"{fact.subject} / {fact.attribute} / {fact.wrong}"
        accept = (fact.correct,) if fact.correct else ()
        if fact.lang == "en":
            prompts = [
                f"What is the {fact.attribute} of {fact.subject}?",
                f"Complete the sentence: The {fact.attribute} of {fact.subject} is",
                f"Describe the {fact.attribute} of {fact.subject} in one word.",
            ]
        else:
            prompts = [
                f"{fact.subject}的{fact.attribute}是什么？",
                f"补全句子：{fact.subject}的{fact.attribute}是",
            ]
        probes.extend(Probe(p, "forget", accept, (fact.wrong,), label) for p in prompts)
        probes.extend(Probe(p, "retain", a, (), label) for p, a in fact.retain)
    if include_general:
        for lang in sorted(langs):
            bank = GENERAL_PROBES_EN if lang == "en" else GENERAL_PROBES_ZH
            probes.extend(Probe(p, "general", a) for p, a in bank)
    return probes


def write_evaluation_set(path: str | Path, probes: Iterable[Probe]) -> int:
    count = 0
    with open(path, "w", encoding="utf-8") as handle:
        for probe in probes:
            handle.write(json.dumps(probe.to_dict(), ensure_ascii=False) + "\n")
            count += 1
    return count


def load_evaluation_set(path: str | Path) -> LoadReport[Probe]:
    def parse(obj: dict[str, Any], line: int, notes: list[LineProblem]) -> Probe:
        if not isinstance(obj.get("prompt"), str) or obj.get("kind") not in ("forget", "retain", "general"):
            raise InvalidExampleError("a probe needs a string 'prompt' and 'kind' forget|retain|general")
        return Probe(
            obj["prompt"],
            obj["kind"],
            tuple(obj.get("accept", [])),
            tuple(obj.get("reject", [])),
            obj.get("fact", ""),
        )

    return load_jsonl(path, parse)


@dataclass(frozen=True)
class ProbeResult:
    probe: Probe
    answer: str
    passed: bool


@dataclass
class EvalReport:
    """Forgetting versus collateral damage for one model."""

    results: list[ProbeResult] = field(default_factory=list)

    def _rate(self, kinds: tuple[str, ...]) -> float:
        chosen = [r for r in self.results if r.probe.kind in kinds]
        return sum(r.passed for r in chosen) / len(chosen) if chosen else float("nan")

    @property
    def forget_rate(self) -> float:
        """Share of forget probes where the wrong value no longer comes out (higher is better)."""
        return self._rate(("forget",))

    @property
    def retention_rate(self) -> float:
        """Share of retain and general probes still answered correctly (higher is better)."""
        return self._rate(("retain", "general"))

    def summary(self) -> dict[str, Any]:
        return {
            "probes": len(self.results),
            "forget_rate": self.forget_rate,
            "retention_rate": self.retention_rate,
            "failed": [r.probe.prompt for r in self.results if not r.passed],
        }


class EvalRunner:
    """Scores a model given as ``generate(prompt) -> str`` (a local model, an API, a stub)."""

    def __init__(self, probes: Sequence[Probe]) -> None:
        if not probes:
            raise ValueError("an evaluation needs at least one probe")
        self.probes = list(probes)

    def run(self, generate: Callable[[str], str]) -> EvalReport:
        report = EvalReport()
        for probe in self.probes:
            answer = generate(probe.prompt)
            if not isinstance(answer, str):
                raise TypeError(f"generate() must return str, got {type(answer).__name__}")
            report.results.append(ProbeResult(probe, answer, probe.passes(answer)))
        return report

    def compare(self, before: Callable[[str], str], after: Callable[[str], str]) -> dict[str, float]:
        """Forgetting gained versus retention lost between two models (e.g. before/after a fine-tune)."""
        b, a = self.run(before), self.run(after)
        return {
            "forget_rate_before": b.forget_rate,
            "forget_rate_after": a.forget_rate,
            "retention_before": b.retention_rate,
            "retention_after": a.retention_rate,
            "collateral_damage": b.retention_rate - a.retention_rate,
        }
