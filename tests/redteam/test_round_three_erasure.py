"""Red team, issue 29 finding 4: the erasure report failed clean erasures. Stored metadata strings
such as the role ``"user"`` of every ingested turn were used as probes and matched fixed audit
texts ("user asked to forget"), so anyone who used /v1/ingest got ``verified: false``. Now a clean
erasure verifies for every kind of user (ingest, batch, mem0 routes, an adapter), and a planted
leftover still fails. Real SQLite and PostgreSQL; the server on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from remnant.config import build_memory
from remnant.core.clock import ManualClock
from remnant.privacy import generate_key


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
    monkeypatch.delenv("REMNANT_VAULT_KEY_FILE", raising=False)
    monkeypatch.delenv("REMNANT_AUDIT_KEY", raising=False)
    monkeypatch.delenv("REMNANT_AUDIT_KEY_FILE", raising=False)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
def any_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "remnant.db")
    else:
        yield request.getfixturevalue("pg_url")


CHAT = [
    {"role": "user", "content": "I moved to Lisbon last year, call me at +1 415 555 0134"},
    {"role": "assistant", "content": "Nice, Lisbon is lovely."},
    {"role": "user", "content": "Actually I live in Porto now, my email is ana.silva@example.com"},
]


def _forget_and_erase(mem: object, user: str) -> dict:
    # a forget request writes the fixed reason "user asked to forget": no probe may match it
    mem.forget("forget that I live in Porto", user_id=user, confirm=True)  # type: ignore[attr-defined]
    return mem.erase_user(user).to_dict()  # type: ignore[attr-defined]


def test_clean_erasure_of_an_ingest_user_verifies(any_db: str, clock: ManualClock) -> None:
    with build_memory(any_db, clock=clock) as mem:
        mem.add(CHAT, user_id="ana")
        mem.remember("I like green tea", user_id="bob")
        report = _forget_and_erase(mem, "ana")
        assert report["checks"]["audit_log"] == 0, report
        assert report["verified"] is True, report


def test_clean_erasure_of_a_batch_and_adapter_user_verifies(any_db: str, clock: ManualClock) -> None:
    from remnant.engine.options import WriteItem
    from remnant.integrations.langgraph import RemnantStore

    with build_memory(any_db, clock=clock) as mem:
        mem.remember_many(
            [
                WriteItem(
                    content="Flat 4B on Rua Augusta", user_id="cai", metadata={"role": "user", "via": "chat"}
                ),
                WriteItem(
                    content="Works as a nurse",
                    user_id="cai",
                    key="job",
                    metadata={"type": "fact", "who": "user"},
                ),
            ]
        )
        store = RemnantStore(mem)
        store.put(("memories", "dee"), "food", {"likes": "green tea", "role": "user", "n": 3})
        store.put(("memories", "dee"), "home", {"city": "Porto", "kind": "memory"})
        store.delete(("memories", "dee"), "home")
        for user in ("cai", "dee"):
            report = _forget_and_erase(mem, user)
            assert report["verified"] is True, (user, report)


def test_a_planted_leftover_still_fails(any_db: str, clock: ManualClock) -> None:
    """The user's own distinctive metadata value left in an audit entry (a hide reason) is found."""
    with build_memory(any_db, clock=clock) as mem:
        rec = mem.remember(
            "My desk moved", user_id="eve", metadata={"desk": "Tower 7 room 12", "role": "user"}
        )
        other = mem.remember("A note", user_id="eve")
        mem.hide(other.id, reason="moved from Tower 7 room 12")
        assert rec.id
        report = mem.erase_user("eve").to_dict()
        assert report["checks"]["audit_log"] >= 1
        assert report["verified"] is False


def test_a_value_left_in_a_log_file_fails(tmp_path: Path, clock: ManualClock) -> None:
    log = tmp_path / "server.log"
    log.write_text("request from +1 415 555 0134\n")
    with build_memory(str(tmp_path / "r.db"), clock=clock) as mem:
        mem.add(CHAT, user_id="ana")
        mem.log_files.append(log)
        report = mem.erase_user("ana").to_dict()
        assert report["checks"]["log_files"] >= 1 and report["verified"] is False


def test_clean_erasure_over_the_server_routes_verifies(tmp_path: Path) -> None:
    from tests.server.conftest import start_live

    for live in start_live(tmp_path):
        with live.client() as c:
            assert c.post("/v1/ingest", json={"messages": CHAT, "user_id": "ana"}).status_code == 201
            r = c.post(
                "/v1/memories/batch",
                json={
                    "items": [{"content": "Works as a nurse", "user_id": "cai", "metadata": {"role": "user"}}]
                },
            )
            assert r.status_code == 201, r.text
            r = c.post(
                "/v1/memories/",
                json={
                    "messages": [{"role": "user", "content": "I live in Porto, Rua Augusta 12"}],
                    "user_id": "mo",
                },
            )
            assert r.status_code == 200, r.text
            for user in ("ana", "cai", "mo"):
                f = c.post(
                    "/v1/forget",
                    json={"request": "forget that I live in Porto", "user_id": user, "confirm": True},
                )
                assert f.status_code == 200, f.text
                report = c.post("/v1/erasure", json={"user_id": user, "confirm": True}).json()
                assert report["verified"] is True, (user, report)
