"""The claim gate (issue 27: the rules invent facts): a chit-chat turn shaped like a fact (sarcasm,
a wish, someone's saying quoted, a question) keeps its turn and no generic fact; a turn that states
something lasting keeps its facts, and a value of an exact shape stays with the rules."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from remnant import Memory
from remnant.engine.options import Message
from remnant.extract.ingest import RuleIngestor
from remnant.extract.rules import RuleExtractor, exact_shape
from remnant.understand import claim_gate
from remnant.understand.claim_gate import CUES, cue_features, has_filler_cue, load_gate

rules = RuleExtractor()

# each of these makes a generic rule fact without the gate (asserted below), and states nothing lasting
GATED = [
    "i just LOVE when the vpn drops mid-presentation 🙃",
    "my mam always says 'you'll catch your death going out with wet hair' lol",
    "如果我中了五百万，第一件事就是辞职去环游世界",
    "what is a good soup for a cold. my throat is scratchy",
    # the issue's own examples
    "can u explain how compound interest works like i'm 5",
    "imagine living in 1850 with no wifi lol",
    "他开玩笑说“我下周搬到火星”",  # a keyed fact (city), dropped at the stricter threshold
]

KEPT = [
    ("I live in Berlin.", "Berlin"),
    ("I'm retired", "retired"),
    ("my favourite colour is green", "green"),
    ("i'm vegetarian now", "vegetarian"),
    ("我结婚了", "结婚"),
    ("我喜欢爵士乐", "爵士乐"),
]


def stored(mem: Memory, user: str) -> list[str]:
    return sorted(mem.rehydrate(r.id) for r in mem.list_memories(user, limit=100))


@pytest.fixture(scope="module")
def mem(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    """The product as a user gets it: the test run's rule-salience and static-embedder defaults
    (tests/conftest.py) unset, so salience and the gate read e5-small."""
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("REMNANT_SALIENCE", raising=False)
        mp.delenv("REMNANT_EMBEDDER", raising=False)
        m = Memory(tmp_path_factory.mktemp("gate") / "m.db")
        yield m
        m.close()


@pytest.mark.parametrize("text", GATED)
def test_a_fact_shaped_remark_keeps_only_its_turn(mem: Memory, text: str) -> None:
    assert any(not exact_shape(f) for f in rules.extract(text)), "the rules alone read a fact here"
    user = f"g{GATED.index(text)}"
    mem.add([{"role": "user", "content": text}], user_id=user)
    assert stored(mem, user) == [text]


@pytest.mark.parametrize(("text", "value"), KEPT)
def test_a_plain_statement_keeps_its_fact(mem: Memory, text: str, value: str) -> None:
    user = f"k{[t for t, _ in KEPT].index(text)}"
    mem.add([{"role": "user", "content": text}], user_id=user)
    got = stored(mem, user)
    assert len(got) == 2 and any(value in t and t != text for t in got), got


def test_a_value_of_exact_shape_stays_in_a_gated_turn(mem: Memory) -> None:
    text = "my mam always says 'you will catch your death' lol, remind me to buy a hat tomorrow"
    assert {f.key for f in rules.extract(text)} == {"habit_mam_says_you", "reminder_buy_hat"}
    mem.add([{"role": "user", "content": text}], user_id="exact")
    got = stored(mem, "exact")
    assert any("buy a hat" in t and t != text for t in got), got  # the reminder: an open issue
    assert not any("catch your death" in t and t != text for t in got), got


def test_the_ingestor_says_when_the_gate_dropped_facts(mem: Memory) -> None:
    ingestor = RuleIngestor(salience_embedders=("e5-small",))
    if ingestor.model is None:
        pytest.skip("e5-small is not installed: the rules decide alone")
    gated = ingestor.observe(Message(GATED[0]))
    assert not gated.facts and "claim_gate" in gated.reasons
    kept = ingestor.observe(Message("I live in Berlin."))
    assert kept.facts and "claim_gate" not in kept.reasons


def test_without_a_salience_model_the_rules_decide() -> None:
    ingestor = RuleIngestor(salience_embedders=())
    out = ingestor.observe(Message(GATED[0]))
    assert out.facts and "claim_gate" not in out.reasons


def test_the_cues_come_from_the_data_files() -> None:
    def on(text: str) -> set[str]:
        return {c for c, v in zip(CUES, cue_features(text), strict=True) if v}

    assert "question" in on("how does compound interest work?")
    assert "question" not in on("i think im going full vegan now?? like for good, feel great")
    assert "quote" in on("my boss always says 'if it isn't in the calendar it doesn't exist'")
    assert "hypothetical" in on("要是我有一千万，我就天天躺平")
    assert "sarcasm" in on("oh great, another monday. i just LOVE mondays")
    assert "sarcasm" not in on("i love mondays")
    assert "reported" in on("我妈总说早睡早起身体好") and "reported" not in on("说错了，是周二")
    assert not has_filler_cue(cue_features("I'm retired"))


def test_weights_for_another_embedder_or_other_cues_answer_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_gate("no-such-model") is None
    shipped = load_gate("multilingual-e5-small-q4")
    assert shipped is not None
    raw = shipped.to_json()
    raw["features"] = [*raw["features"], "length"]
    monkeypatch.setattr(claim_gate, "DATA_DIR", tmp_path)
    (tmp_path / "claims_stale-model.json").write_text(json.dumps({**raw, "model_id": "stale-model"}))
    assert load_gate("stale-model") is None


def test_the_cues_are_linear_in_the_turn() -> None:
    """The documented maximum (100,000 characters of digits, spaces, quotes, CJK numerals, mixed)
    reads in well under a second; the budget stated is 2 s on a loaded 2-core machine."""
    gate = load_gate("multilingual-e5-small-q4")
    assert gate is not None
    vector = np.zeros(gate.w.shape[0] - len(CUES))
    for text in (
        "1" * 100_000,
        " " * 100_000,
        "' " * 50_000,
        "一二三四五" * 20_000,
        "a'b \"c? 要是说 " * 8_000,
    ):
        start = time.perf_counter()
        gate.states_claim(vector, text)
        assert time.perf_counter() - start < 2.0


def test_a_keyed_fact_needs_twice_the_confidence() -> None:
    """Between the keyed threshold and the threshold a turn's generic copies go and its keyed
    facts (an attribute that a later value supersedes) stay; without a filler cue nothing goes."""
    shipped = load_gate("multilingual-e5-small-q4")
    assert shipped is not None and shipped.keyed_threshold == pytest.approx(shipped.threshold / 2)
    d = shipped.w.shape[0]
    p = (shipped.threshold + shipped.keyed_threshold) / 2
    gate = claim_gate.ClaimGate(
        "test", np.zeros(d), np.ones(d), np.zeros(d), float(np.log(p / (1 - p))), shipped.threshold,
        {}, shipped.keyed_threshold,
    )  # fmt: skip
    vector = np.zeros(d - len(CUES))
    cued = "what's a good meal prep for night shift?"
    assert not gate.states_claim(vector, cued)
    assert gate.states_claim(vector, cued, keyed=True)
    assert gate.states_claim(vector, "I work nights")
