"""Memory.update: an audited in-place change, on SQLite and PostgreSQL, with the privacy layer and
hybrid recall of the product; and the REST API's idempotency keys on PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from remnant import ConflictError, ManualClock, NotFoundError, Status, ValidationError
from remnant.core import decay as dk
from remnant.engine import Memory


def test_content_is_changed_in_place_and_reindexed(mem: Memory) -> None:
    r = mem.remember("Ana lives in Lisbon near the river", user_id="ana", metadata={"src": "form"})
    u = mem.update(r.id, content="Ana lives in Porto near the bridge")
    assert u.id == r.id and u.created_at == r.created_at and u.status == Status.ACTIVE
    assert [h.memory.id for h in mem.recall("Porto bridge", user_id="ana", touch=False)] == [r.id]
    assert mem.recall("Lisbon river", user_id="ana", touch=False).hits == []
    entry = mem.audit_log(action="update")[-1]
    assert entry.memory_ids == (r.id,) and entry.details["fields"] == ["content"]
    assert "Porto" not in str(entry.to_dict()) and entry.details["chars_before"] == len(r.content)
    assert mem.verify_audit().ok


def test_importance_rescales_stability_not_strength(mem: Memory, clock: ManualClock) -> None:
    r = mem.remember("the gate code is 4411", user_id="ana", importance=0.2)
    clock.advance(days=2)
    before = mem.strength(r.id)
    u = mem.update(r.id, importance=0.9)
    ratio = dk.initial_stability(r.kind, 0.9, mem.decay) / dk.initial_stability(r.kind, 0.2, mem.decay)
    assert u.stability == pytest.approx(r.stability * ratio) and u.anchor == r.anchor
    assert u.strength0 == r.strength0 and mem.strength(r.id) > before  # slower decay since the anchor
    assert u.fade_at > r.fade_at


def test_metadata_merges_tags_replace_validity_and_expiry(mem: Memory, clock: ManualClock) -> None:
    r = mem.remember("a fact", user_id="ana", metadata={"a": 1, "b": 2, "tags": ["x"]}, ttl="1d")
    u = mem.update(r.id, metadata={"b": None, "c": 3}, tags=["y", "z", "y"])
    assert u.metadata == {"a": 1, "c": 3, "tags": ["y", "z"]}
    assert [h.memory.id for h in mem.recall("fact", user_id="ana", tags=["z"], touch=False)] == [r.id]
    start = datetime(2026, 1, 1, tzinfo=UTC)
    u = mem.update(r.id, valid_from=start, valid_to=start + timedelta(days=30), expires_at=None)
    assert u.valid_from == start and u.expires_at is None and u.metadata["tags"] == ["y", "z"]
    u = mem.update(r.id, valid_to=None, tags=None, ttl="2h")
    assert u.valid_to is None and "tags" not in u.metadata
    assert u.expires_at == clock.now() + timedelta(hours=2)


def test_what_update_refuses(mem: Memory) -> None:
    old = mem.remember("Ana drinks tea", user_id="ana", key="drink")
    mem.remember("Ana drinks coffee", user_id="ana", key="drink")
    assert mem.get(old.id).status == Status.SUPERSEDED
    with pytest.raises(ConflictError):
        mem.update(old.id, content="edited history")
    r = mem.remember("x", user_id="ana")
    for bad in (
        {},
        {"kind": "episode"},
        {"content": ""},
        {"importance": 1.5},
        {"tags": "solo"},
        {"metadata": {"k": object()}},
        {"ttl": "1d", "expires_at": None},
        {"valid_from": datetime(2026, 2, 1, tzinfo=UTC), "valid_to": datetime(2026, 1, 1, tzinfo=UTC)},
        {"valid_from": datetime(2026, 2, 1)},  # naive
    ):
        with pytest.raises(ValidationError):
            mem.update(r.id, **bad)  # type: ignore[arg-type]
    assert mem.get(r.id).to_dict() == r.to_dict()  # nothing half-written
    with pytest.raises(NotFoundError):
        mem.update("mem_missing", content="y")
    mem.hide(r.id)
    assert mem.update(r.id, content="still hidden").status == Status.HIDDEN


def test_update_on_postgres(pg_url: str) -> None:
    with Memory(pg_url) as mem:
        r = mem.remember("the spare key is under the blue pot", user_id="ana", metadata={"tags": ["home"]})
        u = mem.update(r.id, content="the spare key is with the neighbour", tags=["home", "key"])
        assert u.content.endswith("neighbour") and u.metadata["tags"] == ["home", "key"]
        assert [h.memory.id for h in mem.recall("neighbour", user_id="ana", tags=["key"], touch=False)] == [
            r.id
        ]
        assert mem.recall("blue pot", user_id="ana", touch=False).hits == []


@pytest.fixture
def product_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    pytest.importorskip("cryptography")
    from remnant.privacy.keys import generate_key

    monkeypatch.setenv("REMNANT_VAULT_KEY", generate_key())
    monkeypatch.setenv("REMNANT_PRIVACY", "on")
    monkeypatch.setenv("REMNANT_REDACT_PRESIDIO", "off")
    monkeypatch.setenv("REMNANT_EMBEDDER", "static")
    return tmp_path / "remnant.db"


def test_update_redacts_releases_and_reembeds(product_env: Path) -> None:
    from remnant.config import build_memory

    mem = build_memory(str(product_env), tenant="t")
    try:
        r = mem.remember("reach Ana at ana.lima@example.com", user_id="ana")
        assert "[EMAIL_" in r.content and "ana.lima" not in r.content
        u = mem.update(r.id, content="reach Ana at +44 20 7946 0958, or write to rui@example.org")
        assert "rui@example.org" not in u.content and "7946" not in u.content
        # the old address's vault value went with the old text; the new ones come back
        text = mem.rehydrate(r.id)
        assert "rui@example.org" in text and "ana.lima@example.com" not in text
        raw = b"".join(
            p.read_bytes() for p in product_env.parent.glob("remnant.db*") if "vault-key" not in p.name
        )
        assert b"rui@example.org" not in raw and b"ana.lima@example.com" not in raw
        # hybrid recall sees the new text (the retriever re-indexed and re-embedded it)
        hits = mem.recall("how do I write to Ana", user_id="ana", touch=False)
        assert [h.memory.id for h in hits] == [r.id]
        assert not mem.store.unembedded_ids(
            mem.ledger.filter("ana"), model=mem.store.embedding_models(tenant="t")[0]
        )
    finally:
        mem.close()


def test_idempotency_keys_on_postgres(pg_url: str) -> None:
    from remnant.server.idempotency import Answer, IdempotencyKeyReused, IdempotencyKeys
    from remnant.store import open_store

    store = open_store(pg_url)
    try:
        keys = IdempotencyKeys(store)
        calls: list[int] = []

        def write() -> Answer:
            calls.append(1)
            return Answer(201, {"n": len(calls), "user_id": "ana"})

        first = keys.run("t", "k", "print-1", write)
        again = keys.run("t", "k", "print-1", write)
        body = {"n": 1, "user_id": "ana"}
        assert first == Answer(201, body) and again == Answer(201, body, replayed=True)
        assert calls == [1]
        with pytest.raises(IdempotencyKeyReused):
            keys.run("t", "k", "print-2", write)
        assert keys.run("other-tenant", "k", "print-2", write).body["n"] == 2
        assert keys.forget_user("t", "bob") == 0 and keys.forget_user("t", "ana") == 1
        assert keys.run("t", "k", "print-2", write).body["n"] == 3
    finally:
        store.close()


def test_idempotency_keys_expire_after_a_day(tmp_path: Path, clock: ManualClock) -> None:
    from remnant.server.idempotency import RETENTION_S, Answer, IdempotencyKeys
    from remnant.store import open_store

    store = open_store(tmp_path / "k.db")
    try:
        keys = IdempotencyKeys(store, now=lambda: clock.now().timestamp())
        n = iter(range(10))
        write = lambda: Answer(201, {"n": next(n)})  # noqa: E731
        assert keys.run("t", "k", "p", write).body == {"n": 0}
        clock.advance(seconds=RETENTION_S - 1)
        assert keys.run("t", "k", "p", write).replayed
        clock.advance(seconds=2)
        assert keys.run("t", "k", "p", write) == Answer(201, {"n": 1})  # a day on: a new write
    finally:
        store.close()


def test_idempotency_keys_race_on_postgres(pg_url: str) -> None:
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from remnant.server.idempotency import Answer, IdempotencyKeys
    from remnant.store import open_store

    store = open_store(pg_url)
    try:
        keys = IdempotencyKeys(store)
        lock, calls = threading.Lock(), []

        def write() -> Answer:
            with lock:
                calls.append(1)
            time.sleep(0.2)  # the others arrive while the first holds the key
            return Answer(201, {"n": 1})

        with ThreadPoolExecutor(max_workers=4) as pool:
            answers = list(pool.map(lambda _: keys.run("t", "race", "p", write), range(4)))
        assert len(calls) == 1 and {a.body["n"] for a in answers} == {1}
        assert sorted(a.replayed for a in answers) == [False, True, True, True]
    finally:
        store.close()
