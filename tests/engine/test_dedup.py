"""Duplicates: a repeated write reinforces the memory it repeats instead of storing a second copy.

On real SQLite and PostgreSQL: exact and normalised repeats are stored once and reinforced, near
misses stay apart, nothing forgotten is revived, no user's text matches another's, the digest is a
keyed HMAC that goes with the row, and the lookup and the reinforcement commit or roll back together.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant.core.clock import ManualClock
from remnant.core.decay import DecayConfig, DecayState, reinforce
from remnant.core.model import Status
from remnant.engine import Memory
from remnant.engine.ledger import normalised_text
from remnant.store.postgres import PostgresStore
from remnant.store.transfer import export_lines

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgres"])
def mem(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Memory]:
    clock = ManualClock(NOW)
    if request.param == "sqlite":
        m = Memory(tmp_path / "m.db", clock=clock)
    else:
        m = Memory(store=PostgresStore(request.getfixturevalue("pg_url")), clock=clock)
    with m:
        yield m


def _clock(mem: Memory) -> ManualClock:
    assert isinstance(mem.clock, ManualClock)
    return mem.clock


def _digests(mem: Memory) -> list[str | None]:
    return [r[0] for r in mem.store.fetch("SELECT digest FROM memories")]  # type: ignore[attr-defined]


def test_normalised_text() -> None:
    assert normalised_text("  I'm  vegetarian NOW!! ") == "i'm vegetarian now"
    assert normalised_text("我住在杭州，") == normalised_text("我住在杭州。") == "我住在杭州"
    assert normalised_text("Ｉ ｌｉｋｅ　tea") == "i like tea"  # NFKC: full-width letters and space
    assert normalised_text("I don't like it") != normalised_text("I do like it")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I'm allergic to peanuts.", "I'm allergic to peanuts."),
        ("I work night shifts.", "i work NIGHT shifts"),
        ("My cat is called Biscuit.", "  My cat  is called   Biscuit. "),
        ("我每天早上跑步。", "我每天早上跑步！"),
    ],
)
def test_a_repeat_is_stored_once_and_reinforced(mem: Memory, first: str, second: str) -> None:
    a = mem.remember(first, user_id="ana", kind="episode", importance=0.9)
    control = mem.remember(first, user_id="bob", kind="episode", importance=0.9)
    b = mem.remember(second, user_id="ana", kind="episode", importance=0.9)
    assert b.id == a.id and b.deduplicated and not a.deduplicated
    assert b.content == first  # the memory kept is the first one, as it was written
    assert mem.count_memories(user_id="ana") == 1
    assert not mem.get(a.id).deduplicated  # only the write's answer says it
    _clock(mem).advance(timedelta(days=7))
    # a week on, the repeated memory is stronger than the same turn said once
    assert mem.strength(a.id) > mem.strength(control.id) + 0.01
    entries = [e for e in mem.audit_log(user_id="ana") if e.action == "reinforce"]
    assert len(entries) == 1 and entries[0].reason == "reinforced by a repeat"
    assert list(entries[0].memory_ids) == [a.id] and entries[0].policy == "dedup"


def test_the_repeat_is_the_review_reinforcement_at_least_half_again() -> None:
    cfg = DecayConfig()
    fresh = DecayState(1.0, 12.0, 0.0)
    # right after the first mention a review adds nothing (R = 1); a repeat still grows stability
    assert reinforce(fresh, 0.0, cfg, "review").stability == pytest.approx(12.0)
    assert reinforce(fresh, 0.0, cfg, "repeat").stability == pytest.approx(18.0)
    # well spaced, a repeat is exactly a review (+0.3 strength, stability x (1 + 2 (1 - R)))
    weak = DecayState(1.0, 12.0, 0.0)
    assert reinforce(weak, 12.0, cfg, "repeat") == reinforce(weak, 12.0, cfg, "review")


def test_repeats_in_one_batch_and_in_add(mem: Memory) -> None:
    got = mem.remember_many([{"content": "I like tea", "user_id": "ana"}] * 3)
    assert len({r.id for r in got}) == 1 and [r.deduplicated for r in got] == [False, True, True]
    assert mem.count_memories(user_id="ana") == 1
    assert mem.get(got[0].id).access_count == 2  # one reinforcement per repeat
    out = mem.add(["We're moving to Leeds in March.", "we're moving to Leeds in March"], user_id="cy")
    assert out.episodes[0].id == out.episodes[1].id and out.duplicates == [out.episodes[0].id]
    assert out.to_dict()["duplicates"] == [out.episodes[0].id]
    assert mem.count_memories(user_id="cy", kinds=("episode",)) == 1
    # the assistant saying the user's words is not the user repeating them
    said = mem.add(
        [{"role": "user", "content": "Thanks!"}, {"role": "assistant", "content": "Thanks!"}], user_id="di"
    )
    assert said.episodes[0].id != said.episodes[1].id and not said.duplicates


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I run 5 km every morning.", "I run 10 km every morning."),
        ("I like horror films.", "I don't like horror films."),
        ("My sister lives in Lyon.", "My brother lives in Lyon."),
        ("我喜欢吃辣。", "我不喜欢吃辣。"),
    ],
)
def test_near_misses_are_kept_apart(mem: Memory, first: str, second: str) -> None:
    a = mem.remember(first, user_id="ana", kind="episode")
    b = mem.remember(second, user_id="ana", kind="episode")
    assert a.id != b.id and not b.deduplicated
    assert mem.count_memories(user_id="ana") == 2


def test_scope_kind_key_and_agent(mem: Memory) -> None:
    a = mem.remember("I live in Leeds", user_id="ana")
    assert not mem.remember("I live in Leeds", user_id="bob").deduplicated  # no cross-user matching
    assert not mem.remember("I live in Leeds", user_id="ana", kind="episode").deduplicated
    assert not mem.remember("I live in Leeds", user_id="ana", agent_id="helper").deduplicated
    keyed = mem.remember("I live in Leeds", user_id="ana", key="city")
    assert not keyed.deduplicated
    again = mem.remember("I live in Leeds.", user_id="ana", key="city")
    assert again.id == keyed.id and again.deduplicated
    assert mem.get(keyed.id).status == Status.ACTIVE  # reinforced, not superseded by its own repeat
    assert mem.get(a.id).status == Status.ACTIVE


def test_nothing_forgotten_is_revived(mem: Memory) -> None:
    hidden = mem.remember("I'm allergic to peanuts", user_id="ana")
    mem.hide(hidden.id)
    new = mem.remember("I'm allergic to peanuts", user_id="ana")
    assert new.id != hidden.id and not new.deduplicated
    assert mem.get(hidden.id).status == Status.HIDDEN

    old = mem.remember("I live in Leeds", user_id="bo", key="city")
    mem.remember("I live in York", user_id="bo", key="city")
    assert mem.get(old.id).status == Status.SUPERSEDED
    back = mem.remember("I live in Leeds", user_id="bo", key="city")
    assert back.id != old.id and mem.get(old.id).status == Status.SUPERSEDED

    code = mem.remember("the door code is 4411", user_id="cy", ttl="10m")
    _clock(mem).advance(timedelta(minutes=11))
    fresh = mem.remember("the door code is 4411", user_id="cy", ttl="10m")
    assert fresh.id != code.id and not fresh.deduplicated

    purged = mem.remember("call me Jo", user_id="di")
    mem.purge(purged.id)
    assert not mem.remember("call me Jo", user_id="di").deduplicated


def test_a_weak_memory_is_reinforced_and_revived(mem: Memory) -> None:
    """Faded (too weak to recall, not forgotten): a repeat reinforces and revives it, at least as
    strong as a new mention would be."""
    turn = mem.remember("hello there", user_id="ana", kind="episode", importance=0.2)
    _clock(mem).advance(timedelta(days=30))
    assert mem.strength(turn.id) < mem.decay.recall_threshold
    mem.sweep()
    assert mem.get(turn.id).status == Status.FADED
    again = mem.remember("hello there", user_id="ana", kind="episode", importance=0.2)
    assert again.id == turn.id and again.deduplicated
    assert mem.get(turn.id).status == Status.ACTIVE
    assert mem.strength(turn.id) == pytest.approx(0.6)  # a new mention: 0.5 + 0.5 * importance
    assert mem.get(turn.id).stability >= turn.stability * 1.5


def test_the_digest_is_keyed_and_goes_with_the_row(mem: Memory) -> None:
    text = "I'm allergic to peanuts"
    rec = mem.remember(text, user_id="ana")
    (digest,) = _digests(mem)
    assert digest is not None and len(digest) == 64
    plain = {hashlib.sha256(t.encode()).hexdigest() for t in (text, normalised_text(text))}
    assert digest not in plain  # an HMAC: a reader of the database cannot test guesses without the key
    lines = list(export_lines(mem.store))
    assert digest not in "\n".join(lines) and "dedup_digest_key" not in "\n".join(lines)
    assert all("deduplicated" not in json.loads(ln).get("record", {}) for ln in lines)
    mem.purge(rec.id)
    assert _digests(mem) == []
    mem.remember(text, user_id="bob")
    mem.erase_user("bob")
    assert _digests(mem) == []


def test_a_content_change_drops_the_digest(mem: Memory) -> None:
    rec = mem.remember("my number is 555 0100", user_id="ana")
    mem.update(rec.id, content="my number is on file")
    assert _digests(mem) == [None]
    assert not mem.remember("my number is 555 0100", user_id="ana").deduplicated


def test_a_metadata_or_importance_change_keeps_the_digest(mem: Memory) -> None:
    rec = mem.remember("I like green tea", user_id="ana")
    mem.update(rec.id, metadata={"source": "import"})
    mem.update(rec.id, importance=0.9, tags=["drinks"])
    assert _digests(mem) != [None]
    again = mem.remember("I like green tea", user_id="ana")
    assert again.deduplicated and again.id == rec.id
    mem.update(
        rec.id, metadata={"speaker": "Bo"}
    )  # said by someone else now: no longer a repeat of ana's words
    assert _digests(mem) == [None]


def test_lookup_and_reinforcement_roll_back_together(mem: Memory) -> None:
    rec = mem.remember("I like tea", user_id="ana")
    before = mem.get(rec.id)
    audit = len(mem.audit_log(user_id="ana"))
    with pytest.raises(RuntimeError), mem.store.transaction():
        assert mem.remember("I like tea", user_id="ana").deduplicated
        raise RuntimeError("crash after the write")
    after = mem.get(rec.id)
    assert (after.stability, after.access_count, after.anchor) == (
        before.stability,
        before.access_count,
        before.anchor,
    )
    assert len(mem.audit_log(user_id="ana")) == audit
    assert mem.count_memories(user_id="ana") == 1


def test_dedup_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Memory(tmp_path / "off.db", dedup=False) as off:
        off.remember("I like tea", user_id="ana")
        assert not off.remember("I like tea", user_id="ana").deduplicated
        assert off.count_memories(user_id="ana") == 2
    from remnant.config import build_memory

    monkeypatch.setenv("REMNANT_DEDUP", "off")
    with build_memory(tmp_path / "env.db", privacy=False, embedder=None, ingestor=None) as product:
        assert product.dedup is False
    monkeypatch.setenv("REMNANT_DEDUP", "sometimes")
    with pytest.raises(Exception, match="REMNANT_DEDUP"):
        build_memory(tmp_path / "bad.db", privacy=False, embedder=None, ingestor=None)


def test_with_the_audit_key_a_vaulted_value_is_never_matched(tmp_path: Path) -> None:
    """With privacy on, a text holding a vaulted value is stored as written, never matched: a
    repeat answering the first memory would confirm a guessed value to any key that can write
    (issue 29 finding 2). Texts without one still deduplicate (the digest keyed by the audit key)."""
    from remnant.config import build_memory

    with build_memory(tmp_path / "p.db", embedder=None, ingestor=None) as mem:
        a = mem.remember("mail me at ana@example.com", user_id="ana")
        assert "ana@example.com" not in a.content
        b = mem.remember("Mail me at ana@example.com!", user_id="ana")
        assert b.id != a.id and not b.deduplicated
        c = mem.remember("I like green tea", user_id="ana")
        d = mem.remember("I like green tea!", user_id="ana")
        assert d.id == c.id and d.deduplicated


def test_two_writers_of_the_same_text_at_once_store_one_copy_on_postgres(pg_url: str) -> None:
    # A holds its write transaction open after its lookup and insert; B writes the same text from
    # another connection meanwhile. B must wait for A's commit and then find A's copy: without the
    # per-digest lock both lookups see no copy and both store one (READ COMMITTED). (The digest
    # key is claimed first, so that claim's own wait does not hide a missing lock.)
    clock = ManualClock(NOW)
    with (
        Memory(store=PostgresStore(pg_url), clock=clock) as a,
        Memory(store=PostgresStore(pg_url), clock=clock) as b,
    ):
        a.remember("first write: the digest key is claimed", user_id="zoe")
        b.remember("first write of b", user_id="zoe")  # b has read the committed key
        got: list[bool] = []
        started = threading.Event()

        def write_b() -> None:
            started.set()
            got.append(b.remember("I race to work by bike", user_id="ana").deduplicated)

        with a.store.transaction():
            first = a.remember("I race to work by bike", user_id="ana")
            other = threading.Thread(target=write_b)
            other.start()
            started.wait(5)
            other.join(0.5)
            assert other.is_alive(), "the second writer did not wait for the first's transaction"
        other.join(30)
        assert got == [True]
        assert not first.deduplicated
        assert a.count_memories(user_id="ana") == 1


def test_two_first_writers_of_a_fresh_database_share_one_digest_key(pg_url: str) -> None:
    # the digest key is created by the first write; two processes writing first at once used to
    # make a key each, the later overwriting the earlier, and every digest under it stopped matching
    clock = ManualClock(NOW)
    with (
        Memory(store=PostgresStore(pg_url), clock=clock) as a,
        Memory(store=PostgresStore(pg_url), clock=clock) as b,
    ):
        got: list[bool] = []
        with a.store.transaction():
            a.remember("I keep bees", user_id="ana")
            other = threading.Thread(
                target=lambda: got.append(b.remember("I keep bees", user_id="ana").deduplicated)
            )
            other.start()
            other.join(0.5)
        other.join(30)
        assert got == [True]
        assert len(set(_digests(a))) == 1


def test_claim_meta_keeps_the_first_value(mem: Memory) -> None:
    assert mem.store.claim_meta("test:claim", "one") == "one"
    assert mem.store.claim_meta("test:claim", "two") == "one"
    assert mem.store.get_meta("test:claim") == "one"
