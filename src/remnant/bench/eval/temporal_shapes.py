"""LoCoMo's temporal questions grouped by shape, with their misses, from a ``--dump`` file.

The shape is read from the question and its gold answer (the answer says how the evidence turn
put the time: "The week before 9 June 2023" is a turn that said "last week"; "2022" one that said
"last year"), so a table per shape shows which kind of time reading or ranking loses questions::

    remnant bench locomo --data locomo10-dev.json --systems remnant --dump dump.jsonl
    python -m remnant.bench.eval.temporal_shapes dump.jsonl [--misses]
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from remnant.core.text.numerals import ENGLISH_MONTHS
from remnant.core.text.words import words

# month and season names: the text layer's data (core/text/data/<lang>/calendar.json)
_MONTH = "(?:" + "|".join(ENGLISH_MONTHS) + ")"
_SEASON = re.compile(r"\b(" + "|".join(words("calendar", "seasons", "en")) + r")\b")
SHAPES = (
    "how long (ago)",
    "first / last time",
    "relative (the week before D)",
    "year only",
    "month only",
    "season",
    "exact date",
    "other",
)


def shape_of(question: str, answer: str) -> str:
    """One of :data:`SHAPES`."""
    q, a = question.lower(), answer.lower().strip()
    if q.startswith("how long"):
        return "how long (ago)"
    if re.search(r"\b(first|last time)\b", q):
        return "first / last time"
    if (
        re.search(r"\b(before|after|of)\b", a) and re.search(r"\b(week|weekend|day|days|\w+day)\b", a)
    ) or " ago" in a:
        return "relative (the week before D)"
    if _SEASON.search(a):
        return "season"
    if re.search(rf"\d{{1,2}}(st|nd|rd|th)? {_MONTH}|{_MONTH},? \d{{1,2}}(st|nd|rd|th)?\b", a):
        return "exact date"
    if re.search(_MONTH, a):
        return "month only"
    if re.search(r"\b(19|20)\d\d\b", a):
        return "year only"
    return "other"


def summarise(rows: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Per shape (temporal questions only): questions, misses (Recall@5 below 1), Recall@5."""
    out: dict[str, dict[str, float]] = {}
    for r in rows:
        if r.get("category") != "temporal":
            continue
        s = out.setdefault(
            shape_of(r["question"], str(r["answer"])), {"questions": 0, "misses": 0, "recall": 0.0}
        )
        s["questions"] += 1
        s["misses"] += float(r["recall@5"]) < 1
        s["recall"] += float(r["recall@5"])
    for s in out.values():
        s["recall"] /= s["questions"]
    return {k: out[k] for k in SHAPES if k in out}


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit("usage: python -m remnant.bench.eval.temporal_shapes DUMP.jsonl [--misses]")
    rows = [
        json.loads(line) for line in Path(argv[0]).read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    for shape, s in summarise(rows).items():
        print(
            f"{shape:<30} {int(s['questions']):>4} questions {int(s['misses']):>3} misses  R@5 {100 * s['recall']:.1f}%"
        )
    if "--misses" in argv:
        for r in rows:
            if r.get("category") == "temporal" and float(r["recall@5"]) < 1:
                print(
                    f"{shape_of(r['question'], str(r['answer']))} | {r['conversation']} | {r['question']} -> {r['answer']}"
                )


if __name__ == "__main__":
    main(sys.argv[1:])
