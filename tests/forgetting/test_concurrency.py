"""Two sweeps at once on one file (threads and processes) never apply a change twice."""

from __future__ import annotations

import multiprocessing as mp
import threading
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from remnant.core.clock import ManualClock
from remnant.engine.forgetting.sweep import SweepPolicy
from remnant.engine.memory import Memory

from .conftest import START


def _populate(db: Path) -> list[str]:
    clock = ManualClock(START)
    with Memory(db, clock=clock) as mem:
        items = []
        for i in range(300):
            kind = "episode" if i % 3 else "fact"
            ttl = "1h" if i % 5 == 0 else None
            items.append(
                {
                    "content": f"memory {i} of {kind}s",
                    "user_id": f"u{i % 7}",
                    "kind": kind,
                    "ttl": ttl,
                    "importance": (i % 10) / 10,
                }
            )
        return [r.id for r in mem.remember_many(items)]


def _counts(db: Path) -> tuple[Counter[tuple[str, str]], int, bool]:
    with Memory(db, clock=ManualClock(START + timedelta(days=100))) as mem:
        log = mem.audit_log()
        sweeps = [e for e in log if (e.batch_id or "").startswith("sweep_")]
        per = Counter((e.action, i) for e in sweeps for i in e.memory_ids)
        return per, len(log), mem.verify_audit().ok


def _sweep(db: str, lock: bool, out: list[object] | None = None) -> int:
    clock = ManualClock(START + timedelta(days=100))
    with Memory(db, clock=clock) as mem:
        report = mem.sweep(policy=SweepPolicy(lock=lock, fade_action="purge", faded_grace=timedelta(0)))
        if out is not None:
            out.append(report)
        return report.total


@pytest.mark.slow
def test_threads_with_and_without_the_lease_never_double_apply(tmp_path: Path) -> None:
    for lock in (True, False):
        db = tmp_path / f"t{lock}.db"
        ids = _populate(db)
        reports: list[object] = []
        threads = [threading.Thread(target=_sweep, args=(str(db), lock, reports)) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        per, _, ok = _counts(db)
        assert ok
        assert all(n == 1 for n in per.values()), [k for k, n in per.items() if n > 1]
        # every memory got exactly the changes one sweep would make
        assert {i for (a, i) in per if a == "expire"} == {ids[i] for i in range(0, 300, 5)}
        assert len(reports) == 2
        assert sum(r.total for r in reports) == sum(per.values())  # type: ignore[attr-defined]


def _proc(db: str, start: mp.synchronize.Event, q: mp.Queue) -> None:  # type: ignore[type-arg]
    start.wait()
    q.put(_sweep(db, True))


@pytest.mark.slow
def test_two_processes_on_one_file(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    _populate(db)
    ctx = mp.get_context("spawn")
    start, q = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_proc, args=(str(db), start, q)) for _ in range(2)]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    totals = sorted(q.get(timeout=5) for _ in procs)
    per, _, ok = _counts(db)
    assert ok and all(n == 1 for n in per.values())
    # what the two sweeps reported changing is exactly what was audited, each change once
    assert sum(totals) == sum(per.values()) > 0
    with Memory(db, clock=ManualClock(START + timedelta(days=101))) as mem:
        assert mem.sweep().skipped is None
