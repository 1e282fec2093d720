"""remnant.Client and remnant.AsyncClient against a real server on loopback: Memory's verbs over
REST, the same result types, the same errors."""

from __future__ import annotations

import asyncio
import math
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import pytest

import remnant
from remnant import (
    AsyncClient,
    AuditEntry,
    ChainVerification,
    Client,
    ConfirmationRequired,
    ConflictError,
    ErasureReport,
    ForgetResult,
    Kind,
    MemoryRecord,
    NotFoundError,
    RecallResult,
    Status,
    SweepReport,
    ValidationError,
)
from remnant.core.errors import AuthenticationError, PermissionDeniedError, ServiceError
from remnant.engine.results import AddResult

if TYPE_CHECKING:
    from tests.server.conftest import LiveServer


def _client(live: LiveServer, key: str = "a_all") -> Client:
    return Client(live.base, api_key=live.keys[key])


def test_exported_from_the_package() -> None:
    assert remnant.Client is Client and remnant.AsyncClient is AsyncClient
    assert {"Client", "AsyncClient"} <= set(remnant.__all__)


def test_the_verbs_return_the_engines_types(live: LiveServer) -> None:
    with _client(live) as mem:
        r = mem.remember(
            "Ana prefers green tea",
            user_id="cl-ana",
            kind="preference",
            key="drink",
            importance=0.8,
            tags=["t"],
        )
        assert isinstance(r, MemoryRecord) and r.kind == Kind.PREFERENCE and r.status == Status.ACTIVE
        assert isinstance(r.created_at, datetime) and r.created_at.tzinfo is not None
        assert r.metadata["tags"] == ["t"] and r.tenant == "tenant-a"
        got = mem.get(r.id)
        assert got.to_dict() == r.to_dict() or got.id == r.id
        assert 0 < mem.strength(r.id) <= 1

        res = mem.recall("green tea", user_id="cl-ana", tags=["t"])
        assert isinstance(res, RecallResult) and [h.memory.id for h in res] == [r.id]
        assert res.hits[0].strength > 0 and res.memories[0].content == "Ana prefers green tea"

        newer = mem.remember("Ana prefers black coffee", user_id="cl-ana", kind="preference", key="drink")
        assert [m.status for m in mem.history("drink", user_id="cl-ana")] == [
            Status.SUPERSEDED,
            Status.ACTIVE,
        ]
        updated = mem.update(newer.id, content="Ana prefers flat whites", importance=0.9, tags=["cafe"])
        assert updated.id == newer.id and updated.content == "Ana prefers flat whites"
        assert updated.importance == 0.9 and updated.metadata["tags"] == ["cafe"]

        many = mem.remember_many(
            [{"content": f"note {i}", "user_id": "cl-ana", "session_id": "s"} for i in range(3)]
        )
        assert [m.content for m in many] == ["note 0", "note 1", "note 2"]
        added = mem.add(
            [{"role": "user", "content": "I started a job at Siemens"}, "thanks"], user_id="cl-ana"
        )
        assert isinstance(added, AddResult) and len(added.episodes) == 2

        assert mem.review(updated.id).review_count == 1
        assert [m.id for m in mem.used([updated.id])] == [updated.id]
        assert mem.pin(updated.id).pinned and not mem.unpin(updated.id).pinned
        assert mem.hide(many[0].id) == [many[0].id]
        assert mem.unhide(many[0].id).status == Status.ACTIVE
        assert mem.count_memories("cl-ana") == len(mem.list_memories("cl-ana", limit=100))
        assert [m.status for m in mem.list_memories("cl-ana", statuses=["superseded"])] == [Status.SUPERSEDED]

        dry = mem.forget_ids([many[1].id], dry_run=True)
        assert isinstance(dry, ForgetResult) and dry.dry_run and dry.matches[0].id == many[1].id
        with pytest.deprecated_call():  # the old form: an id given to forget()
            assert mem.forget(many[1].id).forgotten == [many[1].id]
        assert mem.purge(many[2].id) == 1
        with pytest.raises(NotFoundError):
            mem.get(many[2].id)

        sweep = mem.sweep(dry_run=True)
        assert isinstance(sweep, SweepReport) and sweep.dry_run
        log = mem.audit_log(user_id="cl-ana")
        assert log and all(isinstance(e, AuditEntry) for e in log)
        assert {"hide", "unhide", "purge", "update"} <= {e.action for e in log}
        check = mem.verify_audit()
        assert isinstance(check, ChainVerification) and check.ok
        assert mem.stats("cl-ana")["total"] >= 5
        assert "cl-ana" in [u.user_id for u in mem.users()]
        assert mem.whoami()["tenant"] == "tenant-a" and mem.ready()
        assert mem.curve(updated.id)["id"] == updated.id

        report = mem.erase_user("cl-ana")
        assert isinstance(report, ErasureReport) and report.verified and sum(report.removed.values()) >= 5
        assert mem.count_memories("cl-ana") == 0


def test_records_round_trip_exactly(live: LiveServer) -> None:
    from remnant.engine import Memory

    with _client(live) as mem:
        r = mem.remember(
            "valid in 2026 only",
            user_id="cl-rt",
            valid_from=datetime(2026, 1, 1, tzinfo=UTC),
            valid_to=datetime(2027, 1, 1, tzinfo=UTC),
            pinned=True,
        )
        assert r.valid_from == datetime(2026, 1, 1, tzinfo=UTC) and math.isinf(r.fade_at)
        local = Memory(":memory:").remember("x", user_id="u")
        assert set(r.to_dict()) == set(local.to_dict())


def test_errors_are_the_core_hierarchy(live: LiveServer) -> None:
    with _client(live) as mem:
        with pytest.raises(NotFoundError):
            mem.get("mem_missing")
        with pytest.raises(ValidationError):
            mem.remember("", user_id="cl-err")
        with pytest.raises(ValidationError):
            mem.recall("q" * 5000, user_id="cl-err")
        with pytest.raises(ValidationError):
            mem.update("mem_x", kind="episode")  # type: ignore[call-arg]
        m = mem.remember("pinned thing", user_id="cl-err", pinned=True)
        with pytest.raises(ConflictError):
            mem.purge(m.id)
        with pytest.raises(ConflictError):
            mem.unhide(m.id)
        for i in range(6):
            mem.remember(f"cl-err fact {i}", user_id="cl-err2")
        with pytest.raises(ConfirmationRequired) as info:
            mem.forget("forget everything", user_id="cl-err2")
        assert info.value.total >= 6
        mem.remember("first", user_id="cl-idem", idempotency_key="k1")
        again = mem.remember("first", user_id="cl-idem", idempotency_key="k1")
        assert again.content == "first" and mem.count_memories("cl-idem") == 1
        with pytest.raises(ValidationError, match="Idempotency-Key"):
            mem.remember("second", user_id="cl-idem", idempotency_key="k1")
    with Client(live.base, api_key="rk_nonsense") as bad, pytest.raises(AuthenticationError):
        bad.get("mem_x")
    with _client(live, "a_read") as ro, pytest.raises(PermissionDeniedError):
        ro.remember("nope", user_id="cl-err")
    with Client("http://127.0.0.1:9", timeout=2) as gone:
        with pytest.raises(ServiceError) as down:
            gone.get("mem_x")
        assert down.value.code == "unreachable" and not gone.ready()


def test_async_client(live: LiveServer) -> None:
    async def main() -> None:
        async with AsyncClient(live.base, api_key=live.keys["a_all"]) as mem:
            r = await mem.remember("Ana owns a grey bike", user_id="as-ana", key="bike")
            res = await mem.recall("grey bike", user_id="as-ana")
            assert [h.memory.id for h in res] == [r.id]
            u = await mem.update(r.id, content="Ana owns a red bike")
            assert u.content == "Ana owns a red bike"
            added = await mem.add("I will be in Madrid next week", user_id="as-ana", session_id="s")
            assert added.episodes[0].session_id == "s"
            assert (await mem.review(r.id)).review_count == 1
            assert await mem.hide(r.id) == [r.id]
            assert (await mem.unhide(r.id)).status == Status.ACTIVE
            assert (await mem.verify_audit()).ok
            assert (await mem.forget_ids(r.id, hard=True)).forgotten == [r.id]
            with pytest.raises(NotFoundError):
                await mem.get(r.id)
            assert (await mem.erase_user("as-ana")).verified

    asyncio.run(main())


def test_the_client_speaks_http_only() -> None:
    import ast
    from pathlib import Path

    tree = ast.parse(Path(remnant.client.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not [m for m in imported if m.startswith("remnant.server")]


def test_sync_and_async_clients_have_the_same_verbs_as_memory() -> None:
    import inspect

    from remnant.engine import Memory

    def verbs(cls: type) -> set[str]:
        return {n for n, _ in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")}

    sync, asyn = verbs(Client) - {"close"}, verbs(AsyncClient) - {"aclose"}
    assert sync == asyn
    assert all(inspect.iscoroutinefunction(getattr(AsyncClient, n)) for n in asyn)
    # Memory's verbs the clients mirror; the rest are engine-local (seams, files, the decay axis)
    local_only = {
        "close", "axis", "redact", "recall_filter", "files", "now", "touch", "fade_time", "active",
        "strength_of",
        "reembed",  # maintenance of the store's vectors, run where the store is (`remnant reembed`)
        "sync_knowledge",  # an operator's import job of versioned documents, run beside the store
    }  # fmt: skip
    assert verbs(Memory) - local_only <= sync


def test_occurred_at_round_trips_as_a_datetime(live: LiveServer) -> None:
    from datetime import UTC, datetime

    when = datetime(2023, 5, 7, 9, 0, tzinfo=UTC)
    with _client(live) as c:
        rec = c.remember("Ran the Lisbon half marathon", user_id="cl-occ", occurred_at=when)
        assert rec.occurred_at == when
        added = c.add(["I adopted a cat called Miso"], user_id="cl-occ", occurred_at=when)
        assert added.episodes and all(e.occurred_at == when for e in added.episodes)


def test_a_repeat_comes_back_deduplicated(live: LiveServer) -> None:
    with _client(live) as mem:
        first = mem.remember("My cat is called Biscuit.", user_id="cl-dup")
        again = mem.remember("my cat is called biscuit", user_id="cl-dup")
        assert again.id == first.id and again.deduplicated and not first.deduplicated
        added = mem.add(["I keep bees.", "I keep bees!"], user_id="cl-dup")
        assert added.duplicates == [added.episodes[0].id] and added.episodes[1].deduplicated
