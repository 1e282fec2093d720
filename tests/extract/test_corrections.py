"""The correction reader on its own: cases written for it (tests/extract/data/corrections_cases.jsonl,
EN/ZH, corrections and turns that are not), scored for precision and recall, and its bounded cost.

The product path (the corrected value current, the wrong one superseded) is tested through
``remnant.Memory`` in tests/engine/test_corrections.py."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from remnant.core.model import Kind, MemoryRecord
from remnant.extract.corrections import MAX_CHARS, CorrectionReader, languages

CASES = Path(__file__).parent / "data" / "corrections_cases.jsonl"
NOW = datetime(2026, 3, 2, 9, tzinfo=UTC)


def load() -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if "turn" in r]


def memories(said: list[str]) -> list[MemoryRecord]:
    """The turns said before, as the engine hands them to the reader: newest first."""
    out = [
        MemoryRecord(
            id=f"m{i}", user_id="u", content=text, kind=Kind.EPISODE, created_at=NOW + timedelta(hours=i)
        )
        for i, text in enumerate(said)
    ]
    return out[::-1]


def read(case: dict[str, Any]) -> tuple[str, str, str] | None:
    recent = memories(case["said"])
    fix = CorrectionReader().read(case["turn"], recent)
    if fix is None:
        return None
    memory = next(r for r in recent if r.id == fix.memory_id)
    s, e = fix.wrong
    assert case["turn"][fix.right_span[0] : fix.right_span[1]] == fix.right
    assert 0 < fix.confidence <= 1
    return memory.id, memory.content[s:e], fix.right


def test_the_case_file_is_big_enough_and_covers_both_languages() -> None:
    cases = load()
    assert len(cases) >= 40
    assert {c["lang"] for c in cases} == {"en", "zh"} == set(languages())
    assert any(c["wrong"] is None for c in cases) and any(c["wrong"] for c in cases)


def test_precision_and_recall_on_the_cases(capsys: pytest.CaptureFixture[str]) -> None:
    tp = fp = fn = 0
    misses: list[str] = []
    for case in load():
        got = read(case)
        want = (f"m{case['memory']}", case["wrong"], case["right"]) if case["wrong"] else None
        if got is not None and want is not None and got[0] == want[0] and got[1].lower() == want[1].lower():
            ok = got[2].lower() == want[2].lower()
            tp, fp, fn = tp + ok, fp + (not ok), fn + (not ok)
        elif got is not None:
            fp += 1
            fn += want is not None
        else:
            fn += want is not None
        if got != want and not (
            got and want and got[1].lower() == want[1].lower() and got[2].lower() == want[2].lower()
        ):
            misses.append(f"{case['id']}: {case['turn']!r} -> {got} (want {want})")
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    with capsys.disabled():
        print(f"\ncorrections: {len(load())} cases, precision {precision:.3f}, recall {recall:.3f}")
        for m in misses:
            print("  miss", m)
    assert precision >= 0.95, misses
    assert recall >= 0.85, misses


@pytest.mark.parametrize(
    "text",
    [
        "7" * 100_000,
        "1 " * 50_000,
        "三" * 100_000,
        ("I meant 12 not 3 " + "4-5.6 7 " * 3) * 2_500,
        "不是" * 50_000,
        " " * 100_000,
        # names near each other after a marker: the respelling step (one memory of names each)
        "sorry spelled it wrong, its " + "Jaylen Jalen Jaelyn Jaylin " * 3_700,
        "打错字，是" + "陈思彤" * 33_000,
    ],
)
def test_the_reader_is_bounded_on_the_documented_maximum(text: str) -> None:
    """100,000 characters of digits, spaces, CJK numerals and mixed: the reader reads MAX_CHARS of
    the turn and of each of 20 memories as large; budget 2 s on the shared 2-core machine."""
    reader = CorrectionReader()
    recent = [
        MemoryRecord(id=f"m{i}", user_id="u", content=text, kind=Kind.EPISODE, created_at=NOW)
        for i in range(20)
    ]
    start = time.perf_counter()
    reader.might_correct(text)
    reader.read(text, recent)
    assert time.perf_counter() - start < 2.0
    assert MAX_CHARS <= 10_000
