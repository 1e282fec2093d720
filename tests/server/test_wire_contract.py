"""One wire contract: Python, the REST client and MCP answer alike.

The REST response models are derived from the engine's result types (``remnant.server.schemas``),
and ``remnant.Client`` reads them back with the same rule (``remnant.core.wire``). Here:

- every derived model has exactly its dataclass's fields (plus the values ``to_dict`` computes),
  and a field added to a result type reaches the model with no edit;
- for every verb the client has, ``Client.x(...) == Memory.x(...)``: the same calls on a live server
  on loopback and on a local ``remnant.Memory`` (the product, same tenant, same manual clock) give
  the same results, compared as dicts with ids, hashes and the actor put aside (they differ by
  construction: ids are random, the actor is who called);
- MCP's tools that are a verb (forget, erasure) answer the engine's own dict.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from tests.server.conftest import LiveServer, start_live

import remnant
from remnant import Client, ManualClock
from remnant.core import wire
from remnant.core.audit import AuditEntry, ChainVerification
from remnant.core.model import MemoryRecord
from remnant.engine.results import (
    AddResult,
    ErasureReport,
    FadedHint,
    ForgetIntent,
    ForgetMatch,
    ForgetResult,
    Hit,
    RecallResult,
    SweepReport,
    SweepStep,
)
from remnant.server import schemas
from remnant.store.base import UserSummary

# model -> (engine type, what its to_dict adds beyond the fields)
DERIVED: list[tuple[Any, type, frozenset[str]]] = [
    (schemas.MemoryRecordOut, MemoryRecord, frozenset()),
    (schemas.MemoryOut, MemoryRecord, frozenset({"strength", "remembered"})),
    (schemas.HitOut, Hit, frozenset()),
    (schemas.FadedHintOut, FadedHint, frozenset()),
    (schemas.RecallOut, RecallResult, frozenset()),
    (schemas.AddOut, AddResult, frozenset()),
    (schemas.ForgetIntentOut, ForgetIntent, frozenset()),
    (schemas.ForgetMatchOut, ForgetMatch, frozenset()),
    (schemas.ForgetOut, ForgetResult, frozenset({"matched"})),
    (schemas.ErasureOut, ErasureReport, frozenset({"removed_total", "verified"})),
    (schemas.SweepStepOut, SweepStep, frozenset()),
    (schemas.SweepOut, SweepReport, frozenset({"total"})),
    (schemas.AuditEntryOut, AuditEntry, frozenset()),
    (schemas.ChainVerificationOut, ChainVerification, frozenset()),
    (schemas.UserOut, UserSummary, frozenset()),
]


@pytest.mark.parametrize(("model", "cls", "computed"), DERIVED, ids=lambda v: getattr(v, "__name__", ""))
def test_each_response_model_has_its_engine_types_fields(
    model: Any, cls: type, computed: frozenset[str]
) -> None:
    assert set(model.model_fields) == set(wire.field_names(cls)) | computed


def test_the_forget_intent_keeps_every_field_on_the_wire() -> None:
    """The bug this contract closes: REST kept 10 of the intent's 24 fields, the client defaulted
    the rest."""
    intent = ForgetIntent(
        hard=True, topics=("phone",), terms=("555",), keep_terms=("work",), facet=True, people=("wife",),
        any_of=(("lump", "biopsy"),), asks_value=True, keep_topics=("city",), value_kind="code",
    )  # fmt: skip
    wire_form = schemas.ForgetIntentOut.model_validate(intent.to_dict()).model_dump(mode="json")
    assert set(wire_form) == set(wire.field_names(ForgetIntent))
    assert wire.load(ForgetIntent, wire_form) == intent


def test_a_field_added_to_a_result_reaches_the_model_and_the_reader() -> None:
    @dataclass
    class Grown:
        """A result type that grew a field."""

        n: int
        at: datetime
        tags: tuple[str, ...] = ()
        extra: str | None = None
        steps: list[SweepStep] = field(default_factory=list)

    model = schemas.wire_model(Grown, "GrownOut", nested=False)
    value = Grown(1, datetime(2026, 1, 1, tzinfo=UTC), ("a",), "new", [SweepStep("expire", "p", 1, ["x"])])
    body = model.model_validate(wire.dump(value)).model_dump(mode="json")
    assert body["extra"] == "new" and body["at"] == "2026-01-01T00:00:00+00:00"
    assert wire.load(Grown, body) == value


# -- the same calls on both sides --------------------------------------------------------------------
_ID = re.compile(r"\b[a-z]+_[0-9a-z]{26}\b")
_HASH = re.compile(r"^[0-9a-f]{64}$")
_ACTOR_KEYS = {"actor"}  # who called: the key's actor over REST, the default actor in Python


class _Names:
    """Ids of one side, named by order of first appearance (the two sides make them alike)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        return _ID.sub(lambda m: self.names.setdefault(m.group(0), f"<id{len(self.names)}>"), text)


def _canon(value: Any, names: _Names) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = value.to_dict() if hasattr(value, "to_dict") else wire.dump(value)
    if isinstance(value, dict):
        return {
            names(str(k)): _canon(v, names) for k, v in value.items() if k not in _ACTOR_KEYS and k != "mac"
        }
    if isinstance(value, (list, tuple)):
        return [_canon(v, names) for v in value]
    if isinstance(value, str):
        return "<hash>" if _HASH.match(value) else names(value)
    if isinstance(value, float):
        return round(value, 6)
    return value


@dataclass
class Pair:
    py: remnant.Memory
    cl: Client
    clock: ManualClock
    live: LiveServer
    py_names: _Names = field(default_factory=_Names)
    cl_names: _Names = field(default_factory=_Names)
    mismatches: list[str] = field(default_factory=list)
    verbs: set[str] = field(default_factory=set)

    def same(self, verb: str, call: Callable[[Any], Any]) -> tuple[Any, Any]:
        """``call`` on the local Memory and on the Client at one clock reading; then the clock moves
        a second on (so the two sides' records sort alike)."""
        py = call(self.py)
        cl = call(self.cl)
        self.verbs.add(verb)
        a, b = _canon(py, self.py_names), _canon(cl, self.cl_names)
        if a != b:
            self.mismatches.append(f"{verb}:\n  Memory: {a!r}\n  Client: {b!r}")
        self.clock.advance(timedelta(seconds=1))
        return py, cl


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Pair]:
    clock = ManualClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    for live in start_live(tmp_path / "server", clock=clock):
        with (
            remnant.Memory(tmp_path / "py.db", tenant="tenant-a", clock=clock) as py,
            Client(live.base, api_key=live.keys["a_all"]) as cl,
        ):
            yield Pair(py, cl, clock, live)


def test_the_client_answers_as_memory_does_for_every_verb(pair: Pair) -> None:
    p = pair
    p.same(
        "remember",
        lambda m: m.remember(
            "Ana prefers green tea", user_id="ana", kind="preference", key="drink", importance=0.8
        ),
    )
    p.same("remember", lambda m: m.remember("My phone number is 555-0199", user_id="ana", key="phone"))
    p.same(
        "remember",
        lambda m: m.remember("Ana prefers green tea", user_id="ana", key="drink", kind="preference"),
    )
    many, many_cl = p.same(
        "remember_many",
        lambda m: m.remember_many(
            # importances apart, so no two share a strength (ties would sort by the random ids)
            [
                {"content": f"note {i}", "user_id": "ana", "session_id": "s1", "importance": 0.3 + i / 5}
                for i in range(3)
            ]
        ),
    )
    p.same(
        "add",
        lambda m: m.add(
            [
                {"role": "user", "content": "I moved to Lisbon last spring and I work at Acme"},
                {"role": "assistant", "content": "Noted!"},
            ],
            user_id="ana",
            session_id="s2",
        ),
    )
    p.same("recall", lambda m: m.recall("what does Ana drink?", user_id="ana"))
    p.same("recall", lambda m: m.recall("", user_id="ana", limit=3, touch=False, kinds=["fact"]))

    # the two sides' ids of the same memory, by position
    ids = {m: (a.id, b.id) for m, a, b in zip(("n0", "n1", "n2"), many, many_cl, strict=True)}

    def on(name: str) -> Callable[[Any], str]:
        return lambda m: ids[name][0 if m is p.py else 1]

    n0, n1, n2 = on("n0"), on("n1"), on("n2")
    p.same("get", lambda m: m.get(n0(m)))
    p.same("strength", lambda m: m.strength(n0(m)))
    p.same("update", lambda m: m.update(n0(m), content="note zero", importance=0.9))
    p.same("review", lambda m: m.review(n0(m)))
    p.same("used", lambda m: m.used([n0(m), n1(m)]))
    p.same("pin", lambda m: m.pin(n1(m)))
    p.same("unpin", lambda m: m.unpin(n1(m)))
    p.same("history", lambda m: m.history("drink", user_id="ana"))
    p.same("current", lambda m: m.current("drink", user_id="ana"))
    p.same("list_memories", lambda m: m.list_memories("ana", limit=50))
    p.same("count_memories", lambda m: m.count_memories("ana", statuses=["active"]))
    p.same("stats", lambda m: m.stats("ana"))
    p.same("stats", lambda m: m.stats())
    p.same("users", lambda m: m.users())

    p.same("hide", lambda m: m.hide(n1(m)))
    p.same("unhide", lambda m: m.unhide(n1(m)))
    phone, _ = p.same("forget", lambda m: m.forget("forget my phone number", user_id="ana", dry_run=True))
    tea_gone, _ = p.same("forget", lambda m: m.forget("forget what I said about tea", user_id="ana"))
    assert phone.matches and tea_gone.forgotten  # the comparisons below are of real answers
    p.same("forget_ids", lambda m: m.forget_ids([n1(m)], dry_run=True))
    p.same("forget_ids", lambda m: m.forget_ids([n1(m)]))
    p.same("forget_ids", lambda m: m.forget_ids([n2(m)], hard=True))
    p.same("purge", lambda m: m.purge(n0(m)))
    p.same("sweep", lambda m: m.sweep(dry_run=True))
    p.clock.advance(timedelta(days=400))  # let things fade and expire
    swept, _ = p.same("sweep", lambda m: m.sweep())
    assert swept.total > 0
    p.same("recall", lambda m: m.recall("Lisbon", user_id="ana"))
    p.same("audit_log", lambda m: m.audit_log(user_id="ana"))
    p.same("verify_audit", lambda m: m.verify_audit())
    p.same("audit_anchor", lambda m: {k: v for k, v in m.audit_anchor().items() if k != "created_at"})
    p.same("remember", lambda m: m.remember("Bo likes chess", user_id="bo"))
    erased, _ = p.same("erase_user", lambda m: m.erase_user("bo"))
    assert erased.verified and sum(erased.removed.values()) == 1
    p.same("users", lambda m: m.users())

    assert not p.mismatches, "\n".join(p.mismatches)
    # every verb the client has was compared (rehydrate needs the vault scope: the next test)
    client_verbs = {n for n in dir(Client) if not n.startswith("_") and callable(getattr(Client, n))}
    server_only = {"close", "curve", "whoami", "ready", "rehydrate"}  # no Memory counterpart here
    assert client_verbs - server_only - p.verbs == set()


def test_rehydrate_answers_alike(pair: Pair) -> None:
    py = pair.py.remember("Call me at 555-0199", user_id="cy")
    with (
        Client(pair.live.base, api_key=pair.live.keys["a_vault"]) as vault,
        Client(pair.live.base, api_key=pair.live.keys["a_all"]) as cl,
    ):
        remote = cl.remember("Call me at 555-0199", user_id="cy")
        assert remote.content == py.content
        assert vault.rehydrate(remote.id) == pair.py.rehydrate(py.id) == "Call me at 555-0199"


# -- MCP: the tools that are a verb answer the engine's own dict -------------------------------------
def _mcp(live: LiveServer, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    pytest.importorskip("mcp")
    import httpx2
    from mcp import Client as McpClient
    from mcp.client.streamable_http import streamable_http_client

    async def main() -> list[dict[str, Any]]:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {live.keys['a_all']}"}, timeout=30)
        out = []
        async with McpClient(streamable_http_client(f"{live.base}/mcp", http_client=http)) as client:
            for name, args in calls:
                r = await client.call_tool(name, args)
                assert not r.is_error, r.content
                out.append(r.structured_content)
        return out

    return anyio.run(main)


def test_mcp_forget_and_erasure_answer_as_memory_does(pair: Pair) -> None:
    p = pair
    py_tea = p.py.remember("My phone number is 555-0199", user_id="mo", key="phone")
    cl_tea = p.cl.remember("My phone number is 555-0199", user_id="mo", key="phone")
    p.py.remember("Mo prefers green tea", user_id="mo")
    p.cl.remember("Mo prefers green tea", user_id="mo")
    py = [
        p.py.forget("forget my phone number", user_id="mo", dry_run=True).to_dict(),
        p.py.forget_ids([py_tea.id], dry_run=True).to_dict(),
        p.py.forget("forget that I like tea", user_id="mo").to_dict(),
        {"erased": True, **p.py.erase_user("mo").to_dict()},
    ]
    mcp = _mcp(
        p.live,
        [
            ("forget", {"request": "forget my phone number", "user_id": "mo", "dry_run": True}),
            ("forget", {"request": cl_tea.id, "user_id": "mo", "dry_run": True}),
            ("forget", {"request": "forget that I like tea", "user_id": "mo"}),
            ("delete_all_memories", {"user_id": "mo", "confirm": True}),
        ],
    )
    assert _canon(mcp, _Names()) == _canon(py, _Names())


def test_the_async_client_reads_the_same_results(pair: Pair) -> None:
    from remnant import AsyncClient

    p = pair
    p.py.remember("My phone number is 555-0199", user_id="al", key="phone")
    p.cl.remember("My phone number is 555-0199", user_id="al", key="phone")

    async def main() -> list[Any]:
        async with AsyncClient(p.live.base, api_key=p.live.keys["a_all"]) as cl:
            return [
                await cl.forget("forget my phone number", user_id="al", dry_run=True),
                await cl.recall("phone", user_id="al", touch=False),
                await cl.stats("al"),
            ]

    remote = anyio.run(main)
    local = [
        p.py.forget("forget my phone number", user_id="al", dry_run=True),
        p.py.recall("phone", user_id="al", touch=False),
        p.py.stats("al"),
    ]
    assert [type(r) for r in remote] == [type(r) for r in local]
    assert _canon(remote, _Names()) == _canon(local, _Names())
