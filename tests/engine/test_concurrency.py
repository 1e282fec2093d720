"""Two processes writing to one SQLite file lose nothing."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

import pytest

from remnant.engine import Memory


def _writer(path: str, user: str, n: int) -> None:
    with Memory(path) as m:
        for i in range(n):
            m.remember(f"{user} note number {i}", user_id=user, key=f"k{i % 7}" if i % 3 == 0 else None)
            if i % 10 == 0:
                m.recall("note", user_id=user, limit=3)


@pytest.mark.slow
def test_two_processes_writing_one_file_lose_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    Memory(path).close()  # create and migrate once
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, user, 120)) for user in ("ana", "bob")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    with Memory(path) as m:
        for user in ("ana", "bob"):
            assert m.stats(user)["total"] == 120
            # exactly one active memory per key survived supersession
            for k in range(7):
                assert len(m.list_memories(user, key=f"k{k}", statuses=["active"])) == 1
        assert m.verify_audit().ok


def test_erasure_with_hybrid_recall_finishes_and_the_lock_holder_is_known(tmp_path: Path) -> None:
    # erasure holds the store's lock (exclusive(), no transaction) while it probes recall; hybrid
    # recall's vector half ran on a helper thread whose search could write a completeness mark,
    # which needs that lock: the two waited on each other forever. The mem0 routes' tests
    # (tests/server/test_server_mem0.py) reproduce that order of writes; this checks the seam
    # the fix rests on: holds_lock() is true inside exclusive(), so helpers are not used there.
    import threading

    from remnant.embed import get_embedder
    from remnant.engine import Memory
    from remnant.retrieval import HybridRetriever

    mem = Memory(tmp_path / "lock.db", retriever=HybridRetriever(get_embedder("static")))
    texts = ["the deploy runs on Fridays", "the office plant needs water", "note two"]
    for text in texts:
        mem.remember(text, user_id="dan")  # the tenant keeps memories after the erasure
    mem.recall("deploy", user_id="dan")  # marks the vectors complete up to dan's newest
    for text in texts:
        mem.remember(text, user_id="carol")
    mem.recall("deploy", user_id="carol")  # now up to carol's newest, which the erasure purges
    done: list[object] = []
    worker = threading.Thread(target=lambda: done.append(mem.erase_user("carol")), daemon=True)
    worker.start()
    worker.join(60)
    assert done, "erase_user did not finish: a helper thread waited on the lock its caller holds"
    assert mem.store.holds_lock() is False
    with mem.store.exclusive():
        assert mem.store.holds_lock() is True
    mem.close()
