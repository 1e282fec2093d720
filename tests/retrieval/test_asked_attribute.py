"""The asked attribute: a candidate that states the attribute the question asks about is kept by the
relevance floor, however few of the question's words it shares ("which city does the user live
in?" finds the turn about unpacking in a bungalow in another city). The rule on its own, then
through ``remnant.Memory(path)`` with the product's defaults (e5-small, the learned ranker, the
floor)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from remnant import ManualClock, Memory
from remnant.embed.base import EmbedderUnavailable
from remnant.embed.registry import get_embedder
from remnant.retrieval.floor import RelevanceFloor
from remnant.understand.attribute_model import Centroids, stating

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _centroids() -> Centroids:
    # three attributes on the axes of a 3-d space, no shared centre
    return Centroids(
        model_id="toy",
        names=("city", "diet", "other"),
        matrix=np.eye(3),
        center=np.zeros(3),
        supersede_margin=0.1,
        flag_margin=0.0,
        meta={},
    )


def test_stating_keeps_the_candidates_of_the_asked_attribute() -> None:
    c = _centroids()
    candidates = {"exeter": [0.9, 0.1, 0.0], "vegan": [0.1, 0.9, 0.0], "meme": [0.2, 0.0, 0.9]}
    city = c.classify([1.0, 0.2, 0.0])[0]
    assert city[0] == "city"
    assert stating(c, city, candidates) == {"exeter"}
    assert stating(c, c.classify([0.1, 1.0, 0.0])[0], candidates) == {"vegan"}
    # a question about nothing the classifier knows, or one it is unsure of, keeps nothing
    assert stating(c, c.classify([0.0, 0.0, 1.0])[0], candidates) == set()
    assert stating(c, c.classify([1.0, 0.95, 0.0])[0], candidates, margin=0.2) == set()
    assert stating(c, city, {}) == set() and stating(c, None, candidates) == set()
    # a candidate the classifier is unsure of, under a bar on its own lead
    assert stating(c, city, {"near": [0.5, 0.45, 0.0]}, stated=0.2) == set()


def test_the_floor_keeps_what_it_is_told_to_and_drops_the_rest() -> None:
    ranked = [("a", 0.6), ("b", 0.2), ("c", 0.001), ("d", 0.0005)]
    floor = RelevanceFloor(absolute=0.0025)
    assert floor.under(ranked) == ["c", "d"]
    assert floor.apply(ranked, keep={"d"}) == ([("a", 0.6), ("b", 0.2), ("d", 0.0005)], ["c"])
    assert floor.apply(ranked) == (ranked[:2], ["c", "d"])


# -- the product ---------------------------------------------------------------------------------
@pytest.fixture
def product(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Memory, ManualClock]]:
    try:
        get_embedder("e5-small", threads=1)
    except EmbedderUnavailable as exc:  # pragma: no cover - the model ships with the package
        pytest.skip(f"e5-small not installed: {exc}")
    monkeypatch.setenv("REMNANT_EMBEDDER", "e5-small")
    monkeypatch.setenv("REMNANT_SALIENCE", "model")
    monkeypatch.setenv("REMNANT_PRIVACY", "off")
    monkeypatch.delenv("REMNANT_RELEVANCE_FLOOR", raising=False)
    clock = ManualClock(T0)
    mem = Memory(tmp_path / "m.db", clock=clock)
    try:
        yield mem, clock
    finally:
        mem.close()


def _days(mem: Memory, clock: ManualClock, days: int) -> None:
    for _ in range(days):
        clock.advance(timedelta(days=1))
        mem.sweep()


def test_a_move_said_in_other_words_is_found_for_the_city_question(
    product: tuple[Memory, ManualClock],
) -> None:
    mem, clock = product
    mem.add({"role": "user", "content": "I live in Bristol, near the harbour"}, user_id="joan")
    _days(mem, clock, 30)
    mem.add(
        {"role": "user", "content": "we finally unpacked the last boxes in our little bungalow in Exeter"},
        user_id="joan",
    )
    _days(mem, clock, 10)
    got = [h.memory.content for h in mem.recall("which city does the user live in", user_id="joan").hits]
    assert any("Exeter" in t for t in got)
    # the floor still holds for what states nothing of the kind
    mem.add({"role": "user", "content": "haha just saw a video of a goat on a trampoline"}, user_id="joan")
    got = [h.memory.content for h in mem.recall("which city does the user live in", user_id="joan").hits]
    assert not any("goat" in t for t in got)
