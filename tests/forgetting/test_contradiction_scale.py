"""The contradiction check at scale (issue 17): its lexical candidates are bounded (the rarest
terms' rows, then the newest rows of the scope) and it still finds the memory a write contradicts
among 10,000 unrelated ones that share the write's common words."""

from __future__ import annotations

from pathlib import Path

import pytest

from remnant.core.clock import ManualClock
from remnant.engine import Memory
from remnant.engine.forgetting.contradictions import ContradictionPolicy

FILLERS = 10_000


def _fill(path: Path, clock: ManualClock, texts: list[str]) -> None:
    with Memory(path, clock=clock, contradictions=ContradictionPolicy(mode="off")) as bulk:
        for s in range(0, len(texts), 2000):
            bulk.remember_many({"content": t, "user_id": "ana"} for t in texts[s : s + 2000])


@pytest.mark.slow
def test_a_rare_shared_word_finds_an_old_memory_among_10k(tmp_path: Path, clock: ManualClock) -> None:
    path = tmp_path / "scale.db"
    with Memory(path, clock=clock, contradictions=ContradictionPolicy(mode="off")) as first:
        old = first.remember("I have 2 cats", user_id="ana")
    # every filler holds "3", the new statement's other term: far beyond the lexical budget
    _fill(path, clock, [f"3 dogs and 3 birds in garden {i}" for i in range(FILLERS)])
    with Memory(path, clock=clock, contradictions=ContradictionPolicy(mode="flag")) as mem:
        assert mem.store.lexical_budget < FILLERS  # type: ignore[attr-defined]
        new = mem.remember("I have 3 cats", user_id="ana")
        assert new.metadata["contradicts"] == [old.id]


@pytest.mark.slow
def test_a_recent_memory_of_common_words_is_found_among_10k(tmp_path: Path, clock: ManualClock) -> None:
    path = tmp_path / "recent.db"
    _fill(path, clock, [f"we watched a live concert {i}" for i in range(FILLERS)])
    with Memory(path, clock=clock, contradictions=ContradictionPolicy(mode="flag")) as mem:
        old = mem.remember("I live in Berlin", user_id="ana")
        clock.advance(days=1)
        new = mem.remember("I live in Paris", user_id="ana")  # "paris" is new, "live" everywhere
        assert old.id in new.metadata["contradicts"]
