"""Red team, issue 29 finding 7: irreversible forgetting broader than meant. "forget my medical
info" purged memories found by one word of the health scope; "forget everything about that"
matched all eight memories of the user, and an agent passing ``confirm: true`` took them all.

Now a purge that rests on a scope word alone, or that would take more than a small share of the
user's memories, hides instead (undoable, marked ``tentative``, said in the message) unless
``confirm`` names the count; "everything about that" with no referent asks for confirmation and
lists what it would take, even with ``confirm=True``. Real SQLite and PostgreSQL; the server on
loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from remnant.core.clock import ManualClock
from remnant.core.errors import ConfirmationRequired
from remnant.core.model import Status
from remnant.engine import Memory
from remnant.store.base import MemoryFilter

TURNS = [
    ("I work night shifts at the city hospital", "job"),
    ("I am allergic to penicillin", None),
    ("My sister lives in Berlin", None),
    ("I like green tea", None),
    ("I play tennis on Sundays", None),
    ("My dog is called Rex", None),
    ("I drive a red Toyota", None),
    ("I was born in 1990", None),
]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
def mem(request: pytest.FixtureRequest, tmp_path: Path, clock: ManualClock) -> Iterator[Memory]:
    if request.param == "sqlite":
        m = Memory(str(tmp_path / "r.db"), clock=clock)
    else:
        from remnant.store.postgres import PostgresStore

        m = Memory(store=PostgresStore(request.getfixturevalue("pg_url")), clock=clock)
    with m:
        yield m


def _fill(mem: Memory, user: str) -> list[str]:
    return [mem.remember(t, user_id=user, key=k).id for t, k in TURNS]


def _left(mem: Memory, user: str) -> int:
    return mem.store.count(MemoryFilter(tenant=mem.tenant, user_id=user, statuses=None))


def test_a_scope_word_alone_hides_rather_than_purges(mem: Memory) -> None:
    _fill(mem, "ana")
    result = mem.forget("forget my medical info", user_id="ana")
    assert result.matches
    assert _left(mem, "ana") == len(TURNS)  # nothing purged: every match rested on one word
    assert all(m.tentative for m in result.matches)
    assert "instead of purging" in result.message
    for mid in result.forgotten:  # undoable
        got = mem.get(mid)
        assert got is not None and got.status == Status.HIDDEN
        mem.unhide(mid)


def test_a_sweeping_purge_hides_unless_confirm_names_the_count(mem: Memory) -> None:
    _fill(mem, "ben")
    result = mem.forget("delete everything permanently", user_id="ben", confirm=True)
    assert _left(mem, "ben") == len(TURNS) and len(result.forgotten) == len(TURNS)
    assert "instead of purging" in result.message
    for mid in result.forgotten:
        mem.unhide(mid)
    result = mem.forget("delete everything permanently", user_id="ben", confirm=len(TURNS))
    assert result.action == "purge" and _left(mem, "ben") == 0


def test_a_sure_small_purge_still_purges(mem: Memory) -> None:
    _fill(mem, "cy")
    result = mem.forget("permanently delete that I drive a red Toyota", user_id="cy")
    assert result.action == "purge" and len(result.forgotten) == 1
    assert not any(m.tentative for m in result.matches)
    assert _left(mem, "cy") == len(TURNS) - 1


def test_everything_about_that_asks_even_with_confirm(mem: Memory) -> None:
    _fill(mem, "dee")
    with pytest.raises(ConfirmationRequired) as err:
        mem.forget("forget everything about that", user_id="dee", confirm=True)
    assert err.value.matched == len(err.value.ids) > 0
    assert f"confirm={err.value.matched}" in str(err.value)
    assert mem.stats("dee")["by_status"] == {"active": len(TURNS)}  # nothing touched
    preview = mem.forget("forget everything about that", user_id="dee", dry_run=True)
    assert sorted(m.id for m in preview.matches) == sorted(err.value.ids)
    done = mem.forget("forget everything about that", user_id="dee", confirm=err.value.matched)
    assert sorted(done.forgotten) == sorted(err.value.ids)


def test_server_answers_409_with_the_list(tmp_path: Path) -> None:
    from tests.server.conftest import start_live

    for live in start_live(tmp_path):
        with live.client() as c:
            for text, key in TURNS:
                assert (
                    c.post("/v1/memories", json={"content": text, "user_id": "eve", "key": key}).status_code
                    == 201
                )
            r = c.post(
                "/v1/forget",
                json={"request": "forget everything about that", "user_id": "eve", "confirm": True},
            )
            assert r.status_code == 409, r.text
            err = r.json()["error"]
            assert (
                err["code"] == "confirmation_required"
                and len(err["details"]["ids"]) == err["details"]["matched"]
            )
            r = c.post(
                "/v1/forget",
                json={
                    "request": "forget everything about that",
                    "user_id": "eve",
                    "confirm": err["details"]["matched"],
                },
            )
            assert r.status_code == 200, r.text
            assert sorted(r.json()["forgotten"]) == sorted(err["details"]["ids"])
