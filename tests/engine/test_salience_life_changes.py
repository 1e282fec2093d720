"""A change of the user's life said while asking the assistant something is kept, through the
product (``remnant.Memory`` with its defaults: e5-small and the trained salience model), and filler
is not (issue 27).

The shipped weights (generated turns and the dev turns only) score the paramedic turn 0.27: it
fades. The fits on the three authors' corpora (``corpora/salience/``) keep it, but cost the
salience suite's held-out salient turns (kept 0.9432 -> 0.8125 and 0.5682;
docs/benchmarks/understanding.md, "The salience reader on three authors' corpora"), so they did
not ship. Strict: weights that pass it must drop the mark."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant import Memory
from remnant.core.clock import ManualClock

T0 = datetime(2026, 5, 4, 8, 30, tzinfo=UTC)

CHANGES = (
    "today was my first shift as a paramedic with the county ambulance service, how do people "
    "cope with the night rotations?",
    "这周开始在一家新的设计公司上班了，第一次开周会要注意什么？",
)
FILLER = (
    "ha, that video of the cat knocking cups off the table is so dumb",
    "哈哈你这个比喻太好笑了",
)


@pytest.fixture
def product(product_defaults: None, tmp_path: Path) -> Iterator[tuple[Memory, ManualClock]]:
    """The product's defaults (conftest's ``product_defaults``)."""
    clock = ManualClock(T0)
    with Memory(tmp_path / "m.db", clock=clock) as mem:
        yield mem, clock


@pytest.mark.xfail(
    strict=True, reason="the shipped salience weights let a change said beside a question fade (issue 27)"
)
def test_a_new_job_said_beside_a_question_is_kept_and_filler_is_not(
    product: tuple[Memory, ManualClock],
) -> None:
    mem, clock = product
    kept = {}
    for text in (*CHANGES, *FILLER):
        episode = mem.add([{"role": "user", "content": text}], user_id="u").episodes[0]
        kept[text] = episode.importance
        clock.advance(timedelta(hours=1))
    for text in CHANGES:
        assert kept[text] >= 0.5, (text, kept[text])
    for text in FILLER:
        assert kept[text] < 0.5, (text, kept[text])
    # a named speaker's turn is read by the spoken head, with the same verdicts
    named = mem.add([{"role": "user", "name": "Noor", "content": CHANGES[0]}], user_id="n").episodes[0]
    assert named.importance >= 0.5
    for _ in range(20):  # twenty days of daily sweeps: the change is consolidated, filler fades
        clock.advance(timedelta(days=1))
        mem.sweep()
    remembered = " | ".join(r.content for r, _ in mem.active("u"))
    assert "paramedic" in remembered and "设计公司" in remembered
    assert "cat knocking cups" not in remembered and "比喻" not in remembered
