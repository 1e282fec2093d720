"""Stale turns stop answering and recall answers the current state (issue 27), through the product
(``remnant.Memory``) on SQLite and PostgreSQL.

When a keyed value is superseded, the turn that stated it is superseded too (or, when it still
carries another current claim, stays active with the slot under ``metadata["stale_keys"]``);
``as_of``, ``include_stale`` and ``history(turns=True)`` still reach it, labelled ``Hit.earlier``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from tests.engine.conftest import OpenMemory

from remnant import Memory
from remnant.core.clock import ManualClock
from remnant.core.model import Status

NOW = datetime(2026, 3, 2, 9, tzinfo=UTC)


def said(mem: Memory, clock: ManualClock, user: str, *turns: str) -> list[str]:
    ids = []
    for text in turns:
        ids.append(mem.add([{"role": "user", "content": text}], user_id=user).episodes[0].id)
        clock.advance(timedelta(days=1))
    return ids


def texts(mem: Memory, query: str, user: str, **kw: object) -> list[str]:
    return [h.memory.content for h in mem.recall(query, user_id=user, touch=False, **kw)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("old", "new", "question", "old_word", "new_word"),
    [
        ("I live in Berlin.", "I moved to Paris.", "which city does the user live in?", "Berlin", "Paris"),
        ("我住在北京", "我搬到成都了", "用户住在哪个城市？", "北京", "成都"),
    ],
)
def test_the_turn_that_stated_a_superseded_value_stops_answering(
    open_mem: OpenMemory, old: str, new: str, question: str, old_word: str, new_word: str
) -> None:
    clock = ManualClock(NOW)
    mem = open_mem(clock)
    before = clock.now()
    old_turn, new_turn = said(mem, clock, "ana", old, new)
    current = mem.current("city", user_id="ana")
    assert current is not None and new_word in current.content

    got = texts(mem, question, "ana")
    assert got and new_word in got[0]
    assert not any(old_word in t for t in got), got
    stale = mem.get(old_turn)
    assert stale.status == Status.SUPERSEDED and stale.superseded_by == current.id
    assert mem.get(new_turn).status == Status.ACTIVE

    # still reachable, and labelled as earlier when shown
    shown = mem.recall(f"{question} {old_word}", user_id="ana", touch=False, include_stale=True).hits
    earlier = [h for h in shown if h.earlier]
    assert old_turn in {h.memory.id for h in earlier}, [
        (h.memory.content, h.memory.status, h.earlier) for h in shown
    ]
    assert not shown[0].earlier and new_word in shown[0].memory.content
    assert all(not h.earlier for h in shown[: len(shown) - len(earlier)])  # current ones first
    then = mem.recall(old_word, user_id="ana", touch=False, as_of=before + timedelta(hours=12)).hits
    assert old_turn in {h.memory.id for h in then}
    history = mem.history("city", user_id="ana", turns=True)
    assert old_turn in {r.id for r in history} and old_turn not in {
        r.id for r in mem.history("city", user_id="ana")
    }
    assert any(e.policy == "stale_turn" and old_turn in e.memory_ids for e in mem.audit_log(user_id="ana"))


def test_an_email_change_retires_the_turn_with_the_old_address(open_mem: OpenMemory) -> None:
    clock = ManualClock(NOW)
    mem = open_mem(clock)
    old_turn, _ = said(mem, clock, "bo", "my email is bob@oldmail.com", "my new email is bob@newmail.org")
    assert mem.get(old_turn).status == Status.SUPERSEDED
    for hit in mem.recall("what's my email?", user_id="bo", touch=False):
        assert "oldmail" not in mem.rehydrate(hit.memory.id)


def test_a_turn_with_other_current_claims_stays_findable_for_them(open_mem: OpenMemory) -> None:
    clock = ManualClock(NOW)
    mem = open_mem(clock)
    both, _ = said(mem, clock, "cy", "I live in Berlin and I work as a nurse.", "I moved to Paris.")
    turn = mem.get(both)
    assert turn.status == Status.ACTIVE
    assert set(turn.metadata["stale_keys"]) == {"city"}
    assert both in {h.memory.id for h in mem.recall("nurse", user_id="cy", touch=False)}
    hits = mem.recall("which city does the user live in?", user_id="cy", touch=False).hits
    assert "Paris" in hits[0].memory.content and not hits[0].earlier
    for hit in hits:
        if hit.memory.id == both:
            assert hit.earlier  # behind the current value, labelled earlier
    assert both in {r.id for r in mem.history("city", user_id="cy", turns=True)}


def test_the_new_turn_of_a_change_is_never_retired(open_mem: OpenMemory) -> None:
    clock = ManualClock(NOW)
    mem = open_mem(clock)
    (a, b, c) = said(mem, clock, "di", "I live in Rome.", "I moved to Oslo.", "I moved to Lima.")
    assert [mem.get(i).status for i in (a, b, c)] == [Status.SUPERSEDED, Status.SUPERSEDED, Status.ACTIVE]


@pytest.mark.parametrize("question", ["where does the user live?", "where does Ana live?"])
def test_where_does_the_user_live_answers_the_first_person_move(open_mem: OpenMemory, question: str) -> None:
    clock = ManualClock(NOW)
    mem = open_mem(clock)
    said(mem, clock, "ana", "I live in Rome.", "I moved to Berlin")
    got = texts(mem, question, "ana")
    assert got and "Berlin" in got[0]
    assert not any("Rome" in t for t in got), got


def test_same_slot_newest_first_and_older_labelled(open_mem: OpenMemory) -> None:
    """Two live memories on one slot (two agents each keep their own "city"): the newest first, the
    older labelled earlier, whatever the scores."""
    clock = ManualClock(NOW)
    mem = open_mem(clock)
    old = mem.remember("Ana lives in Lisbon, Lisbon, Lisbon", user_id="ana", key="city", agent_id="a1")
    clock.advance(timedelta(days=2))
    new = mem.remember("Ana lives in Porto", user_id="ana", key="city", agent_id="a2")
    hits = mem.recall("where does Ana live? Lisbon", user_id="ana", touch=False).hits
    assert [h.memory.id for h in hits][:2] == [new.id, old.id]
    assert [h.earlier for h in hits][:2] == [False, True]


def test_a_generic_fact_and_its_turn_take_one_slot(open_mem: OpenMemory) -> None:
    clock = ManualClock(NOW)
    mem = open_mem(clock)
    turn = "so i guess i'm a product manager as of this week"
    mem.add([{"role": "user", "content": turn}], user_id="ed")
    got = texts(mem, "what's my job? product manager", "ed")
    assert sum("product manager as of this week" in t for t in got) == 1, got


def test_the_same_value_again_leaves_its_turn_current(open_mem: OpenMemory) -> None:
    """An agent's turn said the city; a later unscoped write says the same city again and supersedes the
    agent's fact by key, but a superseded memory that says what the new one says leaves its turn
    current."""
    clock = ManualClock(NOW)
    mem = open_mem(clock)
    first = mem.add([{"role": "user", "content": "I live in Paris."}], user_id="fi", agent_id="a1")
    clock.advance(timedelta(hours=1))
    again = mem.remember("User lives in Paris", user_id="fi", key="city")
    assert not again.deduplicated
    assert mem.get(first.facts[0].id).status == Status.SUPERSEDED
    assert mem.get(first.episodes[0].id).status == Status.ACTIVE


def test_a_value_derived_from_a_turn_retires_that_turn(open_mem: OpenMemory) -> None:
    """Provenance through ``derived_from`` (a summarizer's or an integration's fact) counts as well as
    ``from_episode``."""
    clock = ManualClock(NOW)
    mem = open_mem(clock)
    turn = mem.remember("we finally settled in Berlin last spring", user_id="gi", kind="episode")
    mem.remember("User lives in Berlin", user_id="gi", key="city", metadata={"derived_from": [turn.id]})
    clock.advance(timedelta(days=1))
    paris = mem.remember("User lives in Paris", user_id="gi", key="city")
    retired = mem.get(turn.id)
    assert retired.status == Status.SUPERSEDED and retired.superseded_by == paris.id
    assert [h.memory.id for h in mem.recall("Berlin", user_id="gi", touch=False)] == []
