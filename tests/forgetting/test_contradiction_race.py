"""The contradiction check judged before the write lock stays consistent with writes that land meanwhile.

A write searches and judges its candidates on a read connection, then re-checks under the lock
what changed since (candidates superseded or rewritten, memories written meanwhile). These tests put
a real, committed write from another thread between the two steps.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from remnant.core.clock import ManualClock
from remnant.core.model import Status
from remnant.engine.forgetting.contradictions import ContradictionPolicy
from remnant.engine.memory import Memory

if TYPE_CHECKING:
    from remnant.engine.ledger import Ledger


@dataclass(frozen=True)
class RacedPolicy(ContradictionPolicy):
    """Runs each queued racer (in its own thread, to completion) after the early judgement."""

    racers: list[Callable[[], object]] = field(default_factory=list)

    @contextmanager
    def prejudged(
        self, ledger: Ledger, items: Sequence[tuple[str | None, str, Mapping[str, object]]]
    ) -> Iterator[None]:
        with super().prejudged(ledger, items):
            if self.racers and items:
                racer = self.racers.pop()
                t = threading.Thread(target=racer)
                t.start()
                t.join()
            yield


def test_a_write_landing_first_is_superseded_not_the_memory_it_already_superseded(
    db_path: Path, clock: ManualClock
) -> None:
    policy = RacedPolicy(mode="auto")
    mem = Memory(db_path, clock=clock, contradictions=policy)
    old = mem.remember("I live in Berlin", user_id="ana")
    clock.advance(days=1)
    landed: list[str] = []
    policy.racers.append(lambda: landed.append(mem.remember("I live in Paris", user_id="ana").id))
    # judged before the lock: Berlin is the candidate; Paris lands, superseding Berlin, before the lock
    last = mem.remember("I live in Rome", user_id="ana")
    (paris,) = landed
    got_old, got_paris = mem.get(old.id), mem.get(paris)
    assert got_old.status == Status.SUPERSEDED and got_old.superseded_by == paris  # not re-superseded
    assert got_paris.status == Status.SUPERSEDED and got_paris.superseded_by == last.id
    assert last.metadata["supersedes"] == [paris]
    assert mem.get(last.id).status == Status.ACTIVE
    # what a check run entirely under the lock, one write after the other, would have left
    active = [r.content for r in mem.store.query(mem.ledger.filter("ana", statuses=(Status.ACTIVE,)))]
    assert active == ["I live in Rome"]
    supersedes = [e for e in mem.audit_log() if e.policy == "contradiction"]
    assert [e.memory_ids for e in supersedes] == [(old.id,), (paris,)]  # each superseded once
    mem.close()


def test_a_candidate_rewritten_meanwhile_is_judged_again(db_path: Path, clock: ManualClock) -> None:
    policy = RacedPolicy(mode="auto")
    mem = Memory(db_path, clock=clock, contradictions=policy)
    old = mem.remember("I live in Berlin", user_id="ana")
    policy.racers.append(lambda: mem.update(old.id, content="I like green tea"))
    new = mem.remember("I live in Paris", user_id="ana")
    assert mem.get(old.id).status == Status.ACTIVE  # judged on its new text: unrelated
    assert "supersedes" not in new.metadata
    mem.close()


def test_a_candidate_forgotten_meanwhile_is_left_alone(db_path: Path, clock: ManualClock) -> None:
    policy = RacedPolicy(mode="flag")
    mem = Memory(db_path, clock=clock, contradictions=policy)
    old = mem.remember("I live in Berlin", user_id="ana")
    policy.racers.append(lambda: mem.forget_ids([old.id]))
    new = mem.remember("I live in Paris", user_id="ana")
    assert "contradicts" not in new.metadata
    assert "contradicted_by" not in mem.store.get(old.id, tenant=mem.ledger.tenant).metadata  # type: ignore[union-attr]
    mem.close()


def test_racing_flags_on_one_memory_keep_both(db_path: Path, clock: ManualClock) -> None:
    policy = RacedPolicy(mode="flag")
    mem = Memory(db_path, clock=clock, contradictions=policy)
    old = mem.remember("I live in Berlin", user_id="ana")
    landed: list[str] = []
    policy.racers.append(lambda: landed.append(mem.remember("I live in Paris", user_id="ana").id))
    last = mem.remember("I live in Rome", user_id="ana")
    assert mem.get(old.id).metadata["contradicted_by"] == [landed[0], last.id]
    assert set(last.metadata["contradicts"]) == {old.id, landed[0]}  # the racer is seen too
    mem.close()


def test_threads_writing_contradictions_at_once_leave_one_current_value(
    db_path: Path, clock: ManualClock
) -> None:
    mem = Memory(db_path, clock=clock)  # the default policy: the reader is sure of a city
    mem.remember("I live in Berlin", user_id="ana")
    cities = ["Paris", "Rome", "Madrid", "Vienna", "Lisbon", "Oslo", "Prague", "Dublin"]
    start = threading.Barrier(len(cities))

    def write(city: str) -> None:
        start.wait()
        mem.remember(f"I live in {city}", user_id="ana")

    threads = [threading.Thread(target=write, args=(c,)) for c in cities]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows = mem.store.query(mem.ledger.filter("ana", statuses=None))
    active = [r for r in rows if r.status == Status.ACTIVE]
    assert len(active) == 1 and len(rows) == len(cities) + 1
    # a chain: every superseded memory was superseded exactly once, by a newer one
    by_id = {r.id: r for r in rows}
    for r in rows:
        if r.status == Status.SUPERSEDED:
            assert r.superseded_by in by_id
    mem.close()
