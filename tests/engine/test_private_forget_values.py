"""With the privacy layer on (``Memory(path)``'s default) each write numbers its values afresh:
the turn says ``[PHONE_1]`` and the fact drawn from it ``[PHONE_2]`` for the same number. A
request that forgets the number in the turn takes it from the fact too (by the vault's originals,
not the placeholders' spelling). The turn is one of round 3's development timelines (t3-026)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from remnant import Memory
from remnant.core.clock import ManualClock
from remnant.core.model import Status

NUMBER = "138 0013 6659"


@pytest.mark.usefixtures("product_defaults")
def test_a_forgotten_number_leaves_no_placeholder_of_it_in_the_turns_fact(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", clock=ManualClock(datetime(2026, 3, 2, 9, tzinfo=UTC))) as mem:
        assert mem.redactor is not None
        mem.add([{"role": "user", "content": f"我老公叫阿伟，佢手机系 {NUMBER}，有急事打佢"}], user_id="ling")
        held = [r for r in mem.list_memories(user_id="ling", limit=50) if NUMBER in mem.rehydrate(r.id)]
        assert len(held) >= 2, "the turn and its fact both hold the number (else this proves nothing)"
        assert len({r.content for r in held}) == 2  # under two placeholders
        mem.forget("把我老公的电话删掉吧", user_id="ling", confirm=True)
        rows = mem.list_memories(user_id="ling", statuses=list(Status), limit=50)
        assert not any(NUMBER in mem.rehydrate(r.id) for r in rows)
        assert any("阿伟" in r.content for r in rows if r.status == Status.ACTIVE)  # the rest of the turn
