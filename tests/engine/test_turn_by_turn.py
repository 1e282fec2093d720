"""A conversation written one turn at a time (``Memory.add`` of each message, as a chat app writes
it) is found as well as one written a session at a time: each turn gets the turns after it as index
context once they arrive, and no turn is stored already faded. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant import Memory
from remnant.core import decay as dk
from remnant.core.clock import ManualClock
from remnant.core.model import Kind
from remnant.engine.memory import TURN_GRACE_DAYS
from remnant.engine.options import Message, Observation
from remnant.privacy import generate_key
from remnant.store.postgres import PostgresStore

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
SESSION = [
    ("Melanie", "Last night we celebrated my daughter's birthday with a concert in the park."),
    ("Caroline", "Wow, sounds wonderful! Who was playing?"),
    ("Melanie", "It was Matt Patterson, he is so talented!"),
    ("Caroline", "I went to a pride parade on Friday."),
]


class Filler:
    """An ingestor that judges every turn to be filler (importance 0), as the salience model does
    with some answers to the turn before ("It was a poetry reading where ...")."""

    def observe(self, message: Message, *, recent: Sequence[str] = ()) -> Observation:
        return Observation(importance=0.0)


Open = Callable[..., Memory]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
def open_mem(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Open]:
    """The product with lexical recall (the index text is what is under test) on either backend."""
    opened: list[Memory] = []
    if request.param == "postgres":
        monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
        monkeypatch.delenv("REMNANT_VAULT_KEY_FILE", raising=False)

    def make(clock: ManualClock, **options: object) -> Memory:
        if request.param == "sqlite":
            mem = Memory(tmp_path / "m.db", clock=clock, embedder=None, **options)  # type: ignore[arg-type]
        else:
            store = PostgresStore(request.getfixturevalue("pg_url"))
            mem = Memory(store=store, clock=clock, embedder=None, **options)  # type: ignore[arg-type]
        opened.append(mem)
        return mem

    yield make
    for mem in opened:
        mem.close()


def _add_one_by_one(mem: Memory, user: str) -> list[str]:
    ids = []
    for speaker, text in SESSION:
        out = mem.add([{"role": "user", "content": text, "name": speaker}], user_id=user, session_id="s1")
        ids.append(out.episodes[0].id)
    return ids


def test_a_turn_written_alone_gets_the_turns_after_it_as_context(open_mem: Open) -> None:
    mem = open_mem(ManualClock(T0))
    ids = _add_one_by_one(mem, "ana")
    # the birthday turn names no performer: the answer after it is its context, as in a batch
    hits = [h.memory.id for h in mem.recall("Patterson concert", user_id="ana", limit=5, touch=False).hits]
    assert ids[0] in hits and ids[2] in hits
    # each turn is indexed as when the whole session is written at once
    batch = mem.remember_many(
        [
            {
                "content": text,
                "user_id": "al",
                "kind": "episode",
                "session_id": "s1",
                "metadata": {"speaker": who},
            }
            for who, text in SESSION
        ],
        supersede=False,
    )
    alone = mem.store.index_texts(ids, tenant=mem.tenant)
    together = mem.store.index_texts([r.id for r in batch], tenant=mem.tenant)
    assert [alone[i] for i in ids] == [together[r.id] for r in batch]
    assert "pride parade" in alone[ids[1]] and "pride parade" not in alone[ids[0]]  # a window of two


def test_forgetting_a_turn_takes_its_words_out_of_the_turns_before_it(open_mem: Open) -> None:
    mem = open_mem(ManualClock(T0))
    ids = _add_one_by_one(mem, "bo")
    mem.purge([ids[2]], reason="the user asked")
    assert not mem.recall("Patterson", user_id="bo", limit=5, touch=False).hits
    texts = mem.store.index_texts(ids[:2], tenant=mem.tenant)
    assert all("Patterson" not in t for t in texts.values())
    # the turns around the purged one are still found by their own words and keep their context
    hits = [h.memory.id for h in mem.recall("birthday concert", user_id="bo", limit=5, touch=False).hits]
    assert ids[0] in hits


def test_a_turn_judged_filler_is_found_right_after_and_fades_within_a_day(open_mem: Open) -> None:
    clock = ManualClock(T0)
    mem = open_mem(clock, ingestor=Filler())
    out = mem.add(
        [{"role": "user", "content": "It was a transgender poetry reading", "name": "Caroline"}],
        user_id="cy",
        session_id="s1",
    )
    episode = out.episodes[0]
    assert episode.importance == 0.0  # as judged: filler, never consolidated
    floor = dk.importance_lasting(TURN_GRACE_DAYS, Kind.EPISODE, mem.decay)
    lasting = dk.new_state(Kind.EPISODE, floor, episode.anchor, mem.decay)
    assert episode.fade_at == pytest.approx(dk.fade_at(lasting, mem.decay))
    assert episode.fade_at - episode.anchor == pytest.approx(TURN_GRACE_DAYS, abs=0.01)
    hits = mem.recall("what was the poetry reading", user_id="cy", touch=False).hits
    assert [h.memory.id for h in hits] == [episode.id]
    clock.advance(timedelta(days=1))
    mem.sweep()
    assert not mem.recall("what was the poetry reading", user_id="cy", touch=False).hits


def test_the_least_importance_that_lasts() -> None:
    config = dk.DecayConfig()
    least = dk.importance_lasting(0.5, Kind.EPISODE, config)
    assert dk.fade_at(dk.new_state(Kind.EPISODE, least, 0.0, config), config) >= 0.5
    assert dk.fade_at(dk.new_state(Kind.EPISODE, least - 0.01, 0.0, config), config) < 0.5
    assert dk.importance_lasting(0.0, Kind.EPISODE, config) == 0.0
    assert dk.importance_lasting(10_000.0, Kind.EPISODE, config) == 1.0


def test_a_named_speakers_value_replaces_only_that_speakers(open_mem: Open) -> None:
    """Two people in one scope (an imported chat): Joanna's diet does not retire Nate's, nor the
    turn he said it in; his own new value does."""
    mem = open_mem(ManualClock(T0))

    def say(who: str, text: str) -> tuple[str, list[str]]:
        out = mem.add([{"role": "user", "content": text, "name": who}], user_id="chat", session_id="s1")
        assert all(f.metadata.get("speaker") == who for f in out.facts)
        return out.episodes[0].id, [f.id for f in out.facts if f.key == "diet"]

    nate_turn, (nate_diet,) = say("Nate", "I'm vegan now")
    joanna_turn, (joanna_diet,) = say("Joanna", "I'm vegetarian now")
    assert {mem.get(i).status.value for i in (nate_turn, nate_diet, joanna_turn, joanna_diet)} == {"active"}
    _, (nate_keto,) = say("Nate", "I'm keto now")
    assert mem.get(nate_diet).status.value == "superseded" and mem.get(nate_diet).superseded_by == nate_keto
    assert mem.get(joanna_diet).status.value == "active" and mem.get(joanna_turn).status.value == "active"
    # a value said without a speaker (a one-to-one chat) replaces whatever the scope held, as before
    out = mem.add([{"role": "user", "content": "I'm pescatarian now"}], user_id="chat", session_id="s1")
    assert [f.key for f in out.facts] == ["diet"]
    assert (
        mem.get(joanna_diet).status.value == "superseded" and mem.get(nate_keto).status.value == "superseded"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Got any favorite flavors for dairy-free desserts?",
        "I made vegan ice cream last Friday and shared it with my vegan diet group.",
        "You can use dairy-free margarine instead of butter.",
        "I even made dairy-free chocolate coconut cupcakes.",
    ],
)
def test_a_food_described_as_vegan_is_no_diet(text: str) -> None:
    from remnant.understand import attributes

    reading = attributes.read(text)
    assert reading is None or reading.attribute != "diet"
    assert attributes.read("I'm dairy-free these days").attribute == "diet"  # type: ignore[union-attr]
