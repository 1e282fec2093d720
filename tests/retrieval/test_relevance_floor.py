"""The relevance floor: recall returns nothing rather than something unrelated, filler said weeks
ago does not fill the list for an unrelated question, and what mattered is still found (through
``remnant.Memory(path)`` with the product's defaults: e5-small, the salience model, the learned
ranker). Also the floor's own rule and its setting, and the consolidation of a turn whose
extracted facts kept only a part of it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from tests.retrieval.conftest import days

from remnant import ManualClock, Memory
from remnant.core.errors import ValidationError
from remnant.embed.registry import get_embedder
from remnant.engine.forgetting.consolidation import carried
from remnant.retrieval import HybridRetriever, RelevanceFloor
from remnant.retrieval.floor import DEFAULT_FLOOR, OFF, floor_from_env

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


# -- the rule ------------------------------------------------------------------------------------
def test_the_floor_drops_what_is_far_below_the_best_or_under_the_absolute_bar() -> None:
    ranked = [("a", 0.6), ("b", 0.2), ("c", 0.01), ("d", 0.001)]
    assert RelevanceFloor(relative=0.1).apply(ranked) == ([("a", 0.6), ("b", 0.2)], ["c", "d"])
    assert RelevanceFloor(absolute=0.005).apply(ranked) == (ranked[:3], ["d"])
    # the absolute bar is on the learned ranker's score only (fused relevance is min-max scaled)
    assert RelevanceFloor(absolute=0.5).apply(ranked, absolute=False) == (ranked, [])
    # nothing above the bar: nothing comes back
    assert RelevanceFloor(absolute=0.9).apply(ranked) == ([], ["a", "b", "c", "d"])
    assert OFF.apply(ranked) == (ranked, []) and OFF.off


def test_the_setting_reads_off_a_relative_floor_or_both(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REMNANT_RELEVANCE_FLOOR", raising=False)
    assert floor_from_env() == DEFAULT_FLOOR
    monkeypatch.setenv("REMNANT_RELEVANCE_FLOOR", "off")
    assert floor_from_env().off
    assert HybridRetriever(None).relevance_floor is None
    monkeypatch.setenv("REMNANT_RELEVANCE_FLOOR", "0.05")
    # the setting names the two bars; the salient bar (test_floor_salient.py) stays the default's
    salient = {"salient_at": DEFAULT_FLOOR.salient_at, "salient": DEFAULT_FLOOR.salient}
    assert floor_from_env() == RelevanceFloor(0.05, DEFAULT_FLOOR.absolute, **salient)
    monkeypatch.setenv("REMNANT_RELEVANCE_FLOOR", "0.05, 0.01")
    assert floor_from_env() == RelevanceFloor(0.05, 0.01, **salient)
    assert HybridRetriever(None).relevance_floor == RelevanceFloor(0.05, 0.01, **salient)
    for bad in ("high", "0.1,0.2,0.3", "1.5"):
        monkeypatch.setenv("REMNANT_RELEVANCE_FLOOR", bad)
        with pytest.raises(ValidationError):
            floor_from_env()


def test_a_turn_is_carried_only_by_facts_that_hold_most_of_it() -> None:
    turn = "my nephew is called Bartholomew, he turns 7 in June"
    assert not carried(turn, [])  # no facts (or they are gone): consolidate it
    assert not carried(turn, ["User: he turns 7"])  # the age without the name
    assert carried(turn, ["User's nephew: Bartholomew, turns 7 in June"])
    assert not carried("我对花生过敏，记得提醒我", ["提醒用户：记得"])


# -- the product ---------------------------------------------------------------------------------
def _said(mem: Memory, text: str) -> None:
    mem.add({"role": "user", "content": text}, user_id="rosa")


def test_filler_said_weeks_ago_is_not_offered_and_what_mattered_still_is(
    product: tuple[Memory, ManualClock],
) -> None:
    mem, clock = product
    _said(mem, "ugh the tram was packed again this morning")
    _said(mem, "btw I'm allergic to penicillin, it gives me hives, remind me to tell the dentist")
    days(mem, clock, 1)
    _said(mem, "haha just saw a video of a goat on a trampoline")
    days(mem, clock, 2)
    _said(mem, "my granddaughter is called Esperanza, she's 6")
    days(mem, clock, 30)
    allergy = [h.memory.content for h in mem.recall("what is rosa allergic to", user_id="rosa").hits]
    assert any("penicillin" in t for t in allergy)
    assert not any("goat" in t or "tram" in t for t in allergy)
    family = [h.memory.content for h in mem.recall("rosa's granddaughter", user_id="rosa").hits]
    assert any("Esperanza" in t for t in family)
    assert not any("goat" in t or "tram" in t for t in family)


def test_recall_returns_nothing_rather_than_something_unrelated(
    product: tuple[Memory, ManualClock],
) -> None:
    mem, _ = product
    _said(mem, "ugh the tram was packed again this morning")
    _said(mem, "haha just saw a video of a goat on a trampoline")
    assert mem.recall("what is rosa's blood type", user_id="rosa", hints=False).hits == []
    assert mem.recall("where does rosa work", user_id="rosa", hints=False).hits == []


def test_filler_does_not_pad_the_list_under_a_real_answer(product: tuple[Memory, ManualClock]) -> None:
    mem, clock = product
    for text in ("我对花生过敏，吃了会起疹子", "刚喝了一杯奶茶，好甜", "楼上邻居又在装修，吵死了"):
        _said(mem, text)
    # e5-small's similarities between unrelated Chinese sentences are high (about 0.82-0.85): the
    # vector floor lets the chit-chat through, the relevance floor does not
    got = [h.memory.content for h in mem.recall("她对什么过敏", user_id="rosa", hints=False).hits]
    assert got == ["我对花生过敏，吃了会起疹子"]
    bare = Memory(
        store=mem.store,
        clock=clock,
        retriever=HybridRetriever(get_embedder("e5-small", threads=1), relevance_floor=OFF),
    )
    padded = [h.memory.content for h in bare.recall("她对什么过敏", user_id="rosa", hints=False).hits]
    assert padded[0] == "我对花生过敏，吃了会起疹子" and len(padded) == 3
