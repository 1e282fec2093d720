"""Issue 27: the learned forget-target matcher (remnant.understand.forget_model). Its weights, how
it reads the stored vectors, and through Memory(path) with the product's embedder (e5-small) on
SQLite and PostgreSQL: where the rules read no target it takes the memory meant, and nothing else;
the exact-shape guard holds; ``learned=False`` leaves the rules alone; cost stays bounded."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import remnant
from remnant.core.clock import ManualClock
from remnant.core.model import Status
from remnant.engine.forgetting.requests import forget_request
from remnant.understand import forget_model
from remnant.understand.forget_model import FEATURES, TargetWeights

MODEL = "multilingual-e5-small-q4"


def _weights(**kw: object) -> TargetWeights:
    n = len(FEATURES)
    base: dict[str, object] = dict(
        model_id="m",
        features=FEATURES,
        mean=np.zeros(n),
        scale=np.ones(n),
        weights=np.zeros(n),
        bias=0.0,
        add_at=0.5,
        veto_at=None,
        candidates=8,
        meta={},
        blocks=(),
        dim=4,
    )
    base.update(kw)
    return TargetWeights(**base)  # type: ignore[arg-type]


def test_weights_round_trip_and_stale_ones_are_refused() -> None:
    w = _weights(lead=0.2, veto="word_only", veto_at=0.1)
    back = TargetWeights.from_json(json.loads(json.dumps(w.to_json())))
    assert back.add_at == 0.5 and back.lead == 0.2 and back.veto == "word_only" and back.dim == 4
    raw = w.to_json()
    raw["features"] = raw["features"][:-1]
    with pytest.raises(ValueError, match="refit"):
        TargetWeights.from_json(raw)


def test_a_context_pair_is_read_as_its_own_half() -> None:
    """A stored ``<model>+mix<beta>`` vector is [(1 - beta) e(own), beta e(context)]: the model
    reads e(own); a vector of another size is an error the engine treats as "no model"."""
    w = _weights()
    own = np.array([[1.0, 2.0, 3.0, 4.0]])
    pair = np.hstack([0.5 * own, np.array([[9.0, 9.0, 9.0, 9.0]])])
    assert np.allclose(w.own(pair), 0.5 * own) and np.allclose(w.own(own), own)
    with pytest.raises(ValueError):
        w.own(np.ones((1, 5)))


def test_the_shipped_weights_say_how_they_were_chosen() -> None:
    w = forget_model.load_weights(MODEL)
    assert w is not None, "the package ships weights for e5-small"
    assert set(w.meta["corpora"]) == {"forget_c1.jsonl", "forget_c2.jsonl", "forget_c3.jsonl"}
    assert "leave_one_author_out" in w.meta and 0.0 < w.add_at < 1.0


def _e5() -> object:
    from remnant.embed.registry import get_embedder

    try:
        return get_embedder("e5-small", threads=1)
    except Exception as exc:  # the model is an optional extra
        pytest.skip(f"e5-small not installed: {exc}")


@pytest.fixture(params=["sqlite", "postgres"])
def e5_mem(request: pytest.FixtureRequest, tmp_path: Path, clock: ManualClock) -> Iterator[remnant.Memory]:
    """The product's memory with the product's embedder, on each backend, values readable."""
    from remnant.retrieval import HybridRetriever

    embedder = _e5()
    url = str(tmp_path / "r.db") if request.param == "sqlite" else str(request.getfixturevalue("pg_url"))
    with remnant.Memory(url, clock=clock, redactor=None, retriever=HybridRetriever(embedder)) as m:
        yield m


def _visible(mem: remnant.Memory, user: str) -> dict[str, str]:
    statuses = [s for s in Status if s != Status.HIDDEN]
    return {r.id: r.content for r in mem.list_memories(user, statuses=statuses, limit=1000)}


TURNS = [
    "we're going camping in the lake district in july",
    "i've been seeing a therapist for my panic attacks since march",
    "i work as a barista at a cafe on king street",
    "my cat mochi is three and hates the vacuum",
    "my brother just started at uni in york",
]


def test_the_learned_matcher_takes_what_the_rules_miss_on_every_backend(
    e5_mem: remnant.Memory, clock: ManualClock
) -> None:
    mem = e5_mem
    ids = []
    for t in TURNS:
        ids.append(mem.remember(t, user_id="u").id)
        clock.advance(days=1)
    request = "forget my holiday plans"
    assert (
        forget_request(mem.ledger, request, user_id="u", dry_run=True, learned=False, meaning=None).count == 0
    )
    out = mem.forget(request, user_id="u", dry_run=True)
    assert [m.id for m in out.matches] == [ids[0]]
    assert out.matches[0].why.startswith("learned matcher")
    before = _visible(mem, "u")
    mem.forget(request, user_id="u")
    after = _visible(mem, "u")
    assert ids[0] not in after
    assert all(after[i] == before[i] for i in ids[1:])


def test_an_exact_reading_that_finds_nothing_is_never_guessed_beside(
    e5_mem: remnant.Memory, clock: ManualClock
) -> None:
    """A type of personal data stored nowhere, a time scope with nothing said in it: the rules'
    reading is exact, so the learned matcher takes nothing."""
    mem = e5_mem
    for t in [*TURNS, "my phone keeps dying, the battery is shot"]:
        mem.remember(t, user_id="u")
    clock.advance(days=5)
    assert mem.forget("forget my phone number", user_id="u", dry_run=True).count == 0
    assert mem.forget("忘记我的电话号码", user_id="u", dry_run=True).count == 0
    assert (
        mem.forget("forget what I told you yesterday about my holiday", user_id="u", dry_run=True).count == 0
    )


def test_the_learned_path_stays_bounded_on_long_input(e5_mem: remnant.Memory) -> None:
    """A 100,000-character memory of digits and spaces, then a request the rules read nothing for:
    the model judges a bounded number of candidates, each in one pass (a generous budget)."""
    mem = e5_mem
    for t in TURNS:
        mem.remember(t, user_id="long")
    mem.remember(("1234 5678 " * 10_000)[:100_000], user_id="long")
    began = time.monotonic()
    mem.forget("forget my holiday plans", user_id="long", dry_run=True)
    assert time.monotonic() - began < 60.0
