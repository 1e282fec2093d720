"""The relevance floor's salient bar: what the salience model judged important gets a lower bar
than the absolute one, so a change said in other words than the question's is found ("which city
does the user live in?" finds the turn about unpacking in a bungalow in another city), while filler
stays under the floor. The rule on its own, then through ``remnant.Memory(path)`` with the
product's defaults (e5-small, the salience model, the learned ranker, the floor)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from tests.retrieval.conftest import days

from remnant import ManualClock, Memory
from remnant.core.errors import ValidationError
from remnant.retrieval import HybridRetriever, RelevanceFloor
from remnant.retrieval.floor import DEFAULT_FLOOR

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_an_important_candidate_needs_only_the_salient_bar() -> None:
    ranked = [("a", 0.6), ("move", 0.0015), ("meme", 0.0015), ("noise", 0.0002)]
    floor = RelevanceFloor(absolute=0.0025, salient_at=0.9, salient=0.001)
    importance = {"a": 0.5, "move": 0.95, "meme": 0.4, "noise": 0.99}
    assert floor.apply(ranked, importance=importance) == ([("a", 0.6), ("move", 0.0015)], ["meme", "noise"])
    # no importance given, or no salient bar: the absolute bar alone
    assert floor.apply(ranked) == ([("a", 0.6)], ["move", "meme", "noise"])
    assert RelevanceFloor(absolute=0.0025).apply(ranked, importance=importance)[0] == [("a", 0.6)]
    # never above the absolute bar, and none on scores that are not the learned ranker's
    assert RelevanceFloor(absolute=0.001, salient_at=0.9, salient=0.002).apply(
        [("x", 0.0015)], importance={"x": 0.95}
    ) == ([("x", 0.0015)], [])
    assert floor.apply(ranked, absolute=False, importance=importance) == (ranked, [])
    with pytest.raises(ValidationError):
        RelevanceFloor(absolute=0.0025, salient_at=1.5, salient=0.001)


def test_the_default_floor_has_the_salient_bar_and_the_setting_keeps_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert DEFAULT_FLOOR.salient_at is not None and 0 < DEFAULT_FLOOR.salient < DEFAULT_FLOOR.absolute
    monkeypatch.setenv("REMNANT_RELEVANCE_FLOOR", "0, 0.01")
    floor = HybridRetriever(None).relevance_floor
    assert floor is not None and floor.absolute == 0.01 and floor.salient_at == DEFAULT_FLOOR.salient_at


# -- the product ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("before", "after", "question", "value"),
    [
        (
            "我在医院当护士，倒班特别累",
            "跳槽了！现在在一家物流公司做调度，朝九晚五，舒服多了",
            "用户的工作是什么",
            "物流",
        ),
        (
            "i do netball every thursday night",
            "switching to swimming for cardio since no netball for a while",
            "what exercise does the user do",
            "swimming",
        ),
    ],
)
def test_a_change_said_in_other_words_is_found_and_filler_is_not(
    product: tuple[Memory, ManualClock], before: str, after: str, question: str, value: str
) -> None:
    mem, clock = product
    mem.add({"role": "user", "content": before}, user_id="joan")
    mem.add({"role": "user", "content": "haha just saw a video of a goat on a trampoline"}, user_id="joan")
    days(mem, clock, 20)
    mem.add({"role": "user", "content": after}, user_id="joan")
    days(mem, clock, 10)
    trace = mem.retriever.explain(mem.ledger, question, mem.recall_filter("joan"), 10)
    score = {mem.get(i).content: s for i, s in trace.relevance.items()}
    # the new value is under the absolute bar, over the salient one, and important
    assert DEFAULT_FLOOR.salient <= score[after] < DEFAULT_FLOOR.absolute
    got = [h.memory.content for h in mem.recall(question, user_id="joan").hits]
    assert any(value in t for t in got)
    assert not any("goat" in t for t in got)
