"""What of a turn lasts past the consolidation horizon (remnant.extract.lasting), clause by clause:
the rules alone, then the product's models (e5-small: the salience model, the claim gate, the
learned expiry reader) over one embedder call per batch of turns."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from remnant.embed.base import Vectors
from remnant.engine.options import Lasting
from remnant.extract.expiry import lapsing, pieces
from remnant.extract.ingest import RuleIngestor
from remnant.extract.lasting import Readers, lasting_parts

SAID = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday
LATER = SAID + timedelta(days=9)  # the sweep's horizon end, a week and more after the turn


def rules(text: str, until: datetime = LATER) -> Lasting:
    return lasting_parts([(text, SAID)], until, Readers())[0]


def test_pieces_join_back_to_the_text() -> None:
    text = "the code is 5521, good till friday. I do pilates on tuesdays; 好的，谢谢！"
    assert "".join(pieces(text)) == text
    assert len(pieces(text)) == 5


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # a value with an end point that has passed: out, with the clause that names it
        (
            "the gym's guest code is 5521, good till friday, and my membership number is on the card",
            "and my membership number is on the card",
        ),
        # a period of a course that has run out beside a lasting condition
        ("I'm taking amoxicillin for 5 days. I have type 1 diabetes", "I have type 1 diabetes"),
        # an end point beside a temporary word, of a state: its clauses up to one of its own
        (
            "we're at the Harbour Inn, room 31 till thursday, and I get seasick on small boats",
            "and I get seasick on small boats",
        ),
        # a state with nothing named lapses with its own sentence, not the one before it
        (
            "I'm allergic to cashews, not peanuts. off sick till wednesday",
            "I'm allergic to cashews, not peanuts.",
        ),
        # what follows from the temporary clause goes with it
        (
            "the visitor permit is PX-2207 this week only, so leave it on the dashboard. my flat is 4B",
            "my flat is 4B",
        ),
    ],
)
def test_what_lapses_by_the_horizon_is_left_out(text: str, kept: str) -> None:
    got = rules(text)
    assert got.text == kept
    assert got.dropped == ("expiry",)
    assert got.ends_at is None


def test_a_period_that_outlasts_the_horizon_keeps_its_clause_and_its_end() -> None:
    text = "I'm staying with my aunt in Leeds for 3 months. she has two greyhounds?"
    got = rules(text)
    assert got.text == "I'm staying with my aunt in Leeds for 3 months."
    assert got.dropped == ("question",)
    assert got.ends_at is not None and got.ends_at > LATER
    # read from when it was said, not from the sweep: the same turn a quarter later lapses whole
    assert rules(text, SAID + timedelta(days=120)).text == ""


@pytest.mark.parametrize(
    "text",
    [
        "I was at the Harbour Inn till thursday, and I get seasick on small boats",  # past
        "I swim at the lido every friday, and I get seasick on small boats",  # recurring
        "my sister's wedding is on saturday and I'm a bridesmaid",  # an event's day, no temporary word
        "I have a standing desk at work and my back has been much better since",
        # a day named alone is when something happened, not how long it holds
        "I started at the new bakery today, and my manager is called Rosalind",
    ],
)
def test_what_lasts_is_the_turn_itself(text: str) -> None:
    assert rules(text) == Lasting(text)


def test_a_question_or_a_lapsed_turn_leaves_nothing() -> None:
    assert rules("room 31 till thursday. what's good to eat around here?").text == ""
    assert rules("the locker code is 4471 until friday").text == ""
    assert rules("should I bring a coat?").text == ""


def test_lapsing_reads_each_clause_from_when_it_was_said() -> None:
    parts = pieces("the wifi is Kestrel-88 till sunday, and I'm vegetarian")
    assert lapsing(parts, SAID, SAID + timedelta(days=3)) == [False, False]  # sunday is later
    assert lapsing(parts, SAID, LATER) == [True, False]


@pytest.fixture(scope="module")
def ingestor() -> RuleIngestor:
    got = RuleIngestor(salience_embedders=("e5-small",))
    if got.model is None:
        pytest.skip("e5-small is not installed here")
    return got


def test_the_models_judge_the_clauses_of_every_turn_in_one_call(ingestor: RuleIngestor) -> None:
    readers = ingestor.readers(expiry_reader=True)
    assert readers.embed is not None and readers.salience is not None and readers.expiry is not None
    embed, calls = readers.embed, []

    def counting(texts: Sequence[str]) -> Sequence[Vectors] | None:
        calls.append(len(texts))
        return embed(texts)

    turns = [
        ("we're at the Harbour Inn, room 31 till thursday, and I get seasick on small boats", SAID),
        ("my nephew Bartholomew turns 7 in June, can you suggest a present for him?", SAID),
        ("I have a standing desk at work and my back has been much better since", SAID),
        ("the bike lock code is 3390 until friday. lol ok", SAID),  # what is left is filler
    ]
    got = lasting_parts(turns, LATER, replace(readers, embed=counting))
    assert len(calls) == 1
    assert got[0].text == "and I get seasick on small boats"
    assert got[1].text == "my nephew Bartholomew turns 7 in June"  # the question is left out
    assert got[2] == Lasting(turns[2][0])
    assert got[3].text == "" and "filler" in got[3].dropped
    # without the expiry reader the salience model reads only the turn whose rest is filler
    calls.clear()
    again = lasting_parts(turns, LATER, replace(readers, embed=counting, expiry=None))
    assert calls == [1] and [g.text for g in again] == [g.text for g in got]


def test_the_ingestor_reads_them_as_the_sweep_asks(ingestor: RuleIngestor) -> None:
    turns = [("room 31 till thursday. what's good to eat around here?", SAID), ("I'm vegetarian", SAID)]
    for reader in (False, True):
        got = ingestor.lasting_many(turns, LATER, expiry_reader=reader)
        assert [g.text for g in got] == ["", "I'm vegetarian"]


def test_the_reading_is_linear_in_the_text() -> None:
    # a 200,000-character turn: at most 32 clauses are read one by one; generous budget, loaded box
    text = "my locker code is 4471 till friday, and I like oat milk. " * 3500
    started = time.perf_counter()
    got = rules(text)
    assert time.perf_counter() - started < 20.0
    assert "4471" not in got.text.split(". ")[0] and got.text
