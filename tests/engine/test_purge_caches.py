"""Deleted stays deleted in process memory: the readers' caches drop a purged memory's text.

The product's readers memoise per text (a statement's reading, a word's stem, a pair's
probability, a text's vector). After a purge, a rewrite or an erasure none of them may still hold
the text (remnant.core.memo): only the process that wrote it ever had it, and now not even that.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from remnant import Memory
from remnant.core import memo
from remnant.core.clock import ManualClock

SECRET = "my locker code at the gym is zanzibar 4471 and i keep my spare key there"


def _fill(mem: Memory) -> str:
    mem.add({"role": "user", "content": "i work as a nurse at st mary's"}, user_id="ana")
    out = mem.add({"role": "user", "content": SECRET}, user_id="ana")
    mem.add({"role": "user", "content": "i moved to leeds last month"}, user_id="ana")
    # recall reads and scores the hits: the pair judge and the embedder's LRU now hold them
    mem.recall("what is the locker code", user_id="ana", limit=5)
    turn = next(r for r in out.memories if r.content == SECRET)
    return turn.id


@pytest.mark.usefixtures("product_defaults")
def test_a_purged_turn_leaves_no_reader_cache_holding_it(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", clock=ManualClock()) as mem:
        mid = _fill(mem)
        assert memo.holding([SECRET]), "the readers cache the turn they read (else this test proves nothing)"
        derived = [r.content for r in mem.list_memories("ana") if "zanzibar" in r.content]
        mem.purge([r.id for r in mem.list_memories("ana") if "zanzibar" in r.content] + [mid])
        assert memo.holding([SECRET, *derived]) == []
        # the product still works after its caches were emptied
        assert mem.recall("where does ana work", user_id="ana", limit=3).hits


@pytest.mark.usefixtures("product_defaults")
def test_erasure_leaves_no_reader_cache_holding_the_users_text(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", clock=ManualClock()) as mem:
        _fill(mem)
        texts = [r.content for r in mem.list_memories("ana")]
        report = mem.erase_user("ana")
        assert report.checks["process_caches"] == 0 and report.verified
        assert memo.holding(texts) == []


def test_forget_empties_the_function_caches() -> None:
    from remnant.understand import attributes

    attributes.read("i live in berlin")
    assert attributes.read.cache_info().currsize > 0  # type: ignore[attr-defined]
    memo.forget(["i live in berlin"])
    assert attributes.read.cache_info().currsize == 0  # type: ignore[attr-defined]
