"""Red team, issue 29 finding 2: deduplication confirmed vaulted values without the ``vault`` scope.
The dedup digest was an HMAC of the text before redaction and a repeat answered with the existing
memory, so writing ``my value is <guess> ok`` answered the victim's own id with ``deduplicated``
for a right guess. A repeat with other metadata dropped it; an Idempotency-Key replay answered
another API key's recorded memory, and the fingerprint was a plain SHA-256 of the body.

Now a write holding a vaulted value is never matched (right and wrong guesses answer alike), a
repeat merges its metadata visibly, and idempotency records are bound to their API key with a
keyed fingerprint. Real SQLite and PostgreSQL; the server on loopback."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from remnant.config import build_memory
from remnant.core.clock import ManualClock
from remnant.privacy import generate_key

PHONE = "+1 415 555 0134"


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
    monkeypatch.setenv("REMNANT_AUDIT_KEY", "kept outside the database")  # the keyed digest, as shipped
    monkeypatch.delenv("REMNANT_VAULT_KEY_FILE", raising=False)
    monkeypatch.delenv("REMNANT_AUDIT_KEY_FILE", raising=False)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
def any_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "remnant.db")
    else:
        yield request.getfixturevalue("pg_url")


def test_a_right_guess_answers_like_a_wrong_one(any_db: str, clock: ManualClock) -> None:
    with build_memory(any_db, clock=clock) as mem:
        victim = mem.remember(f"my value is {PHONE} ok", user_id="ana")
        right = mem.remember(f"my value is {PHONE} ok", user_id="ana")
        wrong = mem.remember("my value is +1 415 555 0199 ok", user_id="ana")
        for answer in (right, wrong):
            assert answer.deduplicated is False
            assert answer.id != victim.id
        assert {right.id, wrong.id}.isdisjoint({victim.id})
        # a text without a vaulted value still deduplicates
        a = mem.remember("I like green tea", user_id="ana")
        b = mem.remember("I like green tea", user_id="ana")
        assert b.deduplicated and b.id == a.id


def test_a_repeat_merges_its_metadata(any_db: str, clock: ManualClock) -> None:
    with build_memory(any_db, clock=clock) as mem:
        first = mem.remember("I like green tea", user_id="ana", metadata={"mood": "calm", "tags": ["drinks"]})
        again = mem.remember(
            "I like green tea", user_id="ana", metadata={"where": "office", "tags": ["office"]}
        )
        assert again.deduplicated and again.id == first.id
        assert again.metadata["mood"] == "calm" and again.metadata["where"] == "office"
        stored = mem.get(first.id)
        assert stored is not None and stored.metadata["where"] == "office"
        assert set(stored.metadata["tags"]) == {"drinks", "office"}


def _write_key(tmp_path: Path) -> str:
    from remnant.server.auth import KeyStore

    ks = KeyStore(tmp_path / "keys.db")
    secret = ks.create("tenant-a", ["write"], "a write-only").secret
    ks.close()
    return secret


def test_server_idempotency_is_bound_to_the_api_key(tmp_path: Path) -> None:
    from tests.server.conftest import start_live

    write_only = _write_key(tmp_path)
    body = {"content": f"my value is {PHONE} ok", "user_id": "ana"}
    for live in start_live(tmp_path):
        live.keys["w"] = write_only
        with live.client() as admin:
            first = admin.post("/v1/memories", json=body, headers={"Idempotency-Key": "k-1"})
            assert first.status_code == 201, first.text
            replay = admin.post("/v1/memories", json=body, headers={"Idempotency-Key": "k-1"})
            assert replay.headers.get("Idempotent-Replayed") == "true"
            assert replay.json()["id"] == first.json()["id"]
        with live.client("w") as other:
            theirs = other.post("/v1/memories", json=body, headers={"Idempotency-Key": "k-1"})
            assert theirs.status_code == 201, theirs.text
            assert theirs.headers.get("Idempotent-Replayed") is None
            assert theirs.json()["id"] != first.json()["id"]  # never another key's recorded memory
            guess = other.post("/v1/memories", json=body)  # and no dedup oracle either
            assert guess.json()["deduplicated"] is False
            assert guess.json()["id"] != first.json()["id"]
    raw = sqlite3.connect(tmp_path / "remnant.db")
    prints = [r[0] for r in raw.execute("SELECT fingerprint FROM idempotency_keys")]
    raw.close()
    plain = hashlib.sha256(
        json.dumps(["POST", "/v1/memories", body], sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()
    assert prints and plain not in prints  # keyed: a database reader cannot test a guessed body


@pytest.mark.pg
def test_idempotency_bound_and_keyed_on_postgres(pg_url: str) -> None:
    from remnant.server.idempotency import Answer, IdempotencyKeys, owned
    from remnant.store import open_store

    store = open_store(pg_url)
    try:
        keys = IdempotencyKeys(store, audit_key=lambda: b"secret")
        n = iter(range(10))

        def write() -> Answer:
            return Answer(201, {"n": next(n)})

        p = keys.fingerprint("POST", "/v1/memories", {"content": "x"})
        assert p != hashlib.sha256(b'["POST","/v1/memories",{"content":"x"}]').hexdigest()
        assert keys.run("t", owned("k", "key-a"), p, write).body == {"n": 0}
        assert keys.run("t", owned("k", "key-a"), p, write).replayed
        other = keys.run("t", owned("k", "key-b"), p, write)
        assert not other.replayed and other.body == {"n": 1}
    finally:
        store.close()
