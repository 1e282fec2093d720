"""Two processes writing to one SQLite file lose nothing."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

from remnant.engine import Memory


def _writer(path: str, user: str, n: int) -> None:
    with Memory(path) as m:
        for i in range(n):
            m.remember(f"{user} note number {i}", user_id=user, key=f"k{i % 7}" if i % 3 == 0 else None)
            if i % 10 == 0:
                m.recall("note", user_id=user, limit=3)


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
