"""Recall answers the current state with the privacy layer on (``Memory(path)``'s default), where
each write numbers its values afresh: "换号啦 … 新的是 [PHONE_3]" replaces both the old turn's
copy and its fact (``用户的手机号：[PHONE_2]``), so the old number is not offered beside the new."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant import Memory
from remnant.core.clock import ManualClock


@pytest.mark.usefixtures("product_defaults")
def test_a_changed_number_is_the_only_one_recall_offers(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2026, 3, 2, 9, tzinfo=UTC))
    with Memory(tmp_path / "m.db", clock=clock) as mem:
        assert mem.redactor is not None
        for days, turn in [
            (3, "我的手机号是135 1234 5678，有事打我"),
            (6, "今天加班到九点 累死"),
            (11, "换号啦 旧的那个不用了，新的是186 8765 4321，以后就用这个"),
        ]:
            mem.add([{"role": "user", "content": turn}], user_id="xiao")
            clock.advance(timedelta(days=days))
        mem.sweep()
        shown = [
            mem.rehydrate(h.memory.id) for h in mem.recall("我的手机号是多少", user_id="xiao", touch=False)
        ]
        assert shown and "186 8765 4321" in shown[0]
        assert not any("135 1234 5678" in s for s in shown)
