"""Detection quality on the labelled corpus: per-type precision/recall and clean-text false positives.

Scoring is strict where it matters for privacy: a gold value counts as recalled only when every
letter and digit of it is covered by detections of the same type (a partly masked phone number
still leaks). A detection counts as correct when it overlaps a gold span of its type.
"""

from __future__ import annotations

import json
import platform
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from remnant.privacy.corpus import GoldSpan, LabelledSentence
from remnant.privacy.detector import Detector
from remnant.privacy.entities import Detection, EntityType


@dataclass
class TypeScore:
    gold: int = 0
    recalled: int = 0
    predicted: int = 0
    correct: int = 0

    @property
    def recall(self) -> float:
        return self.recalled / self.gold if self.gold else float("nan")

    @property
    def precision(self) -> float:
        return self.correct / self.predicted if self.predicted else float("nan")


@dataclass
class BenchReport:
    by_type: dict[EntityType, TypeScore] = field(default_factory=dict)
    by_type_lang: dict[tuple[EntityType, str], TypeScore] = field(default_factory=dict)
    clean_sentences: int = 0
    clean_with_detection: int = 0
    leaked_values: int = 0
    gold_values: int = 0
    sentences: int = 0
    seconds: float = 0.0
    misses: list[tuple[str, str, str]] = field(default_factory=list)  # (type, value, sentence)
    false_positives: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def clean_fp_rate(self) -> float:
        return self.clean_with_detection / self.clean_sentences if self.clean_sentences else float("nan")


def _covered(start: int, end: int, text: str, preds: Sequence[Detection]) -> bool:
    for i in range(start, end):
        if text[i].isalnum() and not any(p.start <= i < p.end for p in preds):
            return False
    return True


def _matches_gold(p: Detection, spans: Sequence[GoldSpan]) -> bool:
    """A detection is correct when it overlaps a labelled value of its own type."""
    return any(g.entity_type == p.entity_type and g.start < p.end and p.start < g.end for g in spans)


def evaluate(
    detector: Detector,
    corpus: Sequence[LabelledSentence],
    keep_examples: int = 30,
    *,
    predictions: list[Sequence[Detection]] | None = None,
) -> BenchReport:
    """Per-type recall and precision over ``corpus``; ``predictions``, when given, receives each
    sentence's detections in order (so a caller scoring other cuts need not detect again)."""
    rep = BenchReport()
    t0 = time.perf_counter()
    for s in corpus:
        preds = detector.detect(s.text)
        if predictions is not None:
            predictions.append(preds)
        rep.sentences += 1
        if not s.has_pii:
            rep.clean_sentences += 1
            if preds:
                rep.clean_with_detection += 1
                for p in preds:
                    if len(rep.false_positives) < keep_examples:
                        rep.false_positives.append((p.entity_type.name, p.value, s.text))
        for g in s.spans:
            for key_score in (
                rep.by_type.setdefault(g.entity_type, TypeScore()),
                rep.by_type_lang.setdefault((g.entity_type, s.lang), TypeScore()),
            ):
                key_score.gold += 1
            same = [p for p in preds if p.entity_type == g.entity_type]
            ok = _covered(g.start, g.end, s.text, same)
            if ok:
                rep.by_type[g.entity_type].recalled += 1
                rep.by_type_lang[(g.entity_type, s.lang)].recalled += 1
            elif len(rep.misses) < keep_examples * 3:
                rep.misses.append((g.entity_type.name, s.text[g.start : g.end], s.text))
            rep.gold_values += 1
            if not _covered(g.start, g.end, s.text, preds):
                rep.leaked_values += 1
        for p in preds:
            for sc in (
                rep.by_type.setdefault(p.entity_type, TypeScore()),
                rep.by_type_lang.setdefault((p.entity_type, s.lang), TypeScore()),
            ):
                sc.predicted += 1
            if _matches_gold(p, s.spans):
                rep.by_type[p.entity_type].correct += 1
                rep.by_type_lang[(p.entity_type, s.lang)].correct += 1
            elif s.has_pii and len(rep.false_positives) < keep_examples:
                rep.false_positives.append((p.entity_type.name, p.value, s.text))
    rep.seconds = time.perf_counter() - t0
    return rep


TARGETS: dict[EntityType, float] = {
    EntityType.EMAIL: 0.99,
    EntityType.PHONE: 0.99,
    EntityType.CREDIT_CARD: 0.99,
    EntityType.CN_ID: 0.99,
    EntityType.IBAN: 0.99,
    EntityType.PERSON: 0.90,
    EntityType.ADDRESS: 0.90,
}


def _fmt(x: float) -> str:
    return "  n/a" if x != x else f"{x:.3f}"


def format_report(rep: BenchReport, *, command: str, presidio: bool) -> str:
    lines = [
        f"command: {command}",
        f"machine: {platform.machine()} {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}, presidio/spaCy: {'on' if presidio else 'off'}",
        f"sentences: {rep.sentences} ({rep.sentences - rep.clean_sentences} with PII, "
        f"{rep.clean_sentences} PII-free), {rep.gold_values} labelled values, "
        f"{rep.sentences / rep.seconds:.0f} sentences/s",
        "",
        "| type | lang | gold | recall | precision | target |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for etype in EntityType:
        sc = rep.by_type.get(etype)
        if sc is None:
            continue
        target = TARGETS.get(etype)
        lines.append(
            f"| {etype.name} | all | {sc.gold} | {_fmt(sc.recall)} | {_fmt(sc.precision)} | "
            f"{'>= ' + format(target, '.2f') if target else '-'} |"
        )
        for lang in ("en", "zh", "mixed"):
            sl = rep.by_type_lang.get((etype, lang))
            if sl is not None and sl.gold:
                lines.append(
                    f"| {etype.name} | {lang} | {sl.gold} | {_fmt(sl.recall)} | {_fmt(sl.precision)} | |"
                )
    lines += [
        "",
        f"PII-free sentences with any detection: {rep.clean_with_detection}/{rep.clean_sentences} "
        f"= {rep.clean_fp_rate:.3%} (target <= 2%)",
        f"values left partly visible (not fully covered by any detection): {rep.leaked_values}/{rep.gold_values}",
    ]
    return "\n".join(lines)


def per_lang(rep: BenchReport) -> dict[str, dict[str, float]]:
    """Recall per (type, language) as plain data (for JSON output)."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for (etype, lang), sc in rep.by_type_lang.items():
        if sc.gold:
            out[etype.name][lang] = round(sc.recall, 4)
    return dict(out)


# -- the held-out spelling set (bench/heldout/pii_spellings.jsonl) ----------------------------------
HELDOUT_SPELLINGS = Path(__file__).resolve().parent / "heldout" / "pii_spellings.jsonl"


@dataclass
class HeldoutCase:
    """One held-out line with its gold spans (from the ``value`` substrings) and category."""

    sentence: LabelledSentence
    category: str
    unplaced: list[tuple[str, str]] = field(default_factory=list)  # (type, value) not in the text


def load_heldout(path: Path) -> list[HeldoutCase]:
    """Read ``{"id","lang","text","pii":[{"type","value"}],"category"}`` lines; each ``value`` is
    located in ``text`` (left to right, one occurrence per gold value) and becomes a span."""
    cases: list[HeldoutCase] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            text = str(row["text"])
            pii = list(row.get("pii") or [])
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{n}: not a held-out line: {exc}") from exc
        spans: list[GoldSpan] = []
        unplaced: list[tuple[str, str]] = []
        for item in pii:
            etype = EntityType.parse(str(item["type"]))
            value = str(item["value"])
            start = text.find(value)
            while start != -1 and any(s.start < start + len(value) and start < s.end for s in spans):
                start = text.find(value, start + 1)
            if not value or start == -1:
                unplaced.append((etype.name, value))
                continue
            spans.append(GoldSpan(etype, start, start + len(value)))
        lang = str(row.get("lang") or "en")
        sentence = LabelledSentence(text, tuple(spans), lang, str(row.get("category") or "-"))
        cases.append(HeldoutCase(sentence, str(row.get("category") or "-"), unplaced))
    return cases


@dataclass
class CategoryScore:
    sentences: int = 0
    gold: int = 0
    recalled: int = 0
    predicted: int = 0
    correct: int = 0
    negatives: int = 0  # sentences with no personal data
    negatives_flagged: int = 0


def evaluate_heldout(
    detector: Detector, cases: Sequence[HeldoutCase]
) -> tuple[BenchReport, dict[str, CategoryScore]]:
    """Per-type scores (as :func:`evaluate`) plus per-category recall, precision and the share of
    PII-free lines with a detection."""
    detected: list[Sequence[Detection]] = []
    report = evaluate(detector, [c.sentence for c in cases], predictions=detected)
    by_cat: dict[str, CategoryScore] = defaultdict(CategoryScore)
    for c, preds in zip(cases, detected, strict=True):
        s = c.sentence
        sc = by_cat[c.category]
        sc.sentences += 1
        if not s.spans:
            sc.negatives += 1
            sc.negatives_flagged += bool(preds)
        for g in s.spans:
            sc.gold += 1
            same = [p for p in preds if p.entity_type == g.entity_type]
            sc.recalled += _covered(g.start, g.end, s.text, same)
        for p in preds:
            sc.predicted += 1
            sc.correct += _matches_gold(p, s.spans)
    return report, dict(by_cat)


def format_heldout(
    path: Path,
    cases: Sequence[HeldoutCase],
    report: BenchReport,
    by_cat: dict[str, CategoryScore],
    *,
    presidio: bool,
) -> str:
    unplaced = sum(len(c.unplaced) for c in cases)
    lines = [
        f"held-out set: {path.name} ({len(cases)} lines, {report.gold_values} labelled values"
        + (f", {unplaced} values not found in their text and left out" if unplaced else "")
        + f"), presidio/spaCy: {'on' if presidio else 'off'}",
        "",
        "| type | gold | recall | predicted | precision |",
        "|---|---:|---:|---:|---:|",
    ]
    for etype in EntityType:
        sc = report.by_type.get(etype)
        if sc is None:
            continue
        lines.append(
            f"| {etype.value} | {sc.gold} | {_fmt(sc.recall)} | {sc.predicted} | {_fmt(sc.precision)} |"
        )
    lines += [
        "",
        "| category | lines | gold | recall | precision | PII-free lines flagged |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name in sorted(by_cat):
        c = by_cat[name]
        recall = c.recalled / c.gold if c.gold else float("nan")
        precision = c.correct / c.predicted if c.predicted else float("nan")
        flagged = f"{c.negatives_flagged}/{c.negatives}" if c.negatives else "-"
        lines.append(
            f"| {name} | {c.sentences} | {c.gold} | {_fmt(recall)} | {_fmt(precision)} | {flagged} |"
        )
    lines += [
        "",
        f"PII-free lines with any detection: {report.clean_with_detection}/{report.clean_sentences}",
        f"values left partly visible: {report.leaked_values}/{report.gold_values}",
    ]
    return "\n".join(lines)
